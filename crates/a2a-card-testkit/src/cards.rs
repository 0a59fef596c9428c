//! Building signed-card inputs by hand, with `serde_json` (members keep their order: the
//! workspace builds it with `preserve_order`), independently of the library under test: a
//! signature entry (made from a protected header the test wrote, signed by a function the test
//! gives), and a card with its `signatures` member replaced.

use crate::data::b64url;
use serde_json::{Map, Value};

/// A signature entry: `protected`, `signature` and, when given, the unprotected `header`, in
/// that order.
pub fn entry(protected: &str, signature: &str, header: Option<Value>) -> Value {
    let mut m = Map::new();
    m.insert("protected".into(), Value::from(protected));
    m.insert("signature".into(), Value::from(signature));
    if let Some(h) = header {
        m.insert("header".into(), h);
    }
    Value::Object(m)
}

/// A signature entry with the protected header `protected_json` (JSON text, used as it is) and
/// the unprotected `header` when given, whose signature is `sign` of the JWS signing input
/// (RFC 7515 section 5.1: `BASE64URL(protected) '.' BASE64URL(payload)`) over `payload`.
pub fn signed_entry(
    payload: &[u8],
    protected_json: &str,
    header: Option<Value>,
    sign: impl FnOnce(&[u8]) -> Vec<u8>,
) -> Value {
    let protected = b64url(protected_json);
    let input = format!("{protected}.{}", b64url(payload));
    entry(&protected, &b64url(sign(input.as_bytes())), header)
}

/// `card` as compact JSON with its `signatures` member (if any) removed and `entries` as the
/// last member `signatures`. A card that is not an object is written unchanged.
pub fn with_signatures(card: &Value, entries: Vec<Value>) -> Vec<u8> {
    let mut card = card.clone();
    if let Value::Object(m) = &mut card {
        m.shift_remove("signatures");
        m.insert("signatures".into(), Value::Array(entries));
    }
    serde_json::to_vec(&card).unwrap()
}
