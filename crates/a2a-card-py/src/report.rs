//! Results out: JSON values as Python objects, and the verification report as Python objects
//! whose fields are the core's `Report`, `SignatureReport`, `KeyUsed` and `Verdict`.

use a2a_card::signature::{
    KeyUsed as CoreKeyUsed, SignatureReport as CoreSignatureReport, TextForm, Verdict as CoreVerdict,
};
use a2a_card::Report as CoreReport;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyDict, PyList};

/// A JSON value of the core as the Python object `json.loads` would give.
pub(crate) fn to_py<'py>(py: Python<'py>, value: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    use serde_json::Value as V;
    Ok(match value {
        V::Null => py.None().into_bound(py),
        V::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        V::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any()
            }
        }
        V::String(s) => s.into_pyobject(py)?.into_any(),
        V::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py(py, item)?)?;
            }
            list.into_any()
        }
        V::Object(members) => {
            let dict = PyDict::new(py);
            for (k, v) in members {
                dict.set_item(k, to_py(py, v)?)?;
            }
            dict.into_any()
        }
    })
}

/// A Python-style repr of a string ('...' with the usual escapes), for reprs.
pub(crate) fn py_repr(s: &str) -> String {
    let mut out = String::from("'");
    for c in s.chars() {
        match c {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&c.escape_default().to_string()),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// Text of canonical bytes (always UTF-8: they are written from a strictly read document).
pub(crate) fn text_of(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The report of a verification: the core's `Report`, field for field. Act on
/// `verified_content` (the canonical bytes the valid signatures cover), never on the served
/// card; `unsigned` lists the members of the card those bytes leave out.
///
/// A report is not a boolean: `if report:` raises `TypeError` (test `report.ok`).
///
/// >>> import a2a_card
/// >>> kp = a2a_card.keygen("EdDSA", kid="k1")
/// >>> signed = a2a_card.sign('{"name":"A","description":"d","skills":[],"x-note":1}', kp, unknown="exclude")
/// >>> r = a2a_card.verify(signed, keys=kp)
/// >>> r.ok, r.mode, r.profile, r.unsigned
/// (True, 'require', 'spec', ['/x-note'])
/// >>> r.signatures[0].verdict.code, r.signatures[0].key.source
/// ('valid', 'keys[0]')
/// >>> r.verified_content
/// b'{"description":"d","name":"A","skills":[]}'
#[pyclass(frozen, module = "a2a_card", name = "Report")]
pub(crate) struct Report {
    pub(crate) inner: CoreReport,
    canonical: PyOnceLock<Py<PyBytes>>,
}

impl Report {
    pub(crate) fn new(inner: CoreReport) -> Report {
        Report {
            inner,
            canonical: PyOnceLock::new(),
        }
    }

    fn canonical_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        self.canonical
            .get_or_init(py, || PyBytes::new(py, &self.inner.canonical).unbind())
            .bind(py)
            .clone()
    }
}

#[pymethods]
impl Report {
    /// True when the card meets the mode.
    #[getter]
    fn ok(&self) -> bool {
        self.inner.ok
    }

    /// The mode applied: "require", "all" or "if-present".
    #[getter]
    fn mode(&self) -> &'static str {
        self.inner.mode.as_str()
    }

    /// Why the card passed or failed, in a sentence.
    #[getter]
    fn reason(&self) -> &str {
        &self.inner.reason
    }

    /// The profile whose canonical bytes were verified (the first valid signature's), else the
    /// first accepted profile.
    #[getter]
    fn profile(&self) -> &'static str {
        self.inner.profile.as_str()
    }

    /// The canonical bytes of that profile: the content the verdict is about.
    #[getter]
    fn canonical<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        self.canonical_bytes(py)
    }

    /// SHA-256 of the canonical bytes, lower-case hex.
    #[getter]
    fn canonical_sha256(&self) -> String {
        self.inner.canonical_sha256()
    }

    /// JSON Pointers of the members present in the card but not covered by the canonical
    /// bytes (for a card without signatures, every top-level member).
    #[getter]
    fn unsigned(&self) -> Vec<String> {
        self.inner.unsigned.clone()
    }

    /// The unsigned members one edit away from a member A2A v1.0 defines, each a dict with
    /// its "pointer" and the defined "member" (`documentationURL` -> `documentationUrl`);
    /// None when there is none, as `to_json()` then has no "did_you_mean".
    #[getter]
    fn did_you_mean<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.inner.did_you_mean().map(|v| to_py(py, &v)).transpose()
    }

    /// One report per signature entry, in order.
    #[getter]
    fn signatures(&self) -> Vec<SignatureReport> {
        self.inner
            .signatures
            .iter()
            .map(|s| SignatureReport { inner: s.clone() })
            .collect()
    }

    /// The verified content: the canonical bytes, but only when the card passed and at least
    /// one signature verified; else None (an unsigned card that mode "if-present" lets pass
    /// has none: nothing in it is covered).
    #[getter]
    fn verified_content<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        self.inner.verified_content().map(|_| self.canonical_bytes(py))
    }

    /// The report as JSON text, exactly as `a2a-card verify --format json` prints it (the
    /// canonical bytes as the string member "canonical").
    fn to_json(&self) -> String {
        self.inner.to_json().to_string()
    }

    /// The report as a dict: the members of `to_json()`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner.to_json())
    }

    /// The report for people, as `a2a-card verify` prints it; `card` names the card in a
    /// `card:` line when given.
    #[pyo3(signature = (card=None))]
    fn to_text(&self, card: Option<String>) -> String {
        let form = TextForm {
            card: card.map(|c| vec![format!("card: {c}")]).unwrap_or_default(),
            ..TextForm::default()
        };
        self.inner.to_text(&form)
    }

    fn __bool__(&self) -> PyResult<bool> {
        Err(PyTypeError::new_err(
            "a Report is not a boolean: test report.ok, and act on report.verified_content",
        ))
    }

    fn __repr__(&self) -> String {
        format!(
            "<Report ok={} mode={} profile={} signatures={} unsigned={}>",
            if self.inner.ok { "True" } else { "False" },
            py_repr(self.inner.mode.as_str()),
            py_repr(self.inner.profile.as_str()),
            self.inner.signatures.len(),
            self.inner.unsigned.len()
        )
    }
}

