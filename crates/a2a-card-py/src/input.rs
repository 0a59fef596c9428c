//! Python values in: cards as `str`, `bytes` or parsed JSON values, keys and key sets as text
//! or dicts, and the keyword options, read by the core's tables (`Python3`: the shapes of Python
//! values and the words of its messages) into its requests, each refusal a `usage` error that
//! names the option.

use crate::errors::{option_usage, request_error, usage, OrRaise};
use a2a_card::request::{read_value, Fronts, Kind, Language, OptionValue, Request, Shape, Show, Words};
use a2a_card::Error;
use a2a_card::Limits;
use pyo3::exceptions::PyTypeError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyMemoryView, PyString, PyTuple,
};

/// The bytes of a card: borrowed from a Python `bytes` object (no copy; it is immutable and
/// kept alive here, so the bytes can be read with the GIL released) or owned.
pub(crate) enum CardBytes<'py> {
    /// A `bytes` object: the input, or the UTF-8 of a `str` or of `json.dumps`.
    Python(Bound<'py, PyBytes>),
    /// A copy (of a `bytearray`).
    Owned(Vec<u8>),
}

impl CardBytes<'_> {
    pub(crate) fn as_slice(&self) -> &[u8] {
        match self {
            CardBytes::Python(b) => b.as_bytes(),
            CardBytes::Owned(v) => v,
        }
    }
}

/// The type of a value, as a message names it.
pub(crate) fn type_name(value: &Bound<'_, PyAny>) -> String {
    value
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".to_string())
}

/// The UTF-8 bytes of a `str`. A lone surrogate (which has no UTF-8 form) is written as its
/// three-byte sequence (`surrogatepass`), which the core's strict reader refuses as
/// `invalid-json` at the member that holds it, instead of failing here without a place.
pub(crate) fn str_bytes<'py>(s: &Bound<'py, PyString>) -> PyResult<Bound<'py, PyBytes>> {
    let py = s.py();
    s.call_method1(
        intern!(py, "encode"),
        (intern!(py, "utf-8"), intern!(py, "surrogatepass")),
    )?
    .cast_into::<PyBytes>()
    .map_err(PyErr::from)
}

static DUMPS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// JSON text of a Python value (`json.dumps`, keeping member order, non-ASCII as is, refusing
/// NaN and infinities), as a `str`.
pub(crate) fn dumps<'py>(value: &Bound<'py, PyAny>, what: &str) -> PyResult<Bound<'py, PyString>> {
    let py = value.py();
    let dumps = DUMPS.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        Ok(py.import("json")?.getattr("dumps")?.unbind())
    })?;
    let kwargs = PyDict::new(py);
    kwargs.set_item("ensure_ascii", false)?;
    kwargs.set_item("allow_nan", false)?;
    kwargs.set_item("separators", (",", ":"))?;
    match dumps.bind(py).call((value,), Some(&kwargs)) {
        Ok(text) => Ok(text.cast_into::<PyString>()?),
        Err(e) => {
            let hint = if type_name(value) == "AgentCard" {
                " (an a2a-sdk AgentCard goes through a2a_card.sdk)"
            } else {
                ""
            };
            Err(usage(
                py,
                format!(
                    "{what} ({}) cannot be written as JSON: {}{hint}; give JSON text, UTF-8 bytes or a dict",
                    type_name(value),
                    e.value(py)
                ),
            ))
        }
    }
}

