//! `a2a-card canonicalize`: the bytes a signature covers.

use crate::io::{read_input, write_stderr_line, write_stdout};
use crate::Failure;
use a2a_card::json::{DEFAULT_MAX_DEPTH, DEFAULT_MAX_INPUT_BYTES};
use a2a_card::{canonicalize, sha256_hex, CanonicalizeOptions, Limits, Profile, UnknownMembers};
use std::path::PathBuf;

/// Examples shown at the end of `a2a-card canonicalize --help`.
pub(crate) const AFTER_HELP: &str = "\
Examples:
  a2a-card canonicalize card.json > card.canonical.json
  curl -s https://agent.example/.well-known/agent-card.json | a2a-card canonicalize --report
  a2a-card canonicalize card.json --profile prune-empty --unknown reject

--report prints one JSON object to stderr:
  {\"profile\":\"spec\",\"unsigned\":[\"/x-vendor\"],\"sha256\":\"<hex>\",\"bytes\":112}
`unsigned` lists the JSON Pointers of members present in the card but not covered.

Exit codes: 0 ok, 2 bad input or usage.";

/// Arguments of `canonicalize`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The card to read; `-` or nothing reads stdin.
    #[arg(value_name = "FILE")]
    file: Option<PathBuf>,

    /// Which rules produce the bytes: `spec` (A2A v1.0 text and its 8.4.1 example),
    /// `prune-empty` (Python and JS SDKs), `served-as-is` (Go SDK).
    #[arg(long, value_name = "PROFILE", default_value = "spec", value_parser = super::profile_parser())]
    profile: Profile,

    /// Members the schema does not define: `exclude` them and report them as unsigned,
    /// `retain` them in the signed bytes, or `reject` the card.
    #[arg(long, value_name = "MODE", default_value = "exclude", value_parser = super::unknown_parser())]
    unknown: UnknownMembers,

    /// Refuse inputs larger than this many bytes.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_INPUT_BYTES)]
    max_input_bytes: usize,

    /// Refuse arrays and objects nested deeper than this (the root object is level 1).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_DEPTH)]
    max_depth: usize,

    /// Print a JSON report to stderr: profile, unsigned pointers, SHA-256 and length of the
    /// canonical bytes.
    #[arg(long)]
    report: bool,
}

/// Runs `canonicalize`.
pub(crate) fn run(args: Args) -> Result<(), Failure> {
    let input = read_input(args.file.as_deref(), args.max_input_bytes)?;
    let opts = CanonicalizeOptions {
        profile: args.profile,
        unknown: args.unknown,
        limits: Limits {
            max_input_bytes: args.max_input_bytes,
            max_depth: args.max_depth,
        },
    };
    let canonical = canonicalize(&input.bytes, &opts).map_err(|e| Failure::new(e, &input.source))?;
    write_stdout(&canonical.bytes)?;
    if args.report {
        let report = serde_json::json!({
            "profile": canonical.profile.as_str(),
            "unsigned": canonical.unsigned,
            "sha256": sha256_hex(&canonical.bytes),
            "bytes": canonical.bytes.len(),
        });
        write_stderr_line(&report.to_string())?;
    }
    Ok(())
}
