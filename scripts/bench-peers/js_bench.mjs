// Times the JavaScript A2A SDK (@a2a-js/sdk, with jose) signing and verifying cards, in one
// process. scripts/bench-peers.sh copies this file beside a link to the node_modules of the SDK
// that scripts/setup.sh installed and runs it from there, so that its imports resolve to it.
//
//   node js_bench.mjs IN_DIR ROUND_SECONDS ROUNDS
//
// IN_DIR is what gen.py wrote. For each card of IN_DIR/cards and algorithm: sign = JSON.parse of the card text,
// the generateAgentCardSignature signer (key imported once with jose.importPKCS8), JSON.stringify
// of the result; verify = JSON.parse of the signed text, the verifyAgentCardSignature verifier
// (key provider returning the JWK from the JWKS by kid, as scripts/interop/js_sdk.mjs does). Each
// op runs ROUNDS rounds of N iterations, N chosen so a round lasts about ROUND_SECONDS; prints
// one JSON line per measurement with the median time per op.

import fs from 'node:fs';
import * as jose from 'jose';
import { generateAgentCardSignature, verifyAgentCardSignature } from '@a2a-js/sdk';

console.debug = (...args) => console.error('[sdk debug]', ...args);

const [inDir, roundArg, roundsArg] = process.argv.slice(2);
if (!inDir || !roundArg || !roundsArg) {
  console.error('usage: node js_bench.mjs IN_DIR ROUND_SECONDS ROUNDS');
  process.exit(2);
}
const roundS = Number(roundArg);
const rounds = Number(roundsArg);
// The cards of IN_DIR/cards, smallest file first.
const CARDS = fs
  .readdirSync(`${inDir}/cards`)
  .filter((f) => f.endsWith('.json'))
  .sort((a, b) => fs.statSync(`${inDir}/cards/${a}`).size - fs.statSync(`${inDir}/cards/${b}`).size)
  .map((f) => f.slice(0, -'.json'.length));
const ALGS = ['ES256', 'EdDSA'];
const now = () => Number(process.hrtime.bigint()) / 1e9;

async function timed(fn) {
  for (let i = 0; i < 3; i++) await fn();
  let t = now();
  await fn();
  const once = Math.max(now() - t, 1e-7);
  const n = Math.max(1, Math.floor(roundS / once));
  const per = [];
  for (let r = 0; r < rounds; r++) {
    t = now();
    for (let i = 0; i < n; i++) await fn();
    per.push((now() - t) / n);
  }
  per.sort((a, b) => a - b);
  return [per[Math.floor(per.length / 2)], n];
}

try {
  for (const alg of ALGS) {
    const keys = JSON.parse(fs.readFileSync(`${inDir}/keys/${alg}.jwks.json`, 'utf8')).keys;
    const key = await jose.importPKCS8(fs.readFileSync(`${inDir}/keys/${alg}.pem`, 'utf8'), alg);
    const signer = generateAgentCardSignature(key, { alg, kid: keys[0].kid, typ: 'JOSE' });
    const verifier = verifyAgentCardSignature(async (kid) => {
      const jwk = keys.find((k) => k.kid === kid);
      if (!jwk) throw new Error(`no key with kid ${kid}`);
      return jwk;
    });
    for (const name of CARDS) {
      const text = fs.readFileSync(`${inDir}/cards/${name}.json`, 'utf8');
      const sign = async () => JSON.stringify(await signer(JSON.parse(text)));
      const signed = await sign();
      const verify = async () => verifier(JSON.parse(signed)); // throws when refused
      await verify();
      for (const [op, fn] of [['sign', sign], ['verify', verify]]) {
        const [seconds, n] = await timed(fn);
        console.log(JSON.stringify({ impl: 'js', card: name, alg, op, seconds, n, rounds }));
      }
    }
  }
} catch (error) {
  console.error(error?.stack ?? String(error));
  process.exit(2);
}
