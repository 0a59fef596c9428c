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

// Every string an error carries: its message, its stack and each own property (enumerable or
// not), read once.
function errorTexts(e) {
  const texts = [String(e.message), String(e.stack)];
  for (const name of Reflect.ownKeys(e)) {
    const v = Object.getOwnPropertyDescriptor(e, name).value;
    texts.push(typeof v === "string" ? v : JSON.stringify(v) ?? String(v));
  }
  return texts.join("\n");
}

test("a private key in a bad shape: no piece of it in the error's message, stack or properties", () => {
  const key = pem();
  const secret = body(key);
  const { privateKey } = generateKeyPair("ec", { namedCurve: "P-256" });
  const jwk = privateKey.export({ format: "jwk" });
  const d = jwk.d;
  // d written as a decimal number (its characters as digits), which the JSON reader refuses.
  const digits = "1" + [...d].map((c) => c.charCodeAt(0) % 10).join("");
  const shapes = [
    ["PEM, one line, no END", key.slice(0, key.indexOf("-----END")).replaceAll("\n", ""), secret],
    ["PEM, body cut in two", key.slice(0, 80) + "\n-----END PRIVATE KEY-----\n", secret.slice(0, 40)],
    ["PEM, a foreign character", key.replace(secret.slice(20, 21), "*"), secret],
    ["PEM under a public label", key.replaceAll("PRIVATE KEY", "PUBLIC KEY"), secret],
    ["PEM twice", key + key, secret],
    ["JWK text, trailing garbage", JSON.stringify(jwk) + " x", d],
    ["JWK text, a member twice", JSON.stringify(jwk).replace("{", `{"d":"${d}",`), d],
    ["JWK, d with padding", { ...jwk, d: d + "=" }, d],
    ["JWK, d cut short", { ...jwk, d: d.slice(0, 30) }, d.slice(0, 30)],
    ["JWK, wrong curve", { ...jwk, crv: "P-384" }, d],
    ["JWK, kty OKP", { ...jwk, kty: "OKP" }, d],
    ["JWK, d a number", JSON.stringify(jwk).replace(`"${d}"`, digits), digits],
    ["JWK, d a number past a double", JSON.stringify(jwk).replace(`"${d}"`, `${digits}e400`), digits],
    ["JWK, x of another key", { ...jwk, x: generateKeyPair("ec", { namedCurve: "P-256" }).publicKey.export({ format: "jwk" }).x }, d],
    ["JWK, bad JSON after d", JSON.stringify(jwk).replace(`"${d}"`, `"${d}" ,,`), d],
    ["JWK inside a JWKS", { keys: [jwk] }, d],
  ];
  for (const [shape, value, material] of shapes) {
    for (const [what, call] of [
      ["sign", () => lib.sign(CARD, value)],
      ["verify keys", () => lib.verify(CARD, { keys: [value] })],
      ["verify jwks", () => lib.verify(CARD, { jwks: typeof value === "string" ? value : { keys: [value] } })],
    ]) {
      let e;
      try {
        call();
        continue;
      } catch (err) {
        e = err;
      }
      assert.equal(e.name, "A2ACardError", `${shape} through ${what}: ${e.message}`);
      const texts = errorTexts(e);
      for (let i = 0; i + 12 <= material.length; i++) {
        const run = material.slice(i, i + 12);
        assert.ok(!texts.includes(run), `${shape} through ${what} shows ${run}: ${texts}`);
      }
    }
  }
});
