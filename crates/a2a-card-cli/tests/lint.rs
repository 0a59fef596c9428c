//! End-to-end tests of `a2a-card lint`: the binary on real files and pipes, in text and JSON
//! formats, with exit codes 0 (no errors), 1 (errors) and 2 (unreadable card).

#![allow(clippy::unwrap_used, clippy::panic)] // a test reports by panicking

mod common;

use common::{expect_code, expect_error, help, json_files, run, s, scratch, stdout, testvectors_dir, write};
use serde_json::Value;
use std::fs;
use std::path::PathBuf;

const SAMPLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../testvectors/cards/sample-8.5.json"
);

/// One expected finding: (rule, severity, pointer).
type Expected = (String, String, String);

/// Every lint vector: (path, input bytes, expected findings).
fn vectors() -> Vec<(PathBuf, Vec<u8>, Vec<Expected>)> {
    let mut out = Vec::new();
    for rule in a2a_card::lint::Rule::ALL {
        let dir = testvectors_dir().join("lint").join(rule.as_str());
        for file in json_files(&dir) {
            let doc: Value = serde_json::from_slice(&fs::read(&file).unwrap()).unwrap();
            let bytes = match (doc.get("input"), doc.get("input_raw")) {
                (Some(v), None) => serde_json::to_vec_pretty(v).unwrap(),
                (None, Some(Value::String(raw))) => raw.as_bytes().to_vec(),
                _ => panic!("{}: input", file.display()),
            };
            let expected = doc["expected"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| {
                    let g = |k: &str| f[k].as_str().unwrap().to_string();
                    (g("rule"), g("severity"), g("pointer"))
                })
                .collect();
            out.push((file, bytes, expected));
        }
    }
    assert!(out.len() >= 30, "only {} lint vectors", out.len());
    out
}

/// Every vector through the binary, in both formats: the JSON report's findings equal the
/// expected ones; the text lines name the same severity, rule and pointer, in the same order;
/// the summary counts them; the exit code is 1 exactly when an error is expected.
#[test]
fn every_vector_in_both_formats() {
    let dir = scratch("lint-vectors");
    for (i, (file, bytes, expected)) in vectors().into_iter().enumerate() {
        let what = file.display().to_string();
        let card = write(&dir, &format!("card{i}.json"), &bytes);
        let errors = expected.iter().filter(|(_, sev, _)| sev == "error").count();
        let warnings = expected.iter().filter(|(_, sev, _)| sev == "warning").count();
        let code = if errors > 0 { 1 } else { 0 };

        let out = run(&["lint", s(&card), "--format", "json"], None);
        expect_code(&out, code, &what);
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        let got: Vec<Expected> = report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                assert!(!f["message"].as_str().unwrap().is_empty());
                let g = |k: &str| f[k].as_str().unwrap().to_string();
                (g("rule"), g("severity"), g("pointer"))
            })
            .collect();
        assert_eq!(got, expected, "{what} (json)");

        let out = run(&["lint", s(&card)], None);
        expect_code(&out, code, &what);
        assert!(
            out.stderr.is_empty(),
            "{what}: stderr {:?}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = stdout(&out);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), expected.len() + 1, "{what}:\n{text}");
        for (line, (rule, sev, ptr)) in lines.iter().zip(&expected) {
            let place = if ptr.is_empty() { "(root)" } else { ptr.as_str() };
            let head = format!("{sev}[{rule}] {place}: ");
            assert!(
                line.starts_with(&head),
                "{what}: {line:?} does not start with {head:?}"
            );
            assert!(line.len() > head.len(), "{what}: no message in {line:?}");
        }
        let summary = lines.last().unwrap();
        let source = s(&card);
        if expected.is_empty() {
            assert_eq!(*summary, format!("{source}: clean"), "{what}");
        } else {
            let e = if errors == 1 { "error" } else { "errors" };
            let w = if warnings == 1 { "warning" } else { "warnings" };
            assert_eq!(
                *summary,
                format!("{source}: {errors} {e}, {warnings} {w}"),
                "{what}"
            );
        }
    }
}

/// The 8.5 sample: warnings only, so exit 0, read from stdin.
#[test]
fn sample_from_stdin_exits_zero() {
    let bytes = fs::read(SAMPLE).unwrap();
    let out = run(&["lint", "-"], Some(&bytes));
    expect_code(&out, 0, "sample");
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[0].starts_with("warning[legacy-member] /capabilities/stateTransitionHistory: "));
    assert!(lines[1].starts_with("warning[legacy-member] /security: "));
    assert!(lines[1].contains("securityRequirements"), "{}", lines[1]);
    assert_eq!(lines[2], "<stdin>: 0 errors, 2 warnings");
}

