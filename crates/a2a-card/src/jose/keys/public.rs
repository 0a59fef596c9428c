//! Public keys: their material, `kid`, declared `alg` and RFC 7638 thumbprint, and the checks
//! every public point or modulus passes whatever container it came in.

use super::curve;
use super::kind::{check_fit, KeyType};
use crate::error::{Error, ErrorCode};
use crate::jose::algorithm::Algorithm;
use crate::jose::der::oid;
use crate::jose::{b64, der};
use std::fmt;

/// The public key material, big-endian and fixed-length as in a JWK.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PublicMaterial {
    /// An Ed25519 (32 bytes) or Ed448 (57 bytes) public key.
    Okp {
        /// The encoded point.
        x: Vec<u8>,
    },
    /// An EC point; both coordinates have the full field length (32, 48 or 66 bytes).
    Ec {
        /// The x coordinate.
        x: Vec<u8>,
        /// The y coordinate.
        y: Vec<u8>,
    },
    /// An RSA public key, both numbers without leading zero bytes.
    Rsa {
        /// The modulus.
        n: Vec<u8>,
        /// The public exponent.
        e: Vec<u8>,
    },
}

/// A verification key: its type, its material, a `kid` (from the JWK, else the RFC 7638
/// thumbprint) and the JWK `alg` when one was given.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PublicKey {
    pub(super) kind: KeyType,
    pub(super) material: PublicMaterial,
    pub(super) kid: String,
    pub(super) alg: Option<Algorithm>,
    /// The RFC 7638 thumbprint, computed once when the key is read (a function of `kind` and
    /// `material`, which never change after that): verification reports it for every
    /// signature, and a SHA-256 per report is not free.
    pub(super) thumbprint: String,
}

/// The RFC 7638 thumbprint of a public key's required members.
pub(super) fn compute_thumbprint(kind: KeyType, material: &PublicMaterial) -> String {
    // Required members only, in lexicographic order, no whitespace (RFC 7638 section 3.2).
    // All values are base64url or fixed names, so no JSON escaping is needed.
    let json = match material {
        PublicMaterial::Okp { x } => format!(
            r#"{{"crv":"{}","kty":"OKP","x":"{}"}}"#,
            kind.name(),
            b64::encode(x)
        ),
        PublicMaterial::Ec { x, y } => format!(
            r#"{{"crv":"{}","kty":"EC","x":"{}","y":"{}"}}"#,
            kind.name(),
            b64::encode(x),
            b64::encode(y)
        ),
        PublicMaterial::Rsa { n, e } => format!(
            r#"{{"e":"{}","kty":"RSA","n":"{}"}}"#,
            b64::encode(e),
            b64::encode(n)
        ),
    };
    b64::encode(ring::digest::digest(&ring::digest::SHA256, json.as_bytes()))
}

impl PublicKey {
    /// Builds a key from validated parts; the kid defaults to the thumbprint.
    pub(super) fn assemble(
        kind: KeyType,
        material: PublicMaterial,
        kid: Option<String>,
        alg: Option<Algorithm>,
    ) -> PublicKey {
        let thumbprint = compute_thumbprint(kind, &material);
        PublicKey {
            kind,
            material,
            kid: kid.unwrap_or_else(|| thumbprint.clone()),
            alg,
            thumbprint,
        }
    }

    /// The key type.
    pub fn key_type(&self) -> KeyType {
        self.kind
    }

    /// The key material.
    pub fn material(&self) -> &PublicMaterial {
        &self.material
    }

    /// The key id: the JWK's `kid`, else the RFC 7638 thumbprint.
    pub fn kid(&self) -> &str {
        &self.kid
    }

    /// The JWK `alg`, when the key declared one.
    pub fn alg(&self) -> Option<Algorithm> {
        self.alg
    }

    /// The same key under another `kid`.
    pub fn with_kid(mut self, kid: impl Into<String>) -> PublicKey {
        self.kid = kid.into();
        self
    }

