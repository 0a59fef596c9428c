//! JavaScript values in: cards as text, bytes or values, and the options objects.

use crate::errors::{js_message, usage, OrThrow};
use crate::host::{utf8, utf8_into};
use a2a_card::Algorithm;
use a2a_card::{CanonicalizeOptions, Limits, Profile, UnknownMembers};
use js_sys::{Array, ArrayBuffer, JsString, Object, Reflect, Uint8Array, JSON};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen]
extern "C" {
    /// A JavaScript string, seen through the one method below.
    type WellFormed;
    /// `String.prototype.isWellFormed` (ES2024); missing on older engines, hence `catch`.
    #[wasm_bindgen(method, catch, js_name = isWellFormed)]
    pub(crate) fn is_well_formed(this: &WellFormed) -> Result<bool, JsValue>;
}

/// Strings up to this many UTF-16 units are encoded straight into the module's memory.
pub(crate) const DIRECT_UTF8_UNITS: usize = 1 << 20;

/// The UTF-8 bytes of a JavaScript string. A string with a lone surrogate has no UTF-8 form;
/// its surrogates are written as their three-byte (WTF-8) sequences, which the core's strict
/// reader refuses as `invalid-json` at the member that holds them, instead of being replaced
/// by U+FFFD on the way in.
pub(crate) fn string_bytes(s: &JsString) -> Vec<u8> {
    // A card-sized string is written by TextEncoder.encodeInto straight into a buffer of this
    // module (3 bytes per UTF-16 unit always suffice); a larger one is encoded first and then
    // copied in, so that the buffer is not three times its size. Both are much faster than a
    // string argument, which wasm-bindgen copies one character at a time.
    let units = s.length() as usize;
    if units <= DIRECT_UTF8_UNITS {
        let mut buf = vec![0u8; units * 3];
        if let Ok(written) = usize::try_from(utf8_into(s, &mut buf)) {
            buf.truncate(written);
            return buf;
        }
    } else if let Some(bytes) = utf8(s).dyn_ref::<Uint8Array>() {
        return bytes.to_vec();
    }
    let well_formed = match s.unchecked_ref::<WellFormed>().is_well_formed() {
        Ok(b) => b,
        Err(_) => s.is_valid_utf16(),
    };
    if well_formed {
        return String::from(s).into_bytes();
    }
    let units: Vec<u16> = s.iter().collect();
    let mut out = Vec::with_capacity(units.len() * 3);
    for unit in char::decode_utf16(units.iter().copied()) {
        match unit {
            Ok(c) => {
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
            Err(e) => {
                let u = u32::from(e.unpaired_surrogate());
                out.push(0xE0 | (u >> 12) as u8);
                out.push(0x80 | ((u >> 6) & 0x3F) as u8);
                out.push(0x80 | (u & 0x3F) as u8);
            }
        }
    }
    out
}

/// JSON text of a value that is not a string: `JSON.stringify`, refusing what it cannot write.
pub(crate) fn stringify(value: &JsValue, what: &str) -> Result<JsString, JsValue> {
    let text = JSON::stringify(value).map_err(|e| {
        usage(format!(
            "{what} cannot be serialized with JSON.stringify: {}",
            js_message(&e)
        ))
    })?;
    // JSON.stringify answers `undefined` (typed here as a JsString) for undefined, functions
    // and symbols.
    if !JsValue::from(text.clone()).is_string() {
        return Err(usage(format!(
            "{what} is {}; give JSON text, UTF-8 bytes or a JSON-serializable value",
            type_name(value)
        )));
    }
    Ok(text)
}

/// `typeof`, as people read it.
pub(crate) fn type_name(v: &JsValue) -> String {
    if v.is_null() {
        "null".into()
    } else if Array::is_array(v) {
        "an array".into()
    } else {
        v.js_typeof().as_string().unwrap_or_else(|| "unknown".into())
    }
}

/// The bytes of a card: a string (its UTF-8), a Uint8Array or ArrayBuffer (as is), or any
/// other value (JSON.stringify).
pub(crate) fn card_bytes(card: &JsValue) -> Result<Vec<u8>, JsValue> {
    if let Some(s) = card.dyn_ref::<JsString>() {
        return Ok(string_bytes(s));
    }
    if let Some(bytes) = card.dyn_ref::<Uint8Array>() {
        return Ok(bytes.to_vec());
    }
    if let Some(buffer) = card.dyn_ref::<ArrayBuffer>() {
        return Ok(Uint8Array::new(buffer).to_vec());
    }
    if card.is_undefined() {
        return Err(usage("no card given"));
    }
    Ok(string_bytes(&stringify(card, "the card")?))
}

/// Text of a key, JWKS or trust store: a string as it is, an object through JSON.stringify.
pub(crate) fn json_text(value: &JsValue, what: &str) -> Result<String, JsValue> {
    if let Some(s) = value.as_string() {
        return Ok(s);
    }
    if !value.is_object() {
        return Err(usage(format!(
            "{what} must be text or an object, not {}",
            type_name(value)
        )));
    }
    Ok(String::from(stringify(value, what)?))
}

/// An options object, checked against the names it may hold so that a misspelt option is an
/// error, not a silent default.
pub(crate) struct Options {
    obj: Option<Object>,
    /// The members of a plain object (its prototype `Object.prototype` or `null`), read in one
    /// call instead of one `Reflect.get` per option name; `None` for other objects, whose
    /// options are read with `Reflect.get` (getters and inherited members included).
    members: Option<Vec<(String, JsValue)>>,
    what: &'static str,
}

impl Options {
    pub(crate) fn read(value: &JsValue, what: &'static str, known: &[&str]) -> Result<Options, JsValue> {
        if value.is_undefined() || value.is_null() {
            return Ok(Options {
                obj: None,
                members: None,
                what,
            });
        }
        if !value.is_object() || Array::is_array(value) {
            return Err(usage(format!(
                "the options of {what} must be an object, not {}",
                type_name(value)
            )));
        }
        let obj: Object = value.clone().unchecked_into();
        let proto = Object::get_prototype_of(&obj);
        let plain = proto.is_null() || Object::is(&proto, &Object::get_prototype_of(&Object::new()));
        let mut members = Vec::new();
        let check = |name: &str| {
            if known.contains(&name) {
                Ok(())
            } else {
                Err(usage(format!(
                    "unknown option {name:?} of {what} (known: {})",
                    known.join(", ")
                )))
            }
        };
        if plain {
            for entry in Object::entries(&obj).iter() {
                let entry: Array = entry.unchecked_into();
                let name = entry.get(0).as_string().unwrap_or_default();
                check(&name)?;
                members.push((name, entry.get(1)));
            }
        } else {
            for name in Object::keys(&obj).iter() {
                check(&name.as_string().unwrap_or_default())?;
            }
        }
        Ok(Options {
            obj: Some(obj),
            members: plain.then_some(members),
            what,
        })
    }

    /// The members of a plain options object whose values are all primitives (strings,
    /// numbers, booleans, `null`, `undefined`), which is what was read from it entirely; `None`
    /// for other objects and for members holding objects, arrays or functions.
    pub(crate) fn primitive_members(&self) -> Option<&[(String, JsValue)]> {
        let members = self.members.as_deref()?;
        members
            .iter()
            .all(|(_, v)| !v.is_object() && !v.is_function() && !v.is_symbol() && !v.is_bigint())
            .then_some(members)
    }

    /// The option's value; `undefined` counts as absent.
    pub(crate) fn get(&self, name: &str) -> Result<Option<JsValue>, JsValue> {
        if let Some(members) = &self.members {
            return Ok(members
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.clone())
                .filter(|v| !v.is_undefined()));
        }
        let Some(obj) = &self.obj else { return Ok(None) };
        let v = Reflect::get(obj, &JsValue::from_str(name)).map_err(|e| usage(js_message(&e)))?;
        Ok((!v.is_undefined()).then_some(v))
    }

    pub(crate) fn string(&self, name: &str) -> Result<Option<String>, JsValue> {
        match self.get(name)? {
            None => Ok(None),
            Some(v) => v.as_string().map(Some).ok_or_else(|| {
                usage(format!(
                    "option {name:?} of {} must be a string, not {}",
                    self.what,
                    type_name(&v)
                ))
            }),
        }
    }

    pub(crate) fn boolean(&self, name: &str) -> Result<Option<bool>, JsValue> {
        match self.get(name)? {
            None => Ok(None),
            Some(v) => v.as_bool().map(Some).ok_or_else(|| {
                usage(format!(
                    "option {name:?} of {} must be a boolean, not {}",
                    self.what,
                    type_name(&v)
                ))
            }),
        }
    }

    pub(crate) fn number(&self, name: &str) -> Result<Option<f64>, JsValue> {
        match self.get(name)? {
            None => Ok(None),
            Some(v) => match v.as_f64() {
                Some(n) if n.is_finite() => Ok(Some(n)),
                _ => Err(usage(format!(
                    "option {name:?} of {} must be a finite number",
                    self.what
                ))),
            },
        }
    }

    /// A non-negative integer count.
    pub(crate) fn count(&self, name: &str) -> Result<Option<usize>, JsValue> {
        match self.number(name)? {
            None => Ok(None),
            Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= 9_007_199_254_740_991.0 => Ok(Some(n as usize)),
            Some(_) => Err(usage(format!(
                "option {name:?} of {} must be a non-negative integer",
                self.what
            ))),
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
        let err = || {
            usage(format!(
                "option {name:?} of {} must be an array of strings",
                self.what
            ))
        };
        if !Array::is_array(&v) {
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
        if !v.is_object() || Array::is_array(&v) {
            return Err(usage(format!(
                "option {name:?} of {} must be an object",
                self.what
            )));
        }
        let text = String::from(stringify(&v, name)?);
        match a2a_card::canonical::parse_json(text.as_bytes(), &Limits::default()).or_throw()? {
            serde_json::Value::Object(members) => Ok(members.into_iter().collect()),
            _ => Err(usage(format!(
                "option {name:?} of {} must be an object",
                self.what
            ))),
        }
    }

    pub(crate) fn limits(&self) -> Result<Limits, JsValue> {
        let mut limits = Limits::default();
        if let Some(n) = self.count("maxInputBytes")? {
            limits.max_input_bytes = n;
        }
        if let Some(n) = self.count("maxDepth")? {
            limits.max_depth = n;
        }
        Ok(limits)
    }

    pub(crate) fn unknown(&self) -> Result<UnknownMembers, JsValue> {
        match self.string("unknown")? {
            None => Ok(UnknownMembers::default()),
            Some(name) => UnknownMembers::parse(&name).or_throw(),
        }
    }

    /// One profile (canonicalize, sign, inspect).
    pub(crate) fn profile(&self) -> Result<Profile, JsValue> {
        match self.string("profile")? {
            None => Ok(Profile::Spec),
            Some(name) => profile_named(&name),
        }
    }

    pub(crate) fn canonicalize_options(&self) -> Result<CanonicalizeOptions, JsValue> {
        Ok(CanonicalizeOptions {
            profile: self.profile()?,
            unknown: self.unknown()?,
            limits: self.limits()?,
        })
    }
}

pub(crate) fn profile_named(name: &str) -> Result<Profile, JsValue> {
    Profile::parse(name).or_throw()
}

pub(crate) fn algorithm_named(name: &str) -> Result<Algorithm, JsValue> {
    Algorithm::from_name(name).or_throw()
}

pub(crate) const CANONICALIZE_OPTIONS: &[&str] = &["profile", "unknown", "maxInputBytes", "maxDepth"];

pub(crate) const SIGN_OPTIONS: &[&str] = &[
    "profile",
    "unknown",
    "maxInputBytes",
    "maxDepth",
    "alg",
    "kid",
    "jku",
    "header",
    "protectedHeader",
    "replace",
    "alsoProfiles",
    "x5c",
];

pub(crate) const VERIFY_OPTIONS: &[&str] = &[
    "jwks",
    "keys",
    "trust",
    "algorithms",
    "mode",
    "profile",
    "profiles",
    "unknown",
    "now",
    "origin",
    "maxSignatures",
    "maxKeysPerKid",
    "maxSignatureChecks",
    "maxInputBytes",
    "maxDepth",
    "hostCrypto",
    "trustAnchors",
    "identity",
    "identityPrefix",
    "requireEku",
    "maxChain",
];
