//! Python values in: cards as `str`, `bytes` or parsed JSON values, keys and key sets as text
//! or dicts, and the keyword options, read by the core's tables (each value by its row's kind)
//! into its requests, each checked with a `usage` error that names the option.

use crate::errors::{option_usage, request_error, usage, OrRaise};
use a2a_card::request::{Input, Kind, OptionSpec, OptionValue, Request};
use a2a_card::Error;
use a2a_card::{Algorithm, Limits};
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

/// The refusal of a value of the option `name`: it must be `expected`, not what `shown` shows.
fn refuse(v: &Bound<'_, PyAny>, name: &str, expected: &str, shown: String) -> PyErr {
    option_usage(
        v.py(),
        name,
        format!("option {name:?} must be {expected}, not {shown}"),
    )
}

/// An option's value, when given (`None` is not giving it).
fn given<'a, 'py>(value: Option<&'a Bound<'py, PyAny>>) -> Option<&'a Bound<'py, PyAny>> {
    value.filter(|v| !v.is_none())
}

/// An optional string option.
pub(crate) fn opt_string(value: Option<&Bound<'_, PyAny>>, name: &str) -> PyResult<Option<String>> {
    let Some(v) = given(value) else { return Ok(None) };
    match v.cast::<PyString>() {
        Ok(s) => Ok(Some(s.to_cow()?.into_owned())),
        Err(_) => Err(refuse(v, name, "a str", type_name(v))),
    }
}

/// An optional boolean option (`True`/`False` only: a number or string is refused, so that
/// `replace="no"` is not read as true).
pub(crate) fn opt_bool(value: Option<&Bound<'_, PyAny>>, name: &str) -> PyResult<Option<bool>> {
    let Some(v) = given(value) else { return Ok(None) };
    match v.cast::<PyBool>() {
        Ok(b) => Ok(Some(b.is_true())),
        Err(_) => Err(refuse(v, name, "True or False", type_name(v))),
    }
}

/// An optional count: a non-negative `int` (not a bool, not a float).
pub(crate) fn opt_count(value: Option<&Bound<'_, PyAny>>, name: &str) -> PyResult<Option<usize>> {
    let Some(v) = given(value) else { return Ok(None) };
    if v.is_instance_of::<PyInt>() && !v.is_instance_of::<PyBool>() {
        if let Ok(n) = v.extract::<usize>() {
            return Ok(Some(n));
        }
    }
    Err(refuse(v, name, "a non-negative int", short_repr(v)))
}

/// A short `repr` for a message (values from callers, never keys).
pub(crate) fn short_repr(v: &Bound<'_, PyAny>) -> String {
    let text = v.repr().map(|r| r.to_string()).unwrap_or_else(|_| type_name(v));
    if text.chars().count() > 40 {
        let cut: String = text.chars().take(40).collect();
        format!("{cut}...")
    } else {
        text
    }
}

/// An optional list of strings (a list or tuple; a lone `str` is refused, since iterating it
/// would give its characters).
pub(crate) fn opt_strings(value: Option<&Bound<'_, PyAny>>, name: &str) -> PyResult<Option<Vec<String>>> {
    let Some(v) = given(value) else { return Ok(None) };
    let err = || refuse(v, name, "a list of str", short_repr(v));
    if !(v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>()) {
        return Err(err());
    }
    let mut out = Vec::new();
    for item in v.try_iter()? {
        let item = item?;
        let s = item.cast::<PyString>().map_err(|_| err())?;
        out.push(s.to_cow()?.into_owned());
    }
    Ok(Some(out))
}

/// An option that is one `str` or a list of them (`trust_anchors`, `identity`,
/// `identity_prefix`); absent is an empty list.
pub(crate) fn opt_one_or_more(value: Option<&Bound<'_, PyAny>>, name: &str) -> PyResult<Vec<String>> {
    let Some(v) = given(value) else {
        return Ok(Vec::new());
    };
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(vec![s.to_cow()?.into_owned()]);
    }
    if !(v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>()) {
        return Err(refuse(v, name, "a str or a list of str", short_repr(v)));
    }
    Ok(opt_strings(Some(v), name)?.unwrap_or_default())
}

