//! `a2a-card lint`: a card's problems against A2A v1.0, each with a severity, a stable code and a
//! JSON Pointer. The rules live in `a2a_card::lint`; this module reads the card and prints.

use crate::io::{printable, read_input, write_stdout};
use crate::options::TableFlags;
use crate::Failure;
use a2a_card::lint::{lint_card, LintReport, Severity};
use a2a_card::request::LintRequest;
use clap::builder::PossibleValuesParser;
use std::path::PathBuf;

/// Examples, rules and exit codes shown at the end of `a2a-card lint --help`.
pub(crate) const AFTER_HELP: &str = "\
Examples:
  a2a-card lint card.json
  a2a-card lint card.json --format json | jq -r '.findings[] | select(.severity == \"error\") | .pointer'
  curl -s https://agent.example/.well-known/agent-card.json | a2a-card lint -

Output (text): one line per finding, in document order, then a summary line:
  error[required-empty] /skills: AgentCard.skills is REQUIRED and must hold at least one element ...
  card.json: 1 error, 0 warnings
(a finding about the whole card shows `(root)` for its pointer, which is \"\" in JSON)
Output (json): {\"findings\": [{\"rule\", \"severity\", \"pointer\", \"message\"}, ...]}

Rules (code, severity, source):
  required-missing            error    a REQUIRED field is absent or null (5.7, a2a.proto)
  required-empty              error    a REQUIRED array is [] (5.7)
  schema-error                error    wrong JSON type, a field under both names, two oneof
                                       members, not an object: the card cannot be signed
  url-not-absolute            error    a URL field without a scheme (or host for http/https)
  url-not-https               error    not https where A2A asks for HTTPS/TLS: interface urls
                                       (7.1; custom bindings only refuse http: and ws:), OAuth
                                       and OpenID Connect endpoints
  protocol-binding-invalid    error    not JSONRPC, GRPC, HTTP+JSON nor a URI (5.8)
  protocol-version-malformed  error    protocolVersion not MAJOR.MINOR, e.g. 1.0 (3.6)
  media-type-invalid          error    a *Modes entry that is not an RFC 6838 media type
  skill-id-duplicate          error    two skills with one id
  skill-without-tags          error    a skill without tags, or with []
  security-scheme-undefined   error    a security requirement names a scheme not in
                                       securitySchemes
  oauth-flow-deprecated       warning  an OAuth implicit or password flow (deprecated in 1.0)
  unknown-member              warning  a member A2A v1.0 does not define: signatures will not
                                       cover it
  legacy-member               warning  an A2A 0.3 member (url, preferredTransport,
                                       additionalInterfaces, protocolVersion, security,
                                       supportsAuthenticatedExtendedCard, ...); the message
                                       names its 1.0 replacement
  signature-malformed         error    a signatures entry a verifier refuses before any
                                       cryptography (8.4.2, RFC 7515)

Exit codes: 0 no errors (clean, or warnings only), 1 at least one error found, 2 the card
cannot be read (missing file, not I-JSON, too large or too deep).";

/// Arguments of `lint`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The card to lint; `-` or nothing reads stdin.
    #[arg(value_name = "CARD")]
    card: Option<PathBuf>,

    /// `text` (one line per finding, for people) or `json` (the report).
    #[arg(long, value_name = "FORMAT", default_value = "text",
          value_parser = PossibleValuesParser::new(["text", "json"]))]
    format: String,

    /// The options of the core's table (the reader limits), each a flag made from its row.
    #[command(flatten)]
    table: TableFlags<LintRequest>,
}

/// Runs `lint`: exit code 0 without errors, 1 with errors; unreadable input is a failure (2).
pub(crate) fn run(args: Args) -> Result<u8, Failure> {
    let opts = args.table.build(LintRequest::default())?;
    let input = read_input(args.card.as_deref(), opts.limits.max_input_bytes)?;
    let report = lint_card(&input.bytes, &opts).map_err(|e| Failure::new(e, &input.source).bad_input())?;
    let out = if args.format == "json" {
        let mut text = serde_json::to_string_pretty(&report).unwrap_or_default();
        text.push('\n');
        text
    } else {
        text_report(&report, &input.source)
    };
    write_stdout(out.as_bytes())?;
    Ok(u8::from(report.has_errors()))
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

fn text_report(report: &LintReport, source: &str) -> String {
    let mut out = String::new();
    for f in &report.findings {
        let place = if f.pointer.is_empty() {
            "(root)".to_string()
        } else {
            printable(&f.pointer)
        };
        out.push_str(&format!(
            "{}[{}] {}: {}\n",
            f.severity.as_str(),
            f.rule,
            place,
            printable(&f.message)
        ));
    }
    let errors = report.count(Severity::Error);
    let warnings = report.count(Severity::Warning);
    let infos = report.count(Severity::Info);
    if report.findings.is_empty() {
        out.push_str(&format!("{}: clean\n", printable(source)));
    } else {
        out.push_str(&format!(
            "{}: {}, {}",
            printable(source),
            plural(errors, "error"),
            plural(warnings, "warning")
        ));
        if infos > 0 {
            out.push_str(&format!(", {infos} info"));
        }
        out.push('\n');
    }
    out
}
