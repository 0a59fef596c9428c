//! A document read by the strict reader ([`Doc`]: strings borrowed from the input, containers
//! in two flat tables) and the read-only view ([`Tree`]) that the presence rules and the RFC 8785
//! writer walk, implemented by a [`Doc`] and by the owned [`super::value::Value`].

use crate::error::{Error, ErrorCode};

/// A JSON document read by the strict reader without copying it: strings without escapes are
/// borrowed from the input, and every array and object lives in two flat tables, so reading a
/// card costs a handful of allocations however large it is. The rules are exactly those of
/// the reader (the owned values the library builds for small documents come from a `Doc` too);
/// [`crate::canonicalize`] and [`crate::verify_card`] work on a `Doc` directly. Read a card once
/// into a `Doc` to canonicalize it under several profiles ([`crate::canonicalize_doc`]).
///
/// ```
/// use a2a_card::{Doc, Limits};
/// let doc = Doc::parse(br#"{"a":["x\u0079",1]}"#, &Limits::default()).unwrap();
/// assert_eq!(a2a_card::canonical::jcs(br#"{"a":["x\u0079",1]}"#).unwrap(), br#"{"a":["xy",1]}"#);
/// assert_eq!(doc.layout().unwrap().members[0].name, "a");
/// assert_eq!(Doc::parse(b"[1,]", &Limits::default()).unwrap_err().code().as_str(), "invalid-json");
/// ```
#[derive(Debug, Clone)]
pub struct Doc<'a> {
    pub(super) text: &'a str,
    pub(super) root: Node,
    /// The items of every array, each array's items contiguous.
    pub(super) items: Vec<Node>,
    /// The members of every object, each object's members contiguous.
    pub(super) members: Vec<(Span, Node)>,
    /// The strings that had escapes, unescaped, one after the other.
    pub(super) unescaped: String,
    /// Where the top-level object and its members lie in the input (`None` for another root).
    pub(super) layout: Option<RootLayout>,
}

/// Where a top-level object lies in the input, recorded while it is read (see [`Doc::layout`]).
#[derive(Debug, Clone, Default)]
pub(super) struct RootLayout {
    pub(super) open: usize,
    /// Each member's name, the offset of its name's opening quote, and its value's byte range.
    pub(super) members: Vec<(Span, usize, std::ops::Range<usize>)>,
    pub(super) close: usize,
}

/// Where a string of a [`Doc`] lies: in the input (no escapes) or in its unescaped text.
///
/// Eight bytes, the flag in the length's top bit: a `bool` field would make the node an odd
/// size and every string read would pay a misaligned copy.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Span {
    pub(super) start: u32,
    /// The length in bytes; the top bit set when the text is in the unescaped strings.
    pub(super) len_owned: u32,
}

/// The largest input a [`Doc`] holds (its offsets are 31 bits).
pub(super) const MAX_DOC_BYTES: usize = 0x7FFF_FFFF;

impl Span {
    const OWNED: u32 = 1 << 31;

    /// Offsets below [`MAX_DOC_BYTES`], which `Doc::parse` guarantees.
    #[inline]
    pub(super) fn new(start: usize, len: usize, owned: bool) -> Span {
        #[allow(clippy::cast_possible_truncation)]
        Span {
            start: start as u32,
            len_owned: (len as u32 & !Span::OWNED) | if owned { Span::OWNED } else { 0 },
        }
    }

    /// The length of the text in bytes.
    #[inline]
    pub(super) fn len(self) -> usize {
        (self.len_owned & !Span::OWNED) as usize
    }

    #[inline]
    pub(super) fn owned(self) -> bool {
        self.len_owned & Span::OWNED != 0
    }
}

/// One value of a [`Doc`]; containers point into its tables.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Node {
    Null,
    Bool(bool),
    /// A number, and whether its literal is an integer (no fraction, no exponent).
    Number(f64, bool),
    Str(Span),
    Array {
        first: u32,
        len: u32,
    },
    Object {
        first: u32,
        len: u32,
    },
}

impl<'a> Doc<'a> {
    /// Where each top-level member lies in the input, so a writer can change one member and leave
    /// every other byte as it was (recorded while reading: no second pass over the input).
    ///
    /// ```
    /// use a2a_card::{Doc, Limits};
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

    #[inline(always)]
    pub(super) fn str_of(&self, s: Span) -> &str {
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
/// The text of a span: in the input, or in the unescaped strings. Always inlined: a call per
/// member name at the npm package's opt-level "z" otherwise.
#[inline(always)]
pub(super) fn span_str<'t>(text: &'t str, unescaped: &'t str, s: Span) -> &'t str {
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
    pub(super) doc: &'t Doc<'t>,
    pub(super) node: Node,
}

/// What a JSON value is, seen through [`Tree`].
#[derive(Clone, Copy)]
pub(crate) enum Shape<'t> {
    Null,
    Bool(bool),
    Number(f64),
    /// A string, and whether it is known to need no escape when written (see
    /// [`crate::canonical::jcs::write_text`]).
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
    /// True for a number written as an integer literal (no fraction, no exponent), which
    /// Python reads as an `int`. The owned tree does not keep the literal: there, an integral
    /// number counts as one.
    fn integer_literal(self) -> bool {
        matches!(self.shape(), Shape::Number(n) if n.fract() == 0.0)
    }
    /// The size of the text the tree was read from, when known (0 otherwise): what its
    /// canonical form is written into is sized from it.
    fn text_len(self) -> usize {
        0
    }
}

impl<'t> Tree<'t> for DocNode<'t> {
    fn text_len(self) -> usize {
        self.doc.text.len()
    }

    fn integer_literal(self) -> bool {
        matches!(self.node, Node::Number(_, true))
    }

    #[inline(always)]
    fn is_null(self) -> bool {
        matches!(self.node, Node::Null)
    }

    #[inline(always)]
    fn shape(self) -> Shape<'t> {
        match self.node {
            Node::Null => Shape::Null,
            Node::Bool(b) => Shape::Bool(b),
            Node::Number(n, _) => Shape::Number(n),
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
    #[inline(always)]
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
