// Trust-store policy and weak trusted keys in the npm package (issue 25, round three):
// - an entry's policy (revoked, notAfter, origins) binds its key when the key arrives as the leaf
//   of an x5c chain to a trust anchor (testvectors/x5c/): the anchor never lifts it;
// - policy written on a bare JWK of a trust store (instead of beside it, in an entry) is refused
//   with the code invalid-trust-store and the member's pointer, never ignored;
// - a small-order Ed25519 point as a trusted key is refused as weak-key, so the signature that
//   verifies under it for every card (R = identity, S = 0) is never VALID.
// Through verify, Verifier and verifyAsync of the Node and web builds.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { test } from "node:test";
import { loadNode, loadWeb, thrown, x5cFile } from "./helpers.mjs";

const SPIFFE = "spiffe://example.org/ns/agents/sa/travel";
const ORIGIN = "https://agent.example.com";
// 2030-03-17: inside the vectors' chain validity (2026-12-01 to 2036-11-28).
const NOW = 1900000000;

/** The public JWK of the vectors' leaf certificate key (the key that signed sample-8.5-x5c.json). */
function leafJwk() {
  return crypto.createPublicKey(x5cFile("leaf.key.pem")).export({ format: "jwk" });
}

function options(trust) {
  return { trust, trustAnchors: x5cFile("root.pem"), identity: SPIFFE, now: NOW, origin: ORIGIN };
}

/** The reports of verify, Verifier (constructed once, now and origin per call) and verifyAsync. */
async function reports(lib, card, opts) {
  const { now, origin, ...rest } = opts;
  const verifier = new lib.Verifier(rest);
  try {
    return [
      ["verify", lib.verify(card, opts)],
      ["Verifier.verify", verifier.verify(card, { now, origin })],
      ["Verifier.verifyAsync", await verifier.verifyAsync(card, { now, origin })],
      ["verifyAsync", await lib.verifyAsync(card, opts)],
      ["verify, hostCrypto false", lib.verify(card, { ...opts, hostCrypto: false })],
    ];
  } finally {
    verifier.free();
  }
}

const b64u = (bytes) => Buffer.from(bytes).toString("base64url");

/** The Ed25519 identity point (y = 1): a point of order 1, under which R = identity, S = 0 verifies for every message. */
const IDENTITY = (() => {
  const x = new Uint8Array(32);
  x[0] = 1;
  return x;
})();
const WEAK = { kty: "OKP", crv: "Ed25519", x: b64u(IDENTITY), kid: "weak" };

/** A card "signed" under WEAK: protected header with its kid, signature R = identity, S = 0. */
function forgedCard() {
  const card = JSON.parse(x5cFile("sample-8.5-x5c.json"));
  const sig = new Uint8Array(64);
  sig.set(IDENTITY, 0);
  card.signatures = [{ protected: b64u(Buffer.from('{"alg":"EdDSA","kid":"weak","typ":"JOSE"}')), signature: b64u(sig) }];
  return JSON.stringify(card);
}

