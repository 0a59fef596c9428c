// The JavaScript surface: inputs (text, bytes, objects), options, errors as Error objects with
// code and pointer, the trust options, the clock, inspect, the Verifier class, what the wasm
// build leaves out (ES512, ES256K, Ed448), and the web build answering like the Node build.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { test } from "node:test";
import { generateKeyPair, loadNode, loadWeb, sampleCard, thrown } from "./helpers.mjs";

const lib = loadNode();

const CARD = '{"name":"A","description":"d","version":"1","skills":[],"x-vendor":{"a":1}}';
// A card whose three canonical forms differ: spec keeps the REQUIRED "" and [], prune-empty
// drops them, served-as-is also keeps the unknown member.
const EMPTIES = '{"name":"A","description":"","version":"1","skills":[],"x-vendor":1}';

function p256() {
  const { privateKey, publicKey } = generateKeyPair("ec", { namedCurve: "P-256" });
  return {
    privateJwk: { ...privateKey.export({ format: "jwk" }), kid: "k1" },
    publicJwk: { ...publicKey.export({ format: "jwk" }), kid: "k1" },
    privatePem: privateKey.export({ format: "pem", type: "pkcs8" }),
    publicPem: publicKey.export({ format: "pem", type: "spki" }),
  };
}

test("errors are Error objects with code, pointer and offset", () => {
  const e = thrown(() => lib.canonicalize('{"name":"a","name":"b"}'));
  assert.ok(e instanceof Error);
  assert.equal(e.name, "A2ACardError");
  assert.equal(e.code, "duplicate-member");
  assert.equal(e.pointer, "/name");
  assert.match(e.message, /\/name/);
  const syntax = thrown(() => lib.canonicalize("{"));
  assert.equal(syntax.code, "invalid-json");
  assert.equal(typeof syntax.offset, "number");
  const t = thrown(() => lib.canonicalize('{"skills":{}}'));
  assert.equal(t.code, "type-mismatch");
  assert.equal(t.pointer, "/skills");
});

test("a card as text, bytes, ArrayBuffer or object gives the same bytes", () => {
  const want = lib.canonicalize(CARD);
  assert.equal(want, '{"description":"d","name":"A","skills":[],"version":"1"}');
  const bytes = new TextEncoder().encode(CARD);
  assert.equal(lib.canonicalize(bytes), want);
  assert.equal(lib.canonicalize(Buffer.from(CARD)), want);
  assert.equal(lib.canonicalize(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)), want);
  assert.equal(lib.canonicalize(JSON.parse(CARD)), want);
  assert.equal(lib.canonicalize(CARD, { unknown: "retain" }), '{"description":"d","name":"A","skills":[],"version":"1","x-vendor":{"a":1}}');
  assert.equal(thrown(() => lib.canonicalize(CARD, { unknown: "reject" })).pointer, "/x-vendor");
  const r = lib.canonicalizeWithReport(CARD);
  assert.deepEqual(r.unsigned, ["/x-vendor"]);
  assert.equal(r.profile, "spec");
  assert.equal(r.bytes, Buffer.byteLength(want));
  assert.equal(r.sha256, crypto.createHash("sha256").update(want).digest("hex"));
});

test("a string with a lone surrogate is refused where it is, not repaired", () => {
  const e = thrown(() => lib.canonicalize('{"name":"a\uD800b","description":""}'));
  assert.equal(e.code, "invalid-json");
  assert.equal(e.pointer, "/name");
  // Through an object, JSON.stringify escapes it; the escape is refused the same way.
  const o = thrown(() => lib.canonicalize({ description: "x\uDC00" }));
  assert.equal(o.code, "invalid-json");
  assert.equal(o.pointer, "/description");
  // Non-BMP text is fine, and sorts by UTF-16 code units.
  assert.equal(lib.canonicalize({ name: "\u{1F600}" }, { profile: "served-as-is" }), '{"name":"\u{1F600}"}');
});

