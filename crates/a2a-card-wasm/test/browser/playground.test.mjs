// The playground (crates/a2a-card-wasm/playground, built by scripts/build-playground.sh into
// pkg/playground/index.html) driven in headless Chromium as a person would use it: a card file
// opened, its canonical text under each profile, the unsigned members listed and highlighted in
// the card, a lint finding that leads to its member, the decoded signature headers, a JWK Set
// pasted and the verdict, a key made in the page and the card signed with it (the native CLI
// verifies it), a 0.3 card migrated. The page asks for nothing but itself, and loads from
// file:// too. A screenshot is saved as target/playground.png.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, test } from "node:test";
import { cli, loadNode, migrateVectors, missing, pkgDir, repoRoot, scratch, vectorBytes } from "../helpers.mjs";
import { chromiumPath, chromiumPresent, launch, open, serve } from "./harness.mjs";

const node = loadNode();
const built = path.join(pkgDir, "playground/index.html");
const sampleFile = path.join(repoRoot, "testvectors/cards/sample-8.5-unsigned.json");
const signedSampleFile = path.join(repoRoot, "testvectors/cards/sample-8.5.json");
const targetDir = process.env.CARGO_TARGET_DIR ? path.resolve(repoRoot, process.env.CARGO_TARGET_DIR) : path.join(repoRoot, "target");

let server;
let chromium;
let page;
let errors;
const requested = [];

before(async () => {
  if (!chromiumPresent() || !fs.existsSync(built)) return;
  server = await serve({ "/playground/": path.dirname(built) });
  chromium = await launch();
  ({ page, errors } = await open(chromium.browser, "about:blank"));
  page.on("request", (r) => requested.push(r.url()));
  await page.setViewport({ width: 1400, height: 1000 });
  await page.goto(`${server.origin}/playground/index.html`, { waitUntil: "load" });
  await page.waitForSelector("body[data-ready=true]", { timeout: 60_000 });
});

after(async () => {
  await chromium?.close();
  await server?.close();
});

function ready(t) {
  if (!chromiumPresent()) {
    missing(t, `headless Chromium at ${chromiumPath} (apt-get install chromium; scripts/setup.sh installs it)`);
    return null;
  }
  if (!fs.existsSync(built)) {
    missing(t, `the built playground at ${built} (scripts/build-playground.sh)`);
    return null;
  }
  return page;
}

const text = (p, selector) => p.$eval(selector, (e) => e.textContent);
const texts = (p, selector) => p.$$eval(selector, (list) => list.map((e) => e.textContent));

/** Types nothing: sets a text box's value and fires the input event, as a paste does. */
async function paste(p, selector, value) {
  await p.$eval(
    selector,
    (e, v) => {
      e.value = v;
      e.dispatchEvent(new Event("input", { bubbles: true }));
    },
    value,
  );
}

/** Waits until the verdict shows `word` (VALID, INVALID) and returns its text. */
async function verdict(p, word) {
  await p.waitForFunction((w) => document.getElementById("verdict").textContent.startsWith(w), { timeout: 30_000 }, word);
  return text(p, "#verdict");
}

