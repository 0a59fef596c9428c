//! Generating key pairs: ring for Ed25519, P-256 and P-384 (every target), josekit (OpenSSL)
//! for RSA, P-521, secp256k1 and Ed448 on native builds.

use super::kind::KeyType;
use super::pkcs8::parse_private_der;
use super::private::PrivateKey;
use super::public::weak_rsa;
use crate::error::{Error, ErrorCode};
use crate::jose::algorithm::Algorithm;

/// The choices a key generator offers besides the algorithm (what `a2a-card keygen` and the
/// library bindings take): the RSA modulus length, the EdDSA curve and the `kid`. The default
/// is the algorithm's own key (RSA 2048, Ed25519) with its RFC 7638 thumbprint as `kid`.
///
/// ```
/// use a2a_card::jose::keys::{GenerateOptions, KeyType, PrivateKey};
/// use a2a_card::Algorithm;
/// let opts = GenerateOptions { kid: Some("release-2026".into()), ..Default::default() };
/// let key = PrivateKey::generate_with(Algorithm::ES256, &opts).unwrap();
/// assert_eq!((key.kid(), key.key_type()), ("release-2026", KeyType::P256));
/// let rsa_for_ec = GenerateOptions { rsa_bits: Some(3072), ..Default::default() };
/// let e = PrivateKey::generate_with(Algorithm::ES256, &rsa_for_ec).unwrap_err();
/// assert_eq!(e.code().as_str(), "usage");
/// assert_eq!(e.message(), "an RSA modulus length is for RSA algorithms (RS256..PS512), not ES256");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GenerateOptions {
    /// The RSA modulus length: 2048 (the default), 3072 or 4096; RS256..PS512 only.
    pub rsa_bits: Option<u32>,
    /// The curve for EdDSA: `Ed25519` (the default) or `Ed448`; EdDSA only.
    pub curve: Option<String>,
    /// The `kid` (not empty); by default the RFC 7638 thumbprint of the public key.
    pub kid: Option<String>,
}

impl GenerateOptions {
    /// Refuses choices that do not fit `alg` (an RSA length for a non-RSA algorithm, a curve
    /// for anything but EdDSA or other than Ed25519 and Ed448, an empty `kid`) with `usage`,
    /// before any key is made: a caller that must check its outputs first can call this before.
    ///
    /// ```
    /// use a2a_card::jose::keys::GenerateOptions;
    /// use a2a_card::Algorithm;
    /// let ed448 = GenerateOptions { curve: Some("Ed448".into()), ..Default::default() };
    /// assert!(ed448.check(Algorithm::EdDSA).is_ok());
    /// assert_eq!(ed448.check(Algorithm::ES256).unwrap_err().message(), "a curve is for EdDSA, not ES256");
    /// ```
    pub fn check(&self, alg: Algorithm) -> Result<(), Error> {
        let usage = |m: String| Err(Error::new(ErrorCode::Usage, m));
        let rsa = KeyType::Rsa { bits: 2048 }.fits(alg);
        if self.rsa_bits.is_some() && !rsa {
            return usage(format!(
                "an RSA modulus length is for RSA algorithms (RS256..PS512), not {alg}"
            ));
        }
        if let Some(curve) = &self.curve {
            if alg != Algorithm::EdDSA {
                return usage(format!("a curve is for EdDSA, not {alg}"));
            }
            if curve != "Ed25519" && curve != "Ed448" {
                return usage(format!("curve {curve:?} is not one of \"Ed25519\", \"Ed448\""));
            }
        }
        if let Some(kid) = &self.kid {
            check_kid(kid)?;
        }
        Ok(())
    }
}

/// The rule for a `kid` a caller chooses (to generate, sign, or relabel a key): not empty.
/// Refused with `usage`; callers name the option it came from.
///
/// ```
/// use a2a_card::jose::keys::check_kid;
/// assert!(check_kid("release-2026").is_ok());
/// assert_eq!(check_kid("").unwrap_err().message(), "the kid must not be empty");
/// ```
pub fn check_kid(kid: &str) -> Result<(), Error> {
    if kid.is_empty() {
        return Err(Error::new(ErrorCode::Usage, "the kid must not be empty"));
    }
    Ok(())
}

impl PrivateKey {
    /// Generates a key for `alg` with the choices of `opts` (see [`GenerateOptions`]); the key
    /// declares `alg`.
    pub fn generate_with(alg: Algorithm, opts: &GenerateOptions) -> Result<PrivateKey, Error> {
        opts.check(alg)?;
        let key = match (opts.rsa_bits, opts.curve.as_deref()) {
            (Some(bits), _) => PrivateKey::generate_rsa(bits)?.with_alg(Some(alg))?,
            (None, Some("Ed448")) => PrivateKey::generate_of_type(KeyType::Ed448)?.with_alg(Some(alg))?,
            _ => PrivateKey::generate(alg)?,
        };
        Ok(match &opts.kid {
            Some(kid) => key.with_kid(kid.clone()),
            None => key,
        })
    }