test("options are checked: misspelt names, wrong types and values are usage errors", () => {
  for (const [fn, why] of [
    [() => lib.canonicalize(CARD, { profil: "spec" }), /unknown option "profil"/],
    [() => lib.canonicalize(CARD, { profile: "auto" }), /profile "auto"/],
    [() => lib.canonicalize(CARD, { unknown: 1 }), /must be a string/],
    [() => lib.canonicalize(CARD, { maxDepth: -1 }), /non-negative integer/],
    [() => lib.canonicalize(CARD, "spec"), /must be an object/],
    [() => lib.canonicalize(undefined), /no card/],
    [() => lib.canonicalize(() => 1), /JSON-serializable/],
    [() => lib.verify(CARD, {}), /no trust roots/],
    [() => lib.verify(CARD, { keys: [], mode: "require" }), /hold no signature key/],
    [() => lib.verify(CARD, { keys: [p256().publicJwk], profile: "spec", profiles: ["spec"] }), /not both/],
    [() => lib.verify(CARD, { keys: [p256().publicJwk], mode: "any" }), /mode "any"/],
    [() => lib.sign(CARD, undefined, { unknown: "exclude" }), /no key/],
  ]) {
    const e = thrown(fn);
    assert.equal(e.code, "usage", `${e.message}`);
    assert.match(e.message, why);
  }
  assert.equal(thrown(() => lib.verify(CARD, { keys: [p256().publicJwk], algorithms: ["none"] })).code, "unknown-algorithm");
  assert.equal(thrown(() => lib.canonicalize(CARD, { maxInputBytes: 10 })).code, "input-too-large");
});

test("sign and verify: keys as JWK objects, JWK text, PEM; every trust option; modes", () => {
  const k = p256();
  const signed = lib.sign(CARD, k.privateJwk, { unknown: "exclude" });
  assert.ok(signed.startsWith('{"name":"A","description":"d","version":"1","skills":[],"x-vendor":{"a":1},"signatures":[{"protected":"'));
  for (const options of [
    { keys: k.publicJwk },
    { keys: [JSON.stringify(k.publicJwk)] },
    { keys: [k.privateJwk] }, // a private key yields its public half
    { jwks: { keys: [k.publicJwk] } },
    { jwks: JSON.stringify({ keys: [k.publicJwk] }) },
    { trust: { keys: [{ jwk: k.publicJwk, algorithms: ["ES256"] }] } },
  ]) {
    const r = lib.verify(signed, options);
    assert.equal(r.ok, true, JSON.stringify(Object.keys(options)));
    assert.deepEqual(Object.keys(r), ["ok", "mode", "reason", "profile", "canonical_sha256", "canonical", "unsigned", "signatures"]);
    assert.equal(r.canonical, lib.canonicalize(CARD));
    assert.deepEqual(r.unsigned, ["/x-vendor"]);
    assert.equal(r.signatures[0].kid, "k1");
    assert.equal(r.signatures[0].alg, "ES256");
    assert.equal(r.signatures[0].verdict.code, "valid");
    assert.equal(r.signatures[0].key.thumbprint.length, 43);
  }
  // A PEM key has no kid: it signs and is found under its RFC 7638 thumbprint, and the kid
  // "k1" of the JWK-signed card does not select it.
  const byPem = lib.verify(lib.sign(CARD, k.privatePem, { unknown: "exclude" }), { keys: [k.publicPem] });
  assert.equal(byPem.ok, true);
  assert.equal(byPem.signatures[0].kid, byPem.signatures[0].key.thumbprint);
  assert.equal(lib.verify(signed, { keys: [k.publicPem] }).signatures[0].verdict.code, "untrusted-key");
  // Algorithm policy.
  const es384only = lib.verify(signed, { keys: k.publicJwk, algorithms: ["ES384"] });
  assert.equal(es384only.ok, false);
  assert.equal(es384only.signatures[0].verdict.code, "algorithm-not-allowed");
  // Modes on an unsigned card.
  assert.equal(lib.verify(CARD, { keys: k.publicJwk }).ok, false);
  assert.equal(lib.verify(CARD, { keys: k.publicJwk, mode: "if-present" }).ok, true);
  // A second signature by an unknown key: require passes, all does not.
  const other = p256();
  const twice = lib.sign(signed, { ...other.privateJwk, kid: "k2" }, { unknown: "exclude" });
  assert.equal(lib.verify(twice, { keys: k.publicJwk }).ok, true);
  const all = lib.verify(twice, { keys: k.publicJwk, mode: "all" });
  assert.equal(all.ok, false);
  assert.equal(all.signatures[1].verdict.code, "untrusted-key");
  // replace: the same kid is replaced, not added.
  const again = JSON.parse(lib.sign(signed, k.privateJwk, { unknown: "exclude", replace: true }));
  assert.equal(again.signatures.length, 1);
  // The same kid again without replace or append is refused, naming the kid and the entry, the
  // options spelled as this package spells them; append keeps both; both together is a usage error.
  const same = thrown(() => lib.sign(twice, k.privateJwk, { unknown: "exclude" }));
  assert.equal(same.code, "kid-already-signed");
  assert.equal(same.pointer, "/signatures/0");
  assert.match(same.message, /a signature with kid "k1" \(\/signatures\/0\)/);
  assert.match(same.message, /ask for "replace" to replace it, or "append" to keep it/);
  const appended = JSON.parse(lib.sign(twice, k.privateJwk, { unknown: "exclude", append: true }));
  assert.equal(appended.signatures.length, 3);
  const conflict = thrown(() => lib.sign(twice, k.privateJwk, { unknown: "exclude", replace: true, append: true }));
  assert.equal(conflict.code, "usage");
  assert.match(conflict.message, /^"replace" and "append" cannot be given together/);
  assert.equal(thrown(() => lib.sign(CARD, k.privateJwk, { unknown: "exclude", append: "yes" })).code, "usage");
  // maxSignatures bounds the work before any check.
  assert.equal(thrown(() => lib.verify(twice, { keys: k.publicJwk, maxSignatures: 1 })).code, "too-many-signatures");
});

