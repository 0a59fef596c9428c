//! `a2a-card verify`: the verdict on each signature, against keys the caller trusts, and what
//! the signatures cover.

use crate::io::{is_stdin, printable, quoted, read_input, read_key_text, replace_file, write_stdout};
use crate::Failure;
use a2a_card::alg::Algorithm;
use a2a_card::json::{DEFAULT_MAX_DEPTH, DEFAULT_MAX_INPUT_BYTES};
use a2a_card::keys::{parse_jwks, PublicKey};
use a2a_card::presence::accepted_profiles;
use a2a_card::verify::DEFAULT_MAX_SIGNATURES;
use a2a_card::{verify_card, Limits, Mode, Report, TrustStore, UnknownMembers, VerifyOptions};
use clap::builder::PossibleValuesParser;
use std::path::PathBuf;

/// Examples shown at the end of `a2a-card verify --help`.
pub(crate) const AFTER_HELP: &str = "\
Examples:
  a2a-card verify card.json --jwks jwks.json
  a2a-card verify card.json --key release.pub.pem --alg ES256 --format json
  a2a-card verify card.json --trust trust.json --mode all --emit-verified card.verified.json
  curl -s https://agent.example/.well-known/agent-card.json | a2a-card verify - --jwks jwks.json
  a2a-card verify card.json --jwks jwks.json --profile spec --profile prune-empty

Trust roots (at least one): --key (one public key, PEM or JWK; a private key yields its public
half), --jwks (a JWK Set), --trust (a trust store: a JWKS whose entries may carry
\"algorithms\", \"origins\", \"notBefore\", \"notAfter\" and \"revoked\"). A signature's kid
only selects among these keys; its jku is never fetched.

The text report names the verdict, the profile, the SHA-256 of the canonical bytes, one line
per signature (index, kid, alg, verdict and the key used) and the members the signatures do
not cover. --format json prints the same report as JSON with the canonical bytes as the string
member \"canonical\". Act on the verified content (--emit-verified), not on the served card.

Exit codes: 0 valid, 1 invalid or the policy is not met, 2 bad input or usage, 3 a key, JWKS or
trust-store file cannot be read.";

/// Arguments of `verify`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The card to verify; `-` or nothing reads stdin.
    #[arg(value_name = "CARD")]
    card: Option<PathBuf>,

    /// A trusted public key (PEM or JWK; a private key yields its public half). Repeatable.
    #[arg(long = "key", value_name = "FILE")]
    keys: Vec<PathBuf>,

    /// A trusted JWK Set (`{"keys":[...]}`); entries with "use":"enc" are skipped. Repeatable.
    #[arg(long = "jwks", value_name = "FILE")]
    jwks: Vec<PathBuf>,

    /// A trust-store file: keys with policy (algorithms, origins, validity window, revoked).
    /// Repeatable.
    #[arg(long = "trust", value_name = "FILE")]
    trust: Vec<PathBuf>,

    /// Accept only these algorithms (repeatable, or comma-separated); by default every
    /// asymmetric algorithm of this build.
    #[arg(long = "alg", value_name = "ALG", value_delimiter = ',', value_parser = super::alg_parser())]
    algs: Vec<Algorithm>,

    /// `require`: at least one valid signature from a trusted key; `all`: every signature
    /// valid; `if-present`: an unsigned card passes, a bad signature fails.
    #[arg(long, value_name = "MODE", default_value = "require", value_parser = super::mode_parser())]
    mode: Mode,

    /// A profile to accept, tried in the order given (repeatable); `auto` means every profile.
    /// Default: spec.
    #[arg(long = "profile", value_name = "PROFILE",
          value_parser = PossibleValuesParser::new(["spec", "prune-empty", "served-as-is", "auto"]))]
    profiles: Vec<String>,

    /// Members the schema does not define: `exclude` (not covered, reported as unsigned),
    /// `retain` (covered) or `reject` (refuse the card).
    #[arg(long, value_name = "MODE", default_value = "exclude", value_parser = super::unknown_parser())]
    unknown: UnknownMembers,

    /// The origin the card was fetched from (https://host[:port]), for trust entries bound to
    /// origins. Without it, origin-bound entries never match.
    #[arg(long, value_name = "ORIGIN")]
    origin: Option<String>,

    /// Refuse cards with more signatures than this.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_SIGNATURES)]
    max_signatures: usize,

    /// `text` (a summary for people) or `json` (the full report).
    #[arg(long, value_name = "FORMAT", default_value = "text",
          value_parser = PossibleValuesParser::new(["text", "json"]))]
    format: String,

    /// When the card is valid, write the verified content (the canonical bytes the signatures
    /// cover) to FILE. Nothing is written when it is not.
    #[arg(long, value_name = "FILE")]
    emit_verified: Option<PathBuf>,

    /// Refuse cards larger than this many bytes.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_INPUT_BYTES)]
    max_input_bytes: usize,

    /// Refuse arrays and objects nested deeper than this (the root object is level 1).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_DEPTH)]
    max_depth: usize,
}

