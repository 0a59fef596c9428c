//! End-to-end tests of `a2a-card migrate`: the realistic 0.3 card of
//! `testvectors/migrate/freight-tracker.json` through the built binary, in text and JSON format,
//! to stdout and to a file; the migrated card then signed and verified with the binary's own
//! `keygen`, `sign` and `verify`, and linted; exit codes 0, 1 and 2.

#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::*;

/// A vector file as JSON (member order kept: serde_json is built with `preserve_order`).
fn vector(id: &str) -> serde_json::Value {
    read_json(testvectors_dir().join(format!("migrate/{id}.json")))
}

/// The vector's input card as pretty JSON (these inputs hold only strings, booleans and small
/// integers, so serde_json writes them exactly).
fn input_of(v: &serde_json::Value) -> String {
    serde_json::to_string_pretty(&v["input"]).unwrap()
}

/// JSON text of a value, members in order: comparing these compares member order too.
fn ordered(v: &serde_json::Value) -> String {
    serde_json::to_string(v).unwrap()
}

fn note_pointers(err: &str) -> Vec<String> {
    err.lines()
        .filter_map(|l| l.strip_prefix("note["))
        .map(|l| {
            let rest = &l[l.find("]: ").unwrap() + 3..];
            rest.split([' ', ':']).next().unwrap().to_string()
        })
        .collect()
}

