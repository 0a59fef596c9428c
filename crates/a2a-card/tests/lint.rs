//! Runs the lint vectors (`testvectors/lint/<rule-code>/*.json`, format in
//! `testvectors/lint/README.md`) through [`a2a_card::lint::lint_card`]: one `#[test]` per rule,
//! a test that every rule has a trigger and a clean vector, the A2A v1.0 section 8.5 sample card,
//! and the canonical vectors (lint must read every card the canonicalizer reads, and refuse
//! exactly the ones the strict reader refuses).

#![allow(clippy::unwrap_used, clippy::panic)] // a test reports by panicking

use a2a_card_testkit::data::{self, json_files, testvectors_dir};
use a2a_card_testkit::vectors::{canonical_vectors_or_panic, Expected};

use std::fs;
use std::path::{Path, PathBuf};

use a2a_card::lint::{lint_card, LintOptions, LintReport, Rule, Severity};
use serde_json::Value;

fn lint_dir() -> PathBuf {
    testvectors_dir().join("lint")
}

fn cards_dir() -> PathBuf {
    testvectors_dir().join("cards")
}

/// Folders under `testvectors/lint/` that are not rule folders of this runner.
const OTHER_FOLDERS: &[&str] = &["schema-invalid"];

/// The input bytes of a vector: `input` serialized (member order kept), or `input_raw`.
fn input_bytes(doc: &serde_json::Map<String, Value>, file: &Path) -> Vec<u8> {
    match (doc.get("input"), doc.get("input_raw")) {
        (Some(v), None) => serde_json::to_vec(v).unwrap(),
        (None, Some(Value::String(s))) => s.as_bytes().to_vec(),
        _ => panic!("{}: exactly one of input and input_raw", file.display()),
    }
}

/// (rule, severity, pointer) of every finding.
fn triples(report: &LintReport) -> Vec<(String, String, String)> {
    report
        .findings
        .iter()
        .map(|f| {
            (
                f.rule.as_str().to_string(),
                f.severity.as_str().to_string(),
                f.pointer.clone(),
            )
        })
        .collect()
}

/// Runs every vector of one rule's folder; returns (triggers, cleans).
fn run_rule(rule: Rule) -> (usize, usize) {
    let dir = lint_dir().join(rule.as_str());
    let mut triggers = 0;
    let mut cleans = 0;
    let mut failures = Vec::new();
    for file in json_files(&dir) {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let doc: Value = serde_json::from_slice(&fs::read(&file).unwrap()).unwrap();
        let doc = doc.as_object().unwrap_or_else(|| panic!("{name}: not an object"));
        for key in doc.keys() {
            assert!(
                ["description", "input", "input_raw", "expected"].contains(&key.as_str()),
                "{name}: unknown key {key:?}"
            );
        }
        assert!(
            doc.get("description")
                .and_then(Value::as_str)
                .is_some_and(|d| !d.is_empty()),
            "{name}: no description"
        );
        let expected: Vec<(String, String, String)> = doc
            .get("expected")
            .and_then(Value::as_array)
            .unwrap_or_else(|| panic!("{name}: no expected array"))
            .iter()
            .map(|f| {
                let s = |k: &str| f.get(k).and_then(Value::as_str).unwrap().to_string();
                (s("rule"), s("severity"), s("pointer"))
            })
            .collect();
        let report = lint_card(&input_bytes(doc, &file), &LintOptions::default())
            .unwrap_or_else(|e| panic!("{name}: lint refused the card: {e:?}"));
        for f in &report.findings {
            assert_eq!(f.severity, f.rule.severity(), "{name}: {f:?}");
            assert!(!f.message.is_empty(), "{name}: empty message");
        }
        let of_rule = report.findings.iter().filter(|f| f.rule == rule).count();
        if name.starts_with("trigger") {
            triggers += 1;
            if of_rule == 0 {
                failures.push(format!("{name}: no {rule} finding"));
            }
            if !expected.iter().any(|(r, _, _)| r == rule.as_str()) {
                failures.push(format!("{name}: the expected findings do not name {rule}"));
            }
        } else if name.starts_with("clean") {
            cleans += 1;
            if of_rule != 0 {
                failures.push(format!("{name}: {of_rule} {rule} finding(s)"));
            }
        } else {
            failures.push(format!("{name}: a file name starts with trigger or clean"));
        }
        let got = triples(&report);
        if got != expected {
            failures.push(format!(
                "{name}:\n  expected {expected:?}\n  got      {got:?}\n  messages {:?}",
                report.findings.iter().map(|f| &f.message).collect::<Vec<_>>()
            ));
        }
        assert_eq!(
            report.has_errors(),
            expected.iter().any(|(_, s, _)| s == "error"),
            "{name}: has_errors"
        );
    }
    assert!(failures.is_empty(), "{rule}:\n{}", failures.join("\n"));
    (triggers, cleans)
}

