//! Runs the migration vectors (`testvectors/migrate/*.json`, format in
//! `testvectors/migrate/README.md`) through [`a2a_card::migrate::migrate_card`], and checks what
//! the migrated cards are good for: every note names a member of the input card, every target a
//! member of the output, the output reads back as 1.0 (a second migration leaves it unchanged),
//! it canonicalizes, signs with a freshly generated key and verifies, and the cards the vectors
//! mark `lints_clean` get no error and no warning from `a2a_card::lint`.

#![allow(clippy::unwrap_used, clippy::panic)] // a test reports by panicking

use a2a_card::lint::{lint_card, LintOptions, Rule, Severity};
use a2a_card::migrate::{migrate_card, MigrateOptions, Migration, NoteKind};
use a2a_card::signature::trust::TrustStore;
use a2a_card::{
    canonicalize, sign_card, verify_card, Algorithm, CanonicalizeOptions, ErrorCode, PrivateKey, SignOptions,
    VerifyOptions,
};
use a2a_card_testkit::data::{json_files, testvectors_dir};
use serde_json::Value;

const KNOWN_KEYS: &[&str] = &[
    "id",
    "description",
    "options",
    "lints_clean",
    "already_v1",
    "input",
    "input_raw",
    "expected_card",
    "expected_notes",
    "expected_lost",
    "expected_error",
];

struct Vector {
    id: String,
    value: Value,
    input: Vec<u8>,
    opts: MigrateOptions,
}

fn str_of<'v>(v: &'v Value, name: &str) -> Option<&'v str> {
    v.get(name).and_then(Value::as_str)
}

fn bool_of(v: &Value, name: &str) -> Option<bool> {
    v.get(name).and_then(Value::as_bool)
}

/// Compact JSON text, members in their order.
fn compact(v: &Value) -> String {
    v.to_string()
}

fn load() -> Vec<Vector> {
    json_files(&testvectors_dir().join("migrate"))
        .into_iter()
        .map(|path| {
            let value = a2a_card_testkit::data::read_json(&path);
            let id = str_of(&value, "id").unwrap().to_string();
            assert_eq!(
                path.file_stem().unwrap().to_str().unwrap(),
                id,
                "the file name must be the id"
            );
            let Value::Object(members) = &value else {
                panic!("{id}: not an object")
            };
            for k in members.keys() {
                assert!(KNOWN_KEYS.contains(&k.as_str()), "{id}: unknown key {k}");
            }
            let input = match (value.get("input"), str_of(&value, "input_raw")) {
                (Some(v), None) => serde_json::to_vec(v).unwrap(),
                (None, Some(raw)) => raw.as_bytes().to_vec(),
                _ => panic!("{id}: exactly one of input and input_raw"),
            };
            let mut opts = MigrateOptions::default();
            if let Some(o) = value.get("options") {
                opts.protocol_version = str_of(o, "protocol_version").map(str::to_string);
            }
            Vector {
                id,
                value,
                input,
                opts,
            }
        })
        .collect()
}

/// Notes as sorted `(pointer, kind, target)` triples.
fn note_keys(m: &Migration) -> Vec<(String, String, Option<String>)> {
    let mut v: Vec<_> = m
        .notes
        .iter()
        .map(|n| (n.pointer.clone(), n.kind.as_str().to_string(), n.target.clone()))
        .collect();
    v.sort();
    v
}

fn expected_note_keys(expected: &Value) -> Vec<(String, String, Option<String>)> {
    let Value::Array(items) = expected else {
        panic!("expected_notes must be an array")
    };
    let mut v: Vec<_> = items
        .iter()
        .map(|n| {
            (
                str_of(n, "pointer").unwrap().to_string(),
                str_of(n, "kind").unwrap().to_string(),
                str_of(n, "target").map(str::to_string),
            )
        })
        .collect();
    v.sort();
    v
}

