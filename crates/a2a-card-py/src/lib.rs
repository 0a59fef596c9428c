//! # a2a-card-py
//!
//! The `a2a-card` library for Python: the extension module `a2a_card._native`, built with
//! PyO3 (abi3, CPython 3.9 and later) by maturin (`scripts/build-py.sh`), inside the Python
//! package `a2a_card` (`python/a2a_card`: the exceptions, the type stubs, and `a2a_card.sdk`,
//! the adapters for a2a-sdk). It holds no rules of its own: canonicalization, signing,
//! verification, inspection, lint, migration, the schema and key generation are the core's,
//! byte for byte, and so are the error codes and the report.
//!
//! Modules: `input` (Python values and keyword options in), `policy` (trust roots and verify
//! options read once, the cache of parsed keys, verification with the GIL released), `batch`
//! (`verify_many` on threads), `report` (the report objects and JSON values out), `tools`
//! (inspect, lint, migrate, schema, keygen, jwks), `keys` (`KeyPair`), `errors` (the exception classes of
//! `a2a_card._errors`).
//!
//! The options are the core's tables (`a2a_card::request::VERIFY`, `CANONICALIZE`, `LINT`,
//! `MIGRATE`), in snake_case (the npm package's `maxSignatures` is `max_signatures`), read into
//! the core's requests (`input::read_request`), which apply every rule (`Request::build`). The docstrings below are Python; their examples are run by
//! the package's tests (`crates/a2a-card-py/tests/test_doctests.py`).
#![cfg_attr(docsrs, feature(doc_cfg))]

use crate::errors::{usage, OrRaise};
use crate::input::read_options;
use crate::input::{card_bytes, json_text, keyword};
use crate::policy::threads_option;
use crate::report::{text_of, Report};
use a2a_card::jose::keys::PrivateKey;
use a2a_card::request::{CanonicalizeRequest, ReadyVerifier};
use a2a_card::request::{Kind, OptionValue};
use a2a_card::{canonicalize as core_canonicalize, sign_card, Profile};
use pyo3::prelude::*;
use pyo3::types::PyDict;

mod batch;
mod errors;
mod input;
mod keys;
mod policy;
mod report;
mod tools;

/// The canonical bytes of a card (A2A v1.0 section 8.4.1), as text: what a signature covers.
///
/// `card` is JSON text (`str`), its UTF-8 bytes, or a parsed value (a dict, written with
/// `json.dumps` first; a dict cannot hold a duplicate member name, so pass the text or bytes
/// you received when the exact input matters). `profile` is "spec" (default), "prune-empty"
/// (what a2a-sdk and @a2a-js/sdk sign), "served-as-is" (what a2a-go signs), "a2a-sdk-0.3" or
/// "a2a-sdk-0.3.21" (what the a2a-sdk 0.3 signer signs, 0.3.24 and later or 0.3.21 to 0.3.23); `unknown` is
/// "exclude" (default: left out, reported as unsigned), "retain" or "reject".
///
/// >>> import a2a_card
/// >>> a2a_card.canonicalize('{"name":"Example Agent","description":"","capabilities":'
/// ...     '{"streaming":false,"pushNotifications":false,"extensions":[]},"skills":[]}')
/// '{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}'
/// >>> a2a_card.canonicalize({"name": "A", "description": ""}, profile="prune-empty")
/// '{"name":"A"}'
#[pyfunction]
#[pyo3(signature = (card, **options))]
fn canonicalize(card: &Bound<'_, PyAny>, options: Option<&Bound<'_, PyDict>>) -> PyResult<String> {
    let py = card.py();
    let opts = read_options::<CanonicalizeRequest>(py, "canonicalize", options)?;
    let bytes = card_bytes(card)?;
    let c = core_canonicalize(bytes.as_slice(), &opts).or_raise(py)?;
    Ok(text_of(&c.bytes))
}

