//! The strict I-JSON reader (RFC 8259 syntax, RFC 7493 restrictions): the one reader of every
//! document the library handles.
//!
//! Everything that reaches canonicalization or signature checking is read here first, so one
//! set of rules decides what a document is: no duplicate member names (compared after
//! unescaping), no lone surrogates, no invalid UTF-8, no byte-order mark, no trailing data,
//! no number that overflows a double, no number whose canonical spelling would mean another
//! value past +-(2^53-1) (see [`super::number`]), bounded nesting and size.
//! Errors carry the JSON Pointer of the member where the problem lies and the byte offset.
//! The reader fills a [`Doc`]; [`super::value`] builds an owned tree from one.

use super::doc::{span_str, Doc, Node, RootLayout, Span, MAX_DOC_BYTES};
use super::number::{decimal_is_zero, is_jcs_spelling, jcs_spelling, same_decimal, MAX_SAFE_INTEGER};
use super::scan::scan_plain;
use crate::error::{check_count, pointer_token, Error, ErrorCode};

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

/// The largest [`Limits::max_input_bytes`] an interface accepts: 1 GiB (see [`Limits::check`]).
pub const MAX_INPUT_BYTES_LIMIT: usize = 1024 * 1024 * 1024;

/// How the reader's messages may speak of the input.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Quoting {
    /// Messages quote what they refuse (a character, a number, a member name), and the JSON
    /// Pointer names every member on the way.
    Input,
    /// Key text (a JWK, a JWK Set, a trust store), which may hold private key material: no
    /// message quotes the input, they say what is wrong in words ("a number out of range"), with
    /// the code, the byte offset and the JSON Pointer. A member name is in the pointer only when
    /// `shown` accepts it (a name the key formats define, public whatever the key): in text that
    /// is not JSON, what reads as a member name may be a piece of the key (a `d` value whose
    /// `"d":` was lost), so the pointer stops at the object that holds any other name.
    Never {
        /// True for a member name that may be shown.
        shown: fn(&str) -> bool,
    },
}

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

impl Limits {
    /// The bounds of limits a caller chooses: `max_input_bytes` from 1 to
    /// [`MAX_INPUT_BYTES_LIMIT`] and `max_depth` from 1 to [`MAX_DEPTH_LIMIT`], each refused
    /// otherwise with `usage` naming the option. [`Doc::parse`] (and so every function that
    /// reads a document) applies it before reading a byte; front ends call it when they build
    /// their options, to refuse them up front.
    ///
    /// ```
    /// use a2a_card::Limits;
    /// assert!(Limits::default().check().is_ok());
    /// let big = Limits { max_input_bytes: 1 << 40, ..Default::default() };
    /// assert_eq!(big.check().unwrap_err().message(),
    ///            "max_input_bytes must be 1 to 1073741824, got 1099511627776");
    /// let flat = Limits { max_depth: 0, ..Default::default() };
    /// assert_eq!(flat.check().unwrap_err().message(), "max_depth must be 1 to 512, got 0");
    /// ```
    pub fn check(&self) -> Result<(), Error> {
        check_count("max_input_bytes", self.max_input_bytes, 1, MAX_INPUT_BYTES_LIMIT)?;
        check_count("max_depth", self.max_depth, 1, MAX_DEPTH_LIMIT)
    }
}

