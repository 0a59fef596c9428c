//! `verify_many`: a list of cards verified on threads, the GIL released for the whole batch.
//!
//! The cards are read into bytes first (with the GIL: `bytes` are borrowed, `str` encoded,
//! dicts written with `json.dumps`), then verified in parallel by a rayon pool of `threads`
//! threads (default: one per core), kept for the next call with the same number. Each
//! verifying thread has a 16 MiB stack, as the CLI's `verify --batch` threads do.

use crate::errors::{py_error, usage};
use crate::input::{card_bytes, CardBytes};
use crate::policy::Policy;
use crate::report::Report;
use a2a_card::{verify_card, Error};
use pyo3::prelude::*;
use pyo3::types::PyList;
use rayon::prelude::*;
use std::sync::{Arc, Mutex};

/// The stack of each verifying thread.
const STACK_BYTES: usize = 16 << 20;

/// The pool of the last `threads=N` call, for the next call with the same N.
static POOL: Mutex<Option<(usize, Arc<rayon::ThreadPool>)>> = Mutex::new(None);

fn pool(py: Python<'_>, threads: Option<usize>) -> PyResult<Arc<rayon::ThreadPool>> {
    let n = threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let mut last = POOL.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((m, pool)) = last.as_ref() {
        if *m == n {
            return Ok(Arc::clone(pool));
        }
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .stack_size(STACK_BYTES)
        .thread_name(|i| format!("a2a-card-verify-{i}"))
        .build()
        .map_err(|e| usage(py, format!("cannot start {n} verifying threads: {e}")))?;
    let pool = Arc::new(pool);
    *last = Some((n, Arc::clone(&pool)));
    Ok(pool)
}

/// `verify_card`, with a panic (a bug) turned into an error of this card alone, as the CLI's
/// batch does: the other cards of the batch are still verified.
fn verify_caught(
    card: &[u8],
    trust: &a2a_card::TrustStore,
    opts: &a2a_card::VerifyOptions,
) -> Result<a2a_card::Report, Error> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| verify_card(card, trust, opts))).unwrap_or_else(
        |_| {
            Err(Error::new(
                a2a_card::ErrorCode::MalformedCard,
                "internal error: verifying this card panicked (a bug in a2a-card; please report it)",
            ))
        },
    )
}

/// Verifies every card of `cards` (any iterable) with `policy`; the reports in input order. A
/// card that cannot be read (not I-JSON, ...) raises the first such error after the whole
/// batch, or, with `return_exceptions`, takes the error's place in the list.
pub(crate) fn verify_many<'py>(
    py: Python<'py>,
    policy: &Policy,
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
    let opts = policy.options_for(now, origin);
    let trust = &policy.trust;
    let pool = pool(py, threads)?;
    let results: Vec<Result<a2a_card::Report, Error>> = py.detach(|| {
        pool.install(|| {
            slices
                .par_iter()
                .map(|card| verify_caught(card, trust, &opts))
                .collect()
        })
    });
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
