//! RFC 8785 (JSON Canonicalization Scheme) output.
//!
//! Members sorted by the UTF-16 code units of their names, numbers in the ECMAScript
//! `Number.prototype.toString` form, strings with the minimal escapes, no whitespace. The
//! writer works on what the strict reader builds (a [`Value`] or a [`Doc`]), so input that
//! is not I-JSON never gets here.

use super::doc::{Doc, Shape, Tree};
use super::number::write_number;
use super::reader::Limits;
use super::value::Value;
use crate::error::Error;
use std::cmp::Ordering;

/// Canonicalizes any I-JSON document with RFC 8785, with the default [`Limits`].
///
/// ```text
/// let out = a2a_card::jcs(br#"{"b": [1.0, 1e21, -0], "a": "\u00e9\n"}"#).unwrap();
/// assert_eq!(out, "{\"a\":\"é\\n\",\"b\":[1,1e+21,0]}".as_bytes());
/// ```
pub fn jcs(input: &[u8]) -> Result<Vec<u8>, Error> {
    jcs_with(input, &Limits::default())
}

/// Canonicalizes any I-JSON document with RFC 8785 under the given limits.
pub fn jcs_with(input: &[u8], limits: &Limits) -> Result<Vec<u8>, Error> {
    let doc = Doc::parse(input, limits)?;
    let mut out = Vec::with_capacity(input.len());
    write_tree(&mut out, doc.root());
    Ok(out)
}

/// Writes `v` in RFC 8785 form, appending to `out`.
///
/// ```text
/// use a2a_card::json::Value;
/// let mut out = Vec::new();
/// a2a_card::jcs::write_value(&mut out, &Value::Number(0.000001));
/// assert_eq!(out, b"0.000001");
/// ```
pub(crate) fn write_value(out: &mut Vec<u8>, v: &Value) {
    write_tree(out, v);
}

/// [`write_value`] for either tree the reader builds.
pub(crate) fn write_tree<'t, N: Tree<'t>>(out: &mut Vec<u8>, v: N) {
    match v.shape() {
        Shape::Null => out.extend_from_slice(b"null"),
        Shape::Bool(true) => out.extend_from_slice(b"true"),
        Shape::Bool(false) => out.extend_from_slice(b"false"),
        Shape::Number(n) => write_number(out, n),
        Shape::Str(s, plain) => write_text(out, s, plain),
        Shape::Array(len) => {
            out.push(b'[');
            for i in 0..len {
                if i > 0 {
                    out.push(b',');
                }
                if let Some(item) = v.item(i) {
                    write_tree(out, item);
                }
            }
            out.push(b']');
        }
        Shape::Object(len) => write_members_tree(out, (0..len).filter_map(|i| v.member(i)).collect()),
    }
}

/// Writes an object from its members in RFC 8785 form: sorted by the UTF-16 code units of their
/// names, values by [`write_tree`].
pub(crate) fn write_members_tree<'t, N: Tree<'t>>(out: &mut Vec<u8>, mut members: Vec<(&str, N)>) {
    members.sort_unstable_by(|a, b| cmp_utf16(a.0, b.0));
    out.push(b'{');
    for (i, (k, v)) in members.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_string(out, k);
        out.push(b':');
        write_tree(out, v);
    }
    out.push(b'}');
}

/// Writes a string with the RFC 8785 escapes: `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, other
/// controls as `\u00xx` (lower-case hex), everything else as UTF-8.
pub fn write_string(out: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut start = 0;
    loop {
        // The next byte that needs an escape (the same set the reader stops at), a word at a time.
        let i = crate::canonical::scan::scan_plain(bytes, start);
        let Some(&b) = bytes.get(i) else { break };
        out.extend_from_slice(bytes.get(start..i).unwrap_or_default());
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0C => out.extend_from_slice(b"\\f"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            _ => {
                out.extend_from_slice(b"\\u00");
                out.push(HEX[usize::from(b >> 4)]);
                out.push(HEX[usize::from(b & 0xF)]);
            }
        }
        start = i + 1;
    }
    out.extend_from_slice(bytes.get(start..).unwrap_or_default());
    out.push(b'"');
}

/// Writes a string in RFC 8785 form; `plain` says the caller knows it holds no character that
/// needs an escape (the reader borrowed it from input that had none), so it is copied as it is.
#[inline]
pub(crate) fn write_text(out: &mut Vec<u8>, s: &str, plain: bool) {
    if plain {
        out.reserve(s.len() + 2);
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    } else {
        write_string(out, s);
    }
}

/// Orders member names by their UTF-16 code units, as RFC 8785 section 3.2.3 requires.
///
/// UTF-8 byte order equals code point order, which differs from UTF-16 order only between
/// characters from U+E000 to U+FFFF and characters above U+FFFF; the byte comparison is used
/// unless the first difference involves such a pair.
///
/// ```text
/// use std::cmp::Ordering;
/// // U+FB01 sorts after U+1F600 in UTF-16 (0xFB01 > 0xD83D) though not in code point order.
/// assert_eq!(a2a_card::jcs::cmp_utf16("\u{FB01}", "\u{1F600}"), Ordering::Greater);
/// assert_eq!(a2a_card::jcs::cmp_utf16("a", "b"), Ordering::Less);
/// ```
pub fn cmp_utf16(a: &str, b: &str) -> Ordering {
    let (ab, bb) = (a.as_bytes(), b.as_bytes());
    // An index loop: no iterator adapters left as calls at opt-level "z" (the npm package).
    let n = ab.len().min(bb.len());
    let mut i = 0;
    while i < n && ab[i] == bb[i] {
        i += 1;
    }
    match (ab.get(i), bb.get(i)) {
        (Some(&x), Some(&y)) if x < 0x80 && y < 0x80 => x.cmp(&y),
        (Some(_), Some(_)) => a.encode_utf16().cmp(b.encode_utf16()),
        _ => ab.len().cmp(&bb.len()),
    }
}

/// Writes a value as compact JSON keeping the members in their order (not canonical: use
/// [`write_value`] for that).
pub(crate) fn write_compact(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_compact(out, item);
            }
            out.push(b']');
        }
        Value::Object(members) => {
            out.push(b'{');
            for (i, (k, item)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_string(out, k);
                out.push(b':');
                write_compact(out, item);
            }
            out.push(b'}');
        }
        other => write_value(out, other),
    }
}
