//! Reading a front end's own values by the table: each package hands over its language's
//! values (a Python object, a JavaScript value) through a [`Language`], which tells their
//! [`Shape`] and gives the words of its messages ([`Words`]); the checks of each [`Kind`], the
//! lists, the names of key and certificate inputs and the refusals are made here, once, in the
//! language's own words (`must be a str, not int` in Python, `must be a string, not number` in
//! JavaScript).
//!
//! ```
//! use a2a_card::request::{read_request, Fronts, Language, Request, Shape, Show, Words, LintRequest};
//! use serde_json::{json, Value};
//! /// JSON values as a front end's language.
//! struct Json;
//! impl Language for Json {
//!     type Value = Value;
//!     type Error = String;
//!     const WORDS: Words = Words {
//!         text: ("a string", Show::Type), flag: ("a boolean", Show::Type),
//!         count: ("a whole number", Show::Value), list: ("an array of strings", Show::Value),
//!         texts: ("a string or an array", Show::Value), object: ("an object", Show::Type),
//!         time: ("a number", Show::Value), number: None,
//!     };
//!     fn offers(fronts: &Fronts) -> bool { fronts.python }
//!     fn spell(&self, name: &str) -> String { name.to_string() }
//!     fn shape(&self, v: &Value) -> Result<Shape<Value>, String> {
//!         Ok(match v {
//!             Value::String(s) => Shape::Text(s.clone()),
//!             Value::Bool(b) => Shape::Flag(*b),
//!             Value::Number(n) => n.as_i64().map_or(Shape::Other, |i| Shape::Int(i.into())),
//!             Value::Array(items) => Shape::List(items.clone()),
//!             Value::Object(_) => Shape::Object,
//!             Value::Null => Shape::Other,
//!         })
//!     }
//!     fn type_name(&self, v: &Value) -> String { if v.is_string() { "string".into() } else { "other".into() } }
//!     fn repr(&self, v: &Value) -> String { v.to_string() }
//!     fn members(&self, v: &Value, _: &str) -> Result<Vec<(String, Value)>, String> {
//!         Ok(v.as_object().into_iter().flatten().map(|(k, v)| (k.clone(), v.clone())).collect())
//!     }
//!     fn key_text(&self, v: &Value, _: &str, _: &str) -> Result<String, String> { Ok(v.to_string()) }
//!     fn refuse(&self, name: &str, what_is: String) -> String { format!("{name} {what_is}") }
//! }
//! let given = json!({"max_depth": -1});
//! let read = |name: &str| Ok(given.get(name).cloned());
//! let e = read_request::<LintRequest, _>(&Json, read, |e| e.message().to_string()).unwrap_err();
//! assert_eq!(e, "max_depth must be a whole number, not -1");
//! ```

use super::{Fronts, Input, Kind, OptionValue, Request};
use crate::canonical::number::plain_decimal;
use crate::Error;

/// The shape of one value of a front end's language, as far as the kinds of the table ask.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape<V> {
    /// Text (a Python `str`, a JavaScript string).
    Text(String),
    /// Yes or no.
    Flag(bool),
    /// A whole number of an integer type (a Python `int`).
    Int(i128),
    /// A number of a floating-point type (a Python `float`, a JavaScript number).
    Number(f64),
    /// A list of the language's values (a Python list or tuple, a JavaScript array).
    List(Vec<V>),
    /// An object of named members (a Python dict, a JavaScript object).
    Object,
    /// Anything else.
    Other,
}

/// What a refusal shows of the value refused, after `not`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Show {
    /// Its type's name ([`Language::type_name`]).
    Type,
    /// The value itself ([`Language::repr`]).
    Value,
    /// Nothing: the message says what the value must be, and stops.
    Nothing,
}

