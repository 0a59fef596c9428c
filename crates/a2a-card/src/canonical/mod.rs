//! The canonical layer: the strict I-JSON reader, the presence table and walk, the profiles
//! and the RFC 8785 writer. It turns a card's bytes into the bytes a signature covers, and knows
//! nothing of keys or signatures.
//!
//! ```
//! use a2a_card::canonical::{canonicalize, CanonicalizeOptions};
//! let c = canonicalize(br#"{"name":"A","description":"","skills":[],"x":1}"#, &CanonicalizeOptions::default()).unwrap();
//! assert_eq!(c.bytes, br#"{"description":"","name":"A","skills":[]}"#);
//! assert_eq!(c.unsigned, ["/x"]);
//! ```

pub(crate) mod doc;
pub(crate) mod jcs;
pub(crate) mod number;
mod profile;
pub(crate) mod python;
pub(crate) mod reader;
pub(crate) mod scan;
// The a2a-sdk 0.3 model, as the presence table: the walk's data, reachable for the tests.
#[doc(hidden)]
pub mod sdk03;
// The presence table is the walk's and the model's internal data; it stays reachable for the
// crate's own tests (which check the model, the schema and the strategies against it), out of
// the documented API.
#[doc(hidden)]
pub mod table;
pub(crate) mod value;
pub(crate) mod walk;

pub use doc::{Doc, MemberSpan, ObjectLayout};
pub use jcs::{jcs, jcs_with};
pub use number::MAX_SAFE_INTEGER;
pub use profile::{accepted_profiles, Canonical, CanonicalizeOptions, Profile, UnknownMembers};
pub use reader::{
    Limits, DEFAULT_MAX_DEPTH, DEFAULT_MAX_INPUT_BYTES, MAX_DEPTH_LIMIT, MAX_INPUT_BYTES_LIMIT,
};

use crate::error::Error;
pub(crate) use profile::quoted_names;
pub(crate) use walk::canonicalize_tree;

/// Canonicalizes an Agent Card given as bytes.
///
/// ```
/// use a2a_card::{canonicalize, CanonicalizeOptions};
/// // The worked example of A2A v1.0 section 8.4.1.
/// let card = br#"{"name":"Example Agent","description":"","capabilities":
///   {"streaming":false,"pushNotifications":false,"extensions":[]},"skills":[]}"#;
/// let c = canonicalize(card, &CanonicalizeOptions::default()).unwrap();
/// assert_eq!(
///     String::from_utf8(c.bytes).unwrap(),
///     r#"{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}"#
/// );
/// ```
pub fn canonicalize(input: &[u8], opts: &CanonicalizeOptions) -> Result<Canonical, Error> {
    let doc = Doc::parse(input, &opts.limits)?;
    canonicalize_doc(&doc, opts)
}

/// Canonicalizes an Agent Card already read into a [`Doc`] (what [`canonicalize`] does after
/// reading): the borrowed document is cheaper to read and to free than an owned value tree.
///
/// ```
/// use a2a_card::{Doc, Limits};
/// use a2a_card::{canonicalize_doc, CanonicalizeOptions};
/// let doc = Doc::parse(br#"{"name":"A","skills":[],"x":1}"#, &Limits::default()).unwrap();
/// let c = canonicalize_doc(&doc, &CanonicalizeOptions::default()).unwrap();
/// assert_eq!(c.bytes, br#"{"name":"A","skills":[]}"#);
/// assert_eq!(c.unsigned, vec!["/x".to_string()]);
/// ```
pub fn canonicalize_doc(doc: &Doc<'_>, opts: &CanonicalizeOptions) -> Result<Canonical, Error> {
    canonicalize_tree(doc.root(), opts)
}

/// Reads any JSON document with the strict I-JSON reader (duplicate names, lone surrogates,
/// numbers a double would change, nesting and size past `limits` all refused, with the JSON
/// Pointer) into a `serde_json::Value`, members in input order.
///
/// ```
/// use a2a_card::canonical::parse_json;
/// let v = parse_json(br#"{"b":1,"a":[true,"x"]}"#, &Default::default()).unwrap();
/// assert_eq!(v["a"][1], "x");
/// let e = parse_json(br#"{"a":1,"\u0061":2}"#, &Default::default()).unwrap_err();
/// assert_eq!((e.code().as_str(), e.pointer()), ("duplicate-member", Some("/a")));
/// ```
pub fn parse_json(input: &[u8], limits: &Limits) -> Result<serde_json::Value, Error> {
    Ok(value::to_serde(&value::parse_with(input, limits)?))
}
