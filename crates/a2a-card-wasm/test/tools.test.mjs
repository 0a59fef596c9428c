// lint, migrate, schema and generateKey: every lint and migration vector of testvectors/
// through the package, each answer the native CLI's (`lint --format json`, `migrate`, `schema`,
// `verify`), keys made in the module used by the CLI, and bad arguments refused by name.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { cli, lintVectors, loadNode, loadWeb, migrateVectors, sampleCard, scratch, thrown, vectorBytes } from "./helpers.mjs";

const lib = loadNode();
const reduced = (findings) => findings.map(({ rule, severity, pointer }) => ({ rule, severity, pointer }));

test("every lint vector: the expected findings, in order, from both builds", async () => {
  const web = await loadWeb();
  const rules = new Set();
  let n = 0;
  for (const { rule, file, v } of lintVectors()) {
    const input = vectorBytes(v);
    const report = lib.lint(input);
    assert.deepEqual(reduced(report.findings), v.expected, `${rule}/${file}`);
    for (const f of report.findings) assert.ok(f.message.length > 0, `${rule}/${file}: empty message`);
    const found = report.findings.some((f) => f.rule === rule);
    assert.equal(found, file.startsWith("trigger"), `${rule}/${file}: trigger or clean`);
    assert.deepEqual(web.lint(input.toString("utf8")), report, `${rule}/${file}: web build`);
    rules.add(rule);
    n += 1;
  }
  assert.ok(rules.size >= 10 && n >= 30, `${rules.size} rules, ${n} files`);
});

test("lint answers as the native CLI's lint --format json, messages included", (t) => {
  const run = cli(t);
  if (!run) return;
  for (const { rule, file, v } of lintVectors()) {
    const input = vectorBytes(v);
    const out = run(["lint", "-", "--format", "json"], input);
    assert.ok(out.code === 0 || out.code === 1, `${rule}/${file}: ${out.stderr}`);
    assert.deepEqual(lib.lint(input), JSON.parse(out.stdout.toString("utf8")), `${rule}/${file}`);
  }
  // Bytes that are not I-JSON are not lintable: the same error as the CLI's.
  const e = thrown(() => lib.lint('{"name":"a","name":"b"}'));
  assert.equal(e.code, "duplicate-member");
  assert.equal(e.pointer, "/name");
  const out = run(["lint", "-"], Buffer.from('{"name":"a","name":"b"}'));
  assert.equal(out.code, 2);
  assert.equal(out.stderr.trim(), `error[duplicate-member]: ${e.message} (<stdin>)`);
});

test("every migration vector: the expected 1.0 card, notes and loss; errors with code and pointer", () => {
  let n = 0;
  for (const { file, v } of migrateVectors()) {
    const options = v.options?.protocol_version ? { protocolVersion: v.options.protocol_version } : {};
    const input = vectorBytes(v);
    if (v.expected_error) {
      const e = thrown(() => lib.migrate(input, options));
      assert.equal(e.code, v.expected_error.code, `${file}: ${e.message}`);
      assert.equal(e.pointer, v.expected_error.pointer, file);
      n += 1;
      continue;
    }
    const m = lib.migrate(input, options);
    assert.equal(JSON.stringify(JSON.parse(m.card)), JSON.stringify(v.expected_card), `${file}: card, member order included`);
    const notes = (list) => list.map((x) => `${x.kind} ${x.pointer} -> ${x.target ?? ""}`).sort();
    assert.equal(m.notes.length, v.expected_notes.length, `${file}: notes`);
    // As a set (the library writes a target "*", every index of supportedInterfaces, as is).
    for (const want of v.expected_notes) {
      const match = m.notes.find((x) => x.kind === want.kind && x.pointer === want.pointer && x.target === want.target);
      assert.ok(match, `${file}: no note ${JSON.stringify(want)} among\n${notes(m.notes).join("\n")}`);
    }
    assert.equal(m.lost, v.expected_lost, `${file}: lost`);
    assert.equal(m.alreadyV1, v.already_v1 === true, `${file}: alreadyV1`);
    if (v.already_v1) assert.equal(m.card, input.toString("utf8"), `${file}: unchanged`);
    n += 1;
  }
  assert.ok(n >= 8, `${n} vectors`);
});

