//! End-to-end tests of `verify --batch`: a directory and a JSON Lines file of cards signed by
//! the binary, with a tampered and a malformed card among them; the JSON Lines report, the
//! summary, the exit codes and the options `--batch` refuses.

#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::*;
use std::path::{Path, PathBuf};

/// The number of validly signed cards in each fixture.
const SIGNED: usize = 20;

/// A fixture: `keys/` with a fresh ES256 key, `cards/` with `SIGNED` signed cards (written in
/// reverse name order), `card-20-tampered.json`, `card-21-malformed.json` and a non-JSON file.
/// Returns (root, cards dir, PEM, JWKS).
fn fixture(name: &str) -> (PathBuf, PathBuf, PathBuf, PathBuf) {
    let root = scratch(name);
    let keys = root.join("keys");
    let cards = root.join("cards");
    let work = root.join("work");
    for d in [&keys, &cards, &work] {
        std::fs::create_dir_all(d).unwrap();
    }
    let (pem, jwks) = keygen(&keys, "k", "ES256", &[]);
    for i in (0..SIGNED).rev() {
        let text = CARD.replace("\"Release Agent\"", &format!("\"Release Agent {i}\""));
        let unsigned = write(&work, &format!("u{i}.json"), text);
        sign_to(&unsigned, &pem, &[], &cards.join(format!("card-{i:02}.json")));
    }
    let signed = std::fs::read_to_string(cards.join("card-05.json")).unwrap();
    let tampered = signed.replace("\"1.0.0\"", "\"6.6.6\"");
    assert_ne!(tampered, signed);
    write(&cards, "card-20-tampered.json", tampered);
    write(&cards, "card-21-malformed.json", "{\"name\": \"Broken\", ");
    write(&cards, "notes.txt", "not a card");
    (root, cards, pem, jwks)
}

/// The JSON lines of stdout.
fn lines(out: &std::process::Output) -> Vec<serde_json::Value> {
    stdout(out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l}: {e}")))
        .collect()
}

/// Checks the 22 report lines: 20 valid, the tampered one `signature-invalid`, the malformed
/// one an error; `source` is checked by `source_of(i)`.
fn check_report(report: &[serde_json::Value], source_of: impl Fn(usize) -> serde_json::Value) {
    assert_eq!(report.len(), SIGNED + 2);
    for (i, line) in report.iter().enumerate() {
        assert_eq!(line["source"], source_of(i), "line {i}: {line}");
    }
    for line in &report[..SIGNED] {
        assert_eq!(line["ok"], true, "{line}");
        assert_eq!(line["profile"], "spec", "{line}");
        assert_eq!(line["signatures"].as_array().unwrap().len(), 1, "{line}");
        assert_eq!(line["signatures"][0]["code"], "valid", "{line}");
        assert_eq!(line["signatures"][0]["alg"], "ES256", "{line}");
        assert_eq!(line["unsigned"], serde_json::json!(["/x-vendor"]), "{line}");
        assert_eq!(line["canonical_sha256"].as_str().unwrap().len(), 64, "{line}");
    }
    let tampered = &report[SIGNED];
    assert_eq!(tampered["ok"], false, "{tampered}");
    assert_eq!(
        tampered["signatures"][0]["code"], "signature-invalid",
        "{tampered}"
    );
    assert!(tampered.get("error").is_none(), "{tampered}");
    let malformed = &report[SIGNED + 1];
    assert_eq!(malformed["ok"], false, "{malformed}");
    assert!(
        !malformed["error"]["code"].as_str().unwrap().is_empty(),
        "{malformed}"
    );
    assert!(malformed["error"]["message"].is_string(), "{malformed}");
    assert!(malformed["error"].get("pointer").is_some(), "{malformed}");
    // Every card is distinct, so is every digest of a verified card.
    let mut digests: Vec<&str> = report[..=SIGNED]
        .iter()
        .map(|l| l["canonical_sha256"].as_str().unwrap())
        .collect();
    digests.sort_unstable();
    digests.dedup();
    assert_eq!(digests.len(), SIGNED + 1);
}

