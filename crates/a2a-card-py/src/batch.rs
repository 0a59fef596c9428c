//! `verify_many`: a list of cards verified on threads, the GIL released for the whole batch.
//!
//! The cards are read into bytes first (with the GIL: `bytes` are borrowed, `str` encoded,
//! dicts written with `json.dumps`), then verified in parallel by a rayon pool of `threads`
//! threads (default: one per core), kept for the next call with the same number. The pool is
//! the core's `a2a_card::parallel::Pool`, the one the CLI's `verify --batch` runs on (16 MiB
//! stack per thread, results in input order, a panic the error of its card alone).

use crate::errors::{py_error, usage, OrRaise};
use crate::input::{card_bytes, CardBytes};
use crate::report::Report;
use a2a_card::parallel::{default_threads, Pool};
use a2a_card::request::ReadyVerifier;
use a2a_card::{verify_card, Error};
use pyo3::prelude::*;
use pyo3::types::PyList;
use std::sync::{Arc, Mutex};

/// The pool of the last `threads=N` call, for the next call with the same N.
static POOL: Mutex<Option<(usize, Arc<Pool>)>> = Mutex::new(None);

fn pool(py: Python<'_>, threads: Option<usize>) -> PyResult<Arc<Pool>> {
    let n = threads.unwrap_or_else(default_threads);
    let mut last = POOL.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((m, pool)) = last.as_ref() {
        if *m == n {
            return Ok(Arc::clone(pool));
        }
    }
    let pool = Arc::new(Pool::new(n).map_err(|e| usage(py, e.message()))?);
    *last = Some((n, Arc::clone(&pool)));
    Ok(pool)
}

/// Verifies every card of `cards` (any iterable) with `policy`; the reports in input order. A
/// card that cannot be read (not I-JSON, ...) raises the first such error after the whole
/// batch, or, with `return_exceptions`, takes the error's place in the list.
pub(crate) fn verify_many<'py>(
    py: Python<'py>,
    policy: &ReadyVerifier,
    cards: &Bound<'py, PyAny>,
    threads: Option<usize>,
    return_exceptions: bool,
    now: Option<i64>,
    origin: Option<String>,
) -> PyResult<Bound<'py, PyList>> {
    if cards.is_instance_of::<pyo3::types::PyString>() || cards.is_instance_of::<pyo3::types::PyBytes>() {
        return Err(usage(
            py,
            "verify_many takes a list of cards; for one card use verify",
        ));
    }
    let inputs: Vec<CardBytes<'py>> = cards
        .try_iter()
        .map_err(|_| usage(py, "verify_many takes a list (or other iterable) of cards"))?
        .map(|card| card_bytes(&card?))
        .collect::<PyResult<_>>()?;
    let slices: Vec<&[u8]> = inputs.iter().map(CardBytes::as_slice).collect();
    let opts = policy.options_at(now, origin.as_deref()).or_raise(py)?;
    let trust = &policy.trust;
    let pool = pool(py, threads)?;
    // A card whose verification panics (a bug) is an error of that card alone.
    let results: Vec<Result<a2a_card::Report, Error>> =
        py.detach(|| pool.map(&slices, |card| verify_card(card, trust, &opts)));
    let out = PyList::empty(py);
    let mut first_error: Option<PyErr> = None;
    for result in results {
        match result {
            Ok(report) => out.append(Py::new(py, Report::new(report))?)?,
            Err(e) => {
                let err = py_error(py, &e);
                if return_exceptions {
                    out.append(err.value(py))?;
                } else if first_error.is_none() {
                    first_error = Some(err);
                }
            }
        }
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok(out),
    }
}