/// Unreadable cards: exit 2, nothing on stdout, the one error line naming the code, the place
/// and the file.
#[test]
fn unreadable_card_exits_two() {
    let dir = scratch("lint-unreadable");
    let dup = write(&dir, "dup.json", br#"{"name":"a","skills":[],"name":"b"}"#);
    for format in ["text", "json"] {
        let out = run(&["lint", s(&dup), "--format", format], None);
        let line = expect_error(&out, 2, "duplicate-member", s(&dup));
        assert!(line.contains("/name"), "{line}");
    }
    let bad = write(&dir, "bad.json", b"{\"name\": ");
    expect_error(&run(&["lint", s(&bad)], None), 2, "invalid-json", s(&bad));
    let missing = dir.join("missing.json");
    expect_error(&run(&["lint", s(&missing)], None), 2, "io", s(&missing));
    let big = write(&dir, "big.json", format!("{{\"name\":\"{}\"}}", "x".repeat(200)));
    expect_error(
        &run(&["lint", s(&big), "--max-input-bytes", "100"], None),
        2,
        "input-too-large",
        s(&big),
    );
    let deep = write(&dir, "deep.json", br#"{"a":{"b":{"c":{}}}}"#);
    expect_error(
        &run(&["lint", s(&deep), "--max-depth", "3"], None),
        2,
        "nesting-too-deep",
        s(&deep),
    );
    // A card that is not an object is readable: it is a finding, not a failure.
    let arr = write(&dir, "array.json", b"[1]");
    let out = run(&["lint", s(&arr)], None);
    expect_code(&out, 1, "array");
    assert!(
        stdout(&out).starts_with("error[schema-error] (root): "),
        "{}",
        stdout(&out)
    );
}

/// Usage errors exit 2; `--help` lists every rule code and the exit codes.
#[test]
fn help_and_usage() {
    let out = run(&["lint", "--format", "yaml", SAMPLE], None);
    expect_code(&out, 2, "bad format");
    let help = help(&["lint"]);
    for rule in a2a_card::lint::Rule::ALL {
        assert!(help.contains(rule.as_str()), "--help does not name {rule}");
    }
    assert!(help.contains("Exit codes: 0"), "{help}");
    assert!(help.contains("a2a-card lint card.json --format json"), "{help}");
}

/// Member names from the card cannot break the one-line-per-finding text output.
#[test]
fn control_characters_stay_on_one_line() {
    let dir = scratch("lint-control");
    let card = write(
        &dir,
        "card.json",
        br#"{"name":"A","description":"d","version":"1","capabilities":{},
  "supportedInterfaces":[{"url":"https://a.example/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
  "defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],
  "skills":[{"id":"s","name":"n","description":"d","tags":["t"]}],"x\nerror[fake] /y":1}"#,
    );
    let out = run(&["lint", s(&card)], None);
    expect_code(&out, 0, "control");
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(
        text.starts_with("warning[unknown-member] /x\\nerror[fake] ~1y: "),
        "{text}"
    );
}

/// `sign --lint`: `error` (the default) refuses a card with lint errors, `warning` one with
/// warnings too, `off` signs it; a refused card is left as it was (`--in-place`), and the
/// refusal comes before the key signs anything.
#[test]
fn sign_lints_first_at_the_level_chosen() {
    let dir = scratch("sign-lint-levels");
    let (pem, _) = common::keygen(&dir, "k", "ES256", &[]);
    // Lint errors: REQUIRED members missing.
    let broken = write(
        &dir,
        "broken.json",
        r#"{"name":"A","description":"d","version":"1","skills":[]}"#,
    );
    // Lint warnings only: the CLI tests' card (x-vendor, an unknown member).
    let warned = write(&dir, "warned.json", common::CARD);
    for (card, extra, outcome) in [
        (&broken, &[][..], Some("lint-failed")),
        (&broken, &["--lint", "error"], Some("lint-failed")),
        (&broken, &["--lint", "warning"], Some("lint-failed")),
        (&broken, &["--lint", "off"], None),
        (&warned, &[], None),
        (&warned, &["--lint", "warning"], Some("lint-failed")),
    ] {
        let before = fs::read(card).unwrap();
        let mut args = vec![
            "sign",
            s(card),
            "--key",
            s(&pem),
            "--unknown",
            "exclude",
            "--in-place",
        ];
        args.extend_from_slice(extra);
        let out = run(&args, None);
        let what = format!("{} {extra:?}", card.display());
        match outcome {
            Some(code) => {
                let line = expect_error(&out, 2, code, s(card));
                assert!(
                    line.contains("lint finds") && line.contains("without the lint check (--lint off)"),
                    "{what}: {line}"
                );
                assert_eq!(fs::read(card).unwrap(), before, "{what}: the card changed");
            }
            None => {
                expect_code(&out, 0, &what);
                fs::write(card, &before).unwrap();
            }
        }
    }
    let line = expect_error(
        &run(
            &["sign", s(&broken), "--key", s(&pem), "--unknown", "exclude"],
            None,
        ),
        2,
        "lint-failed",
        s(&broken),
    );
    assert!(
        line.contains("required-missing at /supportedInterfaces"),
        "{line}"
    );
    let out = run(&["sign", s(&broken), "--key", s(&pem), "--lint", "strict"], None);
    expect_code(&out, 2, "--lint strict");
    assert!(help(&["sign"]).contains("--lint error (the default)"));
}
