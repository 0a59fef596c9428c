//! Property tests of canonicalization (proptest).
//!
//! Generated inputs: arbitrary JSON values (strings over all of Unicode, astral characters and
//! U+E000..U+FFFF included; integers within +-(2^53-1) and any finite double; nested arrays and
//! objects with unique member names) and Agent Cards of valid shape, generated from the presence
//! table (random presence of optional fields, defaults and non-defaults, `null` members, unknown
//! members, proto names, `signatures`). Each value is written out as JSON text by a renderer that,
//! driven by a seed, shuffles member order, adds whitespace, escapes characters that need no
//! escape and spells numbers in different ways.
//!
//! Properties:
//! (a) the canonical bytes (every profile, every unknown-member option) do not depend on member
//!     order, whitespace, escape spelling or number spelling; under `spec` and `prune-empty` they
//!     do not depend on whether a field is named by its JSON or its proto name either;
//! (b) canonical bytes are a fixed point: `served-as-is` of them, and `jcs` of them, return them
//!     unchanged, `spec` of `spec` output is `spec` output, and `jcs(jcs(x)) == jcs(x)`;
//! (c) `spec` output is valid `served-as-is` input and equal to its result;
//! (d) `jcs` agrees byte for byte with the independent crate `serde_json_canonicalizer`;
//! (e) nothing panics on arbitrary bytes, on mutated JSON text, on arbitrary JSON objects and on
//!     card-like objects whose members carry schema names with values of any type; every error
//!     has a well-formed JSON Pointer and an offset within the input;
//! (f) for generated cards, each profile's bytes equal those of a small independent model of the
//!     profile's rules built on serde_json and serde_json_canonicalizer (the presence class of
//!     each field is taken from the crate's table; the model re-implements what is done with it).
//!
//! The case count defaults to 64 per property (a few seconds in a debug build); set
//! `PROPTEST_CASES` for a longer run. Failures are not persisted to files; proptest prints the
//! shrunk input, and the assertion messages print the JSON text that fails.

use a2a_card::canonical::table::{FieldDesc, Kind, MessageDesc, Presence, AGENT_CARD, ALL_MESSAGES};
use a2a_card::{canonicalize, jcs, Canonical, CanonicalizeOptions, Error, Limits, Profile, UnknownMembers};
use proptest::prelude::*;
use proptest::strategy::Union;
use proptest::test_runner::Config;
use std::collections::HashSet;

const MAX_SAFE: i64 = 9_007_199_254_740_991;

// ---------------------------------------------------------------------------------------------
// The value model and its renderer
// ---------------------------------------------------------------------------------------------

/// A JSON value as generated. Object members may carry an alternative name (the proto name of a
/// field) that the renderer may use instead.
#[derive(Debug, Clone)]
enum J {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<Member>),
}

#[derive(Debug, Clone)]
struct Member {
    name: String,
    alt: Option<String>,
    value: J,
}

impl Member {
    fn plain(name: String, value: J) -> Self {
        Member {
            name,
            alt: None,
            value,
        }
    }
}

/// Builds an object, dropping members whose name (or alternative name) was already used.
fn object(members: Vec<Member>) -> J {
    let mut seen = HashSet::new();
    let mut kept = Vec::new();
    for m in members {
        let names: Vec<String> = std::iter::once(m.name.clone()).chain(m.alt.clone()).collect();
        if names.iter().any(|n| seen.contains(n)) {
            continue;
        }
        seen.extend(names);
        kept.push(m);
    }
    J::Obj(kept)
}

/// SplitMix64, driving the renderer's choices from a proptest-generated seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }
}

/// How to write a value out.
struct Style {
    rng: Rng,
    /// Shuffle the members of every object.
    shuffle: bool,
    /// Put random JSON whitespace between tokens.
    whitespace: bool,
    /// Escape some characters that need no escape, use `\u` forms for others.
    escapes: bool,
    /// Spell numbers in several equivalent ways.
    numbers: bool,
    /// Name fields by their proto name at random.
    alt_names: bool,
}

impl Style {
    /// Compact, members in generated order, minimal escapes, JSON names.
    fn plain() -> Self {
        Style {
            rng: Rng(0),
            shuffle: false,
            whitespace: false,
            escapes: false,
            numbers: false,
            alt_names: false,
        }
    }
    /// Everything varied except the names.
    fn varied(seed: u64) -> Self {
        Style {
            rng: Rng(seed),
            shuffle: true,
            whitespace: true,
            escapes: true,
            numbers: true,
            alt_names: false,
        }
    }
    fn with_alt_names(mut self) -> Self {
        self.alt_names = true;
        self
    }
}

fn render(j: &J, style: &mut Style) -> String {
    let mut out = String::new();
    ws(&mut out, style);
    write(&mut out, j, style);
    ws(&mut out, style);
    out
}

