//! The canonical form of an Agent Card: presence rules (A2A v1.0 section 5.7), the
//! `signatures` member removed (section 8.4.1), then RFC 8785.
//!
//! This is the one canonicalization path: signing and verifying both call
//! [`canonicalize_value`]. Three profiles exist because deployed SDKs sign differently; each is a
//! named, tested function of the card (see [`Profile`]).

use crate::error::{pointer_token, Error, ErrorCode};
use crate::jcs::{cmp_utf16, write_members_tree, write_text, write_tree};
use crate::json::{Doc, Limits, Shape, Tree, Value};
use crate::schema::{FieldDesc, Kind, MessageDesc, Presence, AGENT_CARD};

/// Which rules turn a card into the bytes a signature covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Profile {
    /// The A2A v1.0 text and its 8.4.1 worked example: REQUIRED fields kept even at their
    /// default, `optional` and message fields kept when present, implicit-presence fields
    /// omitted at their default, `Struct` values by RFC 8785 only, `signatures` removed.
    Spec,
    /// What a2a-sdk (Python) 1.x and @a2a-js/sdk 1.x sign: a ProtoJSON round trip (proto names
    /// become JSON names, implicit defaults dropped, unknown members dropped), then every empty
    /// string, list and object and every `null` removed everywhere, recursively.
    PruneEmpty,
    /// What a2a-go signs: the served JSON without `signatures`, no presence rules.
    ServedAsIs,
}

impl Profile {
    /// Every profile, in the order `auto` tries them when verifying.
    pub const ALL: [Profile; 3] = [Profile::Spec, Profile::ServedAsIs, Profile::PruneEmpty];

    /// The profile's name: `spec`, `prune-empty` or `served-as-is`.
    ///
    /// ```
    /// assert_eq!(a2a_card::Profile::PruneEmpty.as_str(), "prune-empty");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Spec => "spec",
            Profile::PruneEmpty => "prune-empty",
            Profile::ServedAsIs => "served-as-is",
        }
    }

    /// The profile with this name.
    ///
    /// ```
    /// assert_eq!(a2a_card::Profile::from_name("served-as-is"), Some(a2a_card::Profile::ServedAsIs));
    /// ```
    pub fn from_name(name: &str) -> Option<Profile> {
        match name {
            "spec" => Some(Profile::Spec),
            "prune-empty" => Some(Profile::PruneEmpty),
            "served-as-is" => Some(Profile::ServedAsIs),
            _ => None,
        }
    }
}

/// The profiles a verifier accepts, from their names: `spec`, `prune-empty`, `served-as-is`, or
/// `auto`, which stands for all three in the order they are tried (`spec`, then `served-as-is`,
/// then `prune-empty`). Repeated names count once; no name means `spec` alone.
///
/// ```
/// use a2a_card::{presence::accepted_profiles, Profile};
/// assert_eq!(accepted_profiles(&[]).unwrap(), vec![Profile::Spec]);
/// assert_eq!(accepted_profiles(&["auto"]).unwrap(), Profile::ALL.to_vec());
/// assert_eq!(accepted_profiles(&["prune-empty", "spec"]).unwrap(), vec![Profile::PruneEmpty, Profile::Spec]);
/// assert_eq!(accepted_profiles(&["jcs"]).unwrap_err().code().as_str(), "usage");
/// ```
pub fn accepted_profiles(names: &[&str]) -> Result<Vec<Profile>, Error> {
    let mut out: Vec<Profile> = Vec::new();
    for name in names {
        let add: Vec<Profile> = if *name == "auto" {
            Profile::ALL.to_vec()
        } else {
            match Profile::from_name(name) {
                Some(p) => vec![p],
                None => {
                    return Err(Error::new(
                        ErrorCode::Usage,
                        format!("unknown profile {name:?} (known: spec, prune-empty, served-as-is, auto)"),
                    ))
                }
            }
        };
        for p in add {
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    if out.is_empty() {
        out.push(Profile::Spec);
    }
    Ok(out)
}

/// What to do with members the A2A v1.0 schema does not define.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum UnknownMembers {
    /// Leave them out of the canonical bytes and report their JSON Pointers as unsigned. This is
    /// what a verifier that parses into protobuf reconstructs.
    #[default]
    Exclude,
    /// Keep them in the canonical bytes (RFC 8785 only inside them), so the signature covers them.
    Retain,
    /// Refuse the card with `unknown-member`.
    Reject,
}

impl UnknownMembers {
    /// The option's name: `exclude`, `retain` or `reject`.
    pub fn as_str(self) -> &'static str {
        match self {
            UnknownMembers::Exclude => "exclude",
            UnknownMembers::Retain => "retain",
            UnknownMembers::Reject => "reject",
        }
    }

    /// The option with this name.
    pub fn from_name(name: &str) -> Option<UnknownMembers> {
        match name {
            "exclude" => Some(UnknownMembers::Exclude),
            "retain" => Some(UnknownMembers::Retain),
            "reject" => Some(UnknownMembers::Reject),
            _ => None,
        }
    }
}

