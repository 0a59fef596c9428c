// Tampered signatures for the differential tests of the package's crypto paths (the host's
// node:crypto, WebCrypto, the module's own ring code): key pairs of every algorithm from
// node:crypto, and named variants of a valid signature with the verdict the primitive must give.
import assert from "node:assert/strict";
import { generateKeyPair } from "./helpers.mjs";

export const b64u = (bytes) => Buffer.from(bytes).toString("base64url");
export const fromB64u = (text) => new Uint8Array(Buffer.from(text, "base64url"));

export function keyPair(alg, kid) {
  const [type, options] = {
    EdDSA: ["ed25519", {}],
    ES256: ["ec", { namedCurve: "P-256" }],
    ES384: ["ec", { namedCurve: "P-384" }],
    RS256: ["rsa", { modulusLength: 2048 }],
    RS384: ["rsa", { modulusLength: 2048 }],
    RS512: ["rsa", { modulusLength: 2048 }],
    PS256: ["rsa", { modulusLength: 2048 }],
    PS384: ["rsa", { modulusLength: 2048 }],
    PS512: ["rsa", { modulusLength: 2048 }],
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
export function variants(alg, sig, publicJwk) {
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

export function withSignature(signedText, sig) {
  const c = JSON.parse(signedText);
  c.signatures[0].signature = b64u(sig);
  return JSON.stringify(c);
}


/** Every algorithm of the wasm build. */
export const ALGORITHMS = ["EdDSA", "ES256", "ES384", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512"];

/**
 * The differential cases: for each algorithm in `algs`, the card signed by `lib` with a fresh key,
 * each signature variant of `variants` under four sets of trust roots (the signer's key; another
 * key of the same type with the same kid; another curve's key and another key type with the same
 * kid), and the card edited after signing. Each case: `{ what, keys, text, ok }`, `ok` the
 * verdict the card must get.
 */
export function tamperCases(lib, card, algs = ALGORITHMS) {
  const cases = [];
  for (const alg of algs) {
    const k = keyPair(alg, "k1");
    const signed = lib.sign(card, k.privateJwk, { unknown: "exclude", alg });
    const sig = fromB64u(JSON.parse(signed).signatures[0].signature);
    const other = alg === "ES256" ? "ES384" : "ES256";
    const trusts = [
      ["the signer's key", [k.publicJwk], true],
      ["another key, same kid", [keyPair(alg, "k1").publicJwk], false],
      [`a ${other} key, same kid`, [keyPair(other, "k1").publicJwk], false],
      ["an Ed25519 or P-256 key, same kid", [keyPair(alg === "EdDSA" ? "ES256" : "EdDSA", "k1").publicJwk], false],
    ];
    for (const [trustName, keys, trusted] of trusts) {
      for (const [name, bytes, valid] of variants(alg, sig, k.publicJwk)) {
        cases.push({ what: `${alg}, ${trustName}, signature ${name}`, keys, text: withSignature(signed, bytes), ok: trusted && valid });
      }
    }
    const edited = JSON.parse(signed);
    edited.description += "!";
    cases.push({ what: `${alg}, edited card`, keys: [k.publicJwk], text: JSON.stringify(edited), ok: false });
  }
  return cases;
}