/// The bytes of a card: `bytes` as they are, `bytearray` and `memoryview` copied, a `str` as
/// UTF-8, anything else through `json.dumps` (a dict cannot hold a duplicate member name, so
/// pass the text or bytes received when the exact input matters).
pub(crate) fn card_bytes<'py>(card: &Bound<'py, PyAny>) -> PyResult<CardBytes<'py>> {
    let py = card.py();
    if let Ok(b) = card.cast::<PyBytes>() {
        return Ok(CardBytes::Python(b.clone()));
    }
    if let Ok(s) = card.cast::<PyString>() {
        return Ok(CardBytes::Python(str_bytes(s)?));
    }
    if let Ok(b) = card.cast::<PyByteArray>() {
        return Ok(CardBytes::Owned(b.to_vec()));
    }
    if card.is_instance_of::<PyMemoryView>() {
        let bytes = py.import("builtins")?.getattr("bytes")?.call1((card,))?;
        return Ok(CardBytes::Python(bytes.cast_into::<PyBytes>()?));
    }
    if card.is_none() {
        return Err(usage(
            py,
            "no card given (None); give JSON text, UTF-8 bytes or a dict",
        ));
    }
    Ok(CardBytes::Python(str_bytes(&dumps(card, "the card")?)?))
}

/// Text of a key, a JWK Set or a trust store: a `str` as it is, `bytes` as UTF-8, a dict (or
/// list) through `json.dumps`, a `KeyPair` as its private JWK (or, with `public`, its public one).
pub(crate) fn json_text(value: &Bound<'_, PyAny>, what: &str, public: bool) -> PyResult<String> {
    let py = value.py();
    if let Ok(s) = value.cast::<PyString>() {
        return Ok(s.to_cow()?.into_owned());
    }
    if let Ok(b) = value.cast::<PyBytes>() {
        return String::from_utf8(b.as_bytes().to_vec())
            .map_err(|_| usage(py, format!("{what} is bytes that are not UTF-8 text")));
    }
    if let Ok(pair) = value.cast::<crate::keys::KeyPair>() {
        return Ok(pair.get().key_text(public));
    }
    if value.is_instance_of::<PyDict>() || value.is_instance_of::<PyList>() {
        return Ok(dumps(value, what)?.to_cow()?.into_owned());
    }
    Err(usage(
        py,
        format!(
            "{what} must be text (PEM or JSON), bytes or a dict, not {}",
            type_name(value)
        ),
    ))
}

/// Python, as the core's table reader ([`a2a_card::request::read_value`]) sees it: its shapes,
/// the words of its messages (`option "profile" must be a str, not int`).
pub(crate) struct Python3<'py>(pub(crate) Python<'py>);

impl<'py> Language for Python3<'py> {
    type Value = Bound<'py, PyAny>;
    type Error = PyErr;
    const WORDS: Words = Words {
        text: ("a str", Show::Type),
        flag: ("True or False", Show::Type),
        count: ("a non-negative int", Show::Value),
        list: ("a list of str", Show::Value),
        texts: ("a str or a list of str", Show::Value),
        object: ("a dict", Show::Type),
        time: (
            "seconds since the Unix epoch (int or float) or a datetime with a time zone",
            Show::Value,
        ),
        number: None,
    };

    fn offers(fronts: &Fronts) -> bool {
        fronts.python
    }

    fn spell(&self, name: &str) -> String {
        name.to_string()
    }

    fn shape(&self, v: &Bound<'py, PyAny>) -> PyResult<Shape<Bound<'py, PyAny>>> {
        Ok(if let Ok(s) = v.cast::<PyString>() {
            Shape::Text(s.to_cow()?.into_owned())
        } else if let Ok(b) = v.cast::<PyBool>() {
            Shape::Flag(b.is_true())
        } else if v.is_instance_of::<PyInt>() {
            v.extract::<i128>().map_or(Shape::Other, Shape::Int)
        } else if let Ok(f) = v.cast::<PyFloat>() {
            Shape::Number(f.value())
        } else if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
            Shape::List(v.try_iter()?.collect::<PyResult<_>>()?)
        } else if v.is_instance_of::<PyDict>() {
            Shape::Object
        } else {
            Shape::Other
        })
    }

    fn type_name(&self, v: &Bound<'py, PyAny>) -> String {
        type_name(v)
    }

    /// A short `repr` (values from callers, never keys).
    fn repr(&self, v: &Bound<'py, PyAny>) -> String {
        let text = v.repr().map(|r| r.to_string()).unwrap_or_else(|_| type_name(v));
        match text.char_indices().nth(40) {
            Some((cut, _)) => format!("{}...", &text[..cut]),
            None => text,
        }
    }

