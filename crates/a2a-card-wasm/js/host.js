// @ts-check
// The host's native crypto (Node's node:crypto, reached synchronously) and the report objects,
// imported by src/host.rs (#[wasm_bindgen(module = "/js/host.js")]). Every export is imported
// with `catch`: an exception comes back to the module as an Err (see src/js.rs). The Node build
// turns each `export function` into a CommonJS export (scripts/build-wasm.sh), so this file
// exports functions only and imports nothing. Type-checked by test/types.test.mjs (tsc
// --checkJs --strict, js/tsconfig.json).

/**
 * The part of node:crypto used here.
 * @typedef {object} NodeCrypto
 * @property {(input: { key: unknown, format: "jwk" }) => KeyObject} createPublicKey
 * @property {(digest: string | null, data: Uint8Array, key: unknown, signature: Uint8Array) => boolean} verify
 * @property {(alg: string) => { update(data: Uint8Array): { digest(encoding: "hex"): string } }} createHash
 * @property {((alg: string, data: Uint8Array, encoding: "hex") => string) | undefined} hash
 * @property {{ RSA_PKCS1_PADDING: number, RSA_PKCS1_PSS_PADDING: number }} constants
 */
/**
 * A public key imported by node:crypto.
 * @typedef {{ asymmetricKeyType?: string }} KeyObject
 */
/**
 * The host's handle of a key: its KeyObject and, per algorithm code, crypto.verify's key
 * argument (null: not handled here).
 * @typedef {{ key: KeyObject, args: Array<object | null | undefined> }} HostKey
 */

/** @type {NodeCrypto | null | undefined} */
let hostCrypto;
/**
 * node:crypto when the host offers it synchronously (Node.js >= 20.16), else null.
 * @returns {NodeCrypto | null}
 */
function nodeCrypto() {
  if (hostCrypto === undefined) {
    hostCrypto = null;
    try {
      const p = /** @type {{ process?: { getBuiltinModule?: (id: string) => any } }} */ (globalThis).process;
      const c = p && typeof p.getBuiltinModule === "function" ? p.getBuiltinModule("node:crypto") : null;
      if (c && typeof c.verify === "function" && typeof c.createPublicKey === "function" && typeof c.createHash === "function") {
        hostCrypto = c;
      }
    } catch (_) {
      hostCrypto = null;
    }
  }
  return /** @type {NodeCrypto | null} */ (hostCrypto);
}
/** @returns {boolean} */
export function host_available() {
  return nodeCrypto() !== null;
}
// The host's handle of a public JWK (text): its KeyObject and, per algorithm code, the key
// argument of crypto.verify (made on first use); null when the host does not import the key.
/**
 * @param {string} jwk
 * @returns {HostKey | null}
 */
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
/**
 * @param {NodeCrypto} c
 * @param {KeyObject} key
 * @param {number} alg
 * @returns {object | null}
 */
function keyArgument(c, key, alg) {
  if (alg === 1) return key.asymmetricKeyType === "ed25519" ? key : null;
  if (alg === 2 || alg === 3) return { key, dsaEncoding: "ieee-p1363" };
  if (alg >= 4 && alg <= 6) return { key, padding: c.constants.RSA_PKCS1_PADDING };
  if (alg >= 7 && alg <= 9) return { key, padding: c.constants.RSA_PKCS1_PSS_PADDING, saltLength: [32, 48, 64][alg - 7] };
  return null;
}
// 1: the signature verifies, 0: it does not, -1: not handled here (the caller checks it itself).
/**
 * @param {HostKey | null} handle
 * @param {number} alg
 * @param {Uint8Array} msg
 * @param {Uint8Array} sig
 * @returns {number}
 */
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
// The report object from `flat` (report_fields in output.rs): its fields in order, each followed by
// a NUL; an optional one is "" for null, else "=" and its text. `canonical` and `hash` as in
// make_report. Object literals in the members' order: the same object JSON.parse would give.
/**
 * @param {string} flat
 * @param {Uint8Array} canonical
 * @param {boolean} hash
 * @returns {object}
 */
export function make_report_flat(flat, canonical, hash) {
  const f = flat.split("\0");
  const opt = (/** @type {string} */ s) => (s === "" ? null : s.slice(1));
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
/**
 * The part of Node's Buffer used here.
 * @typedef {Function & { from(buffer: ArrayBufferLike, offset: number, length: number): { toString(encoding: "utf8"): string } }} NodeBufferClass
 */
/** @type {{ Buffer?: NodeBufferClass }} */
const nodeGlobal = /** @type {any} */ (globalThis);
const NodeBuffer = typeof nodeGlobal.Buffer === "function" && typeof nodeGlobal.Buffer.from === "function" ? nodeGlobal.Buffer : null;
/**
 * @param {Uint8Array} canonical
 * @returns {string}
 */
function canonicalText(canonical) {
  return NodeBuffer !== null ? NodeBuffer.from(canonical.buffer, canonical.byteOffset, canonical.byteLength).toString("utf8") : decoder.decode(canonical);
}
/**
 * Called only where node:crypto is there (the module asks for the hash only then).
 * @param {Uint8Array} bytes
 * @returns {string}
 */
function sha256Hex(bytes) {
  const c = /** @type {NodeCrypto} */ (nodeCrypto());
  // crypto.hash (Node.js >= 20.12) skips the Hash object.
  return typeof c.hash === "function" ? c.hash("sha256", bytes, "hex") : c.createHash("sha256").update(bytes).digest("hex");
}
/**
 * @param {string} json
 * @param {Uint8Array} canonical
 * @param {boolean} hash
 * @returns {object}
 */
export function make_report(json, canonical, hash) {
  const r = JSON.parse(json);
  r.canonical = canonicalText(canonical);
  if (hash) r.canonical_sha256 = sha256Hex(canonical);
  return r;
}
