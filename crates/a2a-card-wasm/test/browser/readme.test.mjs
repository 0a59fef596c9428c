// Every JavaScript example of README.md, of the guides in docs/ and of
// crates/a2a-card-wasm/README.md, run as written: a Node example in a fresh project where the
// package is installed as "a2a-card", beside the files it reads, made by the documentation's own
// commands (the tour of docs/cli.md and the README's quick start) run as written with the native
// CLI (the section 8.5 sample as card.json, release.pem and jwks.json of kid "release-2026",
// signed.json, the 0.3 card and its migration); a browser example in headless Chromium, in a
// page whose import map resolves "a2a-card" to the web build (as a bundler would), with the card
// it fetches from https://agent.example answered by the test and /trusted-jwks.json served from
// loopback; an example for both (it calls init() and fetches nothing) in Node and in Chromium.
// Each example's output is checked; an example this file has no expectation for fails.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { cli, cliPath, crateDir, loadNode, missing, pkgDir, repoRoot, scratch } from "../helpers.mjs";
import { chromiumPath, chromiumPresent, launch, serve } from "./harness.mjs";

const node = loadNode();

/** The ```js blocks of a Markdown file, with the line each starts on. */
function examples(file) {
  const lines = fs.readFileSync(file, "utf8").split("\n");
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== "```js") continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end].trim() !== "```") end++;
    out.push({ where: `${path.relative(repoRoot, file)}:${start}`, code: `${lines.slice(start, end).join("\n")}\n` });
    i = end;
  }
  return out;
}

const docsDir = path.join(repoRoot, "docs");
const guides = fs.readdirSync(docsDir).filter((f) => f.endsWith(".md")).sort().map((f) => path.join(docsDir, f));
const all = [path.join(repoRoot, "README.md"), ...guides, path.join(crateDir, "README.md")].flatMap(examples);
/** An example with `await init()` runs in a browser; one that also fetches nothing runs in Node too. */
const isBrowser = (code) => code.includes("await init()");
const isShared = (code) => isBrowser(code) && !code.includes("fetch(");

/** What each Node example prints, by a line that tells it apart. */
const NODE_OUTPUT = [
  ["console.log(report.ok, report.profile, report.unsigned);", /^true spec \[ '\/capabilities\/stateTransitionHistory', '\/security' \]\n$/],
  ["console.log(report.ok, report.unsigned);", /^true \[ '\/capabilities\/stateTransitionHistory', '\/security' \]\n$/],
  ["report.signatures[0].verdict.code", /^spec \[ '\/x-note' \] valid\n$/],
  ['generateKey("ES256", { kid: "release-2026" })', /^\d+ notes(, something was dropped)?\n(?:(?:error|warning|info)\[[a-z-]+\] .*\n)*true release-2026\n$/],
  ['generateKey("EdDSA", { kid: "demo" })', /^valid\n$/],
  ["maxChain: 9", /^usage maxChain "maxChain" must be 1 to 8, got 9\n$/],
];

/**
 * The commands of the tour (docs/cli.md) and of the README's quick start that make the files the
 * Node examples read, each as the documentation writes it (checked), run in this order.
 */
const TOUR = [
  "cp testvectors/cards/sample-8.5-unsigned.json card.json",
  "a2a-card keygen --alg ES256 --kid release-2026 --out release.pem",
  "a2a-card jwks release.pem --kid release-2026 --alg ES256 -o jwks.json",
  "a2a-card sign card.json --key release.pem --kid release-2026 --jku https://agent.example.com/.well-known/jwks.json --unknown exclude --out signed.json",
  "jq .input testvectors/migrate/freight-tracker.json > agent-card.v03.json   # a 0.3 card",
  "a2a-card migrate agent-card.v03.json -o agent-card.json   # notes on stderr",
];

let fixtures;
before(() => {
  if (!fs.existsSync(cliPath)) return;
  const dir = scratch("tour");
  fs.symlinkSync(path.join(repoRoot, "testvectors"), path.join(dir, "testvectors"), "dir");
  // The CLI under test as `a2a-card` first on PATH, as the tour calls it.
  fs.mkdirSync(path.join(dir, ".bin"));
  fs.symlinkSync(cliPath, path.join(dir, ".bin/a2a-card"));
  const env = { ...process.env, PATH: `${path.join(dir, ".bin")}:${process.env.PATH}` };
  for (const command of TOUR) {
    const out = spawnSync("bash", ["-euo", "pipefail", "-c", command], { cwd: dir, env, encoding: "utf8", timeout: 60_000 });
    assert.equal(out.status, 0, `${command}: ${out.stderr}`);
  }
  fixtures = Object.fromEntries(
    ["card.json", "release.pem", "jwks.json", "signed.json", "agent-card.v03.json", "agent-card.json"].map((f) => [f, fs.readFileSync(path.join(dir, f), "utf8")]),
  );
});

