//! The one reader of the canonicalization vectors (`testvectors/canonical/*.json`, format in
//! `testvectors/README.md`), for every Rust test crate that runs them. It reads each file
//! strictly: an unknown key, a missing or doubled input or expectation, or an id that is not the
//! file name is a format error, reported like a mismatch so that a broken file never passes.
//! A vector whose input is one of the specification's sample cards (`testvectors/cards/`) names
//! that file (`card`) and the specification commit it was taken from (`spec_commit`, 40
//! hexadecimal digits), and every card there is named by a vector, always with one commit.

use crate::data::{json_files, testvectors_dir, unhex};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// The keys a vector file may have.
pub const KNOWN_KEYS: &[&str] = &[
    "id",
    "description",
    "provenance",
    "profile",
    "unknown",
    "limits",
    "input",
    "input_raw",
    "input_hex",
    "expected_hex",
    "expected_unsigned",
    "expected_error",
    "card",
    "spec_commit",
];

/// What a vector expects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expected {
    /// Success: these canonical bytes, and these unsigned pointers in this order.
    Bytes {
        /// The canonical bytes.
        bytes: Vec<u8>,
        /// The JSON Pointers of the members left out.
        unsigned: Vec<String>,
    },
    /// Refusal with this code, at this pointer when one is given.
    Error {
        /// The error code.
        code: String,
        /// The JSON Pointer, when the vector names one.
        pointer: Option<String>,
    },
}

/// One canonicalization vector.
#[derive(Debug, Clone)]
pub struct Vector {
    /// Its id (the file name without `.json`).
    pub id: String,
    /// `spec`, `prune-empty`, `served-as-is`, `a2a-sdk-0.3` or `a2a-sdk-0.3.21`.
    pub profile: String,
    /// `exclude`, `retain` or `reject`, when given.
    pub unknown: Option<String>,
    /// `limits.max_input_bytes`, when given.
    pub max_input_bytes: Option<usize>,
    /// `limits.max_depth`, when given.
    pub max_depth: Option<usize>,
    /// The exact input bytes.
    pub input: Vec<u8>,
    /// The input as a JSON value, when the vector gives it as `input` (not raw bytes).
    pub input_value: Option<Value>,
    /// What must come out.
    pub expected: Expected,
    /// The file of `testvectors/cards/` the input is, when it is one of the specification's
    /// samples.
    pub card: Option<String>,
    /// The commit of the specification (`a2aproject/A2A`, `docs/specification.md`) the card was
    /// taken from, given with `card`.
    pub spec_commit: Option<String>,
}

/// Every vector file, sorted by name, each read or the reason it could not be; then, for a card
/// of `testvectors/cards/` that no vector names or that vectors name with two commits, the card's
/// path and the reason.
pub fn canonical_vectors() -> Vec<(PathBuf, Result<Vector, String>)> {
    let cards = sample_cards();
    let mut out: Vec<(PathBuf, Result<Vector, String>)> = json_files(&testvectors_dir().join("canonical"))
        .into_iter()
        .map(|p| {
            let v = load(&p).and_then(|v| check_card(v, &cards));
            (p, v)
        })
        .collect();
    for (name, path, _) in &cards {
        let commits: std::collections::BTreeSet<&str> = out
            .iter()
            .filter_map(|(_, v)| v.as_ref().ok())
            .filter(|v| v.card.as_deref() == Some(name.as_str()))
            .filter_map(|v| v.spec_commit.as_deref())
            .collect();
        match commits.len() {
            1 => {}
            0 => out.push((
                path.clone(),
                Err(format!(
                    "no vector of testvectors/canonical names the card `{name}`"
                )),
            )),
            _ => out.push((
                path.clone(),
                Err(format!(
                    "the vectors naming `{name}` give different spec_commit values: {commits:?}"
                )),
            )),
        }
    }
    out
}

