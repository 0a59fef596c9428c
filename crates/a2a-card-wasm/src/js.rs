//! Every read of a caller's JavaScript value, in one place, and each one `catch`.
//!
//! A JavaScript exception that unwinds through WebAssembly frames skips the code that restores
//! the module's shadow-stack pointer: each one leaked about 257 bytes of the module's stack, and
//! after some 4,000 of them every later call failed ("memory access out of bounds", then
//! "unreachable") until the process restarted. A caller's value can run a caller's code when it
//! is read (a getter, a Proxy trap, `toJSON`, a subclass's `length`) or throw by itself (a
//! revoked Proxy, a detached `ArrayBuffer`), so the module never touches one with an import that
//! does not catch: the functions below read them in JavaScript, inside `try`, and hand back
//! values the module made (strings, numbers, booleans, fresh arrays, fresh `Uint8Array` views)
//! or an exception, which wasm-bindgen's `catch` turns into an `Err` before it reaches the
//! module. Each refusal thrown here is a sentence (a string), which [`refusal`] makes an
//! `A2ACardError` (`usage`). The Node test `test/exceptions.test.mjs` checks the generated glue:
//! an import that does not catch is a failure unless it is listed there as safe.

use crate::errors::usage;
use js_sys::{Array, JsString, Uint8Array};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(inline_js = r#"
const OBJECT_PROTO = Object.prototype;
const TYPED = Object.getPrototypeOf(Uint8Array.prototype);
const getter = (proto, name) => Object.getOwnPropertyDescriptor(proto, name).get;
// The internal slots of typed arrays and buffers, read by the intrinsic getters (a subclass's or
// an own `length` cannot lie to them).
const TAG = getter(TYPED, Symbol.toStringTag);
const VIEW_BUFFER = getter(TYPED, "buffer");
const VIEW_OFFSET = getter(TYPED, "byteOffset");
const VIEW_LENGTH = getter(TYPED, "byteLength");
const BUFFER_LENGTH = getter(ArrayBuffer.prototype, "byteLength");
// Elements a list option may hold, and prototypes an options object may chain through.
const MAX_LIST = 65536;
const MAX_CHAIN = 64;

// The message of an exception, never throwing itself.
function describe(e) {
  try {
    if (e instanceof Error) return String(e.message);
  } catch (_) {}
  try {
    if (typeof e === "string") return e;
    if (e === null || (typeof e !== "object" && typeof e !== "function")) return String(e);
    const m = e.message;
    if (typeof m === "string") return m;
  } catch (_) {}
  return "an exception";
}
function cut(text) {
  return text.length > 300 ? text.slice(0, 300) + "..." : text;
}
function kind(v) {
  if (v === null) return "null";
  try {
    if (Array.isArray(v)) return "an array";
  } catch (_) {
    return "a revoked Proxy";
  }
  return typeof v;
}
export function type_name(v) {
  return kind(v);
}
export function is_array(v) {
  return Array.isArray(v);
}
export function well_formed(s) {
  if (typeof s.isWellFormed === "function") return s.isWellFormed();
  for (let i = 0; i < s.length; i++) {
    const u = s.charCodeAt(i);
    if (u >= 0xd800 && u <= 0xdbff) {
      const v = s.charCodeAt(i + 1);
      if (!(v >= 0xdc00 && v <= 0xdfff)) return false;
      i++;
    } else if (u >= 0xdc00 && u <= 0xdfff) {
      return false;
    }
  }
  return true;
}
function checkString(s, place, what) {
  if (!well_formed(s)) {
    throw `option ${place} of ${what} holds a lone surrogate (a UTF-16 code unit that is half of a pair), which has no UTF-8 form`;
  }
  return s;
}
// A prototype that ends the options: Object.prototype of this realm, or of another one (a
// prototype-less object owning hasOwnProperty and the __proto__ accessor).
function isObjectPrototype(proto) {
  if (proto === OBJECT_PROTO) return true;
  try {
    return (
      Reflect.getPrototypeOf(proto) === null &&
      Object.prototype.hasOwnProperty.call(proto, "hasOwnProperty") &&
      typeof (Reflect.getOwnPropertyDescriptor(proto, "__proto__") || {}).get === "function"
    );
  } catch (_) {
    return false;
  }
}
// An option's value as the module reads it: a string (well formed), another primitive, a fresh
// array of its elements (strings well formed), or an object as it is (read by JSON.stringify
// where one is expected).
function copy(v, name, what) {
  const place = JSON.stringify(name);
  if (typeof v === "string") return checkString(v, place, what);
  if (typeof v !== "object" || v === null) return v;
  let list;
  try {
    list = Array.isArray(v);
  } catch (e) {
    throw `option ${place} of ${what} cannot be read: ${cut(describe(e))}`;
  }
  if (!list) return v;
  const out = [];
  try {
    const n = v.length;
    if (!(n <= MAX_LIST)) throw `option ${place} of ${what} has ${n} elements, more than ${MAX_LIST}`;
    for (let i = 0; i < n; i++) {
      const item = v[i];
      out.push(typeof item === "string" ? checkString(item, `${place}[${i}]`, what) : item);
    }
  } catch (e) {
    if (typeof e === "string") throw e;
    throw `option ${place} of ${what} cannot be read: ${cut(describe(e))}`;
  }
  return out;
}
// The options of `what` from `value` (an object that is not an array): [name, value, ...] for
// each option given, names checked against `known` (names separated by ","). The options are
// the object's own string-named properties, enumerable or not, and those of its prototypes
// before Object.prototype or null (a class's getters; a prototype's `constructor` is not an
// option); the nearest wins, and each is read once, through the object (getters see it as
// `this`).
export function read_options(value, what, known) {
  const names = known.split(",");
  const out = [];
  const seen = new Set();
  let holder = value;
  for (let depth = 0; ; depth++) {
    if (depth >= MAX_CHAIN) throw `the options of ${what} chain through more than ${MAX_CHAIN} prototypes`;
    let keys;
    try {
      keys = Reflect.ownKeys(holder);
    } catch (e) {
      throw `the options of ${what} cannot be read: ${cut(describe(e))}`;
    }
    for (const name of keys) {
      if (typeof name !== "string" || seen.has(name)) continue;
      if (holder !== value && name === "constructor") continue;
      seen.add(name);
      if (!names.includes(name)) {
        throw `unknown option ${JSON.stringify(name)} of ${what} (known: ${names.join(", ")})`;
      }
      let v;
      try {
        v = Reflect.get(value, name);
      } catch (e) {
        throw `option ${JSON.stringify(name)} of ${what} cannot be read: ${cut(describe(e))}`;
      }
      if (v !== undefined) out.push(name, copy(v, name, what));
    }
    let proto;
    try {
      proto = Reflect.getPrototypeOf(holder);
    } catch (e) {
      throw `the options of ${what} cannot be read: ${cut(describe(e))}`;
    }
    if (proto === null || isObjectPrototype(proto)) return out;
    holder = proto;
  }
}
// A card as the module reads it: a string (as given, or JSON.stringify of a value), or a fresh
// Uint8Array view of its bytes (a Uint8Array's or an ArrayBuffer's, by their internal slots).
export function read_card(card) {
  if (typeof card === "string") return card;
  if (card === undefined) throw "no card given";
  if (typeof card === "object" && card !== null) {
    if (TAG.call(card) === "Uint8Array") {
      try {
        return new Uint8Array(VIEW_BUFFER.call(card), VIEW_OFFSET.call(card), VIEW_LENGTH.call(card));
      } catch (e) {
        throw `the card's bytes cannot be read: ${cut(describe(e))}`;
      }
    }
    let length = -1;
    try {
      length = BUFFER_LENGTH.call(card);
    } catch (_) {}
    if (length >= 0) {
      try {
        return new Uint8Array(card, 0, length);
      } catch (e) {
        throw `the card's bytes cannot be read: ${cut(describe(e))}`;
      }
    }
  }
  let text;
  try {
    text = JSON.stringify(card);
  } catch (e) {
    throw `the card cannot be serialized with JSON.stringify: ${cut(describe(e))}`;
  }
  if (typeof text !== "string") {
    throw `the card is ${kind(card)}; give JSON text, UTF-8 bytes or a JSON-serializable value`;
  }
  return text;
}
// JSON text of a value that is not a string (a key, a JWK Set, a trust store, a header object).
export function stringify(value, what) {
  let text;
  try {
    text = JSON.stringify(value);
  } catch (e) {
    throw `${what} cannot be serialized with JSON.stringify: ${cut(describe(e))}`;
  }
  if (typeof text !== "string") {
    throw `${what} is ${kind(value)}; give JSON text or a JSON-serializable value`;
  }
  return text;
}
export function length_of(v) {
  return v.length;
}
export function copy_bytes(view, out) {
  out.set(view);
}
export function message_of(e) {
  return describe(e);
}
"#)]
extern "C" {
    #[wasm_bindgen(catch)]
    fn read_options(value: &JsValue, what: &str, known: &str) -> Result<Array, JsValue>;
    #[wasm_bindgen(catch)]
    fn read_card(card: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = stringify)]
    fn js_stringify(value: &JsValue, what: &str) -> Result<JsString, JsValue>;
    #[wasm_bindgen(catch, js_name = type_name)]
    fn js_type_name(v: &JsValue) -> Result<String, JsValue>;
    #[wasm_bindgen(catch, js_name = is_array)]
    fn js_is_array(v: &JsValue) -> Result<bool, JsValue>;
    #[wasm_bindgen(catch, js_name = length_of)]
    fn js_length(v: &JsValue) -> Result<f64, JsValue>;
    #[wasm_bindgen(catch, js_name = copy_bytes)]
    fn js_copy_bytes(view: &Uint8Array, out: &mut [u8]) -> Result<(), JsValue>;
    #[wasm_bindgen(catch, js_name = well_formed)]
    fn js_well_formed(s: &JsValue) -> Result<bool, JsValue>;
    #[wasm_bindgen(catch, js_name = message_of)]
    fn js_message_of(e: &JsValue) -> Result<String, JsValue>;
}

