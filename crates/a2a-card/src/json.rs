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

/// The deepest nesting [`Limits::max_depth`] may allow. Reading, canonicalizing, signing,
/// verifying, lint and migrate recurse once per level; at this depth they use under 1 MiB of
/// stack in a debug build and about a quarter of that in a release build, so they are safe on
/// any thread of 2 MiB (the default of Rust threads and tokio workers) and in WebAssembly's
/// 1 MiB stack. A larger limit is refused with `usage` before anything is read.
pub const MAX_DEPTH_LIMIT: usize = 512;

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
    /// top-level value is at depth 1 when it is an array or object. At most
    /// [`MAX_DEPTH_LIMIT`].
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
    Ok(Doc::parse(input, limits)?.to_value())
}

/// A JSON document read by the strict reader without copying it: strings without escapes are
/// borrowed from the input, and every array and object lives in two flat tables, so reading a
/// card costs a handful of allocations however large it is. The rules are exactly those of
/// [`parse_with`] (which builds its [`Value`] from a `Doc`); [`crate::canonicalize`] and
/// [`crate::verify_card`] work on a `Doc` directly.
///
/// ```
/// use a2a_card::json::{Doc, Limits, Value};
/// let doc = Doc::parse(br#"{"a":["x\u0079",1]}"#, &Limits::default()).unwrap();
/// assert_eq!(
///     doc.to_value(),
///     Value::Object(vec![("a".into(), Value::Array(vec![Value::String("xy".into()), Value::Number(1.0)]))])
/// );
/// assert_eq!(Doc::parse(b"[1,]", &Limits::default()).unwrap_err().code().as_str(), "invalid-json");
/// ```
#[derive(Debug, Clone)]
pub struct Doc<'a> {
    text: &'a str,
    root: Node,
    /// The items of every array, each array's items contiguous.
    items: Vec<Node>,
    /// The members of every object, each object's members contiguous.
    members: Vec<(Span, Node)>,
    /// The strings that had escapes, unescaped, one after the other.
    unescaped: String,
    /// Where the top-level object and its members lie in the input (`None` for another root).
    layout: Option<RootLayout>,
}

/// Where a top-level object lies in the input, recorded while it is read (see [`Doc::layout`]).
#[derive(Debug, Clone, Default)]
struct RootLayout {
    open: usize,
    /// Each member's name, the offset of its name's opening quote, and its value's byte range.
    members: Vec<(Span, usize, std::ops::Range<usize>)>,
    close: usize,
}

/// Where a string of a [`Doc`] lies: in the input (no escapes) or in its unescaped text.
///
/// Eight bytes, the flag in the length's top bit: a `bool` field would make the node an odd
/// size and every string read would pay a misaligned copy.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Span {
    start: u32,
    /// The length in bytes; the top bit set when the text is in the unescaped strings.
    len_owned: u32,
}

/// The largest input a [`Doc`] holds (its offsets are 31 bits).
const MAX_DOC_BYTES: usize = 0x7FFF_FFFF;

impl Span {
    const OWNED: u32 = 1 << 31;

    /// Offsets below [`MAX_DOC_BYTES`], which `Doc::parse` guarantees.
    #[inline]
    fn new(start: usize, len: usize, owned: bool) -> Span {
        #[allow(clippy::cast_possible_truncation)]
        Span {
            start: start as u32,
            len_owned: (len as u32 & !Span::OWNED) | if owned { Span::OWNED } else { 0 },
        }
    }

    /// The length of the text in bytes.
    #[inline]
    fn len(self) -> usize {
        (self.len_owned & !Span::OWNED) as usize
    }

    #[inline]
    fn owned(self) -> bool {
        self.len_owned & Span::OWNED != 0
    }
}

/// One value of a [`Doc`]; containers point into its tables.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Node {
    Null,
    Bool(bool),
    Number(f64),
    Str(Span),
    Array { first: u32, len: u32 },
    Object { first: u32, len: u32 },
}