/// Options of [`canonicalize`].
///
/// ```
/// use a2a_card::{CanonicalizeOptions, Profile, UnknownMembers};
/// let opts = CanonicalizeOptions { unknown: UnknownMembers::Reject, ..Default::default() };
/// assert_eq!(opts.profile, Profile::Spec);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CanonicalizeOptions {
    /// The profile (default `spec`).
    pub profile: Profile,
    /// Unknown members (default `exclude`). Applies to `spec` and `prune-empty`; `served-as-is`
    /// covers every member by definition.
    pub unknown: UnknownMembers,
    /// Reader limits.
    pub limits: Limits,
}

impl Default for CanonicalizeOptions {
    fn default() -> Self {
        CanonicalizeOptions {
            profile: Profile::Spec,
            unknown: UnknownMembers::Exclude,
            limits: Limits::default(),
        }
    }
}

/// The canonical form of a card and what it leaves out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Canonical {
    /// The bytes a signature covers (UTF-8, RFC 8785).
    pub bytes: Vec<u8>,
    /// JSON Pointers (into the input) of the members present in the card but not covered by these
    /// bytes, in document order: unknown members under `exclude`, and under `prune-empty` every
    /// empty value it removed. `signatures` is never listed.
    pub unsigned: Vec<String>,
    /// The profile that produced the bytes.
    pub profile: Profile,
}

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
    canonicalize_tree(doc.root(), opts)
}

/// Canonicalizes an Agent Card already read by [`json::parse_with`]. Verification reads a
/// card once and calls this once per profile.
pub fn canonicalize_value(card: &Value, opts: &CanonicalizeOptions) -> Result<Canonical, Error> {
    canonicalize_tree(card, opts)
}

/// [`canonicalize_value`] for either tree the reader builds: the one walk behind signing and
/// verifying, whether the card was read into a [`Value`] or a [`Doc`].
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
    let mut out = Vec::new();
    let mut w = Walker {
        unknown: opts.unknown,
        prune: opts.profile == Profile::PruneEmpty,
        unsigned: Vec::new(),
        segs: Vec::new(),
        pool: Vec::new(),
    };
    match opts.profile {
        Profile::ServedAsIs => {
            let kept: Vec<(&str, N)> = (0..len)
                .filter_map(|i| card.member(i))
                .filter(|(k, _)| *k != "signatures")
                .collect();
            write_members_tree(&mut out, kept);
        }
        Profile::Spec | Profile::PruneEmpty => {
            w.message(&mut out, card, &AGENT_CARD, true)?;
        }
    }
    Ok(Canonical {
        bytes: out,
        unsigned: w.unsigned,
        profile: opts.profile,
    })
}

/// One step of a JSON Pointer: a member name or an array index.
enum Seg<'a> {
    Name(&'a str),
    Index(usize),
}

struct Walker<'a> {
    unknown: UnknownMembers,
    prune: bool,
    unsigned: Vec<String>,
    /// The JSON Pointer of the value being walked, as steps (see [`Walker::pointer`]).
    segs: Vec<Seg<'a>>,
    /// Object buffers ready for reuse.
    pool: Vec<ObjectBuf>,
}

/// One member of an object being written: its output name (`None`: the input name of member
/// `index`), and the range of its value in the scratch buffer.
#[derive(Clone, Copy)]
struct Item {
    name: Option<&'static str>,
    index: usize,
    start: usize,
    end: usize,
}