macro_rules! rule_tests {
    ($($test:ident => $rule:expr,)*) => {
        $(
            #[test]
            fn $test() {
                let (triggers, cleans) = run_rule($rule);
                assert!(triggers >= 1 && cleans >= 1, "{}: {triggers} trigger and {cleans} clean vectors", $rule);
            }
        )*

        /// Every rule has its test above (a rule added to `Rule::ALL` without one fails here).
        #[test]
        fn every_rule_has_a_test() {
            let tested: Vec<Rule> = vec![$($rule),*];
            for rule in Rule::ALL {
                assert!(tested.contains(rule), "no #[test] for {rule}");
            }
            assert_eq!(tested.len(), Rule::ALL.len());
        }
    };
}

rule_tests! {
    required_missing => Rule::RequiredMissing,
    required_empty => Rule::RequiredEmpty,
    schema_error => Rule::SchemaError,
    url_not_absolute => Rule::UrlNotAbsolute,
    url_not_https => Rule::UrlNotHttps,
    protocol_binding_invalid => Rule::ProtocolBindingInvalid,
    protocol_version_malformed => Rule::ProtocolVersionMalformed,
    media_type_invalid => Rule::MediaTypeInvalid,
    skill_id_duplicate => Rule::SkillIdDuplicate,
    skill_without_tags => Rule::SkillWithoutTags,
    security_scheme_undefined => Rule::SecuritySchemeUndefined,
    oauth_flow_deprecated => Rule::OauthFlowDeprecated,
    unknown_member => Rule::UnknownMember,
    legacy_member => Rule::LegacyMember,
    signature_malformed => Rule::SignatureMalformed,
}

/// Every rule has a folder with a trigger and a clean vector, and every folder is a rule's.
#[test]
fn every_rule_has_vectors() {
    for rule in Rule::ALL {
        let dir = lint_dir().join(rule.as_str());
        let names: Vec<String> = json_files(&dir)
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert!(
            names.iter().any(|n| n.starts_with("trigger")),
            "{rule}: no trigger vector"
        );
        assert!(
            names.iter().any(|n| n.starts_with("clean")),
            "{rule}: no clean vector"
        );
    }
    for entry in fs::read_dir(lint_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            assert!(
                Rule::from_name(&name).is_some() || OTHER_FOLDERS.contains(&name.as_str()),
                "testvectors/lint/{name} is not a rule code"
            );
        }
    }
}

/// Codes are unique, kebab-case, and read back.
#[test]
fn rule_codes() {
    for (i, rule) in Rule::ALL.iter().enumerate() {
        let code = rule.as_str();
        assert!(
            code.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'),
            "{code}"
        );
        assert_eq!(Rule::from_name(code), Some(*rule));
        assert!(!Rule::ALL[..i].contains(rule), "{code} twice");
    }
}

/// The section 8.5 sample card, signed and unsigned: no errors. It carries two A2A 0.3 leftovers
/// that v1.0 does not define (see testvectors/cards/README.md), and lint names exactly those.
#[test]
fn sample_8_5_has_no_errors() {
    for file in ["sample-8.5.json", "sample-8.5-unsigned.json"] {
        let bytes = fs::read(cards_dir().join(file)).unwrap();
        let report = lint_card(&bytes, &LintOptions::default()).unwrap();
        assert!(!report.has_errors(), "{file}: {:?}", report.findings);
        assert_eq!(
            triples(&report),
            vec![
                (
                    "legacy-member".to_string(),
                    "warning".to_string(),
                    "/capabilities/stateTransitionHistory".to_string()
                ),
                (
                    "legacy-member".to_string(),
                    "warning".to_string(),
                    "/security".to_string()
                ),
            ],
            "{file}"
        );
    }
}

