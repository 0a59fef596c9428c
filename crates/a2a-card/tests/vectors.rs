//! Runs the project's language-neutral canonicalization vectors (`testvectors/canonical/*.json`,
//! format in `testvectors/README.md`) through [`a2a_card::canonicalize`].
//!
//! Every vector is checked (bytes, unsigned pointers in order, or error code and pointer); the
//! test fails once at the end, listing every vector that did not match. It also checks that the
//! set is large enough and that every canonicalization error code is exercised.

#![allow(clippy::unwrap_used, clippy::panic)] // a test reports by panicking

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use a2a_card::{canonicalize, CanonicalizeOptions, ErrorCode, Limits, Profile, UnknownMembers};
use serde_json::{Map, Value};

const VECTORS_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testvectors/canonical");

/// The codes the canonicalization layer can produce; each must be covered by some vector.
const CANONICALIZATION_CODES: &[ErrorCode] = &[
    ErrorCode::InvalidJson,
    ErrorCode::DuplicateMember,
    ErrorCode::NumberOutOfRange,
    ErrorCode::NestingTooDeep,
    ErrorCode::InputTooLarge,
    ErrorCode::DualName,
    ErrorCode::TypeMismatch,
    ErrorCode::OneofConflict,
    ErrorCode::UnknownMember,
];

const MIN_VECTORS: usize = 60;

const KNOWN_KEYS: &[&str] = &[
    "id",
    "description",
    "profile",
    "unknown",
    "limits",
    "input",
    "input_raw",
    "input_hex",
    "expected_hex",
    "expected_unsigned",
    "expected_error",
];

enum Expected {
    Bytes { bytes: Vec<u8>, unsigned: Vec<String> },
    Error { code: String, pointer: Option<String> },
}

struct Vector {
    id: String,
    opts: CanonicalizeOptions,
    input: Vec<u8>,
    expected: Expected,
}

