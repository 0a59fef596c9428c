//! # a2a-card-wasm
//!
//! The `a2a-card` library for JavaScript: a wasm-bindgen facade that turns JavaScript values
//! into the core's inputs and its results back into JavaScript values. It holds no rules of its
//! own: canonicalization, signing, verification and inspection are the core's, byte for byte.
//!
//! `scripts/build-wasm.sh` builds it for `wasm32-unknown-unknown` and writes the npm package
//! (Node and browser builds) to `crates/a2a-card-wasm/pkg/`. The JavaScript API and its
//! TypeScript declarations are the `TYPESCRIPT` section of this file; the Node tests are in
//! `crates/a2a-card-wasm/test/`.
//!
//! The core is built without its `native-algs` feature here (josekit does not build for
//! wasm32), so ES512, ES256K and Ed448 keys are not available in the package.
//!
//! Verification hands the final signature check to the host's native crypto when the host
//! offers it synchronously (Node.js >= 20.16: `process.getBuiltinModule("node:crypto")`), through
//! the core's [`SignatureBackend`] hook: every other check stays the core's, and whatever the
//! host cannot do (no such module, a key it does not import, an exception) is checked by `ring`
//! inside the module instead. Browsers have only the asynchronous WebCrypto, so there `ring`
//! does every check. The option `hostCrypto: false` turns the host backend off.
//!
//! On native targets this crate compiles (so the workspace builds and lints it) but its
//! functions need a JavaScript host and are only meant to be called from wasm32.
#![forbid(unsafe_code)]

use a2a_card::jose::crypto::{BackendVerdict, SignatureBackend};
use a2a_card::jose::keys::{parse_jwks, PrivateKey, PublicKey};
use a2a_card::signature::{
    verify_card_with, DEFAULT_MAX_KEYS_PER_KID, DEFAULT_MAX_SIGNATURES, DEFAULT_MAX_SIGNATURE_CHECKS,
};
use a2a_card::Algorithm;
use a2a_card::{
    canonicalize as core_canonicalize, inspect_card, sign_card, CanonicalizeOptions, Error, ErrorCode,
    Limits, Mode, Profile, Report, SignOptions, TrustStore, UnknownMembers, VerifyOptions,
};
use js_sys::{Array, ArrayBuffer, JsString, Object, Reflect, Uint8Array, JSON};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The TypeScript declarations of the package, written by hand because every argument crosses
/// the boundary as a plain JavaScript value (`JsValue`) that this crate checks itself.
#[wasm_bindgen(typescript_custom_section)]
pub const TYPESCRIPT: &'static str = r#"
/**
 * A card: JSON text, its exact UTF-8 bytes (Uint8Array or ArrayBuffer), or a parsed value
 * (serialized with JSON.stringify first; a JavaScript object cannot hold a duplicate member
 * name, so pass text or bytes when the exact input matters).
 */
export type Card = string | Uint8Array | ArrayBuffer | object;

/** Which rules turn a card into the bytes a signature covers. */
export type Profile = "spec" | "prune-empty" | "served-as-is";

/** What to do with members the A2A v1.0 schema does not define. */
export type UnknownMembers = "exclude" | "retain" | "reject";

/**
 * JWS algorithm names. ES512, ES256K and Ed448 keys exist in the native library only; the
 * wasm build refuses them (see `algorithms()`).
 */
export type Algorithm =
  | "EdDSA" | "ES256" | "ES384" | "ES512" | "ES256K"
  | "RS256" | "RS384" | "RS512" | "PS256" | "PS384" | "PS512";

/** The pass rule of `verify`. */
export type Mode = "require" | "all" | "if-present";

/** A key: a JWK object, or text (PEM, or JWK JSON). */
export type Key = string | Record<string, unknown>;

/** Reader limits (defaults: 8 MiB, 128 levels). */
export interface ReadOptions {
  maxInputBytes?: number;
  maxDepth?: number;
}

export interface CanonicalizeOptions extends ReadOptions {
  /** Default "spec". */
  profile?: Profile;
  /** Default "exclude": left out of the bytes and listed as unsigned. */
  unknown?: UnknownMembers;
}

/** The canonical form with what it leaves out (the CLI's `canonicalize --report`). */
export interface CanonicalReport {
  /** The canonical bytes, as text. */
  canonical: string;
  profile: Profile;
  /** JSON Pointers of members present in the card but not covered. */
  unsigned: string[];
  /** SHA-256 of the canonical bytes, lower-case hex. */
  sha256: string;
  /** Length of the canonical bytes in UTF-8. */
  bytes: number;
}

export interface SignOptions extends CanonicalizeOptions {
  /** Default: the key's own (Ed25519 -> EdDSA, P-256 -> ES256, P-384 -> ES384, RSA -> RS256). */
  alg?: Algorithm;
  /** Default: the key's kid (its JWK "kid", else its RFC 7638 thumbprint). */
  kid?: string;
  /** A jku to name in the protected header (information for verifiers, never a trust root). */
  jku?: string;
  /** Unprotected header parameters (the entry's "header" member). */
  header?: Record<string, unknown>;
  /** Further protected header parameters (not alg, kid, typ, jku, crit, b64). */
  protectedHeader?: Record<string, unknown>;
  /** Replace existing signatures with the same kid instead of adding one more. */
  replace?: boolean;
  /**
   * One more signature, same key and header, for each of these profiles: a transition aid, so
   * that SDK verifiers of today (prune-empty) and spec-exact verifiers both find one they check.
   */
  alsoProfiles?: Profile[];
}

