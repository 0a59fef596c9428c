// The A2A signed-card corpus a2a-card-sign-v01 ($A2A_CARD_CORPORA/a2a/a2a-card-sign-v01):
// every served card verified in wasm with the corpus's published ES256 key (testkey_jwks.json)
// under each reading it names, with the options of the native CLI test of the same corpus.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { corporaDir, loadNode, missing } from "./helpers.mjs";

const lib = loadNode();

/** The verify options of a reading, and the code when refusing the card is its answer. */
function reading(name) {
  switch (name) {
    case "rule-1-as-written":
    case "rule-1-served-scope":
    case "unknown-exclude":
      return { options: {} };
    case "dual-name-refuse":
      return { options: {}, refusal: "dual-name" };
    case "unknown-retain":
      return { options: { unknown: "retain" } };
    case "unknown-reject":
      return { options: { unknown: "reject" }, refusal: "unknown-member" };
    case "prune-empty":
      return { options: { profile: "prune-empty" } };
    case "served-as-is":
    case "dual-name-tolerate":
      return { options: { profile: "served-as-is" } };
    // Emitting absent REQUIRED fields at their defaults: this toolkit never invents fields.
    case "rule-1-descriptor-scope":
      return null;
    default:
      throw new Error(`reading ${name} is not mapped`);
  }
}

test("a2a-card-sign-v01: every verdict of every reading, in wasm", (t) => {
  const dir = path.join(corporaDir, "a2a/a2a-card-sign-v01");
  if (!fs.existsSync(path.join(dir, "MANIFEST.json"))) {
    missing(t, `the corpus ${dir} (set A2A_CARD_CORPORA)`);
    return;
  }
  const jwks = fs.readFileSync(path.join(dir, "testkey_jwks.json"), "utf8");
  const files = fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => fs.readdirSync(path.join(dir, d.name)).map((f) => path.join(dir, d.name, f)))
    .sort();
  assert.equal(files.length, 42, "a2a-card-sign-v01 has 42 vectors");

  const problems = [];
  const rule1 = { accepted: 0, rejected: 0 };
  const tally = new Map();
  for (const file of files) {
    const v = JSON.parse(fs.readFileSync(file, "utf8"));
    const card = JSON.stringify(v.served_card);
    for (const [accept, names] of [[true, v.accept_under], [false, v.reject_under]]) {
      for (const name of names) {
        const r = reading(name);
        if (!r) continue;
        const what = `${v.id} ${accept ? "accept" : "reject"} under ${name}`;
        let report = null;
        let error = null;
        try {
          report = lib.verify(card, { jwks, ...r.options });
        } catch (e) {
          error = e;
        }
        let fine;
        if (accept) {
          fine = report?.ok === true && report.signatures.some((s) => s.verdict.code === "valid");
        } else if (r.refusal && error) {
          fine = error.code === r.refusal;
        } else {
          fine = report !== null && report.ok === false && !report.signatures.some((s) => s.verdict.code === "valid");
        }
        if (!fine) {
          problems.push(`${what}: ${error ? `threw ${error.code}: ${error.message}` : JSON.stringify(report?.signatures?.map((s) => s.verdict.code))}`);
        }
        const n = tally.get(name) ?? 0;
        tally.set(name, n + 1);
        if (name === "rule-1-as-written") {
          if (accept) rule1.accepted += 1;
          else rule1.rejected += 1;
        }
      }
    }
  }
  assert.deepEqual(problems, [], problems.join("\n"));
  for (const [name, n] of [...tally].sort()) t.diagnostic(`${name}: ${n} verdicts as stated`);
  t.diagnostic(`rule-1-as-written: ${rule1.accepted} accepted, ${rule1.rejected} rejected`);
  assert.ok(rule1.accepted >= 8 && rule1.rejected >= 4, JSON.stringify(rule1));
});