/// The summary line on stderr.
fn summary(out: &std::process::Output) -> String {
    let err = stderr(out);
    let line = err
        .lines()
        .find(|l| l.starts_with("batch: "))
        .unwrap_or_else(|| panic!("no summary on stderr: {err}"));
    assert!(line.contains(" elapsed ") && line.ends_with(" cards/s"), "{line}");
    line.to_string()
}

fn file_names(dir: &Path) -> Vec<String> {
    listing(dir)
        .into_iter()
        .filter(|n| n.ends_with(".json"))
        .collect()
}

#[test]
fn directory_batch_reports_every_card_in_name_order() {
    let (_root, cards, _pem, jwks) = fixture("batch-dir");
    let out = run(&["verify", "--batch", s(&cards), "--jwks", s(&jwks)], None);
    expect_code(&out, 1, "batch with a tampered and a malformed card");
    let names = file_names(&cards);
    assert_eq!(names.len(), SIGNED + 2);
    check_report(&lines(&out), |i| {
        serde_json::Value::from(cards.join(&names[i]).display().to_string())
    });
    assert!(
        summary(&out).starts_with("batch: 22 cards, 20 valid, 1 invalid, 1 errors,"),
        "{}",
        stderr(&out)
    );

    // The digest is the SHA-256 of the bytes `canonicalize` writes for the same card.
    let report = lines(&out);
    let first = cards.join(&names[0]);
    assert_eq!(
        report[0]["canonical_sha256"],
        hex(&sha256(&canonical(&first, &[])))
    );
    // The same card verified alone agrees with its batch line.
    let single = verify(&first, &jwks, &["--format", "json"]);
    expect_code(&single, 0, "single verify");
    let single = json_out(&single);
    assert_eq!(single["canonical_sha256"], report[0]["canonical_sha256"]);
    assert_eq!(single["reason"], report[0]["reason"]);
}

#[test]
fn all_valid_batch_exits_zero() {
    let (_root, cards, pem, _jwks) = fixture("batch-valid");
    for bad in ["card-20-tampered.json", "card-21-malformed.json"] {
        std::fs::remove_file(cards.join(bad)).unwrap();
    }
    let out = run(
        &[
            "verify",
            "--batch",
            s(&cards),
            "--key",
            s(&pem),
            "--format",
            "json",
        ],
        None,
    );
    expect_code(&out, 0, "all-valid batch");
    let report = lines(&out);
    assert_eq!(report.len(), SIGNED);
    assert!(report.iter().all(|l| l["ok"] == true));
    assert!(summary(&out).starts_with("batch: 20 cards, 20 valid, 0 invalid, 0 errors,"));

    // The per-card options apply: with only RS256 allowed no card passes.
    let out = run(
        &["verify", "--batch", s(&cards), "--key", s(&pem), "--alg", "RS256"],
        None,
    );
    expect_code(&out, 1, "batch with --alg RS256");
    let report = lines(&out);
    assert_eq!(report.len(), SIGNED);
    for line in &report {
        assert_eq!(line["ok"], false, "{line}");
        assert_eq!(line["signatures"][0]["code"], "algorithm-not-allowed", "{line}");
    }
}

