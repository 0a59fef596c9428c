//! The owned value tree of the strict reader, for the small documents the library builds or
//! changes (signature entries, headers, trust stores, migrated cards). Cards themselves are read
//! into a [`Doc`] instead.

use super::doc::{tree_get, Doc, Shape, Tree};
use super::reader::{Limits, Quoting};
use crate::error::{Error, ErrorCode};

/// A JSON value as read by the strict reader. Objects keep their members in input order.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null`
    Null,
    /// `true` or `false`
    Bool(bool),
    /// A number, always within the range I-JSON allows.
    Number(f64),
    /// A string (unescaped).
    String(String),
    /// An array.
    Array(Vec<Value>),
    /// An object: members in input order, names unique.
    Object(Vec<(String, Value)>),
}

impl Value {
    /// The member of an object with this name.
    ///
    /// ```text
    /// let v = a2a_card::json::parse(br#"{"a":{"b":true}}"#).unwrap();
    /// assert_eq!(v.get("a").and_then(|a| a.get("b")), Some(&a2a_card::json::Value::Bool(true)));
    /// ```
    pub fn get(&self, name: &str) -> Option<&Value> {
        tree_get(self, name)
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The JSON type name, as used in error messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
    }
}

/// Reads one JSON document with the default [`Limits`].
///
/// ```text
/// use a2a_card::json::{parse, Value};
/// assert_eq!(parse(b" [1, \"x\"] ").unwrap(), Value::Array(vec![Value::Number(1.0), Value::String("x".into())]));
/// assert_eq!(parse(br#"{"a":1,"\u0061":2}"#).unwrap_err().code().as_str(), "duplicate-member");
/// ```
pub(crate) fn parse(input: &[u8]) -> Result<Value, Error> {
    parse_with(input, &Limits::default())
}

/// Reads key text (a JWK, a JWK Set, a trust store) with the default [`Limits`]: the messages
/// never quote the input, and the pointer names only members `shown` accepts
/// ([`Quoting::Never`]).
pub(crate) fn parse_key_text(input: &[u8], shown: fn(&str) -> bool) -> Result<Value, Error> {
    Ok(Doc::parse_quoting(input, &Limits::default(), Quoting::Never { shown })?.to_value())
}

/// Reads one JSON document with the given limits.
pub(crate) fn parse_with(input: &[u8], limits: &Limits) -> Result<Value, Error> {
    Ok(Doc::parse(input, limits)?.to_value())
}

impl<'a> Doc<'a> {
    /// The document as an owned [`Value`] tree.
    pub(crate) fn to_value(&self) -> Value {
        owned(self.root())
    }
}

/// Any node of either tree as an owned [`Value`].
pub(crate) fn owned<'t, N: Tree<'t>>(node: N) -> Value {
    match node.shape() {
        Shape::Null => Value::Null,
        Shape::Bool(b) => Value::Bool(b),
        Shape::Number(n) => Value::Number(n),
        Shape::Str(s, _) => Value::String(s.to_string()),
        Shape::Array(len) => Value::Array((0..len).filter_map(|i| node.item(i)).map(owned).collect()),
        Shape::Object(len) => Value::Object(
            (0..len)
                .filter_map(|i| node.member(i))
                .map(|(k, v)| (k.to_string(), owned(v)))
                .collect(),
        ),
    }
}

impl<'t> Tree<'t> for &'t Value {
    #[inline]
    fn shape(self) -> Shape<'t> {
        match self {
            Value::Null => Shape::Null,
            Value::Bool(b) => Shape::Bool(*b),
            Value::Number(n) => Shape::Number(*n),
            Value::String(s) => Shape::Str(s, false),
            Value::Array(items) => Shape::Array(items.len()),
            Value::Object(members) => Shape::Object(members.len()),
        }
    }
    #[inline]
    fn item(self, i: usize) -> Option<Self> {
        match self {
            Value::Array(items) => items.get(i),
            _ => None,
        }
    }
    #[inline]
    fn member(self, i: usize) -> Option<(&'t str, Self)> {
        match self {
            Value::Object(members) => members.get(i).map(|(k, v)| (k.as_str(), v)),
            _ => None,
        }
    }
}

/// A value as a `serde_json::Value`: integral numbers within +-(2^53-1) as integers, others as
/// floats (the reader admits no number beyond what a double holds).
pub(crate) fn to_serde(v: &Value) -> serde_json::Value {
    use serde_json::Value as J;
    match v {
        Value::Null => J::Null,
        Value::Bool(b) => J::Bool(*b),
        #[allow(clippy::cast_possible_truncation)]
        Value::Number(n) if n.fract() == 0.0 && n.abs() <= super::number::MAX_SAFE_INTEGER => {
            J::from(*n as i64)
        }
        Value::Number(n) => serde_json::Number::from_f64(*n).map_or(J::Null, J::Number),
        Value::String(s) => J::String(s.clone()),
        Value::Array(items) => J::Array(items.iter().map(to_serde).collect()),
        Value::Object(members) => J::Object(members.iter().map(|(k, v)| (k.clone(), to_serde(v))).collect()),
    }
}

/// A `serde_json::Value` under the reader's rules: a number that is not finite or an integer
/// beyond +-(2^53-1) is refused with `number-out-of-range` (a `serde_json` object cannot hold
/// a duplicate name, and its strings are valid Unicode).
pub(crate) fn from_serde(v: &serde_json::Value) -> Result<Value, Error> {
    use serde_json::Value as J;
    Ok(match v {
        J::Null => Value::Null,
        J::Bool(b) => Value::Bool(*b),
        J::Number(n) => {
            #[allow(clippy::cast_precision_loss)]
            let big = n
                .as_i64()
                .map(|i| i.unsigned_abs())
                .or(n.as_u64())
                .is_some_and(|m| m as f64 > super::number::MAX_SAFE_INTEGER);
            match n.as_f64() {
                Some(f) if f.is_finite() && !big => Value::Number(f),
                _ => {
                    return Err(Error::new(
                        ErrorCode::NumberOutOfRange,
                        format!("the number {n} lies outside the I-JSON range +-(2^53-1)"),
                    ))
                }
            }
        }
        J::String(s) => Value::String(s.clone()),
        J::Array(items) => Value::Array(items.iter().map(from_serde).collect::<Result<_, _>>()?),
        J::Object(members) => Value::Object(
            members
                .iter()
                .map(|(k, v)| {
                    Ok((
                        k.clone(),
                        from_serde(v).map_err(|e| e.at(format!("/{}", crate::error::pointer_token(k))))?,
                    ))
                })
                .collect::<Result<_, Error>>()?,
        ),
    })
}
