//! The `a2a-card` command: canonicalize, sign, verify and inspect A2A Agent Cards, and make and
//! publish the keys that sign them.
//!
//! This file parses the command line, dispatches to one module per subcommand, prints the one
//! error line and maps errors to the documented exit codes. Every rule lives in the `a2a-card`
//! library; the subcommands only read files, call it and write what it returns.
#![forbid(unsafe_code)]

mod cmd;
mod io;
mod keyref;
mod options;

use a2a_card::{Error, ErrorCode};
use clap::{CommandFactory, Parser, Subcommand};
use std::process::ExitCode;

/// Exit codes, as printed at the end of `--help`.
const EXIT_CODES: &str = "\
Exit codes:
  0  success (for verify: the card is valid)
  1  a signature is invalid or the policy is not met
  2  bad input or usage (malformed JSON, unknown option, unreadable card)
  3  key or network retrieval failed (a key, JWKS or trust-store file is missing or
     cannot be read as keys; fetching a card failed; verify URL: a signature's only
     key was behind an allowed jku that could not be fetched)

Errors are printed as one line on stderr:
  error[CODE]: MESSAGE at POINTER (FILE or URL)
where CODE is a stable kebab-case code (e.g. invalid-json, duplicate-member, io,
address-refused, not-json, timeout).

Example:
  a2a-card keygen --alg ES256 --out release.pem --jwks jwks.json
  a2a-card sign card.json --key release.pem --in-place
  a2a-card verify card.json --jwks jwks.json
  a2a-card verify https://agent.example.com --trust trust.json
  a2a-card canonicalize card.json --report > card.canonical.json";

/// Canonicalize, sign and verify A2A Agent Cards exactly as A2A v1.0 section 8.4 says.
#[derive(Debug, Parser)]
#[command(name = "a2a-card", version = cmd::version::LONG_VERSION, about, after_help = EXIT_CODES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// One variant per subcommand; each lives in its own module under `cmd/`.
#[derive(Debug, Subcommand)]
enum Command {
    /// Print the canonical bytes of a card (A2A v1.0 section 8.4.1: presence rules, no
    /// `signatures`, RFC 8785), exactly, with no trailing newline.
    #[command(after_help = cmd::canonicalize::AFTER_HELP)]
    Canonicalize(cmd::canonicalize::Args),
    /// Sign a card: append a JWS signature over its canonical bytes to `signatures`, leaving
    /// every other byte of the card as it was.
    #[command(after_help = cmd::sign::AFTER_HELP)]
    Sign(cmd::sign::Args),
    /// Verify a card's signatures against the keys you trust, and say what they cover; given
    /// an https URL, fetch the card first.
    #[command(after_help = cmd::verify::AFTER_HELP)]
    Verify(Box<cmd::verify::Args>),
    /// Fetch a card over HTTPS (SSRF guard, limits, HTTP cache) and print it as served,
    /// verifying nothing.
    #[command(after_help = cmd::fetch::AFTER_HELP)]
    Fetch(cmd::fetch::Args),
    /// Show a card's signature headers, canonical SHA-256 and unsigned members, trusting
    /// nothing and verifying nothing.
    #[command(after_help = cmd::inspect::AFTER_HELP)]
    Inspect(cmd::inspect::Args),
    /// Generate a signing key (PKCS#8 PEM, file mode 0600) and, optionally, its public JWKS.
    #[command(after_help = cmd::keygen::AFTER_HELP)]
    Keygen(cmd::keygen::Args),
    /// Print the public JWKS (`{"keys":[...]}`) of key files, for publishing.
    #[command(after_help = cmd::jwks::AFTER_HELP)]
    Jwks(cmd::jwks::Args),
    /// Print the JSON Schema of an A2A v1.0 Agent Card, generated from the library's typed model.
    #[command(after_help = cmd::schema::AFTER_HELP)]
    Schema(cmd::schema::Args),
    /// Check a card against A2A v1.0 before signing it: findings with a severity, a stable code
    /// and a JSON Pointer.
    #[command(after_help = cmd::lint::AFTER_HELP)]
    Lint(cmd::lint::Args),
    /// Rewrite an A2A 0.3 card as a 1.0 card, reporting anything that could not be carried over.
    #[command(after_help = cmd::migrate::AFTER_HELP)]
    Migrate(cmd::migrate::Args),
    /// Print what this build is and can do: version, commit, target, features, algorithms.
    #[command(after_help = cmd::version::AFTER_HELP)]
    Version(cmd::version::Args),
    /// Print the shell completion script for bash, zsh, fish, elvish or powershell.
    #[command(after_help = cmd::completions::AFTER_HELP)]
    Completions(cmd::completions::Args),
    /// Print the man page, or write every page (one per subcommand) into a directory.
    #[command(after_help = cmd::man::AFTER_HELP)]
    Man(cmd::man::Args),
    /// Run the HTTP verification service (crate a2a-card-serve): POST /v1/verify,
    /// /v1/verify-remote, /healthz, /readyz, /metrics, with the policy of a file.
    #[command(after_help = a2a_card_serve::AFTER_HELP)]
    Serve(a2a_card_serve::Args),
}

/// A failed command: the library error, the input it concerns (a path, a URL, `<stdin>`,
/// `<stdout>`), and, where the error code alone does not decide it, the exit code.
#[derive(Debug)]
pub(crate) struct Failure {
    error: Failed,
    source: String,
    exit: Option<u8>,
}

/// The error of a failed command: the core's, or the fetcher's (a retrieval, with its own codes).
#[derive(Debug)]
enum Failed {
    /// Boxed, as the fetcher's: a `Result` of the CLI stays small.
    Card(Box<Error>),
    Fetch(Box<a2a_card_fetch::Error>),
}

