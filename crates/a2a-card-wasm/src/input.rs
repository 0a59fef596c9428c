//! JavaScript values in: cards as text, bytes or values, and the options objects, read by the
//! core's tables (each value by its row's kind) into its requests.

use crate::errors::{about_option, option_usage, request_error, usage, OrThrow};
use crate::js;
use a2a_card::request::{camel_case, Input, Kind, OptionSpec, OptionValue, Request};
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
    pub(crate) fn read(value: &JsValue, what: &'static str, known: &[&str]) -> Result<Options, JsValue> {
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

    /// The refusal of a value of the option `name`: `option "name" of WHAT` and `what_is`.
    fn refuse(&self, name: &str, what_is: String) -> JsValue {
        option_usage(name, format!("option {name:?} of {} {what_is}", self.what))
    }

    pub(crate) fn string(&self, name: &str) -> Result<Option<String>, JsValue> {
        match self.get(name)? {
            None => Ok(None),
            Some(v) => (v.as_string().map(Some))
                .ok_or_else(|| self.refuse(name, format!("must be a string, not {}", js::type_name(&v)))),
        }
    }

    pub(crate) fn boolean(&self, name: &str) -> Result<Option<bool>, JsValue> {
        match self.get(name)? {
            None => Ok(None),
            Some(v) => (v.as_bool().map(Some))
                .ok_or_else(|| self.refuse(name, format!("must be a boolean, not {}", js::type_name(&v)))),
        }
    }

    pub(crate) fn number(&self, name: &str) -> Result<Option<f64>, JsValue> {
        match self.get(name)? {
            None => Ok(None),
            Some(v) => match v.as_f64() {
                Some(n) if n.is_finite() => Ok(Some(n)),
                _ => Err(self.refuse(name, "must be a finite number".into())),
            },
        }
    }

    /// A non-negative integer count; a number that is not one, or that this build cannot hold,
    /// is refused by its true value (never saturated).
    pub(crate) fn count(&self, name: &str) -> Result<Option<usize>, JsValue> {
        match self.number(name)? {
            None => Ok(None),
            Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= usize::MAX as f64 => Ok(Some(n as usize)),
            Some(n) if n >= 0.0 && n.fract() == 0.0 => {
                Err(self.refuse(name, format!("is {n}, more than this build can count")))
            }
            Some(n) => Err(self.refuse(name, format!("must be a non-negative integer, not {n}"))),
        }
    }

    /// A string or an array of strings, as a list.
    pub(crate) fn one_or_more(&self, name: &str) -> Result<Vec<String>, JsValue> {
        match self.get(name)? {
            None => Ok(Vec::new()),
            Some(v) if v.is_string() => Ok(self.string(name)?.into_iter().collect()),
            Some(_) => Ok(self.strings(name)?.unwrap_or_default()),
        }
    }

    /// An array of strings.
    pub(crate) fn strings(&self, name: &str) -> Result<Option<Vec<String>>, JsValue> {
        let Some(v) = self.get(name)? else { return Ok(None) };
        let err = || self.refuse(name, "must be an array of strings".into());
        if !js::is_array(&v) {
            return Err(err());
        }
        let array: Array = v.unchecked_into();
        array
            .iter()
            .map(|item| item.as_string().ok_or_else(err))
            .collect::<Result<_, _>>()
            .map(Some)
    }

    /// A JSON object option (header parameters) as name/value pairs of the core's JSON model.
    pub(crate) fn members(&self, name: &str) -> Result<Vec<(String, serde_json::Value)>, JsValue> {
        let Some(v) = self.get(name)? else {
            return Ok(Vec::new());
        };
        let err = || self.refuse(name, "must be an object".into());
        if !v.is_object() || js::is_array(&v) {
            return Err(err());
        }
        let text = String::from(js::stringify(&v, &format!("option {name:?} of {}", self.what))?);
        match a2a_card::canonical::parse_json(text.as_bytes(), &Limits::default()).or_throw()? {
            serde_json::Value::Object(members) => Ok(members.into_iter().collect()),
            _ => Err(err()),
        }
    }
}

