//! `KeyPair`, the key pair `keygen` makes: the private key (PEM and JWK), the public JWK and
//! JWK Set to publish, and a `repr` that shows no key material.

use crate::report::{py_repr, to_py};
use a2a_card::jose::keys::PrivateKey;
use a2a_card::Algorithm;
use pyo3::prelude::*;

/// A key pair made by `keygen`. Its `repr` shows no key material.
#[pyclass(frozen, module = "a2a_card", name = "KeyPair")]
pub(crate) struct KeyPair {
    key: PrivateKey,
    alg: Algorithm,
}

impl KeyPair {
    pub(crate) fn new(key: PrivateKey, alg: Algorithm) -> KeyPair {
        KeyPair { key, alg }
    }

    /// The key as JWK text: the private JWK, or with `public` the public one (both with kid
    /// and alg).
    pub(crate) fn key_text(&self, public: bool) -> String {
        if public {
            self.key.public().to_jwk().to_string()
        } else {
            self.key.to_jwk_private().to_string()
        }
    }
}

#[pymethods]
impl KeyPair {
    /// The key's kid.
    #[getter]
    fn kid(&self) -> &str {
        self.key.kid()
    }

    /// The algorithm the key was made for.
    #[getter]
    fn alg(&self) -> &'static str {
        self.alg.as_str()
    }

    /// The key type: "Ed25519", "P-256", "RSA-2048", ...
    #[getter]
    fn key_type(&self) -> String {
        self.key.key_type().to_string()
    }

    /// The private key as PKCS#8 PEM (it records neither kid nor alg).
    #[getter]
    fn private_pem(&self) -> String {
        self.key.to_pkcs8_pem()
    }

    /// The private key as a JWK, with its kid and alg.
    #[getter]
    fn private_jwk<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.key.to_jwk_private())
    }

    /// The public key as a JWK, with its kid and alg.
    #[getter]
    fn public_jwk<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.key.public().to_jwk())
    }

    /// The public JWK Set to publish: `{"keys": [public_jwk]}`.
    #[getter]
    fn jwks<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &serde_json::json!({ "keys": [self.key.public().to_jwk()] }))
    }

    fn __repr__(&self) -> String {
        format!(
            "KeyPair(kid={}, alg={}, key_type={})",
            py_repr(self.key.kid()),
            py_repr(self.alg.as_str()),
            py_repr(&self.key.key_type().to_string())
        )
    }
}
