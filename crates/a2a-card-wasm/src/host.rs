//! The host's native crypto (Node's `node:crypto`) behind the core's signature-backend hook. Its
//! JavaScript, and the report objects', is `js/host.js`.

use a2a_card::jose::crypto::{BackendVerdict, SignatureBackend, SignatureCheck};
use a2a_card::jose::keys::PublicKey;
use a2a_card::Algorithm;
use a2a_card::Error;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/js/host.js")]
extern "C" {
    // Every import is `catch` (see js.rs): an exception comes back as an `Err`.
    #[wasm_bindgen(catch, js_name = host_available)]
    fn js_host_available() -> Result<bool, JsValue>;
    #[wasm_bindgen(catch, js_name = host_import_key)]
    fn js_host_import_key(jwk: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = host_verify)]
    fn js_host_verify(handle: &JsValue, alg: u32, msg: &[u8], sig: &[u8]) -> Result<i32, JsValue>;
    #[wasm_bindgen(catch)]
    pub(crate) fn make_report(json: &str, canonical: &[u8], hash: bool) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch)]
    pub(crate) fn make_report_flat(flat: &str, canonical: &[u8], hash: bool) -> Result<JsValue, JsValue>;
}

/// True when node:crypto is there (false if asking threw).
pub(crate) fn host_available() -> bool {
    js_host_available().unwrap_or(false)
}

/// The host's handle of a public JWK (text), `null` when it does not import it.
fn host_import_key(jwk: &str) -> JsValue {
    js_host_import_key(jwk).unwrap_or(JsValue::NULL)
}

/// 1 valid, 0 invalid, -1 not checked by the host.
fn host_verify(handle: &JsValue, alg: u32, msg: &[u8], sig: &[u8]) -> i32 {
    js_host_verify(handle, alg, msg, sig).unwrap_or(-1)
}

/// True when the host verifies signatures natively and synchronously (Node.js >= 20.16).
#[wasm_bindgen(skip_typescript, js_name = hostCryptoAvailable)]
pub fn host_crypto_available() -> bool {
    host_available()
}

/// Keys imported into a host API, most recently used last: the key, and the host's handle of it
/// (for node:crypto its `KeyObject` with its `crypto.verify` arguments, for WebCrypto its
/// `CryptoKey`s per algorithm; `null` when the host refused the key, so that the refusal is not
/// retried on every call).
pub(crate) struct KeyCache(RefCell<Vec<(PublicKey, JsValue)>>);

/// Keys each cache holds at most.
pub(crate) const KEY_CACHE: usize = 64;

impl KeyCache {
    pub(crate) const fn new() -> KeyCache {
        KeyCache(RefCell::new(Vec::new()))
    }

    /// The handle of `key`, made by `import` on first use and cached.
    pub(crate) fn handle(&self, key: &PublicKey, import: impl FnOnce(&PublicKey) -> JsValue) -> JsValue {
        let mut cache = self.0.borrow_mut();
        if let Some(i) = cache.iter().position(|(k, _)| k.material() == key.material()) {
            let last = cache.len() - 1;
            if i != last {
                let entry = cache.remove(i);
                cache.push(entry);
            }
            return cache[last].1.clone();
        }
        let handle = import(key);
        if cache.len() >= KEY_CACHE {
            cache.remove(0);
        }
        cache.push((key.clone(), handle.clone()));
        handle
    }
}

thread_local! {
    static HOST_KEYS: KeyCache = const { KeyCache::new() };
}

/// The public JWK of a key with its key members only (no `kid`, no `alg`), as text: what a host
/// API imports, whatever algorithm the key is then used with.
pub(crate) fn bare_jwk(key: &PublicKey) -> String {
    let mut jwk = key.to_jwk();
    if let Some(m) = jwk.as_object_mut() {
        m.remove("kid");
        m.remove("alg");
    }
    jwk.to_string()
}

/// The host's handle of a key, imported on first use and cached.
pub(crate) fn host_key(key: &PublicKey) -> JsValue {
    HOST_KEYS.with(|cache| cache.handle(key, |k| host_import_key(&bare_jwk(k))))
}

/// The number `host_verify` (and `web_verify`, in `webcrypto.rs`) knows an algorithm by (a number
/// crosses the boundary without being decoded as text); `None` for algorithms the host backends
/// do not check.
pub(crate) fn host_alg(alg: Algorithm) -> Option<u32> {
    Some(match alg {
        Algorithm::EdDSA => 1,
        Algorithm::ES256 => 2,
        Algorithm::ES384 => 3,
        Algorithm::RS256 => 4,
        Algorithm::RS384 => 5,
        Algorithm::RS512 => 6,
        Algorithm::PS256 => 7,
        Algorithm::PS384 => 8,
        Algorithm::PS512 => 9,
        _ => return None,
    })
}

/// The core's [`SignatureBackend`] over the host's native crypto. It declines (and `ring`
/// checks) whatever the host does not do: no host crypto, a key the host does not import, an
/// algorithm it does not map, an exception.
pub(crate) struct HostCrypto;

impl SignatureBackend for HostCrypto {
    fn verify(&self, check: &SignatureCheck<'_>) -> Result<BackendVerdict, Error> {
        let Some(code) = host_alg(check.alg) else {
            return Ok(BackendVerdict::Declined);
        };
        let handle = host_key(check.key);
        if handle.is_null() {
            return Ok(BackendVerdict::Declined);
        }
        Ok(match host_verify(&handle, code, check.message, check.signature) {
            1 => BackendVerdict::Valid,
            0 => BackendVerdict::Invalid,
            _ => BackendVerdict::Declined,
        })
    }
}
