//! An ordered JSON value for tests that build, change and write cards: members keep their
//! order, numbers are doubles. It is read and written by `serde_json`, independently of the
//! library's own reader and writers, so a test that builds its input here does not lean on the
//! code it tests. (Duplicate member names cannot be represented by `serde_json`: build such
//! inputs as text.)

use serde_json::Value as J;

/// A JSON value with members in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null`
    Null,
    /// `true` or `false`
    Bool(bool),
    /// A number.
    Number(f64),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Value>),
    /// An object, members in order.
    Object(Vec<(String, Value)>),
}

impl Value {
    /// The member of an object with this name.
    pub fn get(&self, name: &str) -> Option<&Value> {
        match self {
            Value::Object(m) => m.iter().find(|(k, _)| k == name).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The JSON type name.
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

/// Reads JSON text (by `serde_json`, members in order).
pub fn parse(input: &[u8]) -> Result<Value, String> {
    serde_json::from_slice::<J>(input)
        .map(|v| from_serde(&v))
        .map_err(|e| e.to_string())
}

/// A `serde_json` value as an ordered value.
pub fn from_serde(v: &J) -> Value {
    match v {
        J::Null => Value::Null,
        J::Bool(b) => Value::Bool(*b),
        J::Number(n) => Value::Number(n.as_f64().unwrap_or(f64::NAN)),
        J::String(s) => Value::String(s.clone()),
        J::Array(items) => Value::Array(items.iter().map(from_serde).collect()),
        J::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), from_serde(v))).collect()),
    }
}

/// The value as a `serde_json` value (integral numbers below 2^53 as integers).
pub fn to_serde(v: &Value) -> J {
    match v {
        Value::Null => J::Null,
        Value::Bool(b) => J::Bool(*b),
        #[allow(clippy::cast_possible_truncation)]
        Value::Number(n) if n.fract() == 0.0 && n.abs() < 9_007_199_254_740_992.0 => J::from(*n as i64),
        Value::Number(n) => serde_json::Number::from_f64(*n).map_or(J::Null, J::Number),
        Value::String(s) => J::String(s.clone()),
        Value::Array(items) => J::Array(items.iter().map(to_serde).collect()),
        Value::Object(m) => J::Object(m.iter().map(|(k, v)| (k.clone(), to_serde(v))).collect()),
    }
}

/// Appends the value as compact JSON, members in their order.
pub fn write_compact(out: &mut Vec<u8>, v: &Value) {
    out.extend_from_slice(&to_bytes(v));
}

/// The value as compact JSON, members in their order.
pub fn to_bytes(v: &Value) -> Vec<u8> {
    serde_json::to_vec(&to_serde(v)).unwrap()
}