/// The members of one object being written: values are written in input order into a scratch
/// buffer (so errors and unsigned pointers come in document order), then emitted sorted by name.
/// Buffers are reused from one object to the next (see [`Walker::take_buf`]).
#[derive(Default)]
struct ObjectBuf {
    scratch: Vec<u8>,
    items: Vec<Item>,
    /// (field, index of the member that used it) of every known field seen in a message, for the
    /// dual-name and oneof checks.
    seen: Vec<(&'static FieldDesc, usize)>,
}

impl ObjectBuf {
    /// Emits `{"name":value,...}` sorted by the UTF-16 code units of the names; `members` is the
    /// object the items' indices refer to.
    fn finish<'t, N: Tree<'t>>(&mut self, out: &mut Vec<u8>, members: N) {
        let name_of = |item: &Item| -> &'t str {
            match item.name {
                Some(n) => n,
                None => members.member(item.index).map_or("", |(k, _)| k),
            }
        };
        // Members usually arrive in a fixed (proto or alphabetical) order; sort only when needed.
        if !self
            .items
            .windows(2)
            .all(|w| cmp_utf16(name_of(&w[0]), name_of(&w[1])).is_lt())
        {
            self.items
                .sort_unstable_by(|a, b| cmp_utf16(name_of(a), name_of(b)));
        }
        out.reserve(self.scratch.len() + 2 + self.items.len() * 4);
        out.push(b'{');
        for (i, item) in self.items.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            // The schema's JSON names are plain ASCII identifiers.
            write_text(out, name_of(item), item.name.is_some());
            out.push(b':');
            out.extend_from_slice(self.scratch.get(item.start..item.end).unwrap_or_default());
        }
        out.push(b'}');
    }
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

/// What `prune-empty` removes: an empty string, list or object, or `null`.
fn is_empty_output(bytes: &[u8]) -> bool {
    matches!(bytes, b"\"\"" | b"[]" | b"{}" | b"null")
}

impl<'a> Walker<'a> {
    /// An empty object buffer, reused when one is free.
    fn take_buf(&mut self) -> ObjectBuf {
        self.pool.pop().unwrap_or_default()
    }

    /// Returns a buffer to the pool, emptied.
    fn give_back(&mut self, mut buf: ObjectBuf) {
        buf.scratch.clear();
        buf.items.clear();
        buf.seen.clear();
        self.pool.push(buf);
    }

    /// Enters member `seg`; returns the mark to leave it again with `self.segs.truncate`.
    fn push(&mut self, seg: &'a str) -> usize {
        let len = self.segs.len();
        self.segs.push(Seg::Name(seg));
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
        let mut ptr = String::new();
        for seg in &self.segs {
            ptr.push('/');
            match seg {
                Seg::Name(name) if name.contains(['~', '/']) => ptr.push_str(&pointer_token(name)),
                Seg::Name(name) => ptr.push_str(name),
                Seg::Index(i) => ptr.push_str(&i.to_string()),
            }
        }
        ptr
    }

