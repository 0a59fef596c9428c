// Signatures across implementations: signed in wasm and verified by the native CLI, signed by
// the native CLI and verified in wasm, and signed by the npm `jose` library (FlattenedSign over
// our canonical bytes) and verified in wasm, and the reverse with jose's flattenedVerify. Keys
// are made by node:crypto, by jose and by `a2a-card keygen`, never by the code under test.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import * as jose from "jose";
import { cli, generateKeyPair, loadNode, sampleCard, scratch } from "./helpers.mjs";

const lib = loadNode();

/** Key pairs from node:crypto, one per algorithm this build offers, as JWK and PKCS#8 PEM. */
function nodeKeys() {
  const make = (alg, type, opts) => {
    const { privateKey, publicKey } = generateKeyPair(type, opts);
    const kid = `node-${alg.toLowerCase()}`;
    return {
      alg,
      kid,
      privateJwk: { ...privateKey.export({ format: "jwk" }), kid },
      privatePem: privateKey.export({ format: "pem", type: "pkcs8" }),
      publicJwk: { ...publicKey.export({ format: "jwk" }), kid },
    };
  };
  return [
    make("EdDSA", "ed25519"),
    make("ES256", "ec", { namedCurve: "P-256" }),
    make("ES384", "ec", { namedCurve: "P-384" }),
    make("RS256", "rsa", { modulusLength: 2048 }),
    make("PS256", "rsa", { modulusLength: 2048 }),
  ];
}

/** The card with its description changed: covered by every profile, so every signature breaks. */
function tampered(text) {
  const card = JSON.parse(text);
  card.description += " (edited)";
  return JSON.stringify(card);
}

/** The fields of two reports that must agree whoever computed them (not the key's source). */
function comparable(report) {
  return {
    ok: report.ok,
    mode: report.mode,
    reason: report.reason,
    profile: report.profile,
    canonical_sha256: report.canonical_sha256,
    canonical: report.canonical,
    unsigned: report.unsigned,
    signatures: report.signatures.map(({ key, ...s }) => ({
      ...s,
      key: key && { kid: key.kid, thumbprint: key.thumbprint },
    })),
  };
}

test("signed in wasm, verified by the native CLI (every algorithm, PEM and JWK keys)", async (t) => {
  const run = cli(t);
  if (!run) return;
  const dir = scratch("wasm-to-cli");
  for (const k of nodeKeys()) {
    const jwksFile = path.join(dir, `${k.kid}.jwks.json`);
    fs.writeFileSync(jwksFile, JSON.stringify({ keys: [k.publicJwk] }));
    for (const [form, key] of [["jwk", k.privateJwk], ["pem", k.privatePem]]) {
      for (const profile of ["spec", "prune-empty"]) {
        const what = `${k.alg} ${form} ${profile}`;
        const signed = lib.sign(sampleCard(), key, { unknown: "exclude", alg: k.alg, kid: k.kid, profile });
        const file = path.join(dir, `${k.kid}-${form}-${profile}.json`);
        fs.writeFileSync(file, signed);
        const args = ["verify", file, "--jwks", jwksFile, "--format", "json", "--profile", profile];
        const out = run(args);
        assert.equal(out.code, 0, `${what}: CLI exit ${out.code}: ${out.stderr}`);
        const native = JSON.parse(out.stdout.toString("utf8"));
        assert.equal(native.ok, true, what);
        assert.equal(native.signatures[0].kid, k.kid, what);
        assert.equal(native.signatures[0].alg, k.alg, what);
        const ours = lib.verify(signed, { jwks: { keys: [k.publicJwk] }, profile });
        assert.deepEqual(comparable(ours), comparable(native), `${what}: reports differ`);

        const bad = path.join(dir, `${k.kid}-${form}-${profile}.bad.json`);
        fs.writeFileSync(bad, tampered(signed));
        const outBad = run(["verify", bad, "--jwks", jwksFile, "--format", "json", "--profile", profile]);
        assert.equal(outBad.code, 1, `${what}: tampered card, CLI exit ${outBad.code}`);
        const nativeBad = JSON.parse(outBad.stdout.toString("utf8"));
        assert.equal(nativeBad.signatures[0].verdict.code, "signature-invalid", what);
        const oursBad = lib.verify(fs.readFileSync(bad), { jwks: { keys: [k.publicJwk] }, profile });
        assert.deepEqual(comparable(oursBad), comparable(nativeBad), `${what}: tampered reports differ`);
      }
    }
  }
});