/// The sample card with its `security` line as PR a2aproject/A2A#2046 rewrote it and without
/// `stateTransitionHistory` lints clean: zero findings.
#[test]
fn sample_8_5_fixed_is_clean() {
    let bytes = fs::read(cards_dir().join("sample-8.5.json")).unwrap();
    let mut card: serde_json::Map<String, Value> = serde_json::from_slice(&bytes).unwrap();
    let security = card.shift_remove("security").unwrap();
    assert_eq!(
        security,
        serde_json::json!([{ "google": ["openid", "profile", "email"] }])
    );
    card.insert(
        "securityRequirements".into(),
        serde_json::json!([{ "schemes": { "google": { "list": ["openid", "profile", "email"] } } }]),
    );
    card["capabilities"]
        .as_object_mut()
        .unwrap()
        .shift_remove("stateTransitionHistory")
        .unwrap();
    let report = lint_card(&serde_json::to_vec(&card).unwrap(), &LintOptions::default()).unwrap();
    assert_eq!(report.findings, vec![], "fixed sample");
}

/// Unreadable input is the only `Err`: the strict reader's error, with its code and place.
#[test]
fn unreadable_input_is_an_error() {
    let e = lint_card(br#"{"name":"a","name":"b"}"#, &LintOptions::default()).unwrap_err();
    assert_eq!(e.code().as_str(), "duplicate-member");
    assert_eq!(e.pointer(), Some("/name"));
    let e = lint_card(b"{\"name\":", &LintOptions::default()).unwrap_err();
    assert_eq!(e.code().as_str(), "invalid-json");
    let small = LintOptions {
        limits: a2a_card::Limits {
            max_input_bytes: 4,
            ..Default::default()
        },
    };
    assert_eq!(
        lint_card(b"{ }   ", &small).unwrap_err().code().as_str(),
        "input-too-large"
    );
}

/// Every canonical vector's input: lint refuses exactly the inputs the strict reader refuses
/// (same code), reads every other one without panicking, and turns each canonicalizer refusal
/// (dual name, type mismatch, oneof) into a `schema-error` finding at the same pointer.
#[test]
fn canonical_vectors_never_panic() {
    let mut seen = 0;
    for v in canonical_vectors_or_panic() {
        let defaults = a2a_card::Limits::default();
        let limits = a2a_card::Limits {
            max_input_bytes: v.max_input_bytes.unwrap_or(defaults.max_input_bytes),
            max_depth: v.max_depth.unwrap_or(defaults.max_depth),
        };
        let bytes = &v.input;
        let read = a2a_card::canonical::parse_json(bytes, &limits);
        let linted = lint_card(bytes, &LintOptions { limits });
        match (read, linted) {
            (Err(e), Err(l)) => assert_eq!(e.code(), l.code(), "{}", v.id),
            (Ok(_), Ok(report)) => {
                if let Expected::Error { code, pointer } = &v.expected {
                    if matches!(code.as_str(), "dual-name" | "type-mismatch" | "oneof-conflict")
                        && v.profile == "spec"
                    {
                        assert!(
                            report.findings.iter().any(|f| f.rule == Rule::SchemaError
                                && Some(f.pointer.as_str()) == pointer.as_deref()),
                            "{}: no schema-error at {pointer:?}: {:?}",
                            v.id,
                            report.findings
                        );
                    }
                }
                seen += 1;
            }
            (r, l) => panic!("{}: reader {r:?}, lint {l:?}", v.id),
        }
    }
    assert!(seen > 20, "only {seen} readable canonical vectors");
}

/// The JSON form of a report: findings with rule code, lower-case severity, pointer, message.
#[test]
fn report_serializes() {
    let report = lint_card(br#"{"name":"A"}"#, &LintOptions::default()).unwrap();
    let v = serde_json::to_value(&report).unwrap();
    let first = &v["findings"][0];
    assert_eq!(first["rule"], "required-missing");
    assert_eq!(first["severity"], "error");
    assert_eq!(first["pointer"], "/description");
    assert!(first["message"].as_str().unwrap().contains("description"));
    assert_eq!(report.count(Severity::Error), 7);
    assert_eq!(report.count(Severity::Warning), 0);
}

/// Every pointer of a JSON value, in document order.
fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
    out.push(at.clone());
    match v {
        Value::Object(m) => {
            for (k, item) in m {
                pointers(
                    item,
                    format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                pointers(item, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// Every value of every vector card replaced by each JSON type in turn, and every member
/// removed: lint reads each result (it is valid JSON) without panicking, every finding's pointer
/// is a JSON Pointer, and whenever the canonicalizer refuses the card, lint has a `schema-error`.
#[test]
fn mutations_never_panic() {
    let replacements = [
        Value::Null,
        serde_json::json!(0),
        serde_json::json!(""),
        serde_json::json!("x"),
        serde_json::json!([]),
        serde_json::json!([1]),
        serde_json::json!({}),
        serde_json::json!({"a": 1}),
        serde_json::json!(true),
    ];
    let mut runs = 0;
    for rule in Rule::ALL {
        for file in json_files(&lint_dir().join(rule.as_str())) {
            let doc: Value = serde_json::from_slice(&fs::read(&file).unwrap()).unwrap();
            let Some(input) = doc.get("input") else { continue };
            let mut all = Vec::new();
            pointers(input, String::new(), &mut all);
            for ptr in all.iter().skip(1) {
                for r in &replacements {
                    let mut card = input.clone();
                    *card.pointer_mut(ptr).unwrap() = r.clone();
                    let report = lint_card(&serde_json::to_vec(&card).unwrap(), &LintOptions::default())
                        .unwrap_or_else(|e| panic!("{}: {ptr} = {r}: {e:?}", file.display()));
                    for f in &report.findings {
                        assert!(f.pointer.is_empty() || f.pointer.starts_with('/'), "{f:?}");
                    }
                    let refused =
                        a2a_card::canonicalize(&serde_json::to_vec(&card).unwrap(), &Default::default())
                            .is_err();
                    let schema_error = report.findings.iter().any(|f| f.rule == Rule::SchemaError);
                    assert_eq!(refused, schema_error, "{}: {ptr} = {r}", file.display());
                    runs += 1;
                }
                let (parent, last) = ptr.rsplit_once('/').unwrap();
                let mut card = input.clone();
                match card.pointer_mut(parent).unwrap() {
                    Value::Object(m) => {
                        m.shift_remove(&last.replace("~1", "/").replace("~0", "~"));
                    }
                    Value::Array(items) => {
                        items.remove(last.parse::<usize>().unwrap());
                    }
                    _ => unreachable!(),
                }
                lint_card(&serde_json::to_vec(&card).unwrap(), &LintOptions::default()).unwrap();
                runs += 1;
            }
        }
    }
    assert!(runs > 5000, "only {runs} mutations");
}

/// The a2a-card-sign-v01 corpus (third-party, `A2A_CARD_CORPORA`): each served card's `case`
/// says what is wrong with it (an empty or absent REQUIRED member, an unknown or 0.3 member, a
/// dual name). Lint must find exactly that, and nothing in the controls; no signature entry of
/// the corpus (real ES256 signatures) is malformed.
#[test]
fn card_sign_corpus_cases() {
    let Some(corpus) = data::corpus_dir() else {
        return;
    };
    let files = data::card_sign_vector_files(&corpus);
    assert_eq!(files.len(), 42, "the corpus has 42 vectors");
    let legacy = [
        ("legacy-member", "/url"),
        ("legacy-member", "/protocolVersion"),
        ("legacy-member", "/preferredTransport"),
    ];
    for file in files {
        let v = data::read_json(&file);
        let case = v.get("case").and_then(Value::as_str).unwrap_or("control");
        let expected: Vec<(&str, &str)> = match case {
            "control" | "empty_description" | "empty_extensions" | "single_spelling_control" => vec![],
            "empty_skills" => vec![("required-empty", "/skills")],
            "empty_skill_tags" | "absent_skill_tags" => vec![("skill-without-tags", "/skills/0/tags")],
            "absent_description" => vec![("required-missing", "/description")],
            "absent_version" => vec![("required-missing", "/version")],
            "absent_skills" => vec![("required-missing", "/skills")],
            "absent_default_input_modes" => vec![("required-missing", "/defaultInputModes")],
            // Section 8.4.1's worked example: name, description, capabilities and skills only.
            "worked_example" => vec![
                ("required-missing", "/supportedInterfaces"),
                ("required-missing", "/version"),
                ("required-missing", "/defaultInputModes"),
                ("required-missing", "/defaultOutputModes"),
                ("required-empty", "/skills"),
            ],
            "legacy_v03_top_level"
            | "legacy_v03_top_level_dual_signed"
            | "legacy_v03_top_level_dual_signed_edited"
            | "legacy_v03_top_level_edited" => legacy.to_vec(),
            "unknown_in_known_message" => vec![("unknown-member", "/provider/legalEntity")],
            "unknown_top_level_object" => vec![("unknown-member", "/compensation")],
            "unknown_in_repeated_element" => vec![("unknown-member", "/skills/0/costHint")],
            "unknown_empty_value" => vec![("unknown-member", "/x-reserved")],
            "dual_top_level" | "snake_case_added_after_signing" => {
                vec![("schema-error", "/default_input_modes")]
            }
            "dual_in_repeated_element" => vec![("schema-error", "/skills/0/input_modes")],
            "dual_in_map_value" => {
                vec![(
                    "schema-error",
                    "/securitySchemes/b/httpAuthSecurityScheme/bearer_format",
                )]
            }
            other => panic!("{}: case {other:?} has no expectation here", file.display()),
        };
        let card = serde_json::to_vec(&v["served_card"]).unwrap();
        let report = lint_card(&card, &LintOptions::default()).unwrap();
        let mut got: Vec<(&str, &str)> = report
            .findings
            .iter()
            .map(|f| (f.rule.as_str(), f.pointer.as_str()))
            .collect();
        let mut want = expected.clone();
        got.sort_unstable();
        want.sort_unstable();
        assert_eq!(got, want, "{} ({case})", file.display());
    }
}

/// JSONTestSuite (third-party): lint refuses exactly the documents the strict reader refuses,
/// with the same code, and reads the others (as findings) without panicking.
#[test]
fn jsontestsuite_never_panics() {
    let Some(corpus) = data::corpus_dir() else {
        return;
    };
    let dir = corpus.join("jsontestsuite/test_parsing");
    let files = json_files(&dir);
    assert!(files.len() > 300, "{}: {} files", dir.display(), files.len());
    for file in files {
        let bytes = fs::read(&file).unwrap();
        let read = a2a_card::canonical::parse_json(&bytes, &a2a_card::Limits::default());
        let linted = lint_card(&bytes, &LintOptions::default());
        match (read, linted) {
            (Ok(_), Ok(_)) => {}
            (Err(e), Err(l)) => assert_eq!(e.code(), l.code(), "{}", file.display()),
            (r, l) => panic!("{}: reader {:?}, lint {:?}", file.display(), r.err(), l.err()),
        }
    }
}

/// The TCK's CARD-SIGN-003 protected-header cases (third-party): a `signature-malformed` finding
/// on a `protected` header exactly when the case says the header is invalid (alg or kid missing
/// or empty). Their signatures are placeholders ("fake"), which lint rightly reports as not
/// base64url; those findings are on `/signature`, not on the header.
#[test]
fn tck_protected_header_cases() {
    let Some(corpus) = data::corpus_dir() else {
        return;
    };
    let file = corpus.join("a2a/a2a-tck-card-sign-pr194-204/card_signing_protected_header_vectors.json");
    let doc = data::read_json(&file);
    let cases = doc["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 6);
    for case in cases {
        let id = case["id"].as_str().unwrap();
        let valid = case["expected_valid"].as_bool().unwrap();
        let card = serde_json::to_vec(&case["agent_card"]).unwrap();
        let report = lint_card(&card, &LintOptions::default()).unwrap();
        let header_findings = report
            .findings
            .iter()
            .filter(|f| f.rule == Rule::SignatureMalformed && f.pointer.ends_with("/protected"))
            .count();
        assert_eq!(header_findings == 0, valid, "{id}: {:?}", report.findings);
        for f in report
            .findings
            .iter()
            .filter(|f| f.rule == Rule::SignatureMalformed)
        {
            assert!(
                f.pointer.ends_with("/protected") || f.pointer.ends_with("/signature"),
                "{id}: {f:?}"
            );
        }
    }
}
