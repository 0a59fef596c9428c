//! Signing and verification keys: loading from PEM, JWK and JWKS, generation, RFC 7638
//! thumbprints, and which algorithm fits which key.
//!
//! Accepted PEM forms: PKCS#8 v1 and v2 (`PRIVATE KEY`), SEC1 (`EC PRIVATE KEY`), PKCS#1
//! (`RSA PRIVATE KEY`, `RSA PUBLIC KEY`) and SubjectPublicKeyInfo (`PUBLIC KEY`). Encrypted keys
//! are refused with `encrypted-key`, RSA moduli under 2048 bits with `weak-key`. A JWK must be
//! consistent with its `kty` and `crv` (no foreign members, exact coordinate and scalar lengths,
//! points on the curve, private part matching the public part), else `jwk-inconsistent` naming
//! the member. A key without `kid` gets its RFC 7638 thumbprint as `kid`.
//!
//! ```
//! use a2a_card::jose::keys::{KeyType, PrivateKey, PublicKey};
//! use a2a_card::Algorithm;
//! use a2a_card::jose::crypto::{sign, verify};
//!
//! let pem = "-----BEGIN PRIVATE KEY-----
//! MC4CAQAwBQYDK2VwBCIEINTuctv5E1hK1bbY8fdp+K06/nwoy/HU++CXqI9EdVhC
//! -----END PRIVATE KEY-----";
//! let key = PrivateKey::from_pem(pem).unwrap();
//! assert_eq!(key.key_type(), KeyType::Ed25519);
//! assert_eq!(key.default_algorithm(), Algorithm::EdDSA);
//!
//! // The public half, as a JWK whose kid is its RFC 7638 thumbprint.
//! let jwk = key.public().to_jwk();
//! assert_eq!(jwk["kid"], key.public().thumbprint());
//! let public = PublicKey::from_jwk(&jwk).unwrap();
//!
//! let sig = sign(Algorithm::EdDSA, &key, b"hello").unwrap();
//! verify(Algorithm::EdDSA, &public, b"hello", &sig).unwrap();
//! ```

mod curve;
mod generate;
mod jwk;
mod kind;
mod pem;
mod pkcs8;
mod private;
mod public;
mod spki;

pub use generate::{check_kid, GenerateOptions};
pub use jwk::{
    check_members, jwks_from_value, parse_jwks, parse_jwks_limited, policy_member, Members,
    REGISTERED_MEMBERS,
};
pub(crate) use jwk::{read_key_text, refuse_card_names};
pub use kind::KeyType;
pub(crate) use pem::{pem_blocks, shown_label};
pub(crate) use private::KeyPair;
pub use private::PrivateKey;
pub use public::{PublicKey, PublicMaterial};
pub(crate) use spki::refuse_weak_spki;

use crate::error::{Error, ErrorCode};
use jwk::strict_json;

pub(super) fn looks_like_json(text: &str) -> bool {
    text.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n'])
        .starts_with('{')
}

impl PublicKey {
    /// Reads a public key from text of any supported form: PEM (public or private), a JWK, or
    /// a JWKS holding exactly one key.
    ///
    /// ```
    /// let jwks = r#"{"keys":[{"kty":"EC","crv":"P-256","kid":"k1",
    ///   "x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
    ///   "y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}]}"#;
    /// let key = a2a_card::jose::keys::PublicKey::parse(jwks).unwrap();
    /// assert_eq!(key.kid(), "k1");
    /// ```
    pub fn parse(text: &str) -> Result<PublicKey, Error> {
        if looks_like_json(text) {
            let v = strict_json(text)?;
            if v.get("keys").is_some() {
                let mut keys = jwks_from_value(&v)?;
                if keys.len() != 1 {
                    return Err(Error::new(
                        ErrorCode::InvalidKey,
                        format!(
                            "the JWKS holds {} signature keys; one key was expected here",
                            keys.len()
                        ),
                    ));
                }
                return keys
                    .pop()
                    .ok_or_else(|| Error::new(ErrorCode::InvalidKey, "empty JWKS"));
            }
            jwk::public_jwk_with(&v, "", jwk::Members::Registered)
        } else {
            PublicKey::from_pem(text)
        }
    }
}

/// Every public key in a key text: a JWK Set (its signature keys, as [`parse_jwks`] reads it),
/// a single JWK, or a PEM key (public or private; a private key yields its public half). This
/// is what a "publish the public keys" command reads (`a2a-card jwks FILE...`).
///
/// ```
/// let pem = "-----BEGIN PRIVATE KEY-----
/// MC4CAQAwBQYDK2VwBCIEINTuctv5E1hK1bbY8fdp+K06/nwoy/HU++CXqI9EdVhC
/// -----END PRIVATE KEY-----";
/// let keys = a2a_card::jose::keys::public_keys_of(pem).unwrap();
/// assert_eq!(keys.len(), 1);
/// assert!(keys[0].to_jwk().get("d").is_none());
/// ```
pub fn public_keys_of(text: &str) -> Result<Vec<PublicKey>, Error> {
    if looks_like_json(text) {
        parse_jwks(text)
    } else {
        PublicKey::parse(text).map(|k| vec![k])
    }
}

impl PrivateKey {
    /// Reads a private key from PEM or JWK JSON text, whichever it is.
    pub fn parse(text: &str) -> Result<PrivateKey, Error> {
        if looks_like_json(text) {
            let v = strict_json(text)?;
            if v.get("keys").is_some() {
                return Err(Error::new(
                    ErrorCode::InvalidKey,
                    "this is a JWK Set (a \"keys\" list of public keys), not a private key: give the \
                     private key (PEM, or one private JWK)",
                ));
            }
            PrivateKey::from_jwk(&v)
        } else {
            PrivateKey::from_pem(text)
        }
    }
}