export interface VerifyOptions extends ReadOptions {
  /** A trusted JWK Set ({"keys": [...]}), as an object or JSON text. */
  jwks?: string | object;
  /** Trusted public keys (a private key yields its public half). */
  keys?: Key | Key[];
  /** A trust store: a JWKS whose entries may carry algorithms, origins, notBefore, notAfter, revoked. */
  trust?: string | object;
  /** Allowed algorithms; default every asymmetric algorithm of this build. */
  algorithms?: Algorithm[];
  /** Default "require". */
  mode?: Mode;
  /** The profile to accept; "auto" accepts every profile (spec, served-as-is, prune-empty). */
  profile?: Profile | "auto";
  /** Profiles to accept, tried in this order (give profile or profiles, not both). */
  profiles?: (Profile | "auto")[];
  unknown?: UnknownMembers;
  /** Seconds since the Unix epoch for key validity windows; default Date.now() / 1000. */
  now?: number;
  /** The origin the card was fetched from (https://host[:port]), for origin-bound trust entries. */
  origin?: string;
  /** Refuse cards with more signatures than this (default 16). */
  maxSignatures?: number;
  /** Refuse a signature whose kid selects more trusted keys than this, trying none (default 4). */
  maxKeysPerKid?: number;
  /** The most signature checks (one key over one profile's bytes) for a card (default 64). */
  maxSignatureChecks?: number;
  /**
   * Check signatures with the host's native crypto when it is available synchronously
   * (Node.js >= 20.16, node:crypto) instead of the module's own `ring` code; default true.
   * Every other check is the library's either way, and so is the result; `false` makes the
   * module do everything itself.
   */
  hostCrypto?: boolean;
}

export interface Verdict {
  /** "valid", or the stable error code of the first reason the signature failed. */
  code: string;
  message: string;
}

export interface KeyUsed {
  kid: string;
  thumbprint: string;
  source: string;
}

export interface SignatureReport {
  index: number;
  kid: string | null;
  alg: string | null;
  jku: string | null;
  key: KeyUsed | null;
  profile: Profile | null;
  verdict: Verdict;
}

/** The Rust library's verification report, plus the canonical bytes as `canonical`. */
export interface Report {
  ok: boolean;
  mode: Mode;
  reason: string;
  profile: Profile;
  canonical_sha256: string;
  /** The canonical bytes the verdict is about: act on these, not on the served card. */
  canonical: string;
  unsigned: string[];
  signatures: SignatureReport[];
}

export interface EntryInfo {
  index: number;
  protected: string | null;
  alg: string | null;
  kid: string | null;
  typ: string | null;
  jku: string | null;
  signature_bytes: number | null;
  problem: string | null;
}

export interface Inspection {
  profile: Profile;
  canonical_sha256: string;
  canonical_bytes: number;
  unsigned: string[];
  signatures: EntryInfo[];
}

/** Every error thrown by this package is an Error with these properties. */
export interface A2ACardError extends Error {
  name: "A2ACardError";
  /** A stable kebab-case code: "duplicate-member", "invalid-key", "usage", ... */
  code: string;
  /** The JSON Pointer of the offending member ("" is the whole document), when there is one. */
  pointer: string | null;
  /** The byte offset in the input, when known. */
  offset: number | null;
}

/** The canonical bytes of a card (A2A v1.0 section 8.4.1), as text. */
export function canonicalize(card: Card, options?: CanonicalizeOptions): string;

/** The canonical bytes with the profile, the unsigned members, SHA-256 and length. */
export function canonicalizeWithReport(card: Card, options?: CanonicalizeOptions): CanonicalReport;

/** Signs a card and returns it as JSON text, every byte but the new signature as it was. */
export function sign(card: Card, key: Key, options?: SignOptions): string;

/** Verifies a card against the keys the caller trusts (at least one of jwks, keys, trust). */
export function verify(card: Card, options: VerifyOptions): Report;

/** Decoded signature headers, canonical SHA-256 and unsigned members; trusts and verifies nothing. */
export function inspect(card: Card, options?: CanonicalizeOptions): Inspection;

/** The algorithms this build signs and verifies with. */
export function algorithms(): Algorithm[];

/**
 * True when this host offers native signature verification synchronously (Node.js >= 20.16),
 * which `verify` and `Verifier` then use unless `hostCrypto: false` is given.
 */
export function hostCryptoAvailable(): boolean;

/** A verifier whose trust roots and policy are read once, for verifying many cards. */
export class Verifier {
  constructor(options: VerifyOptions);
  /** Verifies a card; `now` and `origin` override the constructor's for this call. */
  verify(card: Card, options?: { now?: number; origin?: string }): Report;
  /** True when signatures are checked with the host's native crypto (see `hostCrypto`). */
  readonly hostCrypto: boolean;
  /** Releases the wasm memory now instead of when the object is garbage-collected. */
  free(): void;
}
"#;

// -------------------------------------------------------------------------------------------
// Errors
// -------------------------------------------------------------------------------------------

/// The JavaScript `Error` for a library error: `name` "A2ACardError", the message with its
/// place, and `code`, `pointer` and `offset` properties.
fn js_error(e: &Error) -> JsValue {
    let err = js_sys::Error::new(&e.to_string());
    err.set_name("A2ACardError");
    let pointer = e.pointer().map_or(JsValue::NULL, JsValue::from_str);
    let offset = e.offset().map_or(JsValue::NULL, |o| JsValue::from_f64(o as f64));
    // Reflect.set on a fresh Error object cannot fail; a failure would only lose a property.
    let _ = Reflect::set(
        &err,
        &JsValue::from_str("code"),
        &JsValue::from_str(e.code().as_str()),
    );
    let _ = Reflect::set(&err, &JsValue::from_str("pointer"), &pointer);
    let _ = Reflect::set(&err, &JsValue::from_str("offset"), &offset);
    err.into()
}

/// A `usage` error: the caller passed arguments or options this package cannot use.
fn usage(message: impl Into<String>) -> JsValue {
    js_error(&Error::new(ErrorCode::Usage, message))
}

trait OrThrow<T> {
    fn or_throw(self) -> Result<T, JsValue>;
}

impl<T> OrThrow<T> for Result<T, Error> {
    fn or_throw(self) -> Result<T, JsValue> {
        self.map_err(|e| js_error(&e))
    }
}

/// The message of a JavaScript exception, for wrapping it in a usage error.
fn js_message(v: &JsValue) -> String {
    v.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| v.as_string())
        .unwrap_or_else(|| "unknown JavaScript exception".to_string())
}

