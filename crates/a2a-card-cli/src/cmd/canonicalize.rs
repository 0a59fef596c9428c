//! `a2a-card canonicalize`: the bytes a signature covers.

use crate::io::{read_input, write_stderr_line};
use crate::options::TableFlags;
use crate::Failure;
use a2a_card::canonicalize;
use a2a_card::request::CanonicalizeRequest;
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

    /// Print a JSON report to stderr: profile, unsigned pointers, SHA-256 and length of the
    /// canonical bytes.
    #[arg(long)]
    report: bool,

    #[command(flatten)]
    out: super::OutArgs,

    /// The options of the core's table (profile, unknown members, reader limits), each a flag
    /// made from its row.
    #[command(flatten)]
    table: TableFlags<CanonicalizeRequest>,
}

/// Runs `canonicalize`.
pub(crate) fn run(args: Args) -> Result<(), Failure> {
    let opts = args.table.build(CanonicalizeRequest::default())?;
    let input = read_input(args.file.as_deref(), opts.limits.max_input_bytes)?;
    let canonical = canonicalize(&input.bytes, &opts).map_err(|e| Failure::new(e, &input.source))?;
    args.out.write(&canonical.bytes)?;
    if args.report {
        write_stderr_line(&canonical.report(false).to_string())?;
    }
    Ok(())
}