fn check_success(v: &Vector, m: &Migration) -> Vec<String> {
    let mut problems = Vec::new();
    let id = &v.id;
    let input: Value = serde_json::from_slice(&v.input).unwrap();
    let out: Value = match serde_json::from_slice(&m.card) {
        Ok(out) => out,
        Err(e) => return vec![format!("{id}: the migrated card does not read back: {e}")],
    };
    // The card, member order included: compared as compact text (serde_json keeps member order,
    // but its `==` on objects does not look at it).
    let expected = compact(v.value.get("expected_card").unwrap());
    if compact(&out) != expected {
        problems.push(format!(
            "{id}: card differs\n  got:      {}\n  expected: {expected}",
            compact(&out)
        ));
    }
    let already = bool_of(&v.value, "already_v1").unwrap_or(false);
    if m.already_v1 != already {
        problems.push(format!("{id}: already_v1 {} != {already}", m.already_v1));
    }
    if already && m.card != v.input {
        problems.push(format!("{id}: a 1.0 card must come back byte for byte"));
    }
    if !already && !m.card.ends_with(b"}\n") {
        problems.push(format!("{id}: the migrated card must end with a newline"));
    }
    let got = note_keys(m);
    let want = expected_note_keys(v.value.get("expected_notes").unwrap());
    if got != want {
        problems.push(format!(
            "{id}: notes differ\n  got:      {got:?}\n  expected: {want:?}"
        ));
    }
    if Some(m.lost_something()) != bool_of(&v.value, "expected_lost") {
        problems.push(format!("{id}: lost_something() = {}", m.lost_something()));
    }
    for n in &m.notes {
        // A note names a member of the input, except for what the input lacks.
        let absent = matches!(n.kind, NoteKind::Missing | NoteKind::Defaulted);
        if input.pointer(&n.pointer).is_some() == absent {
            problems.push(format!(
                "{id}: note pointer {:?} ({}) {} in the input",
                n.pointer,
                n.kind.as_str(),
                if absent { "exists" } else { "does not exist" }
            ));
        }
        if n.message.is_empty() {
            problems.push(format!("{id}: note at {:?} has no message", n.pointer));
        }
        if let Some(t) = &n.target {
            let targets: Vec<String> = if t.contains("/*/") {
                let Some(Value::Array(items)) = out.get("supportedInterfaces") else {
                    problems.push(format!("{id}: target {t} but no supportedInterfaces"));
                    continue;
                };
                (0..items.len())
                    .map(|i| t.replace("/*/", &format!("/{i}/")))
                    .collect()
            } else {
                vec![t.clone()]
            };
            for t in targets {
                if out.pointer(&t).is_none() {
                    problems.push(format!("{id}: note target {t:?} is not in the migrated card"));
                }
            }
        }
    }
    // `lints_clean`: no error and no warning from lint; otherwise at least one of them.
    let report = lint_card(&m.card, &LintOptions::default()).unwrap();
    let serious: Vec<String> = report
        .findings
        .iter()
        .filter(|f| matches!(f.severity, Severity::Error | Severity::Warning))
        .map(|f| {
            format!(
                "{} {} at {}: {}",
                f.severity.as_str(),
                f.rule.as_str(),
                f.pointer,
                f.message
            )
        })
        .collect();
    match bool_of(&v.value, "lints_clean") {
        Some(true) if !serious.is_empty() => problems.push(format!(
            "{id}: lint findings on the migrated card:\n  {}",
            serious.join("\n  ")
        )),
        Some(false) if serious.is_empty() => {
            problems.push(format!("{id}: marked lints_clean false, but lint finds nothing"))
        }
        None => problems.push(format!("{id}: no lints_clean")),
        _ => {}
    }
    // The output is a 1.0 card: migrating it again changes nothing.
    if out.get("supportedInterfaces").is_some() {
        match migrate_card(&m.card, &MigrateOptions::default()) {
            Ok(again) if again.already_v1 && again.card == m.card => {}
            Ok(_) => problems.push(format!("{id}: a second migration changed the card")),
            Err(e) => problems.push(format!("{id}: a second migration failed: {e}")),
        }
    }
    // No A2A 0.3 member survives: the library's list of them, lint's `legacy-member` rule (the
    // top-level 0.3 members, a skill's `security`, an interface's `transport`,
    // `capabilities.stateTransitionHistory`), finds none; and the 0.3 signatures are gone.
    for f in report.findings.iter().filter(|f| f.rule == Rule::LegacyMember) {
        problems.push(format!("{id}: {} is still in the migrated card", f.pointer));
    }
    if out.get("signatures").is_some() {
        problems.push(format!("{id}: /signatures is still in the migrated card"));
    }
    problems
}