impl<'a> Doc<'a> {
    /// Reads one JSON document with the given limits (the rules of [`parse_with`]).
    pub fn parse(input: &'a [u8], limits: &Limits) -> Result<Doc<'a>, Error> {
        if limits.max_depth > MAX_DEPTH_LIMIT {
            return Err(Error::new(
                ErrorCode::Usage,
                format!(
                    "a nesting limit of {} is more than the library allows ({MAX_DEPTH_LIMIT}: deeper \
                     documents could exhaust the stack)",
                    limits.max_depth
                ),
            ));
        }
        if input.len() > limits.max_input_bytes.min(MAX_DOC_BYTES) {
            return Err(Error::new(
                ErrorCode::InputTooLarge,
                format!(
                    "the input is {} bytes, more than the limit of {} bytes",
                    input.len(),
                    limits.max_input_bytes.min(MAX_DOC_BYTES)
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
                if let Some(p) = pointer_at_offset(input.get(..offset).unwrap_or_default(), limits) {
                    err = err.at(p);
                }
                return Err(err);
            }
        };
        let mut p = Parser::new(text, limits.max_depth, usize::MAX);
        p.skip_ws();
        let root = p.value(0).map_err(|e| e.finish())?;
        p.skip_ws();
        if p.pos != p.bytes.len() {
            return Err(
                Error::new(ErrorCode::InvalidJson, "unexpected data after the JSON value")
                    .at("")
                    .at_offset(p.pos),
            );
        }
        Ok(Doc {
            text,
            root,
            items: p.out_items,
            members: p.out_members,
            unescaped: p.unescaped,
            layout: p.layout,
        })
    }

    /// Where each top-level member lies in the input, so a writer can change one member and leave
    /// every other byte as it was (recorded while reading: no second pass over the input).
    ///
    /// ```
    /// use a2a_card::json::{Doc, Limits};
    /// let doc = Doc::parse(br#" {"a": 1, "b": [2]} "#, &Limits::default()).unwrap();
    /// let l = doc.layout().unwrap();
    /// assert_eq!((l.open, l.close), (1, 18));
    /// assert_eq!(l.members[1].name, "b");
    /// assert_eq!(l.members[1].value, 15..18);
    /// let top = Doc::parse(b"[1]", &Limits::default()).unwrap();
    /// assert_eq!(top.layout().unwrap_err().code().as_str(), "type-mismatch");
    /// ```
    pub fn layout(&self) -> Result<ObjectLayout, Error> {
        let Some(layout) = &self.layout else {
            return Err(Error::new(
                ErrorCode::TypeMismatch,
                format!(
                    "the document must be a JSON object, found {}",
                    self.root().shape().type_name()
                ),
            )
            .at(""));
        };
        Ok(ObjectLayout {
            open: layout.open,
            members: layout
                .members
                .iter()
                .map(|(name, start, value)| MemberSpan {
                    name: self.str_of(*name).to_owned(),
                    start: *start,
                    value: value.clone(),
                })
                .collect(),
            close: layout.close,
        })
    }

    /// The document as an owned [`Value`] tree.
    pub fn to_value(&self) -> Value {
        self.value_of(self.root)
    }

    fn value_of(&self, node: Node) -> Value {
        match node {
            Node::Null => Value::Null,
            Node::Bool(b) => Value::Bool(b),
            Node::Number(n) => Value::Number(n),
            Node::Str(s) => Value::String(self.str_of(s).to_owned()),
            Node::Array { first, len } => Value::Array(
                self.items
                    .get(first as usize..first as usize + len as usize)
                    .unwrap_or_default()
                    .iter()
                    .map(|&n| self.value_of(n))
                    .collect(),
            ),
            Node::Object { first, len } => Value::Object(
                self.members
                    .get(first as usize..first as usize + len as usize)
                    .unwrap_or_default()
                    .iter()
                    .map(|&(k, n)| (self.str_of(k).to_owned(), self.value_of(n)))
                    .collect(),
            ),
        }
    }

    fn str_of(&self, s: Span) -> &str {
        span_str(self.text, &self.unescaped, s)
    }

    /// The top-level value, for the walks shared with [`Value`].
    pub(crate) fn root(&self) -> DocNode<'_> {
        DocNode {
            doc: self,
            node: self.root,
        }
    }
}

/// The text of a span: in the input, or in the unescaped strings.
#[inline]
fn span_str<'t>(text: &'t str, unescaped: &'t str, s: Span) -> &'t str {
    let start = s.start as usize;
    let range = start..start + s.len();
    if s.owned() {
        unescaped.get(range).unwrap_or_default()
    } else {
        text.get(range).unwrap_or_default()
    }
}

/// A value of a [`Doc`] with the document it belongs to.
#[derive(Clone, Copy)]
pub(crate) struct DocNode<'t> {
    doc: &'t Doc<'t>,
    node: Node,
}

/// What a JSON value is, seen through [`Tree`].
#[derive(Clone, Copy)]
pub(crate) enum Shape<'t> {
    Null,
    Bool(bool),
    Number(f64),
    /// A string, and whether it is known to need no escape when written (see
    /// [`crate::jcs::write_text`]).
    Str(&'t str, bool),
    /// An array with this many items.
    Array(usize),
    /// An object with this many members.
    Object(usize),
}

impl Shape<'_> {
    /// The JSON type name, as used in error messages.
    pub(crate) fn type_name(self) -> &'static str {
        match self {
            Shape::Null => "null",
            Shape::Bool(_) => "boolean",
            Shape::Number(_) => "number",
            Shape::Str(..) => "string",
            Shape::Array(_) => "array",
            Shape::Object(_) => "object",
        }
    }
}

