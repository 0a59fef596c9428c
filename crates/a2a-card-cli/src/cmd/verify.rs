//! `a2a-card verify`: the verdict on each signature, against keys the caller trusts, and what
//! the signatures cover. Given an https URL, the card is fetched first (`a2a-card-fetch`), with
//! the URL's origin as the card's origin and `jku`s followed only under `--allow-jku`.

use super::fetch::{self, FetchArgs};
use crate::io::{
    check_output, is_stdin, printable, read_input, refuse_same_file, replace_file, write_stdout,
};
use crate::options::{refused, Flags, TableFlags};
use crate::Failure;
use a2a_card::request::VerifyRequest;
use a2a_card::signature::TextForm;
use a2a_card::Algorithm;
use a2a_card::{verify_card, Report, TrustStore, VerifyOptions};
use a2a_card_fetch::{verify_remote, ManyRequest, RemoteOptions, RemoteReport, RemoteRequest};
use clap::builder::PossibleValuesParser;
use std::path::{Path, PathBuf};

/// Examples shown at the end of `a2a-card verify --help`.
pub(crate) const AFTER_HELP: &str = "\
Examples:
  a2a-card verify card.json --jwks jwks.json
  a2a-card verify card.json --key release.pub.pem --alg ES256 --format json
  a2a-card verify card.json --trust trust.json --mode all --emit-verified card.verified.json
  curl -s https://agent.example/.well-known/agent-card.json | a2a-card verify - --jwks jwks.json
  a2a-card verify card.json --jwks jwks.json --profile spec --profile prune-empty
  a2a-card verify https://agent.example.com --trust trust.json
  a2a-card verify https://agent.example.com --allow-jku https://agent.example.com/keys/
  a2a-card verify --batch cards/ --jwks jwks.json --threads 2 > report.jsonl
  a2a-card verify --urls agents.txt --trust trust.json --concurrency 64 --per-origin 2 > report.jsonl
  a2a-card verify https://agent.example.com --trust-anchors corp-roots.pem
  a2a-card verify card.json --trust-anchors spire-bundle.pem --identity spiffe://example.org/ns/a/sa/agent

Trust roots (at least one): --key (one public key, PEM or JWK; a private key yields its public
half), --jwks (a JWK Set), --trust (a trust store: a JWKS whose entries may carry
\"algorithms\", \"origins\", \"notBefore\", \"notAfter\" and \"revoked\"). A signature's kid
only selects among these keys. For a card file its jku is never fetched.

Certificates: with --trust-anchors (CA certificates, PEM; or \"certificate\" entries of a trust
store), a signature whose protected header carries an x5c chain is checked with the leaf's key
when the chain builds to one of the anchors (validity now, CA flags, path length, name
constraints, --require-eku, --crl) and the leaf names the identity expected: --identity or
--identity-prefix (SPIFFE IDs, DNS names), else a DNS or IP SAN of the card's origin (a URL's,
or --origin). No identity rule: untrusted. An x5u is never fetched; a chain in the card is
never a trust root by itself.

A URL (https://...) instead of a file: the card is fetched as a2a-card fetch does (an origin
means its /.well-known/agent-card.json; SSRF guard, limits, HTTP cache; see a2a-card fetch
--help) and verified with the origin of that URL (redirects do not change it): trust entries
with \"origins\" count only when they list it. A signature's jku is fetched only when it falls
under an --allow-jku prefix whose origin is the card's origin; its keys are then trusted for
cards of that origin only. Any other jku is reported and not fetched. With --allow-jku, the
--key, --jwks and --trust files may be left out.

The text report names the verdict, the profile, the SHA-256 of the canonical bytes, one line
per signature (index, kid, alg, verdict and the key used) and the members the signatures do
not cover; for a URL also the origin, the final URL, each redirect, the cache outcome, where
each key came from (a trust-store file or a jku URL) and one line per jku with what was done
with it. --format json prints the same report as JSON with the canonical bytes as the string
member \"canonical\"; for a URL the same members, and beside them one more, \"fetch\", with
the retrieval (URLs, redirects, status, cache, protocol, proxy, key sources, each jku and what
was done with it). Act on the verified content (--emit-verified), not on the served card.

