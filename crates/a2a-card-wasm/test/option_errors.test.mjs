// An error about an option names it: the `option` property, in the package's camelCase (the core
// carries the canonical name, `Error::option`), null for an error about no option; and the
// example of docs/npm.md that shows it runs as written, printing what its comment says.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { loadNode, loadWeb, repoRoot } from "./helpers.mjs";

const CARD = '{"name":"A","skills":[]}';

function thrownBy(f) {
  try {
    f();
  } catch (e) {
    return e;
  }
  assert.fail("no error thrown");
}

for (const [build, m] of [["node", loadNode()], ["web", await loadWeb()]]) {
  test(`${build}: an error about an option carries it as the package spells it`, async () => {
    const { jwks } = m.generateKey("EdDSA");
    const cases = [
      // A bound (the core's), a value of the wrong type (the package's reader), a name (the core's).
      [{ jwks, maxChain: 9 }, "maxChain", '"maxChain" must be 1 to 8, got 9'],
      [{ jwks, maxHeaderBytes: 0 }, "maxHeaderBytes", '"maxHeaderBytes" must be 1 to 1048576, got 0'],
      [{ jwks, maxSignatures: "16" }, "maxSignatures", null],
      [{ jwks, mode: "any" }, "mode", null],
      [{ jwks, algorithms: ["HS256"] }, "algorithms", null],
      [{ jwks, requireEku: "" }, "requireEku", null],
    ];
    for (const [options, option, message] of cases) {
      const e = thrownBy(() => m.verify(CARD, options));
      assert.equal(e.name, "A2ACardError");
      assert.equal(e.code, "usage", e.message);
      assert.equal(e.option, option, e.message);
      if (message) assert.equal(e.message, message);
      await assert.rejects(m.verifyAsync(CARD, options), (r) => r.option === option);
      assert.equal(thrownBy(() => new m.Verifier(options)).option, option);
    }
    // An error about no option: null.
    const dup = thrownBy(() => m.canonicalize('{"a":1,"a":2}'));
    assert.equal(dup.code, "duplicate-member");
    assert.equal(dup.option, null);
    // The options of other calls too.
    assert.equal(thrownBy(() => m.canonicalize(CARD, { maxDepth: 0 })).option, "maxDepth");
    assert.equal(thrownBy(() => m.canonicalize(CARD, { profile: 1 })).option, "profile");
    // sign's, read by the core's table (request::SIGN) as the others are.
    const key = m.generateKey("ES256").privateJwk;
    for (const [options, option, message] of [
      [{ maxChain: 9 }, "maxChain", '"maxChain" must be 1 to 8, got 9'],
      [{ alsoProfiles: ["spex"] }, "alsoProfiles", null],
      [{ x5c: "not a certificate" }, "x5c", null],
      [{ header: [1] }, "header", null],
      [{ replace: "yes" }, "replace", null],
      [{ unknown: "keep" }, "unknown", null],
      [{ alg: "none" }, "alg", null],
    ]) {
      const e = thrownBy(() => m.sign(CARD, key, options));
      assert.equal(e.option, option, e.message);
      if (message) assert.equal(e.message, message);
    }
    assert.match(thrownBy(() => m.sign(CARD, key, { kidd: "x" })).message, /unknown option "kidd" of sign/);
    const signed = JSON.parse(m.sign(CARD, key, { kid: "k", header: { note: "n" }, protectedHeader: { p: 1 }, maxChain: 2 }));
    assert.deepEqual(signed.signatures[0].header, { note: "n" });
  });
}

test("the example of docs/npm.md that shows an error's option runs as written", () => {
  const text = fs.readFileSync(path.join(repoRoot, "docs/npm.md"), "utf8");
  const block = [...text.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((b) => b[1]).find((b) => b.includes("e.option"));
  assert.ok(block, "docs/npm.md has the example");
  const imported = block.match(/^import \{ ([^}]+) \} from "a2a-card";\n/m);
  assert.ok(imported, block);
  const expected = block.match(/console\.log\(.*\); +\/\/ (.*)$/m)[1];
  const printed = [];
  const run = new Function("lib", "console", `const { ${imported[1]} } = lib;\n${block.replace(imported[0], "")}`);
  run(loadNode(), { log: (...args) => printed.push(args.join(" ")) });
  assert.deepEqual(printed, [expected]);
});

// The refusals of the package's JavaScript reader (js/read.js: a string with a lone surrogate, a
// getter or a list that throws, a list too long) and of a key that is not text or an object
// carry the option as the core's refusals do, in the package's camelCase; an unknown option is
// about none of the package's options (null).
for (const [build, m] of [["node", loadNode()], ["web", await loadWeb()]]) {
  test(`${build}: a refusal of the JavaScript reader carries its option`, async () => {
    const { jwks } = m.generateKey("EdDSA");
    const revoked = Proxy.revocable([], {});
    revoked.revoke();
    const throwing = Object.defineProperty({ jwks }, "maxChain", {
      enumerable: true,
      get() {
        throw new Error("no");
      },
    });
    const cases = [
      [{ jwks, origin: "https://\ud800.example" }, "origin", /^option "origin" of \w+ holds a lone surrogate/],
      [{ jwks, identity: ["dns:a.example", "x\udc00"] }, "identity", /^option "identity"\[1\] of \w+ holds a lone surrogate/],
      [{ jwks, requireEku: "\udfff" }, "requireEku", /lone surrogate/],
      [throwing, "maxChain", /^option "maxChain" of \w+ cannot be read: no$/],
      [{ jwks, identity: revoked.proxy }, "identity", /^option "identity" of \w+ cannot be read/],
      [{ jwks, identity: new Proxy([], { get: (t, p) => (p === "length" ? 1e9 : t[p]) }) }, "identity", /more than 65536/],
      [{ keys: [jwks.keys[0], 42] }, "keys", /must be text or an object/],
    ];
    for (const [options, option, message] of cases) {
      const e = thrownBy(() => m.verify(CARD, options));
      assert.equal(e.name, "A2ACardError", e.message);
      assert.equal(e.code, "usage", e.message);
      assert.equal(e.option, option, e.message);
      assert.match(e.message, message);
      await assert.rejects(m.verifyAsync(CARD, options), (r) => r.option === option && message.test(r.message));
      assert.equal(thrownBy(() => new m.Verifier(options)).option, option);
    }
    // The options of one call of a Verifier, and of the other calls.
    const verifier = new m.Verifier({ jwks });
    const perCall = thrownBy(() => verifier.verify(CARD, { origin: "https://a\ud800.example" }));
    assert.equal(perCall.option, "origin", perCall.message);
    const bad = thrownBy(() => verifier.verify(CARD, { origin: "http://a.example" }));
    assert.equal(bad.option, "origin", bad.message);
    assert.match(bad.message, /"http:\/\/a\.example" is not an origin/);
    await assert.rejects(verifier.verifyAsync(CARD, { origin: "https://a.example/x" }), (r) => r.option === "origin");
    assert.equal(thrownBy(() => m.canonicalize(CARD, { profile: "\ud800" })).option, "profile");
    // A name the package does not know is none of its options.
    const unknown = thrownBy(() => m.verify(CARD, { jwks, maxChains: 2 }));
    assert.match(unknown.message, /^unknown option "maxChains" of verify/);
    assert.equal(unknown.option, null);
  });
}
