//! JWS algorithms (RFC 7518, RFC 8037, RFC 8812) and the raw signature operations behind them.
//!
//! [`sign`] and [`verify`] work on the exact bytes given (for JWS, the signing input
//! `BASE64URL(protected) '.' BASE64URL(payload)`); they know nothing about headers. EdDSA with
//! Ed25519, ES256, ES384, RS256/384/512 and PS256/384/512 run on `ring` and work on every
//! target, wasm32 included. ES512, ES256K and EdDSA with Ed448 run through `josekit`'s raw
//! signer and verifier (OpenSSL) when the `native-algs` feature is on (native targets only).
//! HMAC is reachable only through [`sign_hmac`] and [`verify_hmac`], which take the shared secret
//! explicitly, so that a header can never turn a public key into an HMAC secret.
//!
//! ```
//! use a2a_card::Algorithm;
//! use a2a_card::jose::crypto::{sign, verify};
//! use a2a_card::jose::keys::PrivateKey;
//!
//! let key = PrivateKey::generate(Algorithm::ES256).unwrap();
//! let sig = sign(Algorithm::ES256, &key, b"signing input").unwrap();
//! assert_eq!(sig.len(), 64); // raw r||s
//! verify(Algorithm::ES256, key.public(), b"signing input", &sig).unwrap();
//! let err = verify(Algorithm::ES256, key.public(), b"signing inpuT", &sig).unwrap_err();
//! assert_eq!(err.code().as_str(), "signature-invalid");
//! ```

use super::algorithm::Algorithm;
use super::keys::{KeyPair, KeyType, PrivateKey, PublicKey, PublicMaterial};
#[cfg(feature = "native-algs")]
use super::native;
use super::native::{bad_signature, unavailable};
use crate::error::{Error, ErrorCode};
use ring::signature::{self, UnparsedPublicKey};

fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::SignatureInvalid, message)
}

fn check_fixed_len(alg: Algorithm, expected: usize, sig: &[u8]) -> Result<(), Error> {
    if sig.len() == expected {
        return Ok(());
    }
    let der_hint = if looks_like_der_ecdsa(sig) {
        " It looks like an ASN.1 DER signature; JWS ECDSA signatures are the raw r||s \
         concatenation (RFC 7518 section 3.4), DER is refused."
    } else {
        ""
    };
    Err(invalid(format!(
        "{alg} signatures are exactly {expected} bytes (raw r||s), this one is {} bytes.{der_hint}",
        sig.len()
    )))
}

fn looks_like_der_ecdsa(sig: &[u8]) -> bool {
    let mut r = crate::jose::der::Reader::new(sig);
    let Ok(body) = r.read(crate::jose::der::TAG_SEQUENCE, "signature") else {
        return false;
    };
    if !r.is_empty() {
        return false;
    }
    let mut inner = crate::jose::der::Reader::new(body);
    inner.read(crate::jose::der::TAG_INTEGER, "r").is_ok()
        && inner.read(crate::jose::der::TAG_INTEGER, "s").is_ok()
        && inner.is_empty()
}

