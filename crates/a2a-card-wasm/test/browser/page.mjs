// The page the browser tests drive (browser.test.mjs): it loads the web build of the package as a
// browser does (init() fetches the .wasm next to the module), counts WebCrypto's verify calls,
// and offers the tests a few functions that take and give plain data (inputs travel as JSON text
// or hex, so that no string is changed on the way).
import init, * as lib from "/pkg/web/a2a_card.js";

const subtle = globalThis.crypto.subtle;
const realVerify = subtle.verify;
window.webCryptoVerifies = 0;
subtle.verify = function verify(...args) {
  window.webCryptoVerifies += 1;
  return realVerify.apply(subtle, args);
};

const fromHex = (hex) => new Uint8Array(hex.match(/../g)?.map((b) => parseInt(b, 16)) ?? []);
const toHex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

/** A value sent by the test: `{ form: "text" | "object", json }` or `{ form: "bytes", hex }`. */
function input(sent) {
  return sent.form === "bytes" ? fromHex(sent.hex) : JSON.parse(sent.json);
}

function failure(e) {
  if (!(e instanceof Error) || e.name !== "A2ACardError") return { ok: false, code: "not-an-A2ACardError", message: String(e) };
  return { ok: false, code: e.code, pointer: e.pointer, message: e.message };
}

window.a2a = {
  lib,
  /** canonicalizeWithReport of each input: `{ ok, hex, unsigned }` or the error. */
  canonicalize(items) {
    return items.map(({ sent, options }) => {
      try {
        const r = lib.canonicalizeWithReport(input(sent), options);
        if (lib.canonicalize(input(sent), options) !== r.canonical) return { ok: false, code: "canonicalize-disagrees" };
        return { ok: true, hex: toHex(new TextEncoder().encode(r.canonical)), unsigned: r.unsigned, sha256: r.sha256 };
      } catch (e) {
        return failure(e);
      }
    });
  },
  /** lint of each input (text): the report or the error. */
  lint(texts) {
    return texts.map((t) => {
      try {
        return { ok: true, report: lib.lint(t) };
      } catch (e) {
        return failure(e);
      }
    });
  },
  /** migrate of each `{ text, options }`: the migration or the error. */
  migrate(items) {
    return items.map(({ text, options }) => {
      try {
        return { ok: true, migration: lib.migrate(text, options) };
      } catch (e) {
        return failure(e);
      }
    });
  },
  /** verify and verifyAsync of each `{ text, options }`, as JSON text (or the errors). */
  async verifyBoth(items) {
    const out = [];
    for (const { text, options } of items) {
      let sync;
      let later;
      try {
        sync = JSON.stringify(new lib.Verifier(options).verify(text));
      } catch (e) {
        sync = JSON.stringify(failure(e));
      }
      try {
        later = JSON.stringify(await new lib.Verifier(options).verifyAsync(text));
      } catch (e) {
        later = JSON.stringify(failure(e));
      }
      let fn;
      try {
        fn = JSON.stringify(await lib.verifyAsync(text, options));
      } catch (e) {
        fn = JSON.stringify(failure(e));
      }
      out.push({ sync, later, fn });
    }
    return out;
  },
};

await init();
window.a2aReady = true;
document.getElementById("state").textContent = "ready";
