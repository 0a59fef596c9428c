// How the package reads an options object, and the limits it applies before reading a card
// (issue 25, items 5 and 9). One reading: the options are the object's own properties
// (enumerable or not) and those of its prototypes before Object.prototype or null (a class's
// getters), every name known, every getter called once; a string with a lone surrogate, a count
// that is not an integer or is too large are refused naming the option, by their true value. A
// card larger than `maxInputBytes` is refused by its length, before it is copied into the
// module's memory (which never shrinks).
import assert from "node:assert/strict";
import { test } from "node:test";
import fs from "node:fs";
import path from "node:path";
import { cli, ed25519Jwks, loadNode, loadWeb, scratch, thrown } from "./helpers.mjs";

const lib = loadNode();
const web = await loadWeb();
const CARD = '{"name":"A","description":"d","version":"1","skills":[]}';

test("a non-enumerable option is read, not dropped", () => {
  const k = ed25519Jwks();
  const signed = lib.sign(CARD, k.priv);
  const only = Object.defineProperty({ keys: [k.pub] }, "algorithms", { value: ["ES256"], enumerable: false });
  const report = lib.verify(signed, only);
  assert.equal(report.ok, false, "algorithms: [ES256] given non-enumerable still restricts");
  assert.equal(report.signatures[0].verdict.code, "algorithm-not-allowed");
});

test("options on a prototype: known names are read, unknown names refused", () => {
  const k = ed25519Jwks();
  const signed = lib.sign(CARD, k.priv);
  class Restricted {
    get keys() {
      return [k.pub];
    }
    get algorithms() {
      return ["ES256"];
    }
  }
  assert.equal(lib.verify(signed, new Restricted()).ok, false);
  class Misspelt {
    get keys() {
      return [k.pub];
    }
    get algoritms() {
      return ["ES256"];
    }
  }
  const e = thrown(() => lib.verify(signed, new Misspelt()));
  assert.equal(e.code, "usage");
  assert.match(e.message, /unknown option "algoritms" of verify/);
  // Object.prototype is not read: a member added there is not an option.
  Object.prototype.algorithms = ["ES256"];
  try {
    assert.equal(lib.verify(signed, { keys: [k.pub] }).ok, true);
  } finally {
    delete Object.prototype.algorithms;
  }
  // An own member hides the prototype's.
  const own = Object.defineProperty(Object.create(new Restricted()), "algorithms", { value: ["EdDSA"] });
  assert.equal(lib.verify(signed, own).ok, true);
});

test("a string option with a lone surrogate is refused naming the option", () => {
  const k = ed25519Jwks();
  for (const [what, call, name] of [
    ["kid", () => lib.sign(CARD, k.priv, { kid: "a\ud800b" }), "kid"],
    ["jku", () => lib.sign(CARD, k.priv, { jku: "https://a.example/\udc00" }), "jku"],
    ["origin", () => lib.verify(CARD, { keys: [k.pub], origin: "https://\ud800.example" }), "origin"],
    ["a list element", () => lib.verify(CARD, { keys: [k.pub], identity: ["dns:a.example", "x\ud800"] }), "identity"],
    ["generateKey kid", () => lib.generateKey("EdDSA", { kid: "\udfff" }), "kid"],
  ]) {
    const e = thrown(call);
    assert.equal(e.code, "usage", `${what}: ${e.message}`);
    assert.match(e.message, new RegExp(`"${name}"`), `${what}: ${e.message}`);
    assert.match(e.message, /lone surrogate/, `${what}: ${e.message}`);
  }
});

test("counts are refused by their true value when not integers or too large", () => {
  const k = ed25519Jwks();
  for (const [name, value] of [
    ["maxSignatures", 2 ** 32],
    ["maxSignatures", 1e12],
    ["maxSignatureChecks", 2.5],
    ["maxKeysPerKid", -1],
    ["maxInputBytes", 2 ** 40],
  ]) {
    const e = thrown(() => lib.verify(CARD, { keys: [k.pub], [name]: value }));
    assert.equal(e.code, "usage", `${name} ${value}: ${e.message}`);
    assert.match(e.message, new RegExp(`"${name}"`), e.message);
    assert.ok(e.message.includes(String(value)), `${name} ${value}: ${e.message}`);
    assert.ok(!e.message.includes("4294967295"), `${name} ${value}: ${e.message}`);
  }
});