test("sign options: alg, kid, jku, header, protectedHeader, profile, alsoProfiles", () => {
  const k = p256();
  const signed = JSON.parse(
    lib.sign(EMPTIES, k.privateJwk, {
      unknown: "exclude",
      alg: "ES256",
      kid: "release-7",
      jku: "https://agent.example/jwks.json",
      header: { "x-note": "seven" },
      protectedHeader: { "x-build": 7 },
      alsoProfiles: ["prune-empty"],
    }),
  );
  assert.equal(signed.signatures.length, 2);
  const h = JSON.parse(Buffer.from(signed.signatures[0].protected, "base64url"));
  assert.equal(h.kid, "release-7");
  assert.equal(h.jku, "https://agent.example/jwks.json");
  assert.equal(h["x-build"], 7);
  assert.deepEqual(signed.signatures[0].header, { "x-note": "seven" });
  const keys = [{ ...k.publicJwk, kid: "release-7" }];
  const spec = lib.verify(signed, { keys, mode: "require" });
  assert.equal(spec.ok, true);
  // The second signature declares prune-empty, which a spec-only policy does not accept.
  assert.deepEqual(spec.signatures.map((s) => s.verdict.code), ["valid", "profile-not-accepted"]);
  assert.match(spec.signatures[1].verdict.message, /^made over the prune-empty bytes/);
  const both = lib.verify(signed, { keys, profile: "auto", mode: "all" });
  assert.equal(both.ok, true);
  assert.deepEqual(both.signatures.map((s) => s.profile), ["spec", "prune-empty"]);
  // Without the declaration, the header is what other signers write.
  const quiet = JSON.parse(lib.sign(CARD, k.privateJwk, { unknown: "exclude", kid: "release-7", declare: false }));
  const qh = JSON.parse(Buffer.from(quiet.signatures[0].protected, "base64url"));
  assert.deepEqual(Object.keys(qh).sort(), ["alg", "kid", "typ"]);
  assert.equal(lib.verify(quiet, { keys }).ok, true);
  const noDeclare = thrown(() => lib.sign(CARD, k.privateJwk, { unknown: "exclude", alsoProfiles: ["prune-empty"], declare: false }));
  assert.equal(noDeclare.code, "usage");
  assert.match(noDeclare.message, /^"alsoProfiles" cannot be given with "declare" off/);
  assert.equal(thrown(() => lib.sign(CARD, k.privateJwk, { unknown: "exclude", declare: "no" })).code, "usage");
  assert.equal(thrown(() => lib.sign(CARD, k.privateJwk, { unknown: "exclude", alg: "ES384" })).code, "key-algorithm-mismatch");
  assert.equal(thrown(() => lib.sign(CARD, k.privateJwk, { unknown: "exclude", kid: "" })).code, "usage");
  assert.equal(thrown(() => lib.sign(CARD, "not a key", { unknown: "exclude" })).code, "invalid-key");
});

