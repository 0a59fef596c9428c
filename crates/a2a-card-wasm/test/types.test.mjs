// The hand-written TypeScript declarations of both builds compile with tsc --strict against a
// file that uses every function and option (types/usage.ts), and misuse is a type error.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { loadNode, migrateVectors, pkgDir, scratch, testDir, x5cFile } from "./helpers.mjs";

function tsc(dir, file) {
  const config = {
    compilerOptions: {
      strict: true,
      noEmit: true,
      module: "nodenext",
      moduleResolution: "nodenext",
      target: "es2022",
      types: [],
      paths: {
        "a2a-card-node": [path.join(pkgDir, "node/a2a_card.d.ts")],
        "a2a-card-node-esm": [path.join(pkgDir, "node/a2a_card.d.mts")],
        "a2a-card-web": [path.join(pkgDir, "web/a2a_card.d.ts")],
      },
    },
    files: [file],
  };
  fs.writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify(config));
  const bin = path.join(testDir, "node_modules/typescript/bin/tsc");
  return spawnSync(process.execPath, [bin, "-p", dir], { encoding: "utf8", timeout: 120_000 });
}

test("the TypeScript declarations compile and reject misuse", () => {
  const dir = scratch("types");
  const good = tsc(dir, path.join(testDir, "types/usage.ts"));
  assert.equal(good.status, 0, `tsc: ${good.stdout}${good.stderr}`);
  const badFile = path.join(dir, "bad.ts");
  fs.writeFileSync(
    badFile,
    'import { canonicalize, verify, verifyAsync, lint, generateKey, schema } from "a2a-card-node";\n' +
      'canonicalize("{}", { profile: "bogus" });\n' +
      'const ok: number = verify("{}", { keys: [] }).ok;\n' +
      'verify("{}", { jwk: {} });\n' +
      'const sync: boolean = verifyAsync("{}", { keys: [] }).ok;\n' +
      'lint("{}", { profile: "spec" });\n' +
      'generateKey("HS999");\n' +
      'schema({ draft: "2019-09" });\n',
  );
  const bad = tsc(dir, badFile);
  assert.notEqual(bad.status, 0);
  const errors = bad.stdout.split("\n").filter((l) => l.includes("error TS"));
  assert.equal(errors.length, 7, bad.stdout);
});

/** The member names an `export interface NAME` of a .d.ts declares. */
function declared(dts, name) {
  const start = dts.search(new RegExp(`^export interface ${name}\\b[^{]*\\{`, "m"));
  assert.ok(start >= 0, `the declarations have no interface ${name}`);
  const body = dts.slice(dts.indexOf("{", start) + 1, dts.indexOf("\n}", start));
  return new Set([...body.matchAll(/^ +(?:readonly )?([A-Za-z_][A-Za-z0-9_]*)\??:/gm)].map((m) => m[1]));
}

test("every member of what the functions return is declared, and every declared member occurs", () => {
  const lib = loadNode();
  const dts = fs.readFileSync(path.join(pkgDir, "node/a2a_card.d.ts"), "utf8");
  // Real values of every shape: a valid signature, a tampered one, an untrusted kid, a header
  // refused at a pointer; lint findings; a migration; a key; an inspection.
  const key = lib.generateKey("ES256", { kid: "a" });
  const card = lib.sign('{"name":"A","description":"d","skills":[]}', key.privateJwk);
  const tampered = JSON.parse(card);
  tampered.signatures.push({ ...tampered.signatures[0], signature: `${tampered.signatures[0].signature.slice(0, -4)}AAAA` });
  tampered.signatures.push({ protected: "eyJhbGciOiJub25lIn0", signature: "" });
  const report = lib.verify(JSON.stringify(tampered), { jwks: key.jwks, mode: "all" });
  const untrusted = lib.verify(card, { jwks: lib.generateKey("ES256", { kid: "b" }).jwks });
  // A signature trusted through an x5c chain (the report's certificate member).
  const chained = lib.verify(
    lib.sign('{"name":"A","description":"d","skills":[]}', x5cFile("leaf.key.pem"), { x5c: x5cFile("chain.pem") }),
    { trustAnchors: x5cFile("root.pem"), identity: "spiffe://example.org/ns/agents/sa/travel" },
  );
  const migration = lib.migrate(migrateVectors().find(({ file }) => file === "freight-tracker.json").v.input);
  const shapes = {
    Report: [report, untrusted],
    SignatureReport: [...report.signatures, ...untrusted.signatures, ...chained.signatures],
    CertificateUsed: chained.signatures.map((s) => s.certificate),
    ChainCert: chained.signatures.flatMap((s) => s.certificate.chain),
    Verdict: [...report.signatures, ...untrusted.signatures].map((s) => s.verdict),
    KeyUsed: report.signatures.map((s) => s.key).filter(Boolean),
    CanonicalReport: [lib.canonicalizeWithReport(card)],
    Inspection: [lib.inspect(JSON.stringify(tampered))],
    EntryInfo: lib.inspect(JSON.stringify(tampered)).signatures,
    LintReport: [lib.lint('{"name":"A","url":"http://a"}')],
    Finding: lib.lint('{"name":"A","url":"http://a"}').findings,
    Migration: [migration],
    MigrationNote: migration.notes,
    GeneratedKey: [key],
  };
  for (const [name, values] of Object.entries(shapes)) {
    assert.ok(values.length > 0, `no ${name} to compare`);
    const want = declared(dts, name);
    const seen = new Set(values.flatMap((v) => Object.keys(v)));
    for (const m of seen) assert.ok(want.has(m), `${name}.${m} is returned but not declared`);
    for (const m of want) assert.ok(seen.has(m), `${name}.${m} is declared but never returned here`);
  }
  // A thrown error carries the members A2ACardError declares.
  let err;
  try {
    lib.canonicalize('{"a":1,"a":2}');
  } catch (e) {
    err = e;
  }
  for (const m of declared(dts, "A2ACardError")) assert.ok(m in err, `A2ACardError.${m} is declared but missing`);
});
