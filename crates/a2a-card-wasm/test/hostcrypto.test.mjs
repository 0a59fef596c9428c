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
import { generateKeyPair, loadNode, sampleCard, testDir } from "./helpers.mjs";

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

const b64u = (bytes) => Buffer.from(bytes).toString("base64url");
const fromB64u = (text) => new Uint8Array(Buffer.from(text, "base64url"));

function keyPair(alg, kid) {
  const [type, options] = {
    EdDSA: ["ed25519", {}],
    ES256: ["ec", { namedCurve: "P-256" }],
    ES384: ["ec", { namedCurve: "P-384" }],
    RS256: ["rsa", { modulusLength: 2048 }],
    PS256: ["rsa", { modulusLength: 2048 }],
  }[alg];
  const { privateKey, publicKey } = generateKeyPair(type, options);
  return {
    alg,
    privateJwk: { ...privateKey.export({ format: "jwk" }), kid },
    publicJwk: { ...publicKey.export({ format: "jwk" }), kid },
  };
}

// Group orders, from SEC 2 (P-256, P-384) and RFC 8032 (the Ed25519 subgroup order L).
const ORDER = {
  ES256: 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n,
  ES384: 0xffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973n,
};
const ED25519_L = (1n << 252n) + 27742317777372353535851937790883648493n;

const toBig = (bytes) => BigInt(`0x${Buffer.from(bytes).toString("hex") || "0"}`);
function toBytes(n, len) {
  const hex = n.toString(16).padStart(len * 2, "0");
  assert.equal(hex.length, len * 2, "value does not fit");
  return new Uint8Array(Buffer.from(hex, "hex"));
}
const flip = (sig, i, bit = 1) => {
  const out = Uint8Array.from(sig);
  out[i] ^= bit;
  return out;
};

/** Named signature variants of a valid signature `sig` under `alg`, with the verdict crypto expects. */
function variants(alg, sig, publicJwk) {
  const list = [
    ["as signed", sig, true],
    ["first bit flipped", flip(sig, 0, 0x80), false],
    ["last bit flipped", flip(sig, sig.length - 1), false],
    ["middle byte flipped", flip(sig, sig.length >> 1, 0xff), false],
    ["one byte short", sig.slice(0, -1), false],
    ["one byte more", Uint8Array.from([...sig, 0]), false],
    ["empty", new Uint8Array(0), false],
    ["all zero", new Uint8Array(sig.length), false],
    ["all 0xff", new Uint8Array(sig.length).fill(0xff), false],
  ];
  if (alg in ORDER) {
    const n = ORDER[alg];
    const len = sig.length / 2;
    const r = toBig(sig.slice(0, len));
    const s = toBig(sig.slice(len));
    const rs = (r2, s2) => Uint8Array.from([...toBytes(r2, len), ...toBytes(s2, len)]);
    list.push(
      ["r = 0", rs(0n, s), false],
      ["s = 0", rs(r, 0n), false],
      ["r = n", rs(n, s), false],
      ["s = n", rs(r, n), false],
      ["high-S (n - s), the other valid signature", rs(r, n - s), true],
      ["r and s swapped", rs(s, r), false],
    );
    if (s + n < 1n << BigInt(8 * len)) list.push(["s + n (not reduced)", rs(r, s + n), false]);
    if (r + n < 1n << BigInt(8 * len)) list.push(["r + n (not reduced)", rs(r + n, s), false]);
  } else if (alg === "EdDSA") {
    // S is little-endian in the second half; S + L is the same value mod L, refused by RFC 8032.
    const S = toBig(Uint8Array.from(sig.slice(32)).reverse());
    const nonCanonical = toBytes(S + ED25519_L, 32).reverse();
    list.push(
      ["S + L (non-canonical S)", Uint8Array.from([...sig.slice(0, 32), ...nonCanonical]), false],
      ["R zeroed", Uint8Array.from([...new Uint8Array(32), ...sig.slice(32)]), false],
    );
  } else {
    const n = fromB64u(publicJwk.n);
    list.push(
      ["signature = n", n, false],
      ["signature = n - 1", toBytes(toBig(n) - 1n, n.length), false],
      ["signature = 1", toBytes(1n, n.length), false],
    );
  }
  return list;
}

function withSignature(signedText, sig) {
  const c = JSON.parse(signedText);
  c.signatures[0].signature = b64u(sig);
  return JSON.stringify(c);
}

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

test("tampered signatures: the host backend and ring give the same reports", () => {
  let compared = 0;
  const verdicts = new Set();
  for (const alg of ["ES256", "ES384", "EdDSA", "RS256", "PS256"]) {
    const k = keyPair(alg, "k1");
    const signed = lib.sign(card, k.privateJwk, { unknown: "exclude", alg });
    const sig = fromB64u(JSON.parse(signed).signatures[0].signature);
    // Trust roots: the signer's key; a key of the same type with the same kid; another curve's
    // key and another key type with the same kid.
    const other = alg === "ES256" ? "ES384" : "ES256";
    const trusts = [
      ["the signer's key", [k.publicJwk], true],
      ["another key, same kid", [keyPair(alg, "k1").publicJwk], false],
      [`a ${other} key, same kid`, [keyPair(other, "k1").publicJwk], false],
      ["an Ed25519 or P-256 key, same kid", [keyPair(alg === "EdDSA" ? "ES256" : "EdDSA", "k1").publicJwk], false],
    ];
    for (const [trustName, keys, trusted] of trusts) {
      const on = new lib.Verifier({ keys });
      const off = new lib.Verifier({ keys, hostCrypto: false });
      for (const [name, bytes, valid] of variants(alg, sig, k.publicJwk)) {
        const text = withSignature(signed, bytes);
        const what = `${alg}, ${trustName}, signature ${name}`;
        const host = on.verify(text);
        const ring = off.verify(text);
        assert.deepEqual(host, ring, what);
        assert.equal(host.ok, trusted && valid, `${what}: ${host.signatures[0].verdict.message}`);
        // The function API answers the same as the Verifier.
        assert.deepEqual(lib.verify(text, { keys }), host, what);
        verdicts.add(host.signatures[0].verdict.code);
        compared += 1;
      }
    }
    // The card edited after signing.
    const edited = JSON.parse(signed);
    edited.description += "!";
    const text = JSON.stringify(edited);
    const host = lib.verify(text, { keys: [k.publicJwk] });
    assert.deepEqual(host, lib.verify(text, { keys: [k.publicJwk], hostCrypto: false }), `${alg}, edited card`);
    assert.equal(host.signatures[0].verdict.code, "signature-invalid");
  }
  assert.ok(compared > 200, `${compared} comparisons`);
  // Not one kind of answer only: valid, invalid, and refusals before the primitive.
  for (const code of ["valid", "signature-invalid", "key-algorithm-mismatch"]) {
    assert.ok(verdicts.has(code), `no ${code} verdict among ${[...verdicts]}`);
  }
});

test("every other suite passes with the host backend off (A2A_CARD_HOST_CRYPTO=0)", (t) => {
  const suites = fs
    .readdirSync(testDir)
    .filter((f) => f.endsWith(".test.mjs") && f !== path.basename(new URL(import.meta.url).pathname))
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