/// The report on one signature entry.
#[pyclass(frozen, module = "a2a_card", name = "SignatureReport")]
pub(crate) struct SignatureReport {
    inner: CoreSignatureReport,
}

#[pymethods]
impl SignatureReport {
    /// Its index in `signatures`.
    #[getter]
    fn index(&self) -> usize {
        self.inner.index
    }

    /// The protected `kid`, when the header decoded.
    #[getter]
    fn kid(&self) -> Option<&str> {
        self.inner.kid.as_deref()
    }

    /// The protected `alg`, when the header decoded.
    #[getter]
    fn alg(&self) -> Option<&str> {
        self.inner.alg.as_deref()
    }

    /// The `jku` named, if any: information, never fetched.
    #[getter]
    fn jku(&self) -> Option<&str> {
        self.inner.jku.as_deref()
    }

    /// The trusted key the signature was checked with, if one was.
    #[getter]
    fn key(&self) -> Option<KeyUsed> {
        self.inner.key.as_ref().map(|k| KeyUsed { inner: k.clone() })
    }

    /// For a signature whose `x5c` chain built to a trust anchor: a dict with `chain` (each
    /// certificate's `subject` and `serial`, leaf first), `anchor` (its subject),
    /// `anchor_source` (the option or trust entry it came from) and `identity` (the rule the
    /// leaf met); `None` otherwise.
    #[getter]
    fn certificate<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let Some(c) = &self.inner.certificate else {
            return Ok(None);
        };
        let value =
            serde_json::to_value(c).map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
        to_py(py, &value).map(Some)
    }

    /// The profile whose canonical bytes it was checked against.
    #[getter]
    fn profile(&self) -> Option<&'static str> {
        self.inner.profile.map(|p| p.as_str())
    }

    /// The verdict.
    #[getter]
    fn verdict(&self) -> Verdict {
        Verdict {
            inner: self.inner.verdict.clone(),
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "<SignatureReport index={} kid={} alg={} verdict={}>",
            self.inner.index,
            self.inner
                .kid
                .as_deref()
                .map_or_else(|| "None".to_string(), py_repr),
            self.inner
                .alg
                .as_deref()
                .map_or_else(|| "None".to_string(), py_repr),
            py_repr(self.inner.verdict.code.as_str())
        )
    }
}

/// The trusted key a signature was checked with.
#[pyclass(frozen, module = "a2a_card", name = "KeyUsed")]
pub(crate) struct KeyUsed {
    inner: CoreKeyUsed,
}

#[pymethods]
impl KeyUsed {
    /// Its `kid`.
    #[getter]
    fn kid(&self) -> &str {
        &self.inner.kid
    }

    /// Its RFC 7638 thumbprint.
    #[getter]
    fn thumbprint(&self) -> &str {
        &self.inner.thumbprint
    }

    /// Where it came from: "keys[0]", "jwks", the trust store's name ("trust"), ...
    #[getter]
    fn source(&self) -> String {
        self.inner.source.label()
    }

    fn __repr__(&self) -> String {
        format!(
            "<KeyUsed kid={} source={}>",
            py_repr(&self.inner.kid),
            py_repr(&self.inner.source.label())
        )
    }
}

/// The verdict on one signature: its code, a sentence, and the member at fault.
#[pyclass(frozen, module = "a2a_card", name = "Verdict")]
pub(crate) struct Verdict {
    inner: CoreVerdict,
}

#[pymethods]
impl Verdict {
    /// "valid", or the stable error code of the first reason the signature failed
    /// ("signature-invalid", "untrusted-key", "key-expired", ...).
    #[getter]
    fn code(&self) -> &'static str {
        self.inner.code.as_str()
    }

    /// A sentence a person can act on.
    #[getter]
    fn message(&self) -> &str {
        &self.inner.message
    }

    /// The JSON Pointer of the member at fault (for example "/signatures/0/protected"), or None.
    #[getter]
    fn pointer(&self) -> Option<&str> {
        self.inner.pointer.as_deref()
    }

    /// True for "valid".
    fn is_valid(&self) -> bool {
        self.inner.is_valid()
    }

    fn __repr__(&self) -> String {
        format!("<Verdict code={}>", py_repr(self.inner.code.as_str()))
    }
}
