// Verification speed: the a2a-card npm package (wasm) beside @a2a-js/sdk's
// verifyAgentCardSignature, in one process, on the same card and the same key.
//
// The card is the A2A v1.0 section 8.5 sample (testvectors/cards/sample-8.5-unsigned.json)
// signed once with ES256 (or EdDSA) by the wasm package under the prune-empty profile, which is the
// canonical form @a2a-js/sdk 1.x verifies (on this card it equals the spec form too), so both
// verifiers accept the same signature. Before timing, each verifier is shown to accept the card
// and to refuse a tampered copy, so neither timing is of a shortcut.
//
// Timed, per verification (median of several rounds):
//   wasm verify()         verify(text, { jwks, profile }): reads the JWKS on every call
//   wasm Verifier         new Verifier({ jwks, profile }) once, then .verify(text)
//   sdk  (JSON.parse)     JSON.parse(text), then await verifier(card); key imported once
//   sdk  (parsed object)  await verifier(card) on an already parsed card
// The served card arrives as text, so "wasm verify()" against "sdk (JSON.parse)" is the
// like-for-like pair; the ratio printed as the target is that one.
//
// Usage: cd crates/a2a-card-wasm/bench && npm ci && node verify-vs-sdk.mjs [--alg EdDSA] [--check]
// (after scripts/build-wasm.sh). The algorithm is ES256 unless --alg EdDSA is given (the
// target is stated for ES256). --check exits 1 when the target (3x) is not met.
// Environment: A2A_CARD_WASM_PKG (default ../pkg), BENCH_ROUNDS (default 7),
// BENCH_MIN_MS (default 300, time per round and verifier).
import crypto from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { verifyAgentCardSignature } from "@a2a-js/sdk";
import * as jose from "jose";

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, "../../..");
const pkgDir = process.env.A2A_CARD_WASM_PKG ? path.resolve(process.env.A2A_CARD_WASM_PKG) : path.resolve(here, "../pkg");
const lib = createRequire(import.meta.url)(pkgDir);
const sdkVersion = JSON.parse(fs.readFileSync(path.join(here, "node_modules/@a2a-js/sdk/package.json"), "utf8")).version;

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const MIN_MS = Number(process.env.BENCH_MIN_MS ?? 300);
const TARGET = 3;

// The key: P-256 (or Ed25519) from node:crypto, one JWK for both verifiers.
const algIndex = process.argv.indexOf("--alg");
const alg = algIndex > 0 ? process.argv[algIndex + 1] : "ES256";
if (alg !== "ES256" && alg !== "EdDSA") {
  console.error(`--alg ${alg}: ES256 or EdDSA`);
  process.exit(2);
}
const { privateKey, publicKey } =
  alg === "ES256" ? crypto.generateKeyPairSync("ec", { namedCurve: "P-256" }) : crypto.generateKeyPairSync("ed25519");
const kid = `bench-${alg.toLowerCase()}`;
const privateJwk = { ...privateKey.export({ format: "jwk" }), kid };
const publicJwk = { ...publicKey.export({ format: "jwk" }), kid, alg };
const jwks = JSON.stringify({ keys: [publicJwk] });

// The card, signed once.
const unsigned = fs.readFileSync(path.join(repoRoot, "testvectors/cards/sample-8.5-unsigned.json"), "utf8");
const profile = "prune-empty";
const text = lib.sign(unsigned, privateJwk, { alg, kid, profile });
const parsed = JSON.parse(text);
const tamperedText = JSON.stringify({ ...parsed, description: `${parsed.description}!` });

// The SDK's verifier, with the key imported once (its fastest use).
const sdkKey = await jose.importJWK(publicJwk, alg);
const sdkVerify = verifyAgentCardSignature(async (k) => {
  if (k !== kid) throw new Error(`unknown kid ${k}`);
  return sdkKey;
});
const verifier = new lib.Verifier({ jwks, profile });

// Both accept the card and refuse the tampered copy.
const check = (ok, what) => {
  if (!ok) {
    console.error(`sanity check failed: ${what}`);
    process.exit(2);
  }
};
check(lib.verify(text, { jwks, profile }).ok, "wasm verify accepts the card");
check(lib.verify(text, { jwks }).ok, "wasm verify accepts the card under spec too");
check(verifier.verify(text).ok, "wasm Verifier accepts the card");
check(!lib.verify(tamperedText, { jwks, profile }).ok, "wasm refuses the tampered card");
await sdkVerify(JSON.parse(text));
const debug = console.debug;
console.debug = () => {}; // the SDK logs each failed entry
let sdkRefused = false;
try {
  await sdkVerify(JSON.parse(tamperedText));
} catch {
  sdkRefused = true;
}
console.debug = debug;
check(sdkRefused, "the SDK refuses the tampered card");

/** Median nanoseconds per call of fn over ROUNDS rounds of at least MIN_MS each. */
async function measure(fn) {
  for (let i = 0; i < 200; i++) await fn(); // warm-up (JIT, wasm tiers)
  const perCall = [];
  for (let r = 0; r < ROUNDS; r++) {
    let n = 0;
    const start = process.hrtime.bigint();
    const deadline = start + BigInt(MIN_MS) * 1_000_000n;
    let now = start;
    while (now < deadline) {
      for (let i = 0; i < 20; i++) await fn();
      n += 20;
      now = process.hrtime.bigint();
    }
    perCall.push(Number(now - start) / n);
  }
  perCall.sort((a, b) => a - b);
  return perCall[Math.floor(perCall.length / 2)];
}

// Interleaved, so that machine load affects both sides alike.
const cases = [
  ["wasm verify()", () => lib.verify(text, { jwks, profile })],
  ["wasm Verifier", () => verifier.verify(text)],
  ["sdk (JSON.parse)", () => sdkVerify(JSON.parse(text))],
  ["sdk (parsed object)", () => sdkVerify(parsed)],
];
const results = new Map();
for (const [name, fn] of cases) results.set(name, await measure(fn));

const us = (ns) => (ns / 1000).toFixed(1).padStart(8);
console.log(`card: testvectors/cards/sample-8.5-unsigned.json (${Buffer.byteLength(text)} bytes signed), ${alg}, profile ${profile}`);
console.log(`node ${process.version}, @a2a-js/sdk ${sdkVersion}, wasm ${fs.statSync(path.join(pkgDir, "node/a2a_card_bg.wasm")).size} bytes; median of ${ROUNDS} rounds >= ${MIN_MS} ms`);
console.log("");
console.log("verifier                 µs/verify   verifies/s");
for (const [name, ns] of results) {
  console.log(`${name.padEnd(22)} ${us(ns)}   ${String(Math.round(1e9 / ns)).padStart(10)}`);
}
const ratio = results.get("sdk (JSON.parse)") / results.get("wasm verify()");
const ratioVerifier = results.get("sdk (parsed object)") / results.get("wasm Verifier");
console.log("");
console.log(`ratio sdk (JSON.parse) / wasm verify():        ${ratio.toFixed(2)}x`);
console.log(`ratio sdk (parsed object) / wasm Verifier:     ${ratioVerifier.toFixed(2)}x`);
console.log(`target (ES256): wasm >= ${TARGET}x faster per verification: ${alg !== "ES256" ? "not measured by this run" : ratio >= TARGET ? "met" : "NOT met"}`);
if (process.argv.includes("--check") && alg === "ES256" && ratio < TARGET) process.exit(1);
