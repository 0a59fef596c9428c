//! Asynchronous verification over WebCrypto (`crypto.subtle.verify`), wherever
//! `globalThis.crypto.subtle` exists and the host's native crypto does not (browsers, workers;
//! where node:crypto is there, `verifyAsync` uses it as `verify` does: see `policy.rs`).
//!
//! The verification is the core's [`DeferredVerification`]: the core reads the card, decides
//! the headers, the policy and the keys, and names the signature checks to make; this module
//! hands each check to `crypto.subtle.verify` (the checks of one round together), and gives the
//! answers back; the core makes the report. A check WebCrypto cannot make (no WebCrypto, an
//! algorithm or key it refuses, an exception) is answered "declined", and the core makes it with
//! its own code. Keys are imported into WebCrypto once per algorithm and kept (see
//! [`KeyCache`]). The SHA-256 of the report's canonical bytes is asked of WebCrypto too, beside
//! the first checks (the module's own SHA-256 is several times slower, on the main thread).

use crate::errors::OrThrow;
use crate::host::{bare_jwk, host_alg, KeyCache};
use crate::output::{report_to_js, Digest};
use a2a_card::jose::crypto::{BackendVerdict, SignatureCheck};
use a2a_card::jose::keys::PublicKey;
use a2a_card::signature::{CheckId, DeferredVerification};
use a2a_card::{Profile, TrustStore, VerifyOptions};
use js_sys::{Array, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(module = "/js/webcrypto.js")]
extern "C" {
    // Every import is `catch` (see js.rs): an exception comes back as an `Err`.
    #[wasm_bindgen(catch, js_name = web_available)]
    fn js_web_available() -> Result<bool, JsValue>;
    #[wasm_bindgen(catch, js_name = web_key_handle)]
    fn js_web_key_handle(jwk: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = web_verify)]
    fn js_web_verify(handle: &JsValue, alg: u32, msg: &[u8], sig: &[u8]) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_name = web_digest)]
    fn js_web_digest(bytes: &[u8]) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch)]
    fn web_round(promises: &Array, next: &JsValue) -> Result<Promise, JsValue>;
}

/// True where WebCrypto's `crypto.subtle.verify` exists.
#[wasm_bindgen(skip_typescript, js_name = webCryptoAvailable)]
pub fn web_crypto_available() -> bool {
    js_web_available().unwrap_or(false)
}

/// A promise of -1: the check is not made by WebCrypto.
fn declined() -> Promise {
    Promise::resolve(&JsValue::from(-1))
}

/// WebCrypto's handle of a public JWK; `null` (every check declined) when it cannot be made.
fn web_key_handle(jwk: &str) -> JsValue {
    js_web_key_handle(jwk).unwrap_or(JsValue::NULL)
}

/// A promise of 1, 0 or -1 (see `web_verify` in `js/webcrypto.js`); it never rejects.
fn web_verify(handle: &JsValue, alg: u32, msg: &[u8], sig: &[u8]) -> Promise {
    if handle.is_null() {
        return declined();
    }
    js_web_verify(handle, alg, msg, sig).unwrap_or_else(|_| declined())
}

/// A promise of the SHA-256 in hex, or of null; it never rejects.
fn web_digest(bytes: &[u8]) -> Promise {
    js_web_digest(bytes).unwrap_or_else(|_| Promise::resolve(&JsValue::NULL))
}

thread_local! {
    static WEB_KEYS: KeyCache = const { KeyCache::new() };
}

/// WebCrypto's handle of a key, made on first use and cached.
fn web_key(key: &PublicKey) -> JsValue {
    WEB_KEYS.with(|cache| cache.handle(key, |k| web_key_handle(&bare_jwk(k))))
}

/// The answer of `web_verify`.
fn verdict(code: &JsValue) -> BackendVerdict {
    let code = code.as_f64();
    if code == Some(1.0) {
        BackendVerdict::Valid
    } else if code == Some(0.0) {
        BackendVerdict::Invalid
    } else {
        BackendVerdict::Declined
    }
}