    /// The same key declared for one algorithm (or for none). Fails with
    /// `key-algorithm-mismatch` when the algorithm does not fit the key type.
    pub fn with_alg(mut self, alg: Option<Algorithm>) -> Result<PublicKey, Error> {
        if let Some(a) = alg {
            check_fit(self.kind, None, a)?;
        }
        self.alg = alg;
        Ok(self)
    }

    /// The algorithm to use with this key: its JWK `alg` if it has one, else the default of its
    /// type ([`KeyType::default_algorithm`]).
    pub fn default_algorithm(&self) -> Algorithm {
        self.alg.unwrap_or_else(|| self.kind.default_algorithm())
    }

    /// Fails with `key-algorithm-mismatch` when `alg` does not fit this key: wrong family or
    /// curve, any HMAC algorithm, or an algorithm other than the one the JWK declared.
    ///
    /// ```
    /// use a2a_card::{Algorithm, PublicKey};
    /// let key = PublicKey::parse(r#"{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#).unwrap();
    /// assert!(key.check_algorithm(Algorithm::EdDSA).is_ok());
    /// assert_eq!(key.check_algorithm(Algorithm::ES256).unwrap_err().code().as_str(), "key-algorithm-mismatch");
    /// ```
    pub fn check_algorithm(&self, alg: Algorithm) -> Result<(), Error> {
        check_fit(self.kind, self.alg, alg)
    }

    /// The RFC 7638 JWK thumbprint (SHA-256, base64url).
    ///
    /// ```
    /// // RFC 7638 section 3.1.
    /// let key = a2a_card::jose::keys::PublicKey::parse(r#"{"kty":"RSA","e":"AQAB","alg":"RS256","kid":"2011-04-29",
    ///  "n":"0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"}"#).unwrap();
    /// assert_eq!(key.thumbprint(), "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs");
    /// assert_eq!(key.kid(), "2011-04-29");
    /// ```
    pub fn thumbprint(&self) -> String {
        self.thumbprint.clone()
    }

    /// [`Self::thumbprint`], borrowed.
    pub fn thumbprint_str(&self) -> &str {
        &self.thumbprint
    }

    /// The DER SubjectPublicKeyInfo.
    pub fn to_spki_der(&self) -> Vec<u8> {
        let (alg_id, key_bits) = match &self.material {
            PublicMaterial::Okp { x } => (der::algorithm_identifier(self.kind.curve_oid(), None), x.clone()),
            PublicMaterial::Ec { x, y } => {
                let curve = der::tlv(der::TAG_OID, self.kind.curve_oid());
                let mut point = Vec::with_capacity(1 + x.len() + y.len());
                point.push(4);
                point.extend_from_slice(x);
                point.extend_from_slice(y);
                (der::algorithm_identifier(oid::EC_PUBLIC_KEY, Some(&curve)), point)
            }
            PublicMaterial::Rsa { n, e } => {
                let null = der::tlv(der::TAG_NULL, &[]);
                (
                    der::algorithm_identifier(oid::RSA, Some(&null)),
                    der::sequence(&[&der::uint(n), &der::uint(e)]),
                )
            }
        };
        der::sequence(&[&alg_id, &der::bit_string(der::TAG_BIT_STRING, &key_bits)])
    }
}

/// Where key parts came from: decides between `invalid-key` and `jwk-inconsistent`.
#[derive(Clone, Copy)]
pub(super) enum Src<'a> {
    Der,
    Jwk(&'a str),
}