    /// Generates a key for `alg` and declares it for that algorithm: EdDSA -> Ed25519, ES256,
    /// ES384 (ring, all targets); ES512, ES256K and RS*/PS* (RSA 2048) through josekit on
    /// native builds. HS* fails with `key-algorithm-mismatch` (HMAC uses a shared secret).
    ///
    /// ```
    /// use a2a_card::{Algorithm, jose::keys::{KeyType, PrivateKey}};
    /// let key = PrivateKey::generate(Algorithm::ES256).unwrap();
    /// assert_eq!(key.key_type(), KeyType::P256);
    /// assert_eq!(key.kid(), key.public().thumbprint());
    /// ```
    pub fn generate(alg: Algorithm) -> Result<PrivateKey, Error> {
        let kind = match alg {
            Algorithm::EdDSA => KeyType::Ed25519,
            Algorithm::ES256 => KeyType::P256,
            Algorithm::ES384 => KeyType::P384,
            Algorithm::ES512 => KeyType::P521,
            Algorithm::ES256K => KeyType::Secp256k1,
            Algorithm::RS256
            | Algorithm::RS384
            | Algorithm::RS512
            | Algorithm::PS256
            | Algorithm::PS384
            | Algorithm::PS512 => KeyType::Rsa { bits: 2048 },
            Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512 => {
                return Err(Error::new(
                    ErrorCode::KeyAlgorithmMismatch,
                    format!("{alg} uses a shared secret, not a key pair; generate random bytes instead"),
                ))
            }
        };
        let mut key = PrivateKey::generate_of_type(kind)?;
        key.public.alg = Some(alg);
        Ok(key)
    }

    /// Generates an RSA key of 2048, 3072 or 4096 bits (native builds; `weak-key` under 2048).
    pub fn generate_rsa(bits: u32) -> Result<PrivateKey, Error> {
        PrivateKey::generate_of_type(KeyType::Rsa { bits })
    }

    /// Generates a key of the given type (no `alg` declared).
    ///
    /// ```
    /// use a2a_card::jose::keys::{KeyType, PrivateKey};
    /// let key = PrivateKey::generate_of_type(KeyType::P384).unwrap();
    /// assert_eq!(key.public().alg(), None);
    /// ```
    pub fn generate_of_type(kind: KeyType) -> Result<PrivateKey, Error> {
        let rng = ring::rand::SystemRandom::new();
        let gen_failed = || Error::new(ErrorCode::InvalidKey, format!("{kind} key generation failed"));
        match kind {
            KeyType::Ed25519 => {
                let doc = ring::signature::Ed25519KeyPair::generate_pkcs8(&rng).map_err(|_| gen_failed())?;
                parse_private_der(doc.as_ref(), None)
            }
            KeyType::P256 | KeyType::P384 => {
                let alg = if kind == KeyType::P256 {
                    &ring::signature::ECDSA_P256_SHA256_FIXED_SIGNING
                } else {
                    &ring::signature::ECDSA_P384_SHA384_FIXED_SIGNING
                };
                let doc =
                    ring::signature::EcdsaKeyPair::generate_pkcs8(alg, &rng).map_err(|_| gen_failed())?;
                parse_private_der(doc.as_ref(), None)
            }
            KeyType::Rsa { bits } => {
                if bits < 2048 {
                    return Err(weak_rsa(bits));
                }
                if ![2048, 3072, 4096].contains(&bits) {
                    return Err(Error::new(
                        ErrorCode::InvalidKey,
                        format!("RSA keys are generated with 2048, 3072 or 4096 bits, not {bits}"),
                    ));
                }
                #[cfg(feature = "native-algs")]
                {
                    parse_private_der(&crate::jose::native::generate_rsa(bits)?, None)
                }
                #[cfg(not(feature = "native-algs"))]
                {
                    Err(crate::jose::native::unavailable("RSA key generation"))
                }
            }
            KeyType::P521 | KeyType::Secp256k1 | KeyType::Ed448 => {
                #[cfg(feature = "native-algs")]
                {
                    let der = if kind == KeyType::Ed448 {
                        crate::jose::native::generate_ed448()?
                    } else {
                        crate::jose::native::generate_ec(kind == KeyType::P521)?
                    };
                    parse_private_der(&der, Some(kind))
                }
                #[cfg(not(feature = "native-algs"))]
                {
                    Err(crate::jose::native::unavailable(kind.name()))
                }
            }
        }
    }
}