--emit-verified FILE is written through a temporary file and a rename; a symbolic link is
written through, a dangling link, a device, a FIFO, a socket or a directory is refused, and so
is a read-only file unless --force is given. FILE may not be the card, a --key, --jwks or
--trust file, or the --ca-file.

Exit codes: 0 valid, 1 invalid or the policy is not met, 2 bad input or usage, 3 a key, JWKS or
trust-store file cannot be read, the card cannot be fetched, or a signature's only key was
behind an allowed jku that could not be fetched.";

/// Arguments of `verify`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The card to verify: a file, `-` or nothing for stdin, or an https URL (an origin means
    /// its /.well-known/agent-card.json). An argument starting with https:// or http:// is a
    /// URL; write ./NAME for a file named so.
    #[arg(value_name = "CARD|URL")]
    pub(crate) card: Option<PathBuf>,

    /// Verify many cards in parallel: every `*.json` file of a directory (the extension in any
    /// case; sorted by name, not recursive; an entry that is not a regular file is reported,
    /// never opened) or every line of a `.jsonl` file (read line by line, each line at most
    /// --max-input-bytes). Prints one JSON line per card, a chunk of lines at a time, and a
    /// summary on stderr; exit 0 when every card is valid, 1 otherwise.
    #[arg(long, value_name = "DIR|FILE.jsonl")]
    pub(crate) batch: Option<PathBuf>,

    /// With --batch: how many threads verify cards (default: RAYON_NUM_THREADS, which must
    /// then be 1 to 1024, else one per core).
    #[arg(long, value_name = "N", requires = "batch",
          value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub(crate) threads: Option<u16>,

    /// With --batch or --urls: accept a batch that holds no card (by default an empty batch
    /// is refused: a wrong path in a pipeline must not pass).
    #[arg(long)]
    pub(crate) allow_empty: bool,

    /// Verify many remote cards concurrently over one fetcher (its connections, HTTP/2 and
    /// memory cache shared): each line of FILE (`-` for stdin) is an https URL or origin, or a
    /// JSON object with a string member "url". Prints one JSON line per line of FILE, in input
    /// order (--unordered: as each finishes), every failure an error line with its line number
    /// and URL, and a summary on stderr; exit 0 when every card is valid, 1 otherwise.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["batch", "threads"],
          help_heading = "Remote batches (--urls)")]
    pub(crate) urls: Option<PathBuf>,

    /// A CRL (PEM or DER) applied to x5c chains (repeatable): a certificate listed by a CRL of
    /// its issuer is refused.
    #[arg(long = "crl", value_name = "FILE", help_heading = "Certificates (x5c)")]
    crls: Vec<PathBuf>,

    /// Accept only these algorithms (repeatable, or comma-separated); by default every
    /// asymmetric algorithm of this build.
    #[arg(long = "alg", value_name = "ALG", value_delimiter = ',', value_parser = super::alg_parser())]
    algs: Vec<Algorithm>,

    /// A profile to accept, tried in the order given (repeatable); `auto` means every profile.
    /// Default: spec.
    #[arg(long = "profile", value_name = "PROFILE",
          value_parser = super::profile_name_parser())]
    profiles: Vec<String>,

    /// `text` (a summary for people) or `json` (the full report).
    /// Default: text.
    #[arg(long, value_name = "FORMAT",
          value_parser = PossibleValuesParser::new(["text", "json"]))]
    pub(crate) format: Option<String>,

    /// When the card is valid, write the verified content (the canonical bytes the signatures
    /// cover) to FILE. Nothing is written when it is not. FILE must be a regular file or not
    /// exist, and may not be the card or a key, JWKS, trust-store or CA file.
    #[arg(long, value_name = "FILE")]
    pub(crate) emit_verified: Option<PathBuf>,

    /// Replace the --emit-verified file even when it is read-only.
    #[arg(long, requires = "emit_verified")]
    pub(crate) force: bool,

    #[command(flatten)]
    pub(crate) fetch: FetchArgs,

    /// The options of a remote verification (`--allow-jku`, `--max-jwks-keys`: they apply to a
    /// URL only).
    #[command(flatten)]
    pub(crate) remote: TableFlags<RemoteRequest>,

    /// The scheduling of a remote batch (`--concurrency`, `--per-origin`, ...).
    #[command(flatten)]
    pub(crate) many: TableFlags<ManyRequest>,

    /// The options of the core's table without a flag declared above (last: it sees them):
    /// the trust roots' files (`--key`, `--jwks`, `--trust`, `--trust-anchors`) among them.
    #[command(flatten)]
    pub(crate) table: TableFlags<VerifyRequest>,
}

