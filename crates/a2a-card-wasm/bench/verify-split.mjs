// Where the time of one wasm verify() goes: a CPU profile (node:inspector, in this process) of
// verify(text, { jwks, profile }) on the A2A v1.0 section 8.5 sample card signed with ES256 (or
// EdDSA), its samples put into stages by the innermost function of a stage on their stack,
// scaled to the measured time per verification. The profile needs the functions' names, which
// wasm-opt removes, so build a package without it first:
//
//   CARGO_TARGET_DIR=... A2A_CARD_WASM_PKG=/tmp/a2a-card-pkg-named A2A_CARD_WASM_OPT=0 scripts/build-wasm.sh
//   A2A_CARD_WASM_PKG=/tmp/a2a-card-pkg-named node crates/a2a-card-wasm/bench/verify-split.mjs [--alg EdDSA] [--verifier]
//
// --verifier profiles Verifier.verify(text) instead. The split is approximate: sampling costs
// more in JavaScript frames than in wasm ones. Environment: SPLIT_SECONDS (default 4).
import crypto from "node:crypto";
import fs from "node:fs";
import inspector from "node:inspector";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, "../../..");
const pkgDir = process.env.A2A_CARD_WASM_PKG ? path.resolve(process.env.A2A_CARD_WASM_PKG) : path.resolve(here, "../pkg");
const lib = createRequire(import.meta.url)(pkgDir);
const algIndex = process.argv.indexOf("--alg");
const alg = algIndex > 0 ? process.argv[algIndex + 1] : "ES256";
if (alg !== "ES256" && alg !== "EdDSA") {
  console.error(`--alg ${alg}: ES256 or EdDSA`);
  process.exit(2);
}
const useVerifier = process.argv.includes("--verifier");
const seconds = Number(process.env.SPLIT_SECONDS ?? 4);

const { privateKey, publicKey } =
  alg === "ES256" ? crypto.generateKeyPairSync("ec", { namedCurve: "P-256" }) : crypto.generateKeyPairSync("ed25519");
const kid = "split";
const jwks = JSON.stringify({ keys: [{ ...publicKey.export({ format: "jwk" }), kid, alg }] });
const profile = "prune-empty";
const unsigned = fs.readFileSync(path.join(repoRoot, "testvectors/cards/sample-8.5-unsigned.json"), "utf8");
const text = lib.sign(unsigned, { ...privateKey.export({ format: "jwk" }), kid }, { alg, kid, profile, unknown: "exclude" });
const verifier = new lib.Verifier({ jwks, profile });
const run = useVerifier ? () => verifier.verify(text) : () => lib.verify(text, { jwks, profile });
if (!run().ok) {
  console.error("the card does not verify");
  process.exit(2);
}
for (let i = 0; i < 2000; i++) run();

// Time per verification, unprofiled: the best of 9 rounds of 300 ms.
let best = Infinity;
for (let r = 0; r < 9; r++) {
  let n = 0;
  const start = process.hrtime.bigint();
  const end = start + 300_000_000n;
  let now = start;
  while (now < end) {
    for (let i = 0; i < 50; i++) run();
    n += 50;
    now = process.hrtime.bigint();
  }
  best = Math.min(best, Number(now - start) / n / 1000);
}

const session = new inspector.Session();
session.connect();
const post = (method, params) =>
  new Promise((resolve, reject) => session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))));
await post("Profiler.enable");
await post("Profiler.setSamplingInterval", { interval: 25 });
await post("Profiler.start");
const until = Date.now() + seconds * 1000;
let calls = 0;
while (Date.now() < until) {
  for (let i = 0; i < 50; i++) run();
  calls += 50;
}
const { profile: prof } = await post("Profiler.stop");
session.disconnect();

// Stages, by the names rustc and wasm-bindgen give (innermost match wins).
const stages = [
  ["card text -> module bytes", /card_bytes/],
  ["options (read, policy kept or read)", /Options::read|Policy::read|Policy::from_options|cached_policy/],
  ["read (the card's reader)", /canonical::doc::Doc>::parse/],
  ["canonicalize (presence + JCS)", /Forms::get/],
  ["drops (card, plan, header, report)", /^core::ptr::drop_in_place</],
  ["header decode, signature base64", /jose::header::decode_header_value|SignatureEntry::decoded_header|b64::decode_strict/],
  ["signing input (base64url)", /Forms::signing_input|b64::encode_into/],
  ["key thumbprint", /thumbprint/],
  ["node:crypto verify", /^verifyOneShot$/],
  ["backend call (boundary, key lookup)", /HostCrypto as a2a_card::jose::crypto::SignatureBackend/],
  ["ring (no host crypto, digests)", /^<?ring::/],
  ["report (fields, object, hash, text)", /report_to_js|make_report|report_fields|host_sha256_hex|serde_json::ser|serde_core::ser/],
];
const top = useVerifier ? /a2a_card_wasm::Verifier::verify(::h[0-9a-f]+)?$/ : /^a2a_card_wasm::verify(::h[0-9a-f]+)?$/;
const byId = new Map();
const parent = new Map();
for (const n of prof.nodes) {
  byId.set(n.id, n);
  for (const c of n.children ?? []) parent.set(c, n.id);
}
const counts = new Map(stages.map(([name]) => [name, 0]));
let total = 0;
let other = 0;
for (const sample of prof.samples) {
  const stack = [];
  for (let id = sample; id !== undefined; id = parent.get(id)) stack.push(byId.get(id).callFrame.functionName);
  if (!stack.some((name) => top.test(name))) continue;
  total += 1;
  const stage = stack.map((name) => stages.find(([, re]) => re.test(name))).find(Boolean);
  if (stage) counts.set(stage[0], counts.get(stage[0]) + 1);
  else other += 1;
}
if (total === 0) {
  console.error("no samples inside the wasm verify: is this package built without wasm-opt (function names kept)?");
  process.exit(2);
}
console.log(`${useVerifier ? "Verifier.verify(text)" : "verify(text, { jwks, profile })"}, ${alg}, ${pkgDir}`);
console.log(`${best.toFixed(1)} µs per verification (best of 9 rounds, unprofiled); ${total} samples over ${calls} profiled calls`);
console.log("");
const row = (name, n) => console.log(`${name.padEnd(38)} ${((100 * n) / total).toFixed(1).padStart(5)}%  ${((best * n) / total).toFixed(1).padStart(6)} µs`);
for (const [name, n] of counts) if (n > 0) row(name, n);
row("everything else", other);
