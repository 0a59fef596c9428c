// The package as a user gets it: `npm pack` of the built package, installed by file name into
// an empty project, then loaded by name through require and through import (the "exports"
// map's node condition), and its TypeScript declarations present.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { crateDir, pkgDir, scratch } from "./helpers.mjs";

// What the module may weigh after `gzip -9` (the measure of scripts/build-wasm.sh's size line;
// zlib at level 9 gives about 1 KB more), with every feature the package documents in it.
// BENCHMARKS.md ("The .wasm's bytes") says where the bytes go.
const WASM_GZIP_BUDGET = 350_000;

function npm(args, cwd) {
  const out = spawnSync("npm", args, { cwd, encoding: "utf8", timeout: 180_000 });
  assert.equal(out.status, 0, `npm ${args.join(" ")}: ${out.stderr}`);
  return out.stdout;
}

test("npm pack, npm install, require and import by name", () => {
  const dir = scratch("pack");
  const packed = JSON.parse(npm(["pack", pkgDir, "--json", "--pack-destination", dir], dir));
  const files = packed[0].files.map((f) => f.path).sort();
  for (const f of ["package.json", "README.md", "node/a2a_card.js", "node/a2a_card.mjs", "node/a2a_card.d.ts", "node/a2a_card.d.mts", "node/a2a_card_bg.wasm", "web/a2a_card.js", "web/a2a_card.d.ts", "web/a2a_card_bg.wasm"]) {
    assert.ok(files.includes(f), `${f} is not in the package (${files.join(", ")})`);
  }
  // The package's page on the registry is the crate's README (its examples run in browser/readme.test.mjs).
  assert.equal(fs.readFileSync(path.join(pkgDir, "README.md"), "utf8"), fs.readFileSync(path.join(crateDir, "README.md"), "utf8"));
  const project = path.join(dir, "project");
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "consumer", private: true }));
  npm(["install", "--no-audit", "--no-fund", "--offline", path.join(dir, packed[0].filename)], project);
  const card = '{"name":"A","description":"","version":"1","skills":[]}';
  const want = '{"description":"","name":"A","skills":[],"version":"1"}';
  fs.writeFileSync(path.join(project, "cjs.cjs"), `process.stdout.write(require("a2a-card").canonicalize(${JSON.stringify(card)}))`);
  fs.writeFileSync(path.join(project, "esm.mjs"), `import { canonicalize } from "a2a-card"; process.stdout.write(canonicalize(${JSON.stringify(card)}))`);
  // Code written for the web build (init first) runs in Node as it is: server-side rendering,
  // Vitest. init() resolves with the module, initSync() returns it, by import and by require.
  fs.writeFileSync(
    path.join(project, "init.mjs"),
    `import init, { initSync, canonicalize, Verifier } from "a2a-card";
     const lib = await init();
     if (lib.canonicalize !== canonicalize || initSync().Verifier !== Verifier) throw new Error("init does not give the module");
     process.stdout.write(canonicalize(${JSON.stringify(card)}));`,
  );
  fs.writeFileSync(
    path.join(project, "init.cjs"),
    `const { init, initSync } = require("a2a-card");
     init().then((lib) => { if (initSync() !== lib) throw new Error("init and initSync differ"); process.stdout.write(lib.canonicalize(${JSON.stringify(card)})); });`,
  );
  for (const script of ["cjs.cjs", "esm.mjs", "init.mjs", "init.cjs"]) {
    const out = spawnSync(process.execPath, [script], { cwd: project, encoding: "utf8", timeout: 60_000 });
    assert.equal(out.status, 0, `${script}: ${out.stderr}`);
    assert.equal(out.stdout, want, script);
  }
  const dts = fs.readFileSync(path.join(project, "node_modules/a2a-card/node/a2a_card.d.ts"), "utf8");
  for (const name of ["canonicalize", "canonicalizeWithReport", "sign", "verify", "inspect", "algorithms", "init", "initSync"]) {
    assert.match(dts, new RegExp(`export function ${name}\\(`), `${name} is not declared`);
  }
  assert.match(dts, /export class Verifier/);
  assert.match(dts, /export interface Report/);
});

test("the .wasm of each build stays within its gzip budget", () => {
  for (const build of ["node", "web"]) {
    const file = path.join(pkgDir, build, "a2a_card_bg.wasm");
    const raw = fs.readFileSync(file);
    const out = spawnSync("gzip", ["-9", "-c", file], { maxBuffer: 64 << 20 });
    assert.equal(out.status, 0, `gzip -9 -c ${file}: ${out.stderr}`);
    const gz = out.stdout.length;
    assert.ok(
      gz <= WASM_GZIP_BUDGET,
      `${file}: ${gz} bytes gzip -9 (${raw.length} raw), over the budget of ${WASM_GZIP_BUDGET}; a build with another opt-level than the wasm-release profile's is larger`,
    );
  }
});
