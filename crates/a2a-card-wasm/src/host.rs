//! The host's native crypto (Node's `node:crypto`) behind the core's signature-backend hook.

use a2a_card::jose::crypto::{BackendVerdict, SignatureBackend, SignatureCheck};
use a2a_card::jose::keys::PublicKey;
use a2a_card::Algorithm;
use a2a_card::Error;
use js_sys::JsString;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(inline_js = r#"
let hostCrypto;
// node:crypto when the host offers it synchronously (Node.js >= 20.16), else null.
function nodeCrypto() {
  if (hostCrypto === undefined) {
    hostCrypto = null;
    try {
      const p = globalThis.process;
      const c = p && typeof p.getBuiltinModule === "function" ? p.getBuiltinModule("node:crypto") : null;
      if (c && typeof c.verify === "function" && typeof c.createPublicKey === "function" && typeof c.createHash === "function") {
        hostCrypto = c;
      }
    } catch (_) {
      hostCrypto = null;
    }
  }
  return hostCrypto;
}
export function host_available() {
  return nodeCrypto() !== null;
}
// The host's handle of a public JWK (text): its KeyObject and, per algorithm code, the key
// argument of crypto.verify (made on first use); null when the host does not import the key.
export function host_import_key(jwk) {
  const c = nodeCrypto();
  if (c === null) return null;
  try {
    return { key: c.createPublicKey({ key: JSON.parse(jwk), format: "jwk" }), args: [] };
  } catch (_) {
    return null;
  }
}
// Algorithm codes (host_alg below): 1 EdDSA, 2 ES256, 3 ES384, 4 RS256, 5 RS384, 6 RS512,
// 7 PS256, 8 PS384, 9 PS512. The digest of each, and crypto.verify's key argument for it (null:
// not handled here).
const DIGEST = [null, null, "sha256", "sha384", "sha256", "sha384", "sha512", "sha256", "sha384", "sha512"];
function keyArgument(c, key, alg) {
  if (alg === 1) return key.asymmetricKeyType === "ed25519" ? key : null;
  if (alg === 2 || alg === 3) return { key, dsaEncoding: "ieee-p1363" };
  if (alg >= 4 && alg <= 6) return { key, padding: c.constants.RSA_PKCS1_PADDING };
  if (alg >= 7 && alg <= 9) return { key, padding: c.constants.RSA_PKCS1_PSS_PADDING, saltLength: [32, 48, 64][alg - 7] };
  return null;
}
// 1: the signature verifies, 0: it does not, -1: not handled here (the caller checks it itself).
export function host_verify(handle, alg, msg, sig) {
  const c = nodeCrypto();
  if (c === null || handle === null) return -1;
  try {
    let arg = handle.args[alg];
    if (arg === undefined) {
      arg = keyArgument(c, handle.key, alg);
      handle.args[alg] = arg;
    }
    if (arg === null) return -1;
    return c.verify(DIGEST[alg], msg, arg, sig) === true ? 1 : 0;
  } catch (_) {
    return -1;
  }
}
const encoder = new TextEncoder();
function isWellFormed(s) {
  return typeof s.isWellFormed === "function" ? s.isWellFormed() : !/[\uD800-\uDFFF]/.test(s) || wellFormed(s);
}
// The UTF-8 bytes of a well-formed string; null for a string with a lone surrogate.
export function utf8(s) {
  return isWellFormed(s) ? encoder.encode(s) : null;
}
// The UTF-8 bytes of `s` written into `out` (a view of the module's memory): their length, or -1
// when they do not all fit. A lone surrogate is written as its three-byte (WTF-8) sequence.
export function utf8_into(s, out) {
  if (isWellFormed(s)) {
    const r = encoder.encodeInto(s, out);
    return r.read === s.length ? r.written : -1;
  }
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.codePointAt(i);
    if (c > 0xffff) i++;
    const need = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    if (n + need > out.length) return -1;
    if (need === 1) {
      out[n++] = c;
    } else if (need === 2) {
      out[n++] = 0xc0 | (c >> 6);
      out[n++] = 0x80 | (c & 0x3f);
    } else if (need === 3) {
      out[n++] = 0xe0 | (c >> 12);
      out[n++] = 0x80 | ((c >> 6) & 0x3f);
      out[n++] = 0x80 | (c & 0x3f);
    } else {
      out[n++] = 0xf0 | (c >> 18);
      out[n++] = 0x80 | ((c >> 12) & 0x3f);
      out[n++] = 0x80 | ((c >> 6) & 0x3f);
      out[n++] = 0x80 | (c & 0x3f);
    }
  }
  return n;
}
function wellFormed(s) {
  for (let i = 0; i < s.length; i++) {
    const u = s.charCodeAt(i);
    if (u >= 0xd800 && u <= 0xdbff) {
      const v = s.charCodeAt(i + 1);
      if (!(v >= 0xdc00 && v <= 0xdfff)) return false;
      i++;
    } else if (u >= 0xdc00 && u <= 0xdfff) {
      return false;
    }
  }
  return true;
}
// The report object from `flat` (report_fields in output.rs): its fields in order, each followed by
// a NUL; an optional one is "" for null, else "=" and its text. `canonical` and `hash` as in
// make_report. Object literals in the members' order: the same object JSON.parse would give.
export function make_report_flat(flat, canonical, hash) {
  const f = flat.split("\0");
  const opt = (s) => (s === "" ? null : s.slice(1));
  let i = 0;
  const ok = f[i++] === "1";
  const mode = f[i++];
  const reason = f[i++];
  const profile = f[i++];
  const sha = f[i++];
  const unsignedCount = +f[i++];
  const unsigned = f.slice(i, i + unsignedCount);
  i += unsignedCount;
  const count = +f[i++];
  const signatures = [];
  for (let n = 0; n < count; n++) {
    const index = +f[i++];
    const kid = opt(f[i++]);
    const alg = opt(f[i++]);
    const jku = opt(f[i++]);
    const key = f[i++] === "" ? null : { kid: f[i++], thumbprint: f[i++], source: f[i++] };
    const used = opt(f[i++]);
    const code = f[i++];
    const message = f[i++];
    const pointer = opt(f[i++]);
    const verdict = pointer === null ? { code, message } : { code, message, pointer };
    signatures.push({ index, kid, alg, jku, key, profile: used, verdict });
  }
  return { ok, mode, reason, profile, canonical_sha256: hash ? sha256Hex(canonical) : sha, canonical: canonicalText(canonical), unsigned, signatures };
}
// The report object: `json` holds every member in order, with `canonical` (and, when `hash` is
// true, `canonical_sha256`) written as null; setting an existing property keeps its place.
// `canonical` is a view of the module's memory holding the canonical bytes (UTF-8): decoded by
// Node's Buffer where there is one (several times faster than TextDecoder on a few KiB), hashed
// as bytes.
const decoder = new TextDecoder();
const NodeBuffer = typeof globalThis.Buffer === "function" && typeof globalThis.Buffer.from === "function" ? globalThis.Buffer : null;
function canonicalText(canonical) {
  return NodeBuffer !== null ? NodeBuffer.from(canonical.buffer, canonical.byteOffset, canonical.byteLength).toString("utf8") : decoder.decode(canonical);
}
function sha256Hex(bytes) {
  const c = nodeCrypto();
  // crypto.hash (Node.js >= 20.12) skips the Hash object.
  return typeof c.hash === "function" ? c.hash("sha256", bytes, "hex") : c.createHash("sha256").update(bytes).digest("hex");
}
export function make_report(json, canonical, hash) {
  const r = JSON.parse(json);
  r.canonical = canonicalText(canonical);
  if (hash) r.canonical_sha256 = sha256Hex(canonical);
  return r;
}
"#)]
extern "C" {
    // Every import is `catch` (see js.rs): an exception comes back as an `Err`.
    #[wasm_bindgen(catch, js_name = host_available)]
    fn js_host_available() -> Result<bool, JsValue>;
    #[wasm_bindgen(catch, js_name = host_import_key)]
    fn js_host_import_key(jwk: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = host_verify)]
    fn js_host_verify(handle: &JsValue, alg: u32, msg: &[u8], sig: &[u8]) -> Result<i32, JsValue>;
    #[wasm_bindgen(catch)]
    pub(crate) fn utf8(s: &JsString) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch)]
    pub(crate) fn utf8_into(s: &JsString, out: &mut [u8]) -> Result<i32, JsValue>;
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
