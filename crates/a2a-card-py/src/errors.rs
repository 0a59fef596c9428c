//! Library errors as Python exceptions: the classes of `a2a_card._errors` (one subclass of
//! `a2a_card.Error` per kind of failure), each with the core's `code`, `pointer`, `offset`,
//! `message` and `option`.

use a2a_card::{Error, ErrorCode};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyType};

/// The exception class for an error code. Every code has one; a code added to the core later
/// falls back to the base class until it is placed here.
pub(crate) fn class_name(code: ErrorCode) -> &'static str {
    use ErrorCode as C;
    match code {
        C::Usage => "UsageError",
        C::InvalidJson
        | C::DuplicateMember
        | C::NumberOutOfRange
        | C::NestingTooDeep
        | C::InputTooLarge
        | C::DualName
        | C::TypeMismatch
        | C::OneofConflict
        | C::UnknownMember
        | C::MalformedCard
        | C::UnsignedMembers
        | C::LintFailed
        | C::KidAlreadySigned
        | C::TooManySignatures => "CardError",
        C::UnknownAlgorithm
        | C::KeyAlgorithmMismatch
        | C::InvalidKey
        | C::EncryptedKey
        | C::WeakKey
        | C::JwkInconsistent
        | C::InvalidTrustStore
        | C::TooManyKeys
        | C::CertificateMalformed
        | C::CertificateKeyMismatch => "InvalidKeyError",
        C::InvalidBase64url
        | C::MalformedHeader
        | C::UnsupportedCrit
        | C::UnsupportedB64
        | C::HeaderConflict
        | C::HeaderTooLarge => "HeaderError",
        C::SignatureInvalid
        | C::UntrustedKey
        | C::ProfileNotAccepted
        | C::AlgorithmNotAllowed
        | C::KeyExpired
        | C::KeyRevoked
        | C::ExternalSignatureInvalid
        | C::CertificateUntrusted
        | C::CertificateExpired
        | C::CertificateRevoked
        | C::CertificateIdentityMismatch
        | C::TooManyChecks => "SignatureError",
        C::External(_) | C::Io => "RetrievalError",
        _ => "Error",
    }
}

static ERRORS: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

/// The class named `name` in `a2a_card._errors`.
pub(crate) fn error_class<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyType>> {
    let module = ERRORS.get_or_try_init(py, || py.import("a2a_card._errors").map(Bound::unbind))?;
    Ok(module.bind(py).getattr(name)?.cast_into::<PyType>()?)
}

/// The Python exception for a library error, with the option it is about (`option`, the
/// canonical snake_case name Python spells it by) when it is about one.
pub(crate) fn py_error(py: Python<'_>, e: &Error) -> PyErr {
    // The options an error names, spelled as this package spells them.
    let option = e.option();
    exception(py, &e.clone().spelled(&a2a_card::request::Snake), option)
}

/// The Python exception for a refusal of the request of canonicalize, inspect, lint or migrate:
/// as [`py_error`], a message about an option labelled `option "name": ...` (as these functions
/// always labelled them).
pub(crate) fn request_error(py: Python<'_>, e: &Error) -> PyErr {
    let label = |name: &str, message: &str| format!("option \"{name}\": {message}");
    let spelling = a2a_card::request::Labelled(&a2a_card::request::Snake, &label);
    exception(py, &e.clone().spelled(&spelling), e.option())
}

fn exception(py: Python<'_>, e: &Error, option: Option<&str>) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let class = error_class(py, class_name(e.code()))?;
        let kwargs = PyDict::new(py);
        kwargs.set_item("code", e.code().as_str())?;
        kwargs.set_item("pointer", e.pointer())?;
        kwargs.set_item("offset", e.offset())?;
        kwargs.set_item("message", e.message())?;
        kwargs.set_item("option", option)?;
        let instance = class.call((e.to_string(),), Some(&kwargs))?;
        Ok(PyErr::from_value(instance))
    };
    build().unwrap_or_else(|failure| failure)
}

/// A `usage` error: arguments or options this package cannot use.
pub(crate) fn usage(py: Python<'_>, message: impl Into<String>) -> PyErr {
    py_error(py, &Error::new(ErrorCode::Usage, message))
}

/// A `usage` error about the keyword option `option` (its `option` attribute), whose message
/// names it already.
pub(crate) fn option_usage(py: Python<'_>, option: &str, message: impl Into<String>) -> PyErr {
    exception(py, &Error::new(ErrorCode::Usage, message), Some(option))
}

/// Library results into Python results.
pub(crate) trait OrRaise<T> {
    /// The value, or the Python exception of the error.
    fn or_raise(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> OrRaise<T> for Result<T, Error> {
    fn or_raise(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| py_error(py, &e))
    }
}