/// Signs `msg` with `key` using `alg`.
///
/// Fails with `key-algorithm-mismatch` when the algorithm does not fit the key (see
/// [`PrivateKey::check_algorithm`]), with `unknown-algorithm` when the algorithm (or the key's
/// curve) is not available in this build. ECDSA signatures are raw r||s of fixed length;
/// Ed25519 and RS* signatures are deterministic, ECDSA and PS* are randomized.
///
/// ```
/// use a2a_card::Algorithm;
/// use a2a_card::jose::crypto::{sign};
/// use a2a_card::jose::keys::PrivateKey;
/// let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
/// let a = sign(Algorithm::EdDSA, &key, b"m").unwrap();
/// assert_eq!(a, sign(Algorithm::EdDSA, &key, b"m").unwrap()); // deterministic
/// let err = sign(Algorithm::ES256, &key, b"m").unwrap_err();
/// assert_eq!(err.code().as_str(), "key-algorithm-mismatch");
/// ```
pub fn sign(alg: Algorithm, key: &PrivateKey, msg: &[u8]) -> Result<Vec<u8>, Error> {
    key.check_algorithm(alg)?;
    if !alg.available() {
        return Err(unavailable(alg.as_str()));
    }
    let failed = |what: &str| {
        Error::new(
            ErrorCode::InvalidKey,
            format!("signing with {alg} failed: {what}"),
        )
    };
    match &key.signer {
        KeyPair::Ed25519(kp) => Ok(kp.sign(msg).as_ref().to_vec()),
        KeyPair::Ecdsa(kp) => {
            let rng = ring::rand::SystemRandom::new();
            kp.sign(&rng, msg)
                .map(|s| s.as_ref().to_vec())
                .map_err(|_| failed("the random number generator or the key failed"))
        }
        KeyPair::Rsa(kp) => {
            let encoding: &'static dyn signature::RsaEncoding = match alg {
                Algorithm::RS256 => &signature::RSA_PKCS1_SHA256,
                Algorithm::RS384 => &signature::RSA_PKCS1_SHA384,
                Algorithm::RS512 => &signature::RSA_PKCS1_SHA512,
                Algorithm::PS256 => &signature::RSA_PSS_SHA256,
                Algorithm::PS384 => &signature::RSA_PSS_SHA384,
                Algorithm::PS512 => &signature::RSA_PSS_SHA512,
                _ => return Err(failed("not an RSA algorithm")),
            };
            let rng = ring::rand::SystemRandom::new();
            let mut out = vec![0u8; kp.public().modulus_len()];
            kp.sign(encoding, &rng, msg, &mut out)
                .map_err(|_| failed("the RSA operation failed"))?;
            Ok(out)
        }
        #[cfg(feature = "native-algs")]
        KeyPair::Native => native::sign(alg, &key.to_pkcs8_der(), msg),
        #[cfg(not(feature = "native-algs"))]
        KeyPair::Native => Err(unavailable(key.key_type().name())),
    }
}

/// Verifies `sig` over `msg` with `key` using `alg`.
///
/// * `signature-invalid`: the signature does not verify, or has the wrong length for the
///   algorithm (an ECDSA signature in ASN.1 DER form is refused with a message saying so);
/// * `key-algorithm-mismatch`: the algorithm does not fit the key, including every HS*
///   algorithm, which never verifies with a public key (algorithm-confusion defence);
/// * `unknown-algorithm`: the algorithm or the key's curve is not available in this build.
///
/// ```
/// use a2a_card::Algorithm;
/// use a2a_card::jose::crypto::{sign, verify};
/// use a2a_card::jose::keys::PrivateKey;
/// let key = PrivateKey::generate(Algorithm::ES384).unwrap();
/// let sig = sign(Algorithm::ES384, &key, b"m").unwrap();
/// assert!(verify(Algorithm::ES384, key.public(), b"m", &sig).is_ok());
/// // HMAC with a public key is the classic algorithm-confusion attack: refused.
/// let err = verify(Algorithm::HS384, key.public(), b"m", &sig[..48]).unwrap_err();
/// assert_eq!(err.code().as_str(), "key-algorithm-mismatch");
/// ```
pub fn verify(alg: Algorithm, key: &PublicKey, msg: &[u8], sig: &[u8]) -> Result<(), Error> {
    verify_with(alg, key, msg, sig, None)
}

/// What a [`SignatureBackend`] answers for one signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BackendVerdict {
    /// The signature verifies with the key.
    Valid,
    /// The signature does not verify with the key.
    Invalid,
    /// The backend does not handle this algorithm or key; the built-in (`ring`) check is used.
    Declined,
}