impl<'a> Doc<'a> {
    /// Reads one JSON document with the given limits (the strict I-JSON rules of this module).
    pub fn parse(input: &'a [u8], limits: &Limits) -> Result<Doc<'a>, Error> {
        Doc::parse_quoting(input, limits, Quoting::Input)
    }

    /// [`Doc::parse`] whose messages speak of the input as `quoting` allows.
    pub(crate) fn parse_quoting(
        input: &'a [u8],
        limits: &Limits,
        quoting: Quoting,
    ) -> Result<Doc<'a>, Error> {
        // Every reader, in every package, applies the same bounds to the limits it is given
        // (a deeper nesting limit could exhaust the stack).
        limits.check()?;
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
        if input.is_empty() {
            // Said plainly: an empty file or body is a common mistake, not a truncated document.
            return Err(Error::new(ErrorCode::InvalidJson, "the input is empty (0 bytes)")
                .at("")
                .at_offset(0));
        }
        if input.starts_with(&[0xEF, 0xBB, 0xBF]) {
            return Err(Error::new(
                ErrorCode::InvalidJson,
                "the input starts with a UTF-8 byte-order mark, which I-JSON forbids",
            )
            .at("")
            .at_offset(0));
        }
        let text = match utf8(input) {
            Ok(t) => t,
            Err(e) => {
                let offset = e.valid_up_to();
                let mut err = Error::new(ErrorCode::InvalidJson, format!("invalid UTF-8 at byte {offset}"))
                    .at_offset(offset);
                // Locate the member for the pointer by reading the valid prefix, best effort.
                if let Some(p) = pointer_at_offset(input.get(..offset).unwrap_or_default(), limits, quoting) {
                    err = err.at(p);
                }
                return Err(err);
            }
        };
        let mut p = Parser::new(text, limits.max_depth, usize::MAX, quoting);
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
}

/// The input as text, checked by `simdutf8` (vector instructions: chosen at run time natively,
/// WebAssembly SIMD in the npm package; a fraction of the standard library's cost on text that
/// is mostly not ASCII). The standard library is asked only where the input is invalid, for
/// the offset of the first bad byte.
#[inline]
fn utf8(input: &[u8]) -> Result<&str, std::str::Utf8Error> {
    if let Ok(text) = simdutf8::basic::from_utf8(input) {
        return Ok(text);
    }
    std::str::from_utf8(input)
}

/// For an input that is cut short at an invalid UTF-8 sequence: the pointer of the member
/// being read at that point.
pub(super) fn pointer_at_offset(prefix: &[u8], limits: &Limits, quoting: Quoting) -> Option<String> {
    let text = std::str::from_utf8(prefix).ok()?;
    let mut p = Parser::new(text, limits.max_depth, prefix.len(), quoting);
    p.skip_ws();
    match p.value(0) {
        Err(e) if e.truncated => Some(e.finish().pointer().unwrap_or("").to_string()),
        _ => None,
    }
}

/// An error travelling up the parse: the pointer segments are collected in reverse order as
/// the recursion unwinds, so the happy path pays nothing for pointers. Boxed, so that a
/// `Result` of the reader is no larger than its value.
pub(super) type PErr = Box<PErrInner>;

/// The contents of a [`PErr`].
pub(super) struct PErrInner {
    pub(super) code: ErrorCode,
    pub(super) message: String,
    pub(super) offset: usize,
    pub(super) segments: Vec<String>,
    pub(super) truncated: bool,
}

impl PErrInner {
    pub(super) fn finish(mut self) -> Error {
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
    pub(super) fn within(mut self: Box<Self>, segment: String) -> Box<Self> {
        self.segments.push(segment);
        self
    }
    /// [`Self::within`] the member `name` of an object: with [`Quoting::Never`], a name it
    /// does not show cuts the pointer there (the deeper segments go; the outer ones, pushed
    /// as the recursion unwinds, make the pointer of the object that holds the member).
    pub(super) fn within_member(mut self: Box<Self>, name: &str, quoting: Quoting) -> Box<Self> {
        match quoting {
            Quoting::Never { shown } if !shown(name) => {
                self.segments.clear();
                self
            }
            _ => self.within(pointer_token(name)),
        }
    }
}

pub(super) struct Parser<'a> {
    pub(super) text: &'a str,
    pub(super) bytes: &'a [u8],
    pub(super) pos: usize,
    pub(super) max_depth: usize,
    pub(super) stop_at: usize,
    /// Members of the objects being read, innermost last: each object collects its members
    /// here and moves them to the end of `out_members` when it closes, so every object's
    /// members are contiguous there and no container allocates on its own.
    pub(super) members: Vec<(Span, Node)>,
    /// Items of the arrays being read, the same way.
    pub(super) items: Vec<Node>,
    /// The members of every object read (see [`Doc`]).
    pub(super) out_members: Vec<(Span, Node)>,
    /// The items of every array read.
    pub(super) out_items: Vec<Node>,
    /// The strings with escapes, unescaped.
    pub(super) unescaped: String,
    /// The layout of the top-level object, filled while it is read.
    pub(super) layout: Option<RootLayout>,
    /// How messages may speak of the input.
    pub(super) quoting: Quoting,
}

impl<'a> Parser<'a> {
    pub(super) fn new(text: &'a str, max_depth: usize, stop_at: usize, quoting: Quoting) -> Parser<'a> {
        Parser {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            max_depth,
            stop_at,
            // Sized from the input (an Agent Card holds a member per 50 to 70 bytes and an item
            // per 60 to 90), so that a card of a few kilobytes grows none of them; at most
            // 65,536 entries each up front (1.5 and 1 MB), so that a large input that is mostly
            // one string does not reserve memory it will not use (WebAssembly commits it).
            members: Vec::with_capacity(if text.len() < 2048 { 0 } else { 32 }),
            items: Vec::with_capacity(if text.len() < 2048 { 0 } else { 32 }),
            out_members: Vec::with_capacity((text.len() / 48).min(1 << 16)),
            out_items: Vec::with_capacity((text.len() / 64).min(1 << 16)),
            unescaped: String::new(),
            layout: None,
            quoting,
        }
    }

    /// True when messages may quote the input.
    fn quotes(&self) -> bool {
        matches!(self.quoting, Quoting::Input)
    }

    /// A message that quotes the input when that is allowed, else one that says it in words.
    fn said(&self, quoted: impl FnOnce() -> String, in_words: &str) -> String {
        if self.quotes() {
            quoted()
        } else {
            in_words.to_string()
        }
    }

    pub(super) fn str_of(&self, s: Span) -> &str {
        span_str(self.text, &self.unescaped, s)
    }

    pub(super) fn err(&self, code: ErrorCode, message: impl Into<String>) -> PErr {
        Box::new(PErrInner {
            code,
            message: message.into(),
            offset: self.pos,
            segments: Vec::new(),
            truncated: self.pos >= self.stop_at,
        })
    }

    pub(super) fn syntax(&self, what: &str) -> PErr {
        if self.pos >= self.bytes.len() {
            let mut e = self.err(
                ErrorCode::InvalidJson,
                format!("unexpected end of input, expected {what}"),
            );
            e.truncated = true;
            e
        } else {
            let c = self.text[self.pos..].chars().next().unwrap_or('\u{FFFD}');
            let message = if self.quotes() {
                format!("unexpected character {c:?}, expected {what}")
            } else {
                format!("an unexpected character, expected {what}")
            };
            self.err(ErrorCode::InvalidJson, message)
        }
    }

    #[inline(always)]
    pub(super) fn skip_ws(&mut self) {
        while let Some(&b) = self.bytes.get(self.pos) {
            if b == b' ' || b == b'\n' || b == b'\r' || b == b'\t' {
                self.pos += 1;
                // Indentation: the spaces of the next eight bytes counted as one word (the
                // lowest byte that is not a space ends the run), eight more while all were.
                while let Some(&[a, b, c, d, e, f, g, h]) = self.bytes.get(self.pos..self.pos + 8) {
                    let other = u64::from_le_bytes([a, b, c, d, e, f, g, h]) ^ 0x2020_2020_2020_2020;
                    let spaces = (other.trailing_zeros() / 8) as usize;
                    self.pos += spaces;
                    if spaces < 8 {
                        break;
                    }
                }
            } else {
                break;
            }
        }
    }

    pub(super) fn literal(&mut self, word: &str, v: Node) -> Result<Node, PErr> {
        if self.bytes[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(v)
        } else {
            Err(self.syntax("a JSON value"))
        }
    }

    pub(super) fn value(&mut self, depth: usize) -> Result<Node, PErr> {
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

    pub(super) fn enter(&self, depth: usize) -> Result<(), PErr> {
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

    pub(super) fn object(&mut self, depth: usize) -> Result<Node, PErr> {
        self.enter(depth)?;
        if depth == 1 {
            self.layout = Some(RootLayout {
                open: self.pos,
                members: Vec::with_capacity(16),
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
    pub(super) fn close_root(&mut self, depth: usize, at: usize) {
        if let (1, Some(layout)) = (depth, self.layout.as_mut()) {
            layout.close = at;
        }
    }

    /// Reads the members of an object after its `{` onto `self.members` (from `base`), up to and
    /// including the closing `}`.
    pub(super) fn object_members(&mut self, depth: usize, base: usize) -> Result<(), PErr> {
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
                let message = self.said(
                    || format!("the member name {text:?} appears twice in one object (names are compared after unescaping)"),
                    "a member name appears twice in one object (names are compared after unescaping)",
                );
                let mut e = self.err(ErrorCode::DuplicateMember, message);
                e.offset = name_at;
                return Err(e.within_member(text, self.quoting));
            }
            self.skip_ws();
            if self.bytes.get(self.pos) != Some(&b':') {
                return Err(self
                    .syntax("':' after a member name")
                    .within_member(self.str_of(name), self.quoting));
            }
            self.pos += 1;
            self.skip_ws();
            let value_at = self.pos;
            let v = match self.value(depth) {
                Ok(v) => v,
                Err(e) => return Err(e.within_member(self.str_of(name), self.quoting)),
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

    pub(super) fn array(&mut self, depth: usize) -> Result<Node, PErr> {
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
    pub(super) fn array_items(&mut self, depth: usize, base: usize) -> Result<(), PErr> {
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

    pub(super) fn hex4(&mut self) -> Result<u32, PErr> {
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

    #[inline]
    pub(super) fn string(&mut self) -> Result<Span, PErr> {
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
        if out.capacity() == 0 {
            // The first string with escapes: room for it at once (its text is no longer than the
            // rest of the input), not the six doublings from 8 bytes that pieces of a 200-byte
            // string cost; at most 4 KiB ahead, later strings grow it as usual.
            out.reserve((self.bytes.len() - start).min(4096));
        }
        let result = self.unescape(&mut out, &mut start);
        self.unescaped = out;
        result?;
        // The unescaped text is never longer than the input.
        Ok(Span::new(at, self.unescaped.len() - at, true))
    }

    /// Reads the rest of a string with escapes onto `out`, from `start` (the first byte not yet
    /// copied) to the closing quote.
    pub(super) fn unescape(&mut self, out: &mut String, start: &mut usize) -> Result<(), PErr> {
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
                                        let message = self.said(
                                            || format!("lone surrogate \\u{hi:04X}: a high surrogate must be followed by a low one"),
                                            "a lone surrogate escape: a high surrogate must be followed by a low one",
                                        );
                                        let mut e = self.err(ErrorCode::InvalidJson, message);
                                        e.offset = at;
                                        return Err(e);
                                    }
                                    0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                                } else {
                                    let message = self.said(
                                        || format!("lone surrogate \\u{hi:04X} in a string"),
                                        "a lone surrogate escape in a string",
                                    );
                                    let mut e = self.err(ErrorCode::InvalidJson, message);
                                    e.offset = at;
                                    return Err(e);
                                }
                            } else if (0xDC00..0xE000).contains(&hi) {
                                let message = self.said(
                                    || format!("lone surrogate \\u{hi:04X} in a string"),
                                    "a lone surrogate escape in a string",
                                );
                                let mut e = self.err(ErrorCode::InvalidJson, message);
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
                            return Err(if self.quotes() {
                                self.syntax("a valid escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)")
                            } else {
                                self.err(
                                    ErrorCode::InvalidJson,
                                    "an invalid escape (valid: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)",
                                )
                            });
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

    pub(super) fn number(&mut self) -> Result<Node, PErr> {
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
                return Ok(Node::Number(if negative { -v } else { v }, true));
            }
        }
        let v: f64 = match text.parse() {
            Ok(v) => v,
            Err(_) => {
                let message = self.said(|| format!("malformed number {text}"), "a malformed number");
                return Err(self.err(ErrorCode::InvalidJson, message));
            }
        };
        if !v.is_finite() {
            let message = self.said(
                || format!("the number {text} overflows an IEEE 754 double"),
                "a number out of range: it overflows an IEEE 754 double",
            );
            let mut e = self.err(ErrorCode::NumberOutOfRange, message);
            e.offset = start;
            return Err(e);
        }
        if integer && v.abs() > MAX_SAFE_INTEGER && !is_jcs_spelling(text, v) {
            let message = self.said(
                || format!(
                    "the integer {text} lies outside the I-JSON range +-(2^53-1) and would be rounded to {}; send it as a string",
                    jcs_spelling(v)
                ),
                "a number out of range: an integer outside the I-JSON range +-(2^53-1), which would be rounded; send it as a string",
            );
            let mut e = self.err(ErrorCode::NumberOutOfRange, message);
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
                let message = if underflow {
                    self.said(
                        || format!(
                            "the number {text} is too small for an IEEE 754 double and would be written as 0; \
                             send it as a string"
                        ),
                        "a number out of range: too small for an IEEE 754 double, it would be written as 0; \
                         send it as a string",
                    )
                } else {
                    self.said(
                        || format!(
                            "the number {text} lies outside the I-JSON range +-(2^53-1) and would be rounded to {}; \
                             send it as a string",
                            jcs_spelling(v)
                        ),
                        "a number out of range: outside the I-JSON range +-(2^53-1), where it would be rounded; \
                         send it as a string",
                    )
                };
                let mut e = self.err(ErrorCode::NumberOutOfRange, message);
                e.offset = start;
                return Err(e);
            }
        }
        Ok(Node::Number(v, integer))
    }
}

/// Duplicate detection for one object: a linear scan while the object is small, a hash set of
/// name hashes once it grows, so a hostile object with many members costs linear time.
#[derive(Default)]
pub(super) struct NameIndex {
    pub(super) hashes: Option<(
        std::collections::hash_map::RandomState,
        std::collections::HashSet<u64>,
    )>,
}

impl NameIndex {
    const LINEAR_LIMIT: usize = 16;

    pub(super) fn hash(state: &std::collections::hash_map::RandomState, name: &str) -> u64 {
        use std::hash::BuildHasher;
        state.hash_one(name)
    }

    /// True when `name` is already among `members`; otherwise records it (the caller pushes it).
    pub(super) fn seen_before<'s>(
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

#[cfg(test)]
mod tests {
    use super::super::scan::scan_plain;
    use super::super::value::{parse, Value};
    use super::{Doc, Limits};

    /// The layout recorded while reading agrees with the document: each member's range reads
    /// back as that member's value, its start is its name's opening quote, and the braces are
    /// where `open` and `close` say; nested objects and arrays of objects leave it alone.
    #[test]
    pub(super) fn layout_is_where_the_members_are() {
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

    pub(super) fn naive(bytes: &[u8], pos: usize) -> usize {
        bytes
            .iter()
            .skip(pos)
            .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
            .map_or(bytes.len(), |i| pos + i)
    }

    /// The scan (sixteen bytes, then eight, then one at a time) finds the same byte as a plain
    /// loop: every stop byte at every position, among fillers next to the stop values
    /// (0x1F/0x20, '!' and '#' beside '"', '[' and ']' beside '\\', bytes with the high bit
    /// set), from every start offset, in inputs of every length up to 40.
    #[test]
    pub(super) fn scan_plain_matches_a_byte_loop() {
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
