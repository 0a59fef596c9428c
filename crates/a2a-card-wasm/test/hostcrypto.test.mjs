// The host's native crypto as the signature backend (Node.js >= 20.16: node:crypto through
// process.getBuiltinModule), against the module's own ring code:
// - the backend is really used when on, and not when off (node:crypto's verify is counted);
// - tampered signatures of every algorithm get the same report from both (flipped bits, wrong
//   lengths, r or s = 0, s = n, s + n, high-S, non-canonical Ed25519 S, RSA signature = 0 or n,
//   the wrong key, another curve's key, another key type);
// - every other Node suite passes with the backend off too (A2A_CARD_HOST_CRYPTO=0, see
//   helpers.mjs), as it passes with it on in the normal run.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { loadNode, runtime, sampleCard, testDir } from "./helpers.mjs";
import { fromB64u, keyPair, tamperCases, withSignature } from "./tamper.mjs";

// Count node:crypto's verify calls made through process.getBuiltinModule, which is how the
// package reaches the host's crypto. Installed before the package first asks for it; the calls
// go to the real function.
let hostVerifies = 0;
const getBuiltinModule = process.getBuiltinModule;
const hasHost = typeof getBuiltinModule === "function";
if (hasHost) {
  const counted = Object.create(crypto, {
    verify: {
      value: (...args) => {
        hostVerifies += 1;
        return crypto.verify(...args);
      },
    },
  });
  process.getBuiltinModule = (name) => (name === "node:crypto" || name === "crypto" ? counted : getBuiltinModule.call(process, name));
}

const lib = loadNode();
const card = sampleCard();

test("the host backend is used when available and on, and not when off", (t) => {
  const version = process.versions.node.split(".").map(Number);
  const expected = version[0] > 20 || (version[0] === 20 && version[1] >= 16);
  assert.equal(lib.hostCryptoAvailable(), expected, `node ${process.version}`);
  if (!expected) {
    t.diagnostic(`note: node ${process.version} has no process.getBuiltinModule; ring checks every signature`);
    return;
  }
  const k = keyPair("ES256", "k1");
  const signed = lib.sign(card, k.privateJwk, { unknown: "exclude", alg: "ES256" });
  const on = new lib.Verifier({ keys: [k.publicJwk] });
  const off = new lib.Verifier({ keys: [k.publicJwk], hostCrypto: false });
  assert.equal(on.hostCrypto, true);
  assert.equal(off.hostCrypto, false);

  const before = hostVerifies;
  assert.equal(on.verify(signed).ok, true);
  assert.equal(lib.verify(signed, { keys: [k.publicJwk] }).ok, true);
  assert.equal(hostVerifies - before, 2, "one host verification per call with the backend on");
  assert.equal(off.verify(signed).ok, true);
  assert.equal(lib.verify(signed, { keys: [k.publicJwk], hostCrypto: false }).ok, true);
  assert.equal(hostVerifies - before, 2, "no host verification with hostCrypto: false");
  // Checks the library makes before the primitive never reach the host.
  const short = withSignature(signed, fromB64u(JSON.parse(signed).signatures[0].signature).slice(1));
  assert.equal(on.verify(short).signatures[0].verdict.code, "signature-invalid");
  assert.equal(hostVerifies - before, 2, "a wrong-length signature is refused before the host is asked");
  assert.throws(() => lib.verify(signed, { keys: [k.publicJwk], hostCrypto: "no" }), /hostCrypto/);
});

test("verifyAsync makes its checks with node:crypto where it is there, not with WebCrypto", async (t) => {
  if (!lib.hostCryptoAvailable()) {
    t.diagnostic(`note: node ${process.version} has no process.getBuiltinModule; verifyAsync uses WebCrypto`);
    return;
  }
  const subtle = globalThis.crypto.subtle;
  const realVerify = subtle.verify;
  let webVerifies = 0;
  subtle.verify = function verify(...args) {
    webVerifies += 1;
    return realVerify.apply(subtle, args);
  };
  try {
    const k = keyPair("ES256", "k1");
    const signed = lib.sign(card, k.privateJwk, { unknown: "exclude", alg: "ES256" });
    const tampered = withSignature(signed, fromB64u(JSON.parse(signed).signatures[0].signature).map((b, i) => (i === 0 ? b ^ 1 : b)));
    const on = new lib.Verifier({ keys: [k.publicJwk] });
    assert.equal(on.webCrypto, false, "verifyAsync does not use WebCrypto beside node:crypto");
    assert.equal(new lib.Verifier({ keys: [k.publicJwk], hostCrypto: false }).webCrypto, false);
    for (const [text, ok] of [[signed, true], [tampered, false]]) {
      // A failed signature is checked under the other profiles too (the report's hint): verify
      // asks node:crypto as often as verifyAsync.
      let mark = hostVerifies;
      const promise = on.verifyAsync(text);
      assert.ok(promise instanceof Promise);
      const report = await promise;
      const asked = hostVerifies - mark;
      assert.ok(ok ? asked === 1 : asked > 1, `${asked} node:crypto checks`);
      assert.equal(report.ok, ok);
      mark = hostVerifies;
      assert.deepEqual(report, on.verify(text));
      assert.equal(hostVerifies - mark, asked, "verify asks node:crypto as often");
      mark = hostVerifies;
      assert.deepEqual(await lib.verifyAsync(text, { keys: [k.publicJwk] }), report);
      assert.equal(hostVerifies - mark, asked, "the function API too");
    }
    assert.equal(webVerifies, 0, "no WebCrypto verification");
    // Every error still rejects the promise, nothing is thrown.
    await assert.rejects(on.verifyAsync("[]"), { name: "A2ACardError", code: "type-mismatch" });
  } finally {
    subtle.verify = realVerify;
  }
});

