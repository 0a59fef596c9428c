//! Library errors as JavaScript `Error` objects, and the package's usage errors.

use a2a_card::{Error, ErrorCode};
use js_sys::Reflect;
use wasm_bindgen::prelude::*;

/// The JavaScript `Error` for a library error: `name` "A2ACardError", the message with its
/// place, and `code`, `pointer`, `offset` and `option` properties (`option`: the option the
/// error is about, in this package's camelCase, or null).
pub(crate) fn js_error(e: &Error) -> JsValue {
    let option = e.option().map(a2a_card::request::camel_case);
    // The options an error names, spelled as this package spells them.
    error_object(&e.clone().spelled(&a2a_card::request::Camel), option.as_deref())
}

/// The JavaScript `Error` for a refusal of the request of `what` (canonicalize, inspect, lint,
/// migrate, sign): as [`js_error`], a message about an option labelled `option "name" of what:
/// ...` (as these functions always labelled them).
pub(crate) fn request_error(e: &Error, what: &str) -> JsValue {
    let option = e.option().map(a2a_card::request::camel_case);
    let label = |name: &str, message: &str| format!("option {name} of {what}: {message}");
    let spelling = a2a_card::request::Labelled(&a2a_card::request::Camel, &label);
    error_object(&e.clone().spelled(&spelling), option.as_deref())
}

fn error_object(e: &Error, option: Option<&str>) -> JsValue {
    let err = js_sys::Error::new(&e.to_string());
    err.set_name("A2ACardError");
    let pointer = e.pointer().map_or(JsValue::NULL, JsValue::from_str);
    let offset = e.offset().map_or(JsValue::NULL, |o| JsValue::from_f64(o as f64));
    // Reflect.set on a fresh Error object cannot fail; a failure would only lose a property.
    let _ = Reflect::set(
        &err,
        &JsValue::from_str("code"),
        &JsValue::from_str(e.code().as_str()),
    );
    let _ = Reflect::set(&err, &JsValue::from_str("pointer"), &pointer);
    let _ = Reflect::set(&err, &JsValue::from_str("offset"), &offset);
    let option = option.map_or(JsValue::NULL, JsValue::from_str);
    let _ = Reflect::set(&err, &JsValue::from_str("option"), &option);
    err.into()
}

/// The same error (one this package made), about the option `option` (as this package spells
/// it) when it is about none yet: a refusal of one input of an option (a key that is neither
/// text nor an object) carries its option as every other refusal about an option does.
pub(crate) fn about_option(e: JsValue, option: &str) -> JsValue {
    let key = JsValue::from_str("option");
    if Reflect::get(&e, &key).is_ok_and(|v| v.is_null() || v.is_undefined()) {
        let _ = Reflect::set(&e, &key, &JsValue::from_str(option));
    }
    e
}

/// A `usage` error: the caller passed arguments or options this package cannot use.
pub(crate) fn usage(message: impl Into<String>) -> JsValue {
    js_error(&Error::new(ErrorCode::Usage, message))
}

/// A `usage` error about the option `option` (as this package spells it), whose message names
/// it already.
pub(crate) fn option_usage(option: &str, message: impl Into<String>) -> JsValue {
    error_object(&Error::new(ErrorCode::Usage, message), Some(option))
}

pub(crate) trait OrThrow<T> {
    fn or_throw(self) -> Result<T, JsValue>;
}

impl<T> OrThrow<T> for Result<T, Error> {
    fn or_throw(self) -> Result<T, JsValue> {
        self.map_err(|e| js_error(&e))
    }
}
