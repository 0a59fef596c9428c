// The npm package against the hostile inputs of "Hard to fool, round two": the rules live in the
// Rust core, and these tests show the package reaches them. A malformed PEM never shows key
// material in an error; a key whose line breaks were lost still signs; nesting at the library's
// cap (512) runs in WebAssembly's stack and one level more is refused; an unsigned card that
// mode if-present lets pass lists every member as unsigned; the work limits are options.
import assert from "node:assert/strict";
import { test } from "node:test";
import { generateKeyPair, loadNode, thrown } from "./helpers.mjs";

const lib = loadNode();
const CARD = '{"name":"A","description":"d","version":"1","skills":[]}';

function pem() {
  const { privateKey } = generateKeyPair("ec", { namedCurve: "P-256" });
  return privateKey.export({ format: "pem", type: "pkcs8" });
}

function body(text) {
  return text
    .split("\n")
    .filter((l) => !l.startsWith("-----"))
    .join("");
}

test("a malformed PEM key is refused without key material in the error", () => {
  const key = pem();
  const secret = body(key);
  const noEnd = key.slice(0, key.indexOf("-----END"));
  const shapes = {
    "one line, no END": noEnd.replaceAll("\n", ""),
    "CR only, no END": noEnd.replaceAll("\n", "\r"),
    "garbage label": key.replace("-----BEGIN PRIVATE KEY", "-----BEGIN pr1v@te k3y").replaceAll("\n", ""),
    "byte-order mark, no END": "\ufeff" + noEnd,
  };
  for (const [shape, text] of Object.entries(shapes)) {
    for (const [what, call] of [
      ["sign", () => lib.sign(CARD, text)],
      ["verify keys", () => lib.verify(CARD, { keys: [text] })],
    ]) {
      const e = thrown(call);
      assert.equal(e.code, "invalid-key", `${shape} through ${what}: ${e.message}`);
      for (let i = 0; i + 12 <= secret.length; i++) {
        const run = secret.slice(i, i + 12);
        assert.ok(!e.message.includes(run), `${shape} through ${what} shows ${run}: ${e.message}`);
      }
    }
  }
  // The key itself, its line breaks lost, still signs.
  const signed = lib.sign(CARD, key.replaceAll("\n", ""));
  assert.equal(JSON.parse(signed).signatures.length, 1);
});

test("nesting at the cap runs in the module's stack, one level more is refused", () => {
  const deep = (levels, open, close) =>
    `{"name":"A","description":"d","version":"1","skills":[],"capabilities":{"extensions":[{"uri":"u","params":{"x":${open.repeat(levels - 5)}1${close.repeat(levels - 5)}}}]}}`;
  for (const [open, close] of [['{"a":', "}"], ["[", "]"]]) {
    const at = deep(512, open, close);
    const bytes = lib.canonicalize(at, { maxDepth: 512 });
    assert.ok(bytes.length > 512);
    const e = thrown(() => lib.canonicalize(deep(513, open, close), { maxDepth: 512 }));
    assert.equal(e.code, "nesting-too-deep");
  }
  const e = thrown(() => lib.canonicalize(CARD, { maxDepth: 513 }));
  assert.equal(e.code, "usage");
});

test("an unsigned card passing if-present lists every member as unsigned", () => {
  const { publicKey } = generateKeyPair("ed25519");
  const report = lib.verify(CARD, { keys: [publicKey.export({ format: "jwk" })], mode: "if-present" });
  assert.equal(report.ok, true);
  assert.deepEqual(report.unsigned, ["/name", "/description", "/version", "/skills"]);
});

test("keys per kid and checks per card are bounded options", () => {
  const { privateKey, publicKey } = generateKeyPair("ed25519");
  const signed = lib.sign(CARD, { ...privateKey.export({ format: "jwk" }), kid: "dup" });
  const others = Array.from({ length: 4 }, () => ({ ...generateKeyPair("ed25519").publicKey.export({ format: "jwk" }), kid: "dup" }));
  const keys = [...others, { ...publicKey.export({ format: "jwk" }), kid: "dup" }];
  const crowd = lib.verify(signed, { keys });
  assert.equal(crowd.signatures[0].verdict.code, "too-many-keys");
  assert.equal(lib.verify(signed, { keys, maxKeysPerKid: 5 }).ok, true);
  const budget = lib.verify(signed, { keys, maxKeysPerKid: 5, maxSignatureChecks: 2 });
  assert.equal(budget.signatures[0].verdict.code, "too-many-checks");
});