fn ws(out: &mut String, st: &mut Style) {
    if st.whitespace {
        for _ in 0..st.rng.below(3) {
            out.push([' ', '\t', '\n', '\r'][st.rng.below(4)]);
        }
    }
}

fn write(out: &mut String, j: &J, st: &mut Style) {
    match j {
        J::Null => out.push_str("null"),
        J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        J::Num(v) => out.push_str(&spell(*v, st)),
        J::Str(s) => write_str(out, s, st),
        J::Arr(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    ws(out, st);
                    out.push(',');
                }
                ws(out, st);
                write(out, item, st);
                ws(out, st);
            }
            if items.is_empty() {
                ws(out, st);
            }
            out.push(']');
        }
        J::Obj(members) => {
            let mut order: Vec<usize> = (0..members.len()).collect();
            if st.shuffle {
                for i in (1..order.len()).rev() {
                    let k = st.rng.below(i + 1);
                    order.swap(i, k);
                }
            }
            out.push('{');
            for (n, &i) in order.iter().enumerate() {
                let m = &members[i];
                if n > 0 {
                    ws(out, st);
                    out.push(',');
                }
                ws(out, st);
                let name = match &m.alt {
                    Some(alt) if st.alt_names && st.rng.one_in(2) => alt,
                    _ => &m.name,
                };
                write_str(out, name, st);
                ws(out, st);
                out.push(':');
                ws(out, st);
                write(out, &m.value, st);
                ws(out, st);
            }
            if members.is_empty() {
                ws(out, st);
            }
            out.push('}');
        }
    }
}

/// A JSON spelling of the finite double `v` that every correct reader maps back to `v`. Integer
/// syntax beyond +-(2^53-1) is used only in the RFC 8785 spelling (which the reader accepts
/// because it names exactly one double).
fn spell(v: f64, st: &mut Style) -> String {
    let debug = format!("{v:?}"); // always has a '.' or an exponent: never integer syntax
    if !st.numbers {
        return debug;
    }
    let safe_int = v.fract() == 0.0 && v.abs() <= MAX_SAFE as f64;
    match st.rng.below(7) {
        0 => debug,
        // The RFC 8785 (ECMAScript) spelling: integer syntax up to 1e21, beyond 2^53 too.
        5 => ryu_js::Buffer::new().format_finite(v).to_string(),
        1 => format!("{v:e}"),
        2 => format!("{v:E}"),
        3 if safe_int => {
            if v == 0.0 && v.is_sign_negative() {
                "-0".to_string()
            } else {
                format!("{}", v as i64)
            }
        }
        _ => {
            // Mantissa with trailing zeros, exponent with a sign and leading zeros.
            let e = format!("{v:e}");
            let (mant, exp) = e.split_once('e').unwrap_or((&e, "0"));
            let mant = if mant.contains('.') {
                format!("{mant}00")
            } else {
                format!("{mant}.0")
            };
            let (sign, digits) = match exp.strip_prefix('-') {
                Some(d) => ("-", d),
                None => (["+", ""][st.rng.below(2)], exp),
            };
            format!("{mant}{}{sign}00{digits}", ["e", "E"][st.rng.below(2)])
        }
    }
}