/// The sample cards of `testvectors/cards/`: file name, path and JSON value.
pub fn sample_cards() -> Vec<(String, PathBuf, Value)> {
    json_files(&testvectors_dir().join("cards"))
        .into_iter()
        .map(|p| {
            let v = crate::data::read_json(&p);
            (crate::data::file_name(&p), p, v)
        })
        .collect()
}

/// A vector's `card` and `spec_commit`: given together, the commit 40 lower-case hexadecimal
/// digits, the card a file of `cards` whose JSON value is the vector's input; and a vector whose
/// input is one of `cards` must name it.
fn check_card(v: Vector, cards: &[(String, PathBuf, Value)]) -> Result<Vector, String> {
    let same = v
        .input_value
        .as_ref()
        .and_then(|input| cards.iter().find(|(_, _, card)| card == input));
    match (&v.card, &v.spec_commit) {
        (None, None) => match same {
            Some((name, _, _)) => Err(format!(
                "the input is the card `{name}` of testvectors/cards: name it with `card` and \
                 `spec_commit`"
            )),
            None => Ok(v),
        },
        (Some(_), None) => Err("`card` needs `spec_commit`".into()),
        (None, Some(_)) => Err("`spec_commit` needs `card`".into()),
        (Some(card), Some(commit)) => {
            if commit.len() != 40 || !commit.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
                return Err(format!(
                    "`spec_commit` must be 40 lower-case hexadecimal digits, found {commit:?}"
                ));
            }
            match same {
                Some((name, _, _)) if name == card => Ok(v),
                _ if !cards.iter().any(|(name, _, _)| name == card) => Err(format!(
                    "`card` names `{card}`, which is not a file of testvectors/cards"
                )),
                _ => Err(format!("the input is not the card `{card}` of testvectors/cards")),
            }
        }
    }
}

/// Every vector, each one read (panics, naming the file, on a malformed one).
pub fn canonical_vectors_or_panic() -> Vec<Vector> {
    canonical_vectors()
        .into_iter()
        .map(|(p, v)| v.unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        .collect()
}

fn str_field<'a>(o: &'a Map<String, Value>, key: &str) -> Result<Option<&'a str>, String> {
    match o.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(format!("`{key}` must be a string, found {other}")),
    }
}

fn usize_field(o: &Map<String, Value>, key: &str) -> Result<Option<usize>, String> {
    match o.get(key) {
        None => Ok(None),
        Some(v) => v
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .map(Some)
            .ok_or_else(|| format!("`limits.{key}` must be a non-negative integer")),
    }
}

