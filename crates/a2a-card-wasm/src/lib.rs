//! # a2a-card-wasm
//!
//! The `a2a-card` library for JavaScript: a wasm-bindgen facade that turns JavaScript values
//! into the core's inputs and its results back into JavaScript values. It holds no rules of its
//! own: canonicalization, signing, verification and inspection are the core's, byte for byte.
//!
//! `scripts/build-wasm.sh` builds it for `wasm32-unknown-unknown` and writes the npm package
//! (Node and browser builds) to `crates/a2a-card-wasm/pkg/`. The JavaScript API is in this
//! file; its JavaScript glue and TypeScript declarations are files in `crates/a2a-card-wasm/js/`
//! (`host.js`, `webcrypto.js`, `read.js`, `types.d.ts`, type-checked by `test/types.test.mjs`);
//! the Node tests are in `crates/a2a-card-wasm/test/`.
//!
//! Modules: `input` (JavaScript values and options in), `output` (results and the report
//! object out), `policy` (trust roots and verify options read once, and their caches), `host`
//! (the host's native crypto and the key cache; its JavaScript is `js/host.js`), `webcrypto`
//! (`verifyAsync` over WebCrypto; `js/webcrypto.js`), `tools` (lint, migrate, schema,
//! generateKey), `errors` (JavaScript `Error` objects), `js` (every read of a caller's
//! JavaScript value, each one catching what JavaScript throws; `js/read.js`), `typescript`
//! (the declarations, `js/types.d.ts`).
//!
//! The core is built without its `native-algs` feature here (josekit does not build for
//! wasm32), so ES512, ES256K and Ed448 keys are not available in the package.
//!
//! Verification hands the final signature check to the host's native crypto when the host
//! offers it synchronously (Node.js >= 20.16: `process.getBuiltinModule("node:crypto")`), through
//! the core's [`SignatureBackend`](a2a_card::jose::crypto::SignatureBackend) hook: every other check stays the core's, and whatever the
//! host cannot do (no such module, a key it does not import, an exception) is checked by `ring`
//! inside the module instead. `verifyAsync` makes the checks as `verify` does where that host
//! crypto is there, and hands them to WebCrypto (`crypto.subtle.verify`, asynchronous) wherever
//! else it exists, through the core's
//! [`DeferredVerification`](a2a_card::signature::DeferredVerification): the core plans, WebCrypto
//! checks, the core concludes. The option `hostCrypto: false` turns both off.
//!
//! On native targets this crate compiles (so the workspace builds and lints it) but its
//! functions need a JavaScript host and are only meant to be called from wasm32.
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

use crate::errors::{usage, OrThrow};
use crate::input::{card_bytes, json_text, read_request, Options};
use crate::output::{text_of, to_js};
use crate::policy::{cached_policy, Policy};
use a2a_card::jose::keys::PrivateKey;
use a2a_card::request::{CanonicalizeRequest, Kind, OptionValue, SignRequest};
use a2a_card::Algorithm;
use a2a_card::{canonicalize as core_canonicalize, inspect_card, sign_card};
use js_sys::{Array, Promise};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

mod errors;
mod host;
mod input;
mod js;
mod output;
mod policy;
mod tools;
mod typescript;
mod webcrypto;

/// The canonical bytes of a card, as text.
#[wasm_bindgen(skip_typescript)]
pub fn canonicalize(card: JsValue, options: JsValue) -> Result<String, JsValue> {
    let opts = read_request::<CanonicalizeRequest>(&options, "canonicalize")?;
    let bytes = card_bytes(&card, &opts.limits)?;
    let c = core_canonicalize(&bytes, &opts).or_throw()?;
    Ok(text_of(c.bytes))
}

/// The canonical bytes with the profile, unsigned members, SHA-256 and length.
#[wasm_bindgen(skip_typescript, js_name = canonicalizeWithReport)]
pub fn canonicalize_with_report(card: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let opts = read_request::<CanonicalizeRequest>(&options, "canonicalizeWithReport")?;
    let bytes = card_bytes(&card, &opts.limits)?;
    let c = core_canonicalize(&bytes, &opts).or_throw()?;
    to_js(&c.report(true))
}

