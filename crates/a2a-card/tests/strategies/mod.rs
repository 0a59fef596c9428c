//! What the property tests (`properties.rs`, `properties_sign.rs`) generate: arbitrary JSON
//! values (strings over all of Unicode, astral characters and U+E000..U+FFFF included; integers
//! within +-(2^53-1) and any finite double; nested arrays and objects with unique member names)
//! and Agent Cards of valid shape, generated from the presence table (random presence of
//! optional fields, defaults and non-defaults, `null` members, unknown members, proto names,
//! `signatures`); a renderer that writes a value out as JSON text and, driven by a seed,
//! shuffles member order, adds whitespace, escapes characters that need no escape and spells
//! numbers in different ways; and the proptest settings both files use.

#![allow(dead_code)] // each test crate uses part of it

use a2a_card::canonical::table::{FieldDesc, Kind, MessageDesc, Presence, AGENT_CARD, ALL_MESSAGES};
use a2a_card_testkit::rng::Rng;
use proptest::prelude::*;
use proptest::strategy::Union;
use proptest::test_runner::Config;
use std::collections::HashSet;

pub const MAX_SAFE: i64 = 9_007_199_254_740_991;

// ---------------------------------------------------------------------------------------------
// The value model and its renderer
// ---------------------------------------------------------------------------------------------

/// A JSON value as generated. Object members may carry an alternative name (the proto name of a
/// field) that the renderer may use instead.
#[derive(Debug, Clone)]
pub enum J {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<Member>),
}

#[derive(Debug, Clone)]
pub struct Member {
    /// The JSON name.
    pub name: String,
    /// The proto name, where it differs.
    pub alt: Option<String>,
    /// The value.
    pub value: J,
}

impl Member {
    pub fn plain(name: String, value: J) -> Self {
        Member {
            name,
            alt: None,
            value,
        }
    }
}

/// Builds an object, dropping members whose name (or alternative name) was already used.
pub fn object(members: Vec<Member>) -> J {
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

/// How to write a value out.
pub struct Style {
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
    pub fn plain() -> Self {
        Style {
            rng: Rng::new(0),
            shuffle: false,
            whitespace: false,
            escapes: false,
            numbers: false,
            alt_names: false,
        }
    }
    /// Everything varied except the names.
    pub fn varied(seed: u64) -> Self {
        Style {
            rng: Rng::new(seed),
            shuffle: true,
            whitespace: true,
            escapes: true,
            numbers: true,
            alt_names: false,
        }
    }
    /// Compact, minimal escapes, JSON names, members shuffled.
    pub fn shuffled(seed: u64) -> Self {
        Style {
            shuffle: true,
            ..Style::plain()
        }
        .seeded(seed)
    }
    fn seeded(mut self, seed: u64) -> Self {
        self.rng = Rng::new(seed);
        self
    }
    /// The same, naming fields by their proto name at random.
    pub fn with_alt_names(mut self) -> Self {
        self.alt_names = true;
        self
    }
}

pub fn render(j: &J, style: &mut Style) -> String {
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
                st.rng.shuffle(&mut order);
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

pub fn arb_string() -> impl Strategy<Value = String> {
    prop::collection::vec(arb_char(), 0..10).prop_map(|cs| cs.into_iter().collect())
}

/// Member names: arbitrary, or from a pool whose members sort differently by UTF-16 code unit
/// than by code point, or differ only in escaping-relevant characters.
pub fn arb_key() -> impl Strategy<Value = String> {
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

pub fn arb_number() -> impl Strategy<Value = f64> {
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

pub fn arb_json() -> impl Strategy<Value = J> {
    arb_json_with(arb_key().boxed())
}

pub fn arb_json_object() -> impl Strategy<Value = J> {
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
        Kind::RepeatedMapStringList | Kind::MapByType(_) => {
            unreachable!("only the a2a-sdk 0.3 model has {:?}", f.kind)
        }
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

pub fn arb_card() -> BoxedStrategy<J> {
    message(&AGENT_CARD)
}

/// A card without a `signatures` member (for signing: `sign_card` adds it).
pub fn arb_unsigned_card() -> BoxedStrategy<J> {
    arb_card()
        .prop_map(|card| match card {
            J::Obj(members) => J::Obj(members.into_iter().filter(|m| m.name != "signatures").collect()),
            other => other,
        })
        .boxed()
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
pub fn arb_cardish() -> impl Strategy<Value = J> {
    let keys = prop_oneof![
        4 => prop::sample::select(schema_names()),
        1 => arb_key(),
    ]
    .boxed();
    prop::collection::vec((keys.clone(), arb_json_with(keys)), 0..12)
        .prop_map(|ms| object(ms.into_iter().map(|(k, v)| Member::plain(k, v)).collect()))
}

/// The JSON value as serde_json holds it (numbers as doubles).
pub fn to_serde(j: &J) -> serde_json::Value {
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

// ---------------------------------------------------------------------------------------------
// Settings
// ---------------------------------------------------------------------------------------------

/// `default_cases` cases per property unless `PROPTEST_CASES` says otherwise; failures are not
/// persisted to files (proptest prints the shrunk input).
pub fn config(default_cases: u32) -> Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default_cases);
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}
