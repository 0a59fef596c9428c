// The page of the browser benchmark (browser.mjs): one page, one card, one key, timed with the
// page's own clock. Cases, per verification:
//   WebCrypto verify only  crypto.subtle.verify of the signing input (the floor: the others end in it)
//   wasm canonical only    canonicalizeWithReport(text, { profile }): the module's reading,
//                          canonical bytes and SHA-256 of the card, no signature (its share)
//   wasm canonicalize only canonicalize(text, { profile }): the same without the SHA-256 and the
//                          report object (the difference: mostly the module's own SHA-256)
//   WebCrypto digest only  crypto.subtle.digest("SHA-256") of the canonical bytes (what
//                          verifyAsync asks instead of the module's SHA-256)
//   WebCrypto verify + digest  Promise.all of the two: what verifyAsync's one round asks of WebCrypto
//   wasm canonicalize, then verify  canonicalize, then crypto.subtle.verify: the floor plus the core's
//                          reading and canonical bytes; what verifyAsync takes beyond it is the rest
//                          of its path (header, plan, signing input, digest, report object, glue)
//   wasm Verifier async    new Verifier({ jwks, profile }) once, then await .verifyAsync(text)
//   wasm verifyAsync()     await verifyAsync(text, { jwks, profile })
//   wasm Verifier (sync)   .verify(text): the module's own code (no synchronous crypto in a browser)
//   sdk (JSON.parse)       await verifier(JSON.parse(text)), @a2a-js/sdk's verifyAgentCardSignature,
//                          key imported once (jose on WebCrypto)
//   sdk (parsed object)    await verifier(card) on an already parsed card
import init, * as lib from "/pkg/web/a2a_card.js";
import { importJWK, verifyAgentCardSignature } from "/bench/sdk.js";

/** Nanoseconds per call of fn over one round of at least `ms` milliseconds. */
async function round(fn, ms) {
  let n = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    for (let i = 0; i < 20; i++) await fn();
    n += 20;
    now = performance.now();
  }
  return ((now - start) * 1e6) / n;
}

window.bench = async ({ text, jwks, publicJwk, kid, profile, rounds, ms, before }) => {
  await init();
  const card = JSON.parse(text);
  const tampered = JSON.stringify({ ...card, description: `${card.description}!` });
  const entry = card.signatures[0];
  const payload = lib.canonicalize(text, { profile });
  const payloadBytes = new TextEncoder().encode(payload);
  const b64u = (bytes) => btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "");
  const signingInput = new TextEncoder().encode(`${entry.protected}.${b64u(new TextEncoder().encode(payload))}`);
  const sig = Uint8Array.from(atob(entry.signature.replaceAll("-", "+").replaceAll("_", "/")), (c) => c.charCodeAt(0));
  const { kid: _kid, alg: _alg, ...bare } = publicJwk;
  const key = await crypto.subtle.importKey("jwk", bare, { name: "ECDSA", namedCurve: "P-256" }, false, ["verify"]);
  const params = { name: "ECDSA", hash: "SHA-256" };
  const verifier = new lib.Verifier({ jwks, profile });
  const sdkKey = await importJWK(publicJwk, "ES256");
  const sdkVerify = verifyAgentCardSignature(async (k) => {
    if (k !== kid) throw new Error(`unknown kid ${k}`);
    return sdkKey;
  });
  // Each verifier accepts the card and refuses the tampered copy, so no timing is of a shortcut.
  const checks = {
    floor: await crypto.subtle.verify(params, key, sig, signingInput),
    async: (await verifier.verifyAsync(text)).ok && !(await verifier.verifyAsync(tampered)).ok,
    fn: (await lib.verifyAsync(text, { jwks, profile })).ok,
    sync: verifier.verify(text).ok && !verifier.verify(tampered).ok,
    same: JSON.stringify(await verifier.verifyAsync(text)) === JSON.stringify(verifier.verify(text)),
    webCrypto: verifier.webCrypto,
    sdk: await sdkVerify(JSON.parse(text)).then(() => true, () => false),
  };
  const debug = console.debug;
  console.debug = () => {}; // the SDK logs each failed entry
  checks.sdkRefuses = await sdkVerify(JSON.parse(tampered)).then(() => false, () => true);
  console.debug = debug;
  const cases = [
    ["WebCrypto verify only", () => crypto.subtle.verify(params, key, sig, signingInput)],
    ["wasm canonical only", async () => lib.canonicalizeWithReport(text, { profile })],
    ["wasm canonicalize only", async () => lib.canonicalize(text, { profile })],
    ["WebCrypto digest only", () => crypto.subtle.digest("SHA-256", payloadBytes)],
    ["WebCrypto verify + digest", () => Promise.all([crypto.subtle.verify(params, key, sig, signingInput), crypto.subtle.digest("SHA-256", payloadBytes)])],
    [
      "wasm canonicalize, then verify",
      () => {
        lib.canonicalize(text, { profile });
        return crypto.subtle.verify(params, key, sig, signingInput);
      },
    ],
    ["wasm Verifier async", () => verifier.verifyAsync(text)],
    ["wasm verifyAsync()", () => lib.verifyAsync(text, { jwks, profile })],
    ["wasm Verifier (sync, ring)", () => verifier.verify(text)],
    ["sdk (JSON.parse)", () => sdkVerify(JSON.parse(text))],
    ["sdk (parsed object)", () => sdkVerify(card)],
  ];
  if (before) {
    // Another build of the package (A2A_CARD_WASM_PKG_BEFORE), timed in the same rounds.
    const old = await import("/before/web/a2a_card.js");
    await old.default();
    const oldVerifier = new old.Verifier({ jwks, profile });
    checks.before = JSON.stringify(await oldVerifier.verifyAsync(text)) === JSON.stringify(await verifier.verifyAsync(text));
    cases.push(
      ["before: Verifier async", () => oldVerifier.verifyAsync(text)],
      ["before: verifyAsync()", () => old.verifyAsync(text, { jwks, profile })],
    );
  }
  for (const [, fn] of cases) for (let i = 0; i < 200; i++) await fn();
  const times = Object.fromEntries(cases.map(([name]) => [name, []]));
  // Rounds interleaved: round r of every case before round r + 1 of any.
  for (let r = 0; r < rounds; r++) for (const [name, fn] of cases) times[name].push(await round(fn, ms));
  return { checks, times, agent: navigator.userAgent };
};
window.benchReady = true;