/// Signs a card with a private key (PEM text, JWK text or a JWK object).
#[wasm_bindgen(skip_typescript)]
pub fn sign(card: JsValue, key: JsValue, options: JsValue) -> Result<String, JsValue> {
    let opts = read_request::<SignRequest>(&options, "sign")?;
    if key.is_undefined() || key.is_null() {
        return Err(usage(
            "no key given: pass a private JWK (object or text) or a PEM string",
        ));
    }
    let key = PrivateKey::parse(&json_text(&key, "the key")?).or_throw()?;
    let bytes = card_bytes(&card, &opts.canonicalize.limits)?;
    let signed = sign_card(&bytes, &key, &opts).or_throw()?;
    Ok(text_of(signed.card))
}

/// Looks inside a card without trusting anything.
#[wasm_bindgen(skip_typescript)]
pub fn inspect(card: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let opts = read_request::<CanonicalizeRequest>(&options, "inspect")?;
    let bytes = card_bytes(&card, &opts.limits)?;
    let inspection = inspect_card(&bytes, &opts).or_throw()?;
    to_js(&serde_json::to_value(&inspection).map_err(|e| usage(format!("cannot serialize: {e}")))?)
}

/// The algorithms this build signs and verifies with.
#[wasm_bindgen(skip_typescript)]
pub fn algorithms() -> Array {
    Algorithm::asymmetric_names()
        .into_iter()
        .map(JsValue::from_str)
        .collect()
}

/// Verifies a card against the keys the caller trusts.
#[wasm_bindgen(skip_typescript)]
pub fn verify(card: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    cached_policy(&options, "verify")?.verify(&card, None, None)
}

/// `verify`, with the signatures checked by WebCrypto: a promise of the same report.
#[wasm_bindgen(skip_typescript, js_name = verifyAsync)]
pub fn verify_async(card: JsValue, options: JsValue) -> Promise {
    match cached_policy(&options, "verifyAsync") {
        Ok(policy) => policy.verify_async(&card, None, None),
        Err(e) => Promise::reject(&e),
    }
}

/// The `now` and `origin` of one call of a `Verifier` (`what` names it).
fn call_options(options: &JsValue, what: &'static str) -> Result<(Option<i64>, Option<String>), JsValue> {
    let o = Options::read(options, what, "now,origin")?;
    let now = o.value("now", Kind::Time)?.and_then(OptionValue::time);
    Ok((now, o.value("origin", Kind::Text)?.and_then(OptionValue::text)))
}

/// A verifier whose trust roots and policy are read once.
#[wasm_bindgen(skip_typescript)]
pub struct Verifier {
    policy: Rc<Policy>,
}

#[wasm_bindgen]
impl Verifier {
    /// Reads the trust roots and policy (the options of `verify`).
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<Verifier, JsValue> {
        Ok(Verifier {
            policy: Rc::new(Policy::read(&options, "Verifier")?),
        })
    }

    /// Verifies a card; `now` and `origin` override the constructor's for this call.
    #[wasm_bindgen(skip_typescript)]
    pub fn verify(&self, card: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
        let (now, origin) = call_options(&options, "Verifier.verify")?;
        self.policy.verify(&card, now, origin)
    }

    /// `verify`, with the signatures checked by WebCrypto: a promise of the same report.
    #[wasm_bindgen(skip_typescript, js_name = verifyAsync)]
    pub fn verify_async(&self, card: JsValue, options: JsValue) -> Promise {
        match call_options(&options, "Verifier.verifyAsync") {
            Ok((now, origin)) => self.policy.verify_async(&card, now, origin),
            Err(e) => Promise::reject(&e),
        }
    }

    /// True when `verify` checks signatures with the host's native crypto.
    #[wasm_bindgen(getter, js_name = hostCrypto)]
    pub fn host_crypto(&self) -> bool {
        self.policy.host
    }

    /// True when `verifyAsync` checks signatures with WebCrypto.
    #[wasm_bindgen(getter, js_name = webCrypto)]
    pub fn web_crypto(&self) -> bool {
        self.policy.web
    }
}
