//! The kinds of asymmetric key ([`KeyType`]) and which algorithm fits which.

use crate::error::{Error, ErrorCode};
use crate::jose::algorithm::Algorithm;
use crate::jose::der::oid;
use std::fmt;

/// The kind of an asymmetric key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyType {
    /// Ed25519 (JWK `kty` OKP, `crv` Ed25519).
    Ed25519,
    /// Ed448 (JWK `kty` OKP, `crv` Ed448); needs the `native-algs` feature to sign or verify.
    Ed448,
    /// NIST P-256 (JWK `crv` P-256).
    P256,
    /// NIST P-384 (JWK `crv` P-384).
    P384,
    /// NIST P-521 (JWK `crv` P-521); needs the `native-algs` feature to sign or verify.
    P521,
    /// secp256k1 (JWK `crv` secp256k1, RFC 8812); needs the `native-algs` feature.
    Secp256k1,
    /// RSA with a modulus of `bits` bits.
    Rsa {
        /// The modulus length in bits (at least 2048 for a loaded key).
        bits: u32,
    },
}

impl KeyType {
    /// One key type of each kind, in this order (RSA stands with `bits: 0`: its size does not
    /// change what it is).
    ///
    /// ```
    /// use a2a_card::jose::keys::KeyType;
    /// let names: Vec<&str> = KeyType::KINDS.iter().map(|k| k.name()).collect();
    /// assert_eq!(names, ["Ed25519", "Ed448", "P-256", "P-384", "P-521", "secp256k1", "RSA"]);
    /// ```
    pub const KINDS: [KeyType; 7] = [
        KeyType::Ed25519,
        KeyType::Ed448,
        KeyType::P256,
        KeyType::P384,
        KeyType::P521,
        KeyType::Secp256k1,
        KeyType::Rsa { bits: 0 },
    ];