// -------------------------------------------------------------------------------------------
// The host's native crypto
// -------------------------------------------------------------------------------------------

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
// Algorithm codes (host_alg in lib.rs): 1 EdDSA, 2 ES256, 3 ES384, 4 RS256, 5 RS384, 6 RS512,
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
// The UTF-8 bytes of a well-formed string written into `out` (a view of the module's memory,
// at least 3 bytes per UTF-16 unit of `s`): their length, or -1 for a string with a lone
// surrogate.
export function utf8_into(s, out) {
  return isWellFormed(s) ? encoder.encodeInto(s, out).written : -1;
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
// The report object from `flat` (report_fields in lib.rs): its fields in order, each followed by
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
    fn host_available() -> bool;
    fn host_import_key(jwk: &str) -> JsValue;
    fn host_verify(handle: &JsValue, alg: u32, msg: &[u8], sig: &[u8]) -> i32;
    fn utf8(s: &JsString) -> JsValue;
    fn utf8_into(s: &JsString, out: &mut [u8]) -> i32;
    fn make_report(json: &str, canonical: &[u8], hash: bool) -> JsValue;
    fn make_report_flat(flat: &str, canonical: &[u8], hash: bool) -> JsValue;
}

/// True when the host verifies signatures natively and synchronously (Node.js >= 20.16).
#[wasm_bindgen(skip_typescript, js_name = hostCryptoAvailable)]
pub fn host_crypto_available() -> bool {
    host_available()
}

/// Keys imported into the host, most recently used last: the key, and its handle (the
/// `KeyObject` with its `crypto.verify` arguments, or `null` when the host refused the key, so
/// that the refusal is not retried on every call).
const HOST_KEY_CACHE: usize = 64;

thread_local! {
    static HOST_KEYS: RefCell<Vec<(PublicKey, JsValue)>> = const { RefCell::new(Vec::new()) };
}

/// The host's handle of a key, imported on first use and cached.
fn host_key(key: &PublicKey) -> JsValue {
    HOST_KEYS.with(|cache| {
        let mut cache = cache.borrow_mut();
        if let Some(i) = cache.iter().position(|(k, _)| k.material() == key.material()) {
            let last = cache.len() - 1;
            if i != last {
                let entry = cache.remove(i);
                cache.push(entry);
            }
            return cache[last].1.clone();
        }
        let handle = host_import_key(&key.to_jwk().to_string());
        if cache.len() >= HOST_KEY_CACHE {
            cache.remove(0);
        }
        cache.push((key.clone(), handle.clone()));
        handle
    })
}