test("trust windows use the caller's clock (now), else the host's", () => {
  const k = p256();
  const signed = lib.sign(CARD, k.privateJwk, { unknown: "exclude" });
  const trust = { keys: [{ jwk: k.publicJwk, notBefore: "2030-01-01T00:00:00Z" }] };
  const today = lib.verify(signed, { trust });
  assert.equal(today.ok, false);
  assert.equal(today.signatures[0].verdict.code, "key-expired");
  const later = lib.verify(signed, { trust, now: Date.UTC(2031, 0, 1) / 1000 });
  assert.equal(later.ok, true);
  const revoked = lib.verify(signed, { trust: { keys: [{ jwk: k.publicJwk, revoked: true }] } });
  assert.equal(revoked.signatures[0].verdict.code, "key-revoked");
  const bound = { keys: [{ jwk: k.publicJwk, origins: ["https://agent.example"] }] };
  assert.equal(lib.verify(signed, { trust: bound }).ok, false);
  assert.equal(lib.verify(signed, { trust: bound, origin: "https://agent.example" }).ok, true);
});

test("Verifier reads its trust once and verifies many cards", () => {
  const k = p256();
  const v = new lib.Verifier({ jwks: { keys: [k.publicJwk] }, profile: "auto" });
  const forms = new Set(["spec", "prune-empty", "served-as-is"].map((profile) => lib.canonicalize(EMPTIES, { profile })));
  assert.equal(forms.size, 3);
  for (const profile of ["spec", "prune-empty", "served-as-is"]) {
    const r = v.verify(lib.sign(EMPTIES, k.privateJwk, { unknown: "exclude", profile }));
    assert.equal(r.ok, true);
    assert.equal(r.profile, profile);
  }
  assert.equal(v.verify(CARD).ok, false);
  const windowed = new lib.Verifier({ trust: { keys: [{ jwk: k.publicJwk, notAfter: 1000 }] } });
  const signed = lib.sign(CARD, k.privateJwk, { unknown: "exclude" });
  assert.equal(windowed.verify(signed).signatures[0].verdict.code, "key-expired");
  assert.equal(windowed.verify(signed, { now: 999 }).ok, true);
  assert.equal(thrown(() => windowed.verify(signed, { when: 1 })).code, "usage");
  assert.equal(thrown(() => new lib.Verifier({})).code, "usage");
  v.free();
  windowed.free();
});

test("reports: members in the library's order, also when a text holds a NUL", () => {
  // The report's small members cross from the module as NUL-separated fields, or as JSON when
  // a text holds a NUL itself; both give the object of the library's JSON form.
  const k = p256();
  const reports = ["kx", "k\u0000x"].map((kid) => {
    const c = JSON.parse(lib.sign(CARD, { ...k.privateJwk, kid }, { unknown: "exclude" }));
    c.signatures.push({ protected: "!!", signature: "AA" });
    return lib.verify(JSON.stringify(c), { keys: [{ ...k.publicJwk, kid }], mode: "all" });
  });
  for (const [r, kid] of [[reports[0], "kx"], [reports[1], "k\u0000x"]]) {
    assert.deepEqual(Object.keys(r), ["ok", "mode", "reason", "profile", "canonical_sha256", "canonical", "unsigned", "signatures"]);
    assert.equal(r.ok, false);
    assert.equal(r.mode, "all");
    assert.equal(r.canonical_sha256, crypto.createHash("sha256").update(r.canonical).digest("hex"));
    assert.deepEqual(r.unsigned, ["/x-vendor"]);
    const [good, bad] = r.signatures;
    assert.deepEqual(Object.keys(good), ["index", "kid", "alg", "jku", "key", "profile", "verdict"]);
    assert.deepEqual(good.key, { kid, thumbprint: good.key.thumbprint, source: "keys[0]" });
    assert.deepEqual(Object.keys(good.key), ["kid", "thumbprint", "source"]);
    assert.equal(good.kid, kid);
    assert.deepEqual(good.verdict, { code: "valid", message: "the signature verifies with a trusted key" });
    assert.deepEqual(bad, {
      index: 1, kid: null, alg: null, jku: null, key: null, profile: null,
      verdict: { code: "invalid-base64url", message: bad.verdict.message, pointer: "/signatures/1/protected" },
    });
    assert.deepEqual(Object.keys(bad.verdict), ["code", "message", "pointer"]);
  }
  const { kid: _a, key: keyA, ...restA } = reports[0].signatures[0];
  const { kid: _b, key: keyB, ...restB } = reports[1].signatures[0];
  assert.deepEqual(restA, restB);
  assert.equal(keyA.thumbprint, keyB.thumbprint);
});

