//! JWS algorithm names (RFC 7518, RFC 8037, RFC 8812): which exist, which this build runs, and
//! the key each one needs. The operations are in [`super::crypto`].

use crate::error::{Error, ErrorCode};
use std::fmt;

/// A JWS `alg` value this toolkit knows. `none` is not one of them and never will be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Algorithm {
    /// EdDSA (RFC 8037): Ed25519, or Ed448 with the `native-algs` feature.
    EdDSA,
    /// ECDSA with P-256 and SHA-256; 64-byte raw r||s signatures.
    ES256,
    /// ECDSA with P-384 and SHA-384; 96-byte raw r||s signatures.
    ES384,
    /// ECDSA with P-521 and SHA-512; 132-byte raw r||s signatures (`native-algs`).
    ES512,
    /// ECDSA with secp256k1 and SHA-256 (RFC 8812); 64-byte raw r||s (`native-algs`).
    ES256K,
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    RS256,
    /// RSASSA-PKCS1-v1_5 with SHA-384.
    RS384,
    /// RSASSA-PKCS1-v1_5 with SHA-512.
    RS512,
    /// RSASSA-PSS with SHA-256, MGF1 with SHA-256, 32-byte salt.
    PS256,
    /// RSASSA-PSS with SHA-384, MGF1 with SHA-384, 48-byte salt.
    PS384,
    /// RSASSA-PSS with SHA-512, MGF1 with SHA-512, 64-byte salt.
    PS512,
    /// HMAC with SHA-256 (explicit shared secret only).
    HS256,
    /// HMAC with SHA-384 (explicit shared secret only).
    HS384,
    /// HMAC with SHA-512 (explicit shared secret only).
    HS512,
}

