// verifyAsync and Verifier#verifyAsync: the signature checks made by WebCrypto
// (crypto.subtle.verify, here Node's), everything else by the module's core. Where node:crypto
// is there verifyAsync uses it instead (hostcrypto.test.mjs), so this file hides it as browsers
// and workers lack it: process.getBuiltinModule is taken away before the package first asks for
// it (each test file runs in its own process); `verify` is then the module's own ring code.
// - WebCrypto is really used (its calls are counted), keys are imported once per algorithm, and
//   it is not used with hostCrypto: false or where there is no WebCrypto;
// - tampered signatures of every algorithm get byte-identical reports from WebCrypto, node:crypto
//   and the module's own ring code;
// - several signatures, candidate keys and profiles: the same report as verify;
// - a key or a check WebCrypto refuses is checked by the module; every error rejects the promise
//   (never a synchronous throw) with the code and pointer verify throws; the card is read at the
//   call.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { canonicalVectors, loadNode, loadWeb, pkgDir, sampleCard, vectorInputs } from "./helpers.mjs";
import { keyPair, tamperCases } from "./tamper.mjs";

// No node:crypto for the package in this process (the import above is the test's own).
if (typeof globalThis.process === "object" && globalThis.process !== null) {
  Object.defineProperty(globalThis.process, "getBuiltinModule", { value: undefined, configurable: true, writable: true });
}

const subtle = globalThis.crypto.subtle;
const calls = { verify: 0, importKey: 0 };
// Wrappers that count, and that a test may make fail (`fail.verify`, `fail.importKey(alg)`).
const fail = { verify: false, importKey: () => false };
const realVerify = subtle.verify;
const realImport = subtle.importKey;
subtle.verify = function verify(...args) {
  calls.verify += 1;
  if (fail.verify) return Promise.reject(new Error("the test made WebCrypto fail"));
  return realVerify.apply(subtle, args);
};
subtle.importKey = function importKey(format, key, algorithm, ...rest) {
  calls.importKey += 1;
  if (fail.importKey(algorithm)) return Promise.reject(new DOMException("not supported here", "NotSupportedError"));
  return realImport.call(subtle, format, key, algorithm, ...rest);
};

const lib = loadNode();
const card = sampleCard();
const json = (r) => JSON.stringify(r);

/** What a promise rejects with, failing when it fulfils. */
async function rejection(promise) {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  throw new Error("expected a rejection, the promise fulfilled");
}

test("verifyAsync checks signatures with WebCrypto, each key imported once per algorithm", async () => {
  assert.equal(lib.webCryptoAvailable(), true);
  assert.equal(lib.hostCryptoAvailable(), false, "node:crypto is hidden from the package here");
  const k = keyPair("ES256", "k1");
  const signed = lib.sign(card, k.privateJwk, { unknown: "exclude", alg: "ES256" });
  const v = new lib.Verifier({ keys: [k.publicJwk] });
  assert.equal(v.webCrypto, true);
  const before = { ...calls };
  for (let i = 0; i < 5; i++) assert.equal((await v.verifyAsync(signed)).ok, true);
  assert.equal((await lib.verifyAsync(signed, { keys: [k.publicJwk] })).ok, true);
  assert.equal(calls.verify - before.verify, 6, "one WebCrypto verification per call");
  assert.equal(calls.importKey - before.importKey, 1, "the key is imported once");
  // The same key under another algorithm of its type is imported again, once.
  const rsa = keyPair("RS256", "r1");
  const r = new lib.Verifier({ keys: [rsa.publicJwk] });
  for (const alg of ["RS256", "PS256", "RS256", "PS256"]) {
    assert.equal((await r.verifyAsync(lib.sign(card, rsa.privateJwk, { unknown: "exclude", alg }))).ok, true, alg);
  }
  assert.equal(calls.importKey - before.importKey, 3, "one import per key and algorithm");
  // Checks the library makes before the primitive never reach WebCrypto.
  const short = JSON.parse(signed);
  short.signatures[0].signature = short.signatures[0].signature.slice(4);
  const mark = calls.verify;
  assert.equal((await v.verifyAsync(JSON.stringify(short))).signatures[0].verdict.code, "signature-invalid");
  assert.equal(calls.verify, mark, "a wrong-length signature is refused before WebCrypto is asked");
  // hostCrypto: false: the module's own code, no WebCrypto.
  const off = new lib.Verifier({ keys: [k.publicJwk], hostCrypto: false });
  assert.equal(off.webCrypto, false);
  assert.equal((await off.verifyAsync(signed)).ok, true);
  assert.equal((await lib.verifyAsync(signed, { keys: [k.publicJwk], hostCrypto: false })).ok, true);
  assert.equal(calls.verify, mark, "no WebCrypto with hostCrypto: false");
});