/// A language's words for what the value of an option of each kind must be (`a str`, `an
/// array of strings`), each with what a refusal shows of the value given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Words {
    /// Text ([`Kind::Text`], [`Kind::Choice`], [`Kind::Names`]).
    pub text: (&'static str, Show),
    /// Yes or no ([`Kind::Flag`]).
    pub flag: (&'static str, Show),
    /// A count ([`Kind::Count`]).
    pub count: (&'static str, Show),
    /// A list of texts ([`Kind::List`], and the items of the others).
    pub list: (&'static str, Show),
    /// One text or a list of them ([`Kind::Texts`], [`Kind::Pem`]).
    pub texts: (&'static str, Show),
    /// An object of members ([`Kind::Members`]).
    pub object: (&'static str, Show),
    /// A time ([`Kind::Time`]).
    pub time: (&'static str, Show),
    /// When the language's counts and times are its one number type (JavaScript): what such a
    /// value must be (`a finite number`); a whole one is a count when it is not negative.
    /// `None`: a count is of an integer type ([`Shape::Int`]).
    pub number: Option<&'static str>,
}

/// A front end's language: how its values are told apart and named in messages. The checks
/// are [`read_value`]'s.
pub trait Language {
    /// A value of the language.
    type Value: Clone;
    /// The language's error (its exception).
    type Error;
    /// The words of its messages.
    const WORDS: Words;
    /// Whether it offers an option ([`super::OptionSpec::fronts`]).
    fn offers(fronts: &Fronts) -> bool;
    /// How it spells an option's canonical name (in messages and in input names).
    fn spell(&self, name: &str) -> String;
    /// The shape of a value.
    fn shape(&self, value: &Self::Value) -> Result<Shape<Self::Value>, Self::Error>;
    /// The name of a value's type, for a refusal ([`Show::Type`]).
    fn type_name(&self, value: &Self::Value) -> String;
    /// A short form of the value, for a refusal ([`Show::Value`]).
    fn repr(&self, value: &Self::Value) -> String;
    /// A time of a type of the language's own (a Python `datetime`), in seconds since the Unix
    /// epoch, for a value of [`Shape::Other`]; `None` when it is not one.
    fn time(&self, _value: &Self::Value, _name: &str) -> Result<Option<i64>, Self::Error> {
        Ok(None)
    }
    /// The members of an object ([`Shape::Object`]) as the core's JSON values.
    fn members(
        &self,
        value: &Self::Value,
        name: &str,
    ) -> Result<Vec<(String, serde_json::Value)>, Self::Error>;
    /// The text of a key, JWK Set or trust store (`source`: the input's name; `name`: the
    /// option's, as spelled).
    fn key_text(&self, value: &Self::Value, source: &str, name: &str) -> Result<String, Self::Error>;
    /// The refusal of a value of the option `name` (as spelled): `what_is` says what is wrong
    /// (`must be a str, not int`).
    fn refuse(&self, name: &str, what_is: String) -> Self::Error;
}

/// The options of a request given in a language, each read by its row's kind
/// ([`read_value`]) and set, then the request built: `get` gives the value of an option by its
/// canonical name (`None`: not given), `refused` makes the language's error of the core's
/// refusals.
pub fn read_request<R: Request, L: Language>(
    lang: &L,
    mut get: impl FnMut(&str) -> Result<Option<L::Value>, L::Error>,
    refused: impl Fn(Error) -> L::Error,
) -> Result<R::Built, L::Error> {
    let mut request = R::default();
    for spec in R::TABLE.iter().filter(|s| L::offers(&s.fronts)) {
        let Some(value) = get(spec.name)? else {
            continue;
        };
        if let Some(value) = read_value(lang, spec.name, spec.kind, &value)? {
            request.set(spec.name, value).map_err(&refused)?;
        }
    }
    request.build().map_err(refused)
}

/// One value of the option `name` (canonical) read as its `kind` takes it; `None` for
/// certificates given as an empty list (no certificate, as none given).
pub fn read_value<L: Language>(
    lang: &L,
    name: &str,
    kind: Kind,
    value: &L::Value,
) -> Result<Option<OptionValue>, L::Error> {
    let name = lang.spell(name);
    let r = Reading { lang, name: &name };
    Ok(Some(match kind {
        Kind::Count { .. } => OptionValue::Count(r.count(value)?),
        Kind::Text | Kind::Choice(_) | Kind::Names(_) => match lang.shape(value)? {
            Shape::Text(s) => OptionValue::Text(s),
            _ => return Err(r.refuse(L::WORDS.text, value)),
        },
        Kind::Flag(_) => match lang.shape(value)? {
            Shape::Flag(b) => OptionValue::Flag(b),
            _ => return Err(r.refuse(L::WORDS.flag, value)),
        },
        Kind::List => OptionValue::Texts(r.list(value)?),
        Kind::Texts => OptionValue::Texts(r.texts(value)?),
        Kind::Time => OptionValue::Time(r.time(value)?),
        Kind::Members => match lang.shape(value)? {
            Shape::Object => OptionValue::Members(lang.members(value, &name)?),
            _ => return Err(r.refuse(L::WORDS.object, value)),
        },
        // A whole or fractional number of seconds; its bounds are the request's.
        Kind::Seconds { .. } => match lang.shape(value)? {
            Shape::Int(_) => OptionValue::Seconds(std::time::Duration::from_secs(r.count(value)? as u64)),
            Shape::Number(n) => match std::time::Duration::try_from_secs_f64(n) {
                Ok(d) => OptionValue::Seconds(d),
                Err(_) => return Err(r.refuse(L::WORDS.count, value)),
            },
            _ => return Err(r.refuse(L::WORDS.count, value)),
        },
        Kind::Path => match lang.shape(value)? {
            Shape::Text(s) => OptionValue::Path(s.into()),
            _ => return Err(r.refuse(L::WORDS.text, value)),
        },
        Kind::Pem => {
            let pems = r.texts(value)?.into_iter().enumerate();
            let inputs: Vec<Input> = pems
                .map(|(i, pem)| Input::new(pem, format!("{name}[{i}]")))
                .collect();
            if inputs.is_empty() {
                return Ok(None);
            }
            OptionValue::Inputs(inputs)
        }
        Kind::Keys { list } => {
            let items = match lang.shape(value)? {
                Shape::List(items) if list => items,
                _ => vec![value.clone()],
            };
            let mut inputs = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                let source = if list {
                    format!("{name}[{i}]")
                } else {
                    name.clone()
                };
                inputs.push(Input::new(lang.key_text(item, &source, &name)?, source));
            }
            OptionValue::Inputs(inputs)
        }
    }))
}

impl OptionValue {
    /// The text of a [`OptionValue::Text`].
    pub fn text(self) -> Option<String> {
        match self {
            OptionValue::Text(s) => Some(s),
            _ => None,
        }
    }

    /// The number of a [`OptionValue::Count`].
    pub fn count(self) -> Option<usize> {
        match self {
            OptionValue::Count(n) => Some(n),
            _ => None,
        }
    }

    /// The seconds of a [`OptionValue::Time`].
    pub fn time(self) -> Option<i64> {
        match self {
            OptionValue::Time(t) => Some(t),
            _ => None,
        }
    }
}

/// One option being read: its language and its name as spelled.
struct Reading<'a, L: Language> {
    lang: &'a L,
    name: &'a str,
}

impl<L: Language> Reading<'_, L> {
    /// The refusal of `value`: it must be what `expected` says.
    fn refuse(&self, (expected, show): (&str, Show), value: &L::Value) -> L::Error {
        let shown = match show {
            Show::Type => self.lang.type_name(value),
            Show::Value => self.lang.repr(value),
            Show::Nothing => return self.lang.refuse(self.name, format!("must be {expected}")),
        };
        self.lang
            .refuse(self.name, format!("must be {expected}, not {shown}"))
    }

    /// The refusal of a value that is not a number, in a language whose counts are numbers.
    fn not_number(&self, number: &str) -> L::Error {
        self.lang.refuse(self.name, format!("must be {number}"))
    }

    fn count(&self, value: &L::Value) -> Result<usize, L::Error> {
        match (self.lang.shape(value)?, L::WORDS.number) {
            (Shape::Int(i), _) => usize::try_from(i).map_err(|_| self.refuse(L::WORDS.count, value)),
            (Shape::Number(n), Some(number)) if !n.is_finite() => Err(self.not_number(number)),
            (Shape::Number(n), Some(_)) if n >= 0.0 && n.fract() == 0.0 => {
                if n <= usize::MAX as f64 {
                    Ok(n as usize)
                } else {
                    Err(self.lang.refuse(
                        self.name,
                        format!("is {}, more than this build can count", plain_decimal(n)),
                    ))
                }
            }
            (Shape::Number(n), Some(_)) => {
                let what_is = format!("must be {}, not {}", L::WORDS.count.0, plain_decimal(n));
                Err(self.lang.refuse(self.name, what_is))
            }
            (_, Some(number)) => Err(self.not_number(number)),
            (_, None) => Err(self.refuse(L::WORDS.count, value)),
        }
    }

    /// A time: a number of seconds (floored), or a time of the language's own type.
    fn time(&self, value: &L::Value) -> Result<i64, L::Error> {
        match (self.lang.shape(value)?, L::WORDS.number) {
            (Shape::Number(n), Some(_)) if n.is_finite() => Ok(n.floor() as i64),
            (_, Some(number)) => Err(self.not_number(number)),
            (Shape::Int(i), None) => i64::try_from(i).map_err(|_| self.refuse(L::WORDS.time, value)),
            (Shape::Number(f), None) if f.is_finite() && f.abs() < 9.0e15 => Ok(f.floor() as i64),
            (Shape::Other, None) => match self.lang.time(value, self.name)? {
                Some(t) => Ok(t),
                None => Err(self.refuse(L::WORDS.time, value)),
            },
            (_, None) => Err(self.refuse(L::WORDS.time, value)),
        }
    }

    /// A list of texts (a lone text refused).
    fn list(&self, value: &L::Value) -> Result<Vec<String>, L::Error> {
        let Shape::List(items) = self.lang.shape(value)? else {
            return Err(self.refuse(L::WORDS.list, value));
        };
        let mut out = Vec::with_capacity(items.len());
        for item in &items {
            match self.lang.shape(item)? {
                Shape::Text(s) => out.push(s),
                _ => return Err(self.refuse(L::WORDS.list, value)),
            }
        }
        Ok(out)
    }

    /// One text, or a list of texts.
    fn texts(&self, value: &L::Value) -> Result<Vec<String>, L::Error> {
        match self.lang.shape(value)? {
            Shape::Text(s) => Ok(vec![s]),
            Shape::List(_) => self.list(value),
            _ => Err(self.refuse(L::WORDS.texts, value)),
        }
    }
}
