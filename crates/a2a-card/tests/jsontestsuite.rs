//! nst/JSONTestSuite through the strict I-JSON reader (`a2a_card::jcs`), read in place from
//! `$A2A_CARD_CORPORA/jsontestsuite` as raw bytes.
//!
//! - `n_` files: every one refused, with any code, and never a panic.
//! - `y_` files: every one accepted, except those that are JSON but not I-JSON (RFC 7493), which
//!   are refused with the I-JSON code. Each exception is listed by name below.
//! - `i_` files: the suite leaves them to the implementation. Each outcome is printed; where
//!   DESIGN.md decides the outcome (lone surrogates, invalid UTF-8, BOM, overflow, integers
//!   beyond +-(2^53-1), nesting) it is asserted too.
//! - `test_transform/`: no panic; outcomes printed, and asserted where RFC 8785 or the design
//!   decides them.

#![allow(clippy::unwrap_used, clippy::panic)]

use a2a_card_testkit::data;

use a2a_card::{jcs, Error, ErrorCode};
use std::collections::BTreeMap;
use std::fs;
use std::panic::catch_unwind;
use std::path::{Path, PathBuf};

/// Runs the reader on one file, turning a panic into a test failure that names the file.
fn run(path: &Path) -> Result<Vec<u8>, Error> {
    let bytes = fs::read(path).unwrap();
    match catch_unwind(|| jcs(&bytes)) {
        Ok(r) => r,
        Err(_) => panic!("{}: the reader panicked", data::file_name(path)),
    }
}

fn outcome(r: &Result<Vec<u8>, Error>) -> String {
    match r {
        Ok(out) if out.len() <= 60 => format!("accepted {}", String::from_utf8_lossy(out)),
        Ok(out) => format!("accepted ({} bytes)", out.len()),
        Err(e) => format!("refused {}", e.code()),
    }
}

fn parsing_dir() -> Option<PathBuf> {
    Some(data::corpus_dir()?.join("jsontestsuite/test_parsing"))
}

#[test]
fn n_files_are_all_refused_without_panic() {
    let Some(dir) = parsing_dir() else { return };
    let files = data::files(&dir, "n_", ".json");
    assert_eq!(files.len(), 188, "PROVENANCE.txt: 188 n_ files");
    let mut accepted = Vec::new();
    let mut by_code: BTreeMap<&'static str, usize> = BTreeMap::new();
    for path in &files {
        match run(path) {
            Ok(out) => accepted.push(format!(
                "{} -> {}",
                data::file_name(path),
                String::from_utf8_lossy(&out)
            )),
            Err(e) => *by_code.entry(e.code().as_str()).or_default() += 1,
        }
    }
    println!(
        "n_: {} of {} refused, by code: {by_code:?}",
        files.len() - accepted.len(),
        files.len()
    );
    assert!(accepted.is_empty(), "n_ files accepted:\n{}", accepted.join("\n"));
}

/// `y_` files that are JSON (RFC 8259) but not I-JSON, and the code each must be refused with.
///
/// Duplicate member names: RFC 7493 section 2.3. No `y_` file holds an integer beyond
/// +-(2^53-1) or a number that overflows a double (the largest, `123.456e78` and `1E22`, are
/// written with a fraction or exponent and are finite doubles), so none is refused with
/// `number-out-of-range`.
const Y_NOT_I_JSON: &[(&str, ErrorCode)] = &[
    ("y_object_duplicated_key.json", ErrorCode::DuplicateMember),
    (
        "y_object_duplicated_key_and_value.json",
        ErrorCode::DuplicateMember,
    ),
];

/// `y_` files holding Unicode noncharacters. RFC 7493 section 2.1 says I-JSON strings MUST NOT
/// contain noncharacters, but DESIGN.md enumerates the I-JSON rules this toolkit enforces
/// (duplicates, lone surrogates, non-finite numbers, unsafe integers) and noncharacters are not
/// among them; RFC 8785 implementations (all four behind `jcs/derived_jsontestsuite`)
/// canonicalize them as ordinary characters. They are accepted, and listed here so that a
/// change of that decision is a visible change of this test. (`y_string_reservedCharacterInUTF-8_U+1BFFF`
/// is an unassigned code point, not a noncharacter.)
const Y_NONCHARACTERS_ACCEPTED: &[&str] = &[
    "y_string_escaped_noncharacter.json",
    "y_string_nonCharacterInUTF-8_U+10FFFF.json",
    "y_string_nonCharacterInUTF-8_U+FFFF.json",
    "y_string_unicode_U+10FFFE_nonchar.json",
    "y_string_unicode_U+1FFFE_nonchar.json",
    "y_string_unicode_U+FDD0_nonchar.json",
    "y_string_unicode_U+FFFE_nonchar.json",
];

