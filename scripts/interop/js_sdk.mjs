// Drives the JavaScript A2A SDK (@a2a-js/sdk, with jose) for scripts/interop-sdks.sh.
//
// The script copies this file into a folder beside a link to the node_modules of the SDK that
// scripts/setup.sh installed (target/sdk/js-*) and runs it from there, so that the imports below
// resolve to that install.
// Every command uses the SDK's own code; nothing here signs, canonicalizes or verifies by itself.
//
//   versions                        JSON: the installed @a2a-js/sdk and jose
//   model CARD OUT                  the card as the SDK's model keeps it
//                                   (AgentCard.toJSON(AgentCard.fromJSON(card))), written to OUT
//   canon CARD OUT                  the bytes the SDK's verifier computes for the card as JSON
//                                   (canonicalizeAgentCard), written to OUT
//   canon-resolved CARD OUT         the bytes it computes for the card as the SDK's
//                                   DefaultAgentCardResolver returns it, written to OUT
//   sign CARD KEY.pem JWKS ALG OUT  generateAgentCardSignature over the card read as plain JSON,
//                                   written as the SDK's card handler serves it
//                                   (JSON.stringify of the signer's result)
//   verify CARD JWKS ALG            verifyAgentCardSignature on the card read as plain JSON, once
//                                   for the whole card and once per signature entry alone; and
//                                   once more on the card as the SDK's DefaultAgentCardResolver
//                                   returns it (served from memory through its fetchImpl option);
//                                   prints JSON {"accepted", "error", "entries", "resolver"}
//
// Exit status: 0 when the command ran (a refused signature is a result, not an error), 2 when
// it could not run.

import fs from 'node:fs';
import { createRequire } from 'node:module';

import * as jose from 'jose';
import { AgentCard, canonicalizeAgentCard, generateAgentCardSignature, verifyAgentCardSignature } from '@a2a-js/sdk';
import { DefaultAgentCardResolver } from '@a2a-js/sdk/client';

// The SDK's verifier logs every entry it cannot verify with console.debug, on stdout. Keep
// stdout for this program's one JSON line and send those messages to stderr.
console.debug = (...args) => console.error('[sdk debug]', ...args);

const readJson = (path) => JSON.parse(fs.readFileSync(path, 'utf8'));
const writeJson = (path, value) => fs.writeFileSync(path, JSON.stringify(value, null, 2) + '\n');

function packageVersion(name) {
  const require = createRequire(import.meta.url);
  // The package root: its exports do not list package.json, so walk up from the entry point.
  let dir = require.resolve(name).replace(/\\/g, '/');
  for (;;) {
    dir = dir.slice(0, dir.lastIndexOf('/'));
    const candidate = `${dir}/package.json`;
    if (fs.existsSync(candidate)) {
      const pkg = JSON.parse(fs.readFileSync(candidate, 'utf8'));
      if (pkg.name === name) return pkg.version;
    }
    if (!dir.includes('/node_modules/')) throw new Error(`no package.json found for ${name}`);
  }
}

function keyProvider(jwksPath) {
  const keys = readJson(jwksPath).keys;
  return async (kid) => {
    const jwk = keys.find((k) => k.kid === kid);
    if (!jwk) throw new Error(`no key with kid ${JSON.stringify(kid)} in ${jwksPath}`);
    return jwk;
  };
}

// The card as the SDK's client reads it from an agent: DefaultAgentCardResolver, with the
// response served from memory through its fetchImpl option.
async function resolve(text) {
  const resolver = new DefaultAgentCardResolver({
    fetchImpl: async () => new Response(text, { headers: { 'content-type': 'application/json' } }),
  });
  return resolver.resolve('https://agent.example/');
}

async function verifies(card, jwksPath) {
  try {
    await verifyAgentCardSignature(keyProvider(jwksPath))(card);
    return '';
  } catch (error) {
    return String(error?.message ?? error);
  }
}

const commands = {
  async versions() {
    console.log(JSON.stringify({ '@a2a-js/sdk': packageVersion('@a2a-js/sdk'), jose: packageVersion('jose') }));
  },
  async model(cardPath, out) {
    writeJson(out, AgentCard.toJSON(AgentCard.fromJSON(readJson(cardPath))));
  },
  async canon(cardPath, out) {
    fs.writeFileSync(out, canonicalizeAgentCard(readJson(cardPath)));
  },
  async 'canon-resolved'(cardPath, out) {
    fs.writeFileSync(out, canonicalizeAgentCard(await resolve(fs.readFileSync(cardPath, 'utf8'))));
  },
  async sign(cardPath, keyPath, jwksPath, alg, out) {
    const key = await jose.importPKCS8(fs.readFileSync(keyPath, 'utf8'), alg);
    const kid = readJson(jwksPath).keys[0].kid;
    const signed = await generateAgentCardSignature(key, { alg, kid, typ: 'JOSE' })(readJson(cardPath));
    fs.writeFileSync(out, JSON.stringify(signed));
  },
  async verify(cardPath, jwksPath, alg) {
    void alg; // jose takes the algorithm from the protected header and checks it fits the key
    const text = fs.readFileSync(cardPath, 'utf8');
    const card = JSON.parse(text);
    const whole = await verifies(card, jwksPath);
    const entries = [];
    for (const entry of card.signatures ?? []) {
      entries.push((await verifies({ ...card, signatures: [entry] }, jwksPath)) === '');
    }
    const viaResolver = await verifies(await resolve(text), jwksPath);
    console.log(
      JSON.stringify({
        accepted: whole === '',
        error: whole,
        entries,
        resolver: { accepted: viaResolver === '', error: viaResolver },
      }),
    );
  },
};

const arity = { versions: 0, model: 2, canon: 2, 'canon-resolved': 2, sign: 5, verify: 3 };
const [command, ...args] = process.argv.slice(2);
if (!(command in commands) || args.length !== arity[command]) {
  console.error(
    'usage: node js_sdk.mjs versions | model CARD OUT | canon CARD OUT | canon-resolved CARD OUT | sign CARD KEY JWKS ALG OUT | verify CARD JWKS ALG',
  );
  process.exit(2);
}
try {
  await commands[command](...args);
} catch (error) {
  console.error(error?.stack ?? String(error));
  process.exit(2);
}
