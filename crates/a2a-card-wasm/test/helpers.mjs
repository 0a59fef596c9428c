// Shared helpers of the Node tests: where the package, the repository, the corpora and the
// native CLI are, how to load the package's Node and web builds, and how a missing resource is
// handled (a failure when CI is set, a skip with a note otherwise).
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isDeepStrictEqual } from "node:util";

export const testDir = path.dirname(fileURLToPath(import.meta.url));
export const crateDir = path.resolve(testDir, "..");
export const repoRoot = path.resolve(crateDir, "../..");

/** The built package: $A2A_CARD_WASM_PKG or crates/a2a-card-wasm/pkg (scripts/build-wasm.sh). */
export const pkgDir = process.env.A2A_CARD_WASM_PKG
  ? path.resolve(process.env.A2A_CARD_WASM_PKG)
  : path.join(crateDir, "pkg");

/** Third-party test data: $A2A_CARD_CORPORA or ../shared/corpora beside the repository. */
export const corporaDir = process.env.A2A_CARD_CORPORA
  ? path.resolve(process.env.A2A_CARD_CORPORA)
  : path.resolve(repoRoot, "../shared/corpora");

/** The native CLI: $A2A_CARD_CLI or $CARGO_TARGET_DIR/debug/a2a-card (default target/). */
export const cliPath = process.env.A2A_CARD_CLI
  ? path.resolve(process.env.A2A_CARD_CLI)
  : path.join(
      process.env.CARGO_TARGET_DIR ? path.resolve(repoRoot, process.env.CARGO_TARGET_DIR) : path.join(repoRoot, "target"),
      "debug",
      "a2a-card",
    );

const require = createRequire(import.meta.url);

/** The JavaScript runtime running the tests: "node", "deno" or "bun" (scripts/test-runtimes.sh). */
export const runtime = globalThis.Deno ? "deno" : globalThis.Bun ? "bun" : "node";

function requirePackage() {
  if (!fs.existsSync(path.join(pkgDir, "package.json"))) {
    throw new Error(`no package at ${pkgDir}: run scripts/build-wasm.sh first`);
  }
}

/**
 * A2A_CARD_HOST_CRYPTO=0 runs the suites with the host's crypto turned off: `verify`,
 * `verifyAsync` and `Verifier` then get `hostCrypto: false` (unless the test gives hostCrypto
 * itself), so every signature is checked by the module's own ring code. hostcrypto.test.mjs runs the other suites
 * that way; by default they use the host backend.
 */
export const hostCryptoOff = process.env.A2A_CARD_HOST_CRYPTO === "0";

function withHostCrypto(lib) {
  if (!hostCryptoOff) return lib;
  const off = (o) => {
    try {
      if (o === null || typeof o !== "object" || Array.isArray(o) || "hostCrypto" in o) return o;
      // The options themselves become the prototype of an object holding hostCrypto: the package
      // reads a prototype's members (getters, non-enumerable ones and all) as the object's own,
      // and no getter runs here.
      return Object.assign(Object.create(o), { hostCrypto: false });
    } catch (_) {
      // A revoked Proxy: given as it is.
      return o;
    }
  };
  class Verifier extends lib.Verifier {
    constructor(options) {
      super(off(options));
      if (options && typeof options === "object" && !("hostCrypto" in options) && this.hostCrypto !== false) {
        throw new Error("A2A_CARD_HOST_CRYPTO=0 did not turn the host backend off");
      }
    }
  }
  return { ...lib, verify: (card, options) => lib.verify(card, off(options)), verifyAsync: (card, options) => lib.verifyAsync(card, off(options)), Verifier };
}

/** The Node build (CommonJS, loaded through the package's "main"). */
export function loadNode() {
  requirePackage();
  return withHostCrypto(require(pkgDir));
}

/** The browser build (ES module), initialized synchronously with the .wasm bytes. */
export async function loadWeb() {
  requirePackage();
  const mod = await import(pathToFileURL(path.join(pkgDir, "web", "a2a_card.js")).href);
  mod.initSync({ module: fs.readFileSync(path.join(pkgDir, "web", "a2a_card_bg.wasm")) });
  return withHostCrypto(mod);
}

/**
 * A resource the test needs is missing: under CI that is a failure, otherwise the test is
 * skipped with a note saying what to do.
 */
export function missing(t, what) {
  if (process.env.CI) {
    throw new Error(`${what} is missing (CI is set, so this is a failure)`);
  }
  t.diagnostic(`note: ${what} is missing; test skipped`);
  t.skip(`${what} is missing`);
}