impl Args {
    /// The trust roots and the remote options of a fetched card (`verify URL`, `--urls`): the
    /// policy ready, the `jku` allowlist and the JWK Set bound.
    pub(crate) fn remote(&self) -> Result<(a2a_card::TrustStore, RemoteOptions), Failure> {
        let remote = self.remote.build(RemoteRequest::default())?;
        let (trust, verify) = self.ready(&remote.jku_allow)?;
        Ok((trust, RemoteOptions { verify, ..remote }))
    }

    /// The card argument when it is a URL.
    fn url(&self) -> Option<String> {
        let arg = self.card.as_deref()?.to_str()?;
        fetch::is_url(arg).then(|| arg.to_string())
    }

    /// Checks the --emit-verified file before any work: it must be a file that may be written
    /// and none of the inputs (the card file, a key, JWKS or trust-store file, `ca_file`).
    fn check_emit_verified(&self, ca_file: Option<&Path>) -> Result<(), Failure> {
        let Some(out) = &self.emit_verified else {
            return Ok(());
        };
        if self.url().is_none() {
            if let Some(card) = self.card.as_deref().filter(|c| !is_stdin(Some(c))) {
                refuse_same_file("--emit-verified", out, "the card", card)?;
            }
        }
        let inputs = (self.table.files().map(|(flag, p, _)| (flag, p)))
            .chain(self.crls.iter().map(|p| ("--crl".into(), p.as_path())))
            .chain(ca_file.map(|p| ("--ca-file".into(), p)));
        for (flag, input) in inputs {
            if !is_stdin(Some(input)) {
                refuse_same_file("--emit-verified", out, &flag, input)?;
            }
        }
        check_output(out, self.force)?;
        Ok(())
    }

    /// Refuses a URL given to a file option of trust (`--jwks https://...`, a natural guess)
    /// with where keys from a URL come from instead, before any file is read.
    fn refuse_urls(&self) -> Result<(), Failure> {
        const KEYS: &str = "keys are not fetched from a URL given there. To let a card's jku \
             name its JWK Set, verify the card by its https URL with --allow-jku and a prefix of \
             the JWK Set's URL (the jku must start with it); to trust keys you hold, give them as \
             a local file (a trust store with --trust FILE, or --jwks FILE)";
        const CERTIFICATES: &str =
            "nothing is fetched from a URL given there: download it and give the local file";
        let files = (self.table.files())
            .map(|(flag, p, keys)| (flag, p, if keys { KEYS } else { CERTIFICATES }))
            .chain(
                self.crls
                    .iter()
                    .map(|p| ("--crl".into(), p.as_path(), CERTIFICATES)),
            );
        for (flag, path, instead) in files {
            crate::io::refuse_url_as_file(&flag, path, instead)?;
        }
        Ok(())
    }

