//! The presence walk: A2A v1.0 section 5.7's rules over the presence table (`table.rs`),
//! `signatures` removed (section 8.4.1), each member written straight into the RFC 8785 output.
//! This is the one canonicalization path: signing and verifying both reach
//! [`canonicalize_tree`], for a card read into a [`Doc`] or into an owned `Value`. Each profile
//! is a set of rules of this walk: `prune-empty` prunes empty values; the a2a-sdk 0.3 profiles
//! walk the 0.3 model's rows (`sdk03.rs`: its required members, its defaults) instead of the v1.0
//! table, prune as that release's `_clean_empty` does, and write as Python's `json.dumps`
//! (`python.rs`; keys in code point order).

use super::doc::{Shape, Tree};
use super::jcs::{cmp_utf16, write_members_tree, write_text, write_tree};
use super::profile::{Canonical, CanonicalizeOptions, Profile, UnknownMembers};
use super::python::{write_ascii_string, write_python_number};
use super::sdk03::{type_of, AGENT_CARD_03};
use super::table::{FieldDesc, Kind, MessageDesc, Presence, AGENT_CARD};
use crate::error::{pointer_token, Error, ErrorCode};

/// whatever the member names.
pub(crate) fn canonicalize_tree<'t, N: Tree<'t>>(
    card: N,
    opts: &CanonicalizeOptions,
) -> Result<Canonical, Error> {
    let len = match card.shape() {
        Shape::Object(len) => len,
        other => {
            return Err(Error::new(
                ErrorCode::TypeMismatch,
                format!("an Agent Card must be a JSON object, found {}", other.type_name()),
            )
            .at(""))
        }
    };
    // The canonical form is rarely longer than the input (no whitespace, fewer escapes).
    let mut out = Vec::with_capacity(card.text_len());
    match opts.profile {
        Profile::ServedAsIs => {
            if opts.unknown == UnknownMembers::Reject {
                if let Some((desc, name, pointer)) =
                    first_unknown(card, &AGENT_CARD, true, &mut String::new())
                {
                    return Err(Error::new(
                        ErrorCode::UnknownMember,
                        format!(
                            "{} has no member {name:?} in A2A v1.0 (unknown members are refused)",
                            desc.name
                        ),
                    )
                    .at(pointer));
                }
            }
            let kept: Vec<(&str, N)> = (0..len)
                .filter_map(|i| card.member(i))
                .filter(|(k, _)| *k != "signatures")
                .collect();
            write_members_tree(&mut out, kept);
            Ok(Canonical {
                bytes: out,
                unsigned: Vec::new(),
                profile: opts.profile,
            })
        }
        Profile::Spec | Profile::PruneEmpty | Profile::A2aSdk03 | Profile::A2aSdk0321 => {
            let root = if opts.profile.is_a2a_sdk_03() {
                &AGENT_CARD_03
            } else {
                &AGENT_CARD
            };
            let mut w = Walker::new(opts, false);
            if let Err(first) = w.message(&mut out, card, root, true) {
                let mut again = Walker::new(opts, true);
                let mut scratch = Vec::new();
                return Err(again
                    .message(&mut scratch, card, root, true)
                    .err()
                    .unwrap_or(first));
            }
            if opts.profile == Profile::A2aSdk03 && out == b"{}" {
                // `_clean_empty` of 0.3.24 and later turns an empty card into None, which
                // `json.dumps` writes as `null`.
                out = b"null".to_vec();
            }
            let mut unsigned = w.unsigned;
            // Written in member-name order; reported in document order (a member's place in the
            // input is the path of its indices, and a parent's path is a prefix of its children's).
            unsigned.sort_by(|a, b| a.0.cmp(&b.0));
            Ok(Canonical {
                bytes: out,
                unsigned: unsigned.into_iter().map(|(_, p)| p).collect(),
                profile: opts.profile,
            })
        }
    }
}

