//! The JSON Schema generated from the typed model, checked with an independent validator
//! (boon), in both drafts: it accepts the section 8.5 sample card and the valid cards among the
//! canonicalization vectors, rejects every card of `testvectors/lint/schema-invalid/`, and
//! agrees with the model's own check (`AgentCard::from_json` + `Message::check`) on every card
//! it is shown.

#![allow(clippy::unwrap_used, clippy::panic)] // a test reports by panicking

use a2a_card::canonical::table::ALL_MESSAGES;
use a2a_card::model::{json_schema, schema_id, AgentCard, Message, SchemaDraft};
use a2a_card_testkit::data::{json_files, testvectors_dir};
use a2a_card_testkit::vectors::{canonical_vectors_or_panic, Expected};
use serde_json::Value;

const DRAFTS: [SchemaDraft; 2] = [SchemaDraft::Draft2020_12, SchemaDraft::Draft07];

/// The schema compiled by boon (which also checks it against its draft's meta-schema).
struct Compiled {
    schemas: boon::Schemas,
    index: boon::SchemaIndex,
}

impl Compiled {
    fn new(draft: SchemaDraft) -> Compiled {
        let schema = json_schema(draft);
        let meta = match draft {
            SchemaDraft::Draft2020_12 => "https://json-schema.org/draft/2020-12/schema",
            SchemaDraft::Draft07 => "http://json-schema.org/draft-07/schema#",
        };
        assert_eq!(schema["$schema"], meta);
        assert_eq!(schema["$id"], schema_id(draft).as_str());
        let mut schemas = boon::Schemas::new();
        let mut compiler = boon::Compiler::new();
        let loc = format!("file:///a2a-card/agent-card-{}.json", draft.as_str());
        compiler.add_resource(&loc, schema).unwrap();
        let index = compiler
            .compile(&loc, &mut schemas)
            .unwrap_or_else(|e| panic!("draft {}: the schema does not compile: {e:#}", draft.as_str()));
        Compiled { schemas, index }
    }

    fn validate(&self, instance: &Value) -> Result<(), String> {
        self.schemas
            .validate(instance, self.index)
            .map_err(|e| format!("{e:#}"))
    }
}

/// What the model says of a card: read it, then check REQUIRED members.
fn model_accepts(bytes: &[u8]) -> Result<(), String> {
    let card = AgentCard::from_json(bytes).map_err(|e| e.to_string())?;
    card.check().map_err(|e| e.to_string())
}

/// True when an object key anywhere is a proto name that differs from its JSON name: the model
/// reads those (ProtoJSON readers must), the schema describes the JSON names only.
fn uses_proto_names(v: &Value) -> bool {
    match v {
        Value::Object(m) => m.iter().any(|(k, child)| {
            ALL_MESSAGES
                .iter()
                .any(|d| d.fields.iter().any(|f| f.proto == k && f.json != k))
                || uses_proto_names(child)
        }),
        Value::Array(a) => a.iter().any(uses_proto_names),
        _ => false,
    }
}

/// The inputs of the canonicalization vectors whose profile is `spec` and that succeed.
fn spec_success_inputs() -> Vec<(String, Vec<u8>)> {
    canonical_vectors_or_panic()
        .into_iter()
        .filter(|v| v.profile == "spec" && matches!(v.expected, Expected::Bytes { .. }))
        .map(|v| (v.id, v.input))
        .collect()
}

