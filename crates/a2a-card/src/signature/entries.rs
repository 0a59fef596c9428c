//! The signature entries of a card: the one reader of the `signatures` member, used by
//! verification, inspection, lint, signing (`--replace` and the write-back) and the fetcher's
//! `jku` collection, so that every one of them reads an entry the same way and names its faults
//! with the same messages and JSON Pointers.
//!
//! An entry (`AgentCardSignature`) is an object with a `protected` string (base64url of the
//! protected header), a `signature` string (base64url) and an optional `header` object (the
//! unprotected header); no other member is allowed. The shape of `signatures` itself (an array,
//! at most the caller's limit of entries) is checked when it is read: a card that breaks it is
//! refused whole. The shape of one entry is its own verdict, so that one bad entry does not hide
//! the others.
//!
//! ```
//! use a2a_card::signature::entries::read_signatures;
//! use a2a_card::{Doc, Limits};
//! let card = br#"{"name":"A","signatures":[{"protected":"eyJhbGciOiJFZERTQSIsImtpZCI6ImsxIn0","signature":"AA"},{"x":1}]}"#;
//! let doc = Doc::parse(card, &Limits::default()).unwrap();
//! let sigs = read_signatures(&doc, 16).unwrap();
//! let entries: Vec<_> = sigs.entries().collect();
//! assert_eq!(entries.len(), 2);
//! assert_eq!(entries[0].header().unwrap().kid.as_deref(), Some("k1"));
//! let problem = entries[1].problem().unwrap();
//! assert_eq!((problem.code().as_str(), problem.pointer()), ("malformed-header", Some("/signatures/1/x")));
//! ```

use crate::canonical::doc::{tree_get, Tree};
use crate::canonical::value::{owned, Value};
use crate::canonical::Doc;
use crate::error::{pointer_token, Error, ErrorCode};
use crate::jose::b64;
use crate::jose::header::{self as jws, Header, DEFAULT_MAX_HEADER_BYTES};

/// The members an entry may have.
const ENTRY_MEMBERS: [&str; 3] = ["protected", "signature", "header"];

/// The `signatures` member of a card, read: its entries are small, so they are held as an owned
/// value while the card itself stays borrowed.
#[derive(Debug, Clone, Default)]
pub struct Signatures {
    items: Vec<Value>,
    max_header_bytes: usize,
}

/// Reads the `signatures` member of a card read into a [`Doc`]: absent or `null` is no entry;
/// anything but an array is refused with `malformed-card`, and more than `max_signatures`
/// entries with `too-many-signatures`, both at `/signatures`, before any entry is looked at.
pub fn read_signatures(card: &Doc<'_>, max_signatures: usize) -> Result<Signatures, Error> {
    read_signatures_of(card.root(), max_signatures)
}

/// [`read_signatures`] for either tree the reader builds.
pub(crate) fn read_signatures_of<'t, N: Tree<'t>>(
    card: N,
    max_signatures: usize,
) -> Result<Signatures, Error> {
    signatures_member(tree_get(card, "signatures").map(owned), max_signatures)
}

/// [`read_signatures`] on the value of the `signatures` member itself (`None`: absent).
pub(crate) fn signatures_member(member: Option<Value>, max_signatures: usize) -> Result<Signatures, Error> {
    let items = match member {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(Error::new(
                ErrorCode::MalformedCard,
                format!("\"signatures\" must be an array, found {}", other.type_name()),
            )
            .at("/signatures"))
        }
    };
    if items.len() > max_signatures {
        return Err(Error::new(
            ErrorCode::TooManySignatures,
            format!(
                "the card carries {} signatures, more than the limit of {max_signatures}",
                items.len()
            ),
        )
        .at("/signatures"));
    }
    Ok(Signatures {
        items,
        max_header_bytes: DEFAULT_MAX_HEADER_BYTES,
    })
}

impl Signatures {
    /// The same entries, with protected and unprotected headers limited to `max_bytes` (default
    /// 4 KiB) when they are decoded.
    pub fn with_max_header_bytes(mut self, max_bytes: usize) -> Signatures {
        self.max_header_bytes = max_bytes;
        self
    }

    /// How many entries there are.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when the card has no entry.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The entries, in order.
    pub fn entries(&self) -> impl Iterator<Item = SignatureEntry<'_>> + '_ {
        self.items
            .iter()
            .enumerate()
            .map(|(index, value)| SignatureEntry {
                index,
                value,
                max_header_bytes: self.max_header_bytes,
            })
    }
}

/// One entry of `signatures`, before any checking.
#[derive(Debug, Clone, Copy)]
pub struct SignatureEntry<'a> {
    index: usize,
    value: &'a Value,
    max_header_bytes: usize,
}

impl<'a> SignatureEntry<'a> {
    /// Its index in `signatures`.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The JSON Pointer of the entry, or of one of its members.
    pub fn pointer(&self, member: Option<&str>) -> String {
        match member {
            None => format!("/signatures/{}", self.index),
            Some(m) => format!("/signatures/{}/{}", self.index, pointer_token(m)),
        }
    }