/// A refusal thrown by the readers (a sentence), or another exception, as a `usage` error.
pub(crate) fn refusal(e: JsValue) -> JsValue {
    usage(e.as_string().unwrap_or_else(|| message(&e)))
}

/// The message of a JavaScript exception.
pub(crate) fn message(e: &JsValue) -> String {
    js_message_of(e).unwrap_or_else(|_| "an exception".to_string())
}

/// The options given to `what`, as `(name, value)` pairs: see `read_options` above.
pub(crate) fn options(
    value: &JsValue,
    what: &str,
    known: &[&str],
) -> Result<Vec<(String, JsValue)>, JsValue> {
    let flat = read_options(value, what, &known.join(",")).map_err(refusal)?;
    let n = length(&flat);
    let mut out = Vec::with_capacity(n / 2);
    let mut i = 0;
    while i + 1 < n {
        let name = flat.get(i as u32).as_string().unwrap_or_default();
        out.push((name, flat.get(i as u32 + 1)));
        i += 2;
    }
    Ok(out)
}

/// A card: a JavaScript string, or a `Uint8Array` view made by the reader.
pub(crate) fn card(card: &JsValue) -> Result<JsValue, JsValue> {
    read_card(card).map_err(refusal)
}

/// JSON text of a value that is not a string (refusing what JSON.stringify cannot write).
pub(crate) fn stringify(value: &JsValue, what: &str) -> Result<JsString, JsValue> {
    js_stringify(value, what).map_err(refusal)
}

/// `typeof`, as people read it ("an array", "null").
pub(crate) fn type_name(v: &JsValue) -> String {
    js_type_name(v).unwrap_or_else(|_| "unknown".into())
}

/// `Array.isArray`, false for what it throws on (a revoked Proxy).
pub(crate) fn is_array(v: &JsValue) -> bool {
    js_is_array(v).unwrap_or(false)
}

/// True for a string without lone surrogates.
pub(crate) fn well_formed(s: &JsValue) -> bool {
    js_well_formed(s).unwrap_or(false)
}

/// The `length` of a string or of an array or view the module made.
pub(crate) fn length(v: &JsValue) -> usize {
    js_length(v).map_or(0, |n| n as usize)
}

/// Copies a view the module made into `out` (as long as the view).
pub(crate) fn copy_bytes(view: &Uint8Array, out: &mut [u8]) -> Result<(), JsValue> {
    js_copy_bytes(view, out).map_err(refusal)
}
