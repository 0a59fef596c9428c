//! Verify options read by the core's table into its request (`input::read_request`), which
//! makes the trust roots and the policy (the core's `ReadyVerifier`), and verification with the
//! GIL released.

use crate::errors::{option_usage, OrRaise};
use crate::input::{card_bytes, keyword, read_request, COUNT};
use crate::report::Report;
use a2a_card::parallel::MAX_THREADS;
use a2a_card::request::OptionValue;
use a2a_card::request::{ReadyVerifier, VerifyRequest};
use a2a_card::verify_card;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The keyword options of `verify`, `verify_many` and `Verifier` (`function` names the call),
/// read by the core's table (`a2a_card::request::VERIFY`) into its request, which makes the
/// trust roots (from the core's one cache of parsed keys) and the policy.
pub(crate) fn read(
    py: Python<'_>,
    function: &str,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<ReadyVerifier> {
    read_request::<VerifyRequest>(py, function, options, |py, e| crate::errors::py_error(py, &e))
}

/// Verifies one card (any form `card_bytes` reads) with this call's `now` and `origin` when
/// given, the GIL released while the core works.
pub(crate) fn verify(
    ready: &ReadyVerifier,
    card: &Bound<'_, PyAny>,
    now: Option<i64>,
    origin: Option<String>,
) -> PyResult<Report> {
    let py = card.py();
    let bytes = card_bytes(card)?;
    let opts = ready.options_at(now, origin.as_deref()).or_raise(py)?;
    let slice = bytes.as_slice();
    let result = py.detach(|| verify_card(slice, &ready.trust, &opts));
    Ok(Report::new(result.or_raise(py)?))
}

/// The `threads` option: 1 to the core's [`MAX_THREADS`] (the CLI's bound), else `usage`.
pub(crate) fn threads_option(py: Python<'_>, value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<usize>> {
    match keyword(value, "threads", COUNT)?.and_then(OptionValue::count) {
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