impl Failure {
    /// An error about `source`.
    pub(crate) fn new(error: Error, source: impl Into<String>) -> Self {
        Failure {
            // The options an error names, spelled as flags (the CLI's own map).
            error: Failed::Card(Box::new(error.spelled(&options::Flags))),
            source: source.into(),
            exit: None,
        }
    }

    /// A fetcher's error about `source` (the exit code is the caller's to set: 2 or 3).
    pub(crate) fn fetch(error: a2a_card_fetch::Error, source: impl Into<String>) -> Self {
        Failure {
            error: Failed::Fetch(Box::new(error.spelled(&options::Flags))),
            source: source.into(),
            exit: None,
        }
    }

    /// The core's error, for a failure that has one (every failure but a retrieval's).
    pub(crate) fn card_error(&self) -> Option<&Error> {
        match &self.error {
            Failed::Card(e) => Some(e),
            Failed::Fetch(e) => e.card_error(),
        }
    }

    /// The core's error of a failure reading an input (a batch item's line). Reading a file
    /// raises only the core's errors; a fetcher's error (never raised there) keeps its text
    /// under `io`.
    pub(crate) fn into_card_error(self) -> Error {
        match self.error {
            Failed::Card(e) => *e,
            Failed::Fetch(e) => e
                .card_error()
                .cloned()
                .unwrap_or_else(|| Error::new(ErrorCode::Io, e.to_string())),
        }
    }

    /// The code, message and place of the error line.
    fn parts(&self) -> (&'static str, &str, Option<String>) {
        match &self.error {
            Failed::Card(e) => (e.code().as_str(), e.message(), e.place()),
            Failed::Fetch(e) => (e.code().as_str(), e.message(), e.place()),
        }
    }

    /// A usage error (exit code 2) about the command line.
    pub(crate) fn usage(message: impl Into<String>) -> Self {
        Failure::new(Error::new(ErrorCode::Usage, message), crate::io::COMMAND_LINE)
    }

    /// The same failure, counted as a failed key or network retrieval (exit code 3): a key,
    /// JWKS or trust-store file that is missing or cannot be read as keys, a card that could
    /// not be fetched.
    pub(crate) fn key_retrieval(mut self) -> Self {
        self.exit = Some(3);
        self
    }

    /// The same failure, counted as bad input or usage (exit code 2) whatever its code.
    pub(crate) fn bad_input(mut self) -> Self {
        self.exit = Some(2);
        self
    }

    /// The documented exit code for this error.
    fn exit_code(&self) -> u8 {
        if let Some(code) = self.exit {
            return code;
        }
        match self.card_error().map(Error::code) {
            Some(
                ErrorCode::SignatureInvalid
                | ErrorCode::UntrustedKey
                | ErrorCode::ProfileNotAccepted
                | ErrorCode::AlgorithmNotAllowed
                | ErrorCode::KeyExpired
                | ErrorCode::KeyRevoked,
            ) => 1,
            _ => 2,
        }
    }

    /// The one error line: `error[CODE]: MESSAGE at PLACE (SOURCE)`, on a single line.
    fn line(&self) -> String {
        let (code, message, place) = self.parts();
        let mut line = format!("error[{code}]: {message}");
        if let Some(place) = place {
            line.push_str(" at ");
            line.push_str(&place);
        }
        line.push_str(" (");
        line.push_str(&self.source);
        line.push(')');
        // Keep it one line whatever a message contains.
        line.replace(['\n', '\r'], " ")
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version go to stdout with 0; usage errors to stderr with 2, their first
            // line in the documented form `error[usage]: ...` (clap's usage text follows).
            if !e.use_stderr() {
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            let text = e.render().to_string();
            let text = match text.strip_prefix("error: ") {
                Some(rest) => format!("error[{}]: {rest}", ErrorCode::Usage.as_str()),
                None => format!("error[{}]: {text}", ErrorCode::Usage.as_str()),
            };
            eprint!("{text}");
            return ExitCode::from(2);
        }
    };
    // Each subcommand returns its exit code (0; for verify 1 when the card does not verify, 3
    // when a key it needed could not be fetched) or a failure, which is printed as the one error line.
    let result = match cli.command {
        Command::Canonicalize(args) => cmd::canonicalize::run(args).map(|()| 0),
        Command::Sign(args) => cmd::sign::run(args).map(|()| 0),
        Command::Verify(args) => match args.batch.clone() {
            Some(dir) => cmd::batch::run(&args, &dir),
            None => cmd::verify::run(*args),
        },
        Command::Fetch(args) => cmd::fetch::run(args).map(|()| 0),
        Command::Inspect(args) => cmd::inspect::run(args).map(|()| 0),
        Command::Keygen(args) => cmd::keygen::run(args).map(|()| 0),
        Command::Jwks(args) => cmd::jwks::run(args).map(|()| 0),
        Command::Schema(args) => cmd::schema::run(args).map(|()| 0),
        Command::Lint(args) => cmd::lint::run(args),
        Command::Migrate(args) => cmd::migrate::run(args),
        Command::Version(args) => cmd::version::run(args).map(|()| 0),
        Command::Completions(args) => cmd::completions::run(args, Cli::command()).map(|()| 0),
        Command::Man(args) => cmd::man::run(args, Cli::command()).map(|()| 0),
        Command::Serve(args) => Ok(a2a_card_serve::run(args)),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(failure) => {
            eprintln!("{}", failure.line());
            ExitCode::from(failure.exit_code())
        }
    }
}
