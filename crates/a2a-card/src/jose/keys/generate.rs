//! Generating key pairs: ring for Ed25519, P-256 and P-384 (every target), josekit (OpenSSL)
//! for RSA, P-521, secp256k1 and Ed448 on native builds.

use super::kind::KeyType;
use super::pkcs8::parse_private_der;
use super::private::PrivateKey;
use super::public::weak_rsa;
use crate::error::{Error, ErrorCode};
use crate::jose::algorithm::Algorithm;

impl PrivateKey {
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
                    parse_private_der(&crate::jose::crypto::native::generate_rsa(bits)?, None)
                }
                #[cfg(not(feature = "native-algs"))]
                {
                    Err(crate::jose::crypto::unavailable("RSA key generation"))
                }
            }
            KeyType::P521 | KeyType::Secp256k1 | KeyType::Ed448 => {
                #[cfg(feature = "native-algs")]
                {
                    let der = if kind == KeyType::Ed448 {
                        crate::jose::crypto::native::generate_ed448()?
                    } else {
                        crate::jose::crypto::native::generate_ec(kind == KeyType::P521)?
                    };
                    parse_private_der(&der, Some(kind))
                }
                #[cfg(not(feature = "native-algs"))]
                {
                    Err(crate::jose::crypto::unavailable(kind.name()))
                }
            }
        }
    }
}
