// @ts-check
// Every read of a caller's JavaScript value, imported by src/js.rs (#[wasm_bindgen(module =
// "/js/read.js")]), where each import is `catch` and why is said: a JavaScript exception must
// never unwind through the module's frames, so values the caller gave are read here, inside
// `try`, and the module gets back values it can trust or an exception (a refusal is a sentence,
// thrown as a string, or as an OptionRefusal when it is about one option). Exports functions only and imports nothing (scripts/build-wasm.sh makes
// it CommonJS for the Node build). Type-checked by test/types.test.mjs (tsc --checkJs --strict,
// js/tsconfig.json).

const OBJECT_PROTO = Object.prototype;
const TYPED = Object.getPrototypeOf(Uint8Array.prototype);
/** @type {(proto: object, name: PropertyKey) => (this: unknown) => any} */
const getter = (proto, name) => /** @type {any} */ (Object.getOwnPropertyDescriptor(proto, name)).get;
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

// A refusal about one option: the sentence, and the option as the caller named it (one of the
// package's camelCase names), which the module gives the error it throws as its `option`, as it
// does for the errors about an option that it raises itself (refusal_option, src/js.rs).
class OptionRefusal {
  /**
   * @param {string} option
   * @param {string} message
   */
  constructor(option, message) {
    this.option = option;
    this.message = message;
  }
}
/**
 * The option a refusal is about: an OptionRefusal's, else null.
 * @param {unknown} e
 * @returns {string | null}
 */
export function refusal_option(e) {
  return e instanceof OptionRefusal ? e.option : null;
}
// The message of an exception, never throwing itself.
/**
 * @param {unknown} e
 * @returns {string}
 */
function describe(e) {
  try {
    if (e instanceof Error) return String(e.message);
  } catch (_) {}
  try {
    if (typeof e === "string") return e;
    if (e === null || (typeof e !== "object" && typeof e !== "function")) return String(e);
    const m = /** @type {{ message?: unknown }} */ (e).message;
    if (typeof m === "string") return m;
  } catch (_) {}
  return "an exception";
}
/**
 * @param {string} text
 * @returns {string}
 */
function cut(text) {
  return text.length > 300 ? text.slice(0, 300) + "..." : text;
}
/**
 * @param {unknown} v
 * @returns {string}
 */
function kind(v) {
  if (v === null) return "null";
  try {
    if (Array.isArray(v)) return "an array";
  } catch (_) {
    return "a revoked Proxy";
  }
  return typeof v;
}
/**
 * @param {unknown} v
 * @returns {string}
 */
export function type_name(v) {
  return kind(v);
}
/**
 * @param {unknown} v
 * @returns {boolean}
 */
export function is_array(v) {
  return Array.isArray(v);
}
/**
 * @param {string} s
 * @returns {boolean}
 */
export function well_formed(s) {
  if (typeof s.isWellFormed === "function") return s.isWellFormed();
  if (!/[\uD800-\uDFFF]/.test(s)) return true;
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
const encoder = new TextEncoder();
// The UTF-8 bytes of a well-formed string (a card given as text); null for a string with a lone
// surrogate.
/**
 * @param {string} s
 * @returns {Uint8Array | null}
 */
export function utf8(s) {
  return well_formed(s) ? encoder.encode(s) : null;
}
// The UTF-8 bytes of `s` written into `out` (a view of the module's memory): their length, or -1
// when they do not all fit. A lone surrogate is written as its three-byte (WTF-8) sequence.
/**
 * @param {string} s
 * @param {Uint8Array} out
 * @returns {number}
 */
export function utf8_into(s, out) {
  if (well_formed(s)) {
    const r = encoder.encodeInto(s, out);
    return r.read === s.length ? r.written : -1;
  }
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = /** @type {number} */ (s.codePointAt(i));
    if (c > 0xffff) i++;
    const need = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    if (n + need > out.length) return -1;
    if (need === 1) {
      out[n++] = c;
    } else if (need === 2) {
      out[n++] = 0xc0 | (c >> 6);
      out[n++] = 0x80 | (c & 0x3f);
    } else if (need === 3) {
      out[n++] = 0xe0 | (c >> 12);
      out[n++] = 0x80 | ((c >> 6) & 0x3f);
      out[n++] = 0x80 | (c & 0x3f);
    } else {
      out[n++] = 0xf0 | (c >> 18);
      out[n++] = 0x80 | ((c >> 12) & 0x3f);
      out[n++] = 0x80 | ((c >> 6) & 0x3f);
      out[n++] = 0x80 | (c & 0x3f);
    }
  }
  return n;
}
/**
 * @param {string} s
 * @param {string} name
 * @param {string} place
 * @param {string} what
 * @returns {string}
 */
