//! The strict I-JSON reader (RFC 8259 syntax, RFC 7493 restrictions) and its value tree.
//!
//! Everything that reaches canonicalization or signature checking is read here first, so one
//! set of rules decides what a document is: no duplicate member names (compared after
//! unescaping), no lone surrogates, no invalid UTF-8, no byte-order mark, no trailing data,
//! no number that overflows a double, no integer literal beyond +-(2^53-1) that a double would
//! round (one that is exactly the RFC 8785 spelling of its double, such as the canonical form of
//! `1e20`, reads back unchanged), bounded nesting and size.
//! Errors carry the JSON Pointer of the member where the problem lies and the byte offset.

use crate::error::{pointer_token, Error, ErrorCode};

/// Largest integer magnitude I-JSON allows (2^53 - 1).
pub const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// Default maximum input size: 8 MiB.
pub const DEFAULT_MAX_INPUT_BYTES: usize = 8 * 1024 * 1024;

/// Default maximum nesting depth of arrays and objects.
pub const DEFAULT_MAX_DEPTH: usize = 128;

/// Limits applied while reading.
///
/// ```
/// let limits = a2a_card::Limits { max_input_bytes: 1024, ..Default::default() };
/// assert_eq!(limits.max_depth, 128);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Inputs longer than this many bytes are refused with `input-too-large`.
    pub max_input_bytes: usize,
    /// Arrays and objects nested deeper than this are refused with `nesting-too-deep`. The
    /// top-level value is at depth 1 when it is an array or object.
    pub max_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_input_bytes: DEFAULT_MAX_INPUT_BYTES,
            max_depth: DEFAULT_MAX_DEPTH,
        }
    }
}

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
    /// ```
    /// let v = a2a_card::json::parse(br#"{"a":{"b":true}}"#).unwrap();
    /// assert_eq!(v.get("a").and_then(|a| a.get("b")), Some(&a2a_card::json::Value::Bool(true)));
    /// ```
    pub fn get(&self, name: &str) -> Option<&Value> {
        match self {
            Value::Object(members) => members.iter().find(|(k, _)| k == name).map(|(_, v)| v),
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
/// ```
/// use a2a_card::json::{parse, Value};
/// assert_eq!(parse(b" [1, \"x\"] ").unwrap(), Value::Array(vec![Value::Number(1.0), Value::String("x".into())]));
/// assert_eq!(parse(br#"{"a":1,"\u0061":2}"#).unwrap_err().code().as_str(), "duplicate-member");
/// ```
pub fn parse(input: &[u8]) -> Result<Value, Error> {
    parse_with(input, &Limits::default())
}

/// Reads one JSON document with the given limits.
pub fn parse_with(input: &[u8], limits: &Limits) -> Result<Value, Error> {
    if input.len() > limits.max_input_bytes {
        return Err(Error::new(
            ErrorCode::InputTooLarge,
            format!(
                "the input is {} bytes, more than the limit of {} bytes",
                input.len(),
                limits.max_input_bytes
            ),
        )
        .at(""));
    }
    if input.starts_with(&[0xEF, 0xBB, 0xBF]) {
        return Err(Error::new(
            ErrorCode::InvalidJson,
            "the input starts with a UTF-8 byte-order mark, which I-JSON forbids",
        )
        .at("")
        .at_offset(0));
    }
    let text = match std::str::from_utf8(input) {
        Ok(t) => t,
        Err(e) => {
            let offset = e.valid_up_to();
            let mut err = Error::new(ErrorCode::InvalidJson, format!("invalid UTF-8 at byte {offset}"))
                .at_offset(offset);
            // Locate the member for the pointer by reading the valid prefix, best effort.
            if let Some(p) = pointer_at_offset(&input[..offset], limits) {
                err = err.at(p);
            }
            return Err(err);
        }
    };
    let mut p = Parser {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        max_depth: limits.max_depth,
        stop_at: usize::MAX,
        members: Vec::new(),
        items: Vec::new(),
    };
    p.skip_ws();
    let value = p.value(0).map_err(|e| e.finish())?;
    p.skip_ws();
    if p.pos != p.bytes.len() {
        return Err(
            Error::new(ErrorCode::InvalidJson, "unexpected data after the JSON value")
                .at("")
                .at_offset(p.pos),
        );
    }
    Ok(value)
}

/// For an input that is cut short at an invalid UTF-8 sequence: the pointer of the member
/// being read at that point.
fn pointer_at_offset(prefix: &[u8], limits: &Limits) -> Option<String> {
    let text = std::str::from_utf8(prefix).ok()?;
    let mut p = Parser {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        max_depth: limits.max_depth,
        stop_at: prefix.len(),
        members: Vec::new(),
        items: Vec::new(),
    };
    p.skip_ws();
    match p.value(0) {
        Err(e) if e.truncated => Some(e.finish().pointer().unwrap_or("").to_string()),
        _ => None,
    }
}

/// An error travelling up the parse: the pointer segments are collected in reverse order as
/// the recursion unwinds, so the happy path pays nothing for pointers. Boxed, so that a
/// `Result` of the reader is no larger than its value.
type PErr = Box<PErrInner>;

/// The contents of a [`PErr`].
struct PErrInner {
    code: ErrorCode,
    message: String,
    offset: usize,
    segments: Vec<String>,
    truncated: bool,
}

impl PErrInner {
    fn finish(mut self) -> Error {
        self.segments.reverse();
        let mut ptr = String::new();
        for s in &self.segments {
            ptr.push('/');
            ptr.push_str(s);
        }
        let PErrInner {
            code,
            message,
            offset,
            ..
        } = self;
        Error::new(code, message).at(ptr).at_offset(offset)
    }
    fn within(mut self: Box<Self>, segment: String) -> Box<Self> {
        self.segments.push(segment);
        self
    }
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    max_depth: usize,
    stop_at: usize,
    /// Members of the objects being read, innermost last: each object collects its members
    /// here and moves them into one exactly sized `Vec` when it closes, so a container costs one
    /// allocation however many members it has.
    members: Vec<(String, Value)>,
    /// Items of the arrays being read, the same way.
    items: Vec<Value>,
}

impl<'a> Parser<'a> {
    fn err(&self, code: ErrorCode, message: impl Into<String>) -> PErr {
        Box::new(PErrInner {
            code,
            message: message.into(),
            offset: self.pos,
            segments: Vec::new(),
            truncated: self.pos >= self.stop_at,
        })
    }

    fn syntax(&self, what: &str) -> PErr {
        if self.pos >= self.bytes.len() {
            let mut e = self.err(
                ErrorCode::InvalidJson,
                format!("unexpected end of input, expected {what}"),
            );
            e.truncated = true;
            e
        } else {
            let c = self.text[self.pos..].chars().next().unwrap_or('\u{FFFD}');
            self.err(
                ErrorCode::InvalidJson,
                format!("unexpected character {c:?}, expected {what}"),
            )
        }
    }

    #[inline]
    fn skip_ws(&mut self) {
        while let Some(&b) = self.bytes.get(self.pos) {
            if b == b' ' || b == b'\n' || b == b'\r' || b == b'\t' {
                self.pos += 1;
                // Indentation: runs of spaces, eight at a time.
                while self.bytes.get(self.pos..self.pos + 8) == Some(b"        ".as_slice()) {
                    self.pos += 8;
                }
            } else {
                break;
            }
        }
    }

    fn literal(&mut self, word: &str, v: Value) -> Result<Value, PErr> {
        if self.bytes[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(v)
        } else {
            Err(self.syntax("a JSON value"))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, PErr> {
        match self.bytes.get(self.pos) {
            Some(b'{') => self.object(depth + 1),
            Some(b'[') => self.array(depth + 1),
            Some(b'"') => self.string().map(Value::String),
            Some(b't') => self.literal("true", Value::Bool(true)),
            Some(b'f') => self.literal("false", Value::Bool(false)),
            Some(b'n') => self.literal("null", Value::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.syntax("a JSON value")),
        }
    }

    fn enter(&self, depth: usize) -> Result<(), PErr> {
        if depth > self.max_depth {
            return Err(self.err(
                ErrorCode::NestingTooDeep,
                format!(
                    "arrays and objects nest deeper than the limit of {} levels",
                    self.max_depth
                ),
            ));
        }
        Ok(())
    }

    fn object(&mut self, depth: usize) -> Result<Value, PErr> {
        self.enter(depth)?;
        self.pos += 1; // '{'
        self.skip_ws();
        if self.bytes.get(self.pos) == Some(&b'}') {
            self.pos += 1;
            return Ok(Value::Object(Vec::new()));
        }
        let base = self.members.len();
        let result = self.object_members(depth, base);
        match result {
            Ok(()) => {
                let members: Vec<(String, Value)> = self.members.drain(base..).collect();
                Ok(Value::Object(members))
            }
            Err(e) => {
                self.members.truncate(base);
                Err(e)
            }
        }
    }

    /// Reads the members of an object after its `{` onto `self.members` (from `base`), up to and
    /// including the closing `}`.
    fn object_members(&mut self, depth: usize, base: usize) -> Result<(), PErr> {
        let mut index = NameIndex::default();
        loop {
            self.skip_ws();
            if self.bytes.get(self.pos) != Some(&b'"') {
                return Err(self.syntax("a member name in double quotes"));
            }
            let name_at = self.pos;
            let name = self.string()?;
            if index.seen_before(self.members.get(base..).unwrap_or_default(), &name) {
                let mut e = self.err(
                    ErrorCode::DuplicateMember,
                    format!("the member name {name:?} appears twice in one object (names are compared after unescaping)"),
                );
                e.offset = name_at;
                return Err(e.within(pointer_token(&name)));
            }
            self.skip_ws();
            if self.bytes.get(self.pos) != Some(&b':') {
                return Err(self
                    .syntax("':' after a member name")
                    .within(pointer_token(&name)));
            }
            self.pos += 1;
            self.skip_ws();
            let v = match self.value(depth) {
                Ok(v) => v,
                Err(e) => return Err(e.within(pointer_token(&name))),
            };
            self.members.push((name, v));
            self.skip_ws();
            match self.bytes.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(());
                }
                _ => return Err(self.syntax("',' or '}'")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Value, PErr> {
        self.enter(depth)?;
        self.pos += 1; // '['
        self.skip_ws();
        if self.bytes.get(self.pos) == Some(&b']') {
            self.pos += 1;
            return Ok(Value::Array(Vec::new()));
        }
        let base = self.items.len();
        match self.array_items(depth, base) {
            Ok(()) => {
                let items: Vec<Value> = self.items.drain(base..).collect();
                Ok(Value::Array(items))
            }
            Err(e) => {
                self.items.truncate(base);
                Err(e)
            }
        }
    }

    /// Reads the items of an array after its `[` onto `self.items` (from `base`), up to and
    /// including the closing `]`.
    fn array_items(&mut self, depth: usize, base: usize) -> Result<(), PErr> {
        loop {
            self.skip_ws();
            let v = match self.value(depth) {
                Ok(v) => v,
                Err(e) => return Err(e.within(self.items.len().saturating_sub(base).to_string())),
            };
            self.items.push(v);
            self.skip_ws();
            match self.bytes.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(());
                }
                _ => return Err(self.syntax("',' or ']'")),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, PErr> {
        let mut v = 0u32;
        for _ in 0..4 {
            let d = match self.bytes.get(self.pos) {
                Some(c @ b'0'..=b'9') => c - b'0',
                Some(c @ b'a'..=b'f') => c - b'a' + 10,
                Some(c @ b'A'..=b'F') => c - b'A' + 10,
                _ => return Err(self.syntax("four hexadecimal digits after \\u")),
            };
            v = v * 16 + u32::from(d);
            self.pos += 1;
        }
        Ok(v)
    }

    fn string(&mut self) -> Result<String, PErr> {
        self.pos += 1; // opening quote
        let mut start = self.pos;
        // The common case: no escape before the closing quote, one exactly sized copy.
        self.pos = scan_plain(self.bytes, self.pos);
        if self.bytes.get(self.pos) == Some(&b'"') {
            let s = self.text.get(start..self.pos).unwrap_or_default().to_owned();
            self.pos += 1;
            return Ok(s);
        }
        let mut out = String::new();
        loop {
            // Fast scan to the next quote, backslash or control character.
            self.pos = scan_plain(self.bytes, self.pos);
            match self.bytes.get(self.pos) {
                None => return Err(self.syntax("the closing '\"' of a string")),
                Some(b'"') => {
                    out.push_str(&self.text[start..self.pos]);
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    out.push_str(&self.text[start..self.pos]);
                    self.pos += 1;
                    let esc = match self.bytes.get(self.pos) {
                        Some(&c) => c,
                        None => return Err(self.syntax("an escape character")),
                    };
                    self.pos += 1;
                    match esc {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let at = self.pos - 2;
                            let hi = self.hex4()?;
                            let cp = if (0xD800..0xDC00).contains(&hi) {
                                if self.bytes.get(self.pos) == Some(&b'\\')
                                    && self.bytes.get(self.pos + 1) == Some(&b'u')
                                {
                                    self.pos += 2;
                                    let lo = self.hex4()?;
                                    if !(0xDC00..0xE000).contains(&lo) {
                                        let mut e = self.err(
                                            ErrorCode::InvalidJson,
                                            format!("lone surrogate \\u{hi:04X}: a high surrogate must be followed by a low one"),
                                        );
                                        e.offset = at;
                                        return Err(e);
                                    }
                                    0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                                } else {
                                    let mut e = self.err(
                                        ErrorCode::InvalidJson,
                                        format!("lone surrogate \\u{hi:04X} in a string"),
                                    );
                                    e.offset = at;
                                    return Err(e);
                                }
                            } else if (0xDC00..0xE000).contains(&hi) {
                                let mut e = self.err(
                                    ErrorCode::InvalidJson,
                                    format!("lone surrogate \\u{hi:04X} in a string"),
                                );
                                e.offset = at;
                                return Err(e);
                            } else {
                                hi
                            };
                            match char::from_u32(cp) {
                                Some(c) => out.push(c),
                                None => return Err(self.err(ErrorCode::InvalidJson, "invalid \\u escape")),
                            }
                        }
                        _ => {
                            self.pos -= 1;
                            return Err(
                                self.syntax("a valid escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)")
                            );
                        }
                    }
                    start = self.pos;
                }
                Some(_) => {
                    return Err(self.err(
                        ErrorCode::InvalidJson,
                        "a control character (U+0000 to U+001F) must be escaped inside a string",
                    ))
                }
            }
        }
    }

    fn number(&mut self) -> Result<Value, PErr> {
        let start = self.pos;
        let b = self.bytes;
        let mut integer = true;
        if b.get(self.pos) == Some(&b'-') {
            self.pos += 1;
        }
        match b.get(self.pos) {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                while matches!(b.get(self.pos), Some(b'0'..=b'9')) {
                    self.pos += 1;
                }
            }
            _ => return Err(self.syntax("a digit")),
        }
        if b.get(self.pos) == Some(&b'.') {
            integer = false;
            self.pos += 1;
            if !matches!(b.get(self.pos), Some(b'0'..=b'9')) {
                return Err(self.syntax("a digit after the decimal point"));
            }
            while matches!(b.get(self.pos), Some(b'0'..=b'9')) {
                self.pos += 1;
            }
        }
        if matches!(b.get(self.pos), Some(b'e' | b'E')) {
            integer = false;
            self.pos += 1;
            if matches!(b.get(self.pos), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if !matches!(b.get(self.pos), Some(b'0'..=b'9')) {
                return Err(self.syntax("a digit in the exponent"));
            }
            while matches!(b.get(self.pos), Some(b'0'..=b'9')) {
                self.pos += 1;
            }
        }
        let text = &self.text[start..self.pos];
        if integer {
            // Up to 15 digits the integer is exact in a double: no need for the general parser.
            let (negative, digits) = match text.as_bytes().split_first() {
                Some((b'-', rest)) => (true, rest),
                _ => (false, text.as_bytes()),
            };
            if digits.len() <= 15 {
                let n = digits
                    .iter()
                    .fold(0u64, |n, d| n * 10 + u64::from(d.wrapping_sub(b'0')));
                // Exact: n < 10^15 < 2^53.
                #[allow(clippy::cast_precision_loss)]
                let v = n as f64;
                return Ok(Value::Number(if negative { -v } else { v }));
            }
        }
        let v: f64 = match text.parse() {
            Ok(v) => v,
            Err(_) => return Err(self.err(ErrorCode::InvalidJson, format!("malformed number {text}"))),
        };
        if !v.is_finite() {
            let mut e = self.err(
                ErrorCode::NumberOutOfRange,
                format!("the number {text} overflows an IEEE 754 double"),
            );
            e.offset = start;
            return Err(e);
        }
        if integer && v.abs() > MAX_SAFE_INTEGER && !is_jcs_spelling(text, v) {
            let mut e = self.err(
                ErrorCode::NumberOutOfRange,
                format!(
                    "the integer {text} lies outside the I-JSON range +-(2^53-1) and would be rounded to {}; send it as a string",
                    jcs_spelling(v)
                ),
            );
            e.offset = start;
            return Err(e);
        }
        Ok(Value::Number(v))
    }
}

/// Bytes that end a run of plain string content: the quote, the backslash and the controls.
static STRING_STOP: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = true;
        i += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

/// The offset of the first byte at or after `pos` that is a quote, a backslash or a control
/// character (or `bytes.len()`), eight bytes at a time while none is in sight.
#[inline]
pub(crate) fn scan_plain(bytes: &[u8], mut pos: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    while let Some(chunk) = bytes.get(pos..pos + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        // A byte below 0x20, or equal to '"' or '\\', sets its high bit in `hit` (the test may
        // also flag a byte after the first real one, never before it and never miss one).
        let below = w.wrapping_sub(ONES * 0x20);
        let quote = (w ^ (ONES * u64::from(b'"'))).wrapping_sub(ONES);
        let quote_neg = !(w ^ (ONES * u64::from(b'"')));
        let bslash = (w ^ (ONES * u64::from(b'\\'))).wrapping_sub(ONES);
        let bslash_neg = !(w ^ (ONES * u64::from(b'\\')));
        let hit = ((below & !w) | (quote & quote_neg) | (bslash & bslash_neg)) & HIGH;
        if hit != 0 {
            // trailing_zeros / 8 < 8, and the first flagged byte is the first real one.
            return pos + (hit.trailing_zeros() / 8) as usize;
        }
        pos += 8;
    }
    while let Some(&b) = bytes.get(pos) {
        if STRING_STOP[usize::from(b)] {
            break;
        }
        pos += 1;
    }
    pos
}

/// The RFC 8785 text of a finite double.
fn jcs_spelling(v: f64) -> String {
    let mut out = Vec::new();
    crate::jcs::write_number(&mut out, v);
    String::from_utf8(out).unwrap_or_default()
}

/// True when `text` is exactly what RFC 8785 writes for `v`. An integer literal beyond
/// +-(2^53-1) is accepted only then: nothing was rounded, and canonical output (which spells
/// integral doubles below 1e21 with all their digits) always reads back.
fn is_jcs_spelling(text: &str, v: f64) -> bool {
    jcs_spelling(v) == text
}

/// Duplicate detection for one object: a linear scan while the object is small, a hash set of
/// name hashes once it grows, so a hostile object with many members costs linear time.
#[derive(Default)]
struct NameIndex {
    hashes: Option<(
        std::collections::hash_map::RandomState,
        std::collections::HashSet<u64>,
    )>,
}

impl NameIndex {
    const LINEAR_LIMIT: usize = 16;

    fn hash(state: &std::collections::hash_map::RandomState, name: &str) -> u64 {
        use std::hash::BuildHasher;
        state.hash_one(name)
    }

    /// True when `name` is already among `members`; otherwise records it (the caller pushes it).
    fn seen_before(&mut self, members: &[(String, Value)], name: &str) -> bool {
        if members.len() < Self::LINEAR_LIMIT {
            return members.iter().any(|(k, _)| k == name);
        }
        let (state, hashes) = self.hashes.get_or_insert_with(|| {
            let state = std::collections::hash_map::RandomState::new();
            let hashes = members.iter().map(|(k, _)| Self::hash(&state, k)).collect();
            (state, hashes)
        });
        if hashes.insert(Self::hash(state, name)) {
            false
        } else {
            members.iter().any(|(k, _)| k == name)
        }
    }
}

/// Where one top-level member of an object document lies in the input bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberSpan {
    /// The member name (unescaped).
    pub name: String,
    /// Byte offset of the opening quote of the name.
    pub start: usize,
    /// Byte range of the value.
    pub value: std::ops::Range<usize>,
}

/// The layout of a top-level object: its members' spans and the offset of the closing `}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectLayout {
    /// Offset of the opening `{`.
    pub open: usize,
    /// The members in input order.
    pub members: Vec<MemberSpan>,
    /// Offset of the closing `}`.
    pub close: usize,
}

/// Reads an object document strictly (as [`parse_with`]) and returns where each top-level member
/// lies, so a writer can change one member and leave every other byte as it was.
///
/// ```
/// let l = a2a_card::json::object_layout(br#" {"a": 1, "b": [2]} "#, &Default::default()).unwrap();
/// assert_eq!(l.members[1].name, "b");
/// assert_eq!(l.members[1].value, 15..18);
/// assert_eq!(l.close, 18);
/// ```
pub fn object_layout(input: &[u8], limits: &Limits) -> Result<ObjectLayout, Error> {
    // Full strict read first: every rule applies and errors are reported the usual way.
    let value = parse_with(input, limits)?;
    layout_of_read(input, &value, limits)
}

/// [`object_layout`] for an input already read strictly into `value`.
pub(crate) fn layout_of_read(input: &[u8], value: &Value, limits: &Limits) -> Result<ObjectLayout, Error> {
    if !matches!(value, Value::Object(_)) {
        return Err(Error::new(
            ErrorCode::TypeMismatch,
            format!("the document must be a JSON object, found {}", value.type_name()),
        )
        .at(""));
    }
    let text = std::str::from_utf8(input).map_err(|_| Error::new(ErrorCode::InvalidJson, "invalid UTF-8"))?;
    let mut p = Parser {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        max_depth: limits.max_depth,
        stop_at: usize::MAX,
        members: Vec::new(),
        items: Vec::new(),
    };
    let fail = |e: PErr| e.finish();
    p.skip_ws();
    let open = p.pos;
    p.pos += 1;
    let mut members = Vec::new();
    p.skip_ws();
    if p.bytes.get(p.pos) == Some(&b'}') {
        return Ok(ObjectLayout {
            open,
            members,
            close: p.pos,
        });
    }
    loop {
        p.skip_ws();
        let start = p.pos;
        let name = p.string().map_err(fail)?;
        p.skip_ws();
        p.pos += 1; // ':'
        p.skip_ws();
        let vstart = p.pos;
        p.value(1).map_err(fail)?;
        members.push(MemberSpan {
            name,
            start,
            value: vstart..p.pos,
        });
        p.skip_ws();
        match p.bytes.get(p.pos) {
            Some(b',') => p.pos += 1,
            _ => {
                return Ok(ObjectLayout {
                    open,
                    members,
                    close: p.pos,
                })
            }
        }
    }
}

/// Writes a value as compact JSON keeping the members in their order (not canonical: use
/// [`crate::jcs::write_value`] for that).
pub fn write_compact(out: &mut Vec<u8>, v: &Value) {
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
                crate::jcs::write_string(out, k);
                out.push(b':');
                write_compact(out, item);
            }
            out.push(b'}');
        }
        other => crate::jcs::write_value(out, other),
    }
}

#[cfg(test)]
mod tests {
    use super::scan_plain;

    fn naive(bytes: &[u8], pos: usize) -> usize {
        bytes
            .iter()
            .skip(pos)
            .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
            .map_or(bytes.len(), |i| pos + i)
    }

    /// The word-at-a-time scan finds the same byte as a plain loop: every stop byte at every
    /// position, among fillers next to the stop values (0x1F/0x20, '!' and '#' beside '"',
    /// '[' and ']' beside '\\', bytes with the high bit set), from every start offset.
    #[test]
    fn scan_plain_matches_a_byte_loop() {
        let fillers = [
            b'a', 0x20, b'!', b'#', b'[', b']', 0x7F, 0x80, 0xA2, 0xDC, 0xFF, 0xE2,
        ];
        let stops: Vec<u8> = (0u8..0x20).chain([b'"', b'\\']).collect();
        for len in 0..40 {
            for &fill in &fillers {
                let plain = vec![fill; len];
                for start in 0..=len {
                    assert_eq!(scan_plain(&plain, start), naive(&plain, start));
                }
                for at in 0..len {
                    for &stop in &stops {
                        let mut bytes = plain.clone();
                        bytes[at] = stop;
                        // A second stop later must not hide or precede the first.
                        if at + 3 < len {
                            bytes[at + 3] = b'"';
                        }
                        for start in 0..=len {
                            assert_eq!(
                                scan_plain(&bytes, start),
                                naive(&bytes, start),
                                "fill {fill:#x} stop {stop:#x} at {at} start {start} len {len}"
                            );
                        }
                    }
                }
            }
        }
    }
}