test("verify() called again with other option values answers for those values", () => {
  // verify() keeps the policy read from options whose values are all primitives and reuses it
  // for a call with the same names and the same values (===); any other value is read anew,
  // and so is an object or array value, which may have changed in place.
  const k = p256();
  const other = p256(); // same kid "k1", another key
  const signed = lib.sign(EMPTIES, k.privateJwk, { unknown: "exclude", profile: "prune-empty" });
  const jwks = JSON.stringify({ keys: [k.publicJwk] });
  const otherJwks = JSON.stringify({ keys: [other.publicJwk] });
  const code = (r) => r.signatures[0]?.verdict.code;
  for (let round = 0; round < 2; round++) {
    assert.equal(lib.verify(signed, { jwks, profile: "prune-empty" }).ok, true);
    assert.equal(code(lib.verify(signed, { jwks: otherJwks, profile: "prune-empty" })), "signature-invalid");
    assert.equal(lib.verify(signed, { jwks, profile: "prune-empty" }).ok, true);
    // Same jwks, another profile (the spec form of EMPTIES differs).
    assert.equal(code(lib.verify(signed, { jwks, profile: "spec" })), "profile-not-accepted");
    assert.equal(lib.verify(signed, { jwks, profile: "auto" }).profile, "prune-empty");
    // Same values, another order of names, and one more option.
    assert.equal(lib.verify(signed, { profile: "prune-empty", jwks }).ok, true);
    assert.equal(code(lib.verify(signed, { jwks, profile: "prune-empty", algorithms: ["EdDSA"] })), "algorithm-not-allowed");
    assert.equal(lib.verify(signed, { jwks, profile: "prune-empty", mode: "all" }).mode, "all");
    // A key with a validity window, and the clock given or not.
    const trust = JSON.stringify({ keys: [{ jwk: k.publicJwk, notAfter: 1000 }] });
    assert.equal(lib.verify(signed, { trust, profile: "prune-empty", now: 999 }).ok, true);
    assert.equal(code(lib.verify(signed, { trust, profile: "prune-empty", now: 1001 })), "key-expired");
    assert.equal(code(lib.verify(signed, { trust, profile: "prune-empty" })), "key-expired");
    // Objects changed in place between calls.
    const options = { keys: [k.publicJwk], profile: "prune-empty" };
    assert.equal(lib.verify(signed, options).ok, true);
    options.keys[0] = other.publicJwk;
    assert.equal(code(lib.verify(signed, options)), "signature-invalid");
    const set = { keys: [k.publicJwk] };
    assert.equal(lib.verify(signed, { jwks: set, profile: "prune-empty" }).ok, true);
    set.keys[0] = other.publicJwk;
    assert.equal(code(lib.verify(signed, { jwks: set, profile: "prune-empty" })), "signature-invalid");
    // A failed read keeps nothing: the next call with good options answers.
    assert.equal(thrown(() => lib.verify(signed, { jwks: "{", profile: "prune-empty" })).code, "invalid-json");
    assert.equal(lib.verify(signed, { jwks, profile: "prune-empty" }).ok, true);
  }
});