/// The number `host_verify` knows an algorithm by (a number crosses the boundary without being
/// decoded as text); `None` for algorithms the host backend does not check.
fn host_alg(alg: Algorithm) -> Option<u32> {
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
struct HostCrypto;

impl SignatureBackend for HostCrypto {
    fn verify(
        &self,
        alg: Algorithm,
        key: &PublicKey,
        msg: &[u8],
        sig: &[u8],
    ) -> Result<BackendVerdict, Error> {
        let Some(code) = host_alg(alg) else {
            return Ok(BackendVerdict::Declined);
        };
        let handle = host_key(key);
        if handle.is_null() {
            return Ok(BackendVerdict::Declined);
        }
        Ok(match host_verify(&handle, code, msg, sig) {
            1 => BackendVerdict::Valid,
            0 => BackendVerdict::Invalid,
            _ => BackendVerdict::Declined,
        })
    }
}

// -------------------------------------------------------------------------------------------
// Inputs
// -------------------------------------------------------------------------------------------

#[wasm_bindgen]
extern "C" {
    /// A JavaScript string, seen through the one method below.
    type WellFormed;
    /// `String.prototype.isWellFormed` (ES2024); missing on older engines, hence `catch`.
    #[wasm_bindgen(method, catch, js_name = isWellFormed)]
    fn is_well_formed(this: &WellFormed) -> Result<bool, JsValue>;
}

/// Strings up to this many UTF-16 units are encoded straight into the module's memory.
const DIRECT_UTF8_UNITS: usize = 1 << 20;

/// The UTF-8 bytes of a JavaScript string. A string with a lone surrogate has no UTF-8 form;
/// its surrogates are written as their three-byte (WTF-8) sequences, which the core's strict
/// reader refuses as `invalid-json` at the member that holds them, instead of being replaced
/// by U+FFFD on the way in.
fn string_bytes(s: &JsString) -> Vec<u8> {
    // A card-sized string is written by TextEncoder.encodeInto straight into a buffer of this
    // module (3 bytes per UTF-16 unit always suffice); a larger one is encoded first and then
    // copied in, so that the buffer is not three times its size. Both are much faster than a
    // string argument, which wasm-bindgen copies one character at a time.
    let units = s.length() as usize;
    if units <= DIRECT_UTF8_UNITS {
        let mut buf = vec![0u8; units * 3];
        if let Ok(written) = usize::try_from(utf8_into(s, &mut buf)) {
            buf.truncate(written);
            return buf;
        }
    } else if let Some(bytes) = utf8(s).dyn_ref::<Uint8Array>() {
        return bytes.to_vec();
    }
    let well_formed = match s.unchecked_ref::<WellFormed>().is_well_formed() {
        Ok(b) => b,
        Err(_) => s.is_valid_utf16(),
    };
    if well_formed {
        return String::from(s).into_bytes();
    }
    let units: Vec<u16> = s.iter().collect();
    let mut out = Vec::with_capacity(units.len() * 3);
    for unit in char::decode_utf16(units.iter().copied()) {
        match unit {
            Ok(c) => {
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
            Err(e) => {
                let u = u32::from(e.unpaired_surrogate());
                out.push(0xE0 | (u >> 12) as u8);
                out.push(0x80 | ((u >> 6) & 0x3F) as u8);
                out.push(0x80 | (u & 0x3F) as u8);
            }
        }
    }
    out
}

/// JSON text of a value that is not a string: `JSON.stringify`, refusing what it cannot write.
fn stringify(value: &JsValue, what: &str) -> Result<JsString, JsValue> {
    let text = JSON::stringify(value).map_err(|e| {
        usage(format!(
            "{what} cannot be serialized with JSON.stringify: {}",
            js_message(&e)
        ))
    })?;
    // JSON.stringify answers `undefined` (typed here as a JsString) for undefined, functions
    // and symbols.
    if !JsValue::from(text.clone()).is_string() {
        return Err(usage(format!(
            "{what} is {}; give JSON text, UTF-8 bytes or a JSON-serializable value",
            type_name(value)
        )));
    }
    Ok(text)
}

/// `typeof`, as people read it.
fn type_name(v: &JsValue) -> String {
    if v.is_null() {
        "null".into()
    } else if Array::is_array(v) {
        "an array".into()
    } else {
        v.js_typeof().as_string().unwrap_or_else(|| "unknown".into())
    }
}

/// The bytes of a card: a string (its UTF-8), a Uint8Array or ArrayBuffer (as is), or any
/// other value (JSON.stringify).
fn card_bytes(card: &JsValue) -> Result<Vec<u8>, JsValue> {
    if let Some(s) = card.dyn_ref::<JsString>() {
        return Ok(string_bytes(s));
    }
    if let Some(bytes) = card.dyn_ref::<Uint8Array>() {
        return Ok(bytes.to_vec());
    }
    if let Some(buffer) = card.dyn_ref::<ArrayBuffer>() {
        return Ok(Uint8Array::new(buffer).to_vec());
    }
    if card.is_undefined() {
        return Err(usage("no card given"));
    }
    Ok(string_bytes(&stringify(card, "the card")?))
}

/// Text of a key, JWKS or trust store: a string as it is, an object through JSON.stringify.
fn json_text(value: &JsValue, what: &str) -> Result<String, JsValue> {
    if let Some(s) = value.as_string() {
        return Ok(s);
    }
    if !value.is_object() {
        return Err(usage(format!(
            "{what} must be text or an object, not {}",
            type_name(value)
        )));
    }
    Ok(String::from(stringify(value, what)?))
}

/// An options object, checked against the names it may hold so that a misspelt option is an
/// error, not a silent default.
struct Options {
    obj: Option<Object>,
    /// The members of a plain object (its prototype `Object.prototype` or `null`), read in one
    /// call instead of one `Reflect.get` per option name; `None` for other objects, whose
    /// options are read with `Reflect.get` (getters and inherited members included).
    members: Option<Vec<(String, JsValue)>>,
    what: &'static str,
}

impl Options {
    fn read(value: &JsValue, what: &'static str, known: &[&str]) -> Result<Options, JsValue> {
        if value.is_undefined() || value.is_null() {
            return Ok(Options {
                obj: None,
                members: None,
                what,
            });
        }
        if !value.is_object() || Array::is_array(value) {
            return Err(usage(format!(
                "the options of {what} must be an object, not {}",
                type_name(value)
            )));
        }
        let obj: Object = value.clone().unchecked_into();
        let proto = Object::get_prototype_of(&obj);
        let plain = proto.is_null() || Object::is(&proto, &Object::get_prototype_of(&Object::new()));
        let mut members = Vec::new();
        let check = |name: &str| {
            if known.contains(&name) {
                Ok(())
            } else {
                Err(usage(format!(
                    "unknown option {name:?} of {what} (known: {})",
                    known.join(", ")
                )))
            }
        };
        if plain {
            for entry in Object::entries(&obj).iter() {
                let entry: Array = entry.unchecked_into();
                let name = entry.get(0).as_string().unwrap_or_default();
                check(&name)?;
                members.push((name, entry.get(1)));
            }
        } else {
            for name in Object::keys(&obj).iter() {
                check(&name.as_string().unwrap_or_default())?;
            }
        }
        Ok(Options {
            obj: Some(obj),
            members: plain.then_some(members),
            what,
        })
    }

    /// The members of a plain options object whose values are all primitives (strings,
    /// numbers, booleans, `null`, `undefined`), which is what was read from it entirely; `None`
    /// for other objects and for members holding objects, arrays or functions.
    fn primitive_members(&self) -> Option<&[(String, JsValue)]> {
        let members = self.members.as_deref()?;
        members
            .iter()
            .all(|(_, v)| !v.is_object() && !v.is_function() && !v.is_symbol() && !v.is_bigint())
            .then_some(members)
    }

    /// The option's value; `undefined` counts as absent.
    fn get(&self, name: &str) -> Result<Option<JsValue>, JsValue> {
        if let Some(members) = &self.members {
            return Ok(members
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.clone())
                .filter(|v| !v.is_undefined()));
        }
        let Some(obj) = &self.obj else { return Ok(None) };
        let v = Reflect::get(obj, &JsValue::from_str(name)).map_err(|e| usage(js_message(&e)))?;
        Ok((!v.is_undefined()).then_some(v))
    }

    fn string(&self, name: &str) -> Result<Option<String>, JsValue> {
        match self.get(name)? {
            None => Ok(None),
            Some(v) => v.as_string().map(Some).ok_or_else(|| {
                usage(format!(
                    "option {name:?} of {} must be a string, not {}",
                    self.what,
                    type_name(&v)
                ))
            }),
        }
    }

    fn boolean(&self, name: &str) -> Result<Option<bool>, JsValue> {
        match self.get(name)? {
            None => Ok(None),
            Some(v) => v.as_bool().map(Some).ok_or_else(|| {
                usage(format!(
                    "option {name:?} of {} must be a boolean, not {}",
                    self.what,
                    type_name(&v)
                ))
            }),
        }
    }

    fn number(&self, name: &str) -> Result<Option<f64>, JsValue> {
        match self.get(name)? {
            None => Ok(None),
            Some(v) => match v.as_f64() {
                Some(n) if n.is_finite() => Ok(Some(n)),
                _ => Err(usage(format!(
                    "option {name:?} of {} must be a finite number",
                    self.what
                ))),
            },
        }
    }

    /// A non-negative integer count.
    fn count(&self, name: &str) -> Result<Option<usize>, JsValue> {
        match self.number(name)? {
            None => Ok(None),
            Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= 9_007_199_254_740_991.0 => Ok(Some(n as usize)),
            Some(_) => Err(usage(format!(
                "option {name:?} of {} must be a non-negative integer",
                self.what
            ))),
        }
    }

    /// An array of strings.
    fn strings(&self, name: &str) -> Result<Option<Vec<String>>, JsValue> {
        let Some(v) = self.get(name)? else { return Ok(None) };
        let err = || {
            usage(format!(
                "option {name:?} of {} must be an array of strings",
                self.what
            ))
        };
        if !Array::is_array(&v) {
            return Err(err());
        }
        let array: Array = v.unchecked_into();
        array
            .iter()
            .map(|item| item.as_string().ok_or_else(err))
            .collect::<Result<_, _>>()
            .map(Some)
    }

    /// A JSON object option (header parameters) as name/value pairs of the core's JSON model.
    fn members(&self, name: &str) -> Result<Vec<(String, serde_json::Value)>, JsValue> {
        let Some(v) = self.get(name)? else {
            return Ok(Vec::new());
        };
        if !v.is_object() || Array::is_array(&v) {
            return Err(usage(format!(
                "option {name:?} of {} must be an object",
                self.what
            )));
        }
        let text = String::from(stringify(&v, name)?);
        match a2a_card::canonical::parse_json(text.as_bytes(), &Limits::default()).or_throw()? {
            serde_json::Value::Object(members) => Ok(members.into_iter().collect()),
            _ => Err(usage(format!(
                "option {name:?} of {} must be an object",
                self.what
            ))),
        }
    }

    fn limits(&self) -> Result<Limits, JsValue> {
        let mut limits = Limits::default();
        if let Some(n) = self.count("maxInputBytes")? {
            limits.max_input_bytes = n;
        }
        if let Some(n) = self.count("maxDepth")? {
            limits.max_depth = n;
        }
        Ok(limits)
    }

    fn unknown(&self) -> Result<UnknownMembers, JsValue> {
        match self.string("unknown")? {
            None => Ok(UnknownMembers::default()),
            Some(name) => UnknownMembers::from_name(&name).ok_or_else(|| {
                usage(format!(
                    "unknown {name:?} is not one of \"exclude\", \"retain\", \"reject\""
                ))
            }),
        }
    }

    /// One profile (canonicalize, sign, inspect).
    fn profile(&self) -> Result<Profile, JsValue> {
        match self.string("profile")? {
            None => Ok(Profile::Spec),
            Some(name) => profile_named(&name),
        }
    }

    fn canonicalize_options(&self) -> Result<CanonicalizeOptions, JsValue> {
        Ok(CanonicalizeOptions {
            profile: self.profile()?,
            unknown: self.unknown()?,
            limits: self.limits()?,
        })
    }
}

fn profile_named(name: &str) -> Result<Profile, JsValue> {
    Profile::from_name(name).ok_or_else(|| {
        usage(format!(
            "profile {name:?} is not one of \"spec\", \"prune-empty\", \"served-as-is\""
        ))
    })
}

fn algorithm_named(name: &str) -> Result<Algorithm, JsValue> {
    Algorithm::from_name(name).or_throw()
}

const CANONICALIZE_OPTIONS: &[&str] = &["profile", "unknown", "maxInputBytes", "maxDepth"];

const SIGN_OPTIONS: &[&str] = &[
    "profile",
    "unknown",
    "maxInputBytes",
    "maxDepth",
    "alg",
    "kid",
    "jku",
    "header",
    "protectedHeader",
    "replace",
    "alsoProfiles",
];

const VERIFY_OPTIONS: &[&str] = &[
    "jwks",
    "keys",
    "trust",
    "algorithms",
    "mode",
    "profile",
    "profiles",
    "unknown",
    "now",
    "origin",
    "maxSignatures",
    "maxKeysPerKid",
    "maxSignatureChecks",
    "maxInputBytes",
    "maxDepth",
    "hostCrypto",
];

// -------------------------------------------------------------------------------------------
// Outputs
// -------------------------------------------------------------------------------------------

/// Text of canonical bytes (always UTF-8: they are written from a strictly read document).
fn text_of(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// A serde value handed to JavaScript through JSON text and `JSON.parse`.
fn to_js(value: &serde_json::Value) -> Result<JsValue, JsValue> {
    JSON::parse(&value.to_string()).map_err(|e| usage(js_message(&e)))
}

/// The small members of a report as NUL-terminated fields for `make_report_flat` (read with one
/// `split`, several times faster than `JSON.parse` of the same members), in the order and with
/// the members of the serde form (`Report`, `SignatureReport`, `KeyUsed`, `Verdict`; a test
/// below holds the two together). `None` when a text holds a NUL itself: the JSON form then.
fn report_fields(report: &Report, host_hash: bool) -> Option<String> {
    /// The fields written so far, and whether every text was free of NUL (a NUL in a text would
    /// split it in two).
    struct Fields(String, bool);
    impl Fields {
        fn text(&mut self, s: &str) {
            self.1 &= !s.contains('\0');
            self.0.push_str(s);
            self.0.push('\0');
        }
        fn opt(&mut self, s: Option<&str>) {
            if let Some(s) = s {
                self.0.push('=');
                self.text(s);
            } else {
                self.0.push('\0');
            }
        }
        fn number(&mut self, n: usize) {
            self.text(&n.to_string());
        }
    }
    let mut f = Fields(String::with_capacity(512), true);
    f.text(if report.ok { "1" } else { "0" });
    f.text(report.mode.as_str());
    f.text(&report.reason);
    f.text(report.profile.as_str());
    f.text(&if host_hash {
        String::new()
    } else {
        report.canonical_sha256()
    });
    f.number(report.unsigned.len());
    for u in &report.unsigned {
        f.text(u);
    }
    f.number(report.signatures.len());
    for sig in &report.signatures {
        f.number(sig.index);
        f.opt(sig.kid.as_deref());
        f.opt(sig.alg.as_deref());
        f.opt(sig.jku.as_deref());
        match &sig.key {
            None => f.text(""),
            Some(key) => {
                f.text("1");
                f.text(&key.kid);
                f.text(&key.thumbprint);
                f.text(&key.source.label());
            }
        }
        f.opt(sig.profile.map(|p| p.as_str()));
        f.text(sig.verdict.code.as_str());
        f.text(&sig.verdict.message);
        f.opt(sig.verdict.pointer.as_deref());
    }
    f.1.then_some(f.0)
}

/// The report as the Rust library serializes it (the members of `Report`'s `Serialize`, in its
/// order), with the canonical bytes as the string member `canonical` right after
/// `canonical_sha256` (as the CLI's `verify --format json` prints it). The small members travel
/// as JSON text with `canonical` as a `null` placeholder; the canonical bytes travel as one view
/// of the module's memory, decoded once on the JavaScript side (not escaped into that text and
/// read back, and not copied member by member into another object). `host_hash` leaves
/// `canonical_sha256` to the host's SHA-256 over that same view.
fn report_to_js(report: &Report, host_hash: bool) -> Result<JsValue, JsValue> {
    if let Some(flat) = report_fields(report, host_hash) {
        return Ok(make_report_flat(&flat, &report.canonical, host_hash));
    }
    // The core's JSON form, with `canonical` (and, for the host's hash, `canonical_sha256`) as
    // null placeholders filled in on the JavaScript side.
    let mut members = report.to_json();
    members["canonical"] = serde_json::Value::Null;
    if host_hash {
        members["canonical_sha256"] = serde_json::Value::Null;
    }
    let json = members.to_string();
    Ok(make_report(&json, &report.canonical, host_hash))
}

// -------------------------------------------------------------------------------------------
// The API
// -------------------------------------------------------------------------------------------

/// The canonical bytes of a card, as text.
#[wasm_bindgen(skip_typescript)]
pub fn canonicalize(card: JsValue, options: JsValue) -> Result<String, JsValue> {
    let opts = Options::read(&options, "canonicalize", CANONICALIZE_OPTIONS)?.canonicalize_options()?;
    let bytes = card_bytes(&card)?;
    let c = core_canonicalize(&bytes, &opts).or_throw()?;
    Ok(text_of(c.bytes))
}

/// The canonical bytes with the profile, unsigned members, SHA-256 and length.
#[wasm_bindgen(skip_typescript, js_name = canonicalizeWithReport)]
pub fn canonicalize_with_report(card: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let opts =
        Options::read(&options, "canonicalizeWithReport", CANONICALIZE_OPTIONS)?.canonicalize_options()?;
    let bytes = card_bytes(&card)?;
    let c = core_canonicalize(&bytes, &opts).or_throw()?;
    let report = serde_json::json!({
        "canonical": text_of(c.bytes.clone()),
        "profile": c.profile.as_str(),
        "unsigned": c.unsigned,
        "sha256": a2a_card::sha256_hex(&c.bytes),
        "bytes": c.bytes.len(),
    });
    to_js(&report)
}

/// Signs a card with a private key (PEM text, JWK text or a JWK object).
#[wasm_bindgen(skip_typescript)]
pub fn sign(card: JsValue, key: JsValue, options: JsValue) -> Result<String, JsValue> {
    let o = Options::read(&options, "sign", SIGN_OPTIONS)?;
    if key.is_undefined() || key.is_null() {
        return Err(usage(
            "no key given: pass a private JWK (object or text) or a PEM string",
        ));
    }
    let key = PrivateKey::parse(&json_text(&key, "the key")?).or_throw()?;
    // `..default()` keeps this building when the core adds a sign option.
    #[allow(clippy::needless_update)]
    let opts = SignOptions {
        alg: o.string("alg")?.map(|a| algorithm_named(&a)).transpose()?,
        kid: o.string("kid")?,
        jku: o.string("jku")?,
        extra_protected: o.members("protectedHeader")?,
        unprotected: o.members("header")?,
        canonicalize: o.canonicalize_options()?,
        replace_same_kid: o.boolean("replace")?.unwrap_or(false),
        also_profiles: o
            .strings("alsoProfiles")?
            .unwrap_or_default()
            .iter()
            .map(|p| profile_named(p))
            .collect::<Result<_, _>>()?,
        ..SignOptions::default()
    };
    let bytes = card_bytes(&card)?;
    let signed = sign_card(&bytes, &key, &opts).or_throw()?;
    Ok(text_of(signed.card))
}

/// Looks inside a card without trusting anything.
#[wasm_bindgen(skip_typescript)]
pub fn inspect(card: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let opts = Options::read(&options, "inspect", CANONICALIZE_OPTIONS)?.canonicalize_options()?;
    let bytes = card_bytes(&card)?;
    let inspection = inspect_card(&bytes, &opts).or_throw()?;
    to_js(&serde_json::to_value(&inspection).map_err(|e| usage(format!("cannot serialize: {e}")))?)
}

/// The algorithms this build signs and verifies with.
#[wasm_bindgen(skip_typescript)]
pub fn algorithms() -> Array {
    Algorithm::ALL
        .iter()
        .filter(|a| a.available() && !a.is_hmac())
        .map(|a| JsValue::from_str(a.as_str()))
        .collect()
}

/// Seconds since the Unix epoch from a JavaScript number of seconds.
fn seconds(n: f64) -> i64 {
    n.floor() as i64
}

/// The host's clock, in seconds since the Unix epoch (the core has no clock on wasm32).
fn host_now() -> i64 {
    seconds(js_sys::Date::now() / 1000.0)
}

/// Trust roots and policy read once from verify options.
struct Policy {
    trust: TrustStore,
    opts: VerifyOptions,
    /// A fixed `now` given by the caller; `None` reads the host clock at each verification.
    now: Option<i64>,
    /// Signatures are checked with the host's native crypto (asked for and available).
    host: bool,
}

impl Policy {
    fn read(options: &JsValue, what: &'static str) -> Result<Policy, JsValue> {
        Policy::from_options(&Options::read(options, what, VERIFY_OPTIONS)?)
    }

    fn from_options(o: &Options) -> Result<Policy, JsValue> {
        let trust = trust_store(o)?;
        let profiles = match (o.get("profile")?, o.get("profiles")?) {
            (Some(_), Some(_)) => return Err(usage("give \"profile\" or \"profiles\", not both")),
            (Some(_), None) => vec![o.string("profile")?.unwrap_or_default()],
            (None, Some(_)) => o.strings("profiles")?.unwrap_or_default(),
            (None, None) => vec!["spec".to_string()],
        };
        if profiles.is_empty() {
            return Err(usage("\"profiles\" is empty; name at least one profile"));
        }
        let names: Vec<&str> = profiles.iter().map(String::as_str).collect();
        let accepted: Vec<Profile> =
            a2a_card::canonical::accepted_profiles(&names).map_err(|e| js_error(&e))?;
        let mode = match o.string("mode")? {
            None => Mode::default(),
            Some(name) => Mode::from_name(&name).ok_or_else(|| {
                usage(format!(
                    "mode {name:?} is not one of \"require\", \"all\", \"if-present\""
                ))
            })?,
        };
        let algorithms = o
            .strings("algorithms")?
            .map(|names| {
                names
                    .iter()
                    .map(|n| algorithm_named(n))
                    .collect::<Result<Vec<_>, _>>()
            })
            .transpose()?;
        let opts = VerifyOptions {
            profiles: accepted,
            unknown: o.unknown()?,
            mode,
            algorithms,
            max_signatures: o.count("maxSignatures")?.unwrap_or(DEFAULT_MAX_SIGNATURES),
            max_keys_per_kid: o.count("maxKeysPerKid")?.unwrap_or(DEFAULT_MAX_KEYS_PER_KID),
            max_signature_checks: o
                .count("maxSignatureChecks")?
                .unwrap_or(DEFAULT_MAX_SIGNATURE_CHECKS),
            limits: o.limits()?,
            origin: o.string("origin")?,
            ..VerifyOptions::default()
        };
        Ok(Policy {
            trust,
            opts,
            now: o.number("now")?.map(seconds),
            host: o.boolean("hostCrypto")?.unwrap_or(true) && host_available(),
        })
    }

    fn verify(&self, card: &JsValue, now: Option<i64>, origin: Option<String>) -> Result<JsValue, JsValue> {
        let bytes = card_bytes(card)?;
        let mut opts = self.opts.clone();
        opts.now = Some(now.or(self.now).unwrap_or_else(host_now));
        if origin.is_some() {
            opts.origin = origin;
        }
        let backend: Option<&dyn SignatureBackend> = if self.host { Some(&HostCrypto) } else { None };
        let report = verify_card_with(&bytes, &self.trust, &opts, backend).or_throw()?;
        report_to_js(&report, self.host)
    }
}

/// The trust store of the `keys`, `jwks` and `trust` options, each key tagged with its option.
fn trust_store(o: &Options) -> Result<TrustStore, JsValue> {
    let mut store = TrustStore::new();
    let mut given = false;
    if let Some(keys) = o.get("keys")? {
        given = true;
        let list: Vec<JsValue> = if Array::is_array(&keys) {
            keys.unchecked_into::<Array>().iter().collect()
        } else {
            vec![keys]
        };
        for (i, key) in list.iter().enumerate() {
            let source = format!("keys[{i}]");
            let key = memo(&PARSED_KEYS, json_text(key, &source)?, PublicKey::parse)
                .map_err(|e| js_error(&in_option(e, &source)))?;
            store.pin(key, source);
        }
    }
    if let Some(jwks) = o.get("jwks")? {
        given = true;
        let keys = memo(&PARSED_JWKS, json_text(&jwks, "jwks")?, parse_jwks)
            .map_err(|e| js_error(&in_option(e, "jwks")))?;
        for key in keys {
            store.pin(key, "jwks");
        }
    }
    if let Some(trust) = o.get("trust")? {
        given = true;
        let file = memo(&PARSED_TRUST, json_text(&trust, "trust")?, |t| {
            TrustStore::from_json(t, "trust")
        })
        .or_throw()?;
        for key in file.keys() {
            store.add(key.clone());
        }
    }
    store
        .check_roots(given, false, "of the options \"jwks\", \"keys\" or \"trust\"", None)
        .or_throw()?;
    Ok(store)
}

/// Parsed keys, JWK Sets and trust stores by their text, most recently used last: `verify()`
/// called again and again with the same options reads them once (reading a key checks its
/// point on the curve, which costs more than the rest of a verification). Failures are not kept.
type Parsed<T> = RefCell<Vec<(String, T)>>;
const PARSED_CACHE: usize = 8;

thread_local! {
    static PARSED_KEYS: Parsed<PublicKey> = const { RefCell::new(Vec::new()) };
    static PARSED_JWKS: Parsed<Vec<PublicKey>> = const { RefCell::new(Vec::new()) };
    static PARSED_TRUST: Parsed<TrustStore> = const { RefCell::new(Vec::new()) };
}

/// `parse(text)`, from the cache when this text was parsed before.
fn memo<T: Clone>(
    cache: &'static std::thread::LocalKey<Parsed<T>>,
    text: String,
    parse: impl FnOnce(&str) -> Result<T, Error>,
) -> Result<T, Error> {
    let hit = cache.with(|c| {
        let mut c = c.borrow_mut();
        let i = c.iter().position(|(t, _)| *t == text)?;
        let entry = c.remove(i);
        let value = entry.1.clone();
        c.push(entry);
        Some(value)
    });
    if let Some(value) = hit {
        return Ok(value);
    }
    let value = parse(&text)?;
    cache.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= PARSED_CACHE {
            c.remove(0);
        }
        c.push((text, value.clone()));
    });
    Ok(value)
}