/** The native CLI, or null (after `missing`) when it is not built. */
export function cli(t) {
  if (!fs.existsSync(cliPath)) {
    missing(t, `the native CLI at ${cliPath} (cargo build -p a2a-card-cli)`);
    return null;
  }
  return (args, input) => {
    const out = spawnSync(cliPath, args, { input, maxBuffer: 64 << 20, timeout: 60_000 });
    if (out.error) throw out.error;
    return { code: out.status, stdout: out.stdout, stderr: out.stderr.toString("utf8") };
  };
}

/**
 * A key pair from node:crypto, as `crypto.generateKeyPairSync(type, options)` gives it, but with
 * key objects of their own: the pair is generated as PEM and read back. Node 20 can deadlock
 * when a key made by `generateKeyPairSync` is exported as a JWK while the garbage collector frees
 * the finished generation job, which shares that key's data and locks its mutex a second time
 * (seen in CI on Node v20.20.2: `ExportJWKEdKey` -> GC -> `~KeyGenJob` -> `uv_mutex_lock`, the
 * test process hung with no CPU). Keys read from PEM share nothing with the job.
 */
export function generateKeyPair(type, options = {}) {
  const pair = crypto.generateKeyPairSync(type, {
    ...options,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
  return {
    privateKey: crypto.createPrivateKey(pair.privateKey),
    publicKey: crypto.createPublicKey(pair.publicKey),
  };
}

/** A fresh Ed25519 key pair as JWKs: `{ priv, pub }`. */
export function ed25519Jwks() {
  const { privateKey, publicKey } = generateKeyPair("ed25519");
  return { priv: privateKey.export({ format: "jwk" }), pub: publicKey.export({ format: "jwk" }) };
}

/** A fresh scratch directory, removed when the process exits. */
export function scratch(name) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `a2a-card-wasm-${name}-`));
  process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export function readJson(file) {
  return JSON.parse(fs.readFileSync(file, "utf8"));
}

/** The A2A v1.0 section 8.5 sample card, without signatures, as its file's text. */
export function sampleCard() {
  return fs.readFileSync(path.join(repoRoot, "testvectors/cards/sample-8.5-unsigned.json"), "utf8");
}

/**
 * The canonicalization vectors of testvectors/canonical/ (format: testvectors/README.md), in
 * file-name order: `{ file, v }` with `v` the parsed file. A vector whose input is one of the
 * specification's sample cards (testvectors/cards/) must name it (`card`) and the specification
 * commit it was taken from (`spec_commit`, 40 lower-case hex digits), and every card must be
 * named with one commit: anything else throws, naming the file.
 */
export function canonicalVectors() {
  const vectors = jsonFiles(path.join(repoRoot, "testvectors/canonical")).map(({ file, value }) => ({ file, v: value }));
  const cards = new Map(jsonFiles(path.join(repoRoot, "testvectors/cards")).map(({ file, value }) => [file, value]));
  const commits = new Map([...cards.keys()].map((name) => [name, new Set()]));
  for (const { file, v } of vectors) {
    const same = [...cards].filter(([, card]) => "input" in v && isDeepStrictEqual(v.input, card)).map(([name]) => name);
    if (("card" in v) !== ("spec_commit" in v)) throw new Error(`${file}: \`card\` and \`spec_commit\` go together`);
    if (!("card" in v)) {
      if (same.length) throw new Error(`${file}: the input is the card ${same[0]} of testvectors/cards: name it with \`card\` and \`spec_commit\``);
      continue;
    }
    if (typeof v.spec_commit !== "string" || !/^[0-9a-f]{40}$/.test(v.spec_commit)) {
      throw new Error(`${file}: \`spec_commit\` must be 40 lower-case hexadecimal digits, found ${JSON.stringify(v.spec_commit)}`);
    }
    if (!cards.has(v.card)) throw new Error(`${file}: \`card\` names ${JSON.stringify(v.card)}, which is not a file of testvectors/cards`);
    if (!same.includes(v.card)) throw new Error(`${file}: the input is not the card ${v.card} of testvectors/cards`);
    commits.get(v.card).add(v.spec_commit);
  }
  for (const [name, found] of commits) {
    if (found.size !== 1) throw new Error(`testvectors/cards/${name}: named by vectors with ${found.size} spec_commit values (one is needed)`);
  }
  return vectors;
}

/** The lint vectors of testvectors/lint/<rule>/ (format: testvectors/lint/README.md): `{ rule, file, v }`. */
export function lintVectors() {
  const dir = path.join(repoRoot, "testvectors/lint");
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== "schema-invalid")
    .map((d) => d.name)
    .sort()
    .flatMap((rule) => jsonFiles(path.join(dir, rule)).map(({ file, value }) => ({ rule, file, v: value })));
}

