//! `a2a-card migrate`: an A2A 0.3 card rewritten as an A2A 1.0 card, with a note for every
//! member that moved, changed shape, was filled in or could not be carried over.

use crate::io::{
    check_output, is_stdin, printable, read_input, refuse_same_file, replace_file, write_stderr_line,
    write_stdout,
};
use crate::options::TableFlags;
use crate::Failure;
use a2a_card::migrate::{migrate_card, Migration};
use a2a_card::request::MigrateRequest;
use clap::builder::PossibleValuesParser;
use std::path::PathBuf;

/// Examples shown at the end of `a2a-card migrate --help`.
pub(crate) const AFTER_HELP: &str = "\
Examples:
  a2a-card migrate agent-card.v03.json > agent-card.json
  a2a-card migrate agent-card.v03.json -o agent-card.json && a2a-card lint agent-card.json
  a2a-card migrate agent-card.v03.json --protocol-version 1.0 -o agent-card.json
  curl -s https://agent.example/.well-known/agent-card.json | a2a-card migrate --format json | jq .notes

The 1.0 card goes to stdout (or OUT): pretty JSON, members in the 0.3 card's order where they
have one. url and preferredTransport become the first supportedInterfaces entry,
additionalInterfaces the further ones (a repeat of the first is listed once), protocolVersion
moves into every interface as Major.Minor (0.3.0 -> 0.3; --protocol-version sets another),
supportsAuthenticatedExtendedCard becomes capabilities.extendedAgentCard, security becomes
securityRequirements, the OpenAPI-style securitySchemes become the 1.0 wrappers
(apiKeySecurityScheme with `in` as `location`, ...). stateTransitionHistory, extra OAuth flows
(1.0 allows one per scheme), unknown members and the 0.3 signatures are dropped: sign the 1.0
card again. A card that is already 1.0 is written back unchanged.

Notes, one per member concerned, name its JSON Pointer in the input card:
  text (stderr):  note[KIND]: POINTER -> TARGET: MESSAGE
  json (stdout):  {\"card\": CARD, \"notes\": [{\"pointer\", \"kind\", \"target\", \"message\"}],
                   \"alreadyV1\": BOOL, \"lost\": BOOL}   (with -o, CARD is left out)
KIND is moved, rewritten, defaulted, dropped, missing or unchanged.

-o OUT is written through a temporary file and a rename; a symbolic link is written through, a
dangling link, a device, a FIFO, a socket or a directory is refused, and so is a read-only file
unless --force is given. OUT may not be CARD itself: keep the 0.3 card and write the 1.0 card
next to it.

Exit codes: 0 the 1.0 card was written (what was dropped or is missing is in the notes and the
last line: the 0.3 signatures are always dropped; run lint on the result), 1 with --strict only:
something was dropped or is missing, 2 the card cannot be read (bad JSON, wrong types, a card
mixing 0.3 and 1.0 members) or the output cannot be written.";

/// Arguments of `migrate`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The A2A 0.3 card; `-` or nothing reads stdin.
    #[arg(value_name = "CARD")]
    card: Option<PathBuf>,

    /// Write the 1.0 card to OUT (through a temporary file and a rename) instead of stdout.
    /// OUT must be a regular file or not exist (a symbolic link is written through), and may
    /// not be CARD.
    #[arg(short = 'o', long = "out", value_name = "OUT")]
    out: Option<PathBuf>,

    /// Replace the OUT file even when it is read-only.
    #[arg(long, requires = "out")]
    force: bool,

    /// `text`: the card on stdout, notes on stderr; `json`: one JSON report on stdout.
    #[arg(long, value_name = "FORMAT", default_value = "text",
          value_parser = PossibleValuesParser::new(["text", "json"]))]
    format: String,

    /// Exit with 1 when anything was dropped or is missing (the card is written all the same),
    /// for pipelines that accept no loss at all.
    #[arg(long)]
    strict: bool,

    /// The options of the core's table (the protocol version, the reader limits), each a flag
    /// made from its row.
    #[command(flatten)]
    table: TableFlags<MigrateRequest>,
}

/// Runs `migrate`; returns 0 when the card was written, 1 with `--strict` when something was
/// dropped or is missing.
pub(crate) fn run(args: Args) -> Result<u8, Failure> {
    let opts = args.table.build(MigrateRequest::default())?;
    if let Some(out) = &args.out {
        if let Some(card) = args.card.as_deref().filter(|c| !is_stdin(Some(c))) {
            refuse_same_file("-o", out, "the card", card)?;
        }
        check_output(out, args.force)?;
    }
    let input = read_input(args.card.as_deref(), opts.limits.max_input_bytes)?;
    let m = migrate_card(&input.bytes, &opts).map_err(|e| Failure::new(e, &input.source))?;
    if let Some(out) = &args.out {
        replace_file(out, &m.card, None, args.force)?;
    }
    if args.format == "json" {
        let mut report = m
            .to_json(args.out.is_none())
            .map_err(|e| Failure::new(e, &input.source))?;
        report.push('\n');
        write_stdout(report.as_bytes())?;
    } else {
        if args.out.is_none() {
            write_stdout(&m.card)?;
        }
        for n in &m.notes {
            let target = n.target.as_deref().map_or_else(String::new, |t| {
                format!(" -> {}", if t.is_empty() { "(document root)" } else { t })
            });
            let pointer = if n.pointer.is_empty() {
                "(document root)".to_string()
            } else {
                printable(&n.pointer)
            };
            write_stderr_line(&format!(
                "note[{}]: {pointer}{}: {}",
                n.kind.as_str(),
                printable(&target),
                printable(&n.message)
            ))?;
        }
        write_stderr_line(&summary(&m, &input.source))?;
    }
    Ok(u8::from(args.strict && m.lost_something()))
}

/// The last line on stderr in text format.
fn summary(m: &Migration, source: &str) -> String {
    if m.already_v1 {
        return format!(
            "{}: already an A2A 1.0 card; written back unchanged",
            printable(source)
        );
    }
    let lost = m.notes.iter().filter(|n| n.kind.is_loss()).count();
    if lost == 0 {
        format!(
            "{}: migrated to A2A 1.0, nothing lost ({} notes); sign the new card before serving it",
            printable(source),
            m.notes.len()
        )
    } else {
        format!(
            "{}: migrated to A2A 1.0; {lost} member(s) dropped or missing (see the notes above); sign the new card before serving it",
            printable(source)
        )
    }
}