/// The canonical bytes with what they leave out, as the CLI's `canonicalize --report` prints
/// it: `{"canonical", "profile", "unsigned", "sha256", "bytes"}` (`unsigned`: the JSON Pointers
/// of the members present in the card but not covered; `bytes`: the length in UTF-8).
///
/// >>> import a2a_card, hashlib
/// >>> r = a2a_card.canonicalize_with_report('{"name":"A","x-vendor":1}')
/// >>> r["canonical"], r["unsigned"], r["bytes"]
/// ('{"name":"A"}', ['/x-vendor'], 12)
/// >>> r["sha256"] == hashlib.sha256(r["canonical"].encode()).hexdigest()
/// True
#[pyfunction]
#[pyo3(signature = (card, **options))]
fn canonicalize_with_report<'py>(
    card: &Bound<'py, PyAny>,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = card.py();
    let opts = read_options::<CanonicalizeRequest>(py, "canonicalize_with_report", options)?;
    let bytes = card_bytes(card)?;
    let c = core_canonicalize(bytes.as_slice(), &opts).or_raise(py)?;
    report::to_py(py, &c.report(true))
}

/// Signs a card and returns it as JSON text: the new entry appended to `signatures` (the
/// member created when there is none), every other byte of the card as it was. The signature
/// is a JWS with a detached payload over the canonical bytes of `profile` (default "spec"),
/// its protected header `{"alg", "kid", "typ": "JOSE"}` plus `jku` and `protected_header`.
///
/// A card with members the signature would not cover (unknown members, A2A 0.3 members) is
/// refused with `unsigned-members` (a `CardError`) unless `unknown` says what happens to them:
/// "retain" (covered as they are) or "exclude" (left unsigned, listed by verifiers).
///
/// `key` is a private key: PEM text (PKCS#8, SEC1, PKCS#1), a JWK (text or dict), or a
/// `KeyPair`. `alg` defaults to the key's own (Ed25519 EdDSA, P-256 ES256, RSA RS256, ...),
/// `kid` to the key's (JWK kid, else RFC 7638 thumbprint). `header` holds unprotected header
/// parameters. A card that already carries a signature with the kid is refused
/// (`kid-already-signed`, a `CardError` at that entry's pointer) unless `replace=True` (drops the
/// signatures with the same kid first) or `append=True` (keeps them and adds the new one);
/// not both (`UsageError`).
/// `also_profiles=["prune-empty"]` adds one more signature per profile, same key and header
/// (but for the profile each declares),
/// for verifiers of that profile (a transition aid for today's SDK verifiers). `x5c` is a
/// certificate chain (PEM text, leaf first) put in the protected header's `x5c`; the leaf's key
/// must be the signing key (else `certificate-key-mismatch`), and a chain a verifier refuses by
/// its shape is refused (`certificate-untrusted`): more than `max_chain` certificates (1 to 8,
/// default 4, what `verify` accepts by default), a leaf that is a CA or may not sign.
///
/// >>> import a2a_card, json
/// >>> kp = a2a_card.keygen("EdDSA", kid="k1")
/// >>> signed = json.loads(a2a_card.sign({"name": "A", "description": "", "skills": []}, kp))
/// >>> list(signed), list(signed["signatures"][0])
/// (['name', 'description', 'skills', 'signatures'], ['protected', 'signature'])
#[pyfunction]
#[pyo3(signature = (card, key, **options))]
fn sign(
    card: &Bound<'_, PyAny>,
    key: &Bound<'_, PyAny>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<String> {
    let py = card.py();
    if key.is_none() {
        return Err(usage(
            py,
            "no key given: pass a private key as PEM text, a JWK (text or dict) or a KeyPair",
        ));
    }
    let key = PrivateKey::parse(&json_text(key, "the key", false)?)
        .map_err(|e| e.context("the key"))
        .or_raise(py)?;
    let opts = read_options::<a2a_card::request::SignRequest>(py, "sign", options)?;
    let bytes = card_bytes(card)?;
    let slice = bytes.as_slice();
    let signed = py.detach(|| sign_card(slice, &key, &opts)).or_raise(py)?;
    Ok(text_of(&signed.card))
}