    /// The JWK `kty`: `OKP`, `EC` or `RSA`.
    ///
    /// ```
    /// assert_eq!(a2a_card::jose::keys::KeyType::Secp256k1.kty(), "EC");
    /// ```
    pub fn kty(self) -> &'static str {
        match self {
            KeyType::Ed25519 | KeyType::Ed448 => "OKP",
            KeyType::P256 | KeyType::P384 | KeyType::P521 | KeyType::Secp256k1 => "EC",
            KeyType::Rsa { .. } => "RSA",
        }
    }

    /// The JWK `crv`, for OKP and EC keys.
    ///
    /// ```
    /// use a2a_card::jose::keys::KeyType;
    /// assert_eq!(KeyType::P521.crv(), Some("P-521"));
    /// assert_eq!(KeyType::Rsa { bits: 2048 }.crv(), None);
    /// ```
    pub fn crv(self) -> Option<&'static str> {
        match self {
            KeyType::Ed25519 => Some("Ed25519"),
            KeyType::Ed448 => Some("Ed448"),
            KeyType::P256 => Some("P-256"),
            KeyType::P384 => Some("P-384"),
            KeyType::P521 => Some("P-521"),
            KeyType::Secp256k1 => Some("secp256k1"),
            KeyType::Rsa { .. } => None,
        }
    }

    /// A short name for messages: the curve, or `RSA`.
    pub fn name(self) -> &'static str {
        self.crv().unwrap_or("RSA")
    }

    /// The RSA modulus length in bits, 0 for other keys.
    pub fn bits(self) -> u32 {
        match self {
            KeyType::Rsa { bits } => bits,
            _ => 0,
        }
    }

    /// The algorithm a key of this type signs with unless told otherwise: Ed25519 and Ed448 ->
    /// EdDSA, P-256 -> ES256, P-384 -> ES384, P-521 -> ES512, secp256k1 -> ES256K, RSA -> RS256.
    ///
    /// ```
    /// use a2a_card::{Algorithm, KeyType};
    /// assert_eq!(KeyType::Rsa { bits: 3072 }.default_algorithm(), Algorithm::RS256);
    /// ```
    pub fn default_algorithm(self) -> Algorithm {
        match self {
            KeyType::Ed25519 | KeyType::Ed448 => Algorithm::EdDSA,
            KeyType::P256 => Algorithm::ES256,
            KeyType::P384 => Algorithm::ES384,
            KeyType::P521 => Algorithm::ES512,
            KeyType::Secp256k1 => Algorithm::ES256K,
            KeyType::Rsa { .. } => Algorithm::RS256,
        }
    }

    /// True when `alg` can be used with a key of this type. No HMAC algorithm fits any key.
    ///
    /// ```
    /// use a2a_card::{Algorithm, KeyType};
    /// assert!(KeyType::Rsa { bits: 2048 }.fits(Algorithm::PS512));
    /// assert!(!KeyType::P256.fits(Algorithm::ES384));
    /// assert!(!KeyType::P256.fits(Algorithm::HS256));
    /// ```
    pub fn fits(self, alg: Algorithm) -> bool {
        match alg {
            Algorithm::EdDSA => matches!(self, KeyType::Ed25519 | KeyType::Ed448),
            Algorithm::ES256 => self == KeyType::P256,
            Algorithm::ES384 => self == KeyType::P384,
            Algorithm::ES512 => self == KeyType::P521,
            Algorithm::ES256K => self == KeyType::Secp256k1,
            Algorithm::RS256
            | Algorithm::RS384
            | Algorithm::RS512
            | Algorithm::PS256
            | Algorithm::PS384
            | Algorithm::PS512 => matches!(self, KeyType::Rsa { .. }),
            Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512 => false,
        }
    }

    /// True when this build can sign and verify with keys of this type (Ed448, P-521 and
    /// secp256k1 need the `native-algs` feature).
    ///
    /// ```
    /// use a2a_card::jose::keys::KeyType;
    /// assert!(KeyType::Ed25519.available());
    /// assert_eq!(KeyType::Ed448.available(), cfg!(feature = "native-algs"));
    /// ```
    pub fn available(self) -> bool {
        cfg!(feature = "native-algs") || !matches!(self, KeyType::Ed448 | KeyType::P521 | KeyType::Secp256k1)
    }

    /// True when this build can generate keys of this type: Ed25519, P-256 and P-384 always
    /// (ring); RSA, P-521, secp256k1 and Ed448 with the `native-algs` feature (josekit).
    ///
    /// ```
    /// use a2a_card::jose::keys::KeyType;
    /// assert!(KeyType::P256.can_generate());
    /// assert_eq!(KeyType::Rsa { bits: 2048 }.can_generate(), cfg!(feature = "native-algs"));
    /// ```
    pub fn can_generate(self) -> bool {
        cfg!(feature = "native-algs") || matches!(self, KeyType::Ed25519 | KeyType::P256 | KeyType::P384)
    }

    /// Length of an EC coordinate or scalar, or of an OKP key, in bytes.
    pub(super) fn field_len(self) -> usize {
        match self {
            KeyType::Ed25519 | KeyType::P256 | KeyType::Secp256k1 => 32,
            KeyType::P384 => 48,
            KeyType::Ed448 => 57,
            KeyType::P521 => 66,
            KeyType::Rsa { .. } => 0,
        }
    }

    pub(super) fn curve_oid(self) -> &'static [u8] {
        match self {
            KeyType::Ed25519 => oid::ED25519,
            KeyType::Ed448 => oid::ED448,
            KeyType::P256 => oid::P256,
            KeyType::P384 => oid::P384,
            KeyType::P521 => oid::P521,
            KeyType::Secp256k1 => oid::SECP256K1,
            KeyType::Rsa { .. } => oid::RSA,
        }
    }

    pub(super) fn from_crv(crv: &str) -> Option<KeyType> {
        [
            KeyType::Ed25519,
            KeyType::Ed448,
            KeyType::P256,
            KeyType::P384,
            KeyType::P521,
            KeyType::Secp256k1,
        ]
        .into_iter()
        .find(|k| k.crv() == Some(crv))
    }

    pub(super) fn from_ec_oid(o: &[u8]) -> Option<KeyType> {
        [KeyType::P256, KeyType::P384, KeyType::P521, KeyType::Secp256k1]
            .into_iter()
            .find(|k| k.curve_oid() == o)
    }
}

impl fmt::Display for KeyType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyType::Rsa { bits } => write!(f, "RSA-{bits}"),
            other => f.write_str(other.name()),
        }
    }
}

pub(super) fn check_fit(kind: KeyType, declared: Option<Algorithm>, alg: Algorithm) -> Result<(), Error> {
    if alg.is_hmac() {
        return Err(Error::new(
            ErrorCode::KeyAlgorithmMismatch,
            format!(
                "{alg} is an HMAC algorithm: it never fits an asymmetric key (a {kind} key here); \
                 HMAC secrets are passed explicitly"
            ),
        ));
    }
    if !kind.fits(alg) {
        return Err(Error::new(
            ErrorCode::KeyAlgorithmMismatch,
            format!("{alg} needs {}; this key is {kind}", alg.needs()),
        ));
    }
    if let Some(declared) = declared {
        if declared != alg {
            return Err(Error::new(
                ErrorCode::KeyAlgorithmMismatch,
                format!("the key is declared for {declared} (its JWK \"alg\"), not for {alg}"),
            ));
        }
    }
    Ok(())
}