test("tampered signatures of every algorithm: WebCrypto and ring give byte-identical reports", async () => {
  const cases = tamperCases(lib, card);
  const before = calls.verify;
  const verdicts = new Set();
  for (const { what, keys, text, ok } of cases) {
    const web = await new lib.Verifier({ keys }).verifyAsync(text);
    const ring = new lib.Verifier({ keys, hostCrypto: false }).verify(text);
    assert.equal(json(web), json(ring), what);
    assert.equal(web.ok, ok, `${what}: ${web.signatures[0].verdict.message}`);
    assert.equal(json(await lib.verifyAsync(text, { keys })), json(web), `${what}: function API`);
    verdicts.add(web.signatures[0].verdict.code);
  }
  assert.ok(cases.length > 400, `${cases.length} cases`);
  assert.ok(calls.verify - before > 300, `WebCrypto made only ${calls.verify - before} checks`);
  for (const code of ["valid", "signature-invalid", "key-algorithm-mismatch"]) {
    assert.ok(verdicts.has(code), `no ${code} verdict among ${[...verdicts]}`);
  }
});

test("several signatures, candidate keys and profiles: verifyAsync gives verify's report", async () => {
  // Two keys share a kid (two candidates); signatures over spec and prune-empty bytes; a card
  // whose description is empty, so that the two profiles differ.
  const base = JSON.stringify({ name: "Multi", description: "", version: "1", skills: [] });
  const a = keyPair("ES256", "shared");
  const b = keyPair("EdDSA", "shared");
  const c = keyPair("ES384", "c");
  let signed = lib.sign(base, b.privateJwk, { alsoProfiles: ["prune-empty"] });
  signed = lib.sign(signed, a.privateJwk, { profile: "prune-empty", append: true });
  signed = lib.sign(signed, c.privateJwk);
  const tampered = JSON.parse(signed);
  tampered.signatures[2].signature = `A${tampered.signatures[2].signature.slice(1)}`;
  const cards = [signed, JSON.stringify(tampered)];
  const trusts = [
    { keys: [a.publicJwk, b.publicJwk, c.publicJwk] },
    { keys: [b.publicJwk, a.publicJwk] },
    { trust: { keys: [{ jwk: a.publicJwk, revoked: true }, { jwk: b.publicJwk }, { jwk: c.publicJwk, notAfter: 10 }] } },
  ];
  let n = 0;
  for (const text of cards) {
    for (const trust of trusts) {
      for (const extra of [{}, { profile: "auto" }, { profiles: ["prune-empty", "spec"] }, { mode: "all" }, { maxSignatureChecks: 2 }]) {
        const options = { ...trust, ...extra, now: 100 };
        const sync = lib.verify(text, { ...options, hostCrypto: false });
        assert.equal(json(await lib.verifyAsync(text, options)), json(sync), JSON.stringify(extra));
        assert.equal(json(lib.verify(text, options)), json(sync));
        n += 1;
      }
    }
  }
  assert.equal(n, 30);
});

test("every canonical vector: verifyAsync answers or rejects as verify does", async () => {
  const k = keyPair("EdDSA", "k1");
  let n = 0;
  for (const { v } of canonicalVectors()) {
    for (const [form, input] of vectorInputs(v)) {
      const options = { keys: [k.publicJwk], profile: v.profile, unknown: v.unknown, maxDepth: v.limits?.max_depth, maxInputBytes: v.limits?.max_input_bytes, mode: "if-present" };
      let sync;
      try {
        sync = { report: json(lib.verify(input, options)) };
      } catch (e) {
        sync = { code: e.code, pointer: e.pointer, message: e.message };
      }
      let later;
      try {
        later = { report: json(await lib.verifyAsync(input, options)) };
      } catch (e) {
        assert.equal(e.name, "A2ACardError", `${v.id}: ${e}`);
        later = { code: e.code, pointer: e.pointer, message: e.message };
      }
      assert.deepEqual(later, sync, `${v.id} (${form})`);
      n += 1;
    }
  }
  assert.ok(n > 100, `${n} inputs`);
});

test("every error rejects the promise, with verify's code and pointer; nothing is thrown", async () => {
  const k = keyPair("ES256", "k1");
  const signed = lib.sign(card, k.privateJwk, { unknown: "exclude" });
  const bad = [
    [signed, { keys: [k.publicJwk], bogus: 1 }, "usage", null],
    [signed, {}, "usage", null],
    [signed, { keys: [k.publicJwk], mode: "sometimes" }, "usage", null],
    ['{"name":"a","name":"b"}', { keys: [k.publicJwk] }, "duplicate-member", "/name"],
    ["[]", { keys: [k.publicJwk] }, "type-mismatch", ""],
    [undefined, { keys: [k.publicJwk] }, "usage", null],
    [signed, { keys: ["not a key"] }, "invalid-key", null],
  ];
  for (const [input, options, code, pointer] of bad) {
    let promise;
    assert.doesNotThrow(() => {
      promise = lib.verifyAsync(input, options);
    });
    const e = await rejection(promise);
    assert.equal(e.name, "A2ACardError");
    assert.equal(e.code, code, e.message);
    if (pointer !== null) assert.equal(e.pointer, pointer);
    const sync = (() => {
      try {
        lib.verify(input, options);
      } catch (err) {
        return err;
      }
      return null;
    })();
    assert.equal(e.message, sync.message.replace("of verify ", "of verifyAsync "));
  }
  const v = new lib.Verifier({ keys: [k.publicJwk] });
  const e = await rejection(v.verifyAsync(signed, { now: "soon" }));
  assert.equal(e.code, "usage");
  assert.match(e.message, /now/);
});

