// The web build in a real browser: headless Chromium (the system's, driven by puppeteer-core)
// loads the package from a static server on loopback, as a page would, and in that page:
// - every vector of testvectors/ (canonical, lint, migrate, the section 8.5 cards) gives the
//   result the native tests expect, and the Node build's answer, messages included;
// - a card signed in the page verifies with the native CLI, and a card signed by the CLI
//   verifies in the page, with the CLI's report;
// - verify (the module's own code) and verifyAsync (the page's WebCrypto) give byte-identical
//   reports on tampered signatures of every algorithm, and WebCrypto is really used;
// - 10,000 calls meeting a JavaScript exception (a throwing getter, a revoked Proxy, a detached
//   ArrayBuffer) each throw an A2ACardError and leave the module working.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import {
  canonicalProblems,
  canonicalVectors,
  cli,
  crateDir,
  lintVectors,
  loadNode,
  migrateVectors,
  missing,
  pkgDir,
  repoRoot,
  sampleCard,
  scratch,
  vectorBytes,
  vectorInputs,
  vectorOptions,
} from "../helpers.mjs";
import { ALGORITHMS, tamperCases } from "../tamper.mjs";
import { chromiumPath, chromiumPresent, launch, open, serve } from "./harness.mjs";

const node = loadNode();
let server;
let chromium;
let page;
let errors;

before(async () => {
  if (!chromiumPresent()) return;
  server = await serve({ "/pkg/": pkgDir, "/test/": path.join(crateDir, "test/browser") });
  chromium = await launch();
  ({ page, errors } = await open(chromium.browser, `${server.origin}/test/page.html`));
  await page.waitForFunction(() => window.a2aReady === true, { timeout: 60_000 });
});

after(async () => {
  await chromium?.close();
  await server?.close();
});

/** The page, or null (after `missing`) when there is no browser. */
function inPage(t) {
  if (!page) {
    missing(t, `headless Chromium at ${chromiumPath} (apt-get install chromium; scripts/setup.sh installs it)`);
    return null;
  }
  return page;
}

/** A value as the page's `input` reads it. */
function sent(form, value) {
  return form === "bytes" ? { form, hex: Buffer.from(value).toString("hex") } : { form, json: JSON.stringify(value) };
}

test("the page loads the web build from the loopback server, with WebCrypto and without node:crypto", async (t) => {
  const p = inPage(t);
  if (!p) return;
  const facts = await p.evaluate(() => ({
    web: window.a2a.lib.webCryptoAvailable(),
    host: window.a2a.lib.hostCryptoAvailable(),
    algorithms: window.a2a.lib.algorithms(),
    secure: window.isSecureContext,
    agent: navigator.userAgent,
  }));
  assert.equal(facts.web, true);
  assert.equal(facts.host, false, "no synchronous host crypto in a browser");
  assert.deepEqual(facts.algorithms, ALGORITHMS);
  assert.equal(facts.secure, true);
  assert.match(facts.agent, /HeadlessChrome|Chrome/);
  t.diagnostic(facts.agent);
  assert.deepEqual(errors, []);
});

test("every canonical vector in the page: the expected bytes, unsigned members and errors, as in Node", async (t) => {
  const p = inPage(t);
  if (!p) return;
  const items = [];
  for (const { v } of canonicalVectors()) {
    for (const [form, value] of vectorInputs(v)) items.push({ v, form, value, sent: sent(form, value), options: vectorOptions(v) });
  }
  const answers = await p.evaluate((list) => window.a2a.canonicalize(list), items.map(({ sent, options }) => ({ sent, options })));
  const problems = [];
  items.forEach(({ v, form, value, options }, i) => {
    const got = answers[i];
    for (const problem of canonicalProblems(v, got)) problems.push(`${v.id} (${form}): ${problem}`);
    // The Node build's answer, error messages included.
    let want;
    try {
      const r = node.canonicalizeWithReport(value, options);
      want = { ok: true, hex: Buffer.from(r.canonical, "utf8").toString("hex"), unsigned: r.unsigned, sha256: r.sha256 };
    } catch (e) {
      want = { ok: false, code: e.code, pointer: e.pointer, message: e.message };
    }
    try {
      assert.deepEqual(got, want);
    } catch {
      problems.push(`${v.id} (${form}): page ${JSON.stringify(got)}, node ${JSON.stringify(want)}`);
    }
  });
  assert.deepEqual(problems, [], problems.join("\n"));
  assert.ok(items.length > 200, `${items.length} inputs`);
  t.diagnostic(`${items.length} inputs of ${canonicalVectors().length} vectors matched in Chromium`);
});