/** The migration vectors of testvectors/migrate/ (format: testvectors/migrate/README.md): `{ file, v }`. */
export function migrateVectors() {
  return jsonFiles(path.join(repoRoot, "testvectors/migrate")).map(({ file, value }) => ({ file, v: value }));
}

/**
 * The x5c vectors of testvectors/x5c/vectors.json (format: testvectors/x5c/README.md), each with
 * its card's text and its anchors' PEM text read: `{ v, card, anchors }`.
 */
export function x5cVectors() {
  const dir = path.join(repoRoot, "testvectors/x5c");
  const read = (name) => fs.readFileSync(path.join(dir, name), "utf8");
  return readJson(path.join(dir, "vectors.json")).vectors.map((v) => ({ v, card: read(v.card), anchors: v.anchors.map(read) }));
}

/** A file of testvectors/x5c/ as text. */
export function x5cFile(name) {
  return fs.readFileSync(path.join(repoRoot, "testvectors/x5c", name), "utf8");
}

function jsonFiles(dir) {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((file) => ({ file, value: JSON.parse(fs.readFileSync(path.join(dir, file), "utf8")) }));
}

/** A JavaScript object puts integer-like names first, so such an `input` cannot keep its order. */
export function hasIndexLikeName(value) {
  if (Array.isArray(value)) return value.some(hasIndexLikeName);
  if (value && typeof value === "object") {
    return Object.entries(value).some(([k, v]) => /^(0|[1-9][0-9]*)$/.test(k) || hasIndexLikeName(v));
  }
  return false;
}

/**
 * The inputs to feed for one vector (`input`, `input_raw` or `input_hex`): the exact bytes, plus
 * the other forms a caller may pass, as `[form, value]` pairs (form: text, object or bytes).
 */
export function vectorInputs(v) {
  if ("input" in v) {
    // JSON.stringify keeps member order (vectors with integer-like names are refused), so this
    // is the vector's serialization.
    return [["text", JSON.stringify(v.input)], ["object", v.input]];
  }
  if ("input_raw" in v) {
    const forms = [["text", v.input_raw]];
    if (v.input_raw.isWellFormed()) forms.push(["bytes", new Uint8Array(Buffer.from(v.input_raw, "utf8"))]);
    return forms;
  }
  return [["bytes", new Uint8Array(Buffer.from(v.input_hex, "hex"))]];
}

/** The exact input bytes of a vector. */
export function vectorBytes(v) {
  if ("input" in v) return Buffer.from(JSON.stringify(v.input), "utf8");
  if ("input_raw" in v) return Buffer.from(v.input_raw, "utf8");
  return Buffer.from(v.input_hex, "hex");
}

/** The package's options for a canonicalization vector's `profile`, `unknown` and `limits`. */
export function vectorOptions(v) {
  const o = { profile: v.profile };
  if (v.unknown !== undefined) o.unknown = v.unknown;
  if (v.limits?.max_input_bytes !== undefined) o.maxInputBytes = v.limits.max_input_bytes;
  if (v.limits?.max_depth !== undefined) o.maxDepth = v.limits.max_depth;
  return o;
}

/**
 * What is wrong with one answer to a canonicalization vector: `got` is `{ ok: true, hex,
 * unsigned }` or `{ ok: false, code, pointer, message }`. An empty list when it is right.
 */
export function canonicalProblems(v, got) {
  const problems = [];
  if ("expected_hex" in v) {
    if (!got.ok) return [`refused ${got.code} at ${JSON.stringify(got.pointer)}: ${got.message}`];
    if (got.hex !== v.expected_hex) problems.push(`bytes\n      got ${got.hex}\n expected ${v.expected_hex}`);
    if (JSON.stringify(got.unsigned) !== JSON.stringify(v.expected_unsigned)) {
      problems.push(`unsigned: got ${JSON.stringify(got.unsigned)}, expected ${JSON.stringify(v.expected_unsigned)}`);
    }
  } else {
    const want = v.expected_error;
    if (got.ok) return [`accepted (${got.hex}); expected ${want.code}`];
    if (got.code !== want.code) problems.push(`code ${got.code}, expected ${want.code} (${got.message})`);
    if ("pointer" in want && got.pointer !== want.pointer) {
      problems.push(`pointer ${JSON.stringify(got.pointer)}, expected ${JSON.stringify(want.pointer)}`);
    }
  }
  return problems;
}

/** Calls fn and returns what it threw (failing when it throws nothing). */
export function thrown(fn) {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error("expected an exception, none was thrown");
}