test("migrate answers as the native CLI: the same card bytes and notes", (t) => {
  const run = cli(t);
  if (!run) return;
  for (const { file, v } of migrateVectors()) {
    if (v.expected_error) continue;
    const input = vectorBytes(v);
    const args = v.options?.protocol_version ? ["--protocol-version", v.options.protocol_version] : [];
    const options = v.options?.protocol_version ? { protocolVersion: v.options.protocol_version } : {};
    const m = lib.migrate(input, options);
    const text = run(["migrate", "-", ...args], input);
    assert.equal(m.card, text.stdout.toString("utf8"), `${file}: the card bytes`);
    const json = JSON.parse(run(["migrate", "-", "--format", "json", ...args], input).stdout.toString("utf8"));
    assert.deepEqual(m.notes, json.notes, file);
    assert.equal(m.lost, json.lost, file);
    assert.equal(m.alreadyV1, json.alreadyV1, file);
    // The CLI exits 0 when it wrote the card; with --strict, 1 when something was lost.
    assert.equal(text.code, 0, `${file}: ${text.stderr}`);
    assert.equal(run(["migrate", "-", "--strict", ...args], input).code, m.lost ? 1 : 0, `${file}: --strict says what lost says`);
  }
  const empty = thrown(() => lib.migrate(sampleCard(), { protocolVersion: "" }));
  assert.equal(empty.message, 'option "protocolVersion" of migrate: the protocolVersion must not be empty');
  assert.equal(empty.option, "protocolVersion");
  // The options of lint, migrate, canonicalize and inspect are the core's tables: the names
  // each knows are its own (in the table's order), every bound is the core's.
  assert.match(thrown(() => lib.lint(sampleCard(), { profile: "spec" })).message, /unknown option "profile" of lint \(known: maxInputBytes, maxDepth\)/);
  assert.match(thrown(() => lib.inspect(sampleCard(), { maxDepths: 2 })).message, /unknown option "maxDepths" of inspect \(known: profile, unknown, maxInputBytes, maxDepth\)/);
  const deep = thrown(() => lib.lint(sampleCard(), { maxDepth: 513 }));
  assert.equal(deep.message, '"maxDepth" must be 1 to 512, got 513');
  assert.equal(deep.option, "maxDepth");
  const jcs = thrown(() => lib.canonicalize(sampleCard(), { profile: "jcs" }));
  assert.equal(jcs.message, 'profile "jcs" is not one of "spec", "served-as-is", "prune-empty", "a2a-sdk-0.3", "a2a-sdk-0.3.21"');
  assert.equal(jcs.option, "profile");
  assert.match(thrown(() => lib.migrate(sampleCard(), { protocol_version: "1.0" })).message, /unknown option "protocol_version"/);
});

test("schema is the native CLI's schema, both drafts", (t) => {
  const run = cli(t);
  if (!run) return;
  const s2020 = lib.schema();
  assert.deepEqual(s2020, JSON.parse(run(["schema"]).stdout.toString("utf8")));
  assert.deepEqual(lib.schema({ draft: "2020-12" }), s2020);
  assert.deepEqual(lib.schema({ draft: "07" }), JSON.parse(run(["schema", "--draft", "07"]).stdout.toString("utf8")));
  assert.equal(s2020.$schema, "https://json-schema.org/draft/2020-12/schema");
  assert.notEqual(lib.schema(), s2020, "a fresh object each call");
  const e = thrown(() => lib.schema({ draft: "2019-09" }));
  assert.equal(e.code, "usage");
  assert.match(e.message, /"2020-12", "07"/);
});

test("generateKey: keys made in the module sign cards the CLI verifies, and the CLI reads the PEM", (t) => {
  const run = cli(t);
  if (!run) return;
  const dir = scratch("keys");
  const card = sampleCard();
  for (const alg of ["EdDSA", "ES256", "ES384"]) {
    const k = lib.generateKey(alg);
    assert.equal(k.alg, alg);
    assert.equal(k.publicJwk.kid, k.kid);
    assert.equal(k.publicJwk.alg, alg);
    assert.equal(k.publicJwk.d, undefined, "no private member in the public JWK");
    assert.deepEqual(k.jwks, { keys: [k.publicJwk] });
    assert.ok(k.pem.startsWith("-----BEGIN PRIVATE KEY-----\n"), k.pem.slice(0, 40));
    assert.ok(typeof k.privateJwk.d === "string");
    const signed = lib.sign(card, k.privateJwk, { unknown: "exclude" });
    fs.writeFileSync(path.join(dir, "card.json"), signed);
    fs.writeFileSync(path.join(dir, "jwks.json"), JSON.stringify(k.jwks));
    const out = run(["verify", path.join(dir, "card.json"), "--jwks", path.join(dir, "jwks.json")]);
    assert.equal(out.code, 0, `${alg}: ${out.stdout}${out.stderr}`);
    fs.writeFileSync(path.join(dir, "key.pem"), k.pem);
    const jwks = JSON.parse(run(["jwks", path.join(dir, "key.pem")]).stdout.toString("utf8"));
    const { kid: _kid, alg: _alg, ...bare } = k.publicJwk;
    const { kid: _k2, alg: _a2, ...cliBare } = jwks.keys[0];
    assert.deepEqual(cliBare, bare, `${alg}: the PEM holds the same key`);
    // Two keys are two keys.
    assert.notEqual(lib.generateKey(alg).kid, k.kid);
  }
  assert.equal(lib.generateKey("ES256", { kid: "release-1" }).publicJwk.kid, "release-1");
  const rsa = thrown(() => lib.generateKey("RS256"));
  assert.equal(rsa.code, "unknown-algorithm");
  assert.match(rsa.message, /native-algs/);
  assert.equal(thrown(() => lib.generateKey("HS256")).code, "key-algorithm-mismatch");
  assert.equal(thrown(() => lib.generateKey("none")).code, "unknown-algorithm");
  assert.equal(thrown(() => lib.generateKey()).code, "usage");
  const emptyKid = thrown(() => lib.generateKey("ES256", { kid: "" }));
  assert.equal(emptyKid.code, "usage");
  assert.equal(emptyKid.message, 'option "kid" of generateKey: the kid must not be empty');
  assert.equal(thrown(() => lib.generateKey("ES256", { id: "x" })).code, "usage");
});
