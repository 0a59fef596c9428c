//! The `a2a-card` command: canonicalize (and later sign and verify) A2A Agent Cards.
//!
//! This file parses the command line, dispatches to one module per subcommand, prints the one
//! error line and maps errors to the documented exit codes. Every rule lives in the `a2a-card`
//! library; the subcommands only read files, call it and write what it returns.
#![forbid(unsafe_code)]

mod cmd;
mod io;

use a2a_card::{Error, ErrorCode};
use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Exit codes, as printed at the end of `--help`.
const EXIT_CODES: &str = "\
Exit codes:
  0  success (for verify: the card is valid)
  1  a signature is invalid or the policy is not met
  2  bad input or usage (malformed JSON, unknown option, unreadable file)
  3  key or network retrieval failed

Errors are printed as one line on stderr:
  error[CODE]: MESSAGE at POINTER (FILE)
where CODE is a stable kebab-case code (e.g. invalid-json, duplicate-member, io).

Example:
  a2a-card canonicalize card.json --report > card.canonical.json";

/// Canonicalize, sign and verify A2A Agent Cards exactly as A2A v1.0 section 8.4 says.
#[derive(Debug, Parser)]
#[command(name = "a2a-card", version, about, after_help = EXIT_CODES)]
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
    // Later: Sign, Verify, Keygen, Inspect, Jwks, Fetch, Lint -- one module each.
}

/// A failed command: the library error and the input it concerns (a path, `<stdin>`,
/// `<stdout>`).
#[derive(Debug)]
pub(crate) struct Failure {
    error: Error,
    source: String,
}

impl Failure {
    /// An error about `source`.
    pub(crate) fn new(error: Error, source: impl Into<String>) -> Self {
        Failure {
            error,
            source: source.into(),
        }
    }

    /// The documented exit code for this error.
    fn exit_code(&self) -> u8 {
        match self.error.code() {
            ErrorCode::SignatureInvalid
            | ErrorCode::UntrustedKey
            | ErrorCode::AlgorithmNotAllowed
            | ErrorCode::KeyExpired
            | ErrorCode::KeyRevoked => 1,
            _ => 2,
        }
    }

    /// The one error line: `error[CODE]: MESSAGE at PLACE (SOURCE)`, on a single line.
    fn line(&self) -> String {
        let mut line = format!("error[{}]: {}", self.error.code(), self.error.message());
        if let Some(place) = self.error.place() {
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
            // Help and version go to stdout with 0; usage errors to stderr with 2.
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let result = match cli.command {
        Command::Canonicalize(args) => cmd::canonicalize::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("{}", failure.line());
            ExitCode::from(failure.exit_code())
        }
    }
}