// The bounds of the options are the core's (VerifyOptions::check, Limits::check), the same the
// CLI applies: what one refuses the other refuses, what one takes the other takes.
test("option bounds and the HMAC refusal are the CLI's", (t) => {
  const run = cli(t);
  if (!run) return;
  const k = ed25519Jwks();
  const signed = lib.sign(CARD, k.priv);
  const dir = scratch("bounds");
  const cardFile = path.join(dir, "card.json");
  const jwksFile = path.join(dir, "jwks.json");
  fs.writeFileSync(cardFile, signed);
  fs.writeFileSync(jwksFile, JSON.stringify({ keys: [k.pub] }));
  const cases = [
    // [npm option, value, CLI flag, CLI value, accepted]
    ["algorithms", ["EdDSA", "HS384"], "--alg", "EdDSA,HS384", false],
    ["algorithms", ["HS256"], "--alg", "HS256", false],
    ["algorithms", ["EdDSA", "ES256"], "--alg", "EdDSA,ES256", true],
    ["maxSignatures", 0, "--max-signatures", "0", false],
    ["maxSignatures", 256, "--max-signatures", "256", true],
    ["maxSignatures", 257, "--max-signatures", "257", false],
    ["maxSignatures", 1e12, "--max-signatures", "1000000000000", false],
    ["maxKeysPerKid", 0, "--max-keys-per-kid", "0", false],
    ["maxKeysPerKid", 256, "--max-keys-per-kid", "256", true],
    ["maxKeysPerKid", 1e9, "--max-keys-per-kid", "1000000000", false],
    ["maxSignatureChecks", 0, "--max-signature-checks", "0", false],
    ["maxSignatureChecks", 4096, "--max-signature-checks", "4096", true],
    ["maxSignatureChecks", 1e9, "--max-signature-checks", "1000000000", false],
    ["maxInputBytes", 0, "--max-input-bytes", "0", false],
    ["maxInputBytes", 2 ** 30, "--max-input-bytes", String(2 ** 30), true],
    ["maxInputBytes", 2 ** 30 + 1, "--max-input-bytes", String(2 ** 30 + 1), false],
    ["maxInputBytes", 2 ** 40, "--max-input-bytes", String(2 ** 40), false],
    ["maxDepth", 0, "--max-depth", "0", false],
    ["maxDepth", 512, "--max-depth", "512", true],
  ];
  for (const [name, value, flag, text, accepted] of cases) {
    const out = run(["verify", cardFile, "--jwks", jwksFile, flag, text]);
    assert.equal(out.code === 0, accepted, `CLI ${flag} ${text}: exit ${out.code} ${out.stderr}`);
    for (const call of [
      () => lib.verify(signed, { jwks: { keys: [k.pub] }, [name]: value }),
      () => new lib.Verifier({ jwks: { keys: [k.pub] }, [name]: value }).verify(signed),
    ]) {
      if (accepted) {
        assert.equal(call().ok, true, `npm ${name} ${JSON.stringify(value)}`);
      } else {
        const e = thrown(call);
        assert.equal(e.code, "usage", `npm ${name} ${JSON.stringify(value)}: ${e.message}`);
        assert.match(e.message, new RegExp(`"${name}"`), e.message);
      }
    }
  }
  // The reader limits of the other functions are bounded alike.
  assert.equal(thrown(() => lib.canonicalize(CARD, { maxInputBytes: 2 ** 30 + 1 })).code, "usage");
  assert.equal(thrown(() => lib.lint(CARD, { maxDepth: 0 })).code, "usage");
  assert.match(thrown(() => lib.sign(CARD, k.priv, { maxInputBytes: 0 })).message, /"maxInputBytes"/);
});

// What refusing large cards may add: the web build's WebAssembly memory (initSync gives its
// exports), whose size only grows; for the Node build, whose exports are not reachable, the
// process's resident memory (copying a card in writes every page it takes).
function grownBy(build, m) {
  if (build === "web") {
    const memory = m.initSync().memory;
    assert.ok(memory instanceof WebAssembly.Memory, "the module's memory is reachable");
    const before = memory.buffer.byteLength;
    return { limit: 8 * 2 ** 20, grown: () => memory.buffer.byteLength - before };
  }
  const before = process.memoryUsage().rss;
  return { limit: 48 * 2 ** 20, grown: () => process.memoryUsage().rss - before };
}

for (const [build, m] of [["node", lib], ["web", web]]) {
  test(`${build}: maxInputBytes refuses a large card before copying it in`, async () => {
    const k = ed25519Jwks();
    const big = "x".repeat(100 * 2 ** 20);
    const bytes = new Uint8Array(120 * 2 ** 20);
    const memory = grownBy(build, m);
    for (const [what, call] of [
      ["canonicalize string", () => m.canonicalize(big, { maxInputBytes: 65536 })],
      ["canonicalize bytes", () => m.canonicalize(bytes, { maxInputBytes: 65536 })],
      ["canonicalize ArrayBuffer", () => m.canonicalize(bytes.buffer, { maxInputBytes: 65536 })],
      ["verify string", () => m.verify(big, { keys: [k.pub], maxInputBytes: 65536 })],
      ["verify bytes (default limit)", () => m.verify(bytes, { keys: [k.pub] })],
      ["sign string", () => m.sign(big, k.priv, { maxInputBytes: 65536 })],
      ["lint bytes", () => m.lint(bytes, { maxInputBytes: 65536 })],
      ["inspect string (default limit)", () => m.inspect(big)],
    ]) {
      const e = thrown(call);
      assert.equal(e.code, "input-too-large", `${what}: ${e.message}`);
    }
    await assert.rejects(m.verifyAsync(big, { keys: [k.pub], maxInputBytes: 65536 }), (e) => e.code === "input-too-large");
    const v = new m.Verifier({ keys: [k.pub], maxInputBytes: 65536 });
    assert.equal(thrown(() => v.verify(bytes)).code, "input-too-large");
    // A string whose UTF-8 form is over the limit although its length is not.
    const wide = (n) => `{"name":"${"é".repeat(n)}","description":"d","version":"1","skills":[]}`;
    assert.equal(thrown(() => m.canonicalize(wide(40000), { maxInputBytes: 65536 })).code, "input-too-large");
    const grown = memory.grown();
    assert.ok(grown < memory.limit, `${build}: memory grew by ${grown} bytes refusing large cards`);
    // A card under the limit in UTF-16 units and in bytes still reads.
    assert.ok(m.canonicalize(wide(30000), { maxInputBytes: 65536 }).includes("é".repeat(30000)));
  });
}