    /// Writes one message object. Members are checked (names, types, oneofs) and filtered by the
    /// presence rules in input order, then written sorted by their JSON names.
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
        for (index, (name, value)) in (0..len).filter_map(|i| members.member(i)).enumerate() {
            if root && name == "signatures" {
                continue;
            }
            let mark = self.push(name);
            let found = desc.field(name);
            let out_name: Option<&'static str> = match found {
                None => match self.unknown {
                    UnknownMembers::Exclude => {
                        self.unsigned.push(self.pointer());
                        self.segs.truncate(mark);
                        continue;
                    }
                    UnknownMembers::Retain => None,
                    UnknownMembers::Reject => {
                        return Err(Error::new(
                            ErrorCode::UnknownMember,
                            format!(
                                "{} has no member {name:?} in A2A v1.0 (unknown members are refused)",
                                desc.name
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
                    Some(field.json)
                }
            };
            let slot = self.unsigned.len();
            let at = buf.scratch.len();
            let keep = match found {
                None => {
                    self.plain(&mut buf.scratch, value);
                    true
                }
                Some((field, _)) => self.field(&mut buf.scratch, desc, field, value)?,
            };
            let pruned = self.prune && keep && is_empty_output(&buf.scratch[at..]);
            if pruned {
                self.unsigned.insert(slot, self.pointer());
            }
            if keep && !pruned {
                buf.items.push(Item {
                    name: out_name,
                    index,
                    start: at,
                    end: buf.scratch.len(),
                });
            } else {
                buf.scratch.truncate(at);
            }
            self.segs.truncate(mark);
        }
        buf.finish(out, members);
        self.give_back(buf);
        Ok(())
    }

    /// Writes a value with no presence rules (Struct contents, retained unknown members). Under
    /// `prune-empty` empty values and nulls are removed recursively.
    fn plain<N: Tree<'a>>(&mut self, out: &mut Vec<u8>, v: N) {
        if !self.prune {
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
                    let slot = self.unsigned.len();
                    self.plain(out, item);
                    if is_empty_output(&out[at..]) || item.is_null() {
                        self.unsigned.insert(slot, self.pointer());
                        out.truncate(mark_out);
                    } else {
                        first = false;
                    }
                    self.segs.truncate(mark);
                }
                out.push(b']');
            }
            Shape::Object(len) => {
                let mut buf = self.take_buf();
                for (index, (k, item)) in (0..len).filter_map(|i| v.member(i)).enumerate() {
                    let at = buf.scratch.len();
                    let mark = self.push(k);
                    let slot = self.unsigned.len();
                    self.plain(&mut buf.scratch, item);
                    if is_empty_output(&buf.scratch[at..]) || item.is_null() {
                        self.unsigned.insert(slot, self.pointer());
                        buf.scratch.truncate(at);
                    } else {
                        buf.items.push(Item {
                            name: None,
                            index,
                            start: at,
                            end: buf.scratch.len(),
                        });
                    }
                    self.segs.truncate(mark);
                }
                buf.finish(out, v);
                self.give_back(buf);
            }
            _ => write_tree(out, v),
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
            Presence::Required => !self.prune,
            Presence::Optional | Presence::Message => true,
            Presence::Implicit => false,
        };
        match field.kind {
            Kind::String => {
                let Shape::Str(s, plain) = v.shape() else {
                    return Err(type_error(&self.pointer(), desc, field, "a string", v.shape()));
                };
                if s.is_empty() && !keep_default {
                    return Ok(false);
                }
                write_text(out, s, plain);
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
                    let slot = self.unsigned.len();
                    match (field.kind, item.shape()) {
                        (Kind::RepeatedString, Shape::Str(s, plain)) => write_text(out, s, plain),
                        (Kind::RepeatedMessage(inner), Shape::Object(_)) => {
                            self.message(out, item, inner, false)?
                        }
                        (Kind::RepeatedString, _) => {
                            return Err(type_error(
                                &self.pointer(),
                                desc,
                                field,
                                "an array of strings",
                                item.shape(),
                            ));
                        }
                        _ => {
                            return Err(type_error(
                                &self.pointer(),
                                desc,
                                field,
                                "an array of objects",
                                item.shape(),
                            ))
                        }
                    }
                    if self.prune && is_empty_output(&out[at..]) {
                        self.unsigned.insert(slot, self.pointer());
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
                let mut buf = self.take_buf();
                for (index, (k, item)) in (0..len).filter_map(|i| v.member(i)).enumerate() {
                    let at = buf.scratch.len();
                    let mark = self.push(k);
                    let slot = self.unsigned.len();
                    match (field.kind, item.shape()) {
                        (Kind::MapString, Shape::Str(s, plain)) => write_text(&mut buf.scratch, s, plain),
                        (Kind::MapMessage(inner), Shape::Object(_)) => {
                            self.message(&mut buf.scratch, item, inner, false)?
                        }
                        (Kind::MapString, found) => {
                            return Err(type_error(
                                &self.pointer(),
                                desc,
                                field,
                                "a map of strings",
                                found,
                            ));
                        }
                        (_, found) => {
                            return Err(type_error(
                                &self.pointer(),
                                desc,
                                field,
                                "a map of objects",
                                found,
                            ))
                        }
                    }
                    if self.prune && is_empty_output(&buf.scratch[at..]) {
                        self.unsigned.insert(slot, self.pointer());
                        buf.scratch.truncate(at);
                    } else {
                        buf.items.push(Item {
                            name: None,
                            index,
                            start: at,
                            end: buf.scratch.len(),
                        });
                    }
                    self.segs.truncate(mark);
                }
                buf.finish(out, v);
                self.give_back(buf);
            }
        }
        Ok(true)
    }
}