    /// An aware `datetime`.
    fn time(&self, v: &Bound<'py, PyAny>, name: &str) -> PyResult<Option<i64>> {
        if !v.is_instance(&self.0.import("datetime")?.getattr("datetime")?)? {
            return Ok(None);
        }
        if v.getattr("tzinfo")?.is_none() {
            return Err(option_usage(self.0, name,
                format!("option {name:?} is a datetime without a time zone; give an aware datetime (for example datetime.now(timezone.utc))"),
            ));
        }
        let seconds: f64 = v.call_method0("timestamp")?.extract()?;
        Ok(Some(seconds.floor() as i64))
    }

    fn members(&self, v: &Bound<'py, PyAny>, name: &str) -> PyResult<Vec<(String, serde_json::Value)>> {
        let text = dumps(v, name)?;
        let text = text.to_cow()?;
        match a2a_card::canonical::parse_json(text.as_bytes(), &Limits::default())
            .map_err(|e| e.context(name))
            .or_raise(self.0)?
        {
            serde_json::Value::Object(members) => Ok(members.into_iter().collect()),
            _ => Err(option_usage(
                self.0,
                name,
                format!("option {name:?} must be a dict"),
            )),
        }
    }

    fn key_text(&self, v: &Bound<'py, PyAny>, source: &str, _name: &str) -> PyResult<String> {
        json_text(v, source, true)
    }

    fn refuse(&self, name: &str, what_is: String) -> PyErr {
        option_usage(self.0, name, format!("option {name:?} {what_is}"))
    }
}

/// A keyword of a call of its own (not a row of a table), read as the core reads a row of
/// `kind` (`None` is not giving it).
pub(crate) fn keyword(
    value: Option<&Bound<'_, PyAny>>,
    name: &str,
    kind: Kind,
) -> PyResult<Option<OptionValue>> {
    match value.filter(|v| !v.is_none()) {
        None => Ok(None),
        Some(v) => read_value(&Python3(v.py()), name, kind, v),
    }
}

/// A count keyword's kind (its bounds are the call's).
pub(crate) const COUNT: Kind = Kind::Count {
    min: 0,
    max: usize::MAX,
    default: 0,
};

/// The keyword options of a call (`function` names it) read by the table of its request
/// (`R::TABLE`, the npm package's options in snake_case), each by its kind, into the request,
/// which applies every default, bound and rule; `refused` raises its refusals. `None` is an
/// option not given; a keyword the table lacks is the `TypeError` Python raises for an
/// unexpected keyword argument.
pub(crate) fn read_request<R: Request>(
    py: Python<'_>,
    function: &str,
    options: Option<&Bound<'_, PyDict>>,
    refused: fn(Python<'_>, Error) -> PyErr,
) -> PyResult<R::Built> {
    let offered = || R::TABLE.iter().filter(|s| s.fronts.python);
    // As Python checks a call's keywords: every name first, then the values (in the table's
    // order).
    for name in options.iter().flat_map(|o| o.keys()) {
        let name: String = name.extract()?;
        if !offered().any(|s| s.name == name) {
            return Err(PyTypeError::new_err(format!(
                "{function}() got an unexpected keyword argument '{name}'"
            )));
        }
    }
    let get = |name: &str| -> PyResult<_> {
        let value = options.map(|o| o.get_item(name)).transpose()?.flatten();
        Ok(value.filter(|v| !v.is_none()))
    };
    a2a_card::request::read_request::<R, _>(&Python3(py), get, |e| refused(py, e))
}

/// The options of canonicalize, inspect, lint or migrate, read by [`read_request`].
pub(crate) fn read_options<R: Request>(
    py: Python<'_>,
    function: &str,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<R::Built> {
    read_request::<R>(py, function, options, |py, e| request_error(py, &e))
}