/// A read-only view of a JSON value, implemented by the owned [`Value`] tree and by a borrowed
/// [`Doc`], so the presence rules and the RFC 8785 writer are written once for both.
pub(crate) trait Tree<'t>: Copy {
    /// What the value is.
    fn shape(self) -> Shape<'t>;
    /// Item `i` of an array.
    fn item(self, i: usize) -> Option<Self>;
    /// Member `i` of an object, in input order.
    fn member(self, i: usize) -> Option<(&'t str, Self)>;
    /// True for `null`.
    fn is_null(self) -> bool {
        matches!(self.shape(), Shape::Null)
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

impl<'t> Tree<'t> for DocNode<'t> {
    #[inline]
    fn shape(self) -> Shape<'t> {
        match self.node {
            Node::Null => Shape::Null,
            Node::Bool(b) => Shape::Bool(b),
            Node::Number(n) => Shape::Number(n),
            // A string without escapes in the input has no quote, backslash or control
            // character: exactly the ones RFC 8785 escapes.
            Node::Str(s) => Shape::Str(self.doc.str_of(s), !s.owned()),
            Node::Array { len, .. } => Shape::Array(len as usize),
            Node::Object { len, .. } => Shape::Object(len as usize),
        }
    }
    #[inline]
    fn item(self, i: usize) -> Option<Self> {
        match self.node {
            Node::Array { first, len } if i < len as usize => self
                .doc
                .items
                .get(first as usize + i)
                .map(|&node| DocNode { doc: self.doc, node }),
            _ => None,
        }
    }
    #[inline]
    fn member(self, i: usize) -> Option<(&'t str, Self)> {
        match self.node {
            Node::Object { first, len } if i < len as usize => self
                .doc
                .members
                .get(first as usize + i)
                .map(|&(k, node)| (self.doc.str_of(k), DocNode { doc: self.doc, node })),
            _ => None,
        }
    }
}

impl<'t> DocNode<'t> {
    /// The value as an owned [`Value`] tree.
    pub(crate) fn to_value(self) -> Value {
        self.doc.value_of(self.node)
    }
}

/// The member of an object named `name`.
pub(crate) fn tree_get<'t, N: Tree<'t>>(node: N, name: &str) -> Option<N> {
    let Shape::Object(len) = node.shape() else {
        return None;
    };
    (0..len)
        .filter_map(|i| node.member(i))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
}