for (const [label, load] of [["node", async () => loadNode()], ["web", loadWeb]]) {
  test(`${label}: the vectors' x5c card is valid under an entry without policy`, async () => {
    const lib = await load();
    const card = x5cFile("sample-8.5-x5c.json");
    for (const [how, r] of await reports(lib, card, options({ keys: [{ jwk: leafJwk() }] }))) {
      assert.equal(r.signatures[0].verdict.code, "valid", `${how}: ${r.signatures[0].verdict.message}`);
      assert.ok(r.ok, how);
      assert.ok(r.signatures[0].certificate, how);
    }
  });

  // Before the fix the chain's leaf was trusted through the anchor alone: the entry holding the
  // same key (revoked, expired, or bound to another origin) was not consulted, and each of these
  // reports was VALID with a certificate.
  for (const [member, value, code] of [
    ["revoked", true, "key-revoked"],
    ["notAfter", "2020-01-01T00:00:00Z", "key-expired"],
    ["origins", ["https://other.example"], "untrusted-key"],
  ]) {
    test(`${label}: a trust entry's ${member} binds its key through an x5c leaf (${code})`, async () => {
      const lib = await load();
      const card = x5cFile("sample-8.5-x5c.json");
      const trust = { keys: [{ jwk: leafJwk(), kid: "release", [member]: value }] };
      for (const [how, r] of await reports(lib, card, options(trust))) {
        const s = r.signatures[0];
        assert.equal(r.ok, false, `${how}: the anchor lifted the entry's ${member}`);
        assert.equal(s.verdict.code, code, `${how}: ${s.verdict.message}`);
        assert.match(s.verdict.message, /trust/, how);
        assert.equal(s.certificate ?? null, null, how);
      }
      // The same store as JSON text reads the same.
      const r = lib.verify(card, options(JSON.stringify(trust)));
      assert.equal(r.signatures[0].verdict.code, code);
    });
  }

  // Before the fix these members on a bare JWK were ignored: the store trusted the key with no
  // policy at all, and the x5c card above was VALID.
  test(`${label}: policy on a bare JWK of a trust store is refused with its code and pointer`, async () => {
    const lib = await load();
    const card = x5cFile("sample-8.5-x5c.json");
    for (const [member, value] of [
      ["revoked", true],
      ["notAfter", "2020-01-01T00:00:00Z"],
      ["origins", ["https://a.example"]],
      ["algorithms", ["ES256"]],
    ]) {
      const jwk = { ...leafJwk(), [member]: value };
      for (const [trust, place] of [
        [{ keys: [jwk] }, "/keys/0/"],
        [{ keys: [{ jwk }] }, "/keys/0/jwk/"],
      ]) {
        const opts = options(trust);
        const { now: _now, origin: _origin, ...rest } = opts;
        for (const [how, call] of [
          ["verify", () => lib.verify(card, opts)],
          ["new Verifier", () => new lib.Verifier(rest)],
          ["verify (text)", () => lib.verify(card, options(JSON.stringify(trust)))],
        ]) {
          const e = thrown(call);
          assert.equal(e.code, "invalid-trust-store", `${how} ${member} ${place}: ${e.message}`);
          assert.equal(e.pointer, place + member, `${how} ${member}: ${e.message}`);
          assert.ok(!e.message.includes(jwk.x), `${how}: key material in ${e.message}`);
          assert.ok(!String(e.pointer).includes(jwk.x), how);
        }
        await assert.rejects(lib.verifyAsync(card, opts), (e) => e.code === "invalid-trust-store" && e.pointer === place + member);
      }
    }
  });

  // Before the fix the identity point was an ordinary Ed25519 key: ring, node:crypto and
  // WebCrypto all accept R = identity, S = 0 under it, so the forged card was VALID.
  test(`${label}: a small-order Ed25519 key is weak-key as keys, jwks and trust; the forgery is never valid`, async () => {
    const lib = await load();
    const card = forgedCard();
    const stores = [
      ["keys", { keys: [WEAK] }],
      ["keys (text)", { keys: [JSON.stringify(WEAK)] }],
      ["jwks", { jwks: { keys: [WEAK] } }],
      ["jwks beside a good key", { jwks: { keys: [leafJwk(), WEAK] } }],
      ["trust (entry)", { trust: { keys: [{ jwk: WEAK }] } }],
      ["trust (entry with policy)", { trust: { keys: [{ jwk: WEAK, origins: [ORIGIN] }] } }],
      ["trust (bare JWK)", { trust: { keys: [WEAK] } }],
    ];
    for (const [what, store] of stores) {
      for (const [how, call] of [
        ["verify", () => lib.verify(card, { ...store, now: NOW })],
        ["verify, hostCrypto false", () => lib.verify(card, { ...store, now: NOW, hostCrypto: false })],
        ["new Verifier", () => new lib.Verifier(store)],
      ]) {
        const e = thrown(call);
        assert.equal(e.code, "weak-key", `${what} ${how}: ${e.code} ${e.message}`);
        assert.match(e.message, /small order/, `${what} ${how}`);
        assert.ok(!e.message.includes(WEAK.x), `${what} ${how}: key material in ${e.message}`);
      }
      await assert.rejects(lib.verifyAsync(card, { ...store, now: NOW }), (e) => e.code === "weak-key", what);
    }
    // Under a good key the forged signature is simply invalid: it names the weak kid, which
    // selects no key there, and R = identity, S = 0 is no signature under any real key.
    const good = { ...leafJwk(), kid: "weak" };
    for (const [how, r] of [
      ["verify", lib.verify(card, { keys: [good], now: NOW })],
      ["verifyAsync", await lib.verifyAsync(card, { keys: [good], now: NOW })],
    ]) {
      assert.equal(r.ok, false, how);
      assert.notEqual(r.signatures[0].verdict.code, "valid", how);
    }
  });
}