test("every lint and migration vector in the page, as expected and as in Node", async (t) => {
  const p = inPage(t);
  if (!p) return;
  const lints = lintVectors();
  const texts = lints.map(({ v }) => vectorBytes(v).toString("utf8"));
  const linted = await p.evaluate((list) => window.a2a.lint(list), texts);
  lints.forEach(({ rule, file, v }, i) => {
    assert.equal(linted[i].ok, true, `${rule}/${file}: ${linted[i].message}`);
    const reduced = linted[i].report.findings.map(({ rule: r, severity, pointer }) => ({ rule: r, severity, pointer }));
    assert.deepEqual(reduced, v.expected, `${rule}/${file}`);
    assert.deepEqual(linted[i].report, node.lint(texts[i]), `${rule}/${file}: as in Node`);
  });
  const migrations = migrateVectors();
  const items = migrations.map(({ v }) => ({
    text: vectorBytes(v).toString("utf8"),
    options: v.options?.protocol_version ? { protocolVersion: v.options.protocol_version } : {},
  }));
  const migrated = await p.evaluate((list) => window.a2a.migrate(list), items);
  migrations.forEach(({ file, v }, i) => {
    const got = migrated[i];
    if (v.expected_error) {
      assert.equal(got.ok, false, file);
      assert.equal(got.code, v.expected_error.code, file);
      assert.equal(got.pointer, v.expected_error.pointer, file);
      return;
    }
    assert.equal(got.ok, true, `${file}: ${got.message}`);
    assert.equal(JSON.stringify(JSON.parse(got.migration.card)), JSON.stringify(v.expected_card), `${file}: card`);
    assert.equal(got.migration.lost, v.expected_lost, `${file}: lost`);
    assert.deepEqual(got.migration, node.migrate(items[i].text, items[i].options), `${file}: as in Node`);
  });
  t.diagnostic(`${lints.length} lint and ${migrations.length} migration vectors matched in Chromium`);
});

test("the section 8.5 cards in the page: inspect, verify and verifyAsync as the native CLI reports", async (t) => {
  const p = inPage(t);
  if (!p) return;
  const run = cli(t);
  if (!run) return;
  const dir = scratch("browser-cards");
  // The sample's signature names kid "key-1", whose key the specification does not publish: a
  // trusted key under that kid answers signature-invalid, another kid untrusted-key.
  const gen = run(["keygen", "--alg", "ES256", "--kid", "key-1", "--out", path.join(dir, "k.pem"), "--jwks", path.join(dir, "jwks.json")]);
  assert.equal(gen.code, 0, gen.stderr);
  const jwks = fs.readFileSync(path.join(dir, "jwks.json"), "utf8");
  for (const name of ["sample-8.5.json", "sample-8.5-unsigned.json"]) {
    const file = path.join(repoRoot, "testvectors/cards", name);
    const text = fs.readFileSync(file, "utf8");
    const inspected = await p.evaluate((c) => window.a2a.lib.inspect(c), text);
    assert.deepEqual(inspected, node.inspect(text), name);
    for (const profile of ["spec", "auto"]) {
      const out = run(["verify", file, "--jwks", path.join(dir, "jwks.json"), "--format", "json", "--profile", profile, "--mode", "if-present"]);
      const native = JSON.parse(out.stdout.toString("utf8"));
      const [both] = await p.evaluate((items) => window.a2a.verifyBoth(items), [{ text, options: { jwks, profile, mode: "if-present" } }]);
      assert.equal(both.sync, both.later, `${name} ${profile}: verify and verifyAsync`);
      assert.equal(both.fn, both.later, `${name} ${profile}: verifyAsync and Verifier#verifyAsync`);
      const report = JSON.parse(both.later);
      // The CLI names a key by its file, the package by its option.
      for (const s of native.signatures) if (s.key) s.key.source = "jwks";
      assert.deepEqual(report, native, `${name} ${profile}: the CLI's report`);
      assert.equal(out.code, report.ok ? 0 : 1);
    }
  }
});

