//! JavaScript values in: cards as text, bytes or values, and the options objects, read by the
//! core's tables (`JavaScript`: the shapes of its values and the words of its messages) into its
//! requests.

use crate::errors::{about_option, option_usage, request_error, usage, OrThrow};
use crate::js;
use a2a_card::request::{
    camel_case, read_value, Fronts, Kind, Language, OptionSpec, OptionValue, Request, Shape, Show, Words,
};
use a2a_card::{Error, ErrorCode, Limits};
use js_sys::{Array, JsString, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Strings longer than this many UTF-16 units are encoded by the host first and then copied in
/// (so that the module's buffer is not three times their size); shorter ones are encoded
/// straight into the module's memory.
pub(crate) const DIRECT_UTF8_UNITS: usize = 1 << 20;

/// The largest document the core reads, whatever `maxInputBytes` says.
const MAX_DOC_BYTES: usize = 0x7FFF_FFFF;

/// Seconds since the Unix epoch from a JavaScript number of seconds.
pub(crate) fn seconds(n: f64) -> i64 {
    n.floor() as i64
}

/// `input-too-large`, as the core's reader says it, before anything was copied in.
fn too_large(what: String, max: usize) -> JsValue {
    crate::errors::js_error(
        &Error::new(
            ErrorCode::InputTooLarge,
            format!("the input is {what}, more than the limit of {max} bytes"),
        )
        .at(""),
    )
}

/// The UTF-8 bytes of a JavaScript string, refused by its length before it is copied into the
/// module's memory (which never shrinks) when it must be longer than `max` bytes: a string of
/// n UTF-16 units has between n and 3n bytes of UTF-8. A string with a lone surrogate has no
/// UTF-8 form; its surrogates are written as their three-byte (WTF-8) sequences, which the
/// core's strict reader refuses as `invalid-json` at the member that holds them, instead of
/// being replaced by U+FFFD on the way in.
pub(crate) fn string_bytes(s: &JsString, max: usize) -> Result<Vec<u8>, JsValue> {
    let units = js::length(s);
    if units > max {
        return Err(too_large(
            format!("a string of {units} UTF-16 code units (at least {units} bytes of UTF-8)"),
            max,
        ));
    }
    // A large string is encoded by the host first (null: it has a lone surrogate), its length
    // checked, and then copied in.
    if units > DIRECT_UTF8_UNITS {
        if let Some(bytes) = js::utf8(s).ok().and_then(|v| v.dyn_into::<Uint8Array>().ok()) {
            return view_bytes(&bytes, max);
        }
    }
    // Written by TextEncoder.encodeInto straight into a buffer of this module: 3 bytes per
    // UTF-16 unit always suffice, and a few bytes over the limit tell that it is over.
    let cap = units.saturating_mul(3).min(max.saturating_add(4));
    let mut buf = vec![0u8; cap];
    match js::utf8_into(s, &mut buf) {
        Ok(written) if written >= 0 => {
            buf.truncate(written as usize);
            Ok(buf)
        }
        Ok(_) => Err(too_large(format!("more than {cap} bytes"), max)),
        Err(e) => Err(js::refusal(e)),
    }
}

/// The bytes of a card: a string (its UTF-8), a Uint8Array or ArrayBuffer (as is), or any
/// other value (JSON.stringify), refused before it is copied into the module's memory when it
/// is longer than the limit.
pub(crate) fn card_bytes(card: &JsValue, limits: &Limits) -> Result<Vec<u8>, JsValue> {
    let max = limits.max_input_bytes.min(MAX_DOC_BYTES);
    let value = js::card(card)?;
    if let Some(s) = value.dyn_ref::<JsString>() {
        return string_bytes(s, max);
    }
    view_bytes(&value.unchecked_into(), max)
}

/// The bytes of a view the module made (a card's, or a string's UTF-8), refused by its length
/// before they are copied into the module's memory when there are more than `max`.
fn view_bytes(view: &Uint8Array, max: usize) -> Result<Vec<u8>, JsValue> {
    let n = js::length(view);
    if n > max {
        return Err(too_large(format!("{n} bytes"), max));
    }
    let mut out = vec![0u8; n];
    js::copy_bytes(view, &mut out)?;
    Ok(out)
}

/// Text of a key, JWKS or trust store: a string as it is, an object through JSON.stringify.
pub(crate) fn json_text(value: &JsValue, what: &str) -> Result<String, JsValue> {
    if let Some(s) = value.as_string() {
        if !js::well_formed(value) {
            return Err(usage(format!(
                "{what} holds a lone surrogate (a UTF-16 code unit that is half of a pair), which has no UTF-8 form"
            )));
        }
        return Ok(s);
    }
    if !value.is_object() {
        return Err(usage(format!(
            "{what} must be text or an object, not {}",
            js::type_name(value)
        )));
    }
    Ok(String::from(js::stringify(value, what)?))
}

/// An options object, checked against the names it may hold so that a misspelt option is an
/// error, not a silent default. Read once, in JavaScript (`js::options`): the object's own
/// properties, enumerable or not, and those of its prototypes before `Object.prototype` or
/// `null`; every exception a getter or a Proxy throws is a `usage` error naming the option.
pub(crate) struct Options {
    /// The options given, in the order read, with their values (`undefined` ones left out;
    /// strings well formed; lists as fresh arrays).
    members: Vec<(String, JsValue)>,
    pub(crate) what: &'static str,
}

impl Options {
    /// `known`: the names it may hold, separated by commas.
    pub(crate) fn read(value: &JsValue, what: &'static str, known: &str) -> Result<Options, JsValue> {
        if value.is_undefined() || value.is_null() {
            return Ok(Options {
                members: Vec::new(),
                what,
            });
        }
        if !value.is_object() || js::is_array(value) {
            return Err(usage(format!(
                "the options of {what} must be an object, not {}",
                js::type_name(value)
            )));
        }
        Ok(Options {
            members: js::options(value, what, known)?,
            what,
        })
    }

    /// The options when their values are all primitives (strings, numbers, booleans), which
    /// is what was read from them entirely; `None` when one holds an object, an array or a
    /// function.
    pub(crate) fn primitive_members(&self) -> Option<&[(String, JsValue)]> {
        self.members
            .iter()
            .all(|(_, v)| !v.is_object() && !v.is_function() && !v.is_symbol() && !v.is_bigint())
            .then_some(&self.members)
    }

    /// The option's value; `undefined` counts as absent.
    pub(crate) fn get(&self, name: &str) -> Result<Option<JsValue>, JsValue> {
        Ok(self
            .members
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .filter(|v| !v.is_undefined()))
    }

    /// The option `name` (given as this package spells it, and the same in snake_case: `now`,
    /// `origin`) read as the core reads a row of `kind`.
    pub(crate) fn value(&self, name: &str, kind: Kind) -> Result<Option<OptionValue>, JsValue> {
        match self.get(name)? {
            None => Ok(None),
            Some(v) => read_value(&JavaScript(self.what), name, kind, &v),
        }
    }
}

/// JavaScript, as the core's table reader ([`a2a_card::request::read_value`]) sees it: its
/// shapes, the words of its messages (`option "profile" of verify must be a string, not
/// number`); the call's name (`what`) is in every message.
pub(crate) struct JavaScript(pub(crate) &'static str);

impl Language for JavaScript {
    type Value = JsValue;
    type Error = JsValue;
    const WORDS: Words = Words {
        text: ("a string", Show::Type),
        flag: ("a boolean", Show::Type),
        count: ("a non-negative integer", Show::Value),
        list: ("an array of strings", Show::Nothing),
        texts: ("an array of strings", Show::Nothing),
        object: ("an object", Show::Nothing),
        time: ("a finite number", Show::Nothing),
        number: Some("a finite number"),
    };

    fn offers(fronts: &Fronts) -> bool {
        fronts.npm
    }

    fn spell(&self, name: &str) -> String {
        camel_case(name)
    }

    /// A list was copied into a fresh array when the options were read (js.rs).
    fn shape(&self, v: &JsValue) -> Result<Shape<JsValue>, JsValue> {
        Ok(if let Some(s) = v.as_string() {
            Shape::Text(s)
        } else if let Some(b) = v.as_bool() {
            Shape::Flag(b)
        } else if let Some(n) = v.as_f64() {
            Shape::Number(n)
        } else if js::is_array(v) {
            Shape::List(v.clone().unchecked_into::<Array>().iter().collect())
        } else if v.is_object() {
            Shape::Object
        } else {
            Shape::Other
        })
    }

    fn type_name(&self, v: &JsValue) -> String {
        js::type_name(v)
    }

    fn repr(&self, v: &JsValue) -> String {
        js::type_name(v)
    }

    fn members(&self, v: &JsValue, name: &str) -> Result<Vec<(String, serde_json::Value)>, JsValue> {
        let text = String::from(js::stringify(v, &format!("option {name:?} of {}", self.0))?);
        match a2a_card::canonical::parse_json(text.as_bytes(), &Limits::default()).or_throw()? {
            serde_json::Value::Object(members) => Ok(members.into_iter().collect()),
            _ => Err(self.refuse(name, "must be an object".into())),
        }
    }

    fn key_text(&self, v: &JsValue, source: &str, name: &str) -> Result<String, JsValue> {
        json_text(v, source).map_err(|e| about_option(e, name))
    }

    fn refuse(&self, name: &str, what_is: String) -> JsValue {
        option_usage(name, format!("option {name:?} of {} {what_is}", self.0))
    }
}

/// The names of the options of `table` this package offers, as it spells them (camelCase),
/// separated by commas.
pub(crate) fn names(table: &[OptionSpec]) -> String {
    let offered = table.iter().filter(|s| JavaScript::offers(&s.fronts));
    offered.map(|s| camel_case(s.name)).collect::<Vec<_>>().join(",")
}

/// The options of `what` (sign, canonicalize, inspect, lint, migrate) read by the table of its
/// request (`R::TABLE`, in camelCase): the names checked, then [`request_from`].
pub(crate) fn read_request<R: Request>(options: &JsValue, what: &'static str) -> Result<R::Built, JsValue> {
    request_from::<R>(&Options::read(options, what, &names(R::TABLE))?, request_error)
}

/// The options of `R::TABLE` among options read, read by the core's table reader into the
/// request, which applies every default, bound and rule; `refused` makes the error of a refusal.
pub(crate) fn request_from<R: Request>(
    o: &Options,
    refused: fn(&Error, &str) -> JsValue,
) -> Result<R::Built, JsValue> {
    let get = |name: &str| o.get(&camel_case(name));
    a2a_card::request::read_request::<R, _>(&JavaScript(o.what), get, |e| refused(&e, o.what))
}