/// Another implementation of the final signature primitive, for example the host's native
/// crypto when this library runs as WebAssembly.
///
/// A backend is consulted by [`verify_with`] (and by `verify::verify_card_with`) for the raw
/// check only, after the library has made every other check: the algorithm fits the key type
/// (HS* never reaches a backend), the algorithm and the key's curve are available in this
/// build, and the signature has the algorithm's exact length. What it receives is therefore
/// already well-formed: `msg` is the JWS signing input, `sig` the raw signature (r||s for
/// ECDSA). RSA-PSS is expected with MGF1 over the same hash and a salt as long as the hash, as
/// `ring` checks it. A backend that does not handle a case answers
/// [`BackendVerdict::Declined`] and the built-in check runs instead; an `Err` is a failure of
/// the backend itself (reported as the signature's verdict, never as a valid signature).
///
/// ```
/// use a2a_card::Algorithm;
/// use a2a_card::jose::crypto::{sign, verify_with, BackendVerdict, SignatureBackend, SignatureCheck};
/// use a2a_card::jose::keys::PrivateKey;
/// use a2a_card::Error;
///
/// /// Handles nothing: every check falls back to ring.
/// struct Decline;
/// impl SignatureBackend for Decline {
///     fn verify(&self, _: &SignatureCheck<'_>) -> Result<BackendVerdict, Error> {
///         Ok(BackendVerdict::Declined)
///     }
/// }
/// let key = PrivateKey::generate(Algorithm::ES256).unwrap();
/// let sig = sign(Algorithm::ES256, &key, b"m").unwrap();
/// assert!(verify_with(Algorithm::ES256, key.public(), b"m", &sig, Some(&Decline)).is_ok());
/// assert!(verify_with(Algorithm::ES256, key.public(), b"M", &sig, Some(&Decline)).is_err());
/// ```
pub trait SignatureBackend {
    /// Checks the signature of `check`, or declines.
    fn verify(&self, check: &SignatureCheck<'_>) -> Result<BackendVerdict, Error>;
}

/// One raw signature check handed to a [`SignatureBackend`], every other check already made.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct SignatureCheck<'a> {
    /// The algorithm (never `HS*`, and available in this build).
    pub alg: Algorithm,
    /// The public key, of the type the algorithm takes.
    pub key: &'a PublicKey,
    /// The JWS signing input (`BASE64URL(protected) || '.' || BASE64URL(payload)`).
    pub message: &'a [u8],
    /// The raw signature, of the algorithm's exact length (r||s for ECDSA).
    pub signature: &'a [u8],
}

/// Why [`verify_checked`] refused a signature: the library's own checks and primitive, or a
/// failure of the backend (which the verifier reports at the signature member).
pub(crate) enum CryptoFailure {
    /// The library's verdict (wrong length, key/algorithm mismatch, signature invalid, ...).
    Refused(Error),
    /// The backend itself failed.
    Backend(Error),
}

impl From<Error> for CryptoFailure {
    fn from(e: Error) -> Self {
        CryptoFailure::Refused(e)
    }
}

impl CryptoFailure {
    pub(crate) fn into_error(self) -> Error {
        match self {
            CryptoFailure::Refused(e) | CryptoFailure::Backend(e) => e,
        }
    }
}

/// The outcome of one check from a backend's answer: `Valid` and `Invalid` as the backend says,
/// `Declined` by the library's own primitive ([`builtin_verify`]), an `Err` as the backend's
/// own failure.
pub(crate) fn settle(
    check: &SignatureCheck<'_>,
    answer: Result<BackendVerdict, Error>,
) -> Result<(), CryptoFailure> {
    match answer {
        Ok(BackendVerdict::Valid) => Ok(()),
        Ok(BackendVerdict::Invalid) => Err(CryptoFailure::Refused(bad_signature(check.alg))),
        Ok(BackendVerdict::Declined) => builtin_verify(check.alg, check.key, check.message, check.signature)
            .map_err(CryptoFailure::Refused),
        Err(e) => Err(CryptoFailure::Backend(e)),
    }
}

/// [`verify`], with the final primitive delegated to `backend` when one is given and it does
/// not decline (see [`SignatureBackend`]). Every check before the primitive is the same, and
/// with `None`, or a backend that declines, the result is exactly [`verify`]'s.
pub fn verify_with(
    alg: Algorithm,
    key: &PublicKey,
    msg: &[u8],
    sig: &[u8],
    backend: Option<&dyn SignatureBackend>,
) -> Result<(), Error> {
    verify_checked(alg, key, msg, sig, backend).map_err(CryptoFailure::into_error)
}

/// [`verify_with`], telling the backend's own failures apart: [`precheck`], then the backend or
/// [`builtin_verify`].
pub(crate) fn verify_checked(
    alg: Algorithm,
    key: &PublicKey,
    msg: &[u8],
    sig: &[u8],
    backend: Option<&dyn SignatureBackend>,
) -> Result<(), CryptoFailure> {
    precheck(alg, key, sig)?;
    let check = SignatureCheck {
        alg,
        key,
        message: msg,
        signature: sig,
    };
    match backend {
        Some(backend) => settle(&check, backend.verify(&check)),
        None => builtin_verify(alg, key, msg, sig).map_err(CryptoFailure::Refused),
    }
}