#[test]
fn jsonl_batch_numbers_lines_and_skips_empty_ones() {
    let (root, cards, _pem, jwks) = fixture("batch-jsonl");
    let names = file_names(&cards);
    let mut text = String::new();
    let mut numbers = Vec::new();
    let mut line_no = 0;
    for (i, name) in names.iter().enumerate() {
        if i % 7 == 3 {
            // Blank lines are skipped but still counted.
            text.push_str(if i % 2 == 0 { "\n" } else { "   \r\n" });
            line_no += 1;
        }
        let raw = std::fs::read_to_string(cards.join(name)).unwrap();
        let one_line = match serde_json::from_str::<serde_json::Value>(&raw) {
            Ok(v) => v.to_string(),
            Err(_) => raw.replace('\n', " "),
        };
        text.push_str(&one_line);
        text.push('\n');
        line_no += 1;
        numbers.push(line_no);
    }
    let jsonl = write(&root, "cards.jsonl", text);
    let out = run(&["verify", "--batch", s(&jsonl), "--jwks", s(&jwks)], None);
    expect_code(&out, 1, "jsonl batch");
    check_report(&lines(&out), |i| serde_json::Value::from(numbers[i]));
    assert!(summary(&out).starts_with("batch: 22 cards, 20 valid, 1 invalid, 1 errors,"));

    // The same cards give the same digests from the directory and from the lines.
    let dir_out = run(&["verify", "--batch", s(&cards), "--jwks", s(&jwks)], None);
    let a: Vec<_> = lines(&out)
        .iter()
        .map(|l| l["canonical_sha256"].clone())
        .collect();
    let b: Vec<_> = lines(&dir_out)
        .iter()
        .map(|l| l["canonical_sha256"].clone())
        .collect();
    assert_eq!(a, b);
}

#[test]
fn usage_errors_exit_two_and_key_errors_three() {
    let (root, cards, pem, jwks) = fixture("batch-usage");
    let card = cards.join("card-00.json");
    let cases: [&[&str]; 5] = [
        &["verify", s(&card), "--batch", s(&cards), "--jwks", s(&jwks)],
        &[
            "verify",
            "--batch",
            s(&cards),
            "--jwks",
            s(&jwks),
            "--emit-verified",
            "x.json",
        ],
        &[
            "verify",
            "--batch",
            s(&cards),
            "--jwks",
            s(&jwks),
            "--format",
            "text",
        ],
        &[
            "verify",
            "--batch",
            s(&cards),
            "--jwks",
            s(&jwks),
            "--allow-jku",
            "https://a.example/",
        ],
        &["verify", "--batch", s(&pem), "--jwks", s(&jwks)],
    ];
    for args in cases {
        let out = run(args, None);
        expect_code(&out, 2, &format!("{args:?}"));
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(
            error_line(&out).starts_with("error[usage]:"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    assert!(!cards.join("x.json").exists() && !Path::new("x.json").exists());

    let missing = root.join("keys").join("missing.pem");
    let out = run(&["verify", "--batch", s(&cards), "--key", s(&missing)], None);
    expect_code(&out, 3, "missing key file");
    assert!(out.stdout.is_empty());
}

#[test]
fn threads_option_gives_the_same_report_and_is_checked() {
    let (_root, cards, _pem, jwks) = fixture("batch-threads");
    let default = run(&["verify", "--batch", s(&cards), "--jwks", s(&jwks)], None);
    expect_code(&default, 1, "batch, default threads");
    for n in ["1", "2", "7"] {
        let out = run(
            &["verify", "--batch", s(&cards), "--jwks", s(&jwks), "--threads", n],
            None,
        );
        expect_code(&out, 1, &format!("batch --threads {n}"));
        assert_eq!(
            stdout(&out),
            stdout(&default),
            "--threads {n}: same report lines, same order"
        );
    }
    for (bad, why) in [("0", "1..=1024"), ("1025", "1..=1024"), ("x", "invalid")] {
        let out = run(
            &[
                "verify",
                "--batch",
                s(&cards),
                "--jwks",
                s(&jwks),
                "--threads",
                bad,
            ],
            None,
        );
        expect_code(&out, 2, &format!("--threads {bad}"));
        assert!(stderr(&out).contains("--threads"), "{}", stderr(&out));
        assert!(stderr(&out).contains(why), "{}", stderr(&out));
    }
    // --threads means nothing without --batch.
    let card = cards.join("card-00.json");
    let out = verify(&card, &jwks, &["--threads", "2"]);
    expect_code(&out, 2, "--threads without --batch");
    assert!(stderr(&out).contains("--batch"), "{}", stderr(&out));
}