#[test]
fn y_files_are_accepted_except_those_that_break_i_json() {
    let Some(dir) = parsing_dir() else { return };
    let files = data::files(&dir, "y_", ".json");
    assert_eq!(files.len(), 95, "PROVENANCE.txt: 95 y_ files");
    let exceptions: BTreeMap<&str, ErrorCode> = Y_NOT_I_JSON.iter().copied().collect();
    let mut problems = Vec::new();
    let (mut accepted, mut refused) = (0, 0);
    for path in &files {
        let name = data::file_name(path);
        let r = run(path);
        match (exceptions.get(name.as_str()), &r) {
            (None, Ok(out)) => {
                accepted += 1;
                // What was accepted canonicalizes to a fixed point.
                assert_eq!(&jcs(out).unwrap(), out, "{name}: not idempotent");
            }
            (Some(&code), Err(e)) if e.code() == code => refused += 1,
            (None, Err(e)) => problems.push(format!("{name}: refused {}: {e}", e.code())),
            (Some(code), _) => problems.push(format!("{name}: expected {code}, {}", outcome(&r))),
        }
    }
    for name in Y_NONCHARACTERS_ACCEPTED.iter().chain(exceptions.keys()) {
        assert!(dir.join(name).is_file(), "{name} is listed but not in the corpus");
    }
    println!(
        "y_: {accepted} accepted (noncharacters included: {}), {refused} refused as not I-JSON",
        Y_NONCHARACTERS_ACCEPTED.len()
    );
    assert!(problems.is_empty(), "y_ files:\n{}", problems.join("\n"));
}

/// What DESIGN.md decides for an `i_` file: refused with this code, or left open (`None`).
fn i_expectation(name: &str) -> Option<ErrorCode> {
    let stem = name.trim_start_matches("i_").trim_end_matches(".json");
    match stem {
        // Lone or mismatched surrogate escapes: "lone surrogates ... are rejected".
        "object_key_lone_2nd_surrogate"
        | "string_1st_surrogate_but_2nd_missing"
        | "string_1st_valid_surrogate_2nd_invalid"
        | "string_incomplete_surrogate_and_escape_valid"
        | "string_incomplete_surrogate_pair"
        | "string_incomplete_surrogates_escape_valid"
        | "string_invalid_lonely_surrogate"
        | "string_invalid_surrogate"
        | "string_inverted_surrogates_U+1D11E"
        | "string_lone_second_surrogate" => Some(ErrorCode::InvalidJson),
        // Bytes that are not UTF-8 (an encoded surrogate, overlong forms, beyond U+10FFFF,
        // Latin-1, UTF-16), and a byte-order mark: `invalid-json` by ErrorCode's definition.
        "string_UTF-16LE_with_BOM"
        | "string_UTF-8_invalid_sequence"
        | "string_UTF8_surrogate_U+D800"
        | "string_invalid_utf-8"
        | "string_iso_latin_1"
        | "string_lone_utf8_continuation_byte"
        | "string_not_in_unicode_range"
        | "string_overlong_sequence_2_bytes"
        | "string_overlong_sequence_6_bytes"
        | "string_overlong_sequence_6_bytes_null"
        | "string_truncated-utf-8"
        | "string_utf16BE_no_BOM"
        | "string_utf16LE_no_BOM"
        | "structure_UTF-8_BOM_empty_object" => Some(ErrorCode::InvalidJson),
        // Numbers that overflow a double, and integers beyond +-(2^53-1).
        "number_huge_exp"
        | "number_neg_int_huge_exp"
        | "number_pos_double_huge_exp"
        | "number_real_neg_overflow"
        | "number_real_pos_overflow"
        | "number_too_big_neg_int"
        | "number_very_big_negative_int" => Some(ErrorCode::NumberOutOfRange),
        // `[100000000000000000000]` is beyond +-(2^53-1) but is exactly the RFC 8785 spelling
        // of the double 1e20, so nothing is rounded: accepted (checked in its own test below).
        // 500 levels against the default limit of 128.
        "structure_500_nested_arrays" => Some(ErrorCode::NestingTooDeep),
        // Underflow to zero (`123.456e-789`, `123e-10000000`): the design says nothing.
        _ => None,
    }
}

