//! The native crypto backend: P-521, secp256k1 and Ed448 (and RSA key generation) through
//! josekit (OpenSSL) when the `native-algs` feature is on (native targets only), on bytes
//! only: raw signing and verification of the given message with a PKCS#8 or
//! SubjectPublicKeyInfo DER key, key generation, and public-key derivation.
//!
//! It sits below [`keys`](super::keys) and [`crypto`](super::crypto), which both call it, and
//! knows neither: the key types are built on top of it, not the other way round.

use super::algorithm::Algorithm;
use crate::error::{Error, ErrorCode};
#[cfg(feature = "native-algs")]
use josekit::jwk::alg::ec::{EcCurve, EcKeyPair};
#[cfg(feature = "native-algs")]
use josekit::jwk::alg::ed::{EdCurve, EdKeyPair};
#[cfg(feature = "native-algs")]
use josekit::jwk::alg::rsa::RsaKeyPair;
#[cfg(feature = "native-algs")]
use josekit::jwk::KeyPair;
#[cfg(feature = "native-algs")]
use josekit::jws::{JwsSigner, JwsVerifier};

/// What an operation that needs the native backend answers in a build without it.
pub(crate) fn unavailable(what: &str) -> Error {
    Error::new(
        ErrorCode::UnknownAlgorithm,
        format!(
            "{what} is not available in this build: it needs the `native-algs` feature \
             (josekit/OpenSSL), which exists on native targets only"
        ),
    )
}

/// A signature that does not verify with the key.
pub(crate) fn bad_signature(alg: Algorithm) -> Error {
    Error::new(
        ErrorCode::SignatureInvalid,
        format!("the {alg} signature does not verify with this key"),
    )
}

#[cfg(feature = "native-algs")]
fn key_err(what: &str, e: josekit::JoseError) -> Error {
    Error::new(ErrorCode::InvalidKey, format!("{what}: {e}"))
}

#[cfg(feature = "native-algs")]
pub(crate) fn sign(alg: Algorithm, pkcs8: &[u8], msg: &[u8]) -> Result<Vec<u8>, Error> {
    let signer: Box<dyn JwsSigner> = match alg {
        Algorithm::ES512 => Box::new(
            josekit::jws::ES512
                .signer_from_der(pkcs8)
                .map_err(|e| key_err("P-521 key refused by OpenSSL", e))?,
        ),
        Algorithm::ES256K => Box::new(
            josekit::jws::ES256K
                .signer_from_der(pkcs8)
                .map_err(|e| key_err("secp256k1 key refused by OpenSSL", e))?,
        ),
        Algorithm::EdDSA => Box::new(
            josekit::jws::EdDSA
                .signer_from_der(pkcs8)
                .map_err(|e| key_err("Ed448 key refused by OpenSSL", e))?,
        ),
        other => {
            return Err(Error::new(
                ErrorCode::KeyAlgorithmMismatch,
                format!("{other} is not signed through the native path"),
            ))
        }
    };
    signer
        .sign(msg)
        .map_err(|e| Error::new(ErrorCode::InvalidKey, format!("{alg} signing failed: {e}")))
}

#[cfg(feature = "native-algs")]
pub(crate) fn verify(alg: Algorithm, spki: &[u8], msg: &[u8], sig: &[u8]) -> Result<(), Error> {
    let verifier: Box<dyn JwsVerifier> = match alg {
        Algorithm::ES512 => Box::new(
            josekit::jws::ES512
                .verifier_from_der(spki)
                .map_err(|e| key_err("P-521 public key refused by OpenSSL", e))?,
        ),
        Algorithm::ES256K => Box::new(
            josekit::jws::ES256K
                .verifier_from_der(spki)
                .map_err(|e| key_err("secp256k1 public key refused by OpenSSL", e))?,
        ),
        Algorithm::EdDSA => Box::new(
            josekit::jws::EdDSA
                .verifier_from_der(spki)
                .map_err(|e| key_err("Ed448 public key refused by OpenSSL", e))?,
        ),
        other => {
            return Err(Error::new(
                ErrorCode::KeyAlgorithmMismatch,
                format!("{other} is not verified through the native path"),
            ))
        }
    };
    verifier.verify(msg, sig).map_err(|_| bad_signature(alg))
}

#[cfg(feature = "native-algs")]
/// A fresh private key in OpenSSL's DER form (PKCS#8, or PKCS#1 / SEC1 for RSA / EC).
pub(crate) fn generate_ec(p521: bool) -> Result<Vec<u8>, Error> {
    let curve = if p521 { EcCurve::P521 } else { EcCurve::Secp256k1 };
    EcKeyPair::generate(curve)
        .map(|k| k.to_der_private_key())
        .map_err(|e| key_err("EC key generation failed", e))
}

#[cfg(feature = "native-algs")]
pub(crate) fn generate_ed448() -> Result<Vec<u8>, Error> {
    EdKeyPair::generate(EdCurve::Ed448)
        .map(|k| k.to_der_private_key())
        .map_err(|e| key_err("Ed448 key generation failed", e))
}

#[cfg(feature = "native-algs")]
pub(crate) fn generate_rsa(bits: u32) -> Result<Vec<u8>, Error> {
    RsaKeyPair::generate(bits)
        .map(|k| k.to_der_private_key())
        .map_err(|e| key_err("RSA key generation failed", e))
}

#[cfg(feature = "native-algs")]
/// The SubjectPublicKeyInfo DER that OpenSSL derives from a PKCS#8 private key.
pub(crate) fn derive_public(pkcs8: &[u8], ed448: bool, p521: bool) -> Result<Vec<u8>, Error> {
    if ed448 {
        EdKeyPair::from_der(pkcs8)
            .map(|k| k.to_der_public_key())
            .map_err(|e| key_err("Ed448 private key refused by OpenSSL", e))
    } else {
        let curve = if p521 { EcCurve::P521 } else { EcCurve::Secp256k1 };
        EcKeyPair::from_der(pkcs8, Some(curve))
            .map(|k| k.to_der_public_key())
            .map_err(|e| key_err("EC private key refused by OpenSSL", e))
    }
}