test("a card signed in the page verifies with the native CLI, and the reverse", async (t) => {
  const p = inPage(t);
  if (!p) return;
  const run = cli(t);
  if (!run) return;
  const dir = scratch("browser-sign");
  const card = sampleCard();
  for (const alg of ["EdDSA", "ES256", "ES384"]) {
    // In the page: a key made there, the card signed there.
    const made = await p.evaluate(
      (c, a) => {
        const k = window.a2a.lib.generateKey(a);
        return { jwks: k.jwks, signed: window.a2a.lib.sign(c, k.privateJwk, { unknown: "exclude" }) };
      },
      card,
      alg,
    );
    const cardFile = path.join(dir, `${alg}-page.json`);
    const jwksFile = path.join(dir, `${alg}-page.jwks.json`);
    fs.writeFileSync(cardFile, made.signed);
    fs.writeFileSync(jwksFile, JSON.stringify(made.jwks));
    const out = run(["verify", cardFile, "--jwks", jwksFile, "--format", "json"]);
    assert.equal(out.code, 0, `${alg}: the CLI refused the page's card: ${out.stdout}${out.stderr}`);
    const native = JSON.parse(out.stdout.toString("utf8"));
    assert.equal(native.signatures[0].alg, alg);
    // By the CLI: keygen and sign; verified in the page both ways.
    const key = path.join(dir, `${alg}.pem`);
    const cliJwks = path.join(dir, `${alg}.jwks.json`);
    assert.equal(run(["keygen", "--alg", alg, "--out", key, "--jwks", cliJwks]).code, 0);
    const signed = run(["sign", path.join(repoRoot, "testvectors/cards/sample-8.5-unsigned.json"), "--key", key, "--unknown", "exclude"]);
    assert.equal(signed.code, 0, signed.stderr);
    const text = signed.stdout.toString("utf8");
    const jwks = fs.readFileSync(cliJwks, "utf8");
    const [both] = await p.evaluate((items) => window.a2a.verifyBoth(items), [{ text, options: { jwks } }]);
    assert.equal(both.sync, both.later, alg);
    const report = JSON.parse(both.later);
    assert.equal(report.ok, true, `${alg}: ${report.reason}`);
    fs.writeFileSync(path.join(dir, `${alg}-cli.json`), text);
    const nativeReport = JSON.parse(run(["verify", path.join(dir, `${alg}-cli.json`), "--jwks", cliJwks, "--format", "json"]).stdout.toString("utf8"));
    nativeReport.signatures[0].key.source = "jwks";
    assert.deepEqual(report, nativeReport, `${alg}: the CLI's report`);
  }
});

test("tampered signatures of every algorithm in the page: verify and verifyAsync give byte-identical reports, through WebCrypto", async (t) => {
  const p = inPage(t);
  if (!p) return;
  const cases = tamperCases(node, sampleCard());
  const before = await p.evaluate(() => window.webCryptoVerifies);
  const answers = await p.evaluate((items) => window.a2a.verifyBoth(items), cases.map(({ keys, text }) => ({ text, options: { keys } })));
  const webChecks = (await p.evaluate(() => window.webCryptoVerifies)) - before;
  const verdicts = new Set();
  cases.forEach(({ what, keys, text, ok }, i) => {
    const { sync, later, fn } = answers[i];
    assert.equal(later, sync, what);
    assert.equal(fn, sync, `${what}: the function API`);
    // The same as Node's module code, byte for byte.
    assert.equal(sync, JSON.stringify(node.verify(text, { keys, hostCrypto: false })), `${what}: as in Node`);
    const report = JSON.parse(sync);
    assert.equal(report.ok, ok, `${what}: ${report.signatures[0].verdict.message}`);
    verdicts.add(report.signatures[0].verdict.code);
  });
  assert.ok(cases.length > 400, `${cases.length} cases`);
  // Two verifyAsync calls per case reach WebCrypto whenever the checks before the primitive pass.
  assert.ok(webChecks > cases.length, `WebCrypto made ${webChecks} checks for ${cases.length} cases`);
  for (const code of ["valid", "signature-invalid", "key-algorithm-mismatch"]) assert.ok(verdicts.has(code), [...verdicts].join(" "));
  t.diagnostic(`${cases.length} cases, ${webChecks} WebCrypto checks`);
  assert.deepEqual(errors, []);
});

test("in the page, exceptions from JavaScript are A2ACardErrors and leave the module working", async (t) => {
  const p = inPage(t);
  if (!p) return;
  const result = await p.evaluate(async () => {
    const lib = window.a2a.lib;
    const card = '{"name":"A","description":"d","version":"1","skills":[]}';
    const key = lib.generateKey("ES256");
    const signed = lib.sign(card, key.privateJwk);
    const revoked = () => {
      const { proxy, revoke } = Proxy.revocable({}, {});
      revoke();
      return proxy;
    };
    const detached = () => {
      const buffer = new TextEncoder().encode(card).buffer;
      structuredClone(buffer, { transfer: [buffer] });
      return buffer;
    };
    const calls = [
      () => lib.verify(signed, { jwks: key.jwks, get algorithms() { throw new Error("config not loaded"); } }),
      () => lib.verify(signed, revoked()),
      () => lib.canonicalize(detached()),
      () => lib.canonicalize(card, new Proxy({}, { ownKeys() { throw new Error("trap"); } })),
    ];
    const names = new Set();
    for (let i = 0; i < 10000; i++) {
      try {
        calls[i % calls.length]();
      } catch (e) {
        names.add(e.name);
      }
    }
    let asyncThrew = false;
    let rejection = null;
    try {
      await lib.verifyAsync(signed, revoked()).catch((e) => (rejection = e.name));
    } catch (_) {
      asyncThrew = true;
    }
    return { names: [...names], ok: lib.verify(signed, { jwks: key.jwks }).ok, asyncOk: (await lib.verifyAsync(signed, { jwks: key.jwks })).ok, asyncThrew, rejection };
  });
  assert.deepEqual(result, { names: ["A2ACardError"], ok: true, asyncOk: true, asyncThrew: false, rejection: "A2ACardError" });
  assert.deepEqual(errors, []);
});