/// Runs `verify`; `Ok(true)` when the card is valid.
pub(crate) fn run(args: Args) -> Result<bool, Failure> {
    if args.keys.is_empty() && args.jwks.is_empty() && args.trust.is_empty() {
        return Err(Failure::usage(
            "no trust roots: give at least one --key, --jwks or --trust file",
        ));
    }
    let key_files = args.keys.iter().chain(&args.jwks).chain(&args.trust);
    if is_stdin(args.card.as_deref()) && key_files.clone().any(|p| is_stdin(Some(p))) {
        return Err(Failure::usage(
            "the card and a key file cannot both come from stdin; give the card as a file",
        ));
    }
    if key_files.filter(|p| is_stdin(Some(p))).count() > 1 {
        return Err(Failure::usage("only one key file can come from stdin"));
    }
    let trust = load_trust(&args.keys, &args.jwks, &args.trust)?;
    if trust.is_empty() {
        return Err(Failure::usage(
            "no trust roots: the --key, --jwks and --trust files given hold no signature key",
        ));
    }
    let names: Vec<&str> = args.profiles.iter().map(String::as_str).collect();
    let profiles = accepted_profiles(&names).map_err(|e| Failure::new(e, "<command line>"))?;
    let input = read_input(args.card.as_deref(), args.max_input_bytes)?;
    let opts = VerifyOptions {
        profiles,
        unknown: args.unknown,
        mode: args.mode,
        algorithms: (!args.algs.is_empty()).then(|| args.algs.clone()),
        max_signatures: args.max_signatures,
        limits: Limits {
            max_input_bytes: args.max_input_bytes,
            max_depth: args.max_depth,
        },
        origin: args.origin.clone(),
        ..VerifyOptions::default()
    };
    let report = verify_card(&input.bytes, &trust, &opts).map_err(|e| Failure::new(e, &input.source))?;

    if let (Some(path), Some(content)) = (&args.emit_verified, report.verified_content()) {
        replace_file(path, content, None)?;
    }
    let out = if args.format == "json" {
        json_report(&report)
    } else {
        text_report(&report, &input.source)
    };
    write_stdout(out.as_bytes())?;
    Ok(report.ok)
}

/// The trust store of every --key, --jwks and --trust file, each key tagged with its file.
fn load_trust(keys: &[PathBuf], jwks: &[PathBuf], trust: &[PathBuf]) -> Result<TrustStore, Failure> {
    let mut store = TrustStore::new();
    for path in keys {
        let (text, source) = read_key_text(path)?;
        let key = PublicKey::parse(&text).map_err(|e| Failure::new(e, &source).key_retrieval())?;
        store.pin(key, source);
    }
    for path in jwks {
        let (text, source) = read_key_text(path)?;
        for key in parse_jwks(&text).map_err(|e| Failure::new(e, &source).key_retrieval())? {
            store.pin(key, source.clone());
        }
    }
    for path in trust {
        let (text, source) = read_key_text(path)?;
        let file =
            TrustStore::from_json(&text, &source).map_err(|e| Failure::new(e, &source).key_retrieval())?;
        for key in file.keys() {
            store.add(key.clone());
        }
    }
    Ok(store)
}

/// The report as JSON, with the canonical bytes as the string member `canonical` after
/// `canonical_sha256`.
fn json_report(report: &Report) -> String {
    let canonical = String::from_utf8_lossy(&report.canonical).into_owned();
    let value = match serde_json::to_value(report) {
        Ok(serde_json::Value::Object(members)) => {
            let mut out = serde_json::Map::new();
            for (name, value) in members {
                let after = name == "canonical_sha256";
                out.insert(name, value);
                if after {
                    out.insert("canonical".into(), canonical.clone().into());
                }
            }
            out.entry("canonical").or_insert_with(|| canonical.into());
            serde_json::Value::Object(out)
        }
        // A Report always serializes to an object; anything else is shown as it came.
        Ok(other) => other,
        Err(e) => serde_json::json!({ "ok": report.ok, "error": e.to_string() }),
    };
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text
}

/// The report for people.
fn text_report(report: &Report, source: &str) -> String {
    let mut out = String::new();
    let verdict = if report.ok { "VALID" } else { "INVALID" };
    out.push_str(&format!("{verdict}: {}\n", printable(&report.reason)));
    out.push_str(&format!("card: {}\n", printable(source)));
    out.push_str(&format!("mode: {}\n", report.mode.as_str()));
    out.push_str(&format!("profile: {}\n", report.profile));
    out.push_str(&format!("canonical sha256: {}\n", report.canonical_sha256()));
    if report.signatures.is_empty() {
        out.push_str("signatures: none\n");
    }
    for s in &report.signatures {
        let kid = s.kid.as_deref().map_or_else(|| "(none)".to_string(), quoted);
        let alg = s.alg.as_deref().map_or_else(|| "(none)".to_string(), printable);
        out.push_str(&format!(
            "signature {}: kid {kid} alg {alg}: {}: {}",
            s.index,
            s.verdict.code,
            printable(&s.verdict.message)
        ));
        if let Some(key) = &s.key {
            out.push_str(&format!(" (key from {}", printable(&key.source)));
            if let Some(p) = s.profile {
                out.push_str(&format!(", profile {p}"));
            }
            out.push(')');
        }
        out.push('\n');
    }
    out.push_str(&format!(
        "unsigned: {}\n",
        serde_json::Value::from(report.unsigned.clone())
    ));
    if !report.unsigned.is_empty() {
        out.push_str(&format!(
            "warning: {} member(s) of the card are not covered by the signatures; do not rely on them\n",
            report.unsigned.len()
        ));
    }
    out
}
