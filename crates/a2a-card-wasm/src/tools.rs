//! The card tools of the package besides canonicalize, sign and verify: lint, the 0.3 to 1.0
//! migration, the JSON Schema, and key generation. Each is the core's function; the results are
//! the core's serialized forms (the CLI's `--format json`).

use crate::errors::{usage, OrThrow};
use crate::input::read_request;
use crate::input::{card_bytes, Options};
use crate::output::to_js;
use a2a_card::jose::keys::check_kid;
use a2a_card::lint::lint_card;
use a2a_card::migrate::migrate_card;
use a2a_card::model::SchemaDraft;
use a2a_card::request::{Kind, LintRequest, MigrateRequest, OptionValue};
use a2a_card::PrivateKey;
use wasm_bindgen::prelude::*;

fn serialized(value: impl serde::Serialize) -> Result<JsValue, JsValue> {
    to_js(&serde_json::to_value(value).map_err(|e| usage(format!("cannot serialize: {e}")))?)
}

/// Lints a card against A2A v1.0: `{ findings: [{ rule, severity, pointer, message }] }`.
#[wasm_bindgen(skip_typescript)]
pub fn lint(card: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let opts = read_request::<LintRequest>(&options, "lint")?;
    let report = lint_card(&card_bytes(&card, &opts.limits)?, &opts).or_throw()?;
    serialized(&report)
}

/// Rewrites an A2A 0.3 card as a 1.0 card: `{ card, notes, alreadyV1, lost }`, `card` the text
/// the CLI writes.
#[wasm_bindgen(skip_typescript)]
pub fn migrate(card: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let opts = read_request::<MigrateRequest>(&options, "migrate")?;
    let m = migrate_card(&card_bytes(&card, &opts.limits)?, &opts).or_throw()?;
    to_js(&m.report())
}

/// The JSON Schema of an A2A v1.0 Agent Card (`{ draft: "2020-12" | "07" }`, default 2020-12):
/// the core's `json_schema`, written at build time (`build.rs`).
#[wasm_bindgen(skip_typescript)]
pub fn schema(options: JsValue) -> Result<JsValue, JsValue> {
    let o = Options::read(&options, "schema", "draft")?;
    let draft = match o.value("draft", Kind::Text)?.and_then(OptionValue::text) {
        None => SchemaDraft::default(),
        Some(name) => name.parse::<SchemaDraft>().or_throw()?,
    };
    let text = match draft {
        SchemaDraft::Draft2020_12 => include_str!(concat!(env!("OUT_DIR"), "/schema-2020-12.json")),
        SchemaDraft::Draft07 => include_str!(concat!(env!("OUT_DIR"), "/schema-07.json")),
    };
    js_sys::JSON::parse(text).map_err(|e| usage(crate::js::message(&e)))
}

/// A fresh key pair for `alg` (EdDSA, ES256 or ES384 in this build): `{ alg, kid, privateJwk,
/// publicJwk, jwks, pem }`, made from the host's random numbers inside the module.
#[wasm_bindgen(skip_typescript, js_name = generateKey)]
pub fn generate_key(alg: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let o = Options::read(&options, "generateKey", "kid")?;
    let Some(name) = alg.as_string() else {
        return Err(usage("generateKey needs an algorithm name such as \"ES256\""));
    };
    let alg = a2a_card::Algorithm::from_name(&name).or_throw()?;
    let mut key = PrivateKey::generate(alg).or_throw()?;
    if let Some(kid) = o.value("kid", Kind::Text)?.and_then(OptionValue::text) {
        check_kid(&kid).map_err(|e| usage(format!("option \"kid\" of generateKey: {}", e.message())))?;
        key = key.with_kid(kid);
    }
    let public = key.public().to_jwk();
    let value = serde_json::json!({
        "alg": alg.as_str(),
        "kid": key.kid(),
        "privateJwk": key.to_jwk_private(),
        "publicJwk": public,
        "jwks": { "keys": [public] },
        "pem": key.to_pkcs8_pem(),
    });
    to_js(&value)
}
