// @ts-check
// Signature checks over WebCrypto (crypto.subtle, asynchronous), wherever it exists: browsers,
// workers, Deno, Bun, Node. Imported by src/webcrypto.rs (#[wasm_bindgen(module =
// "/js/webcrypto.js")]), every export with `catch` (see src/js.rs); exports functions only and
// imports nothing (scripts/build-wasm.sh makes it CommonJS for the Node build). Type-checked by
// test/types.test.mjs (tsc --checkJs --strict, js/tsconfig.json).

/**
 * WebCrypto's handle of a key: the JWK and, per algorithm code, its CryptoKey (a promise of it
 * while it is imported; null: refused).
 * @typedef {{ jwk: JsonWebKey, keys: Array<CryptoKey | Promise<CryptoKey | null> | null | undefined> }} WebKey
 */

/** @returns {SubtleCrypto | null} */
function subtle() {
  const c = globalThis.crypto;
  const s = c && c.subtle;
  return s && typeof s.verify === "function" && typeof s.importKey === "function" ? s : null;
}
/** @returns {boolean} */
export function web_available() {
  return subtle() !== null;
}
// The handle of a key (a public JWK with its key members only, as text): the JWK, and per
// algorithm code its CryptoKey (a promise of it while it is imported; null: refused).
/**
 * @param {string} jwk
 * @returns {WebKey}
 */
export function web_key_handle(jwk) {
  return { jwk: JSON.parse(jwk), keys: [] };
}
// Algorithm codes as in host.rs (host_alg): 1 EdDSA, 2 ES256, 3 ES384, 4 RS256, 5 RS384, 6 RS512,
// 7 PS256, 8 PS384, 9 PS512. How WebCrypto imports the key for each, and its verify parameters.
const RSA = "RSASSA-PKCS1-v1_5";
/** @type {Array<(RsaHashedImportParams | EcKeyImportParams | Algorithm) | null>} */
const IMPORT = [
  null, { name: "Ed25519" }, { name: "ECDSA", namedCurve: "P-256" }, { name: "ECDSA", namedCurve: "P-384" },
  { name: RSA, hash: "SHA-256" }, { name: RSA, hash: "SHA-384" }, { name: RSA, hash: "SHA-512" },
  { name: "RSA-PSS", hash: "SHA-256" }, { name: "RSA-PSS", hash: "SHA-384" }, { name: "RSA-PSS", hash: "SHA-512" },
];
/** @type {Array<(EcdsaParams | RsaPssParams | Algorithm) | null>} */
const VERIFY = [
  null, { name: "Ed25519" }, { name: "ECDSA", hash: "SHA-256" }, { name: "ECDSA", hash: "SHA-384" },
  { name: RSA }, { name: RSA }, { name: RSA },
  { name: "RSA-PSS", saltLength: 32 }, { name: "RSA-PSS", saltLength: 48 }, { name: "RSA-PSS", saltLength: 64 },
];
const DECLINED = Promise.resolve(-1);
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));
// A promise of the SHA-256 of `bytes` (a view of the module's memory, an ArrayBuffer that is never
// shared; digest copies the bytes before it returns) in lower-case hex, made by WebCrypto; null when it cannot be made here. It never
// rejects.
/**
 * @param {Uint8Array<ArrayBuffer>} bytes
 * @returns {Promise<string | null>}
 */
export function web_digest(bytes) {
  const s = subtle();
  if (s === null || typeof s.digest !== "function") return Promise.resolve(null);
  try {
    return s.digest("SHA-256", bytes).then(
      (d) => {
        const b = new Uint8Array(d);
        let hex = "";
        for (let i = 0; i < b.length; i++) hex += HEX[b[i]];
        return hex;
      },
      () => null,
    );
  } catch (_) {
    return Promise.resolve(null);
  }
}
// A promise of what `next` gives for the answers of one round (`promises`, which never reject).
/**
 * @param {Array<Promise<unknown>>} promises
 * @param {(answers: unknown[]) => unknown} next
 * @returns {Promise<unknown>}
 */
export function web_round(promises, next) {
  return Promise.all(promises).then(next);
}
// A promise of 1 (the signature verifies), 0 (it does not) or -1 (not checked here: the module
// checks it itself), or -1 itself when WebCrypto throws at once (Promise.all in web_round takes
// both); it never rejects. `msg` and `sig` are views of the module's memory: with the key
// imported already they are handed to WebCrypto at once, which copies them before it returns (as
// the WebCrypto specification has every method do); while the key is still being imported they
// are copied first.
/**
 * @param {WebKey} handle
 * @param {number} alg
 * @param {Uint8Array<ArrayBuffer>} msg
 * @param {Uint8Array<ArrayBuffer>} sig
 * @returns {Promise<number> | number}
 */
export function web_verify(handle, alg, msg, sig) {
  const s = subtle();
  const params = VERIFY[alg];
  if (s === null || params === undefined || params === null) return DECLINED;
  let key = handle.keys[alg];
  if (key !== undefined && key !== null && typeof (/** @type {{ then?: unknown }} */ (key)).then !== "function") {
    return check(s, params, /** @type {CryptoKey} */ (key), sig, msg);
  }
  if (key === undefined) {
    try {
      key = s.importKey("jwk", handle.jwk, /** @type {RsaHashedImportParams | EcKeyImportParams | Algorithm} */ (IMPORT[alg]), false, ["verify"]).then(
        (k) => (handle.keys[alg] = k),
        () => (handle.keys[alg] = null),
      );
    } catch (_) {
      key = null;
    }
    handle.keys[alg] = key;
  }
  if (key === null) return DECLINED;
  const data = msg.slice();
  const signature = sig.slice();
  /** @type {(k: CryptoKey | null) => Promise<number> | number} */
  const run = (k) => (k === null ? -1 : check(s, params, k, signature, data));
  return /** @type {Promise<CryptoKey | null>} */ (key).then(run);
}
// A promise of 1, 0 or -1 for one crypto.subtle.verify (-1 when it throws at once).
/**
 * @param {SubtleCrypto} s
 * @param {EcdsaParams | RsaPssParams | Algorithm} params
 * @param {CryptoKey} key
 * @param {Uint8Array<ArrayBuffer>} sig
 * @param {Uint8Array<ArrayBuffer>} msg
 * @returns {Promise<number> | number}
 */
function check(s, params, key, sig, msg) {
  try {
    return s.verify(params, key, sig, msg).then(ok1, minus1);
  } catch (_) {
    return -1;
  }
}
/** @param {boolean} ok */
const ok1 = (ok) => (ok === true ? 1 : 0);
const minus1 = () => -1;
