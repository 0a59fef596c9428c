//! Looking inside a card without trusting anything: decoded signature headers, the canonical
//! SHA-256, and the members a signature would not cover.

use crate::b64;
use crate::error::Error;
use crate::json::{tree_get, Doc, Value};
use crate::jws;
use crate::presence::{canonicalize_doc, CanonicalizeOptions};
use crate::verify::sha256_hex;
use serde::Serialize;

/// One signature entry as found in the card.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EntryInfo {
    /// Index in `signatures`.
    pub index: usize,
    /// The decoded protected header as JSON text (as it was encoded), when it decodes.
    pub protected: Option<String>,
    /// `alg`, `kid`, `typ`, `jku` when the header passes the JWS rules.
    pub alg: Option<String>,
    /// `kid`.
    pub kid: Option<String>,
    /// `typ`.
    pub typ: Option<String>,
    /// `jku` (never fetched by inspection).
    pub jku: Option<String>,
    /// Length in bytes of the decoded signature, when it decodes.
    pub signature_bytes: Option<usize>,
    /// Why the entry is malformed, if it is: `code: message`.
    pub problem: Option<String>,
}

/// What [`inspect_card`] finds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Inspection {
    /// The profile used for the canonical bytes.
    pub profile: &'static str,
    /// SHA-256 (hex) of the canonical bytes.
    pub canonical_sha256: String,
    /// Length of the canonical bytes.
    pub canonical_bytes: usize,
    /// Members not covered under that profile.
    pub unsigned: Vec<String>,
    /// The signature entries.
    pub signatures: Vec<EntryInfo>,
}

/// Inspects a card: nothing is verified, nothing is fetched.
///
/// ```
/// let i = a2a_card::inspect_card(br#"{"name":"A","extra":1}"#, &Default::default()).unwrap();
/// assert_eq!(i.unsigned, vec!["/extra".to_string()]);
/// assert!(i.signatures.is_empty());
/// ```
pub fn inspect_card(card: &[u8], opts: &CanonicalizeOptions) -> Result<Inspection, Error> {
    let doc = Doc::parse(card, &opts.limits)?;
    let canonical = canonicalize_doc(&doc, opts)?;
    // As in verification: the card is read once, borrowed; only its signature entries are owned.
    let entries = tree_get(doc.root(), "signatures").map(|s| s.to_value());
    let mut signatures = Vec::new();
    if let Some(other @ (Value::Bool(_) | Value::Number(_) | Value::String(_) | Value::Object(_))) = &entries
    {
        return Err(Error::new(
            crate::ErrorCode::MalformedCard,
            format!("\"signatures\" must be an array, found {}", other.type_name()),
        )
        .at("/signatures"));
    }
    if let Some(Value::Array(items)) = &entries {
        for (index, item) in items.iter().enumerate() {
            let mut info = EntryInfo {
                index,
                protected: None,
                alg: None,
                kid: None,
                typ: None,
                jku: None,
                signature_bytes: None,
                problem: None,
            };
            let protected = item.get("protected").and_then(Value::as_str);
            if let Some(p) = protected {
                if let Ok(raw) = b64::decode_strict(p) {
                    info.protected = Some(String::from_utf8_lossy(&raw).into_owned());
                }
                match jws::decode_header(p, item.get("header"), jws::DEFAULT_MAX_HEADER_BYTES)
                    .and_then(|h| jws::check_card_header(&h).map(|()| h))
                {
                    Ok(h) => {
                        info.alg = Some(h.alg.as_str().to_string());
                        info.kid = h.kid;
                        info.typ = h.typ;
                        info.jku = h.jku;
                    }
                    Err(e) => info.problem = Some(format!("{}: {}", e.code(), e.message())),
                }
            } else {
                info.problem = Some("malformed-header: the entry has no \"protected\" string".into());
            }
            match item
                .get("signature")
                .and_then(Value::as_str)
                .map(b64::decode_strict)
            {
                Some(Ok(sig)) => info.signature_bytes = Some(sig.len()),
                Some(Err(e)) if info.problem.is_none() => {
                    info.problem = Some(format!("{}: {}", e.code(), e.message()))
                }
                None if info.problem.is_none() => {
                    info.problem = Some("malformed-header: the entry has no \"signature\" string".into())
                }
                _ => {}
            }
            signatures.push(info);
        }
    }
    Ok(Inspection {
        profile: canonical.profile.as_str(),
        canonical_sha256: sha256_hex(&canonical.bytes),
        canonical_bytes: canonical.bytes.len(),
        unsigned: canonical.unsigned,
        signatures,
    })
}
