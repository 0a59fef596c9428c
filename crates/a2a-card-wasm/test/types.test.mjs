// The hand-written TypeScript declarations of both builds compile with tsc --strict against a
// file that uses every function and option (types/usage.ts), and misuse is a type error.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { pkgDir, scratch, testDir } from "./helpers.mjs";

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
