//! `a2a-card schema`: the printed JSON Schema, in both drafts, compiled by an independent
//! validator (boon) and used to validate the section 8.5 sample card and reject broken cards.

#![allow(clippy::unwrap_used, clippy::panic)] // a test reports by panicking

mod common;

use common::{expect_code, repo_root, run, s, scratch, stderr, stdout};
use serde_json::Value;

/// Compiles a schema with boon and validates `card` with it.
fn validate(schema: &Value, card: &Value) -> Result<(), String> {
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    compiler
        .add_resource("file:///schema.json", schema.clone())
        .unwrap();
    let index = compiler
        .compile("file:///schema.json", &mut schemas)
        .unwrap_or_else(|e| panic!("the printed schema does not compile: {e:#}"));
    schemas.validate(card, index).map_err(|e| format!("{e:#}"))
}

fn sample() -> Value {
    let bytes = std::fs::read(repo_root().join("testvectors/cards/sample-8.5.json")).unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

#[test]
fn schema_prints_a_schema_that_validates_the_sample_in_both_drafts() {
    for (args, meta, defs) in [
        (&[][..], "https://json-schema.org/draft/2020-12/schema", "$defs"),
        (
            &["--draft", "2020-12"][..],
            "https://json-schema.org/draft/2020-12/schema",
            "$defs",
        ),
        (
            &["--draft", "07"][..],
            "http://json-schema.org/draft-07/schema#",
            "definitions",
        ),
    ] {
        let mut argv = vec!["schema"];
        argv.extend_from_slice(args);
        let out = run(&argv, None);
        expect_code(&out, 0, "schema");
        assert!(stderr(&out).is_empty(), "{}", stderr(&out));
        let text = stdout(&out);
        assert!(
            text.ends_with("}\n") && text.contains("\n  \""),
            "pretty JSON with a final newline"
        );
        let schema: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(schema["$schema"], meta, "{args:?}");
        assert_eq!(schema["title"], "A2A v1.0 Agent Card");
        assert!(schema["$id"]
            .as_str()
            .unwrap()
            .starts_with("urn:a2a-card:schema:agent-card:v1.0"));
        assert!(
            schema[defs]["AgentSkill"].is_object(),
            "{args:?}: definitions under {defs}"
        );

        let card = sample();
        validate(&schema, &card).unwrap_or_else(|e| panic!("{args:?}: the sample is rejected: {e}"));
        // A REQUIRED member removed, and a REQUIRED list emptied, are refused.
        let mut broken = card.clone();
        broken.as_object_mut().unwrap().remove("version");
        assert!(
            validate(&schema, &broken).is_err(),
            "{args:?}: missing version accepted"
        );
        let mut broken = card.clone();
        broken["skills"][0]["tags"] = Value::Array(Vec::new());
        assert!(
            validate(&schema, &broken).is_err(),
            "{args:?}: empty tags accepted"
        );
    }
}

#[test]
fn schema_writes_to_a_file_with_o() {
    let dir = scratch("schema-out");
    let path = dir.join("agent-card.schema.json");
    std::fs::write(&path, "old content").unwrap();
    let out = run(&["schema", "--draft", "07", "-o", s(&path)], None);
    expect_code(&out, 0, "schema -o");
    assert!(out.stdout.is_empty());
    let written: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let printed: Value = serde_json::from_str(&stdout(&run(&["schema", "--draft", "07"], None))).unwrap();
    assert_eq!(written, printed);
    validate(&written, &sample()).unwrap();
}

#[test]
fn schema_refuses_an_unknown_draft_and_an_unwritable_file() {
    let out = run(&["schema", "--draft", "2019-09"], None);
    expect_code(&out, 2, "unknown draft");
    assert!(out.stdout.is_empty());
    assert!(stderr(&out).contains("2019-09"), "{}", stderr(&out));

    let dir = scratch("schema-bad-out");
    let path = dir.join("no-such-dir").join("schema.json");
    let out = run(&["schema", "-o", s(&path)], None);
    expect_code(&out, 2, "unwritable output");
    let err = stderr(&out);
    assert!(
        err.starts_with("error[io]: ") && err.contains("no-such-dir"),
        "{err}"
    );
}