/// Reads one vector file strictly.
pub fn load(path: &Path) -> Result<Vector, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"))?;
    let v: Value = serde_json::from_str(&text).map_err(|e| format!("not JSON: {e}"))?;
    let o = v.as_object().ok_or("a vector must be a JSON object")?;
    if let Some(k) = o.keys().find(|k| !KNOWN_KEYS.contains(&k.as_str())) {
        return Err(format!("unknown key `{k}`"));
    }
    let id = str_field(o, "id")?.ok_or("missing `id`")?.to_string();
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
    if stem != id {
        return Err(format!("id `{id}` does not match the file name `{stem}.json`"));
    }
    str_field(o, "description")?.ok_or("missing `description`")?;
    str_field(o, "provenance")?;
    let profile = str_field(o, "profile")?.ok_or("missing `profile`")?.to_string();
    let unknown = str_field(o, "unknown")?.map(str::to_string);
    let (mut max_input_bytes, mut max_depth) = (None, None);
    if let Some(l) = o.get("limits") {
        let l = l.as_object().ok_or("`limits` must be an object")?;
        if let Some(k) = l.keys().find(|k| *k != "max_input_bytes" && *k != "max_depth") {
            return Err(format!("unknown key `limits.{k}`"));
        }
        max_input_bytes = usize_field(l, "max_input_bytes")?;
        max_depth = usize_field(l, "max_depth")?;
    }
    let inputs = ["input", "input_raw", "input_hex"]
        .iter()
        .filter(|k| o.contains_key(**k))
        .count();
    if inputs != 1 {
        return Err(format!(
            "exactly one of input, input_raw, input_hex is required (found {inputs})"
        ));
    }
    let input_value = o.get("input").cloned();
    let input = if let Some(card) = &input_value {
        // Member order is preserved (serde_json `preserve_order`): it decides the document order
        // of unsigned pointers and which of two names comes second.
        serde_json::to_vec(card).map_err(|e| format!("cannot serialize `input`: {e}"))?
    } else if let Some(raw) = str_field(o, "input_raw")? {
        raw.as_bytes().to_vec()
    } else {
        unhex(str_field(o, "input_hex")?.ok_or("`input_hex` must be a string")?)
    };
    let expected = match (o.get("expected_hex"), o.get("expected_error")) {
        (Some(_), Some(_)) => return Err("both expected_hex and expected_error".into()),
        (None, None) => return Err("neither expected_hex nor expected_error".into()),
        (Some(h), None) => {
            let bytes = unhex(h.as_str().ok_or("`expected_hex` must be a string")?);
            let unsigned = o
                .get("expected_unsigned")
                .ok_or("`expected_unsigned` is required with `expected_hex`")?
                .as_array()
                .ok_or("`expected_unsigned` must be an array")?
                .iter()
                .map(|p| p.as_str().map(str::to_string).ok_or("pointers must be strings"))
                .collect::<Result<Vec<_>, _>>()?;
            Expected::Bytes { bytes, unsigned }
        }
        (None, Some(e)) => {
            if o.contains_key("expected_unsigned") {
                return Err("`expected_unsigned` does not go with `expected_error`".into());
            }
            let e = e.as_object().ok_or("`expected_error` must be an object")?;
            if let Some(k) = e.keys().find(|k| *k != "code" && *k != "pointer") {
                return Err(format!("unknown key `expected_error.{k}`"));
            }
            Expected::Error {
                code: str_field(e, "code")?
                    .ok_or("`expected_error.code` is required")?
                    .to_string(),
                pointer: str_field(e, "pointer")?.map(str::to_string),
            }
        }
    };
    Ok(Vector {
        id,
        profile,
        unknown,
        max_input_bytes,
        max_depth,
        input,
        input_value,
        expected,
        card: str_field(o, "card")?.map(str::to_string),
        spec_commit: str_field(o, "spec_commit")?.map(str::to_string),
    })
}

/// One `x5c` vector (`testvectors/x5c/vectors.json`, format in `testvectors/x5c/README.md`):
/// a card signed with a certificate chain and the verdict it must get.
#[derive(Debug, Clone)]
pub struct X5cVector {
    /// Its id.
    pub id: String,
    /// The card's bytes.
    pub card: Vec<u8>,
    /// The trust anchor files' text (PEM), with their file names.
    pub anchors: Vec<(String, String)>,
    /// The verification time, seconds since the Unix epoch.
    pub now: i64,
    /// The card's origin, when given.
    pub origin: Option<String>,
    /// Identities the leaf must name (URIs or DNS names).
    pub identities: Vec<String>,
    /// URI prefixes the leaf's URI SAN must start with.
    pub identity_prefixes: Vec<String>,
    /// An EKU the leaf must list.
    pub required_eku: Option<String>,
    /// The chain length limit, when given.
    pub max_chain: Option<usize>,
    /// `valid` or an error code.
    pub code: String,
    /// The verdict's JSON Pointer, when the vector names one.
    pub pointer: Option<String>,
}

const X5C_KEYS: &[&str] = &[
    "id",
    "description",
    "card",
    "anchors",
    "now",
    "origin",
    "identities",
    "identity_prefixes",
    "required_eku",
    "max_chain",
    "expected",
];