/// Every check made before the signature primitive: the algorithm fits the key, the algorithm
/// and the key type are available in this build, and the signature has the algorithm's exact
/// length (ECDSA raw r||s, never DER). A check that passes here is what a
/// [`SignatureBackend`] receives.
pub(crate) fn precheck(alg: Algorithm, key: &PublicKey, sig: &[u8]) -> Result<(), Error> {
    key.check_algorithm(alg)?;
    if !alg.available() {
        return Err(unavailable(alg.as_str()));
    }
    let kind = key.key_type();
    if !kind.available() {
        return Err(unavailable(kind.name()));
    }
    match (alg, key.material()) {
        (Algorithm::EdDSA, PublicMaterial::Okp { .. }) => {
            let (name, len) = if kind == KeyType::Ed25519 {
                ("Ed25519", 64)
            } else {
                ("Ed448", 114)
            };
            if sig.len() != len {
                return Err(invalid(format!(
                    "{name} signatures are exactly {len} bytes, this one is {} bytes",
                    sig.len()
                )));
            }
            Ok(())
        }
        (Algorithm::ES256 | Algorithm::ES384, PublicMaterial::Ec { .. }) => {
            check_fixed_len(alg, if alg == Algorithm::ES256 { 64 } else { 96 }, sig)
        }
        (Algorithm::ES512 | Algorithm::ES256K, PublicMaterial::Ec { .. }) => {
            check_fixed_len(alg, if alg == Algorithm::ES512 { 132 } else { 64 }, sig)
        }
        (_, PublicMaterial::Rsa { n, .. }) => {
            rsa_parameters(alg, kind)?;
            if sig.len() != n.len() {
                return Err(invalid(format!(
                    "{alg} signatures with this {}-bit key are exactly {} bytes, this one is {} bytes",
                    kind.bits(),
                    n.len(),
                    sig.len()
                )));
            }
            Ok(())
        }
        _ => Err(mismatch_internal(alg, kind)),
    }
}

/// The library's own signature primitive (`ring`, or josekit for ES512, ES256K and Ed448), for a
/// check that passed [`precheck`].
pub(crate) fn builtin_verify(alg: Algorithm, key: &PublicKey, msg: &[u8], sig: &[u8]) -> Result<(), Error> {
    let kind = key.key_type();
    match (alg, key.material()) {
        (Algorithm::EdDSA, PublicMaterial::Okp { x }) => {
            if kind == KeyType::Ed25519 {
                UnparsedPublicKey::new(&signature::ED25519, x)
                    .verify(msg, sig)
                    .map_err(|_| bad_signature(alg))
            } else {
                native_verify(alg, key, msg, sig)
            }
        }
        (Algorithm::ES256 | Algorithm::ES384, PublicMaterial::Ec { x, y }) => {
            let ring_alg: &'static signature::EcdsaVerificationAlgorithm = if alg == Algorithm::ES256 {
                &signature::ECDSA_P256_SHA256_FIXED
            } else {
                &signature::ECDSA_P384_SHA384_FIXED
            };
            let mut point = Vec::with_capacity(1 + x.len() + y.len());
            point.push(4);
            point.extend_from_slice(x);
            point.extend_from_slice(y);
            UnparsedPublicKey::new(ring_alg, &point)
                .verify(msg, sig)
                .map_err(|_| bad_signature(alg))
        }
        (Algorithm::ES512 | Algorithm::ES256K, PublicMaterial::Ec { .. }) => {
            native_verify(alg, key, msg, sig)
        }
        (_, PublicMaterial::Rsa { n, e }) => signature::RsaPublicKeyComponents {
            n: n.as_slice(),
            e: e.as_slice(),
        }
        .verify(rsa_parameters(alg, kind)?, msg, sig)
        .map_err(|_| bad_signature(alg)),
        _ => Err(mismatch_internal(alg, kind)),
    }
}

