// The hand-written TypeScript declarations of both builds compile with tsc --strict against a
// file that uses every function and option (types/usage.ts), and misuse is a type error. The
// package's JavaScript glue and declarations are files (crates/a2a-card-wasm/js/): they
// type-check with tsc --checkJs --strict (js/tsconfig.json, the JSDoc types of the .js files),
// and the built package carries them as written.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { crateDir, loadNode, migrateVectors, pkgDir, scratch, testDir, x5cFile } from "./helpers.mjs";

const tscBin = path.join(testDir, "node_modules/typescript/bin/tsc");
const jsDir = path.join(crateDir, "js");

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
  return spawnSync(process.execPath, [tscBin, "-p", dir], { encoding: "utf8", timeout: 120_000 });
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

test("the glue's JavaScript and declarations type-check (tsc --checkJs --strict)", () => {
  const r = spawnSync(process.execPath, [tscBin, "-p", jsDir], { encoding: "utf8", timeout: 120_000 });
  assert.equal(r.status, 0, `tsc -p ${jsDir}: ${r.stdout}${r.stderr}`);
  // Every .js and .d.ts of js/ is in the check, each .js with // @ts-check.
  const config = JSON.parse(fs.readFileSync(path.join(jsDir, "tsconfig.json"), "utf8"));
  assert.equal(config.compilerOptions.strict, true);
  assert.equal(config.compilerOptions.checkJs, true);
  const sources = fs.readdirSync(jsDir).filter((f) => f.endsWith(".js") || f.endsWith(".d.ts"));
  assert.deepEqual([...config.files].sort(), sources.sort());
  for (const f of sources.filter((f) => f.endsWith(".js"))) {
    assert.match(fs.readFileSync(path.join(jsDir, f), "utf8"), /^\/\/ @ts-check\n/, f);
  }
});

test("the built package carries the glue and the declarations of js/ as written", () => {
  // wasm-bindgen re-indents the declarations it writes: compared line by line, indentation aside.
  const lines = (text) => text.split("\n").map((l) => l.trim());
  const dts = lines(fs.readFileSync(path.join(jsDir, "types.d.ts"), "utf8").trimEnd());
  for (const target of ["node", "web"]) {
    const built = lines(fs.readFileSync(path.join(pkgDir, target, "a2a_card.d.ts"), "utf8"));
    const at = built.findIndex((_, i) => dts.every((l, j) => built[i + j] === l));
    assert.ok(at >= 0, `${target}/a2a_card.d.ts does not hold js/types.d.ts`);
  }
  // The web build's snippets are the files themselves (the Node build's are made CommonJS).
  const snippets = fs.readdirSync(path.join(pkgDir, "web/snippets"), { recursive: true });
  for (const f of fs.readdirSync(jsDir).filter((f) => f.endsWith(".js"))) {
    const built = snippets.filter((s) => s.replaceAll("\\", "/").endsWith(`/js/${f}`));
    assert.equal(built.length, 1, `web/snippets: js/${f}`);
    const text = fs.readFileSync(path.join(pkgDir, "web/snippets", built[0]), "utf8");
    assert.equal(text, fs.readFileSync(path.join(jsDir, f), "utf8"), `web/snippets/${built[0]}`);
  }
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
  // A member one edit away from a defined one (the report's did_you_mean member).
  const near = lib.verify(
    lib.sign('{"name":"A","description":"d","skills":[],"documentationURL":"https://a.example/d"}', key.privateJwk, { unknown: "exclude" }),
    { jwks: key.jwks },
  );
  const migration = lib.migrate(migrateVectors().find(({ file }) => file === "freight-tracker.json").v.input);
  const shapes = {
    Report: [report, untrusted, near],
    NearMember: near.did_you_mean,
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