/// The same error, its message prefixed with the option it came from.
fn in_option(e: Error, option: &str) -> Error {
    let mut out = Error::new(e.code(), format!("{option}: {}", e.message()));
    if let Some(p) = e.pointer() {
        out = out.at(p);
    }
    if let Some(o) = e.offset() {
        out = out.at_offset(o);
    }
    out
}

/// Verifies a card against the keys the caller trusts.
#[wasm_bindgen(skip_typescript)]
pub fn verify(card: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let o = Options::read(&options, "verify", VERIFY_OPTIONS)?;
    cached_policy(&o)?.verify(&card, None, None)
}

/// Option names and values, in the order given.
type OptionValues = Vec<(String, JsValue)>;

thread_local! {
    /// The policy read by the last `verify()` call whose options were all primitive values,
    /// with those options: `verify(card, { jwks, profile })` called again and again with the
    /// same values reads its trust roots and policy once, as a `Verifier` does.
    static LAST_POLICY: RefCell<Option<(OptionValues, Rc<Policy>)>> = const { RefCell::new(None) };
}

/// The policy of verify options: the last one when every option has the same name and the same
/// primitive value (`===`) as then, else read now (and kept when all values are primitives; an
/// object or array value may have changed since, so it is read every time).
fn cached_policy(o: &Options) -> Result<Rc<Policy>, JsValue> {
    let Some(key) = o.primitive_members() else {
        return Ok(Rc::new(Policy::from_options(o)?));
    };
    let hit = LAST_POLICY.with(|last| match &*last.borrow() {
        Some((k, policy)) if same_members(k, key) => Some(Rc::clone(policy)),
        _ => None,
    });
    if let Some(policy) = hit {
        return Ok(policy);
    }
    let policy = Rc::new(Policy::from_options(o)?);
    LAST_POLICY.with(|last| *last.borrow_mut() = Some((key.to_vec(), Rc::clone(&policy))));
    Ok(policy)
}

