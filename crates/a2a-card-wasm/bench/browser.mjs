// Verification speed in a real browser: headless Chromium (the system's, driven by puppeteer-core
// through ../test/browser/harness.mjs) loads one page from a static server on loopback, with the
// package's web build and @a2a-js/sdk's verifyAgentCardSignature bundled for the browser by
// esbuild (jose on WebCrypto inside). Same card, same key in the same page: the A2A v1.0 section
// 8.5 sample signed with ES256 under prune-empty (what the SDK verifies; on this card the spec
// bytes too). The page's own crypto.subtle.verify of the signing input is the floor. Prints
// the time per verification (median of the rounds, best round beside it) and the ratios against
// the targets: verifyAsync at least 2x faster than the SDK, and within 1.5x of the floor.
//
// Usage: cd crates/a2a-card-wasm/bench && npm ci && (cd ../test && npm ci) && node browser.mjs [--check]
// (after scripts/build-wasm.sh). --check exits 1 when a target is not met. Environment:
// A2A_CARD_WASM_PKG (default ../pkg), A2A_CARD_WASM_PKG_BEFORE (another build of the package,
// for example of the main branch: its Verifier async and verifyAsync() are timed in the same
// rounds, and printed beside), CHROMIUM (default /usr/bin/chromium), BENCH_ROUNDS
// (default 7), BENCH_MIN_MS (default 300, time per round and case).
import crypto from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { chromiumPath, chromiumPresent, launch, open, serve } from "../test/browser/harness.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, "../../..");
const pkgDir = process.env.A2A_CARD_WASM_PKG ? path.resolve(process.env.A2A_CARD_WASM_PKG) : path.resolve(here, "../pkg");
const beforeDir = process.env.A2A_CARD_WASM_PKG_BEFORE ? path.resolve(process.env.A2A_CARD_WASM_PKG_BEFORE) : null;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const MIN_MS = Number(process.env.BENCH_MIN_MS ?? 300);
const SDK_TARGET = 2;
const FLOOR_TARGET = 1.5;

if (!chromiumPresent()) {
  console.error(`no browser at ${chromiumPath} (apt-get install chromium, or set CHROMIUM)`);
  process.exit(2);
}
const lib = createRequire(import.meta.url)(pkgDir);
const sdkVersion = JSON.parse(fs.readFileSync(path.join(here, "node_modules/@a2a-js/sdk/package.json"), "utf8")).version;

// The key and the card, made here once, handed to the page.
const { privateKey, publicKey } = crypto.generateKeyPairSync("ec", { namedCurve: "P-256" });
const kid = "bench-es256";
const privateJwk = { ...privateKey.export({ format: "jwk" }), kid };
const publicJwk = { ...publicKey.export({ format: "jwk" }), kid, alg: "ES256" };
const jwks = JSON.stringify({ keys: [publicJwk] });
const profile = "prune-empty";
const unsigned = fs.readFileSync(path.join(repoRoot, "testvectors/cards/sample-8.5-unsigned.json"), "utf8");
// The sample's two A2A 0.3 members stay unsigned (as the SDK leaves them): unknown: "exclude".
const text = lib.sign(unsigned, privateJwk, { alg: "ES256", kid, profile, unknown: "exclude" });

// @a2a-js/sdk for the browser: its verifier and jose's importJWK, one ES module.
const sdk = await esbuild.build({
  stdin: {
    contents: 'export { verifyAgentCardSignature } from "@a2a-js/sdk";\nexport { importJWK } from "jose";\n',
    resolveDir: here,
    loader: "js",
  },
  bundle: true,
  format: "esm",
  platform: "browser",
  target: "es2022",
  minify: true,
  write: false,
  logLevel: "warning",
});
const sdkBundle = sdk.outputFiles[0].text;

const server = await serve({ "/pkg/": pkgDir, "/bench/": here, ...(beforeDir ? { "/before/": beforeDir } : {}) }, (url) =>
  url.pathname === "/bench/sdk.js" ? { type: "text/javascript; charset=utf-8", body: sdkBundle } : null,
);
const chromium = await launch();
let result;
try {
  const { page, errors } = await open(chromium.browser, `${server.origin}/bench/browser-page.html`);
  await page.waitForFunction(() => window.benchReady === true, { timeout: 60_000 });
  result = await page.evaluate((config) => window.bench(config), { text, jwks, publicJwk, kid, profile, rounds: ROUNDS, ms: MIN_MS, before: beforeDir !== null });
  if (errors.length) {
    console.error(`the page reported errors:\n${errors.join("\n")}`);
    process.exit(2);
  }
} finally {
  await chromium.close();
  await server.close();
}

