// Compiled (not run) by types.test.mjs against the built package's declarations, with
// --strict: every function, option and report field a caller uses must type-check.
import {
  algorithms,
  canonicalize,
  canonicalizeWithReport,
  generateKey,
  hostCryptoAvailable,
  inspect,
  lint,
  migrate,
  schema,
  sign,
  verify,
  verifyAsync,
  Verifier,
  webCryptoAvailable,
  type A2ACardError,
  type Finding,
  type GeneratedKey,
  type Migration,
  type Report,
} from "a2a-card-node";
import init, { verify as webVerify, verifyAsync as webVerifyAsync } from "a2a-card-web";
import nodeInit, { initSync as nodeInitSync } from "a2a-card-node-esm";

const text: string = canonicalize({ name: "a" }, { profile: "spec", unknown: "exclude", maxDepth: 8 });
const detailed: string[] = canonicalizeWithReport(new Uint8Array([123, 125])).unsigned;
const signed: string = sign(text, { kty: "OKP" }, { alg: "EdDSA", kid: "k", alsoProfiles: ["prune-empty"] });
const report: Report = verify(signed, { jwks: { keys: [] }, profiles: ["spec", "auto"], mode: "all", now: 1 });
const code: string = report.signatures[0].verdict.code;
const thumbprint: string | undefined = report.signatures[0].key?.thumbprint;
const verifier = new Verifier({ keys: ["-----BEGIN PUBLIC KEY-----"], algorithms: ["ES256"] });
const again: boolean = verifier.verify(signed, { origin: "https://a.example" }).ok;
const native: boolean = verifier.hostCrypto && hostCryptoAvailable();
const ringOnly: boolean = new Verifier({ keys: [], hostCrypto: false }).hostCrypto;
verifier.free();
const bytes: number | null = inspect(signed).signatures[0].signature_bytes;
const names: string[] = algorithms();
try {
  canonicalize("{");
} catch (e) {
  const err = e as A2ACardError;
  const where: string | null = err.pointer;
  console.log(err.code, where);
}
async function inBrowser(): Promise<boolean> {
  await init();
  const sync: boolean = webVerify(signed, { trust: "{}" }).ok;
  const later: Report = await webVerifyAsync(signed, { trust: "{}", hostCrypto: false });
  return sync && later.ok;
}
async function shared(): Promise<boolean> {
  // Code written for the web build, under Node (server-side rendering, Vitest).
  await nodeInit();
  nodeInitSync();
  const header: string | null = inspect(signed).signatures[0].header;
  return header === null;
}
async function later(): Promise<string> {
  const r: Report = await verifyAsync(signed, { jwks: "{}", profile: "auto" });
  const v: Report = await verifier.verifyAsync(signed, { now: 2 });
  const web: boolean = verifier.webCrypto && webCryptoAvailable();
  return `${r.ok} ${v.signatures[0].verdict.pointer ?? ""} ${web}`;
}
const finding: Finding | undefined = lint(text, { maxDepth: 16 }).findings[0];
const severity: "error" | "warning" | "info" | undefined = finding?.severity;
const migrated: Migration = migrate(text, { protocolVersion: "1.0" });
const v1: string = migrated.card;
const lostSomething: boolean = migrated.lost && migrated.notes[0].kind === "dropped";
const draft07: unknown = schema({ draft: "07" })["$schema"];
const key: GeneratedKey = generateKey("ES256", { kid: "k1" });
const pem: string = key.pem;
const resigned: string = sign(text, key.privateJwk);
console.log(detailed, code, thumbprint, again, native, ringOnly, bytes, names, inBrowser, later);
console.log(severity, v1, lostSomething, draft07, pem, resigned, shared);
