//! Every read of a caller's JavaScript value, in one place, and each one `catch`.
//!
//! A JavaScript exception that unwinds through WebAssembly frames skips the code that restores
//! the module's shadow-stack pointer: each one leaked about 257 bytes of the module's stack, and
//! after some 4,000 of them every later call failed ("memory access out of bounds", then
//! "unreachable") until the process restarted. A caller's value can run a caller's code when it
//! is read (a getter, a Proxy trap, `toJSON`, a subclass's `length`) or throw by itself (a
//! revoked Proxy, a detached `ArrayBuffer`), so the module never touches one with an import that
//! does not catch: the functions of `js/read.js` read them in JavaScript, inside `try`, and hand back
//! values the module made (strings, numbers, booleans, fresh arrays, fresh `Uint8Array` views)
//! or an exception, which wasm-bindgen's `catch` turns into an `Err` before it reaches the
//! module. Each refusal thrown here is a sentence (a string, or an `OptionRefusal` that also
//! names the option it is about), which [`refusal`] makes an `A2ACardError` (`usage`, with its
//! `option` as the errors about an option raised in Rust have it). The Node test `test/exceptions.test.mjs` checks the generated glue:
//! an import that does not catch is a failure unless it is listed there as safe.

use crate::errors::{option_usage, usage};
use js_sys::{Array, JsString, Uint8Array};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/js/read.js")]
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
    #[wasm_bindgen(catch, js_name = refusal_option)]
    fn js_refusal_option(e: &JsValue) -> Result<Option<String>, JsValue>;
    /// The UTF-8 bytes of a string (a `Uint8Array`), `null` when it has a lone surrogate.
    #[wasm_bindgen(catch)]
    pub(crate) fn utf8(s: &JsString) -> Result<JsValue, JsValue>;
    /// The UTF-8 bytes of a string written into `out`: their length, -1 when they do not fit.
    #[wasm_bindgen(catch)]
    pub(crate) fn utf8_into(s: &JsString, out: &mut [u8]) -> Result<i32, JsValue>;
}

/// A refusal thrown by the readers (a sentence; about one option, with the option as the
/// error's `option`), or another exception, as a `usage` error.
pub(crate) fn refusal(e: JsValue) -> JsValue {
    if let Some(sentence) = e.as_string() {
        return usage(sentence);
    }
    match js_refusal_option(&e) {
        Ok(Some(option)) => option_usage(&option, message(&e)),
        _ => usage(message(&e)),
    }
}

/// The message of a JavaScript exception.
pub(crate) fn message(e: &JsValue) -> String {
    js_message_of(e).unwrap_or_else(|_| "an exception".to_string())
}

/// The options given to `what`, as `(name, value)` pairs: see `read_options` in `js/read.js`.
pub(crate) fn options(value: &JsValue, what: &str, known: &str) -> Result<Vec<(String, JsValue)>, JsValue> {
    let flat = read_options(value, what, known).map_err(refusal)?;
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