test("a card file opened in the playground: canonical text per profile, unsigned members, lint linked to its member", async (t) => {
  const p = ready(t);
  if (!p) return;
  const card = fs.readFileSync(sampleFile, "utf8");
  const [chooser] = await Promise.all([p.waitForFileChooser(), p.click("label.button")]);
  await chooser.accept([sampleFile]);
  await p.waitForFunction((want) => document.getElementById("card-input").value === want, {}, card);
  await p.waitForFunction(() => document.getElementById("canonical-text").textContent.length > 0);
  assert.equal(await text(p, "#canonical-text"), node.canonicalize(card));
  const report = node.canonicalizeWithReport(card);
  assert.equal(await text(p, "#canonical-facts"), `${report.bytes} bytes · SHA-256 ${report.sha256}`);
  assert.deepEqual(await texts(p, "#unsigned-list li"), ["/capabilities/stateTransitionHistory", "/security"]);
  // The unsigned members are marked in the card view, over their own text.
  const marks = await p.$$eval("#card-view mark.unsigned", (list) => list.map((m) => [m.dataset.pointer, m.textContent]));
  assert.deepEqual(marks.map(([pointer]) => pointer), ["/capabilities/stateTransitionHistory", "/security"]);
  assert.match(marks[0][1], /^"stateTransitionHistory": false$/);
  assert.match(marks[1][1], /^"security": \[/);
  // Each profile's bytes.
  for (const profile of ["prune-empty", "served-as-is", "spec"]) {
    await p.click(`.tabs button[data-profile="${profile}"]`);
    assert.equal(await text(p, "#canonical-text"), node.canonicalize(card, { profile }), profile);
    assert.deepEqual(await texts(p, "#unsigned-list li"), node.canonicalizeWithReport(card, { profile }).unsigned.length ? node.canonicalizeWithReport(card, { profile }).unsigned : ["none: every member is covered"], profile);
  }
  // Lint: the library's findings, each linked to its member.
  const findings = node.lint(card).findings;
  assert.equal(await text(p, "#lint-summary"), "0 errors, 2 warnings");
  const shown = await p.$$eval("#lint-list li", (list) => list.map((li) => [li.dataset.rule, li.querySelector("a.pointer").dataset.pointer, li.querySelector(".message").textContent]));
  assert.deepEqual(shown, findings.map((f) => [f.rule, f.pointer, f.message]));
  await p.click('#lint-list li a.pointer[data-pointer="/security"]');
  const flagged = await p.$eval("#card-view mark.flagged", (m) => [m.dataset.pointer, m.textContent]);
  assert.equal(flagged[0], "/security");
  assert.ok(flagged[1].startsWith('"security": ['), flagged[1]);
  assert.equal(await text(p, "#signature-list"), "The card is not signed.");
  assert.deepEqual(errors, []);
});

test("the signed section 8.5 sample: decoded signature headers; a pasted JWK Set gives the verdict", async (t) => {
  const p = ready(t);
  if (!p) return;
  const signed = fs.readFileSync(signedSampleFile, "utf8");
  await paste(p, "#card-input", signed);
  await p.waitForSelector("#signature-list .entry");
  const entry = await text(p, "#signature-list .entry");
  const inspected = node.inspect(signed).signatures[0];
  for (const part of ["alg", "ES256", "kid", "key-1", "typ", "JOSE", "jku", inspected.jku, "64 bytes"]) assert.ok(entry.includes(part), `${part} in ${entry}`);
  assert.ok(entry.includes('"kid": "key-1"'), "the protected header, decoded and laid out");
  // A JWK Set whose key has the sample's kid: the signature is checked, and does not verify (the
  // specification publishes no key for it).
  const k = node.generateKey("ES256", { kid: "key-1" });
  await paste(p, "#trust-input", JSON.stringify(k.jwks));
  const said = await verdict(p, "INVALID");
  assert.match(said, /none of the 1 signatures verifies/);
  assert.deepEqual(await p.$$eval("#verdict-list li[data-code]", (l) => l.map((li) => li.dataset.code)), ["signature-invalid"]);
  // A trust store that is not one: the library's error, shown.
  await p.select("#trust-kind", "trust");
  await paste(p, "#trust-input", '{"keys": [{"jwk": {"kty": "EC"}}]}');
  await p.waitForFunction(() => document.getElementById("verdict").textContent.startsWith("cannot verify"));
  await p.select("#trust-kind", "jwks");
});

test("a card signed by the CLI verifies in the playground; a card signed in the playground verifies with the CLI", async (t) => {
  const p = ready(t);
  if (!p) return;
  const run = cli(t);
  if (!run) return;
  const dir = scratch("playground");
  const key = path.join(dir, "k.pem");
  const jwksFile = path.join(dir, "jwks.json");
  assert.equal(run(["keygen", "--alg", "EdDSA", "--out", key, "--jwks", jwksFile]).code, 0);
  const out = run(["sign", sampleFile, "--key", key, "--unknown", "exclude"]);
  assert.equal(out.code, 0, out.stderr);
  await paste(p, "#card-input", out.stdout.toString("utf8"));
  await paste(p, "#trust-input", fs.readFileSync(jwksFile, "utf8"));
  assert.match(await verdict(p, "VALID"), /1 of 1 signatures verify/);
  // The card edited after signing.
  const edited = JSON.parse(out.stdout.toString("utf8"));
  edited.description += " (edited)";
  await paste(p, "#card-input", JSON.stringify(edited, null, 2));
  await verdict(p, "INVALID");
  // A key made in the page; the card signed there; the trust roots filled in with its JWK Set.
  await paste(p, "#trust-input", "");
  await paste(p, "#card-input", fs.readFileSync(sampleFile, "utf8"));
  await p.select("#key-alg", "ES256");
  await p.click("#generate-key");
  assert.match(await text(p, "#key-facts"), /^ES256 key, kid "/);
  await p.click("#sign-card");
  assert.match(await verdict(p, "VALID"), /1 of 1 signatures verify/);
  const signed = await p.$eval("#card-input", (e) => e.value);
  const jwks = await text(p, "#public-jwks");
  fs.writeFileSync(path.join(dir, "card.json"), signed);
  fs.writeFileSync(path.join(dir, "page.jwks.json"), jwks);
  const check = run(["verify", path.join(dir, "card.json"), "--jwks", path.join(dir, "page.jwks.json")]);
  assert.equal(check.code, 0, `${check.stdout}${check.stderr}`);
  assert.equal(JSON.parse(jwks).keys[0].d, undefined, "no private member is shown");
  // The page as it is now, for the README and for people.
  fs.mkdirSync(targetDir, { recursive: true });
  await p.screenshot({ path: path.join(targetDir, "playground.png"), fullPage: true });
  assert.ok(fs.statSync(path.join(targetDir, "playground.png")).size > 10_000);
  t.diagnostic(`screenshot: ${path.join(targetDir, "playground.png")}`);
  // Without leaving unknown members unsigned, signing is refused, and the page says why.
  await p.click("#sign-exclude");
  await p.click("#sign-card");
  await p.waitForSelector("#sign-error:not([hidden])");
  assert.match(await text(p, "#sign-error"), /^Cannot sign: unsigned-members: /);
  await p.click("#sign-exclude");
});

test("a 0.3 card migrated in the playground: the library's 1.0 card and its notes", async (t) => {
  const p = ready(t);
  if (!p) return;
  const { v } = migrateVectors().find(({ file }) => file === "freight-tracker.json");
  const input = vectorBytes(v).toString("utf8");
  await paste(p, "#card-input", input);
  await p.click("#migrate");
  const want = node.migrate(input);
  await p.waitForFunction((c) => document.getElementById("card-input").value === c, {}, want.card);
  const notes = await texts(p, "#migration li");
  assert.equal(notes.length, want.notes.length);
  assert.ok(notes.some((n) => n.startsWith("dropped /capabilities/stateTransitionHistory")), notes.join("\n"));
  // Bytes that are not JSON: the reader's error, with its place.
  await paste(p, "#card-input", '{"name": "a", "name": "b"}');
  await p.waitForSelector("#card-error:not([hidden])");
  assert.match(await text(p, "#card-error"), /duplicate-member: .* \(at \/name\)$/);
});

test("the page asks for nothing but itself, and works from file:// as well", async (t) => {
  const p = ready(t);
  if (!p) return;
  const foreign = requested.filter((u) => !u.startsWith(`${server.origin}/playground/index.html`) && !u.startsWith("data:") && !u.startsWith("blob:"));
  assert.deepEqual(foreign, [], "requests besides the page itself");
  const local = await chromium.browser.newPage();
  const seen = [];
  local.on("request", (r) => seen.push(r.url()));
  await local.goto(pathToFileURL(built).href, { waitUntil: "load" });
  await local.waitForSelector("body[data-ready=true]", { timeout: 60_000 });
  await local.click("#load-sample");
  await local.waitForFunction(() => document.querySelectorAll("#lint-list li").length === 2);
  assert.deepEqual(seen.filter((u) => !u.startsWith("file:") && !u.startsWith("data:") && !u.startsWith("blob:")), []);
  await local.close();
});
