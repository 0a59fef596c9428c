// Trust through certificates in the npm package: every vector of testvectors/x5c/ (format:
// testvectors/x5c/README.md) through verify and verifyAsync of the Node and web builds, with the
// same verdicts as the native tests; sign with x5c, and its refusal of another key's chain.
import assert from "node:assert/strict";
import { test } from "node:test";
import { loadNode, loadWeb, x5cFile, x5cVectors } from "./helpers.mjs";

function options(v, anchors) {
  const o = { trustAnchors: anchors, now: v.now };
  if (v.origin) o.origin = v.origin;
  if (v.identities) o.identity = v.identities;
  if (v.identity_prefixes) o.identityPrefix = v.identity_prefixes;
  if (v.required_eku) o.requireEku = v.required_eku;
  if (v.max_chain) o.maxChain = v.max_chain;
  return o;
}

function check(label, v, r) {
  const s = r.signatures[0];
  assert.equal(s.verdict.code, v.expected.code, `${label} ${v.id}: ${s.verdict.message}`);
  assert.equal(r.ok, v.expected.code === "valid", `${label} ${v.id}`);
  if (v.expected.pointer) assert.equal(s.verdict.pointer, v.expected.pointer, `${label} ${v.id}`);
  if (r.ok) {
    assert.equal(s.certificate.anchor, "CN=a2a-card Vector Root, O=a2a-card test vectors");
    assert.equal(s.certificate.chain.length, 2);
  }
}

for (const [label, load] of [["node", async () => loadNode()], ["web", loadWeb]]) {
  test(`${label}: the x5c vectors get their verdicts, sync and async`, async () => {
    const lib = await load();
    const vectors = x5cVectors();
    assert.ok(vectors.length >= 12);
    for (const { v, card, anchors } of vectors) {
      if (anchors.length === 0) {
        // No anchors and no key: the package refuses to verify against nothing.
        assert.throws(() => lib.verify(card, options(v, anchors)), (e) => e.code === "usage");
        continue;
      }
      check(label, v, lib.verify(card, options(v, anchors)));
      check(`${label} async`, v, await lib.verifyAsync(card, options(v, anchors)));
    }
  });

  test(`${label}: sign with x5c, and refuse another key's chain`, async () => {
    const lib = await load();
    const card = '{"name":"Travel","description":"d","skills":[]}';
    const key = x5cFile("leaf.key.pem");
    const signed = lib.sign(card, key, { x5c: x5cFile("chain.pem") });
    const r = lib.verify(signed, { trustAnchors: x5cFile("root.pem"), identity: "spiffe://example.org/ns/agents/sa/travel" });
    assert.equal(r.signatures[0].verdict.code, "valid", r.signatures[0].verdict.message);
    const other = lib.generateKey("ES256").pem;
    assert.throws(() => lib.sign(card, other, { x5c: x5cFile("chain.pem") }), (e) => e.code === "certificate-key-mismatch");
    assert.throws(
      () => lib.verify(signed, { trustAnchors: x5cFile("root.pem"), identityPrefix: "spiffe://example.org" }),
      (e) => e.code === "usage",
    );
    for (const maxChain of [0, 9]) {
      assert.throws(
        () => lib.verify(signed, { trustAnchors: x5cFile("root.pem"), maxChain }),
        (e) => e.code === "usage" && e.message.startsWith('"maxChain" must be 1 to 8'),
      );
    }
  });
}