test("every algorithm of the build is checked by the host, one key under several algorithms", (t) => {
  if (!lib.hostCryptoAvailable()) {
    t.diagnostic(`note: node ${process.version} has no process.getBuiltinModule; nothing to count`);
    return;
  }
  // One key per type, each used under every algorithm of its type, so that the host's handle of
  // a key (its crypto.verify arguments, made per algorithm) serves one algorithm after another.
  const keys = { EdDSA: keyPair("EdDSA", "k1"), ES256: keyPair("ES256", "k1"), ES384: keyPair("ES384", "k1"), RSA: keyPair("RS256", "k1") };
  const algs = lib.algorithms();
  assert.deepEqual(algs, ["EdDSA", "ES256", "ES384", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512"]);
  for (const round of [1, 2]) {
    for (const alg of algs) {
      const k = keys[alg] ?? keys.RSA;
      const signed = lib.sign(card, k.privateJwk, { unknown: "exclude", alg });
      const tampered = JSON.parse(signed);
      tampered.signatures[0].signature = tampered.signatures[0].signature.startsWith("A") ? `B${tampered.signatures[0].signature.slice(1)}` : `A${tampered.signatures[0].signature.slice(1)}`;
      const what = `${alg} (round ${round})`;
      // A signature that fails under the accepted profile (spec) is checked once more under each
      // other profile whose bytes differ, for the report's hint.
      const spec = lib.canonicalize(card, { unknown: "exclude" });
      const others = ["served-as-is", "prune-empty"].filter((profile) => lib.canonicalize(card, { profile }) !== spec).length;
      for (const [text, ok] of [[signed, true], [JSON.stringify(tampered), false]]) {
        const before = hostVerifies;
        const host = lib.verify(text, { keys: [k.publicJwk] });
        assert.equal(hostVerifies - before, ok ? 1 : 1 + others, `${what}: checked by the host`);
        assert.equal(host.ok, ok, `${what}: ${host.signatures[0].verdict.message}`);
        assert.equal(host.signatures[0].alg, alg);
        assert.deepEqual(host, lib.verify(text, { keys: [k.publicJwk], hostCrypto: false }), what);
      }
    }
  }
});

test("tampered signatures of every algorithm: the host backend and ring give the same reports", () => {
  const verdicts = new Set();
  const cases = tamperCases(lib, card);
  for (const { what, keys, text, ok } of cases) {
    const host = new lib.Verifier({ keys }).verify(text);
    const ring = new lib.Verifier({ keys, hostCrypto: false }).verify(text);
    assert.deepEqual(host, ring, what);
    assert.equal(host.ok, ok, `${what}: ${host.signatures[0].verdict.message}`);
    // The function API answers the same as the Verifier.
    assert.deepEqual(lib.verify(text, { keys }), host, what);
    verdicts.add(host.signatures[0].verdict.code);
  }
  assert.ok(cases.length > 400, `${cases.length} comparisons`);
  // Not one kind of answer only: valid, invalid, and refusals before the primitive.
  for (const code of ["valid", "signature-invalid", "key-algorithm-mismatch"]) {
    assert.ok(verdicts.has(code), `no ${code} verdict among ${[...verdicts]}`);
  }
});

test("every other suite passes with the host backend off (A2A_CARD_HOST_CRYPTO=0)", (t) => {
  if (runtime !== "node") {
    // The suites are run again by node --test here; scripts/test-runtimes.sh runs them under
    // Deno and Bun with A2A_CARD_HOST_CRYPTO=0 itself.
    t.diagnostic(`note: under ${runtime}, scripts/test-runtimes.sh runs the suites with the host backend off`);
    return;
  }
  const suites = fs
    .readdirSync(testDir)
    // Not this file, nor webcrypto.test.mjs: they test the crypto paths themselves, on and off.
    .filter((f) => f.endsWith(".test.mjs") && f !== path.basename(new URL(import.meta.url).pathname) && f !== "webcrypto.test.mjs")
    .sort();
  assert.ok(suites.includes("vectors.test.mjs") && suites.includes("api.test.mjs"), suites.join(" "));
  const out = spawnSync(process.execPath, ["--test", "--test-reporter=tap", ...suites], {
    cwd: testDir,
    // Without the runner's NODE_TEST_CONTEXT the child reports in TAP, not to this runner.
    env: { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== "NODE_TEST_CONTEXT")), A2A_CARD_HOST_CRYPTO: "0" },
    encoding: "utf8",
    maxBuffer: 64 << 20,
    timeout: 290_000, // under the runner's --test-timeout of 300 s (.ci/run, package.json)
  });
  if (out.error) throw out.error;
  const count = (name) => Number((out.stdout.match(new RegExp(`^# ${name} (\\d+)$`, "m")) ?? [])[1]);
  t.diagnostic(`with hostCrypto off: ${count("pass")} passed, ${count("skipped")} skipped, ${count("fail")} failed`);
  assert.equal(out.status, 0, out.stdout.slice(-4000) + out.stderr.slice(-2000));
  assert.equal(count("fail"), 0);
  assert.ok(count("pass") >= 20, `only ${count("pass")} tests passed`);
});