/// The first member, in document order, that the v1.0 schema does not define: the message it
/// is in, its name and its JSON Pointer. Used where no presence walk runs (`served-as-is`), so
/// that the caller's `reject` holds under every profile. It descends only into known fields
/// whose value has the shape of their message (a value of another type is not a member list);
/// Struct values and `signatures` hold no schema members.
fn first_unknown<'t, N: Tree<'t>>(
    node: N,
    desc: &'static MessageDesc,
    root: bool,
    pointer: &mut String,
) -> Option<(&'static MessageDesc, &'t str, String)> {
    let Shape::Object(len) = node.shape() else {
        return None;
    };
    for (name, value) in (0..len).filter_map(|i| node.member(i)) {
        if root && name == "signatures" {
            continue;
        }
        let mark = pointer.len();
        pointer.push('/');
        pointer.push_str(&crate::pointer_token(name));
        let found = match desc.field(name) {
            None => return Some((desc, name, pointer.clone())),
            Some((field, _)) => match (field.kind, value.shape()) {
                (Kind::Message(inner), _) => first_unknown(value, inner, false, pointer),
                (Kind::RepeatedMessage(inner), Shape::Array(n)) => (0..n).find_map(|i| {
                    let at = pointer.len();
                    pointer.push_str(&format!("/{i}"));
                    let r = value
                        .item(i)
                        .and_then(|item| first_unknown(item, inner, false, pointer));
                    pointer.truncate(at);
                    r
                }),
                (Kind::MapMessage(inner), Shape::Object(n)) => (0..n).find_map(|i| {
                    let (key, item) = value.member(i)?;
                    let at = pointer.len();
                    pointer.push('/');
                    pointer.push_str(&crate::pointer_token(key));
                    let r = first_unknown(item, inner, false, pointer);
                    pointer.truncate(at);
                    r
                }),
                _ => None,
            },
        };
        if found.is_some() {
            return found;
        }
        pointer.truncate(mark);
    }
    None
}

/// One step of a JSON Pointer: a member name and its index in the object, or an array index.
#[derive(Clone, Copy)]
enum Seg<'a> {
    Name(&'a str, usize),
    Index(usize),
}

struct Walker<'a> {
    unknown: UnknownMembers,
    /// Empty values are removed (`prune-empty`, the a2a-sdk 0.3 profiles).
    prune: bool,
    /// `false` and zero are removed too (`a2a-sdk-0.3.21`).
    falsy: bool,
    /// The a2a-sdk 0.3 model and `json.dumps`: its required members, keys in code point order,
    /// Python's escapes and number spelling.
    python: bool,
    /// True for the second walk of a card that was refused: every member's value is checked
    /// right after its name, in input order, and the bytes written are thrown away. The first
    /// error met is then the first in the document.
    doc_order: bool,
    /// Pointers of the members left out of the bytes, each with its place in the document.
    unsigned: Vec<(Vec<usize>, String)>,
    /// The JSON Pointer of the value being walked, as steps (see [`Walker::pointer`]).
    segs: Vec<Seg<'a>>,
    /// Member lists ready for reuse.
    pool: Vec<ObjectBuf<'a>>,
}

/// One member of an object to be written: the name it is written under (for a known field the
/// schema's JSON name, else the input name), its index in the object, and for a known field its
/// description.
#[derive(Clone, Copy)]
struct Item<'a> {
    key: &'a str,
    index: usize,
    field: Option<&'static FieldDesc>,
}

/// [`cmp_utf16`] with the common case first: names whose first bytes are different ASCII
/// characters are ordered by them without a call.
#[inline(always)]
fn name_order(a: &str, b: &str) -> std::cmp::Ordering {
    match (a.as_bytes().first(), b.as_bytes().first()) {
        (Some(&x), Some(&y)) if x != y && x < 0x80 && y < 0x80 => x.cmp(&y),
        _ => cmp_utf16(a, b),
    }
}

/// The members of one object being written, and the fields seen so far for the dual-name and
/// oneof checks. Reused from one object to the next (see [`Walker::take_buf`]).
#[derive(Default)]
struct ObjectBuf<'a> {
    items: Vec<Item<'a>>,
    /// (field, index of the member that used it) of every known field seen in a message.
    seen: Vec<(&'static FieldDesc, usize)>,
}