/// Verifies a card against the keys you trust and returns the `Report` (never a bare boolean):
/// act on `report.verified_content`, not on the served card.
///
/// Trust roots (at least one): `jwks` (a JWK Set, text or dict), `keys` (one key or a list: PEM
/// or JWK text, dicts, KeyPairs; a private key yields its public half), `trust` (a trust store),
/// `trust_anchors` (CA certificates for `x5c` chains). A signature's kid only selects among
/// them; its jku is never fetched, nor an x5u. Every option, with its default and bounds, is in
/// the stubs' `VerifyOptions`, written from the core's table (a value past its bounds raises
/// `UsageError`). The GIL is released while the card is verified. A card that cannot be read
/// at all raises `CardError`; a bad signature is a verdict in the report.
///
/// >>> import a2a_card
/// >>> kp = a2a_card.keygen("ES256")
/// >>> signed = a2a_card.sign('{"name":"A","description":"d","skills":[]}', kp)
/// >>> a2a_card.verify(signed, jwks=kp.jwks).ok
/// True
/// >>> r = a2a_card.verify(signed.replace('"d"', '"e"'), jwks=kp.jwks)
/// >>> r.ok, r.signatures[0].verdict.code
/// (False, 'signature-invalid')
#[pyfunction]
#[pyo3(signature = (card, **options))]
fn verify<'py>(card: &Bound<'py, PyAny>, options: Option<&Bound<'py, PyDict>>) -> PyResult<Report> {
    policy::verify(&policy::read(card.py(), "verify", options)?, card, None, None)
}

/// Verifies a list of cards on threads (the GIL released for the whole batch) with the options
/// of `verify`; the reports in input order. `threads` is the number of verifying threads
/// (default: one per core). A card that cannot be read raises its `CardError` once every card
/// is done; with `return_exceptions=True` the error takes the card's place in the list instead.
///
/// >>> import a2a_card
/// >>> kp = a2a_card.keygen("EdDSA")
/// >>> cards = [a2a_card.sign({"name": f"agent {i}", "skills": []}, kp) for i in range(3)]
/// >>> [r.ok for r in a2a_card.verify_many(cards + ['{"name":"x"}'], keys=kp, threads=2)]
/// [True, True, True, False]
/// >>> a2a_card.verify_many(['{"a":1,"a":2}'], keys=kp, return_exceptions=True)
/// [CardError(code='duplicate-member', pointer='/a', message='...')]
#[pyfunction]
#[pyo3(signature = (cards, *, threads=None, return_exceptions=false, **options))]
fn verify_many<'py>(
    cards: &Bound<'py, PyAny>,
    threads: Option<&Bound<'py, PyAny>>,
    return_exceptions: bool,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, pyo3::types::PyList>> {
    let py = cards.py();
    let policy = policy::read(py, "verify_many", options)?;
    let threads = threads_option(py, threads)?;
    batch::verify_many(py, &policy, cards, threads, return_exceptions, None, None)
}

/// A verifier whose trust roots and policy are read once (the options of `verify`), for
/// verifying many cards. It can be shared between threads.
///
/// >>> import a2a_card
/// >>> kp = a2a_card.keygen("ES256")
/// >>> verifier = a2a_card.Verifier(jwks=kp.jwks, algorithms=["ES256"])
/// >>> verifier.verify(a2a_card.sign('{"name":"A","skills":[]}', kp)).ok
/// True
#[pyclass(frozen, module = "a2a_card", name = "Verifier")]
struct Verifier {
    policy: ReadyVerifier,
}