/// A card with every REQUIRED member and a little of everything else; the files of
/// `testvectors/lint/schema-invalid/` are this card with one thing broken.
const VALID_CARD: &str = r#"{
  "name": "Recipe Agent",
  "description": "Finds and adapts recipes",
  "supportedInterfaces": [{"url": "https://recipes.example/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
  "provider": {"url": "https://recipes.example", "organization": "Recipes Inc."},
  "version": "1.0.0",
  "capabilities": {"streaming": true, "extensions": [{"uri": "https://ext.example/trace", "params": {"level": 2}}]},
  "securitySchemes": {
    "key": {"apiKeySecurityScheme": {"location": "header", "name": "X-API-Key"}},
    "oauth": {"oauth2SecurityScheme": {"flows": {"clientCredentials": {"tokenUrl": "https://id.example/token", "scopes": {"read": "Read recipes"}}}}}
  },
  "securityRequirements": [{"schemes": {"key": {"list": []}}}],
  "defaultInputModes": ["text/plain"],
  "defaultOutputModes": ["text/plain"],
  "skills": [{"id": "find", "name": "Find a recipe", "description": "Searches recipes by ingredient", "tags": ["cooking"]}]
}"#;

#[test]
fn the_sample_cards_are_valid_in_both_drafts() {
    for draft in DRAFTS {
        let compiled = Compiled::new(draft);
        for name in ["sample-8.5.json", "sample-8.5-unsigned.json"] {
            let bytes = std::fs::read(testvectors_dir().join("cards").join(name)).unwrap();
            let card: Value = serde_json::from_slice(&bytes).unwrap();
            compiled
                .validate(&card)
                .unwrap_or_else(|e| panic!("draft {}: {name} is rejected: {e}", draft.as_str()));
        }
        let card: Value = serde_json::from_str(VALID_CARD).unwrap();
        compiled.validate(&card).unwrap();
        model_accepts(VALID_CARD.as_bytes()).unwrap();
    }
}

#[test]
fn the_schema_and_the_model_agree_on_every_spec_vector() {
    // A vector input is a valid card when the model reads it and its check passes; the schema
    // must accept exactly those. Inputs spelled with proto names are left out (the schema
    // describes JSON names), and so are inputs that are not JSON objects a serde reader takes.
    let inputs = spec_success_inputs();
    for draft in DRAFTS {
        let compiled = Compiled::new(draft);
        let (mut valid, mut invalid, mut skipped) = (0, 0, Vec::new());
        let mut disagreements = Vec::new();
        for (id, bytes) in &inputs {
            let Ok(value) = serde_json::from_slice::<Value>(bytes) else {
                skipped.push(format!("{id} (not read by serde_json)"));
                continue;
            };
            if uses_proto_names(&value) {
                skipped.push(format!("{id} (proto names)"));
                continue;
            }
            let model = model_accepts(bytes);
            let schema = compiled.validate(&value);
            match (&model, &schema) {
                (Ok(()), Ok(())) => valid += 1,
                (Err(_), Err(_)) => invalid += 1,
                _ => disagreements.push(format!("{id}: model {model:?}, schema {schema:?}")),
            }
        }
        println!(
            "draft {}: {} spec success vectors: {valid} valid cards accepted by schema and model, \
             {invalid} partial cards rejected by both, {} skipped: {}",
            draft.as_str(),
            inputs.len(),
            skipped.len(),
            skipped.join(", ")
        );
        assert!(
            disagreements.is_empty(),
            "schema and model disagree:\n{}",
            disagreements.join("\n")
        );
        assert!(valid >= 3, "only {valid} valid cards among the vectors");
        assert!(invalid >= 20, "only {invalid} partial cards among the vectors");
    }
}

#[test]
fn every_schema_invalid_card_is_rejected_by_schema_and_model() {
    let dir = testvectors_dir().join("lint/schema-invalid");
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    let files = json_files(&dir);
    assert!(files.len() >= 20, "only {} schema-invalid cards", files.len());
    let valid: Value = serde_json::from_str(VALID_CARD).unwrap();
    for draft in DRAFTS {
        let compiled = Compiled::new(draft);
        for path in &files {
            let name = path.file_name().unwrap().to_str().unwrap();
            assert!(
                readme.contains(&format!("`{name}`")),
                "{name} is not described in README.md"
            );
            let bytes = std::fs::read(path).unwrap();
            let card: Value = serde_json::from_slice(&bytes).unwrap();
            assert_ne!(card, valid, "{name} breaks nothing");
            if let Err(e) = compiled.validate(&card) {
                assert!(!e.is_empty());
            } else {
                panic!("draft {}: the schema accepts {name}", draft.as_str());
            }
            assert!(model_accepts(&bytes).is_err(), "the model accepts {name}");
        }
        println!(
            "draft {}: {} schema-invalid cards rejected",
            draft.as_str(),
            files.len()
        );
    }
}

#[test]
fn cards_the_builder_accepts_are_schema_valid() {
    // Built with build() (which checks): the schema must accept what the builder lets through.
    let card = AgentCard::from_json(VALID_CARD.as_bytes()).unwrap();
    card.check().unwrap();
    for draft in DRAFTS {
        let compiled = Compiled::new(draft);
        let written: Value = serde_json::from_slice(&card.to_json().unwrap()).unwrap();
        compiled.validate(&written).unwrap();
        // And one member fewer is caught by both.
        let mut partial = card.clone();
        partial.capabilities = None;
        let written: Value = serde_json::from_slice(&partial.to_json().unwrap()).unwrap();
        assert!(compiled.validate(&written).is_err());
        assert_eq!(partial.check().unwrap_err().pointer(), Some("/capabilities"));
    }
}