function checkString(s, name, place, what) {
  if (!well_formed(s)) {
    throw new OptionRefusal(
      name,
      `option ${place} of ${what} holds a lone surrogate (a UTF-16 code unit that is half of a pair), which has no UTF-8 form`,
    );
  }
  return s;
}
// A prototype that ends the options: Object.prototype of this realm, or of another one (a
// prototype-less object owning hasOwnProperty and the __proto__ accessor).
/**
 * @param {object} proto
 * @returns {boolean}
 */
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
/**
 * @param {unknown} v
 * @param {string} name
 * @param {string} what
 * @returns {unknown}
 */
function copy(v, name, what) {
  const place = JSON.stringify(name);
  if (typeof v === "string") return checkString(v, name, place, what);
  if (typeof v !== "object" || v === null) return v;
  let list;
  try {
    list = Array.isArray(v);
  } catch (e) {
    throw new OptionRefusal(name, `option ${place} of ${what} cannot be read: ${cut(describe(e))}`);
  }
  if (!list) return v;
  const out = [];
  try {
    const n = /** @type {unknown[]} */ (v).length;
    if (!(n <= MAX_LIST)) {
      throw new OptionRefusal(name, `option ${place} of ${what} has ${n} elements, more than ${MAX_LIST}`);
    }
    for (let i = 0; i < n; i++) {
      const item = /** @type {unknown[]} */ (v)[i];
      out.push(typeof item === "string" ? checkString(item, name, `${place}[${i}]`, what) : item);
    }
  } catch (e) {
    if (e instanceof OptionRefusal) throw e;
    throw new OptionRefusal(name, `option ${place} of ${what} cannot be read: ${cut(describe(e))}`);
  }
  return out;
}
// The names of each list given as `known` to read_options, kept by the list (a few lists, each
// passed as the same string every time).
/** @type {Map<string, string[]>} */
const KNOWN = new Map();
// The options of `what` from `value` (an object that is not an array): [name, value, ...] for
// each option given, names checked against `known` (names separated by ","). The options are
// the object's own string-named properties, enumerable or not, and those of its prototypes
// before Object.prototype or null (a class's getters; a prototype's `constructor` is not an
// option); the nearest wins, and each is read once, through the object (getters see it as
// `this`).
/**
 * @param {object} value
 * @param {string} what
 * @param {string} known
 * @returns {unknown[]}
 */
export function read_options(value, what, known) {
  let names = KNOWN.get(known);
  if (names === undefined) {
    names = known.split(",");
    if (KNOWN.size < 16) KNOWN.set(known, names);
  }
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
        throw new OptionRefusal(name, `option ${JSON.stringify(name)} of ${what} cannot be read: ${cut(describe(e))}`);
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
/**
 * @param {unknown} card
 * @returns {string | Uint8Array}
 */
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
        return new Uint8Array(/** @type {ArrayBuffer} */ (card), 0, length);
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
/**
 * @param {unknown} value
 * @param {string} what
 * @returns {string}
 */
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
/**
 * @param {{ length: number }} v
 * @returns {number}
 */
export function length_of(v) {
  return v.length;
}
/**
 * @param {Uint8Array} view
 * @param {Uint8Array} out
 * @returns {void}
 */
export function copy_bytes(view, out) {
  out.set(view);
}
/**
 * @param {unknown} e
 * @returns {string}
 */
export function message_of(e) {
  return describe(e);
}
