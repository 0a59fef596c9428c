//! `a2a-card inspect`: what a card carries, with nothing trusted, verified or fetched.

use crate::io::{read_input, write_stdout};
use crate::options::TableFlags;
use crate::Failure;
use a2a_card::inspect_card;
use a2a_card::request::CanonicalizeRequest;
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

    /// The options of the core's table (profile, unknown members, reader limits), each a flag
    /// made from its row.
    #[command(flatten)]
    table: TableFlags<CanonicalizeRequest>,
}

/// Runs `inspect`.
pub(crate) fn run(args: Args) -> Result<(), Failure> {
    let opts = args.table.build(CanonicalizeRequest::default())?;
    let input = read_input(args.card.as_deref(), opts.limits.max_input_bytes)?;
    let inspection = inspect_card(&input.bytes, &opts).map_err(|e| Failure::new(e, &input.source))?;
    let out = if args.format == "json" {
        let mut text = serde_json::to_string_pretty(&inspection).unwrap_or_default();
        text.push('\n');
        text
    } else {
        inspection.to_text(&input.source)
    };
    write_stdout(out.as_bytes())
}