/// A time option: seconds since the Unix epoch (`int` or `float`), or an aware `datetime`.
pub(crate) fn opt_time(value: Option<&Bound<'_, PyAny>>, name: &str) -> PyResult<Option<i64>> {
    let Some(v) = given(value) else { return Ok(None) };
    let py = v.py();
    let expected = "seconds since the Unix epoch (int or float) or a datetime with a time zone";
    let bad = || refuse(v, name, expected, short_repr(v));
    if v.is_instance_of::<PyBool>() {
        return Err(bad());
    }
    if v.is_instance_of::<PyInt>() {
        return v.extract::<i64>().map(Some).map_err(|_| bad());
    }
    if let Ok(f) = v.cast::<PyFloat>() {
        let f = f.value();
        if f.is_finite() && f.abs() < 9.0e15 {
            return Ok(Some(f.floor() as i64));
        }
        return Err(bad());
    }
    let datetime = py.import("datetime")?.getattr("datetime")?;
    if v.is_instance(&datetime)? {
        if v.getattr("tzinfo")?.is_none() {
            return Err(option_usage(py, name,
                format!("option {name:?} is a datetime without a time zone; give an aware datetime (for example datetime.now(timezone.utc))"),
            ));
        }
        let seconds: f64 = v.call_method0("timestamp")?.extract()?;
        return Ok(Some(seconds.floor() as i64));
    }
    Err(bad())
}

/// A JSON object option (header parameters) as name/value pairs of the core's JSON model.
fn opt_members(value: Option<&Bound<'_, PyAny>>, name: &str) -> PyResult<Vec<(String, serde_json::Value)>> {
    let Some(v) = given(value) else {
        return Ok(Vec::new());
    };
    let py = v.py();
    if !v.is_instance_of::<PyDict>() {
        return Err(refuse(v, name, "a dict", type_name(v)));
    }
    let text = dumps(v, name)?;
    let text = text.to_cow()?;
    match a2a_card::canonical::parse_json(text.as_bytes(), &Limits::default())
        .map_err(|e| e.context(name))
        .or_raise(py)?
    {
        serde_json::Value::Object(members) => Ok(members.into_iter().collect()),
        _ => Err(option_usage(py, name, format!("option {name:?} must be a dict"))),
    }
}

/// One option's value, read by its kind in the core's table (`None`: not given).
fn read_option(value: &Bound<'_, PyAny>, spec: &OptionSpec) -> PyResult<Option<OptionValue>> {
    let name = spec.name;
    let v = Some(value);
    Ok(match spec.kind {
        Kind::Count { .. } => opt_count(v, name)?.map(OptionValue::Count),
        Kind::Text | Kind::Choice(_) | Kind::Names(_) => opt_string(v, name)?.map(OptionValue::Text),
        Kind::List => opt_strings(v, name)?.map(OptionValue::Texts),
        Kind::Texts => Some(OptionValue::Texts(opt_one_or_more(v, name)?)),
        Kind::Time => opt_time(v, name)?.map(OptionValue::Time),
        Kind::Pem => {
            // An empty list gives no certificate, as no list does.
            let inputs: Vec<Input> = opt_one_or_more(v, name)?
                .into_iter()
                .enumerate()
                .map(|(i, pem)| Input::new(pem, format!("{name}[{i}]")))
                .collect();
            (!inputs.is_empty()).then_some(OptionValue::Inputs(inputs))
        }
        Kind::Keys { list } => {
            let items: Vec<Bound<'_, PyAny>> =
                if list && (value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>()) {
                    value.try_iter()?.collect::<PyResult<_>>()?
                } else {
                    vec![value.clone()]
                };
            let mut inputs = Vec::new();
            for (i, item) in items.iter().enumerate() {
                let source = if list {
                    format!("{name}[{i}]")
                } else {
                    name.to_string()
                };
                inputs.push(Input::new(json_text(item, &source, true)?, source));
            }
            Some(OptionValue::Inputs(inputs))
        }
        Kind::Flag(_) => opt_bool(v, name)?.map(OptionValue::Flag),
        Kind::Members => Some(OptionValue::Members(opt_members(v, name)?)),
    })
}

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
    let mut request = R::default();
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
    for spec in offered() {
        let value = options.map(|o| o.get_item(spec.name)).transpose()?.flatten();
        let Some(value) = value.filter(|v| !v.is_none()) else {
            continue;
        };
        if let Some(value) = read_option(&value, spec)? {
            request.set(spec.name, value).map_err(|e| refused(py, e))?;
        }
    }
    request.build().map_err(|e| refused(py, e))
}

/// The options of canonicalize, inspect, lint or migrate, read by [`read_request`].
pub(crate) fn read_options<R: Request>(
    py: Python<'_>,
    function: &str,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<R::Built> {
    read_request::<R>(py, function, options, |py, e| request_error(py, &e))
}

/// An algorithm name.
pub(crate) fn algorithm(py: Python<'_>, name: &str) -> PyResult<Algorithm> {
    Algorithm::from_name(name).or_raise(py)
}