/// A verification under way: the core's deferred verification, and the SHA-256 of the
/// canonical bytes the report most likely carries (asked of WebCrypto with the first checks;
/// its profile, and its hex once answered).
struct Run {
    v: DeferredVerification,
    digest: Option<(Profile, Option<String>)>,
}

/// Verifies `card` (its bytes) against `trust` under `opts`, the signature checks made by
/// WebCrypto when `web` is true (else every check is the module's own): a promise of the report
/// object. Every error rejects the promise.
///
/// The card is read, planned and its first checks handed to WebCrypto in this call; each round
/// of answers is taken by one callback on `Promise.all` of the round's checks (the digest among
/// them), which gives the next round or the report. No future, task queue or second promise per
/// check: in a browser the checks and everything around them run on the page's thread, so each
/// hop is time added to the floor.
pub(crate) fn verify(card: Vec<u8>, trust: &TrustStore, opts: &VerifyOptions, web: bool) -> Promise {
    let run = DeferredVerification::new(card, trust, opts)
        .or_throw()
        .map(|v| Run { v, digest: None });
    let result = run.and_then(|run| if web { advance(run) } else { finish(run) });
    match result {
        Ok(value) => Promise::resolve(&value),
        Err(e) => Promise::reject(&e),
    }
}

/// Hands the checks pending now to WebCrypto: a promise of what the next round gives (see
/// [`verify`]), or the report when no check is pending.
fn advance(mut run: Run) -> Result<JsValue, JsValue> {
    loop {
        let mut asked: Vec<CheckId> = Vec::new();
        let mut declined: Vec<CheckId> = Vec::new();
        let promises = Array::new();
        let count = run
            .v
            .pending(|id, check: &SignatureCheck<'_>| match host_alg(check.alg) {
                Some(code) => {
                    let handle = web_key(check.key);
                    promises.push(&web_verify(&handle, code, check.message, check.signature));
                    asked.push(id);
                }
                None => declined.push(id),
            })
            .or_throw()?;
        if count == 0 {
            return finish(run);
        }
        for id in declined {
            run.v.answer(id, Ok(BackendVerdict::Declined)).or_throw()?;
        }
        if asked.is_empty() {
            continue;
        }
        // The SHA-256 of the canonical bytes the report most likely carries, asked of WebCrypto
        // with the first checks (the module's own SHA-256 takes several times longer): its
        // answer comes last in the round's answers.
        let with_digest = run.digest.is_none();
        if with_digest {
            let profile = run.v.fallback_profile();
            promises.push(&web_digest(&run.v.canonical(profile).or_throw()?.bytes));
            run.digest = Some((profile, None));
        }
        let next = Closure::<dyn FnMut(JsValue) -> Result<JsValue, JsValue>>::once_into_js(
            move |codes: JsValue| -> Result<JsValue, JsValue> {
                let codes: Array = codes.unchecked_into();
                for (i, id) in asked.iter().enumerate() {
                    run.v.answer(*id, Ok(verdict(&codes.get(i as u32)))).or_throw()?;
                }
                if let (true, Some((_, sha))) = (with_digest, run.digest.as_mut()) {
                    *sha = codes.get(asked.len() as u32).as_string();
                }
                advance(run)
            },
        );
        return web_round(&promises, &next)
            .map(JsValue::from)
            .map_err(|e| crate::errors::usage(crate::js::message(&e)));
    }
}

/// The report of a verification whose checks are all answered (the module makes any left).
fn finish(run: Run) -> Result<JsValue, JsValue> {
    let report = run.v.finish().or_throw()?;
    let digest = match run.digest {
        Some((profile, Some(sha))) if profile == report.profile => Digest::Known(sha),
        _ => Digest::Module,
    };
    report_to_js(&report, &digest)
}
