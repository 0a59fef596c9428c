// Exceptions from JavaScript while the module reads a caller's values (issue 25, item 6). A getter
// that throws, a Proxy whose trap throws, a revoked Proxy, a detached ArrayBuffer, a Uint8Array
// whose `length` lies: each becomes an A2ACardError through the module's normal return path, so
// that no JavaScript exception unwinds through the WebAssembly frames (which left the module's
// shadow stack unbalanced: after about 4,000 such throws every later call failed with "memory
// access out of bounds"). The generated glue is checked too: every import the module calls that
// reaches a caller's value catches its exceptions.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { ed25519Jwks, loadNode, loadWeb, pkgDir, thrown } from "./helpers.mjs";

const lib = loadNode();
const web = await loadWeb();
const CARD = '{"name":"A","description":"d","version":"1","skills":[]}';

function detached() {
  const buffer = new TextEncoder().encode(CARD).buffer;
  structuredClone(buffer, { transfer: [buffer] });
  return buffer;
}

/** Calls that make the module meet a JavaScript exception, each with what its error must name. */
function triggers(m, k) {
  const revoked = () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    return proxy;
  };
  class Liar extends Uint8Array {
    get length() {
      throw new Error("no length today");
    }
  }
  return [
    ["an options getter that throws", () => m.verify(CARD, { keys: [k.pub], get algorithms() { throw new Error("config not loaded"); } }), /"algorithms"/],
    ["a Proxy whose ownKeys trap throws", () => m.canonicalize(CARD, new Proxy({}, { ownKeys() { throw new Error("trap"); } })), /options of canonicalize/],
    ["a Proxy whose get trap throws", () => m.sign(CARD, k.priv, new Proxy({ kid: "a" }, { get() { throw new Error("trap"); } })), /"kid"/],
    ["a Proxy whose getPrototypeOf trap throws", () => m.inspect(CARD, new Proxy({}, { getPrototypeOf() { throw new Error("trap"); } })), /options of inspect/],
    ["a revoked Proxy as options", () => m.verify(CARD, revoked()), /options of verify/],
    ["a revoked Proxy as the card", () => m.canonicalize(revoked()), /card/],
    ["a revoked Proxy in a list option", () => m.verify(CARD, { keys: [k.pub], algorithms: revoked() }), /"algorithms"/],
    ["a revoked Proxy as a key", () => m.verify(CARD, { keys: [revoked()] }), /keys\[0\]/],
    ["a revoked Proxy as the signing key", () => m.sign(CARD, revoked()), /key/],
    ["a revoked Proxy as a header option", () => m.sign(CARD, k.priv, { header: revoked() }), /"header"/],
    ["a detached ArrayBuffer as the card", () => m.canonicalize(detached()), /card/],
    ["a list whose element getter throws", () => m.verify(CARD, { keys: [k.pub], profiles: Object.defineProperty([], 0, { get() { throw new Error("x"); } }) }), /"profiles"/],
    ["a card whose toJSON throws", () => m.lint({ toJSON() { throw new Error("no"); } }), /card/],
    ["a signing key whose toJSON throws", () => m.sign(CARD, { toJSON() { throw new Error("no"); } }), /key/],
    ["a revoked Proxy given to new Verifier", () => new m.Verifier(revoked()), /options of Verifier/],
    ["a throwing getter given to generateKey", () => m.generateKey("EdDSA", { get kid() { throw new Error("x"); } }), /"kid"/],
    ["a Proxy given to schema", () => m.schema(new Proxy({}, { ownKeys() { throw new Error("x"); } })), /options of schema/],
    ["a throwing getter given to migrate", () => m.migrate(CARD, { get protocolVersion() { throw new Error("x"); } }), /"protocolVersion"/],
    ["a Uint8Array subclass whose length throws", () => m.canonicalize(new Liar(new TextEncoder().encode("{"))), /invalid-json|JSON|input/],
  ];
}

