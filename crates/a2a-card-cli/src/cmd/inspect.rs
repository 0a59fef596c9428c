//! `a2a-card inspect`: what a card carries, with nothing trusted, verified or fetched.

use crate::io::{printable, quoted, read_input, write_stdout};
use crate::Failure;
use a2a_card::{inspect_card, Inspection};
use clap::builder::PossibleValuesParser;
use std::path::PathBuf;

/// Examples shown at the end of `a2a-card inspect --help`.
pub(crate) const AFTER_HELP: &str = "\
Examples:
  a2a-card inspect card.json
  a2a-card inspect card.json --format json | jq '.signatures[].kid'
  curl -s https://agent.example/.well-known/agent-card.json | a2a-card inspect - --profile prune-empty

Shows each signature entry's decoded protected header (alg, kid, typ, jku), the length of its
signature and what is wrong with it, if anything; the SHA-256 and length of the canonical bytes
under the profile; and the members those bytes do not cover. Nothing is verified: use
`a2a-card verify` for that.

Exit codes: 0 inspected (also when signature entries are malformed: they are reported),
2 the card cannot be read.";

/// Arguments of `inspect`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The card to inspect; `-` or nothing reads stdin.
    #[arg(value_name = "CARD")]
    card: Option<PathBuf>,

    /// `text` (for people) or `json`.
    #[arg(long, value_name = "FORMAT", default_value = "text",
          value_parser = PossibleValuesParser::new(["text", "json"]))]
    format: String,

    #[command(flatten)]
    canon: super::CanonArgs,
}

/// Runs `inspect`.
pub(crate) fn run(args: Args) -> Result<(), Failure> {
    let input = read_input(args.card.as_deref(), args.canon.limits.max_input_bytes)?;
    let opts = args.canon.options();
    let inspection = inspect_card(&input.bytes, &opts).map_err(|e| Failure::new(e, &input.source))?;
    let out = if args.format == "json" {
        let mut text = serde_json::to_string_pretty(&inspection).unwrap_or_default();
        text.push('\n');
        text
    } else {
        text_report(&inspection, &input.source)
    };
    write_stdout(out.as_bytes())
}

fn text_report(i: &Inspection, source: &str) -> String {
    let opt = |v: &Option<String>| v.as_deref().map_or_else(|| "(none)".to_string(), quoted);
    let mut out = String::new();
    out.push_str(&format!("card: {}\n", printable(source)));
    out.push_str(&format!("profile: {}\n", i.profile));
    out.push_str(&format!(
        "canonical sha256: {} ({} bytes)\n",
        i.canonical_sha256, i.canonical_bytes
    ));
    out.push_str(&format!("signatures: {}\n", i.signatures.len()));
    for s in &i.signatures {
        out.push_str(&format!(
            "signature {}: alg {} kid {} typ {} jku {}",
            s.index,
            s.alg.as_deref().map_or_else(|| "(none)".to_string(), printable),
            opt(&s.kid),
            opt(&s.typ),
            opt(&s.jku)
        ));
        match s.signature_bytes {
            Some(n) => out.push_str(&format!(", signature {n} bytes\n")),
            None => out.push_str(", signature unreadable\n"),
        }
        if let Some(p) = &s.protected {
            out.push_str(&format!("  protected header: {}\n", printable(p)));
        }
        if let Some(problem) = &s.problem {
            out.push_str(&format!("  problem: {}\n", printable(problem)));
        }
    }
    out.push_str(&format!(
        "unsigned: {}\n",
        serde_json::Value::from(i.unsigned.clone())
    ));
    if !i.unsigned.is_empty() {
        out.push_str(&format!(
            "warning: {} member(s) of the card would not be covered by a signature under this profile\n",
            i.unsigned.len()
        ));
    }
    out.push_str("nothing was verified; use `a2a-card verify` with the keys you trust\n");
    out
}