/// The same option names in the same order, with values that are `===`.
fn same_members(a: &[(String, JsValue)], b: &[(String, JsValue)]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|((n, v), (m, w))| n == m && v == w)
}

/// A verifier whose trust roots and policy are read once.
#[wasm_bindgen(skip_typescript)]
pub struct Verifier {
    policy: Policy,
}

#[wasm_bindgen]
impl Verifier {
    /// Reads the trust roots and policy (the options of `verify`).
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<Verifier, JsValue> {
        Ok(Verifier {
            policy: Policy::read(&options, "Verifier")?,
        })
    }

    /// Verifies a card; `now` and `origin` override the constructor's for this call.
    #[wasm_bindgen(skip_typescript)]
    pub fn verify(&self, card: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
        let o = Options::read(&options, "Verifier.verify", &["now", "origin"])?;
        let now = o.number("now")?.map(seconds);
        let origin = o.string("origin")?;
        self.policy.verify(&card, now, origin)
    }

    /// True when signatures are checked with the host's native crypto.
    #[wasm_bindgen(getter, js_name = hostCrypto)]
    pub fn host_crypto(&self) -> bool {
        self.policy.host
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_card::signature::{KeyUsed, SignatureReport, Verdict, VerdictCode};

    fn names(v: &serde_json::Value) -> Vec<&str> {
        v.as_object()
            .map(|m| m.keys().map(String::as_str).collect())
            .unwrap_or_default()
    }

    /// `report_fields` writes what serde writes: if the core's report types gain, lose or
    /// reorder a member, this fails (or stops compiling) until `make_report_flat` follows.
    #[test]
    fn flat_report_fields_are_the_serde_members() {
        let sig = SignatureReport {
            index: 0,
            kid: Some("k".into()),
            alg: Some("ES256".into()),
            jku: Some("https://example.com/jwks".into()),
            key: Some(KeyUsed {
                kid: "k".into(),
                thumbprint: "t".into(),
                source: "jwks".into(),
            }),
            profile: Some(Profile::Spec),
            verdict: Verdict {
                code: VerdictCode::Refused(ErrorCode::SignatureInvalid),
                message: "m".into(),
                pointer: Some("/signatures/0/signature".into()),
            },
        };
        let bare = SignatureReport {
            index: 1,
            kid: None,
            alg: None,
            jku: None,
            key: None,
            profile: None,
            verdict: Verdict {
                code: VerdictCode::Refused(ErrorCode::MalformedHeader),
                message: "".into(),
                pointer: None,
            },
        };
        let mut report = Report {
            ok: false,
            mode: Mode::Require,
            reason: "r".into(),
            profile: Profile::Spec,
            canonical: b"{}".to_vec(),
            unsigned: vec!["/x".into()],
            signatures: vec![sig, bare],
        };
        let v = serde_json::to_value(&report).unwrap();
        assert_eq!(
            names(&v),
            [
                "ok",
                "mode",
                "reason",
                "profile",
                "canonical_sha256",
                "unsigned",
                "signatures"
            ]
        );
        let s = &v["signatures"][0];
        assert_eq!(
            names(s),
            ["index", "kid", "alg", "jku", "key", "profile", "verdict"]
        );
        assert_eq!(names(&s["key"]), ["kid", "thumbprint", "source"]);
        assert_eq!(names(&s["verdict"]), ["code", "message", "pointer"]);
        assert_eq!(names(&v["signatures"][1]["verdict"]), ["code", "message"]);

        let sha = report.canonical_sha256();
        let flat = report_fields(&report, false).unwrap();
        let fields: Vec<&str> = flat.split('\0').collect();
        let want = [
            "0",
            "require",
            "r",
            "spec",
            &sha,
            "1",
            "/x",
            "2", //
            "0",
            "=k",
            "=ES256",
            "=https://example.com/jwks",
            "1",
            "k",
            "t",
            "jwks",
            "=spec",
            "signature-invalid",
            "m",
            "=/signatures/0/signature", //
            "1",
            "",
            "",
            "",
            "",
            "",
            "malformed-header",
            "",
            "",
            "",
        ];
        assert_eq!(fields, want);
        assert_eq!(report_fields(&report, true).unwrap().split('\0').nth(4), Some(""));
        // A NUL inside a text: no flat form (the JSON form is used).
        report.signatures[0].kid = Some("k\0".into());
        assert_eq!(report_fields(&report, false), None);
    }
}