#[test]
fn realistic_card_to_file_then_sign_verify() {
    let dir = scratch("migrate-realistic");
    let v = vector("freight-tracker");
    let card = write(&dir, "card.v03.json", input_of(&v));
    let out_path = dir.join("card.json");
    // stateTransitionHistory and the 0.3 signature are dropped: noted, and the card is
    // written (exit 0, so that `migrate -o y && lint y` runs); --strict makes the loss fail.
    let strict = run(&["migrate", s(&card), "-o", s(&out_path), "--strict"], None);
    expect_code(&strict, 1, "migrate --strict");
    assert!(out_path.exists(), "--strict writes the card all the same");
    let out = run(&["migrate", s(&card), "-o", s(&out_path), "--force"], None);
    expect_code(&out, 0, "migrate");
    assert!(out.stdout.is_empty(), "with -o nothing goes to stdout");
    let migrated: serde_json::Value = serde_json::from_slice(&std::fs::read(&out_path).unwrap()).unwrap();
    assert_eq!(ordered(&migrated), ordered(&v["expected_card"]));

    // One note line per expected note, each naming its input pointer; the summary is last.
    let err = stderr(&out);
    let mut got = note_pointers(&err);
    let mut want: Vec<String> = v["expected_notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["pointer"].as_str().unwrap().to_string())
        .collect();
    got.sort();
    want.sort();
    assert_eq!(got, want, "{err}");
    assert!(err.contains("note[dropped]: /signatures: "), "{err}");
    assert!(
        err.contains("note[moved]: /supportsAuthenticatedExtendedCard -> /capabilities/extendedAgentCard: "),
        "{err}"
    );
    let last = err.lines().last().unwrap();
    assert!(last.contains("dropped or missing"), "{last}");

    // The 1.0 card signs and verifies with the binary's own tools.
    let (pem, jwks) = keygen(&dir, "release", "ES256", &[]);
    let signed = dir.join("card.signed.json");
    sign_to(&out_path, &pem, &[], &signed);
    let verified = verify(&signed, &jwks, &[]);
    expect_code(&verified, 0, "verify the signed migrated card");
    // The 0.3 signature would not have verified the 1.0 card: it is gone, only ours is there.
    let signed_card: serde_json::Value = serde_json::from_slice(&std::fs::read(&signed).unwrap()).unwrap();
    assert_eq!(signed_card["signatures"].as_array().unwrap().len(), 1);
}

#[test]
fn stdout_and_json_formats_agree() {
    let dir = scratch("migrate-formats");
    let v = vector("freight-tracker");
    let card = write(&dir, "card.v03.json", input_of(&v));
    let file = dir.join("card.json");
    expect_code(&run(&["migrate", s(&card), "-o", s(&file)], None), 0, "to a file");
    let to_stdout = run(&["migrate", s(&card)], None);
    expect_code(&to_stdout, 0, "to stdout");
    assert_eq!(
        to_stdout.stdout,
        std::fs::read(&file).unwrap(),
        "same bytes to stdout and to -o"
    );
    assert!(to_stdout.stdout.ends_with(b"}\n"));

    // From stdin, JSON report.
    let json = run(&["migrate", "--format", "json"], Some(input_of(&v).as_bytes()));
    expect_code(&json, 0, "json format");
    assert!(json.stderr.is_empty(), "{}", stderr(&json));
    let report = json_out(&json);
    assert_eq!(ordered(&report["card"]), ordered(&v["expected_card"]));
    assert_eq!(report["lost"], serde_json::Value::Bool(true));
    assert_eq!(report["alreadyV1"], serde_json::Value::Bool(false));
    let notes = report["notes"].as_array().unwrap();
    assert_eq!(notes.len(), v["expected_notes"].as_array().unwrap().len());
    for n in notes {
        assert!(
            n["pointer"].is_string() && n["kind"].is_string() && n["message"].is_string(),
            "{n}"
        );
    }
    assert!(notes
        .iter()
        .any(|n| n["pointer"] == "/security" && n["target"] == "/securityRequirements"));

    // JSON report with -o: the card is in the file, not in the report.
    let out2 = dir.join("card2.json");
    let json = run(&["migrate", s(&card), "--format", "json", "-o", s(&out2)], None);
    expect_code(&json, 0, "json format with -o");
    assert!(json_out(&json).get("card").is_none());
    assert_eq!(std::fs::read(&out2).unwrap(), std::fs::read(&file).unwrap());
}

#[test]
fn nothing_lost_exits_0_and_lints_clean() {
    let dir = scratch("migrate-clean");
    let mut v = vector("freight-tracker");
    // The same card without the two members that have no 1.0 home.
    v["input"]["capabilities"]
        .as_object_mut()
        .unwrap()
        .shift_remove("stateTransitionHistory");
    v["input"].as_object_mut().unwrap().shift_remove("signatures");
    let card = write(&dir, "card.v03.json", input_of(&v));
    let file = dir.join("card.json");
    let out = run(
        &["migrate", s(&card), "-o", s(&file), "--protocol-version", "1.0"],
        None,
    );
    expect_code(&out, 0, "migrate a card that loses nothing");
    let err = stderr(&out);
    assert!(
        !err.contains("note[dropped]") && !err.contains("note[missing]"),
        "{err}"
    );
    assert!(err.lines().last().unwrap().contains("nothing lost"), "{err}");
    let migrated: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    for i in migrated["supportedInterfaces"].as_array().unwrap() {
        assert_eq!(i["protocolVersion"], "1.0");
    }
    // `a2a-card lint` finds nothing to fix.
    let lint = run(&["lint", s(&file)], None);
    expect_code(&lint, 0, "lint the migrated card");
}

#[test]
fn already_v1_is_written_back_unchanged() {
    let v = vector("already-v1");
    let bytes = serde_json::to_vec(&v["input"]).unwrap();
    let out = run(&["migrate", "-"], Some(&bytes));
    expect_code(&out, 0, "already 1.0");
    assert_eq!(out.stdout, bytes);
    let err = stderr(&out);
    assert!(err.contains("note[unchanged]: (document root)"), "{err}");
    assert!(
        err.lines().last().unwrap().contains("already an A2A 1.0 card"),
        "{err}"
    );
}

#[test]
fn unreadable_cards_exit_2_with_the_place() {
    let dir = scratch("migrate-errors");
    let v = vector("err-mixed-versions");
    let card = write(&dir, "mixed.json", serde_json::to_vec(&v["input"]).unwrap());
    let out = run(&["migrate", s(&card)], None);
    let line = expect_error(&out, 2, "malformed-card", s(&card));
    assert!(line.contains(" at /supportedInterfaces "), "{line}");

    let out = run(
        &["migrate"],
        Some(br#"{"url":"https://a.example","security":{"x":[]}}"#),
    );
    let line = expect_error(&out, 2, "type-mismatch", "<stdin>");
    assert!(line.contains(" at /security"), "{line}");

    let out = run(&["migrate"], Some(br#"{"name":"a","name":"b"}"#));
    expect_error(&out, 2, "duplicate-member", "<stdin>");

    let out = run(&["migrate", s(&dir.join("absent.json"))], None);
    expect_error(&out, 2, "io", s(&dir.join("absent.json")));

    let out = run(
        &["migrate", "--max-input-bytes", "10"],
        Some(br#"{"name":"a long card"}"#),
    );
    expect_error(&out, 2, "input-too-large", "<stdin>");

    let out = run(&["migrate", "--format", "yaml"], Some(b"{}"));
    expect_code(&out, 2, "bad --format");

    // An empty --protocol-version: refused by the library's rule before the card is read.
    let out = run(&["migrate", "--protocol-version", ""], Some(b"{}"));
    expect_error(&out, 2, "usage", "<command line>");
    let line = error_line(&out);
    assert!(
        line.contains("--protocol-version: the protocolVersion must not be empty"),
        "{line}"
    );
}

/// A 0.3 card with an ill-typed member (the `err-*-not-*` vectors, and one already 1.0) is
/// refused with the member's place in the input, exit 2, and no card is written: migrate never
/// writes a card that canonicalize and sign would refuse.
#[test]
fn ill_typed_cards_are_refused_and_nothing_is_written() {
    let dir = scratch("migrate-ill-typed");
    let ids = [
        "err-description-not-string",
        "err-name-not-string",
        "err-input-mode-not-string",
        "err-provider-url-not-string",
        "err-skill-tags-not-array",
        "err-streaming-not-boolean",
        "err-extension-params-not-object",
        "err-v1-description-not-string",
    ];
    for id in ids {
        let v = vector(id);
        let card = write(&dir, &format!("{id}.json"), input_of(&v));
        let out_path = dir.join(format!("{id}.out.json"));
        let out = run(&["migrate", s(&card), "-o", s(&out_path)], None);
        let code = v["expected_error"]["code"].as_str().unwrap();
        let line = expect_error(&out, 2, code, s(&card));
        let pointer = v["expected_error"]["pointer"].as_str().unwrap();
        assert!(line.contains(&format!(" at {pointer} ")), "{id}: {line}");
        assert!(!out_path.exists(), "{id}: a card was written");
        // To stdout, the same refusal.
        let out = run(&["migrate", s(&card)], None);
        expect_error(&out, 2, code, s(&card));
    }
}

#[test]
fn help_documents_exit_codes_and_note_format() {
    assert_mentions(
        &help(&["migrate"]),
        &[
            "Exit codes: 0",
            "note[KIND]: POINTER -> TARGET: MESSAGE",
            "--protocol-version",
            "-o, --out",
        ],
    );
}
