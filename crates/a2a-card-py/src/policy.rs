//! Keyword options read by the core's tables into its requests (verify's makes the trust roots
//! and the policy; canonicalize's, lint's and migrate's their options), and verification with
//! the GIL released.

use crate::errors::{option_usage, request_error, OrRaise};
use crate::input::{
    card_bytes, json_text, opt_bool, opt_count, opt_one_or_more, opt_string, opt_strings, opt_time,
};
use crate::report::Report;
use a2a_card::parallel::MAX_THREADS;
use a2a_card::request::{Input, Kind, OptionSpec, OptionValue, Request, VerifyRequest};
use a2a_card::{verify_card, Error, TrustStore, VerifyOptions};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

/// One option's value, read by its kind in the core's table (`None`: not given).
fn read_option(value: &Bound<'_, PyAny>, spec: &OptionSpec) -> PyResult<Option<OptionValue>> {
    let name = spec.name;
    let v = Some(value);
    Ok(match spec.kind {
        Kind::Count { .. } => opt_count(v, name)?.map(OptionValue::Count),
        Kind::Text | Kind::Choice(_) => opt_string(v, name)?.map(OptionValue::Text),
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

/// Trust roots and policy, read once.
pub(crate) struct Policy {
    pub(crate) trust: TrustStore,
    pub(crate) opts: VerifyOptions,
}

impl Policy {
    /// The keyword options of `verify`, `verify_many` and `Verifier` (`function` names the
    /// call), read by the core's table (`a2a_card::request::VERIFY`) into its request, which
    /// makes the trust roots (from the core's one cache of parsed keys) and the policy.
    pub(crate) fn read(
        py: Python<'_>,
        function: &str,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Policy> {
        let ready = read_request::<VerifyRequest>(py, function, options, raise)?;
        Ok(Policy {
            trust: ready.trust,
            opts: ready.options,
        })
    }

    /// The options with this call's `now` and `origin`, when given.
    pub(crate) fn options_for(
        &self,
        now: Option<i64>,
        origin: Option<String>,
    ) -> std::borrow::Cow<'_, VerifyOptions> {
        if now.is_none() && origin.is_none() {
            return std::borrow::Cow::Borrowed(&self.opts);
        }
        let mut opts = self.opts.clone();
        if now.is_some() {
            opts.now = now;
        }
        if origin.is_some() {
            opts.origin = origin;
        }
        std::borrow::Cow::Owned(opts)
    }

    /// Verifies one card (any form `card_bytes` reads), the GIL released while the core works.
    pub(crate) fn verify(
        &self,
        card: &Bound<'_, PyAny>,
        now: Option<i64>,
        origin: Option<String>,
    ) -> PyResult<Report> {
        let py = card.py();
        let bytes = card_bytes(card)?;
        let opts = self.options_for(now, origin);
        let slice = bytes.as_slice();
        let trust = &self.trust;
        let result = py.detach(|| verify_card(slice, trust, &opts));
        Ok(Report::new(result.or_raise(py)?))
    }
}

/// A refusal of the core as a Python exception, its options named as Python names them.
pub(crate) fn raise(py: Python<'_>, e: Error) -> PyErr {
    crate::errors::py_error(py, &e)
}

/// The `threads` option: 1 to the core's [`MAX_THREADS`] (the CLI's bound), else `usage`.
pub(crate) fn threads_option(py: Python<'_>, value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<usize>> {
    match opt_count(value, "threads")? {
        Some(0) => Err(option_usage(
            py,
            "threads",
            "option \"threads\" must be at least 1",
        )),
        Some(n) if n > MAX_THREADS => Err(option_usage(
            py,
            "threads",
            format!("option \"threads\" must be at most {MAX_THREADS}"),
        )),
        n => Ok(n),
    }
}