fn type_error(ptr: &str, desc: &MessageDesc, field: &FieldDesc, expected: &str, found: Shape<'_>) -> Error {
    Error::new(
        ErrorCode::TypeMismatch,
        format!(
            "{}.{} must be {expected}, found {}",
            desc.name,
            field.json,
            found.type_name()
        ),
    )
    .at(ptr)
}

/// What became of a member written by [`Walker::write_member`].
enum Kept {
    /// Written.
    Yes,
    /// Left out by the presence rules (not covered, and not reported: protobuf cannot tell it
    /// from absent).
    Omitted,
    /// Left out by `prune-empty`, reported as unsigned.
    Unsigned,
}

/// What `prune-empty` removes: an empty string, list or object, or `null`.
fn is_empty_output(bytes: &[u8]) -> bool {
    matches!(bytes, b"\"\"" | b"[]" | b"{}" | b"null")
}

/// What `_clean_empty` of a2a-sdk 0.3.21 to 0.3.23 removes besides: every falsy Python value,
/// as `json.dumps` writes it (`False`, `0`, `0.0`, `-0.0`).
fn is_falsy_output(bytes: &[u8]) -> bool {
    matches!(bytes, b"false" | b"0" | b"0.0" | b"-0.0")
}

impl<'a> Walker<'a> {
    /// A walker for `opts`; see `Walker::doc_order` for `doc_order`.
    fn new(opts: &CanonicalizeOptions, doc_order: bool) -> Walker<'a> {
        let python = opts.profile.is_a2a_sdk_03();
        Walker {
            // The 0.3 model ignores the members it does not define: `retain` cannot cover them.
            unknown: match opts.unknown {
                UnknownMembers::Retain if python => UnknownMembers::Exclude,
                other => other,
            },
            prune: opts.profile == Profile::PruneEmpty || python,
            falsy: opts.profile == Profile::A2aSdk0321,
            python,
            doc_order,
            unsigned: Vec::new(),
            segs: Vec::with_capacity(8),
            pool: Vec::new(),
        }
    }

    /// An empty member list, reused when one is free.
    fn take_buf(&mut self) -> ObjectBuf<'a> {
        self.pool.pop().unwrap_or_else(|| ObjectBuf {
            items: Vec::with_capacity(16),
            seen: Vec::with_capacity(16),
        })
    }

    /// Returns a member list to the pool, emptied.
    fn give_back(&mut self, mut buf: ObjectBuf<'a>) {
        buf.items.clear();
        buf.seen.clear();
        self.pool.push(buf);
    }

    /// Enters member `seg` (member `index` of its object); returns the mark to leave it again
    /// with `self.segs.truncate`.
    fn push(&mut self, seg: &'a str, index: usize) -> usize {
        let len = self.segs.len();
        self.segs.push(Seg::Name(seg, index));
        len
    }

    /// Enters array item `i`, as [`Walker::push`].
    fn push_index(&mut self, i: usize) -> usize {
        let len = self.segs.len();
        self.segs.push(Seg::Index(i));
        len
    }

    /// The JSON Pointer of the value being walked, built only when an error or an unsigned
    /// member needs it.
    fn pointer(&self) -> String {
        let mut ptr = String::with_capacity(64);
        for seg in &self.segs {
            ptr.push('/');
            match seg {
                Seg::Name(name, _) if name.bytes().any(|b| b == b'~' || b == b'/') => {
                    ptr.push_str(&pointer_token(name))
                }
                Seg::Name(name, _) => ptr.push_str(name),
                Seg::Index(i) => {
                    use std::fmt::Write;
                    let _ = write!(ptr, "{i}");
                }
            }
        }
        ptr
    }

    /// Records the value being walked as not covered by the bytes.
    fn leave_out(&mut self) {
        if self.doc_order {
            return;
        }
        let place = self
            .segs
            .iter()
            .map(|s| match s {
                Seg::Name(_, i) | Seg::Index(i) => *i,
            })
            .collect();
        self.unsigned.push((place, self.pointer()));
    }

    /// Sorts the items of one object by the UTF-16 code units of their output names (unless
    /// already in order; members often come in a fixed order); for `json.dumps(sort_keys=True)`
    /// by code points (Python's `str` order).
    fn sort_items(&self, items: &mut [Item<'a>]) {
        if self.python {
            if !items.windows(2).all(|w| w[0].key < w[1].key) {
                items.sort_unstable_by(|a, b| a.key.cmp(b.key));
            }
        } else if !items.windows(2).all(|w| name_order(w[0].key, w[1].key).is_lt()) {
            items.sort_unstable_by(|a, b| name_order(a.key, b.key));
        }
    }

    /// True when the value just written (`bytes`) is one the profile's pruning removes.
    fn pruned(&self, bytes: &[u8]) -> bool {
        self.prune && (is_empty_output(bytes) || (self.falsy && is_falsy_output(bytes)))
    }

    /// Writes a string; `plain` as [`write_text`] (RFC 8785), ignored by Python's escapes.
    #[inline]
    fn text(&self, out: &mut Vec<u8>, s: &str, plain: bool) {
        if self.python {
            write_ascii_string(out, s);
        } else {
            write_text(out, s, plain);
        }
    }

    /// Writes a value that is not an array or object.
    fn scalar<N: Tree<'a>>(&self, out: &mut Vec<u8>, v: N) {
        match v.shape() {
            Shape::Str(s, plain) => self.text(out, s, plain),
            Shape::Number(n) if self.python => write_python_number(out, n, v.integer_literal()),
            _ => write_tree(out, v),
        }
    }

    /// Writes `"name":value` for one member of an object: `write` writes the value and says
    /// whether it stays. The name is written first (the schema's JSON names are plain ASCII
    /// identifiers, so a known field's is copied as it is) and taken back with the value when it
    /// does not stay; a value left out as unsigned is recorded with its pointer.
    fn write_member<N: Tree<'a>>(
        &mut self,
        out: &mut Vec<u8>,
        members: N,
        item: &Item<'a>,
        first: &mut bool,
        write: impl FnOnce(&mut Self, &mut Vec<u8>, N) -> Result<Kept, Error>,
    ) -> Result<(), Error> {
        let Some((name, value)) = members.member(item.index) else {
            return Ok(());
        };
        let mark = self.push(name, item.index);
        let at_name = out.len();
        if !*first {
            out.push(b',');
        }
        self.text(out, item.key, item.field.is_some());
        out.push(b':');
        match write(self, out, value)? {
            Kept::Yes => *first = false,
            Kept::Omitted => out.truncate(at_name),
            Kept::Unsigned => {
                self.leave_out();
                out.truncate(at_name);
            }
        }
        self.segs.truncate(mark);
        Ok(())
    }

    /// Writes one message object. Members are checked (names, oneofs) and filtered in input
    /// order, then their values are checked and written in the order of their JSON names.
    fn message<N: Tree<'a>>(
        &mut self,
        out: &mut Vec<u8>,
        members: N,
        desc: &'static MessageDesc,
        root: bool,
    ) -> Result<(), Error> {
        let Shape::Object(len) = members.shape() else {
            return Ok(());
        };
        let mut buf = self.take_buf();
        let result = self.message_members(out, members, len, desc, root, &mut buf);
        self.give_back(buf);
        result
    }

    fn message_members<N: Tree<'a>>(
        &mut self,
        out: &mut Vec<u8>,
        members: N,
        len: usize,
        desc: &'static MessageDesc,
        root: bool,
        buf: &mut ObjectBuf<'a>,
    ) -> Result<(), Error> {
        for (index, (name, value)) in (0..len).filter_map(|i| members.member(i)).enumerate() {
            if root && name == "signatures" {
                continue;
            }
            let mark = self.push(name, index);
            let found = desc.field(name);
            let item = match found {
                None => match self.unknown {
                    UnknownMembers::Exclude => {
                        self.leave_out();
                        self.segs.truncate(mark);
                        continue;
                    }
                    UnknownMembers::Retain => Item {
                        key: name,
                        index,
                        field: None,
                    },
                    UnknownMembers::Reject => {
                        return Err(Error::new(
                            ErrorCode::UnknownMember,
                            format!(
                                "{} has no member {name:?} in {} (unknown members are refused)",
                                desc.name,
                                if self.python {
                                    "the a2a-sdk 0.3 model"
                                } else {
                                    "A2A v1.0"
                                }
                            ),
                        )
                        .at(self.pointer()));
                    }
                },
                Some((field, _)) => {
                    if let Some((_, other)) = buf.seen.iter().find(|(f, _)| std::ptr::eq(*f, field)) {
                        let other = members.member(*other).map_or("", |(k, _)| k);
                        return Err(Error::new(
                            ErrorCode::DualName,
                            format!(
                                "{}.{} is given twice, as {other:?} and as {name:?}; send it under its JSON name only",
                                desc.name, field.json
                            ),
                        )
                        .at(self.pointer()));
                    }
                    if let (Some(group), false) = (field.oneof, value.is_null()) {
                        if let Some((_, other)) = buf.seen.iter().find(|(f, used)| {
                            f.oneof == Some(group) && members.member(*used).is_some_and(|(_, v)| !v.is_null())
                        }) {
                            let other = members.member(*other).map_or("", |(k, _)| k);
                            return Err(Error::new(
                                ErrorCode::OneofConflict,
                                format!(
                                    "{} sets both {other:?} and {name:?}, two members of the oneof `{group}`; exactly one may be set",
                                    desc.name
                                ),
                            )
                            .at(self.pointer()));
                        }
                    }
                    buf.seen.push((field, index));
                    if value.is_null() {
                        self.segs.truncate(mark);
                        continue; // null means absent
                    }
                    Item {
                        key: field.json,
                        index,
                        field: Some(field),
                    }
                }
            };
            self.segs.truncate(mark);
            if self.doc_order {
                // Check the value now, before the next member's name.
                let mut first = true;
                self.member_value(out, members, desc, &item, &mut first)?;
            } else {
                buf.items.push(item);
            }
        }
        if self.python {
            self.check_required(members, desc, buf)?;
        }
        if self.doc_order {
            return Ok(());
        }
        self.sort_items(&mut buf.items);
        out.push(b'{');
        let mut first = true;
        for item in &buf.items {
            self.member_value(out, members, desc, item, &mut first)?;
        }
        out.push(b'}');
        Ok(())
    }

    /// Writes `"name":value` for one member of a message (or nothing, when the presence rules
    /// or `prune-empty` leave it out).
    fn member_value<N: Tree<'a>>(
        &mut self,
        out: &mut Vec<u8>,
        members: N,
        desc: &'static MessageDesc,
        item: &Item<'a>,
        first: &mut bool,
    ) -> Result<(), Error> {
        self.write_member(out, members, item, first, |w, out, value| {
            let at = out.len();
            let keep = match item.field {
                None => {
                    w.plain(out, value);
                    true
                }
                Some(field) => w.field(out, desc, field, value)?,
            };
            Ok(if !keep {
                Kept::Omitted
            } else if w.pruned(out.get(at..).unwrap_or_default()) {
                Kept::Unsigned
            } else {
                Kept::Yes
            })
        })
    }

    /// Writes an object with no presence rules whose members are each written by `write`
    /// (Struct contents under `prune-empty`, maps): sorted by name, and under `prune-empty`
    /// without the members whose value comes out empty.
    fn object_of<N, F>(
        &mut self,
        out: &mut Vec<u8>,
        members: N,
        len: usize,
        mut write: F,
    ) -> Result<(), Error>
    where
        N: Tree<'a>,
        F: FnMut(&mut Self, &mut Vec<u8>, N) -> Result<bool, Error>,
    {
        let mut buf = self.take_buf();
        buf.items.extend((0..len).filter_map(|index| {
            let (key, _) = members.member(index)?;
            Some(Item {
                key,
                index,
                field: None,
            })
        }));
        if !self.doc_order {
            self.sort_items(&mut buf.items);
        }
        out.push(b'{');
        let mut first = true;
        let mut result = Ok(());
        for item in &buf.items {
            result = self.write_member(out, members, item, &mut first, |w, out, value| {
                Ok(if write(w, out, value)? {
                    Kept::Yes
                } else {
                    Kept::Unsigned
                })
            });
            if result.is_err() {
                break;
            }
        }
        out.push(b'}');
        self.give_back(buf);
        result
    }

    /// Writes a value with no presence rules (Struct contents, retained unknown members). Under
    /// `prune-empty` empty values and nulls are removed recursively.
    fn plain<N: Tree<'a>>(&mut self, out: &mut Vec<u8>, v: N) {
        if !self.prune && !self.python {
            write_tree(out, v);
            return;
        }
        match v.shape() {
            Shape::Array(len) => {
                out.push(b'[');
                let mut first = true;
                for (i, item) in (0..len).filter_map(|i| v.item(i)).enumerate() {
                    let mark_out = out.len();
                    if !first {
                        out.push(b',');
                    }
                    let at = out.len();
                    let mark = self.push_index(i);
                    self.plain(out, item);
                    if self.pruned(out.get(at..).unwrap_or_default()) || item.is_null() {
                        self.leave_out();
                        out.truncate(mark_out);
                    } else {
                        first = false;
                    }
                    self.segs.truncate(mark);
                }
                out.push(b']');
            }
            Shape::Object(len) => {
                // Writing a Struct member cannot fail.
                let _ = self.object_of(out, v, len, |w, out, item| {
                    let at = out.len();
                    w.plain(out, item);
                    Ok(!(w.pruned(out.get(at..).unwrap_or_default()) || item.is_null()))
                });
            }
            _ => self.scalar(out, v),
        }
    }

    /// Writes one known field's value; returns false when the presence rules omit it (the caller
    /// removes the member name it already wrote).
    fn field<N: Tree<'a>>(
        &mut self,
        out: &mut Vec<u8>,
        desc: &MessageDesc,
        field: &'static FieldDesc,
        v: N,
    ) -> Result<bool, Error> {
        // Under prune-empty the ProtoJSON round trip drops every implicit default, REQUIRED
        // fields included (REQUIRED is only an annotation to protobuf).
        let keep_default = match field.presence {
            // The 0.3 model keeps a required member whatever it holds (`_clean_empty` may
            // remove it afterwards, reported as unsigned).
            Presence::Required => !self.prune || self.python,
            Presence::Optional | Presence::Message | Presence::Default(_) => true,
            Presence::Implicit => false,
        };
        match field.kind {
            Kind::String => {
                let Shape::Str(s, plain) = v.shape() else {
                    return Err(type_error(&self.pointer(), desc, field, "a string", v.shape()));
                };
                if (s.is_empty() && !keep_default) || matches!(field.presence, Presence::Default(d) if d == s)
                {
                    return Ok(false);
                }
                self.text(out, s, plain);
            }
            Kind::Bool => {
                let Shape::Bool(b) = v.shape() else {
                    return Err(type_error(&self.pointer(), desc, field, "a boolean", v.shape()));
                };
                if !b && !keep_default {
                    return Ok(false);
                }
                out.extend_from_slice(if b { b"true" } else { b"false" });
            }
            Kind::Message(inner) => {
                if !matches!(v.shape(), Shape::Object(_)) {
                    return Err(type_error(&self.pointer(), desc, field, "an object", v.shape()));
                }
                self.message(out, v, inner, false)?;
            }
            Kind::Struct => {
                if !matches!(v.shape(), Shape::Object(_)) {
                    return Err(type_error(
                        &self.pointer(),
                        desc,
                        field,
                        "an object (google.protobuf.Struct)",
                        v.shape(),
                    ));
                }
                self.plain(out, v);
            }
            Kind::RepeatedString | Kind::RepeatedMessage(_) => {
                let Shape::Array(len) = v.shape() else {
                    return Err(type_error(&self.pointer(), desc, field, "an array", v.shape()));
                };
                if len == 0 && !keep_default {
                    return Ok(false);
                }
                out.push(b'[');
                let mut first = true;
                for (i, item) in (0..len).filter_map(|i| v.item(i)).enumerate() {
                    let mark_out = out.len();
                    if !first {
                        out.push(b',');
                    }
                    let at = out.len();
                    let mark = self.push_index(i);
                    match (field.kind, item.shape()) {
                        (Kind::RepeatedString, Shape::Str(s, plain)) => self.text(out, s, plain),
                        (Kind::RepeatedMessage(inner), Shape::Object(_)) => {
                            self.message(out, item, inner, false)?
                        }
                        (Kind::RepeatedString, found) => {
                            return Err(type_error(
                                &self.pointer(),
                                desc,
                                field,
                                "an array of strings",
                                found,
                            ));
                        }
                        (_, found) => {
                            return Err(type_error(
                                &self.pointer(),
                                desc,
                                field,
                                "an array of objects",
                                found,
                            ))
                        }
                    }
                    if self.pruned(out.get(at..).unwrap_or_default()) {
                        self.leave_out();
                        out.truncate(mark_out);
                    } else {
                        first = false;
                    }
                    self.segs.truncate(mark);
                }
                out.push(b']');
            }
            Kind::MapString | Kind::MapMessage(_) => {
                let Shape::Object(len) = v.shape() else {
                    return Err(type_error(
                        &self.pointer(),
                        desc,
                        field,
                        "an object (map)",
                        v.shape(),
                    ));
                };
                if len == 0 && !keep_default {
                    return Ok(false);
                }
                self.object_of(out, v, len, |w, out, item| {
                    let at = out.len();
                    match (field.kind, item.shape()) {
                        (Kind::MapString, Shape::Str(s, plain)) => w.text(out, s, plain),
                        (Kind::MapMessage(inner), Shape::Object(_)) => w.message(out, item, inner, false)?,
                        (Kind::MapString, found) => {
                            return Err(type_error(&w.pointer(), desc, field, "a map of strings", found));
                        }
                        (_, found) => {
                            return Err(type_error(&w.pointer(), desc, field, "a map of objects", found))
                        }
                    }
                    Ok(!w.pruned(out.get(at..).unwrap_or_default()))
                })?;
            }
            Kind::RepeatedMapStringList => self.requirement_list(out, desc, field, v)?,
            Kind::MapByType(variants) => self.map_by_type(out, desc, field, variants, v)?,
        }
        Ok(true)
    }

    /// Refuses a message of the a2a-sdk 0.3 model without one of its required members (or with
    /// it `null`): the model refuses it, so that signer never signed such a card.
    fn check_required<N: Tree<'a>>(
        &self,
        members: N,
        desc: &'static MessageDesc,
        buf: &ObjectBuf<'a>,
    ) -> Result<(), Error> {
        for field in desc.fields.iter().filter(|f| f.presence == Presence::Required) {
            let given = buf
                .seen
                .iter()
                .find(|(f, _)| std::ptr::eq(*f, field))
                .and_then(|(_, i)| members.member(*i));
            let (ptr, what) = match given {
                None => (self.pointer(), "is missing"),
                Some((_, v)) if v.is_null() => {
                    let mut p = self.pointer();
                    p.push('/');
                    p.push_str(&pointer_token(given.map_or("", |(k, _)| k)));
                    (p, "is null")
                }
                Some(_) => continue,
            };
            return Err(Error::new(
                ErrorCode::MalformedCard,
                format!(
                    "{}.{} {what}: the a2a-sdk 0.3 model requires it, so a2a-sdk 0.3 signs no such card",
                    desc.name, field.json
                ),
            )
            .at(ptr));
        }
        Ok(())
    }

    /// Writes a2a-sdk 0.3's `security` (`list[dict[str, list[str]]]`): a list of objects whose
    /// members are lists of strings, pruned as the rest of the card.
    fn requirement_list<N: Tree<'a>>(
        &mut self,
        out: &mut Vec<u8>,
        desc: &MessageDesc,
        field: &'static FieldDesc,
        v: N,
    ) -> Result<(), Error> {
        const WANT: &str = "an array of objects of string arrays";
        let Shape::Array(len) = v.shape() else {
            return Err(type_error(&self.pointer(), desc, field, WANT, v.shape()));
        };
        out.push(b'[');
        let mut first = true;
        for (i, item) in (0..len).filter_map(|i| v.item(i)).enumerate() {
            let mark_out = out.len();
            if !first {
                out.push(b',');
            }
            let at = out.len();
            let mark = self.push_index(i);
            let Shape::Object(n) = item.shape() else {
                return Err(type_error(&self.pointer(), desc, field, WANT, item.shape()));
            };
            self.object_of(out, item, n, |w, out, scopes| {
                let at = out.len();
                let Shape::Array(m) = scopes.shape() else {
                    return Err(type_error(&w.pointer(), desc, field, WANT, scopes.shape()));
                };
                out.push(b'[');
                let mut first = true;
                for (j, scope) in (0..m).filter_map(|j| scopes.item(j)).enumerate() {
                    let Shape::Str(s, plain) = scope.shape() else {
                        let mark = w.push_index(j);
                        let e = type_error(&w.pointer(), desc, field, WANT, scope.shape());
                        w.segs.truncate(mark);
                        return Err(e);
                    };
                    if s.is_empty() {
                        let mark = w.push_index(j);
                        w.leave_out();
                        w.segs.truncate(mark);
                        continue;
                    }
                    if !first {
                        out.push(b',');
                    }
                    first = false;
                    w.text(out, s, plain);
                }
                out.push(b']');
                Ok(!w.pruned(out.get(at..).unwrap_or_default()))
            })?;
            if self.pruned(out.get(at..).unwrap_or_default()) {
                self.leave_out();
                out.truncate(mark_out);
            } else {
                first = false;
            }
            self.segs.truncate(mark);
        }
        out.push(b']');
        Ok(())
    }

    /// Writes a2a-sdk 0.3's `securitySchemes`: a map whose values are each read as the member
    /// of the `SecurityScheme` union their `type` names.
    fn map_by_type<N: Tree<'a>>(
        &mut self,
        out: &mut Vec<u8>,
        desc: &MessageDesc,
        field: &'static FieldDesc,
        variants: &'static [&'static MessageDesc],
        v: N,
    ) -> Result<(), Error> {
        let Shape::Object(len) = v.shape() else {
            return Err(type_error(
                &self.pointer(),
                desc,
                field,
                "an object (map)",
                v.shape(),
            ));
        };
        self.object_of(out, v, len, |w, out, scheme| {
            let Shape::Object(n) = scheme.shape() else {
                return Err(type_error(&w.pointer(), desc, field, "a map of objects", scheme.shape()));
            };
            let kind = (0..n)
                .filter_map(|i| scheme.member(i))
                .find(|(k, _)| *k == "type")
                .map(|(_, t)| t.shape());
            let names = || variants.iter().map(|d| format!("{:?}", type_of(d))).collect::<Vec<_>>().join(", ");
            let chosen = match kind {
                Some(Shape::Str(t, _)) => variants.iter().find(|d| type_of(d) == t).ok_or_else(|| {
                    Error::new(
                        ErrorCode::MalformedCard,
                        format!(
                            "security scheme type {t:?} is not one of {}: the a2a-sdk 0.3 model refuses it",
                            names()
                        ),
                    )
                    .at(format!("{}/type", w.pointer()))
                })?,
                Some(other) => {
                    return Err(Error::new(
                        ErrorCode::TypeMismatch,
                        format!("a security scheme's type must be a string, found {}", other.type_name()),
                    )
                    .at(format!("{}/type", w.pointer())))
                }
                None => {
                    return Err(Error::new(
                        ErrorCode::MalformedCard,
                        format!(
                            "the security scheme has no type (one of {}): the a2a-sdk 0.3 model would guess its kind; give its type",
                            names()
                        ),
                    )
                    .at(w.pointer()))
                }
            };
            let at = out.len();
            w.message(out, scheme, chosen, false)?;
            Ok(!w.pruned(out.get(at..).unwrap_or_default()))
        })
    }
}
