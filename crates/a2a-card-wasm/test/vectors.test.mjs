// Every vector of testvectors/canonical/ (format: testvectors/README.md) through the package's
// Node and web builds: the same bytes, unsigned pointers, error codes and pointers as the
// native tests expect; and, when the native CLI is built, the same answer as the CLI gives for
// the same input, error messages included.
import assert from "node:assert/strict";
import { test } from "node:test";
import { canonicalProblems, canonicalVectors, cli, hasIndexLikeName, loadNode, loadWeb, vectorInputs, vectorOptions } from "./helpers.mjs";

const KEYS = new Set([
  "id", "description", "provenance", "profile", "unknown", "limits", "input", "input_raw", "input_hex",
  "expected_hex", "expected_unsigned", "expected_error", "card", "spec_commit",
]);
const ERROR_CODES = [
  "invalid-json", "duplicate-member", "number-out-of-range", "nesting-too-deep", "input-too-large",
  "dual-name", "type-mismatch", "oneof-conflict", "unknown-member",
];
const PROFILES = ["spec", "prune-empty", "served-as-is", "a2a-sdk-0.3", "a2a-sdk-0.3.21"];
/** What one build answers for one input: `{ok, hex, unsigned}` or `{code, pointer, message}`. */
function answer(lib, input, options) {
  try {
    const r = lib.canonicalizeWithReport(input, options);
    const plain = lib.canonicalize(input, options);
    assert.equal(plain, r.canonical, "canonicalize and canonicalizeWithReport agree");
    return { ok: true, hex: Buffer.from(r.canonical, "utf8").toString("hex"), unsigned: r.unsigned, report: r };
  } catch (e) {
    assert.ok(e instanceof Error, `threw a non-Error: ${e}`);
    assert.equal(e.name, "A2ACardError");
    return { ok: false, code: e.code, pointer: e.pointer, message: e.message };
  }
}

function runAll(lib, label) {
  const vectors = canonicalVectors();
  const problems = [];
  const codes = new Set();
  const profiles = new Set();
  let ran = 0;
  for (const { file, v } of vectors) {
    const extra = Object.keys(v).filter((k) => !KEYS.has(k));
    if (extra.length) problems.push(`${file}: unknown keys ${extra.join(", ")}`);
    if (`${v.id}.json` !== file) problems.push(`${file}: id ${v.id} does not match the file name`);
    if ("input" in v && hasIndexLikeName(v.input)) {
      problems.push(`${file}: input has an integer-like member name; JavaScript objects reorder those`);
      continue;
    }
    for (const [form, input] of vectorInputs(v)) {
      const got = answer(lib, input, vectorOptions(v));
      for (const p of canonicalProblems(v, got)) problems.push(`${v.id} (${label}, ${form}): ${p}`);
    }
    ran += 1;
    profiles.add(v.profile);
    if (v.expected_error) codes.add(v.expected_error.code);
  }
  assert.deepEqual(problems, [], `${problems.length} problems:\n${problems.join("\n")}`);
  assert.ok(ran >= 60, `only ${ran} vectors ran`);
  for (const c of ERROR_CODES) assert.ok(codes.has(c), `no vector covers ${c}`);
  for (const p of PROFILES) assert.ok(profiles.has(p), `no vector covers profile ${p}`);
  return ran;
}

test("every canonical vector through the Node build", (t) => {
  const ran = runAll(loadNode(), "node");
  t.diagnostic(`${ran} vectors matched (node build)`);
});

test("every canonical vector through the web build", async (t) => {
  const ran = runAll(await loadWeb(), "web");
  t.diagnostic(`${ran} vectors matched (web build)`);
});

test("the native CLI gives the same answer on every vector", (t) => {
  const run = cli(t);
  if (!run) return;
  const lib = loadNode();
  const problems = [];
  let n = 0;
  for (const { v } of canonicalVectors()) {
    const [, input] = vectorInputs(v)[0];
    const o = vectorOptions(v);
    const args = ["canonicalize", "-", "--report", "--profile", o.profile];
    if (o.unknown) args.push("--unknown", o.unknown);
    if (o.maxInputBytes !== undefined) args.push("--max-input-bytes", String(o.maxInputBytes));
    if (o.maxDepth !== undefined) args.push("--max-depth", String(o.maxDepth));
    const out = run(args, typeof input === "string" ? Buffer.from(input, "utf8") : Buffer.from(input));
    const got = answer(lib, input, o);
    if (got.ok) {
      if (out.code !== 0) {
        problems.push(`${v.id}: CLI exit ${out.code} (${out.stderr.trim()}), wasm accepted`);
        continue;
      }
      const report = JSON.parse(out.stderr.trim().split("\n").pop());
      if (out.stdout.toString("hex") !== got.hex) problems.push(`${v.id}: bytes differ`);
      if (JSON.stringify(report.unsigned) !== JSON.stringify(got.unsigned)) problems.push(`${v.id}: unsigned differ`);
      if (report.sha256 !== got.report.sha256 || report.bytes !== got.report.bytes) {
        problems.push(`${v.id}: sha256/length differ`);
      }
    } else {
      // The CLI's one error line: error[CODE]: MESSAGE at PLACE (SOURCE); the wasm error's
      // message is MESSAGE at PLACE.
      let line = out.stderr.trim();
      let want = `error[${got.code}]: ${got.message} (<stdin>)`;
      if (got.code === "input-too-large") {
        // The CLI stops reading at the limit plus one byte, so it cannot say the input's size
        // as the library does; the code and the place must still agree.
        line = line.replace(/: .* at /, ": … at ");
        want = want.replace(/: .* at /, ": … at ");
      }
      if (out.code !== 2 || line !== want) {
        problems.push(`${v.id}: CLI exit ${out.code}\n      CLI  ${line}\n      wasm ${want}`);
      }
    }
    n += 1;
  }
  assert.deepEqual(problems, [], problems.join("\n"));
  t.diagnostic(`${n} vectors: CLI and wasm agree`);
});
