//! Verify options read by the core's table into its request (`input::read_request`), which
//! makes the trust roots and the policy, and verification with the GIL released.

use crate::errors::{option_usage, OrRaise};
use crate::input::{card_bytes, opt_count, read_request};
use crate::report::Report;
use a2a_card::parallel::MAX_THREADS;
use a2a_card::request::VerifyRequest;
use a2a_card::signature::Origin;
use a2a_card::{verify_card, Error, TrustStore, VerifyOptions};
use pyo3::prelude::*;
use pyo3::types::PyDict;

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

    /// The options with this call's `now` and `origin`, when given (the origin's text read
    /// once, by the core's rule: a refusal about the option `origin`).
    pub(crate) fn options_for(
        &self,
        py: Python<'_>,
        now: Option<i64>,
        origin: Option<String>,
    ) -> PyResult<std::borrow::Cow<'_, VerifyOptions>> {
        if now.is_none() && origin.is_none() {
            return Ok(std::borrow::Cow::Borrowed(&self.opts));
        }
        let origin = origin
            .map(|o| o.parse::<Origin>())
            .transpose()
            .map_err(|e| raise(py, e))?;
        let mut opts = self.opts.clone();
        if now.is_some() {
            opts.now = now;
        }
        if origin.is_some() {
            opts.origin = origin;
        }
        Ok(std::borrow::Cow::Owned(opts))
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
        let opts = self.options_for(py, now, origin)?;
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
