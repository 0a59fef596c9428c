//! `lint`: checks an Agent Card against A2A v1.0 before it is signed or published.
//!
//! Every finding carries a [`Rule`] (a stable kebab-case code), a [`Severity`], the JSON Pointer
//! of the member at fault and a sentence a person can act on. The REQUIRED members and the
//! known members come from the presence table (`canonical/table.rs`); unknown members are the ones
//! the canonicalizer leaves unsigned ([`crate::canonicalize_doc`]); signature entries are read
//! with the verifier's own header rules ([`crate::jose::header::decode_header`],
//! [`crate::jose::header::check_card_header`]).
//!
//! ```
//! use a2a_card::lint::{lint_card, LintOptions, Rule, Severity};
//!
//! let card = br#"{"name":"A","description":"d","version":"1","capabilities":{},
//!   "supportedInterfaces":[{"url":"https://a.example/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
//!   "defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}"#;
//! let report = lint_card(card, &LintOptions::default()).unwrap();
//! assert!(report.has_errors());
//! let f = &report.findings[0];
//! assert_eq!((f.rule, f.severity, f.pointer.as_str()), (Rule::RequiredEmpty, Severity::Error, "/skills"));
//! assert_eq!(f.rule.as_str(), "required-empty");
//! ```

mod findings;
mod rules;
mod syntax;

pub use findings::{Finding, LintOptions, LintReport, Rule, Severity};
pub use syntax::check_media_type;

use self::rules::Linter;
use crate::canonical::table::AGENT_CARD;
use crate::canonical::value::Value;
use crate::canonical::{canonicalize_doc, CanonicalizeOptions, Doc, Profile, UnknownMembers};
use crate::error::{pointer_token, Error};
use std::collections::{HashMap, HashSet};

/// Lints a card given as bytes.
///
/// Returns `Err` only when the bytes cannot be read as I-JSON at all (the strict reader's error,
/// with its pointer or offset). Everything else, type errors included, is a finding.
///
/// ```
/// use a2a_card::lint::{lint_card, LintOptions};
///
/// // A 0.3 leftover is a warning; the missing REQUIRED members are errors.
/// let report = lint_card(br#"{"name":"A","url":"https://a.example"}"#, &LintOptions::default()).unwrap();
/// let codes: Vec<&str> = report.findings.iter().map(|f| f.rule.as_str()).collect();
/// assert_eq!(codes[0], "required-missing"); // /description, placed with the root object
/// assert_eq!(codes.last(), Some(&"legacy-member")); // /url
/// assert!(report.has_errors());
///
/// // Bytes that are not I-JSON are not lintable.
/// let err = lint_card(br#"{"name":"A","name":"B"}"#, &LintOptions::default()).unwrap_err();
/// assert_eq!(err.code().as_str(), "duplicate-member");
/// ```
pub fn lint_card(bytes: &[u8], opts: &LintOptions) -> Result<LintReport, Error> {
    let doc = Doc::parse(bytes, &opts.limits)?;
    let copts = CanonicalizeOptions {
        profile: Profile::Spec,
        unknown: UnknownMembers::Exclude,
        limits: opts.limits,
    };
    // The card is read once: the canonicalizer walks the borrowed document, the rules its owned
    // tree.
    let canon = canonicalize_doc(&doc, &copts);
    let card = &doc.to_value();
    let mut l = Linter {
        findings: Vec::new(),
        unsigned: HashSet::new(),
        schemes: HashSet::new(),
        skill_ids: HashMap::new(),
        binding: None,
    };
    let (unsigned, schema_error) = match canon {
        Ok(c) => (Some(c.unsigned), None),
        Err(e) => (None, Some(e)),
    };
    if let Some(e) = &schema_error {
        let ptr = e.pointer().unwrap_or("").to_string();
        l.add(
            Rule::SchemaError,
            ptr,
            format!(
                "{} ({}); the card cannot be signed until this is fixed",
                e.message(),
                e.code()
            ),
        );
    }
    l.unsigned = unsigned.unwrap_or_default().into_iter().collect();
    if let Value::Object(members) = card {
        l.schemes = scheme_names(members);
        l.message(members, &AGENT_CARD, "", true, unsigned_known(&schema_error));
    }
    let mut findings = l.findings;
    let order = document_order(card);
    findings.sort_by_cached_key(|f| position(&order, &f.pointer));
    Ok(LintReport { findings })
}

/// Whether the unsigned list is authoritative (the canonicalizer succeeded).
pub(super) fn unsigned_known(err: &Option<Error>) -> bool {
    err.is_none()
}

/// The index of every pointer of the document, in document order.
pub(super) fn document_order(v: &Value) -> HashMap<String, usize> {
    fn walk(v: &Value, ptr: &mut String, out: &mut HashMap<String, usize>) {
        let n = out.len();
        out.insert(ptr.clone(), n);
        match v {
            Value::Object(m) => {
                for (k, item) in m {
                    let mark = ptr.len();
                    ptr.push('/');
                    ptr.push_str(&pointer_token(k));
                    walk(item, ptr, out);
                    ptr.truncate(mark);
                }
            }
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    let mark = ptr.len();
                    ptr.push('/');
                    ptr.push_str(&i.to_string());
                    walk(item, ptr, out);
                    ptr.truncate(mark);
                }
            }
            _ => {}
        }
    }
    let mut out = HashMap::new();
    walk(v, &mut String::new(), &mut out);
    out
}

/// The document position of a pointer: its own, or that of its longest existing prefix.
pub(super) fn position(order: &HashMap<String, usize>, ptr: &str) -> usize {
    let mut p = ptr;
    loop {
        if let Some(i) = order.get(p) {
            return *i;
        }
        match p.rfind('/') {
            Some(at) => p = &p[..at],
            None => return 0,
        }
    }
}

/// The names defined in the card's `securitySchemes` (or `security_schemes`).
pub(super) fn scheme_names(root: &[(String, Value)]) -> HashSet<String> {
    let mut out = HashSet::new();
    for (k, v) in root {
        if k == "securitySchemes" || k == "security_schemes" {
            if let Value::Object(m) = v {
                out.extend(m.iter().map(|(name, _)| name.clone()));
            }
        }
    }
    out
}
