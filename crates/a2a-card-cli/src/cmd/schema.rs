//! `a2a-card schema`: the JSON Schema of an A2A v1.0 Agent Card, generated from the library's
//! typed model (`a2a_card::model`).

use crate::Failure;
use a2a_card::model::{json_schema, SchemaDraft};
use clap::builder::{PossibleValuesParser, TypedValueParser};

/// Examples shown at the end of `a2a-card schema --help`.
pub(crate) const AFTER_HELP: &str = "\
Examples:
  a2a-card schema > agent-card.schema.json
  a2a-card schema --draft 07 -o agent-card.draft-07.schema.json

The schema requires every REQUIRED member of A2A v1.0 and at least one element in REQUIRED
lists (section 5.7), allows null wherever a member may be absent, and leaves unknown members
open (additionalProperties is not false): they are legal in a served card but not covered by
a spec-profile signature. Use `a2a-card canonicalize --report` to see which members a
signature would leave out.

Exit codes: 0 written, 2 bad usage or the output file cannot be written.";

/// Arguments of `schema`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The JSON Schema draft: 2020-12 (definitions under $defs) or 07 (under definitions).
    #[arg(long, value_name = "DRAFT", default_value = "2020-12",
          value_parser = PossibleValuesParser::new(["2020-12", "07"])
              .try_map(|s| SchemaDraft::from_name(&s).ok_or(format!("unknown draft {s:?}"))))]
    draft: SchemaDraft,

    #[command(flatten)]
    out: super::OutArgs,
}

/// Runs `schema`.
pub(crate) fn run(args: Args) -> Result<(), Failure> {
    let schema = json_schema(args.draft);
    let mut text = serde_json::to_string_pretty(&schema).map_err(|e| {
        Failure::new(
            a2a_card::Error::new(a2a_card::ErrorCode::Io, format!("cannot write the schema: {e}")),
            "<schema>",
        )
    })?;
    text.push('\n');
    args.out.write(text.as_bytes())
}