const failed = Object.entries(result.checks).filter(([, ok]) => ok !== true);
if (failed.length) {
  console.error(`sanity checks failed in the page: ${failed.map(([name]) => name).join(", ")}`);
  process.exit(2);
}
// Each case's times in round order (round r of every case was timed before round r + 1 of any):
// the per-round ratios below compare cases timed seconds apart, which a slow phase of a shared
// machine moves less than the medians of each case taken apart.
const inOrder = Object.fromEntries(Object.entries(result.times).map(([name, list]) => [name, [...list]]));
const median = {};
const best = {};
for (const [name, list] of Object.entries(result.times)) {
  list.sort((a, b) => a - b);
  median[name] = list[Math.floor(list.length / 2)];
  best[name] = list[0];
}
const us = (ns) => (ns / 1000).toFixed(1).padStart(8);
console.log(`card: testvectors/cards/sample-8.5-unsigned.json (${Buffer.byteLength(text)} bytes signed), ES256, profile ${profile}`);
console.log(`${result.agent}`);
console.log(`@a2a-js/sdk ${sdkVersion} bundled by esbuild ${esbuild.version} (${sdkBundle.length} bytes); median of ${ROUNDS} rounds >= ${MIN_MS} ms, in one page`);
console.log("");
console.log("verifier                      µs/verify   verifies/s   best round µs");
for (const name of Object.keys(median)) {
  console.log(`${name.padEnd(29)} ${us(median[name])}   ${String(Math.round(1e9 / median[name])).padStart(10)}   ${us(best[name])}`);
}
const ratio = (a, b) => median[a] / median[b];
const vsSdk = ratio("sdk (JSON.parse)", "wasm Verifier async");
const vsFloor = ratio("wasm Verifier async", "WebCrypto verify only");
console.log("");
console.log(`ratio sdk (JSON.parse) / wasm Verifier async:      ${vsSdk.toFixed(2)}x (target >= ${SDK_TARGET}x)`);
console.log(`ratio sdk (JSON.parse) / wasm verifyAsync():       ${ratio("sdk (JSON.parse)", "wasm verifyAsync()").toFixed(2)}x`);
console.log(`ratio sdk (parsed object) / wasm Verifier async:   ${ratio("sdk (parsed object)", "wasm Verifier async").toFixed(2)}x`);
console.log(`ratio wasm Verifier async / WebCrypto verify only: ${vsFloor.toFixed(2)}x (target <= ${FLOOR_TARGET}x)`);
console.log(`ratio wasm verifyAsync() / WebCrypto verify only:  ${ratio("wasm verifyAsync()", "WebCrypto verify only").toFixed(2)}x`);
console.log(`ratio (WebCrypto verify only + wasm canonical only) / Verifier async: ${((median["WebCrypto verify only"] + median["wasm canonical only"]) / median["wasm Verifier async"]).toFixed(2)}x`);
console.log(`ratio wasm Verifier (sync, ring) / Verifier async: ${ratio("wasm Verifier (sync, ring)", "wasm Verifier async").toFixed(2)}x`);
if (beforeDir) {
  console.log(`ratio before: Verifier async / WebCrypto verify only: ${ratio("before: Verifier async", "WebCrypto verify only").toFixed(2)}x`);
  console.log(`ratio before: verifyAsync() / WebCrypto verify only:  ${ratio("before: verifyAsync()", "WebCrypto verify only").toFixed(2)}x`);
  console.log(`ratio sdk (JSON.parse) / before: Verifier async:      ${ratio("sdk (JSON.parse)", "before: Verifier async").toFixed(2)}x`);
  console.log(`ratio sdk (JSON.parse) / before: verifyAsync():       ${ratio("sdk (JSON.parse)", "before: verifyAsync()").toFixed(2)}x`);
}
const mid = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const perRound = (a, b) => {
  const list = inOrder[a].map((t, r) => t / inOrder[b][r]);
  return `${mid(list).toFixed(2)}x (rounds ${Math.min(...list).toFixed(2)} to ${Math.max(...list).toFixed(2)})`;
};
console.log("");
console.log("median of per-round ratios (cases of one round timed side by side), and their spread:");
const pairs = [
  ["wasm Verifier async", "WebCrypto verify only"],
  ["wasm verifyAsync()", "WebCrypto verify only"],
  ["sdk (JSON.parse)", "wasm Verifier async"],
  ["sdk (JSON.parse)", "wasm verifyAsync()"],
  ["sdk (JSON.parse)", "WebCrypto verify only"],
  ["WebCrypto verify + digest", "WebCrypto verify only"],
  ["wasm canonicalize, then verify", "WebCrypto verify only"],
  ["wasm Verifier async", "wasm canonicalize, then verify"],
];
if (beforeDir) {
  pairs.push(
    ["before: Verifier async", "WebCrypto verify only"],
    ["before: verifyAsync()", "WebCrypto verify only"],
    ["sdk (JSON.parse)", "before: Verifier async"],
    ["sdk (JSON.parse)", "before: verifyAsync()"],
    ["before: Verifier async", "wasm Verifier async"],
    ["before: verifyAsync()", "wasm verifyAsync()"],
  );
}
for (const [a, b] of pairs) console.log(`  ${a} / ${b}: ${perRound(a, b)}`);
// What the target would leave if the core's reading and canonical bytes took no time at all: the
// async verify less "wasm canonicalize only", over the floor, round by round.
{
  const list = inOrder["wasm Verifier async"].map((t, r) => (t - inOrder["wasm canonicalize only"][r]) / inOrder["WebCrypto verify only"][r]);
  console.log(
    `  (wasm Verifier async - wasm canonicalize only) / WebCrypto verify only: ${mid(list).toFixed(2)}x (rounds ${Math.min(...list).toFixed(2)} to ${Math.max(...list).toFixed(2)}): the ratio with the core's reading and canonical bytes free`,
  );
}
const met = vsSdk >= SDK_TARGET && vsFloor <= FLOOR_TARGET;
console.log(`targets: ${met ? "met" : "NOT met"}`);
if (process.argv.includes("--check") && !met) process.exit(1);