fn write_str(out: &mut String, s: &str, st: &mut Style) {
    out.push('"');
    for c in s.chars() {
        let extra = st.escapes && st.rng.one_in(6);
        let upper = st.escapes && st.rng.one_in(2);
        let u = |out: &mut String, c: char| {
            let mut buf = [0u16; 2];
            for unit in c.encode_utf16(&mut buf) {
                if upper {
                    out.push_str(&format!("\\u{unit:04X}"));
                } else {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
        };
        match c {
            '"' if !extra => out.push_str("\\\""),
            '\\' if !extra => out.push_str("\\\\"),
            '\u{8}' if !extra => out.push_str("\\b"),
            '\u{c}' if !extra => out.push_str("\\f"),
            '\n' if !extra => out.push_str("\\n"),
            '\r' if !extra => out.push_str("\\r"),
            '\t' if !extra => out.push_str("\\t"),
            '/' if extra && st.rng.one_in(2) => out.push_str("\\/"),
            c if extra || (c as u32) < 0x20 || c == '"' || c == '\\' => u(out, c),
            c => out.push(c),
        }
    }
    out.push('"');
}

// ---------------------------------------------------------------------------------------------
// Strategies: arbitrary JSON
// ---------------------------------------------------------------------------------------------

fn arb_char() -> impl Strategy<Value = char> {
    prop_oneof![
        6 => proptest::char::range(' ', '~'),
        1 => proptest::char::range('\u{0}', '\u{1F}'),
        2 => prop::sample::select(vec![
            '"', '\\', '/', '\u{7F}', '\u{80}', '\u{2028}', '\u{2029}', '\u{FEFF}', '\u{FFFD}',
            '\u{FFFF}', '\u{E000}', '\u{FB01}', '\u{10000}', '\u{1F600}', '\u{10FFFF}', 'é',
        ]),
        2 => proptest::char::range('\u{80}', '\u{D7FF}'),
        2 => proptest::char::range('\u{E000}', '\u{FFFF}'),
        2 => proptest::char::range('\u{10000}', '\u{10FFFF}'),
    ]
}

fn arb_string() -> impl Strategy<Value = String> {
    prop::collection::vec(arb_char(), 0..10).prop_map(|cs| cs.into_iter().collect())
}

/// Member names: arbitrary, or from a pool whose members sort differently by UTF-16 code unit
/// than by code point, or differ only in escaping-relevant characters.
fn arb_key() -> impl Strategy<Value = String> {
    prop_oneof![
        2 => prop::sample::select(vec![
            "", "a", "b", "A", "aa", "a\u{0}", "é", "e\u{301}", "\u{FB01}", "\u{E000}", "\u{FFFF}",
            "\u{10000}", "\u{1F600}", "\u{10FFFF}", "1", "10", "2", "/", "~", "~1", "\u{7F}",
            "\n", "\"", "\\", "\u{2028}",
        ])
        .prop_map(String::from),
        3 => arb_string(),
    ]
}

fn arb_number() -> impl Strategy<Value = f64> {
    use proptest::num::f64 as pf;
    prop_oneof![
        3 => (-MAX_SAFE..=MAX_SAFE).prop_map(|i| i as f64),
        2 => (-1000i64..=1000).prop_map(|i| i as f64),
        3 => pf::POSITIVE | pf::NEGATIVE | pf::NORMAL | pf::SUBNORMAL | pf::ZERO,
        2 => prop::sample::select(vec![
            1e21, 1e20, 999_999_999_999_999_900_000.0, 1e-7, 1e-6, 0.000001, -0.0, 0.0, 5e-324,
            f64::MAX, f64::MIN, f64::MIN_POSITIVE, f64::EPSILON, 9_007_199_254_740_992.0,
            -9_007_199_254_740_992.0, 9_007_199_254_740_991.0, 0.1, 1.0 / 3.0, 4.35, 2e-3,
            123_456_789_012_345_680_000.0, 1.5e300, -1.5e-300, 295_147_905_179_352_830_000.0,
        ]),
    ]
}

fn arb_leaf() -> impl Strategy<Value = J> {
    prop_oneof![
        1 => Just(J::Null),
        1 => any::<bool>().prop_map(J::Bool),
        3 => arb_number().prop_map(J::Num),
        3 => arb_string().prop_map(J::Str),
    ]
}

fn arb_json_with(keys: BoxedStrategy<String>) -> impl Strategy<Value = J> {
    arb_leaf().prop_recursive(5, 64, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(J::Arr),
            prop::collection::vec((keys.clone(), inner), 0..6)
                .prop_map(|ms| object(ms.into_iter().map(|(k, v)| Member::plain(k, v)).collect())),
        ]
    })
}

fn arb_json() -> impl Strategy<Value = J> {
    arb_json_with(arb_key().boxed())
}

fn arb_json_object() -> impl Strategy<Value = J> {
    prop::collection::vec((arb_key(), arb_json()), 0..6)
        .prop_map(|ms| object(ms.into_iter().map(|(k, v)| Member::plain(k, v)).collect()))
}

// ---------------------------------------------------------------------------------------------
// Strategies: Agent Cards of valid shape, from the presence table
// ---------------------------------------------------------------------------------------------

/// A string field's value: the default `""` or not.
fn string_value() -> BoxedStrategy<J> {
    prop_oneof![1 => Just(J::Str(String::new())), 4 => arb_string().prop_map(J::Str)].boxed()
}

fn field_value(f: &'static FieldDesc) -> BoxedStrategy<J> {
    match f.kind {
        Kind::String => string_value(),
        Kind::Bool => any::<bool>().prop_map(J::Bool).boxed(),
        Kind::Message(inner) => message(inner),
        Kind::Struct => arb_json_object().boxed(),
        Kind::RepeatedString => prop::collection::vec(string_value(), 0..4)
            .prop_map(J::Arr)
            .boxed(),
        Kind::RepeatedMessage(inner) => prop::collection::vec(message(inner), 0..3)
            .prop_map(J::Arr)
            .boxed(),
        Kind::MapString => prop::collection::vec((arb_key(), string_value()), 0..4)
            .prop_map(|ms| object(ms.into_iter().map(|(k, v)| Member::plain(k, v)).collect()))
            .boxed(),
        Kind::MapMessage(inner) => prop::collection::vec((arb_key(), message(inner)), 0..3)
            .prop_map(|ms| object(ms.into_iter().map(|(k, v)| Member::plain(k, v)).collect()))
            .boxed(),
    }
}

