//! RFC 8785 corpora through the plain `a2a_card::jcs` function and the number writer, read in
//! place from `$A2A_CARD_CORPORA/jcs` (see `jcs/PROVENANCE.txt` there):
//!
//! - `input/` -> `output/` (and `outhex/`): the reference pairs of the RFC 8785 co-author,
//!   byte for byte;
//! - `es6numbers/`: IEEE 754 bit patterns and the ECMAScript text each must print as;
//! - `derived_jsontestsuite/`: the JCS output four independent JCS libraries agree on for every
//!   JSONTestSuite `y_` file, where our strict I-JSON reader departs only as listed below.

#![allow(clippy::unwrap_used, clippy::panic)]

use a2a_card_testkit::data;

use a2a_card::{jcs, ErrorCode};
use std::collections::BTreeMap;
use std::fs;
use std::io::{BufRead, BufReader, Read};

fn show(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn rfc8785_reference_pairs_byte_for_byte() {
    let Some(root) = data::corpus_dir() else { return };
    let dir = root.join("jcs");
    let inputs = data::files(&dir.join("input"), "", ".json");
    assert_eq!(inputs.len(), 6, "PROVENANCE.txt lists 6 pairs");
    for input in &inputs {
        let name = data::file_name(input);
        let stem = name.trim_end_matches(".json");
        let expected = fs::read(dir.join("output").join(&name)).unwrap();
        // outhex holds the same bytes as spaced, line-wrapped hex.
        let hex: String = fs::read_to_string(dir.join("outhex").join(format!("{stem}.txt")))
            .unwrap()
            .chars()
            .filter(|c| !c.is_ascii_whitespace())
            .collect();
        assert_eq!(data::unhex(&hex), expected, "{stem}: outhex and output disagree");

        let got = jcs(&fs::read(input).unwrap()).unwrap_or_else(|e| panic!("{name}: refused: {e}"));
        assert_eq!(show(&got), show(&expected), "{name}");
        assert_eq!(got, expected, "{name}");
        // Canonical output is a fixed point.
        assert_eq!(jcs(&got).unwrap(), got, "{name}: not idempotent");
    }
    println!(
        "RFC 8785 reference pairs: {} of {} byte for byte",
        inputs.len(),
        inputs.len()
    );
}

/// Checks every `<hex bits>,<expected>` line of `reader` through the library's RFC 8785 output:
/// the double, written in Rust's shortest round-trip exponent form (`{:e}`, exact), is read and
/// written back by [`a2a_card::jcs`]; returns the number of lines.
fn check_es6_lines(reader: impl BufRead, what: &str) -> usize {
    let mut lines = 0;
    let mut failures = Vec::new();
    let mut out;
    for line in reader.lines() {
        let line = line.unwrap();
        if line.is_empty() {
            continue;
        }
        lines += 1;
        let (hex, expected) = line
            .split_once(',')
            .unwrap_or_else(|| panic!("{what}: malformed line {line:?}"));
        let bits =
            u64::from_str_radix(hex, 16).unwrap_or_else(|_| panic!("{what}: malformed bits in {line:?}"));
        let value = f64::from_bits(bits);
        assert!(
            value.is_finite(),
            "{what}: the generator emits finite values only: {line:?}"
        );
        out = a2a_card::jcs(format!("{value:e}").as_bytes())
            .unwrap_or_else(|e| panic!("{what}: {value:e} is refused: {e}"));
        if out != expected.as_bytes() {
            failures.push(format!(
                "{hex} ({value:e}): expected {expected}, got {}",
                show(&out)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{what}: {} of {lines} lines differ, first ones:\n{}",
        failures.len(),
        failures.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
    );
    lines
}

#[test]
fn es6_numbers_100000_lines() {
    let Some(root) = data::corpus_dir() else { return };
    let path = root.join("jcs/es6numbers/es6testfile_100000.txt.gz");
    let file = fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let reader = BufReader::new(flate2::read::GzDecoder::new(file));
    let lines = check_es6_lines(reader, "es6testfile_100000");
    assert_eq!(lines, 100_000);
    println!("ES6 numbers: {lines} of 100000 lines match");
}

#[test]
fn es6_numbers_10000_lines_are_the_same_prefix() {
    let Some(root) = data::corpus_dir() else { return };
    let small = fs::read(root.join("jcs/es6numbers/es6testfile_10000.txt")).unwrap();
    assert_eq!(check_es6_lines(small.as_slice(), "es6testfile_10000"), 10_000);
    // PROVENANCE.txt says the small file is the first 10,000 lines of the large one.
    let mut big = Vec::new();
    flate2::read::GzDecoder::new(
        fs::File::open(root.join("jcs/es6numbers/es6testfile_100000.txt.gz")).unwrap(),
    )
    .read_to_end(&mut big)
    .unwrap();
    assert!(big.starts_with(&small));
}

/// JSONTestSuite `y_` files whose consensus JCS output we deliberately do not produce.
///
/// `derived_jsontestsuite/disagreements.json` lists the files where the four JCS libraries
/// disagreed; it is empty. `PROVENANCE.txt` adds one caveat: for the duplicated-key files the
/// four libraries agree on last-wins (`{"a":"c"}`), but RFC 8785 section 3.1 requires I-JSON
/// input and RFC 7493 section 2.3 forbids duplicate names, so a strict canonicalizer refuses
/// them. Ours does, with `duplicate-member`.
const STRICT_DEPARTURES: &[(&str, ErrorCode)] = &[
    ("y_object_duplicated_key.json", ErrorCode::DuplicateMember),
    (
        "y_object_duplicated_key_and_value.json",
        ErrorCode::DuplicateMember,
    ),
];

#[test]
fn derived_jsontestsuite_byte_for_byte() {
    let Some(root) = data::corpus_dir() else { return };
    let dir = root.join("jcs/derived_jsontestsuite");
    let source = root.join("jsontestsuite/test_parsing");

    // Every entry of disagreements.json would need its own decision here; there are none.
    let disagreements = data::read_json(dir.join("disagreements.json"));
    let listed = match &disagreements {
        serde_json::Value::Object(m) => m.len(),
        serde_json::Value::Array(a) => a.len(),
        other => panic!("disagreements.json: unexpected shape {other}"),
    };
    assert_eq!(
        listed, 0,
        "disagreements.json now lists {listed} files; decide each explicitly in this test: {disagreements}"
    );

    let departures: BTreeMap<&str, ErrorCode> = STRICT_DEPARTURES.iter().copied().collect();
    let expected_files = data::files(&dir, "y_", ".json");
    assert_eq!(expected_files.len(), 95, "PROVENANCE.txt: 95 files");
    let (mut matched, mut refused) = (0, 0);
    for path in &expected_files {
        let name = data::file_name(path);
        let input = fs::read(source.join(&name))
            .unwrap_or_else(|e| panic!("{name}: no JSONTestSuite source file: {e}"));
        let expected = fs::read(path).unwrap();
        let got = jcs(&input);
        match departures.get(name.as_str()) {
            Some(&code) => {
                let err = got.expect_err(&format!("{name}: must be refused (not I-JSON)"));
                assert_eq!(err.code(), code, "{name}: {err}");
                refused += 1;
            }
            None => {
                let got = got.unwrap_or_else(|e| panic!("{name}: refused: {} {e}", e.code()));
                assert_eq!(show(&got), show(&expected), "{name}");
                assert_eq!(got, expected, "{name}");
                matched += 1;
            }
        }
    }
    assert_eq!(
        refused,
        departures.len(),
        "every listed departure exists in the corpus"
    );
    println!(
        "derived JSONTestSuite: {matched} byte for byte, {refused} refused as not I-JSON ({})",
        STRICT_DEPARTURES
            .iter()
            .map(|d| d.0)
            .collect::<Vec<_>>()
            .join(", ")
    );
}