#[test]
fn i_files_do_not_panic_and_follow_the_design() {
    let Some(dir) = parsing_dir() else { return };
    let files = data::files(&dir, "i_", ".json");
    assert_eq!(files.len(), 35, "PROVENANCE.txt: 35 i_ files");
    let mut problems = Vec::new();
    let (mut accepted, mut refused) = (Vec::new(), Vec::new());
    for path in &files {
        let name = data::file_name(path);
        let r = run(path);
        println!("{name}: {}", outcome(&r));
        match &r {
            Ok(_) => accepted.push(name.clone()),
            Err(_) => refused.push(name.clone()),
        }
        if let Some(code) = i_expectation(&name) {
            if !matches!(&r, Err(e) if e.code() == code) {
                problems.push(format!("{name}: expected {code}, {}", outcome(&r)));
            }
        }
    }
    println!("i_ accepted ({}): {}", accepted.len(), accepted.join(", "));
    println!("i_ refused ({}): {}", refused.len(), refused.join(", "));
    assert!(problems.is_empty(), "i_ files:\n{}", problems.join("\n"));
}

/// What RFC 8785 or the design decides for a `test_transform/` file: `Ok(canonical text)`,
/// `Err(code)`, or nothing (outcome printed only).
fn transform_expectation(name: &str) -> Option<Result<&'static str, ErrorCode>> {
    Some(match name.trim_end_matches(".json") {
        // Integers beyond +-(2^53-1) (RFC 7493 section 2.2; DESIGN.md: rejected).
        "number_-9223372036854775808"
        | "number_-9223372036854775809"
        | "number_9223372036854775807"
        | "number_9223372036854775808"
        | "number_10000000000000000999" => Err(ErrorCode::NumberOutOfRange),
        // ECMAScript Number.prototype.toString of the nearest double.
        "number_1.0" => Ok("[1]"),
        "number_1.000000000000000005" => Ok("[1]"),
        "number_1000000000000000" => Ok("[1000000000000000]"),
        "number_1e6" => Ok("[1000000]"),
        // NFC and NFD spellings are different names (RFC 8785 does no normalization); sorted by
        // UTF-16 code units, "e" (U+0065) comes before "é" (U+00E9).
        "object_key_nfc_nfd" | "object_key_nfd_nfc" => Ok("{\"e\u{301}\":\"NFD\",\"\u{e9}\":\"NFC\"}"),
        "object_same_key_different_values"
        | "object_same_key_same_value"
        | "object_same_key_unclear_values" => Err(ErrorCode::DuplicateMember),
        "string_1_escaped_invalid_codepoint"
        | "string_1_invalid_codepoint"
        | "string_2_escaped_invalid_codepoints"
        | "string_2_invalid_codepoints"
        | "string_3_escaped_invalid_codepoints"
        | "string_3_invalid_codepoints" => Err(ErrorCode::InvalidJson),
        // RFC 8785 section 3.2.2.2: U+0000 is written as \u0000.
        "string_with_escaped_NULL" => Ok("[\"A\\u0000B\"]"),
        // `1E-999` underflows to zero; the design says nothing about underflow.
        _ => return None,
    })
}

#[test]
fn transform_files_do_not_panic() {
    let Some(root) = data::corpus_dir() else { return };
    let dir = root.join("jsontestsuite/test_transform");
    let files = data::files(&dir, "", ".json");
    assert_eq!(files.len(), 22, "PROVENANCE.txt: 22 test_transform files");
    let mut problems = Vec::new();
    for path in &files {
        let name = data::file_name(path);
        let r = run(path);
        println!("{name}: {}", outcome(&r));
        let ok = match (transform_expectation(&name), &r) {
            (None, _) => true,
            (Some(Ok(text)), Ok(out)) => out == text.as_bytes(),
            (Some(Err(code)), Err(e)) => e.code() == code,
            _ => false,
        };
        if !ok {
            problems.push(format!(
                "{name}: expected {:?}, {}",
                transform_expectation(&name),
                outcome(&r)
            ));
        }
    }
    assert!(problems.is_empty(), "test_transform:\n{}", problems.join("\n"));
}

/// An integer literal beyond +-(2^53-1) that is exactly the RFC 8785 spelling of its double is
/// accepted (canonical output reads back); one a double would round is refused.
#[test]
fn big_integers_are_accepted_only_when_nothing_is_rounded() {
    let Some(dir) = parsing_dir() else { return };
    let bytes = std::fs::read(dir.join("i_number_too_big_pos_int.json")).unwrap();
    let out = a2a_card::jcs(&bytes).expect("the RFC 8785 spelling of 1e20 is accepted");
    assert_eq!(out, b"[100000000000000000000]");
    assert_eq!(
        a2a_card::jcs(&out).unwrap(),
        out,
        "canonical output reads back unchanged"
    );
    let rounded = a2a_card::jcs(b"[100000000000000000001]").unwrap_err();
    assert_eq!(rounded.code(), ErrorCode::NumberOutOfRange);
}
