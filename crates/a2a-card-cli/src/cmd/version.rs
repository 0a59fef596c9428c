//! `a2a-card version`: what this build is (version, commit, target, features) and what it can
//! do (algorithms and key types, profiles), for bug reports and for checking a deployed binary.
//! `--version` prints the first line of it.

use crate::io::write_stdout;
use crate::Failure;
use a2a_card::{Algorithm, KeyType, Profile};
use clap::builder::PossibleValuesParser;

/// Examples shown at the end of `a2a-card version --help`.
pub(crate) const AFTER_HELP: &str = "\
Examples:
  a2a-card version
  a2a-card version --format json | jq -r .algorithms[]

Exit codes: 0 printed.";

/// Arguments of `version`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// `text` (for people) or `json`.
    #[arg(long, value_name = "FORMAT", default_value = "text",
          value_parser = PossibleValuesParser::new(["text", "json"]))]
    format: String,
}

/// The version line of `--version`: `0.1.0 (commit abc123def456, x86_64-unknown-linux-gnu)`.
pub(crate) const LONG_VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("A2A_CARD_COMMIT"),
    ", ",
    env!("A2A_CARD_TARGET"),
    ")"
);

/// The cargo features this binary was built with.
fn features() -> Vec<&'static str> {
    let mut out = Vec::new();
    if cfg!(feature = "native-algs") {
        out.push("native-algs");
    }
    if cfg!(feature = "vendored-openssl") {
        out.push("vendored-openssl");
    }
    out
}

/// Runs `version`.
pub(crate) fn run(args: Args) -> Result<(), Failure> {
    let algorithms = Algorithm::asymmetric_names();
    let key_types: Vec<&str> = KeyType::KINDS
        .iter()
        .filter(|k| k.available())
        .map(|k| k.name())
        .collect();
    let profiles: Vec<&str> = Profile::ALL.iter().map(|p| p.as_str()).collect();
    let text = if args.format == "json" {
        let v = serde_json::json!({
            "version": env!("CARGO_PKG_VERSION"),
            "commit": env!("A2A_CARD_COMMIT"),
            "target": env!("A2A_CARD_TARGET"),
            "features": features(),
            "algorithms": algorithms,
            "key_types": key_types,
            "profiles": profiles,
        });
        let mut t = serde_json::to_string_pretty(&v).unwrap_or_default();
        t.push('\n');
        t
    } else {
        format!(
            "a2a-card {}\ncommit: {}\ntarget: {}\nfeatures: {}\nalgorithms: {}\nkey types: {}\nprofiles: {}\n",
            env!("CARGO_PKG_VERSION"),
            env!("A2A_CARD_COMMIT"),
            env!("A2A_CARD_TARGET"),
            if features().is_empty() { "(none)".to_string() } else { features().join(", ") },
            algorithms.join(", "),
            key_types.join(", "),
            profiles.join(", ")
        )
    };
    write_stdout(text.as_bytes())
}