for (const [build, m] of [["node", lib], ["web", web]]) {
  test(`${build}: every exception from JavaScript is an A2ACardError naming what threw`, () => {
    const k = ed25519Jwks();
    for (const [what, call, names] of triggers(m, k)) {
      const e = thrown(call);
      assert.equal(e.name, "A2ACardError", `${what}: ${e.name}: ${e.message}`);
      assert.match(e.code, /^(usage|invalid-json)$/, `${what}: ${e.code}: ${e.message}`);
      assert.match(e.message, names, `${what}: ${e.message}`);
    }
    // A Uint8Array whose `length` lies is read by its real length.
    class Short extends Uint8Array {
      get length() {
        return 2;
      }
    }
    assert.equal(m.canonicalize(new Short(new TextEncoder().encode(CARD))), m.canonicalize(CARD));
  });

  test(`${build}: 100,000 throwing calls leave the module working`, () => {
    const k = ed25519Jwks();
    const signed = m.sign(CARD, k.priv);
    const calls = triggers(m, k).map(([, call]) => call);
    const rounds = build === "node" ? 100_000 : 20_000;
    let foreign = 0;
    let first = null;
    for (let i = 0; i < rounds; i++) {
      try {
        calls[i % calls.length]();
      } catch (e) {
        if (e.name !== "A2ACardError") {
          foreign++;
          first ??= `call ${i}: ${e.name}: ${e.message}`;
        }
      }
    }
    // The module still works (the stack is balanced)...
    assert.equal(m.verify(signed, { keys: [k.pub] }).ok, true);
    assert.equal(m.canonicalize(CARD), '{"description":"d","name":"A","skills":[],"version":"1"}');
    assert.equal(JSON.parse(m.sign(CARD, k.priv)).signatures.length, 1);
    // ... and every exception came back as an A2ACardError.
    assert.equal(foreign, 0, `${foreign} exceptions were not A2ACardErrors, the first: ${first}`);
  });

  test(`${build}: a throw inside Verifier#verify leaves the verifier usable and freeable`, async () => {
    const k = ed25519Jwks();
    const signed = m.sign(CARD, k.priv);
    const v = new m.Verifier({ keys: [k.pub] });
    const bad = {
      get now() {
        throw new Error("clock not ready");
      },
    };
    const e = thrown(() => v.verify(signed, bad));
    assert.equal(e.name, "A2ACardError", e.message);
    assert.match(e.message, /"now"/);
    assert.equal(v.verify(signed).ok, true);
    const p = v.verifyAsync(signed, bad);
    assert.ok(p instanceof Promise, "Verifier#verifyAsync returns a promise");
    await assert.rejects(p, (err) => err.name === "A2ACardError" && /"now"/.test(err.message));
    assert.equal((await v.verifyAsync(signed)).ok, true);
    v.free();
  });

  test(`${build}: verifyAsync always returns a promise, which rejects with the A2ACardError`, async () => {
    const k = ed25519Jwks();
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const calls = [
      ["an options getter that throws", () => m.verifyAsync(CARD, { keys: [k.pub], get mode() { throw new Error("config not loaded"); } })],
      ["a Proxy whose ownKeys trap throws", () => m.verifyAsync(CARD, new Proxy({}, { ownKeys() { throw new Error("trap"); } }))],
      ["a revoked Proxy as options", () => m.verifyAsync(CARD, proxy)],
      ["a revoked Proxy as the card", () => m.verifyAsync(proxy, { keys: [k.pub] })],
      ["a revoked Proxy as a key", () => m.verifyAsync(CARD, { keys: [proxy] })],
      ["a detached ArrayBuffer as the card", () => m.verifyAsync(detached(), { keys: [k.pub] })],
    ];
    for (const [what, call] of calls) {
      let p;
      try {
        p = call();
      } catch (e) {
        assert.fail(`${what}: verifyAsync threw synchronously: ${e.name}: ${e.message}`);
      }
      assert.ok(p instanceof Promise, what);
      await assert.rejects(p, (err) => err.name === "A2ACardError", what);
    }
  });
}

// The glue wasm-bindgen generated: the functions the module imports. An import that may meet a
// caller's value (a getter, a Proxy trap, toJSON, a subclass's `length`) must catch (wasm-bindgen's
// `handleError` wrapper, from `#[wasm_bindgen(catch)]`), so that its exception comes back to Rust
// as an `Err` instead of unwinding through the module. The imports that do not catch are the ones
// below, each only ever given values the module made itself or the host's globals; a new one
// fails this test until it is made `catch` (src/js.rs) or shown to be safe and added here.
const NOT_CATCHING = new Map([
  // Closures handed to promises (verifyAsync), dropped.
  ["_wbg_cb_unref", "a closure the module made"],
  // wasm-bindgen wraps instanceof in try/catch itself.
  ["instanceof_Uint8Array", "try/catch inside"],
  // Arrays, errors and promises the module made (js.rs hands lists over as fresh arrays).
  ["get", "an array the module made or copied"],
  ["get_unchecked", "an array the module made or copied"],
  ["length", "an array or view the module made"],
  ["push", "an array the module made"],
  ["new", "new Array() or new Error(text)"],
  ["set_name", "an Error the module made"],
  ["reject", "Promise.reject of the module's error"],
  ["resolve", "Promise.resolve of the module's report"],
  ["now", "Date.now()"],
  // getrandom (generateKey): the host's crypto on globalThis, and buffers it made.
  ["crypto", "getrandom: globalThis.crypto"],
  ["msCrypto", "getrandom: globalThis.msCrypto"],
  ["node", "getrandom: process.versions.node"],
  ["process", "getrandom: globalThis.process"],
  ["versions", "getrandom: process.versions"],
  ["new_with_length", "getrandom: a buffer it made"],
  ["subarray", "getrandom: a buffer it made"],
  ["prototypesetcall", "getrandom: a buffer it made, into the module's memory"],
  ["static_accessor_GLOBAL_THIS", "globalThis"],
  ["static_accessor_GLOBAL", "global"],
  ["static_accessor_SELF", "self"],
  ["static_accessor_WINDOW", "window"],
]);

test("the generated glue: every import that may meet a caller's value catches", () => {
  for (const target of ["node", "web"]) {
    const glue = fs.readFileSync(path.join(pkgDir, target, "a2a_card.js"), "utf8");
    const imports = [...glue.matchAll(/^\s+__wbg_([A-Za-z0-9_$]+?)_[0-9a-f]{16}: function\(([^\n]*)$/gm)];
    assert.ok(imports.length > 20, `${target}: the imports of a2a_card.js were not found`);
    const caught = new Set();
    for (const [, name, rest] of imports) {
      if (rest.includes("handleError(")) {
        caught.add(name);
        continue;
      }
      // wasm-bindgen's intrinsics: typeof tests, ===, reading a primitive, throwing its own Error.
      if (name.startsWith("__wbindgen_")) continue;
      assert.ok(NOT_CATCHING.has(name), `${target}: the import ${name} does not catch; make it #[wasm_bindgen(catch)] (src/js.rs)`);
    }
    for (const name of ["read_options", "read_card", "stringify", "type_name", "is_array", "utf8_into", "make_report_flat", "host_verify", "web_verify"]) {
      assert.ok(caught.has(name), `${target}: the import ${name} catches`);
    }
  }
});