fn member_of(f: &'static FieldDesc, value: J) -> Member {
    Member {
        name: f.json.to_string(),
        alt: (f.proto != f.json).then(|| f.proto.to_string()),
        value,
    }
}

/// A member name no message of the schema defines.
fn unknown_name() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => arb_string().prop_map(|s| format!("x-{s}")),
        1 => prop::sample::select(vec![
            "Name", "skill", "default-input-modes", "supportedinterfaces", "Signatures", "url_",
            "\u{1F600}", "",
        ])
        .prop_map(String::from),
    ]
}

/// One message object: each field absent, present (REQUIRED fields mostly present) or `null`;
/// at most one member of each oneof; sometimes an unknown member.
fn message(desc: &'static MessageDesc) -> BoxedStrategy<J> {
    let mut parts: Vec<BoxedStrategy<Vec<Member>>> = Vec::new();
    let mut groups: Vec<&'static str> = Vec::new();
    for f in desc.fields {
        if let Some(g) = f.oneof {
            if !groups.contains(&g) {
                groups.push(g);
            }
            continue;
        }
        let present = if f.presence == Presence::Required { 8 } else { 3 };
        parts.push(
            prop_oneof![
                2 => Just(Vec::new()),
                present => field_value(f).prop_map(move |v| vec![member_of(f, v)]),
                1 => Just(vec![member_of(f, J::Null)]),
            ]
            .boxed(),
        );
    }
    for g in groups {
        let mut choices: Vec<BoxedStrategy<Vec<Member>>> = desc
            .fields
            .iter()
            .filter(|f| f.oneof == Some(g))
            .map(|f| field_value(f).prop_map(move |v| vec![member_of(f, v)]).boxed())
            .collect();
        choices.push(Just(Vec::new()).boxed());
        parts.push(Union::new(choices).boxed());
    }
    parts.push(
        prop_oneof![
            3 => Just(Vec::new()),
            1 => prop::collection::vec((unknown_name(), arb_json()), 1..3).prop_map(|ms| ms
                .into_iter()
                .map(|(k, v)| Member::plain(k, v))
                .collect()),
        ]
        .boxed(),
    );
    parts
        .prop_map(|ps| object(ps.into_iter().flatten().collect()))
        .boxed()
}

fn arb_card() -> BoxedStrategy<J> {
    message(&AGENT_CARD)
}