    /// What is wrong with the entry's shape, if anything (`malformed-header`, at the member at
    /// fault): not an object, a member other than `protected`, `signature` and `header`, no
    /// `protected` string, no `signature` string, or a `header` that is not an object.
    pub fn problem(&self) -> Option<Error> {
        let i = self.index;
        let Value::Object(members) = self.value else {
            return Some(
                Error::new(
                    ErrorCode::MalformedHeader,
                    format!(
                        "signature entry {i} is not an object, found {}",
                        self.value.type_name()
                    ),
                )
                .at(self.pointer(None)),
            );
        };
        if let Some((k, _)) = members.iter().find(|(k, _)| !ENTRY_MEMBERS.contains(&k.as_str())) {
            return Some(
                Error::new(
                    ErrorCode::MalformedHeader,
                    format!("signature entry {i} has an unknown member {k:?} (allowed: protected, signature, header)"),
                )
                .at(self.pointer(Some(k))),
            );
        }
        for (member, what) in [("protected", "protected header"), ("signature", "signature")] {
            match self.value.get(member) {
                Some(Value::String(_)) => {}
                None => {
                    return Some(
                        Error::new(
                            ErrorCode::MalformedHeader,
                            format!("the entry has no {member:?} string (its {what})"),
                        )
                        .at(self.pointer(Some(member))),
                    )
                }
                Some(other) => {
                    return Some(
                        Error::new(
                            ErrorCode::MalformedHeader,
                            format!("{member:?} must be a string, found {}", other.type_name()),
                        )
                        .at(self.pointer(Some(member))),
                    )
                }
            }
        }
        match self.value.get("header") {
            None | Some(Value::Null | Value::Object(_)) => None,
            Some(other) => Some(
                Error::new(
                    ErrorCode::MalformedHeader,
                    format!("\"header\" must be an object, found {}", other.type_name()),
                )
                .at(self.pointer(Some("header"))),
            ),
        }
    }

    /// The entry as read, for writing it back unchanged.
    pub(crate) fn value(&self) -> &'a Value {
        self.value
    }

    /// The `protected` text, when it is a string.
    pub fn protected(&self) -> Option<&'a str> {
        self.value.get("protected").and_then(Value::as_str)
    }

    /// The `signature` text, when it is a string.
    pub fn signature_text(&self) -> Option<&'a str> {
        self.value.get("signature").and_then(Value::as_str)
    }

    /// The unprotected `header` member, when present.
    pub(crate) fn unprotected(&self) -> Option<&'a Value> {
        self.value.get("header")
    }

    /// The entry's unprotected `header` member as compact JSON text (members in their order),
    /// when there is one; it is not covered by the signature.
    ///
    /// ```
    /// use a2a_card::signature::entries::read_signatures;
    /// use a2a_card::{Doc, Limits};
    /// let card = br#"{"name":"A","signatures":[{"protected":"e30","signature":"AA","header":{"b":1,"a":2}}]}"#;
    /// let doc = Doc::parse(card, &Limits::default()).unwrap();
    /// let entries = read_signatures(&doc, 16).unwrap();
    /// assert_eq!(entries.entries().next().unwrap().unprotected_json().as_deref(), Some(r#"{"b":1,"a":2}"#));
    /// ```
    pub fn unprotected_json(&self) -> Option<String> {
        let mut out = Vec::new();
        crate::canonical::jcs::write_compact(&mut out, self.unprotected()?);
        String::from_utf8(out).ok()
    }

    /// The entry's header, decoded by the JWS rules ([`jws::decode_header`]) and the A2A rules
    /// ([`jws::check_card_header`]), the error placed at `protected` (or at `header` for a
    /// parameter in both). An entry with a [`Self::problem`] gives that problem.
    pub fn header(&self) -> Result<Header, Error> {
        let header = self.decoded_header()?;
        self.check_card_header(&header)?;
        Ok(header)
    }

    /// The A2A rules for a card signature's header ([`jws::check_card_header`]), the error at
    /// `protected`.
    pub(crate) fn check_card_header(&self, header: &Header) -> Result<(), Error> {
        jws::check_card_header(header).map_err(|e| self.place(e, "protected"))
    }

    /// The header decoded by the JWS rules only (a header that names no `kid` passes): what
    /// reporting needs before the A2A rules refuse it.
    pub(crate) fn decoded_header(&self) -> Result<Header, Error> {
        if let Some(p) = self.problem() {
            return Err(p);
        }
        let protected = self.protected().unwrap_or_default();
        jws::decode_header_value(protected, self.unprotected(), self.max_header_bytes).map_err(|e| {
            let member = if e.code() == ErrorCode::HeaderConflict {
                "header"
            } else {
                "protected"
            };
            self.place(e, member)
        })
    }

    /// The signature bytes, strict base64url, the error at `signature`.
    pub fn signature(&self) -> Result<Vec<u8>, Error> {
        if let Some(p) = self.problem() {
            return Err(p);
        }
        b64::decode_strict(self.signature_text().unwrap_or_default()).map_err(|e| {
            Error::new(
                ErrorCode::InvalidBase64url,
                format!("the signature is not strict base64url: {}", e.message()),
            )
            .at(self.pointer(Some("signature")))
        })
    }

    /// The decoded protected header as text (as it was encoded), when it is base64url.
    pub fn protected_json(&self) -> Option<String> {
        let raw = b64::decode_strict(self.protected()?).ok()?;
        Some(String::from_utf8_lossy(&raw).into_owned())
    }

    /// `e` placed at `member` of this entry, unless it already names a place.
    fn place(&self, e: Error, member: &str) -> Error {
        if e.pointer().is_some() {
            return e;
        }
        e.at(self.pointer(Some(member)))
    }
}