    /// The trust roots and the policy of the flags: one request of the core's table
    /// (`a2a_card::request::VERIFY`), filled here. The key files (checked against stdin use)
    /// make the trust roots first; then the CRL files and the other flags are read and the
    /// policy made. `allow_jku`: the prefixes under which a jku may supply keys, so that no file
    /// is needed.
    pub(crate) fn ready(&self, allow_jku: &[String]) -> Result<(TrustStore, VerifyOptions), Failure> {
        self.refuse_urls()?;
        let key_files = (self.table.files().map(|(_, p, _)| p)).chain(self.crls.iter().map(PathBuf::as_path));
        if is_stdin(self.card.as_deref()) && key_files.clone().any(|p| is_stdin(Some(p))) {
            return Err(Failure::usage(
                "the card and a key file cannot both come from stdin; give the card as a file",
            ));
        }
        if key_files.filter(|p| is_stdin(Some(p))).count() > 1 {
            return Err(Failure::usage("only one key file can come from stdin"));
        }
        let mut request = VerifyRequest {
            algorithms: (!self.algs.is_empty())
                .then(|| self.algs.iter().map(|a| a.as_str().to_string()).collect()),
            profiles: (!self.profiles.is_empty()).then(|| self.profiles.clone()),
            allow_jku: allow_jku.to_vec(),
            fetched: self.url().is_some(),
            ..VerifyRequest::default()
        };
        self.table.fill_part(&mut request, true)?;
        let trust = request.trust_store().map_err(refused)?;
        for path in &self.crls {
            let (bytes, source) = crate::io::read_key_bytes(path)?;
            request.crls.push(
                a2a_card::signature::chain::read_crl(&bytes, &source)
                    .map_err(|e| Failure::new(e, &source).key_retrieval())?,
            );
        }
        // The other flags made from the table (the origin's text is read there once, by the core).
        self.table.fill_part(&mut request, false)?;
        Ok((trust, request.options().map_err(refused)?))
    }
}

/// Runs `verify` on one card (main dispatches `--batch` to `cmd::batch`); returns the exit code: 0 valid, 1 not valid, 3 (URL only) a key that could
/// not be fetched.
pub(crate) fn run(args: Args) -> Result<u8, Failure> {
    if args.allow_empty {
        return Err(Failure::usage(
            "--allow-empty applies only with --batch or --urls",
        ));
    }
    if let Some(url) = args.url() {
        return run_remote(&args, &url);
    }
    if let Some(flag) = args.fetch.first_given() {
        return Err(Failure::usage(format!(
            "{flag} applies only when the card is an https URL"
        )));
    }
    if let Some(flag) = args.remote.first_given() {
        return Err(Failure::usage(format!(
            "{flag} applies only when the card is an https URL; a card file's jku is never fetched"
        )));
    }
    args.check_emit_verified(None)?;
    let (trust, opts) = args.ready(&[])?;
    let input = read_input(args.card.as_deref(), opts.limits.max_input_bytes)?;
    let report = verify_card(&input.bytes, &trust, &opts).map_err(|e| Failure::new(e, &input.source))?;

    emit_verified(&args, &report)?;
    let out = if args.format.as_deref() == Some("json") {
        pretty(report.to_json())
    } else {
        report.to_text(&TextForm {
            card: vec![format!("card: {}", printable(&input.source))],
            ..TextForm::default()
        })
    };
    write_stdout(out.as_bytes())?;
    Ok(if report.ok { 0 } else { 1 })
}

/// `verify URL`: fetch, verify with the URL's origin, report where every key came from.
fn run_remote(args: &Args, url: &str) -> Result<u8, Failure> {
    if args.table.is_given("origin") {
        return Err(Failure::usage(
            "--origin is for card files; a fetched card's origin is its URL's",
        ));
    }
    let options = fetch::options(&args.fetch)?;
    args.check_emit_verified(options.roots.ca_file())?;
    let (trust, remote) = args.remote()?;
    let r = verify_remote(url, &trust, &remote, &options).map_err(|e| fetch::failure(e, url))?;

    emit_verified(args, &r.report)?;
    let (r, out) = remote_output(r, args.format.as_deref() == Some("json"));
    write_stdout(out.as_bytes())?;
    Ok(if r.report.ok {
        0
    } else if r.key_retrieval_failed() {
        3
    } else {
        1
    })
}

/// The output of `verify URL`: the remote report, the options its messages name (a `jku` that
/// failed for want of `--allow-loopback` or `--ca-file`) spelled as flags, in JSON or as text.
fn remote_output(r: RemoteReport, json: bool) -> (RemoteReport, String) {
    let r = r.spelled(&Flags);
    let out = if json { pretty(r.to_json()) } else { r.to_text() };
    (r, out)
}