#[test]
fn vectors() {
    let vectors = load();
    assert!(vectors.len() >= 9, "only {} migration vectors", vectors.len());
    let mut problems = Vec::new();
    for v in &vectors {
        let result = migrate_card(&v.input, &v.opts);
        match (v.value.get("expected_error"), result) {
            (Some(e), Err(err)) => {
                let code = str_of(e, "code").unwrap();
                assert!(
                    ErrorCode::from_name(code).is_some(),
                    "{}: unknown code {code}",
                    v.id
                );
                if err.code().as_str() != code {
                    problems.push(format!("{}: error {} != {code} ({err})", v.id, err.code()));
                }
                if let Some(p) = str_of(e, "pointer") {
                    if err.pointer() != Some(p) {
                        problems.push(format!("{}: error pointer {:?} != {p:?}", v.id, err.pointer()));
                    }
                }
            }
            (Some(_), Ok(_)) => problems.push(format!("{}: migrated, but an error was expected", v.id)),
            (None, Err(err)) => problems.push(format!("{}: failed: {err}", v.id)),
            (None, Ok(m)) => problems.extend(check_success(v, &m)),
        }
    }
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// Every migrated card canonicalizes, signs with a key generated here, and verifies; changing a
/// migrated member afterwards breaks the signature.
#[test]
fn migrated_cards_sign_and_verify() {
    let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    let mut trust = TrustStore::new();
    trust.pin(key.public().clone(), "generated in this test");
    let mut signed_any = 0;
    for v in load() {
        if v.value.get("expected_error").is_some() {
            continue;
        }
        let m = migrate_card(&v.input, &v.opts).unwrap();
        let c = canonicalize(&m.card, &CanonicalizeOptions::default()).unwrap();
        assert!(
            c.unsigned.is_empty(),
            "{}: unsigned members {:?}",
            v.id,
            c.unsigned
        );
        let signed = sign_card(&m.card, &key, &SignOptions::default()).unwrap();
        let report = verify_card(&signed.card, &trust, &VerifyOptions::default()).unwrap();
        assert!(report.ok, "{}: the signed migrated card does not verify", v.id);
        // Change one carried-over value: the signature must no longer hold.
        let text = String::from_utf8(signed.card.clone()).unwrap();
        let tampered = text.replacen("\"protocolBinding\": \"", "\"protocolBinding\": \"X", 1);
        if tampered != text {
            let r = verify_card(tampered.as_bytes(), &trust, &VerifyOptions::default()).unwrap();
            assert!(!r.ok, "{}: a changed protocolBinding still verifies", v.id);
        }
        signed_any += 1;
    }
    assert!(signed_any >= 3);
}

/// The 0.3 card's own signature (made the 0.3 way) is dropped, never carried into the 1.0 card,
/// and the note says to sign again.
#[test]
fn old_signatures_are_dropped_with_a_note() {
    let v = load().into_iter().find(|v| v.id == "freight-tracker").unwrap();
    assert!(serde_json::from_slice::<Value>(&v.input)
        .unwrap()
        .get("signatures")
        .is_some());
    let m = migrate_card(&v.input, &v.opts).unwrap();
    assert!(serde_json::from_slice::<Value>(&m.card)
        .unwrap()
        .get("signatures")
        .is_none());
    let note = m.notes.iter().find(|n| n.pointer == "/signatures").unwrap();
    assert_eq!(note.kind, NoteKind::Dropped);
    assert!(note.message.contains("sign"), "{}", note.message);
}

/// Hostile and odd inputs end in an error or a migration, never a panic, and errors name a place.
#[test]
fn odd_inputs_never_panic() {
    let cases: &[&[u8]] = &[
        b"",
        b"null",
        b"{}",
        b"[]",
        b"{\"url\":7}",
        b"{\"url\":\"u\",\"additionalInterfaces\":{}}",
        b"{\"url\":\"u\",\"additionalInterfaces\":[7]}",
        b"{\"url\":\"u\",\"additionalInterfaces\":[{\"url\":1,\"transport\":\"GRPC\"}]}",
        b"{\"protocolVersion\":[]}",
        b"{\"preferredTransport\":null,\"url\":null}",
        b"{\"capabilities\":[]}",
        b"{\"capabilities\":{\"extendedAgentCard\":false},\"supportsAuthenticatedExtendedCard\":true}",
        b"{\"supportsAuthenticatedExtendedCard\":\"yes\"}",
        b"{\"supportsAuthenticatedExtendedCard\":true}",
        b"{\"securitySchemes\":{\"a\":{\"type\":3}}}",
        b"{\"securitySchemes\":{\"a\":{}}}",
        b"{\"securitySchemes\":{\"a\":{\"type\":\"oauth2\",\"flows\":[]}}}",
        b"{\"securitySchemes\":{\"a\":{\"type\":\"oauth2\",\"flows\":{\"implicit\":7}}}}",
        b"{\"securitySchemes\":{\"a\":{\"type\":\"oauth2\",\"flows\":{\"password\":{},\"implicit\":{}}}}}",
        b"{\"securitySchemes\":[]}",
        b"{\"security\":[7]}",
        b"{\"security\":[{\"a\":\"read\"}]}",
        b"{\"skills\":{}}",
        b"{\"skills\":[null,7]}",
        b"{\"skills\":[{\"security\":null}]}",
        b"{\"a/b~c\":1}",
    ];
    for case in cases {
        match migrate_card(case, &MigrateOptions::default()) {
            Ok(m) => {
                serde_json::from_slice::<Value>(&m.card).unwrap();
                for n in &m.notes {
                    assert!(n.pointer.is_empty() || n.pointer.starts_with('/'));
                }
            }
            Err(e) => assert!(
                e.pointer().is_some() || e.offset().is_some(),
                "{}: error without a place: {e}",
                String::from_utf8_lossy(case)
            ),
        }
    }
    // Pointer tokens are escaped (RFC 6901).
    let m = migrate_card(b"{\"a/b~c\":1}", &MigrateOptions::default()).unwrap();
    assert_eq!(m.notes.iter().filter(|n| n.pointer == "/a~1b~0c").count(), 1);
    // A deprecated-only oauth2 scheme keeps its first flow and says it is deprecated.
    let m = migrate_card(
        br#"{"securitySchemes":{"a":{"type":"oauth2","flows":{"password":{"tokenUrl":"t","scopes":{}},"implicit":{}}}}}"#,
        &MigrateOptions::default(),
    )
    .unwrap();
    let card: Value = serde_json::from_slice(&m.card).unwrap();
    let flows = card
        .pointer("/securitySchemes/a/oauth2SecurityScheme/flows")
        .unwrap();
    assert!(flows.get("password").is_some() && flows.get("implicit").is_none());
    assert!(m
        .notes
        .iter()
        .any(|n| n.pointer == "/securitySchemes/a/flows/password" && n.kind == NoteKind::Unchanged));
}

/// Reader limits apply to the input.
#[test]
fn limits_apply() {
    let v = load().into_iter().find(|v| v.id == "freight-tracker").unwrap();
    let opts = MigrateOptions {
        limits: a2a_card::Limits {
            max_input_bytes: 100,
            ..Default::default()
        },
        ..Default::default()
    };
    let err = migrate_card(&v.input, &opts).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InputTooLarge);
}