test("inspect decodes headers and trusts nothing", () => {
  const k = p256();
  const signed = lib.sign(sampleCard(), k.privateJwk, { unknown: "exclude", jku: "https://a.example/jwks.json" });
  const i = lib.inspect(signed);
  assert.equal(i.profile, "spec");
  assert.deepEqual(i.unsigned, ["/capabilities/stateTransitionHistory", "/security"]);
  assert.equal(i.canonical_bytes, Buffer.byteLength(lib.canonicalize(signed)));
  assert.equal(i.signatures.length, 1);
  assert.equal(i.signatures[0].alg, "ES256");
  assert.equal(i.signatures[0].kid, "k1");
  assert.equal(i.signatures[0].typ, "JOSE");
  assert.equal(i.signatures[0].jku, "https://a.example/jwks.json");
  assert.equal(i.signatures[0].signature_bytes, 64);
  assert.equal(i.signatures[0].problem, null);
  assert.equal(lib.inspect(signed, { profile: "prune-empty" }).profile, "prune-empty");
});

test("the wasm build has no ES512, ES256K or Ed448, and says so", () => {
  assert.deepEqual(lib.algorithms(), ["EdDSA", "ES256", "ES384", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512"]);
  const p521 = generateKeyPair("ec", { namedCurve: "P-521" }).privateKey.export({ format: "jwk" });
  const e = thrown(() => lib.sign(CARD, p521, { unknown: "exclude" }));
  assert.ok(["unknown-algorithm", "invalid-key", "key-algorithm-mismatch"].includes(e.code), `${e.code}: ${e.message}`);
  // An Ed448 key from the runtime's own crypto (Bun's, on BoringSSL, makes none: then a JWK of
  // the right shape, which the module refuses the same way).
  let ed448;
  try {
    ed448 = generateKeyPair("ed448").privateKey.export({ format: "jwk" });
  } catch {
    ed448 = { kty: "OKP", crv: "Ed448", x: "A".repeat(76), d: "A".repeat(76) };
  }
  assert.ok(thrown(() => lib.sign(CARD, ed448, { unknown: "exclude" })).code);
});

test("the web build answers like the Node build", async () => {
  const web = await loadWeb();
  const k = p256();
  const card = sampleCard();
  for (const profile of ["spec", "prune-empty", "served-as-is"]) {
    assert.equal(web.canonicalize(card, { profile }), lib.canonicalize(card, { profile }));
  }
  const signedWeb = web.sign(card, k.privateJwk, { unknown: "exclude" });
  const signedNode = lib.sign(card, k.privateJwk, { unknown: "exclude" });
  assert.equal(lib.verify(signedWeb, { keys: k.publicJwk }).ok, true);
  assert.equal(web.verify(signedNode, { keys: k.publicJwk }).ok, true);
  const a = web.verify(signedNode, { keys: k.publicJwk });
  const b = lib.verify(signedNode, { keys: k.publicJwk });
  assert.deepEqual(a, b);
  assert.deepEqual(web.inspect(signedNode), lib.inspect(signedNode));
  const e = thrown(() => web.canonicalize('{"a":1,"a":2}'));
  assert.equal(e.code, "duplicate-member");
  assert.equal(e.pointer, "/a");
});

test("options objects: plain, null-prototype and class instances are read alike", () => {
  const k = p256();
  const signed = lib.sign(CARD, k.privateJwk, { unknown: "exclude" });
  const plain = lib.verify(signed, { keys: [k.publicJwk], profile: "spec" });
  assert.equal(plain.ok, true);
  const bare = Object.assign(Object.create(null), { keys: [k.publicJwk], profile: "spec" });
  assert.deepEqual(lib.verify(signed, bare), plain);
  class Options {
    get keys() {
      return [k.publicJwk];
    }
  }
  // A getter on the prototype is read, and its name checked as an own member's is.
  assert.deepEqual(lib.verify(signed, new Options()), plain);
  assert.match(thrown(() => lib.verify(signed, Object.assign(Object.create(null), { key: [k.publicJwk] }))).message, /unknown option "key"/);
  // An own member whose value is undefined counts as absent.
  assert.deepEqual(lib.verify(signed, { keys: [k.publicJwk], profile: undefined }), plain);
});