/// Every field name of the schema, JSON and proto spelling.
fn schema_names() -> Vec<String> {
    let mut names: Vec<String> = ALL_MESSAGES
        .iter()
        .flat_map(|m| {
            m.fields
                .iter()
                .flat_map(|f| [f.json.to_string(), f.proto.to_string()])
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Objects whose member names are mostly schema names, with values of any type: type
/// mismatches, oneof conflicts and dual names at every depth.
fn arb_cardish() -> impl Strategy<Value = J> {
    let keys = prop_oneof![
        4 => prop::sample::select(schema_names()),
        1 => arb_key(),
    ]
    .boxed();
    prop::collection::vec((keys.clone(), arb_json_with(keys)), 0..12)
        .prop_map(|ms| object(ms.into_iter().map(|(k, v)| Member::plain(k, v)).collect()))
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

fn config() -> Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(64);
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}

fn opts(profile: Profile, unknown: UnknownMembers) -> CanonicalizeOptions {
    CanonicalizeOptions {
        profile,
        unknown,
        ..Default::default()
    }
}

const PROFILES: [Profile; 3] = [Profile::Spec, Profile::PruneEmpty, Profile::ServedAsIs];
const UNKNOWN: [UnknownMembers; 3] = [
    UnknownMembers::Exclude,
    UnknownMembers::Retain,
    UnknownMembers::Reject,
];

/// The result with `unsigned` in a fixed order (it is in document order, which shuffling changes).
fn sorted(r: Result<Canonical, Error>) -> Result<Canonical, a2a_card::ErrorCode> {
    r.map(|mut c| {
        c.unsigned.sort();
        c
    })
    .map_err(|e| e.code())
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Invariants of any result on any input: errors are placed sensibly, and output is its own
/// RFC 8785 form and unchanged by `served-as-is`.
fn check_result(input: &[u8], r: &Result<Canonical, Error>) -> Result<(), TestCaseError> {
    match r {
        Err(e) => {
            if let Some(p) = e.pointer() {
                prop_assert!(p.is_empty() || p.starts_with('/'), "pointer {p:?} for {e}");
            }
            if let Some(o) = e.offset() {
                prop_assert!(o <= input.len(), "offset {o} beyond the input for {e}");
            }
            prop_assert!(!e.message().is_empty());
        }
        Ok(c) => {
            let again = jcs(&c.bytes);
            prop_assert_eq!(
                again.as_ref().map(|b| text(b)),
                Ok(text(&c.bytes)),
                "canonical output is not its own JCS form; input {}",
                text(input)
            );
            let served = canonicalize(&c.bytes, &opts(Profile::ServedAsIs, UnknownMembers::Exclude));
            prop_assert_eq!(
                served.map(|s| text(&s.bytes)).map_err(|e| e.to_string()),
                Ok(text(&c.bytes)),
                "served-as-is changes canonical output; input {}",
                text(input)
            );
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// An independent model of the three profiles, for generated cards (JSON names only)
// ---------------------------------------------------------------------------------------------

/// The JSON value as serde_json holds it (numbers as doubles).
fn to_serde(j: &J) -> serde_json::Value {
    use serde_json::Value as S;
    match j {
        J::Null => S::Null,
        J::Bool(b) => S::Bool(*b),
        J::Num(v) => serde_json::Number::from_f64(*v).map_or(S::Null, S::Number),
        J::Str(s) => S::String(s.clone()),
        J::Arr(items) => S::Array(items.iter().map(to_serde).collect()),
        J::Obj(ms) => S::Object(ms.iter().map(|m| (m.name.clone(), to_serde(&m.value))).collect()),
    }
}

/// What the model does with one profile.
#[derive(Clone, Copy)]
struct Model {
    /// `prune-empty`: REQUIRED defaults dropped too, then every "", [], {} and null removed.
    prune: bool,
    retain_unknown: bool,
}

impl Model {
    fn message(self, members: &[Member], desc: &MessageDesc, root: bool) -> serde_json::Value {
        let mut out = serde_json::Map::new();
        for m in members {
            if root && m.name == "signatures" {
                continue;
            }
            let Some(f) = desc.fields.iter().find(|f| f.json == m.name) else {
                if self.retain_unknown {
                    out.insert(m.name.clone(), to_serde(&m.value));
                }
                continue;
            };
            if let Some(v) = self.field(f, &m.value) {
                out.insert(f.json.to_string(), v);
            }
        }
        serde_json::Value::Object(out)
    }

    /// The field's value, or None when the presence rules leave it out.
    fn field(self, f: &FieldDesc, v: &J) -> Option<serde_json::Value> {
        use serde_json::Value as S;
        let keep_default = match f.presence {
            Presence::Required => !self.prune,
            Presence::Optional | Presence::Message => true,
            Presence::Implicit => false,
        };
        let is_default = match v {
            J::Null => return None,
            J::Str(s) => s.is_empty(),
            J::Bool(b) => !*b,
            J::Arr(a) => a.is_empty(),
            // Message fields have presence; only maps are "empty" at their default.
            J::Obj(ms) => matches!(f.kind, Kind::MapString | Kind::MapMessage(_)) && ms.is_empty(),
            J::Num(_) => false,
        };
        if is_default && !keep_default {
            return None;
        }
        Some(match (f.kind, v) {
            (Kind::Message(inner), J::Obj(ms)) => self.message(ms, inner, false),
            (Kind::RepeatedMessage(inner), J::Arr(items)) => S::Array(
                items
                    .iter()
                    .map(|i| match i {
                        J::Obj(ms) => self.message(ms, inner, false),
                        other => to_serde(other),
                    })
                    .collect(),
            ),
            (Kind::MapMessage(inner), J::Obj(ms)) => S::Object(
                ms.iter()
                    .map(|m| {
                        let v = match &m.value {
                            J::Obj(inner_ms) => self.message(inner_ms, inner, false),
                            other => to_serde(other),
                        };
                        (m.name.clone(), v)
                    })
                    .collect(),
            ),
            (_, other) => to_serde(other),
        })
    }

    fn canonical(self, card: &J) -> String {
        let J::Obj(ms) = card else {
            return String::new();
        };
        let mut v = self.message(ms, &AGENT_CARD, true);
        if self.prune {
            prune(&mut v);
        }
        text(&serde_json_canonicalizer::to_vec(&v).unwrap_or_default())
    }
}

/// Removes every "", [], {} and null below `v`, innermost first.
fn prune(v: &mut serde_json::Value) {
    use serde_json::Value as S;
    fn empty(v: &S) -> bool {
        match v {
            S::Null => true,
            S::String(s) => s.is_empty(),
            S::Array(a) => a.is_empty(),
            S::Object(o) => o.is_empty(),
            _ => false,
        }
    }
    match v {
        S::Array(items) => {
            items.iter_mut().for_each(prune);
            items.retain(|i| !empty(i));
        }
        S::Object(members) => {
            members.values_mut().for_each(prune);
            members.retain(|_, i| !empty(i));
        }
        _ => {}
    }
}

/// served-as-is: every member but `signatures`, RFC 8785 only.
fn model_served(card: &J) -> String {
    let mut v = to_serde(card);
    if let serde_json::Value::Object(m) = &mut v {
        m.shift_remove("signatures");
    }
    text(&serde_json_canonicalizer::to_vec(&v).unwrap_or_default())
}

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(config())]

    /// (a) order, whitespace, escapes and number spelling do not change any profile's output.
    #[test]
    fn card_order_and_whitespace_do_not_matter(card in arb_card(), s1 in any::<u64>(), s2 in any::<u64>()) {
        let base = render(&card, &mut Style::plain());
        let v1 = render(&card, &mut Style::varied(s1));
        let v2 = render(&card, &mut Style::varied(s2));
        // A card of valid shape always canonicalizes under the defaults.
        let spec = canonicalize(base.as_bytes(), &CanonicalizeOptions::default());
        prop_assert!(spec.is_ok(), "valid card refused: {:?}\n{}", spec.err(), base);
        for profile in PROFILES {
            for unknown in UNKNOWN {
                let o = opts(profile, unknown);
                let r0 = sorted(canonicalize(base.as_bytes(), &o));
                let r1 = sorted(canonicalize(v1.as_bytes(), &o));
                let r2 = sorted(canonicalize(v2.as_bytes(), &o));
                prop_assert_eq!(&r0, &r1, "{:?}/{:?}\nbase: {}\nvaried: {}", profile, unknown, base, v1);
                prop_assert_eq!(&r0, &r2, "{:?}/{:?}\nbase: {}\nvaried: {}", profile, unknown, base, v2);
            }
        }
        prop_assert_eq!(jcs(base.as_bytes()), jcs(v1.as_bytes()));
    }

    /// (f) each profile's bytes equal those of an independent model of its rules (written from
    /// the profile descriptions, serialized by serde_json_canonicalizer).
    #[test]
    fn profiles_match_an_independent_model(card in arb_card(), s1 in any::<u64>()) {
        let input = render(&card, &mut Style::varied(s1));
        for (profile, prune) in [(Profile::Spec, false), (Profile::PruneEmpty, true)] {
            for (unknown, retain_unknown) in [(UnknownMembers::Exclude, false), (UnknownMembers::Retain, true)] {
                let ours = canonicalize(input.as_bytes(), &opts(profile, unknown))
                    .map(|c| text(&c.bytes))
                    .map_err(|e| e.to_string());
                let model = Model { prune, retain_unknown }.canonical(&card);
                prop_assert_eq!(ours, Ok(model), "{:?}/{:?}; input {}", profile, unknown, input);
            }
        }
        let ours = canonicalize(input.as_bytes(), &opts(Profile::ServedAsIs, UnknownMembers::Exclude))
            .map(|c| text(&c.bytes))
            .map_err(|e| e.to_string());
        prop_assert_eq!(ours, Ok(model_served(&card)), "served-as-is; input {}", input);
    }

    /// (a) under spec and prune-empty, proto names give the same bytes as JSON names.
    #[test]
    fn card_proto_names_do_not_matter(card in arb_card(), s1 in any::<u64>()) {
        let base = render(&card, &mut Style::plain());
        let alt = render(&card, &mut Style::varied(s1).with_alt_names());
        for profile in [Profile::Spec, Profile::PruneEmpty] {
            for unknown in [UnknownMembers::Exclude, UnknownMembers::Retain] {
                let o = opts(profile, unknown);
                let r0 = canonicalize(base.as_bytes(), &o).map(|c| text(&c.bytes));
                let r1 = canonicalize(alt.as_bytes(), &o).map(|c| text(&c.bytes));
                prop_assert!(r0.is_ok(), "{:?}/{:?} refused {}: {:?}", profile, unknown, base, r0);
                prop_assert_eq!(&r0, &r1, "{:?}/{:?}\nbase: {}\nproto names: {}", profile, unknown, base, alt);
            }
        }
    }

    /// (a) plain RFC 8785 does not depend on order, whitespace, escapes or number spelling.
    #[test]
    fn jcs_order_and_whitespace_do_not_matter(v in arb_json(), s1 in any::<u64>()) {
        let base = render(&v, &mut Style::plain());
        let varied = render(&v, &mut Style::varied(s1));
        let r0 = jcs(base.as_bytes()).map(|b| text(&b));
        prop_assert!(r0.is_ok(), "generated JSON refused: {:?}\n{}", r0, base);
        prop_assert_eq!(r0, jcs(varied.as_bytes()).map(|b| text(&b)), "\nbase: {}\nvaried: {}", base, varied);
    }

    /// (b), (c) canonical bytes are a fixed point of served-as-is and of jcs; spec is idempotent.
    #[test]
    fn card_canonical_bytes_are_a_fixed_point(card in arb_card(), s1 in any::<u64>()) {
        let input = render(&card, &mut Style::varied(s1).with_alt_names());
        for profile in PROFILES {
            for unknown in UNKNOWN {
                let r = canonicalize(input.as_bytes(), &opts(profile, unknown));
                check_result(input.as_bytes(), &r)?;
                if let (Profile::Spec, UnknownMembers::Exclude | UnknownMembers::Retain, Ok(c)) = (profile, unknown, &r) {
                    let again = canonicalize(&c.bytes, &opts(Profile::Spec, unknown));
                    prop_assert_eq!(
                        again.as_ref().map(|a| text(&a.bytes)).map_err(|e| e.to_string()),
                        Ok(text(&c.bytes)),
                        "spec is not idempotent; input {}", input
                    );
                    if unknown == UnknownMembers::Exclude {
                        prop_assert_eq!(again.map(|a| a.unsigned), Ok(Vec::<String>::new()));
                    }
                }
                if let (Profile::PruneEmpty, Ok(c)) = (profile, &r) {
                    let again = canonicalize(&c.bytes, &opts(Profile::PruneEmpty, unknown));
                    prop_assert_eq!(
                        again.map(|a| text(&a.bytes)).map_err(|e| e.to_string()),
                        Ok(text(&c.bytes)),
                        "prune-empty is not idempotent; input {}", input
                    );
                }
            }
        }
        let once = jcs(input.as_bytes());
        prop_assert!(once.is_ok());
        let once = once.unwrap_or_default();
        prop_assert_eq!(jcs(&once).map(|b| text(&b)), Ok(text(&once)));
    }

    /// (b) jcs(jcs(x)) == jcs(x) for any JSON value.
    #[test]
    fn jcs_is_idempotent(v in arb_json(), s1 in any::<u64>()) {
        let input = render(&v, &mut Style::varied(s1));
        let once = jcs(input.as_bytes());
        prop_assert!(once.is_ok(), "generated JSON refused: {:?}\n{}", once, input);
        let once = once.unwrap_or_default();
        prop_assert_eq!(jcs(&once).map(|b| text(&b)), Ok(text(&once)), "input {}", input);
    }

    /// (d) jcs agrees with serde_json_canonicalizer on JSON both accept.
    #[test]
    fn jcs_agrees_with_serde_json_canonicalizer(v in arb_json(), s1 in any::<u64>()) {
        let input = render(&v, &mut Style::varied(s1));
        let ours = jcs(input.as_bytes()).map(|b| text(&b));
        prop_assert!(ours.is_ok(), "generated JSON refused: {:?}\n{}", ours, input);
        let value: Result<serde_json::Value, _> = serde_json::from_str(&input);
        prop_assert!(value.is_ok(), "serde_json refused {}: {:?}", input, value.err());
        let theirs = value
            .map_err(|e| e.to_string())
            .and_then(|v| serde_json_canonicalizer::to_vec(&v).map_err(|e| e.to_string()))
            .map(|b| text(&b));
        prop_assert_eq!(ours.map_err(|e| e.to_string()), theirs, "input {}", input);
    }

    /// (e) nothing panics on arbitrary bytes.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        for profile in PROFILES {
            for unknown in UNKNOWN {
                let r = canonicalize(&bytes, &opts(profile, unknown));
                check_result(&bytes, &r)?;
            }
        }
        let _ = jcs(&bytes);
    }

    /// (e) nothing panics on mutated JSON text: bytes replaced, inserted (JSON punctuation and
    /// invalid UTF-8) or cut, under the default limits and under tight ones.
    #[test]
    fn mutated_cards_never_panic(card in arb_card(), s1 in any::<u64>(), edits in 1usize..6) {
        let mut bytes = render(&card, &mut Style::varied(s1).with_alt_names()).into_bytes();
        let mut rng = Rng(s1 ^ 0x5555);
        const NOISE: &[u8] = b"{}[]:,\"\\u0-+.eE \xff\xc0\xed\xa0\x80\xf0\x9f";
        for _ in 0..edits {
            let at = rng.below(bytes.len() + 1);
            match rng.below(4) {
                0 if at < bytes.len() => bytes[at] = NOISE[rng.below(NOISE.len())],
                1 => bytes.insert(at, NOISE[rng.below(NOISE.len())]),
                2 if at < bytes.len() => { bytes.remove(at); }
                _ => bytes.truncate(at),
            }
        }
        let tight = Limits { max_input_bytes: 200, max_depth: 3 };
        for profile in PROFILES {
            for unknown in UNKNOWN {
                for limits in [Limits::default(), tight] {
                    let o = CanonicalizeOptions { profile, unknown, limits };
                    let r = canonicalize(&bytes, &o);
                    check_result(&bytes, &r)?;
                }
            }
        }
        let _ = jcs(&bytes);
    }

    /// (e) nothing panics on arbitrary JSON objects and on card-like objects of any types.
    #[test]
    fn arbitrary_objects_never_panic(obj in arb_json_object(), cardish in arb_cardish(), s1 in any::<u64>()) {
        for v in [&obj, &cardish] {
            let input = render(v, &mut Style::varied(s1));
            for profile in PROFILES {
                for unknown in UNKNOWN {
                    let r = canonicalize(input.as_bytes(), &opts(profile, unknown));
                    check_result(input.as_bytes(), &r)?;
                }
            }
        }
    }
}

/// The place of the member or item a JSON Pointer names in `doc`: the index of each step in
/// its object (input order) or array. `None` when the pointer does not resolve.
fn place_of(doc: &serde_json::Value, pointer: &str) -> Option<Vec<usize>> {
    use serde_json::Value as V;
    let mut at = doc;
    let mut place = Vec::new();
    for token in pointer.split('/').skip(1) {
        let token = token.replace("~1", "/").replace("~0", "~");
        at = match at {
            V::Object(members) => {
                // serde_json keeps input order here (feature preserve_order).
                let i = members.keys().position(|k| *k == token)?;
                place.push(i);
                &members[&token]
            }
            V::Array(items) => {
                let i: usize = token.parse().ok()?;
                place.push(i);
                items.get(i)?
            }
            _ => return None,
        };
    }
    Some(place)
}

proptest! {
    #![proptest_config(config())]

    /// (g) Unsigned pointers come in document order: each names a member of the input, no
    /// pointer is listed twice, and their places (index paths, resolved here on the document read
    /// into a serde_json value, apart from the walk) ascend; a member comes before the members
    /// inside it.
    #[test]
    fn unsigned_pointers_are_in_document_order(card in arb_card(), cardish in arb_cardish(), s1 in any::<u64>()) {
        for v in [&card, &cardish] {
            let input = render(v, &mut Style::varied(s1));
            let Ok(doc) = a2a_card::canonical::parse_json(input.as_bytes(), &Default::default()) else { continue };
            for profile in [Profile::Spec, Profile::PruneEmpty] {
                let Ok(c) = canonicalize(input.as_bytes(), &opts(profile, UnknownMembers::Exclude)) else { continue };
                let places: Vec<Vec<usize>> = c
                    .unsigned
                    .iter()
                    .map(|p| place_of(&doc, p).ok_or_else(|| TestCaseError::fail(format!("{p} does not resolve in {input}"))))
                    .collect::<Result<_, _>>()?;
                for w in places.windows(2) {
                    prop_assert!(w[0] < w[1], "{:?} not in document order for {}: {}", c.unsigned, profile.as_str(), input);
                }
            }
        }
    }
}

/// Regression (found by the fixed-point properties): a finite double with 2^53 <= |v| < 1e21 is
/// integral, and RFC 8785 writes it in integer syntax (`1e20` -> `100000000000000000000`); the
/// reader used to refuse that output as an integer beyond +-(2^53-1), so canonical bytes did not
/// read back. The generators now produce such numbers everywhere, and the renderer also spells
/// numbers the RFC 8785 way; this test keeps the minimal cases.
#[test]
fn large_integral_numbers_survive_a_second_reading() {
    for input in [
        "[9007199254740992.0]",
        "[1e20]",
        "[123456789012345680000.0]",
        "[-1.5e20]",
    ] {
        let once = jcs(input.as_bytes()).expect("the input is I-JSON");
        let twice = jcs(&once);
        assert_eq!(
            twice.as_ref().map(|b| text(b)).map_err(|e| e.to_string()),
            Ok(text(&once)),
            "{input}"
        );
    }
    let card = br#"{"name":"n","capabilities":{"extensions":[{"params":{"big":1e20}}]}}"#;
    let c = canonicalize(card, &CanonicalizeOptions::default()).expect("the card canonicalizes");
    let again = canonicalize(&c.bytes, &opts(Profile::ServedAsIs, UnknownMembers::Exclude));
    assert_eq!(
        again.map(|a| text(&a.bytes)).map_err(|e| e.to_string()),
        Ok(text(&c.bytes))
    );
}

/// Regression (found by `profiles_match_an_independent_model`): under `prune-empty` with
/// `retain`, a retained unknown member of a message whose value is `null` used to be kept
/// (`{"x-":null}` stayed `{"x-":null}`), though the profile removes every `null` and did remove
/// nulls nested inside retained values.
#[test]
fn retained_unknown_null_is_pruned() {
    let o = opts(Profile::PruneEmpty, UnknownMembers::Retain);
    for (input, expected, unsigned) in [
        (r#"{"x-":null}"#, "{}", vec!["/x-"]),
        (r#"{"name":"n","x-":null}"#, r#"{"name":"n"}"#, vec!["/x-"]),
        (
            r#"{"skills":[{"id":"a","x-":null}]}"#,
            r#"{"skills":[{"id":"a"}]}"#,
            vec!["/skills/0/x-"],
        ),
    ] {
        let c = canonicalize(input.as_bytes(), &o).expect("the card canonicalizes");
        assert_eq!(text(&c.bytes), expected, "{input}");
        assert_eq!(c.unsigned, unsigned, "{input}");
    }
}