/// Writes the verified content to the `--emit-verified` file, if one was given and there is
/// verified content; says on stderr why nothing was written when a card passed without any.
fn emit_verified(args: &Args, report: &Report) -> Result<(), Failure> {
    let Some(path) = &args.emit_verified else {
        return Ok(());
    };
    match report.verified_content() {
        Some(content) => replace_file(path, content, None, args.force),
        None if report.ok => crate::io::write_stderr_line(&format!(
            "note: nothing written to {}: the card is not signed, so no content is verified",
            printable(&path.display().to_string())
        )),
        None => Ok(()),
    }
}

/// Pretty JSON with a final newline.
fn pretty(value: serde_json::Value) -> String {
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_card_fetch::{CacheOutcome, Error, ErrorCode, JkuReport, JkuStatus};

    /// A `jku` whose retrieval was refused for want of a fetcher option is printed with the
    /// option as its flag (the fetcher's message names it only as data, `Error::options`), in
    /// the text and in the JSON report alike; the code and the rest of the message are kept.
    #[test]
    fn a_failed_jku_names_the_flag_that_would_allow_it() {
        let options = VerifyOptions {
            mode: a2a_card::Mode::IfPresent,
            ..VerifyOptions::default()
        };
        let report = verify_card(br#"{"name":"A"}"#, &TrustStore::new(), &options).unwrap();
        let failed = |e: Error| JkuStatus::Failed {
            code: e.code().as_str().to_string(),
            message: e.message().to_string(),
            error: Box::new(e),
        };
        let loopback = Error::about_options(
            ErrorCode::AddressRefused,
            "refused before connecting: localhost resolves to 127.0.0.1, a loopback address \
             (loopback is opened only with {allow_loopback}, for local testing)",
            &["allow_loopback"],
        );
        let roots = Error::about_options(
            ErrorCode::CertificateInvalid,
            "the server's certificate is not signed by a trusted root; give {roots}",
            &["roots"],
        );
        let plain = Error::new(ErrorCode::HttpStatus, "the server answered 404 Not Found");
        let jku = [loopback, roots, plain]
            .into_iter()
            .enumerate()
            .map(|(i, e)| JkuReport {
                url: format!("https://agent.example/keys/{i}.json"),
                signatures: vec![i],
                status: failed(e),
            })
            .collect();
        let remote = RemoteReport {
            requested_url: "https://agent.example/.well-known/agent-card.json".into(),
            origin: "https://agent.example".parse().unwrap(),
            final_url: "https://agent.example/.well-known/agent-card.json".into(),
            redirects: vec![],
            status: Some(200),
            content_type: "application/json".into(),
            cache: CacheOutcome::Off,
            peer: None,
            protocol: None,
            proxy: None,
            report,
            keys: vec![],
            jku,
            warnings: vec![],
            card: vec![],
        };
        let (_, text) = remote_output(remote.clone(), false);
        let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("jku ")).collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert!(
            lines[0].ends_with(
                "fetch failed: error[address-refused]: refused before connecting: localhost resolves \
                 to 127.0.0.1, a loopback address (loopback is opened only with --allow-loopback, \
                 for local testing)"
            ),
            "{}",
            lines[0]
        );
        assert!(
            lines[1].ends_with("not signed by a trusted root; give --ca-file"),
            "{}",
            lines[1]
        );
        assert!(
            lines[2].ends_with("error[http-status]: the server answered 404 Not Found"),
            "{}",
            lines[2]
        );
        assert!(
            !text.contains("allow_loopback") && !text.contains("{roots}"),
            "{text}"
        );
        let (_, json) = remote_output(remote, true);
        let json: serde_json::Value = serde_json::from_str(&json).unwrap();
        let jku = &json["fetch"]["jku"];
        assert_eq!(jku[0]["code"], "address-refused");
        assert!(
            jku[0]["message"]
                .as_str()
                .unwrap()
                .contains("only with --allow-loopback,"),
            "{json}"
        );
        assert!(
            jku[1]["message"].as_str().unwrap().ends_with("give --ca-file"),
            "{json}"
        );
        // The error travels as data only: the JSON members are the ones they were.
        let mut members: Vec<&str> = jku[0].as_object().unwrap().keys().map(String::as_str).collect();
        members.sort_unstable();
        assert_eq!(members, ["code", "message", "signatures", "status", "url"]);
    }
}
