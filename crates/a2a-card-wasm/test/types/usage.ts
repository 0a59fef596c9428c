// Compiled (not run) by types.test.mjs against the built package's declarations, with
// --strict: every function, option and report field a caller uses must type-check.
import {
  algorithms,
  canonicalize,
  canonicalizeWithReport,
  hostCryptoAvailable,
  inspect,
  sign,
  verify,
  Verifier,
  type A2ACardError,
  type Report,
} from "a2a-card-node";
import init, { verify as webVerify } from "a2a-card-web";

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
  return webVerify(signed, { trust: "{}" }).ok;
}
console.log(detailed, code, thumbprint, again, native, ringOnly, bytes, names, inBrowser);