test("the files of the Node examples are made by the documentation's commands, as written", () => {
  const lines = ["README.md", "docs/cli.md"].flatMap((f) => fs.readFileSync(path.join(repoRoot, f), "utf8").split("\n"));
  for (const command of TOUR) assert.ok(lines.includes(`$ ${command}`), `README.md and docs/cli.md have no line "$ ${command}"`);
});

test("the README, the guides and the package README have JavaScript examples, each of a kind this test runs", () => {
  assert.ok(all.length >= 5, `${all.length} examples`);
  for (const { where, code } of all) {
    if (isBrowser(code) && !isShared(code)) continue;
    assert.ok(NODE_OUTPUT.some(([mark]) => code.includes(mark)), `${where}: no expected output for this example; add one to readme.test.mjs`);
  }
});

test("every Node example of the documentation runs as written", (t) => {
  if (!cli(t)) return;
  for (const { where, code } of all.filter((e) => !isBrowser(e.code) || isShared(e.code))) {
    const dir = scratch("readme");
    fs.mkdirSync(path.join(dir, "node_modules"));
    fs.symlinkSync(pkgDir, path.join(dir, "node_modules/a2a-card"), "dir");
    for (const [name, text] of Object.entries(fixtures)) fs.writeFileSync(path.join(dir, name), text);
    fs.writeFileSync(path.join(dir, "example.mjs"), code);
    const out = spawnSync("node", ["example.mjs"], { cwd: dir, encoding: "utf8", timeout: 60_000 });
    assert.equal(out.status, 0, `${where}: ${out.stderr}`);
    const [, want] = NODE_OUTPUT.find(([mark]) => code.includes(mark));
    assert.match(out.stdout, want, where);
  }
});

let server;
let chromium;
before(async () => {
  if (!chromiumPresent()) return;
  const pages = new Map(all.filter((e) => isBrowser(e.code)).map((e, i) => [`/readme/${i}.html`, e]));
  const k = node.generateKey("EdDSA");
  const served = node.sign(fs.readFileSync(path.join(repoRoot, "testvectors/cards/sample-8.5-unsigned.json"), "utf8"), k.privateJwk, { unknown: "exclude" });
  server = await serve({ "/pkg/": pkgDir }, (url) => {
    if (url.pathname === "/trusted-jwks.json") return { type: "application/json", body: JSON.stringify(k.jwks) };
    const e = pages.get(url.pathname);
    if (!e) return null;
    const html = `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,">
<script type="importmap">{ "imports": { "a2a-card": "/pkg/web/a2a_card.js" } }</script>
<script type="module">\n${e.code}</script>`;
    return { type: "text/html; charset=utf-8", body: html };
  });
  server.pages = pages;
  server.card = served;
  chromium = await launch();
});

after(async () => {
  await chromium?.close();
  await server?.close();
});

test("every browser example of the documentation runs as written in Chromium", async (t) => {
  if (!chromium) {
    missing(t, `headless Chromium at ${chromiumPath}`);
    return;
  }
  assert.ok(server.pages.size >= 2, `${server.pages.size} browser examples`);
  for (const [url, { where }] of server.pages) {
    const page = await chromium.browser.newPage();
    const logs = [];
    const errors = [];
    page.on("console", (m) => (m.type() === "error" ? errors : logs).push(m.text()));
    page.on("pageerror", (e) => errors.push(e.message));
    await page.setRequestInterception(true);
    page.on("request", (r) => {
      if (r.url() === "https://agent.example/.well-known/agent-card.json") {
        r.respond({ status: 200, contentType: "application/json", headers: { "access-control-allow-origin": "*" }, body: server.card });
      } else if (r.url().startsWith(server.origin) || r.url().startsWith("data:")) r.continue();
      else r.abort();
    });
    await page.goto(`${server.origin}${url}`, { waitUntil: "load" });
    const deadline = Date.now() + 30_000;
    while (logs.length === 0 && errors.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(errors, [], where);
    assert.deepEqual(logs, ["valid"], where);
    await page.close();
  }
});