fn hex_decode(s: &str) -> Result<Vec<u8>, String> {
    if s.len() % 2 != 0 {
        return Err(format!("odd-length hex ({} digits)", s.len()));
    }
    (0..s.len())
        .step_by(2)
        .map(|i| {
            s.get(i..i + 2)
                .and_then(|d| u8::from_str_radix(d, 16).ok())
                .ok_or_else(|| format!("bad hex digit near offset {i}"))
        })
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

/// Reads one vector file strictly: unknown keys, missing or doubled inputs and expectations
/// are format errors (reported like mismatches, so a broken file cannot pass silently).
fn load(path: &Path) -> Result<Vector, String> {
    let text = fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"))?;
    let v: Value = serde_json::from_str(&text).map_err(|e| format!("not JSON: {e}"))?;
    let o = v.as_object().ok_or("a vector must be a JSON object")?;
    for k in o.keys() {
        if !KNOWN_KEYS.contains(&k.as_str()) {
            return Err(format!("unknown key `{k}`"));
        }
    }
    let id = str_field(o, "id")?.ok_or("missing `id`")?.to_string();
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
    if stem != id {
        return Err(format!("id `{id}` does not match the file name `{stem}.json`"));
    }
    str_field(o, "description")?.ok_or("missing `description`")?;

    let profile_name = str_field(o, "profile")?.ok_or("missing `profile`")?;
    let profile =
        Profile::from_name(profile_name).ok_or_else(|| format!("unknown profile `{profile_name}`"))?;
    let unknown = match str_field(o, "unknown")? {
        None => UnknownMembers::Exclude,
        Some(n) => UnknownMembers::from_name(n).ok_or_else(|| format!("unknown `unknown` value `{n}`"))?,
    };
    let mut limits = Limits::default();
    if let Some(l) = o.get("limits") {
        let l = l.as_object().ok_or("`limits` must be an object")?;
        for k in l.keys() {
            if k != "max_input_bytes" && k != "max_depth" {
                return Err(format!("unknown key `limits.{k}`"));
            }
        }
        if let Some(n) = usize_field(l, "max_input_bytes")? {
            limits.max_input_bytes = n;
        }
        if let Some(n) = usize_field(l, "max_depth")? {
            limits.max_depth = n;
        }
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
    let input = if let Some(card) = o.get("input") {
        // Member order is preserved (serde_json `preserve_order`), which matters for the
        // document order of unsigned pointers and for which of two names comes second.
        serde_json::to_vec(card).map_err(|e| format!("cannot serialize `input`: {e}"))?
    } else if let Some(raw) = str_field(o, "input_raw")? {
        raw.as_bytes().to_vec()
    } else {
        let hex = str_field(o, "input_hex")?.ok_or("`input_hex` must be a string")?;
        hex_decode(hex).map_err(|e| format!("`input_hex`: {e}"))?
    };

    let expected = match (o.get("expected_hex"), o.get("expected_error")) {
        (Some(_), Some(_)) => return Err("both expected_hex and expected_error".into()),
        (None, None) => return Err("neither expected_hex nor expected_error".into()),
        (Some(h), None) => {
            let h = h.as_str().ok_or("`expected_hex` must be a string")?;
            let bytes = hex_decode(h).map_err(|e| format!("`expected_hex`: {e}"))?;
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
            for k in e.keys() {
                if k != "code" && k != "pointer" {
                    return Err(format!("unknown key `expected_error.{k}`"));
                }
            }
            let code = str_field(e, "code")?.ok_or("`expected_error.code` is required")?;
            if ErrorCode::from_name(code).is_none() {
                return Err(format!("`{code}` is not an error code of this crate"));
            }
            let pointer = str_field(e, "pointer")?.map(str::to_string);
            Expected::Error {
                code: code.to_string(),
                pointer,
            }
        }
    };
    Ok(Vector {
        id,
        opts: CanonicalizeOptions {
            profile,
            unknown,
            limits,
        },
        input,
        expected,
    })
}

fn show(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => format!(
            "(not UTF-8) hex {}",
            bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()
        ),
    }
}

/// Runs one vector; `Err` describes the mismatch.
fn run(v: &Vector) -> Result<(), String> {
    let got = canonicalize(&v.input, &v.opts);
    // The owned-tree path must agree with the borrowed one on every vector.
    let via_value = a2a_card::json::parse_with(&v.input, &v.opts.limits)
        .and_then(|value| a2a_card::canonicalize_value(&value, &v.opts));
    let summary = |r: &Result<a2a_card::Canonical, a2a_card::Error>| match r {
        Ok(c) => Ok((c.bytes.clone(), c.unsigned.clone())),
        Err(e) => Err((e.code(), e.pointer().map(str::to_string))),
    };
    if summary(&got) != summary(&via_value) {
        return Err(format!(
            "canonicalize and canonicalize_value disagree\n      bytes: {:?}\n      value: {:?}",
            summary(&got),
            summary(&via_value)
        ));
    }
    match (&v.expected, got) {
        (Expected::Bytes { bytes, unsigned }, Ok(c)) => {
            let mut problems = Vec::new();
            if &c.bytes != bytes {
                problems.push(format!(
                    "bytes differ\n      expected: {}\n      got:      {}",
                    show(bytes),
                    show(&c.bytes)
                ));
            }
            if &c.unsigned != unsigned {
                problems.push(format!(
                    "unsigned pointers differ\n      expected: {unsigned:?}\n      got:      {:?}",
                    c.unsigned
                ));
            }
            if c.profile != v.opts.profile {
                problems.push(format!("profile reported as {}", c.profile.as_str()));
            }
            if problems.is_empty() {
                Ok(())
            } else {
                Err(problems.join("\n    "))
            }
        }
        (Expected::Bytes { bytes, .. }, Err(e)) => Err(format!(
            "expected bytes {}\n      got error {} at {:?}: {}",
            show(bytes),
            e.code(),
            e.pointer(),
            e.message()
        )),
        (Expected::Error { code, pointer }, Ok(c)) => Err(format!(
            "expected error {code} at {pointer:?}\n      got bytes {} (unsigned {:?})",
            show(&c.bytes),
            c.unsigned
        )),
        (Expected::Error { code, pointer }, Err(e)) => {
            let code_ok = e.code().as_str() == code;
            let ptr_ok = pointer.as_deref().is_none_or(|p| e.pointer() == Some(p));
            if code_ok && ptr_ok {
                Ok(())
            } else {
                Err(format!(
                    "expected error {code} at {pointer:?}\n      got error {} at {:?}: {}",
                    e.code(),
                    e.pointer(),
                    e.message()
                ))
            }
        }
    }
}

fn vector_files() -> Vec<PathBuf> {
    let dir = Path::new(VECTORS_DIR);
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("json"))
        .collect();
    files.sort();
    files
}

#[test]
fn canonicalization_vectors() {
    let files = vector_files();
    let mut failures: Vec<String> = Vec::new();
    let mut ids = BTreeSet::new();
    let mut codes_covered = BTreeSet::new();
    let mut profiles_covered = BTreeSet::new();
    let mut ran = 0usize;

    for path in &files {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("?")
            .to_string();
        let v = match load(path) {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{name}: malformed vector: {e}"));
                continue;
            }
        };
        if !ids.insert(v.id.clone()) {
            failures.push(format!("{}: duplicate id", v.id));
        }
        if let Expected::Error { code, .. } = &v.expected {
            codes_covered.insert(code.clone());
        }
        profiles_covered.insert(v.opts.profile.as_str());
        ran += 1;
        if let Err(why) = run(&v) {
            failures.push(format!("{}:\n    {why}", v.id));
        }
    }

    let mut summary = Vec::new();
    if ran < MIN_VECTORS {
        summary.push(format!(
            "only {ran} vectors ran, at least {MIN_VECTORS} are required"
        ));
    }
    for code in CANONICALIZATION_CODES {
        if !codes_covered.contains(code.as_str()) {
            summary.push(format!("no vector expects the error code `{code}`"));
        }
    }
    for p in Profile::ALL {
        if !profiles_covered.contains(p.as_str()) {
            summary.push(format!("no vector uses the profile `{}`", p.as_str()));
        }
    }

    if !failures.is_empty() || !summary.is_empty() {
        let ids: Vec<&str> = failures
            .iter()
            .map(|f| f.split(':').next().unwrap_or(""))
            .collect();
        panic!(
            "{} of {ran} vectors failed: {}\n\n{}\n{}",
            failures.len(),
            ids.join(", "),
            failures.join("\n"),
            summary.join("\n")
        );
    }
    println!("{ran} canonicalization vectors passed");
}