/// The names of the options of `table` this package offers, as it spells them (camelCase), made
/// once per table.
pub(crate) fn names(table: &'static [OptionSpec]) -> &'static [&'static str] {
    type Made = Vec<(usize, &'static [&'static str])>;
    static MADE: std::sync::Mutex<Made> = std::sync::Mutex::new(Vec::new());
    let mut made = MADE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, names)) = made.iter().find(|(t, _)| *t == table.as_ptr() as usize) {
        return names;
    }
    let offered = table.iter().filter(|s| s.fronts.npm);
    let names = offered
        .map(|s| &*Box::leak(camel_case(s.name).into_boxed_str()))
        .collect::<Vec<_>>();
    let names: &'static [&'static str] = Box::leak(names.into_boxed_slice());
    made.push((table.as_ptr() as usize, names));
    names
}

/// The options of `what` (sign, canonicalize, inspect, lint, migrate) read by the table of its
/// request (`R::TABLE`, in camelCase): the names checked, then [`request_from`].
pub(crate) fn read_request<R: Request>(options: &JsValue, what: &'static str) -> Result<R::Built, JsValue> {
    request_from::<R>(&Options::read(options, what, names(R::TABLE))?, request_error)
}

/// The options of `R::TABLE` among options read: each value by its kind into the request,
/// which applies every default, bound and rule; `refused` makes the error of a refusal.
pub(crate) fn request_from<R: Request>(
    o: &Options,
    refused: fn(&Error, &str) -> JsValue,
) -> Result<R::Built, JsValue> {
    let mut request = R::default();
    for spec in R::TABLE.iter().filter(|s| s.fronts.npm) {
        if let Some(value) = read_option(o, spec)? {
            request.set(spec.name, value).map_err(|e| refused(&e, o.what))?;
        }
    }
    request.build().map_err(|e| refused(&e, o.what))
}

/// One option's value, read by its kind (`None`: not given).
fn read_option(o: &Options, spec: &OptionSpec) -> Result<Option<OptionValue>, JsValue> {
    let name = camel_case(spec.name);
    Ok(match spec.kind {
        Kind::Count { .. } => o.count(&name)?.map(OptionValue::Count),
        Kind::Text | Kind::Choice(_) | Kind::Names(_) => o.string(&name)?.map(OptionValue::Text),
        Kind::List => o.strings(&name)?.map(OptionValue::Texts),
        Kind::Texts => Some(OptionValue::Texts(o.one_or_more(&name)?)),
        Kind::Pem => {
            // An empty list gives no certificate, as no list does.
            let pems = o.one_or_more(&name)?.into_iter().enumerate();
            let inputs: Vec<Input> = pems
                .map(|(i, pem)| Input::new(pem, format!("{name}[{i}]")))
                .collect();
            (!inputs.is_empty()).then_some(OptionValue::Inputs(inputs))
        }
        Kind::Keys { list } => match o.get(&name)? {
            None => None,
            // A list was copied into a fresh array when the options were read (js.rs).
            Some(v) if list && crate::js::is_array(&v) => {
                let mut inputs = Vec::new();
                for (i, key) in v.unchecked_into::<Array>().iter().enumerate() {
                    let source = format!("{name}[{i}]");
                    let text = json_text(&key, &source).map_err(|e| about_option(e, &name))?;
                    inputs.push(Input::new(text, source));
                }
                Some(OptionValue::Inputs(inputs))
            }
            Some(v) => {
                let source = if list { format!("{name}[0]") } else { name.clone() };
                let text = json_text(&v, &source).map_err(|e| about_option(e, &name))?;
                Some(OptionValue::Inputs(vec![Input::new(text, source)]))
            }
        },
        Kind::Flag(_) => o.boolean(&name)?.map(OptionValue::Flag),
        Kind::Members => Some(OptionValue::Members(o.members(&name)?)),
        Kind::Time => o.number(&name)?.map(|n| OptionValue::Time(seconds(n))),
    })
}