test("signed by the native CLI (keygen, sign), verified in wasm", async (t) => {
  const run = cli(t);
  if (!run) return;
  const dir = scratch("cli-to-wasm");
  const card = path.join(dir, "card.json");
  fs.writeFileSync(card, sampleCard());
  for (const alg of ["EdDSA", "ES256", "ES384", "RS256", "PS384"]) {
    const keyFile = path.join(dir, `${alg}.pem`);
    const jwksFile = path.join(dir, `${alg}.jwks.json`);
    const gen = run(["keygen", "--alg", alg, "--out", keyFile, "--jwks", jwksFile]);
    assert.equal(gen.code, 0, `keygen ${alg}: ${gen.stderr}`);
    for (const profile of ["spec", "served-as-is"]) {
      const out = run(["sign", card, "--key", keyFile, "--alg", alg, "--profile", profile, "--unknown", "exclude"]);
      assert.equal(out.code, 0, `sign ${alg}: ${out.stderr}`);
      const signed = out.stdout; // a Buffer: the card's exact bytes
      const jwks = fs.readFileSync(jwksFile, "utf8");
      const report = lib.verify(new Uint8Array(signed), { jwks, profile });
      assert.equal(report.ok, true, `${alg} ${profile}: ${report.reason}`);
      assert.equal(report.signatures[0].verdict.code, "valid");
      assert.equal(report.signatures[0].alg, alg);
      assert.equal(report.profile, profile);
      // The same bytes under "auto" name the profile that matched.
      assert.equal(lib.verify(signed.toString("utf8"), { jwks, profile: "auto" }).profile, profile);
      // The report agrees with the CLI's on the same file.
      const file = path.join(dir, `${alg}-${profile}.signed.json`);
      fs.writeFileSync(file, signed);
      const native = JSON.parse(run(["verify", file, "--jwks", jwksFile, "--format", "json", "--profile", profile]).stdout);
      assert.deepEqual(comparable(report), comparable(native));
      // Edited after signing: refused.
      const bad = lib.verify(tampered(signed.toString("utf8")), { jwks, profile });
      assert.equal(bad.ok, false);
      assert.equal(bad.signatures[0].verdict.code, "signature-invalid");
      // Another key's JWKS: untrusted.
      const other = nodeKeys()[1].publicJwk;
      const untrusted = lib.verify(signed.toString("utf8"), { keys: [other], profile });
      assert.equal(untrusted.ok, false);
      assert.equal(untrusted.signatures[0].verdict.code, "untrusted-key");
    }
  }
});

const b64url = (bytes) => Buffer.from(bytes).toString("base64url");

test("signed by jose (FlattenedSign over our canonical bytes), verified in wasm", async () => {
  for (const alg of ["ES256", "ES384", "EdDSA", "RS256", "PS256", "RS512"]) {
    const { privateKey, publicKey } = await jose.generateKeyPair(alg, { extractable: true });
    const kid = `jose-${alg}`;
    const publicJwk = { ...(await jose.exportJWK(publicKey)), kid };
    for (const profile of ["spec", "prune-empty", "served-as-is"]) {
      const text = sampleCard();
      const canonical = lib.canonicalize(text, { profile });
      const jws = await new jose.FlattenedSign(new TextEncoder().encode(canonical))
        .setProtectedHeader({ alg, kid, typ: "JOSE" })
        .sign(privateKey);
      const card = JSON.parse(text);
      card.signatures = [{ protected: jws.protected, signature: jws.signature }];
      const signed = JSON.stringify(card, null, 2);
      const report = lib.verify(signed, { jwks: { keys: [publicJwk] }, profile });
      assert.equal(report.ok, true, `${alg} ${profile}: ${report.reason}`);
      assert.equal(report.signatures[0].verdict.code, "valid");
      assert.equal(report.signatures[0].key.kid, kid);
      assert.equal(report.canonical, canonical);
      // The object form of the same card verifies too.
      assert.equal(lib.verify(card, { keys: publicJwk, profile }).ok, true);
      // Edited: refused. A profile whose bytes differ (on this card spec and prune-empty give
      // the same bytes; served-as-is keeps the two unknown members): no valid signature.
      assert.equal(lib.verify(tampered(signed), { jwks: { keys: [publicJwk] }, profile }).signatures[0].verdict.code, "signature-invalid");
      const others = ["spec", "prune-empty", "served-as-is"].filter((p) => lib.canonicalize(text, { profile: p }) !== canonical);
      assert.ok(others.length >= 1);
      assert.equal(lib.verify(signed, { jwks: { keys: [publicJwk] }, profiles: others }).ok, false, `${alg} ${profile}`);
    }
  }
});

test("signed in wasm, verified by jose (flattenedVerify over the canonical bytes)", async () => {
  for (const k of nodeKeys()) {
    const text = sampleCard();
    const signed = JSON.parse(lib.sign(text, k.privatePem, { unknown: "exclude", kid: k.kid, alg: k.alg, jku: "https://example.com/jwks.json" }));
    assert.equal(signed.signatures.length, 1);
    const entry = signed.signatures[0];
    const header = jose.decodeProtectedHeader(entry);
    // Over the specification's bytes the header is the specification's: nothing declared.
    assert.deepEqual(header, {
      alg: k.alg,
      kid: k.kid,
      typ: "JOSE",
      jku: "https://example.com/jwks.json",
    });
    const key = await jose.importJWK(k.publicJwk, k.alg);
    const payload = b64url(new TextEncoder().encode(lib.canonicalize(text)));
    const result = await jose.flattenedVerify({ payload, protected: entry.protected, signature: entry.signature }, key);
    assert.equal(new TextDecoder().decode(result.payload), lib.canonicalize(text));
    // A different payload fails in jose too.
    const other = b64url(new TextEncoder().encode(lib.canonicalize(tampered(text))));
    await assert.rejects(jose.flattenedVerify({ payload: other, protected: entry.protected, signature: entry.signature }, key));
  }
});