impl Algorithm {
    /// Every algorithm, in declaration order.
    pub const ALL: &'static [Algorithm] = &[
        Algorithm::EdDSA,
        Algorithm::ES256,
        Algorithm::ES384,
        Algorithm::ES512,
        Algorithm::ES256K,
        Algorithm::RS256,
        Algorithm::RS384,
        Algorithm::RS512,
        Algorithm::PS256,
        Algorithm::PS384,
        Algorithm::PS512,
        Algorithm::HS256,
        Algorithm::HS384,
        Algorithm::HS512,
    ];

    /// The algorithm with this exact (case-sensitive) JWS name.
    ///
    /// `none` and every unknown name fail with `unknown-algorithm`.
    ///
    /// ```
    /// use a2a_card::Algorithm;
    /// assert_eq!(Algorithm::from_name("ES256K").unwrap(), Algorithm::ES256K);
    /// let err = Algorithm::from_name("none").unwrap_err();
    /// assert_eq!(err.code().as_str(), "unknown-algorithm");
    /// assert!(err.message().contains("never accepted"));
    /// assert!(Algorithm::from_name("es256").is_err()); // names are case-sensitive
    /// ```
    pub fn from_name(name: &str) -> Result<Algorithm, Error> {
        if let Some(alg) = Self::ALL.iter().copied().find(|a| a.as_str() == name) {
            return Ok(alg);
        }
        let message = if name.eq_ignore_ascii_case("none") {
            format!("algorithm {name:?} (unsecured JWS) is never accepted")
        } else if let Some(alg) = Self::ALL.iter().find(|a| a.as_str().eq_ignore_ascii_case(name)) {
            format!(
                "unknown algorithm {name:?}; algorithm names are case-sensitive (did you mean {:?}?)",
                alg.as_str()
            )
        } else {
            format!(
                "unknown algorithm {name:?}; supported: {} (and \"none\" is never accepted)",
                Self::names()
            )
        };
        Err(Error::new(ErrorCode::UnknownAlgorithm, message))
    }

    /// The names of this build's algorithms, comma-separated, for messages.
    ///
    /// ```
    /// assert!(a2a_card::Algorithm::names().starts_with("EdDSA, "));
    /// ```
    pub fn names() -> String {
        Self::ALL
            .iter()
            .map(|a| a.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Whether `name` is an algorithm's name in some case, or `none`: a name a message may
    /// repeat, as text that is no algorithm's may be a piece of key material.
    ///
    /// ```
    /// use a2a_card::Algorithm;
    /// assert!(Algorithm::is_known_name("es256") && Algorithm::is_known_name("None"));
    /// assert!(!Algorithm::is_known_name("MIIEvQ"));
    /// ```
    pub fn is_known_name(name: &str) -> bool {
        name.eq_ignore_ascii_case("none") || Self::ALL.iter().any(|a| a.as_str().eq_ignore_ascii_case(name))
    }

    /// The JWS name (`"ES256"`, `"EdDSA"`, ...).
    ///
    /// ```
    /// assert_eq!(a2a_card::Algorithm::PS384.as_str(), "PS384");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Algorithm::EdDSA => "EdDSA",
            Algorithm::ES256 => "ES256",
            Algorithm::ES384 => "ES384",
            Algorithm::ES512 => "ES512",
            Algorithm::ES256K => "ES256K",
            Algorithm::RS256 => "RS256",
            Algorithm::RS384 => "RS384",
            Algorithm::RS512 => "RS512",
            Algorithm::PS256 => "PS256",
            Algorithm::PS384 => "PS384",
            Algorithm::PS512 => "PS512",
            Algorithm::HS256 => "HS256",
            Algorithm::HS384 => "HS384",
            Algorithm::HS512 => "HS512",
        }
    }

    /// True for HS256, HS384 and HS512.
    ///
    /// ```
    /// assert!(a2a_card::Algorithm::HS384.is_hmac());
    /// assert!(!a2a_card::Algorithm::ES384.is_hmac());
    /// ```
    pub fn is_hmac(self) -> bool {
        matches!(self, Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512)
    }

    /// True when this build can sign and verify with the algorithm: everything except ES512
    /// and ES256K needs nothing more than `ring`; those two need the `native-algs` feature.
    /// (EdDSA with an Ed448 key needs it too: see [`crate::KeyType::available`].)
    ///
    /// ```
    /// use a2a_card::Algorithm;
    /// assert!(Algorithm::ES256.available());
    /// assert_eq!(Algorithm::ES512.available(), cfg!(feature = "native-algs"));
    /// ```
    pub fn available(self) -> bool {
        cfg!(feature = "native-algs") || !matches!(self, Algorithm::ES512 | Algorithm::ES256K)
    }

    /// The names of the algorithms this build signs and verifies with by a key pair (every
    /// [`Algorithm::available`] one but HMAC), in declaration order: what the front ends list.
    ///
    /// ```
    /// assert_eq!(a2a_card::Algorithm::asymmetric_names()[..3], ["EdDSA", "ES256", "ES384"]);
    /// ```
    pub fn asymmetric_names() -> Vec<&'static str> {
        let offered = Algorithm::ALL.iter().filter(|a| a.available() && !a.is_hmac());
        offered.map(|a| a.as_str()).collect()
    }

    /// The exact signature length in bytes where the algorithm fixes it (ECDSA r||s and HMAC).
    /// EdDSA depends on the curve (64 for Ed25519, 114 for Ed448) and RSA on the modulus.
    ///
    /// ```
    /// use a2a_card::Algorithm;
    /// assert_eq!(Algorithm::ES512.signature_len(), Some(132));
    /// assert_eq!(Algorithm::RS256.signature_len(), None);
    /// ```
    pub fn signature_len(self) -> Option<usize> {
        match self {
            Algorithm::ES256 | Algorithm::ES256K => Some(64),
            Algorithm::HS256 => Some(32),
            Algorithm::ES384 => Some(96),
            Algorithm::ES512 => Some(132),
            Algorithm::HS384 => Some(48),
            Algorithm::HS512 => Some(64),
            _ => None,
        }
    }

    /// The key type an algorithm is normally used with, for messages. RSA and EdDSA name the
    /// family.
    pub(crate) fn needs(self) -> &'static str {
        match self {
            Algorithm::EdDSA => "an Ed25519 or Ed448 (OKP) key",
            Algorithm::ES256 => "a P-256 key",
            Algorithm::ES384 => "a P-384 key",
            Algorithm::ES512 => "a P-521 key",
            Algorithm::ES256K => "a secp256k1 key",
            Algorithm::RS256
            | Algorithm::RS384
            | Algorithm::RS512
            | Algorithm::PS256
            | Algorithm::PS384
            | Algorithm::PS512 => "an RSA key",
            Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512 => "an explicit shared secret",
        }
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Algorithm {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        Algorithm::from_name(s)
    }
}