/// ring's verification parameters of an RSA algorithm.
fn rsa_parameters(alg: Algorithm, kind: KeyType) -> Result<&'static signature::RsaParameters, Error> {
    Ok(match alg {
        Algorithm::RS256 => &signature::RSA_PKCS1_2048_8192_SHA256,
        Algorithm::RS384 => &signature::RSA_PKCS1_2048_8192_SHA384,
        Algorithm::RS512 => &signature::RSA_PKCS1_2048_8192_SHA512,
        Algorithm::PS256 => &signature::RSA_PSS_2048_8192_SHA256,
        Algorithm::PS384 => &signature::RSA_PSS_2048_8192_SHA384,
        Algorithm::PS512 => &signature::RSA_PSS_2048_8192_SHA512,
        _ => return Err(mismatch_internal(alg, kind)),
    })
}

fn mismatch_internal(alg: Algorithm, kind: KeyType) -> Error {
    Error::new(
        ErrorCode::KeyAlgorithmMismatch,
        format!("{alg} needs {}; this key is {}", alg.needs(), kind.name()),
    )
}

#[cfg(feature = "native-algs")]
fn native_verify(alg: Algorithm, key: &PublicKey, msg: &[u8], sig: &[u8]) -> Result<(), Error> {
    native::verify(alg, &key.to_spki_der(), msg, sig)
}

#[cfg(not(feature = "native-algs"))]
fn native_verify(alg: Algorithm, key: &PublicKey, _msg: &[u8], _sig: &[u8]) -> Result<(), Error> {
    let _ = alg;
    Err(unavailable(key.key_type().name()))
}

fn hmac_params(alg: Algorithm) -> Result<(ring::hmac::Algorithm, usize), Error> {
    match alg {
        Algorithm::HS256 => Ok((ring::hmac::HMAC_SHA256, 32)),
        Algorithm::HS384 => Ok((ring::hmac::HMAC_SHA384, 48)),
        Algorithm::HS512 => Ok((ring::hmac::HMAC_SHA512, 64)),
        other => Err(Error::new(
            ErrorCode::KeyAlgorithmMismatch,
            format!("{other} is not an HMAC algorithm; a shared secret only fits HS256, HS384 or HS512"),
        )),
    }
}

fn hmac_key(alg: Algorithm, secret: &[u8]) -> Result<ring::hmac::Key, Error> {
    let (h, min) = hmac_params(alg)?;
    if secret.len() < min {
        return Err(Error::new(
            ErrorCode::WeakKey,
            format!(
                "{alg} needs a secret of at least {min} bytes (the hash output size, RFC 7518 \
                 section 3.2); this one is {} bytes",
                secret.len()
            ),
        ));
    }
    Ok(ring::hmac::Key::new(h, secret))
}

/// Computes an HMAC (HS256, HS384 or HS512) over `msg` with an explicit shared secret.
///
/// The secret must be at least as long as the hash output (32, 48 or 64 bytes), else
/// `weak-key`; a non-HMAC algorithm fails with `key-algorithm-mismatch`.
///
/// ```
/// use a2a_card::Algorithm;
/// use a2a_card::jose::crypto::{sign_hmac};
/// let tag = sign_hmac(Algorithm::HS256, &[7u8; 32], b"m").unwrap();
/// assert_eq!(tag.len(), 32);
/// assert_eq!(sign_hmac(Algorithm::HS256, b"short", b"m").unwrap_err().code().as_str(), "weak-key");
/// ```
pub fn sign_hmac(alg: Algorithm, secret: &[u8], msg: &[u8]) -> Result<Vec<u8>, Error> {
    let key = hmac_key(alg, secret)?;
    Ok(ring::hmac::sign(&key, msg).as_ref().to_vec())
}

/// Checks an HMAC tag in constant time (`signature-invalid` when it does not match).
///
/// ```
/// use a2a_card::Algorithm;
/// use a2a_card::jose::crypto::{sign_hmac, verify_hmac};
/// let secret = [9u8; 64];
/// let tag = sign_hmac(Algorithm::HS512, &secret, b"m").unwrap();
/// assert!(verify_hmac(Algorithm::HS512, &secret, b"m", &tag).is_ok());
/// assert!(verify_hmac(Algorithm::HS512, &secret, b"M", &tag).is_err());
/// ```
pub fn verify_hmac(alg: Algorithm, secret: &[u8], msg: &[u8], sig: &[u8]) -> Result<(), Error> {
    let key = hmac_key(alg, secret)?;
    ring::hmac::verify(&key, msg, sig).map_err(|_| invalid(format!("the {alg} tag does not match")))
}