/// For an input that is cut short at an invalid UTF-8 sequence: the pointer of the member
/// being read at that point.
fn pointer_at_offset(prefix: &[u8], limits: &Limits) -> Option<String> {
    let text = std::str::from_utf8(prefix).ok()?;
    let mut p = Parser::new(text, limits.max_depth, prefix.len());
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
    /// here and moves them to the end of `out_members` when it closes, so every object's
    /// members are contiguous there and no container allocates on its own.
    members: Vec<(Span, Node)>,
    /// Items of the arrays being read, the same way.
    items: Vec<Node>,
    /// The members of every object read (see [`Doc`]).
    out_members: Vec<(Span, Node)>,
    /// The items of every array read.
    out_items: Vec<Node>,
    /// The strings with escapes, unescaped.
    unescaped: String,
    /// The layout of the top-level object, filled while it is read.
    layout: Option<RootLayout>,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str, max_depth: usize, stop_at: usize) -> Parser<'a> {
        Parser {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            max_depth,
            stop_at,
            members: Vec::new(),
            items: Vec::new(),
            out_members: Vec::new(),
            out_items: Vec::new(),
            unescaped: String::new(),
            layout: None,
        }
    }

    fn str_of(&self, s: Span) -> &str {
        span_str(self.text, &self.unescaped, s)
    }

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

    fn literal(&mut self, word: &str, v: Node) -> Result<Node, PErr> {
        if self.bytes[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(v)
        } else {
            Err(self.syntax("a JSON value"))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Node, PErr> {
        match self.bytes.get(self.pos) {
            Some(b'{') => self.object(depth + 1),
            Some(b'[') => self.array(depth + 1),
            Some(b'"') => self.string().map(Node::Str),
            Some(b't') => self.literal("true", Node::Bool(true)),
            Some(b'f') => self.literal("false", Node::Bool(false)),
            Some(b'n') => self.literal("null", Node::Null),
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

    fn object(&mut self, depth: usize) -> Result<Node, PErr> {
        self.enter(depth)?;
        if depth == 1 {
            self.layout = Some(RootLayout {
                open: self.pos,
                ..RootLayout::default()
            });
        }
        self.pos += 1; // '{'
        self.skip_ws();
        if self.bytes.get(self.pos) == Some(&b'}') {
            self.close_root(depth, self.pos);
            self.pos += 1;
            return Ok(Node::Object { first: 0, len: 0 });
        }
        let base = self.members.len();
        let result = self.object_members(depth, base);
        match result {
            Ok(()) => {
                // `object_members` stopped right after the closing '}'.
                self.close_root(depth, self.pos - 1);
                // Both counts are below the input length, which `Doc::parse` keeps below 2^31.
                let first = self.out_members.len() as u32;
                let len = (self.members.len() - base) as u32;
                self.out_members.extend(self.members.drain(base..));
                Ok(Node::Object { first, len })
            }
            Err(e) => {
                self.members.truncate(base);
                Err(e)
            }
        }
    }

    /// For the top-level object (`depth` 1): records the offset `at` of its closing `}`.
    fn close_root(&mut self, depth: usize, at: usize) {
        if let (1, Some(layout)) = (depth, self.layout.as_mut()) {
            layout.close = at;
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
            let dup = index.seen_before(
                self.members.get(base..).unwrap_or_default(),
                self.str_of(name),
                |s| self.str_of(s),
            );
            if dup {
                let text = self.str_of(name);
                let mut e = self.err(
                    ErrorCode::DuplicateMember,
                    format!("the member name {text:?} appears twice in one object (names are compared after unescaping)"),
                );
                e.offset = name_at;
                return Err(e.within(pointer_token(text)));
            }
            self.skip_ws();
            if self.bytes.get(self.pos) != Some(&b':') {
                return Err(self
                    .syntax("':' after a member name")
                    .within(pointer_token(self.str_of(name))));
            }
            self.pos += 1;
            self.skip_ws();
            let value_at = self.pos;
            let v = match self.value(depth) {
                Ok(v) => v,
                Err(e) => return Err(e.within(pointer_token(self.str_of(name)))),
            };
            if let (1, Some(layout)) = (depth, self.layout.as_mut()) {
                layout.members.push((name, name_at, value_at..self.pos));
            }
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

    fn array(&mut self, depth: usize) -> Result<Node, PErr> {
        self.enter(depth)?;
        self.pos += 1; // '['
        self.skip_ws();
        if self.bytes.get(self.pos) == Some(&b']') {
            self.pos += 1;
            return Ok(Node::Array { first: 0, len: 0 });
        }
        let base = self.items.len();
        match self.array_items(depth, base) {
            Ok(()) => {
                // As for objects: both counts are below the input length.
                let first = self.out_items.len() as u32;
                let len = (self.items.len() - base) as u32;
                self.out_items.extend(self.items.drain(base..));
                Ok(Node::Array { first, len })
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

    fn string(&mut self) -> Result<Span, PErr> {
        self.pos += 1; // opening quote
        let mut start = self.pos;
        // The common case: no escape before the closing quote, the string is borrowed.
        self.pos = scan_plain(self.bytes, self.pos);
        if self.bytes.get(self.pos) == Some(&b'"') {
            let span = Span::new(start, self.pos - start, false);
            self.pos += 1;
            return Ok(span);
        }
        let at = self.unescaped.len();
        let mut out = std::mem::take(&mut self.unescaped);
        let result = self.unescape(&mut out, &mut start);
        self.unescaped = out;
        result?;
        // The unescaped text is never longer than the input.
        Ok(Span::new(at, self.unescaped.len() - at, true))
    }

    /// Reads the rest of a string with escapes onto `out`, from `start` (the first byte not yet
    /// copied) to the closing quote.
    fn unescape(&mut self, out: &mut String, start: &mut usize) -> Result<(), PErr> {
        loop {
            // Fast scan to the next quote, backslash or control character.
            self.pos = scan_plain(self.bytes, self.pos);
            match self.bytes.get(self.pos) {
                None => return Err(self.syntax("the closing '\"' of a string")),
                Some(b'"') => {
                    out.push_str(self.text.get(*start..self.pos).unwrap_or_default());
                    self.pos += 1;
                    return Ok(());
                }
                Some(b'\\') => {
                    out.push_str(self.text.get(*start..self.pos).unwrap_or_default());
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
                    *start = self.pos;
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

    fn number(&mut self) -> Result<Node, PErr> {
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
                return Ok(Node::Number(if negative { -v } else { v }));
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
        if !integer {
            // Past +-(2^53-1) doubles lie more than 1 apart, and a number too small for a double
            // reads as 0: in both cases the canonical text could stand for another served
            // value. Accept the number only when its canonical spelling means exactly what was
            // served. (Below 2^53, digits past a double's precision round as RFC 8785 defines,
            // as in its own example 333333333.33333329 -> 333333333.3333333.)
            let underflow = v == 0.0 && !decimal_is_zero(text);
            if underflow || (v.abs() > MAX_SAFE_INTEGER && !same_decimal(text, &jcs_spelling(v))) {
                let mut e = self.err(
                    ErrorCode::NumberOutOfRange,
                    if underflow {
                        format!(
                            "the number {text} is too small for an IEEE 754 double and would be written as 0; \
                             send it as a string"
                        )
                    } else {
                        format!(
                            "the number {text} lies outside the I-JSON range +-(2^53-1) and would be rounded to {}; \
                             send it as a string",
                            jcs_spelling(v)
                        )
                    },
                );
                e.offset = start;
                return Err(e);
            }
        }
        Ok(Node::Number(v))
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
/// character (or `bytes.len()`). Sixteen bytes are tested at a time with no branch inside the
/// block, which the compiler turns into vector compares; in the block that holds a stop byte,
/// [`word_stops`] finds it without a loop. Fewer than sixteen bytes left are tested one by one.
#[inline]
pub(crate) fn scan_plain(bytes: &[u8], mut pos: usize) -> usize {
    const BLOCK: usize = 16;
    while let Some(chunk) = bytes.get(pos..pos + BLOCK) {
        let mut hit = false;
        for &b in chunk {
            hit |= (b < 0x20) | (b == b'"') | (b == b'\\');
        }
        if hit {
            let (lo, hi) = chunk.split_at(8);
            let lo = word_stops(lo);
            return if lo != 0 {
                pos + (lo.trailing_zeros() / 8) as usize
            } else {
                pos + 8 + (word_stops(hi).trailing_zeros() / 8) as usize
            };
        }
        pos += BLOCK;
    }
    while let Some(&b) = bytes.get(pos) {
        if STRING_STOP[usize::from(b)] {
            break;
        }
        pos += 1;
    }
    pos
}

/// For eight bytes (little-endian): a word whose byte `i` has its high bit set when byte `i` is
/// a quote, a backslash or a control character. A byte after the first such byte may also be
/// flagged, never one before it, so the lowest flag is exact; zero means none.
#[inline]
fn word_stops(chunk: &[u8]) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut word = [0u8; 8];
    if let Some(src) = chunk.get(..8) {
        word.copy_from_slice(src);
    }
    let w = u64::from_le_bytes(word);
    let below = w.wrapping_sub(ONES * 0x20);
    let quote = (w ^ (ONES * u64::from(b'"'))).wrapping_sub(ONES);
    let quote_neg = !(w ^ (ONES * u64::from(b'"')));
    let bslash = (w ^ (ONES * u64::from(b'\\'))).wrapping_sub(ONES);
    let bslash_neg = !(w ^ (ONES * u64::from(b'\\')));
    ((below & !w) | (quote & quote_neg) | (bslash & bslash_neg)) & HIGH
}

/// The RFC 8785 text of a finite double.
fn jcs_spelling(v: f64) -> String {
    let mut out = Vec::new();
    crate::jcs::write_number(&mut out, v);
    String::from_utf8(out).unwrap_or_default()
}

/// True when a JSON number's text denotes zero (every digit of its mantissa is 0).
fn decimal_is_zero(text: &str) -> bool {
    let mantissa = text.split(['e', 'E']).next().unwrap_or(text);
    mantissa.bytes().all(|b| matches!(b, b'0' | b'.' | b'-'))
}

/// True when two JSON number texts denote the same decimal value.
fn same_decimal(a: &str, b: &str) -> bool {
    normalized(a) == normalized(b)
}

/// A JSON number's decimal value as (negative, significant digits, power of ten of the last
/// digit), with leading and trailing zeros removed; zero is `(false, [], 0)`. The exponent
/// saturates, so any spelling reads without overflow.
fn normalized(text: &str) -> (bool, Vec<u8>, i64) {
    let (negative, rest) = match text.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, text),
    };
    let (mantissa, exp) = match rest.find(['e', 'E']) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, ""),
    };
    let (exp_negative, exp_digits) = match exp.as_bytes().first() {
        Some(b'-') => (true, &exp[1..]),
        Some(b'+') => (false, &exp[1..]),
        _ => (false, exp),
    };
    let magnitude = exp_digits.bytes().fold(0i64, |n, d| {
        n.saturating_mul(10)
            .saturating_add(i64::from(d.wrapping_sub(b'0')))
    });
    let exp = if exp_negative { -magnitude } else { magnitude };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mut digits: Vec<u8> = int.bytes().chain(frac.bytes()).collect();
    let mut power = exp.saturating_sub(i64::try_from(frac.len()).unwrap_or(i64::MAX));
    while digits.last() == Some(&b'0') {
        digits.pop();
        power = power.saturating_add(1);
    }
    let lead = digits.iter().take_while(|&&d| d == b'0').count();
    digits.drain(..lead);
    if digits.is_empty() {
        return (false, digits, 0);
    }
    (negative, digits, power)
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
    fn seen_before<'s>(
        &mut self,
        members: &[(Span, Node)],
        name: &str,
        text_of: impl Fn(Span) -> &'s str,
    ) -> bool {
        if members.len() < Self::LINEAR_LIMIT {
            // Lengths first: most names of an object differ in length.
            return members
                .iter()
                .any(|&(k, _)| k.len() == name.len() && text_of(k) == name);
        }
        let (state, hashes) = self.hashes.get_or_insert_with(|| {
            let state = std::collections::hash_map::RandomState::new();
            let hashes = members
                .iter()
                .map(|&(k, _)| Self::hash(&state, text_of(k)))
                .collect();
            (state, hashes)
        });
        if hashes.insert(Self::hash(state, name)) {
            false
        } else {
            members.iter().any(|&(k, _)| text_of(k) == name)
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
    Doc::parse(input, limits)?.layout()
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
    use super::{parse, scan_plain, Doc, Limits, Value};

    /// The layout recorded while reading agrees with the document: each member's range reads
    /// back as that member's value, its start is its name's opening quote, and the braces are
    /// where `open` and `close` say; nested objects and arrays of objects leave it alone.
    #[test]
    fn layout_is_where_the_members_are() {
        let inputs: [&[u8]; 5] = [
            b"{}",
            b" { } ",
            br#"{"a":1}"#,
            b"{\n  \"n\\u0061me\" : {\"x\":{}} ,\n  \"s\":[{\"y\":2},[]],\"t\":\"}\"\n}\n",
            br#"{"signatures":[{"protected":"e30","signature":"x"}],"z":null}"#,
        ];
        for input in inputs {
            let doc = Doc::parse(input, &Limits::default()).unwrap();
            let l = doc.layout().unwrap();
            assert_eq!(input[l.open], b'{');
            assert_eq!(input[l.close], b'}');
            assert!(input[l.close + 1..].iter().all(u8::is_ascii_whitespace));
            let Value::Object(members) = doc.to_value() else {
                panic!()
            };
            assert_eq!(l.members.len(), members.len());
            for (span, (name, value)) in l.members.iter().zip(&members) {
                assert_eq!(&span.name, name);
                assert_eq!(input[span.start], b'"');
                assert_eq!(&parse(&input[span.value.clone()]).unwrap(), value);
            }
        }
    }

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