/// Every `x5c` vector, read strictly (panics, naming the vector, on a malformed one).
pub fn x5c_vectors() -> Vec<X5cVector> {
    let dir = testvectors_dir().join("x5c");
    let file: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("vectors.json")).unwrap()).unwrap();
    let strings = |o: &Map<String, Value>, k: &str| -> Vec<String> {
        o.get(k)
            .map(|v| {
                v.as_array()
                    .unwrap_or_else(|| panic!("`{k}` must be an array"))
                    .iter()
                    .map(|s| {
                        s.as_str()
                            .unwrap_or_else(|| panic!("`{k}` holds strings"))
                            .to_string()
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    file["vectors"]
        .as_array()
        .expect("a `vectors` array")
        .iter()
        .map(|v| {
            let o = v.as_object().expect("a vector is an object");
            let id = o["id"].as_str().expect("`id`").to_string();
            if let Some(k) = o.keys().find(|k| !X5C_KEYS.contains(&k.as_str())) {
                panic!("{id}: unknown key `{k}`");
            }
            assert!(o["description"].is_string(), "{id}: `description`");
            let read =
                |name: &str| std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{id}: {name}: {e}"));
            X5cVector {
                card: read(o["card"].as_str().expect("`card`")),
                anchors: strings(o, "anchors")
                    .into_iter()
                    .map(|n| (String::from_utf8(read(&n)).unwrap(), n))
                    .collect(),
                now: o["now"]
                    .as_i64()
                    .unwrap_or_else(|| panic!("{id}: `now` is an integer")),
                origin: o.get("origin").map(|s| s.as_str().expect("`origin`").to_string()),
                identities: strings(o, "identities"),
                identity_prefixes: strings(o, "identity_prefixes"),
                required_eku: o
                    .get("required_eku")
                    .map(|s| s.as_str().expect("`required_eku`").to_string()),
                max_chain: o
                    .get("max_chain")
                    .map(|n| n.as_u64().expect("`max_chain`") as usize),
                code: o["expected"]["code"]
                    .as_str()
                    .expect("`expected.code`")
                    .to_string(),
                pointer: o["expected"]
                    .get("pointer")
                    .map(|p| p.as_str().expect("`pointer`").to_string()),
                id,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_vector_of_a_sample_card_names_the_card_and_its_commit() {
        let cards = sample_cards();
        let (name, _, card) = cards
            .iter()
            .find(|(n, _, _)| n == "sample-8.5.json")
            .unwrap()
            .clone();
        let vector = |card_name: Option<&str>, commit: Option<&str>, input: &Value| Vector {
            id: "x".into(),
            profile: "spec".into(),
            unknown: None,
            max_input_bytes: None,
            max_depth: None,
            input: Vec::new(),
            input_value: Some(input.clone()),
            expected: Expected::Error {
                code: "x".into(),
                pointer: None,
            },
            card: card_name.map(str::to_string),
            spec_commit: commit.map(str::to_string),
        };
        let good = "087604615d503a7685d5dabc401a9645af3a8153";
        assert!(check_card(vector(Some(&name), Some(good), &card), &cards).is_ok());
        assert!(check_card(vector(None, None, &Value::Null), &cards).is_ok());
        for (v, why) in [
            (vector(None, None, &card), "name it with `card`"),
            (vector(Some(&name), None, &card), "`card` needs `spec_commit`"),
            (vector(None, Some(good), &card), "`spec_commit` needs `card`"),
            (
                vector(
                    Some(&name),
                    Some("087604615D503A7685D5DABC401A9645AF3A8153"),
                    &card,
                ),
                "40 lower-case",
            ),
            (vector(Some(&name), Some("0876046"), &card), "40 lower-case"),
            (
                vector(Some("nosuch.json"), Some(good), &card),
                "not a file of testvectors/cards",
            ),
            (
                vector(Some(&name), Some(good), &Value::Null),
                "the input is not the card",
            ),
        ] {
            let e = check_card(v, &cards).unwrap_err();
            assert!(e.contains(why), "{e}");
        }
    }
}