#[pymethods]
impl Verifier {
    #[new]
    #[pyo3(signature = (**options))]
    fn new<'py>(py: Python<'py>, options: Option<&Bound<'py, PyDict>>) -> PyResult<Verifier> {
        Ok(Verifier {
            policy: policy::read(py, "Verifier.__new__", options)?,
        })
    }

    /// Verifies one card (see `a2a_card.verify`); `now` and `origin` override the verifier's
    /// for this call.
    #[pyo3(signature = (card, *, now=None, origin=None))]
    fn verify(
        &self,
        card: &Bound<'_, PyAny>,
        now: Option<&Bound<'_, PyAny>>,
        origin: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Report> {
        let now = keyword(now, "now", Kind::Time)?.and_then(OptionValue::time);
        let origin = keyword(origin, "origin", Kind::Text)?.and_then(OptionValue::text);
        policy::verify(&self.policy, card, now, origin)
    }

    /// Verifies a list of cards on threads (see `a2a_card.verify_many`).
    #[pyo3(signature = (cards, *, threads=None, return_exceptions=false, now=None, origin=None))]
    fn verify_many<'py>(
        &self,
        cards: &Bound<'py, PyAny>,
        threads: Option<&Bound<'py, PyAny>>,
        return_exceptions: bool,
        now: Option<&Bound<'py, PyAny>>,
        origin: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, pyo3::types::PyList>> {
        let py = cards.py();
        let threads = threads_option(py, threads)?;
        let now = keyword(now, "now", Kind::Time)?.and_then(OptionValue::time);
        let origin = keyword(origin, "origin", Kind::Text)?.and_then(OptionValue::text);
        batch::verify_many(py, &self.policy, cards, threads, return_exceptions, now, origin)
    }

    /// Seconds per verification of `card` by the core alone: the Rust library's `verify_card`
    /// with this verifier's keys and policy, called `n` times in a Rust loop (the GIL
    /// released), timed in Rust. The floor the benchmark compares the Python call with
    /// (`crates/a2a-card-py/bench/verify_vs_sdk.py`); not part of the API.
    #[pyo3(signature = (card, n))]
    fn _time_core(&self, card: &Bound<'_, PyAny>, n: usize) -> PyResult<f64> {
        let py = card.py();
        let bytes = card_bytes(card)?;
        let slice = bytes.as_slice();
        let (trust, opts) = (&self.policy.trust, &self.policy.options);
        let n = n.max(1);
        let elapsed = py.detach(|| {
            let start = std::time::Instant::now();
            for _ in 0..n {
                let report = a2a_card::verify_card(std::hint::black_box(slice), trust, opts);
                std::hint::black_box(&report);
            }
            start.elapsed()
        });
        Ok(elapsed.as_secs_f64() / n as f64)
    }

    /// The number of trusted keys.
    #[getter]
    fn key_count(&self) -> usize {
        self.policy.trust.keys().len()
    }

    /// The number of trust anchors (CA certificates) for `x5c` chains.
    #[getter]
    fn anchor_count(&self) -> usize {
        self.policy.trust.anchors().len()
    }

    fn __repr__(&self) -> String {
        let profiles: Vec<String> = self
            .policy
            .options
            .profiles
            .iter()
            .map(|p| report::py_repr(p.as_str()))
            .collect();
        format!(
            "<Verifier keys={} anchors={} mode={} profiles=[{}]>",
            self.policy.trust.keys().len(),
            self.policy.trust.anchors().len(),
            report::py_repr(self.policy.options.mode.as_str()),
            profiles.join(", ")
        )
    }
}

/// The exception class the package raises for an error code (for tests and documentation).
#[pyfunction]
fn _error_class_for(py: Python<'_>, code: &str) -> PyResult<Py<pyo3::types::PyType>> {
    let code =
        a2a_card::ErrorCode::from_name(code).ok_or_else(|| usage(py, format!("no error code {code:?}")))?;
    Ok(errors::error_class(py, errors::class_name(code))?.unbind())
}

/// The extension module `a2a_card._native` (re-exported by `a2a_card`).
#[pymodule]
#[pyo3(name = "_native")]
fn native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add(
        "PROFILES",
        Profile::ALL.iter().map(|p| p.as_str()).collect::<Vec<_>>(),
    )?;
    m.add(
        "MODES",
        a2a_card::Mode::ALL.iter().map(|p| p.as_str()).collect::<Vec<_>>(),
    )?;
    m.add(
        "ERROR_CODES",
        a2a_card::ErrorCode::ALL
            .iter()
            .map(|c| c.as_str())
            .collect::<Vec<_>>(),
    )?;
    m.add_function(wrap_pyfunction!(canonicalize, m)?)?;
    m.add_function(wrap_pyfunction!(canonicalize_with_report, m)?)?;
    m.add_function(wrap_pyfunction!(sign, m)?)?;
    m.add_function(wrap_pyfunction!(verify, m)?)?;
    m.add_function(wrap_pyfunction!(verify_many, m)?)?;
    m.add_function(wrap_pyfunction!(tools::inspect, m)?)?;
    m.add_function(wrap_pyfunction!(tools::lint, m)?)?;
    m.add_function(wrap_pyfunction!(tools::migrate, m)?)?;
    m.add_function(wrap_pyfunction!(tools::schema, m)?)?;
    m.add_function(wrap_pyfunction!(tools::keygen, m)?)?;
    m.add_function(wrap_pyfunction!(tools::jwks, m)?)?;
    m.add_function(wrap_pyfunction!(tools::algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(_error_class_for, m)?)?;
    m.add_class::<Verifier>()?;
    m.add_class::<Report>()?;
    m.add_class::<report::SignatureReport>()?;
    m.add_class::<report::KeyUsed>()?;
    m.add_class::<report::Verdict>()?;
    m.add_class::<keys::KeyPair>()?;
    Ok(())
}