impl Src<'_> {
    pub(super) fn inconsistent(self, member: &str, message: impl fmt::Display) -> Error {
        match self {
            Src::Der => Error::new(ErrorCode::InvalidKey, message.to_string()),
            Src::Jwk(prefix) => Error::new(
                ErrorCode::JwkInconsistent,
                format!("JWK member \"{member}\": {message}"),
            )
            .at(format!("{prefix}/{member}")),
        }
    }

    pub(super) fn invalid(self, member: &str, message: impl fmt::Display) -> Error {
        match self {
            Src::Der => Error::new(ErrorCode::InvalidKey, message.to_string()),
            Src::Jwk(prefix) => Error::new(
                ErrorCode::InvalidKey,
                format!("JWK member \"{member}\": {message}"),
            )
            .at(format!("{prefix}/{member}")),
        }
    }
}

pub(super) fn weak_rsa(bits: u32) -> Error {
    Error::new(
        ErrorCode::WeakKey,
        format!("RSA key of {bits} bits refused: at least 2048 bits are required"),
    )
}

/// A small-order Edwards point as a public key: under it a fixed signature verifies for any
/// card (see `curve::okp_small_order`).
pub(super) fn weak_okp(kind: KeyType) -> Error {
    Error::new(
        ErrorCode::WeakKey,
        format!(
            "{kind} key refused: its point is of small order (the identity or a point of order dividing \
             the cofactor, in some spelling), under which a forged signature verifies for any card"
        ),
    )
}

/// Checks public material; `src` decides the error code for contradictions.
pub(super) fn validate_public(kind: KeyType, material: &PublicMaterial, src: Src<'_>) -> Result<(), Error> {
    match material {
        PublicMaterial::Okp { x } => {
            if x.len() != kind.field_len() {
                return Err(src.inconsistent(
                    "x",
                    format!(
                        "a {kind} public key is {} bytes, this one is {}",
                        kind.field_len(),
                        x.len()
                    ),
                ));
            }
            if curve::okp_small_order(kind, x) {
                return Err(weak_okp(kind));
            }
        }
        PublicMaterial::Ec { x, y } => {
            let len = kind.field_len();
            for (name, v) in [("x", x), ("y", y)] {
                if v.len() != len {
                    return Err(src.inconsistent(
                        name,
                        format!(
                            "a {kind} coordinate is exactly {len} bytes, this one is {}",
                            v.len()
                        ),
                    ));
                }
            }
            if !curve::on_curve(kind, x, y) {
                return Err(src.inconsistent("x", format!("the point (x, y) is not on the curve {kind}")));
            }
        }
        PublicMaterial::Rsa { n, e } => {
            if n.first() == Some(&0) || n.is_empty() {
                return Err(src.inconsistent("n", "the modulus must be encoded without leading zero bytes"));
            }
            if e.first() == Some(&0) || e.is_empty() {
                return Err(src.inconsistent("e", "the exponent must be encoded without leading zero bytes"));
            }
            let bits = bit_len(n);
            if bits < 2048 {
                return Err(weak_rsa(bits));
            }
            if bits > 8192 {
                return Err(src.invalid(
                    "n",
                    format!("RSA keys over 8192 bits are not supported ({bits} bits)"),
                ));
            }
            if n.last().is_none_or(|b| b & 1 == 0) {
                return Err(src.invalid("n", "an RSA modulus is odd; this one is even"));
            }
            let e_bits = bit_len(e);
            if e.last().is_none_or(|b| b & 1 == 0) || !(2..=33).contains(&e_bits) {
                return Err(src.invalid(
                    "e",
                    "the RSA public exponent must be odd, at least 3 and at most 2^33-1",
                ));
            }
        }
    }
    Ok(())
}

pub(super) fn bit_len(v: &[u8]) -> u32 {
    match v.iter().position(|b| *b != 0) {
        None => 0,
        Some(i) => {
            let rest = (v.len() - i - 1) as u32;
            rest * 8 + (8 - v.get(i).map_or(8, |b| b.leading_zeros()))
        }
    }
}

pub(super) fn rsa_kind(m: &PublicMaterial) -> KeyType {
    match m {
        PublicMaterial::Rsa { n, .. } => KeyType::Rsa { bits: bit_len(n) },
        _ => KeyType::Rsa { bits: 0 },
    }
}