test("the card is read when verifyAsync is called; now and origin apply per call", async () => {
  const k = keyPair("ES256", "k1");
  const bytes = new TextEncoder().encode(lib.sign(card, k.privateJwk, { unknown: "exclude" }));
  const promise = lib.verifyAsync(bytes, { keys: [k.publicJwk] });
  bytes.fill(0x20);
  assert.equal((await promise).ok, true);
  const v = new lib.Verifier({ trust: { keys: [{ jwk: k.publicJwk, notAfter: 1000, origins: ["https://a.example"] }] } });
  const text = new TextDecoder().decode(new TextEncoder().encode(lib.sign(card, k.privateJwk, { unknown: "exclude" })));
  const early = await v.verifyAsync(text, { now: 999, origin: "https://a.example" });
  assert.equal(early.ok, true);
  const late = await v.verifyAsync(text, { now: 1001, origin: "https://a.example" });
  assert.equal(late.signatures[0].verdict.code, "key-expired");
  const elsewhere = await v.verifyAsync(text, { now: 999, origin: "https://b.example" });
  assert.equal(elsewhere.signatures[0].verdict.code, "untrusted-key");
  assert.equal(json(late), json(v.verify(text, { now: 1001, origin: "https://a.example" })));
});

test("a key or a check WebCrypto refuses is checked by the module, with the same report", async () => {
  const k = keyPair("EdDSA", "k1");
  const signed = lib.sign(card, k.privateJwk, { unknown: "exclude" });
  const tampered = JSON.parse(signed);
  tampered.signatures[0].signature = `A${tampered.signatures[0].signature.slice(1)}`;
  const ring = (text) => json(lib.verify(text, { keys: [k.publicJwk], hostCrypto: false }));
  fail.importKey = (algorithm) => algorithm.name === "Ed25519";
  try {
    const v = new lib.Verifier({ keys: [k.publicJwk] });
    for (const text of [signed, JSON.stringify(tampered), signed]) {
      assert.equal(json(await v.verifyAsync(text)), ring(text));
    }
  } finally {
    fail.importKey = () => false;
  }
  const e = keyPair("ES384", "k2");
  const signedE = lib.sign(card, e.privateJwk, { unknown: "exclude" });
  fail.verify = true;
  try {
    const before = calls.verify;
    assert.equal(json(await lib.verifyAsync(signedE, { keys: [e.publicJwk] })), json(lib.verify(signedE, { keys: [e.publicJwk], hostCrypto: false })));
    assert.equal(calls.verify - before, 1, "WebCrypto was asked, and failed");
  } finally {
    fail.verify = false;
  }
});

test("the web build: verifyAsync there too", async () => {
  const web = await loadWeb();
  const k = keyPair("ES256", "k1");
  const signed = web.sign(card, k.privateJwk, { unknown: "exclude" });
  const before = calls.verify;
  const report = await web.verifyAsync(signed, { keys: [k.publicJwk] });
  assert.equal(report.ok, true);
  assert.equal(calls.verify - before, 1);
  assert.equal(json(report), json(lib.verify(signed, { keys: [k.publicJwk] })));
});

test("where there is neither WebCrypto nor node:crypto, verifyAsync is the module's own code", () => {
  // A fresh process whose globalThis has no crypto when the package is loaded (the key and the
  // card are made here: without crypto there may be no random numbers either).
  const k = lib.generateKey("ES256");
  const signed = lib.sign(card, k.privateJwk, { unknown: "exclude" });
  const script = `
    Object.defineProperty(globalThis, "crypto", { value: undefined, configurable: true });
    Object.defineProperty(process, "getBuiltinModule", { value: undefined, configurable: true });
    const lib = require(${JSON.stringify(pkgDir)});
    const signed = ${JSON.stringify(signed)};
    const v = new lib.Verifier({ jwks: ${JSON.stringify(JSON.stringify(k.jwks))} });
    v.verifyAsync(signed).then((r) => {
      const same = JSON.stringify(r) === JSON.stringify(v.verify(signed));
      console.log(JSON.stringify({ available: lib.webCryptoAvailable(), web: v.webCrypto, ok: r.ok, same }));
    });`;
  const out = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 60_000 });
  assert.equal(out.status, 0, out.stderr);
  assert.deepEqual(JSON.parse(out.stdout), { available: false, web: false, ok: true, same: true });
});
