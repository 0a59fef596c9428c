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
//! use a2a_card::keys::{KeyType, PrivateKey, PublicKey};
//! use a2a_card::alg::{sign, verify, Algorithm};
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

use crate::alg::Algorithm;
use crate::b64;
use crate::der::{self, oid, Reader};
use crate::error::{Error, ErrorCode};
use serde_json::{Map, Value as Json};
use std::fmt;
use std::sync::Arc;

// ---------------------------------------------------------------------------------------------
// Key types
// ---------------------------------------------------------------------------------------------

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
    /// The JWK `kty`: `OKP`, `EC` or `RSA`.
    ///
    /// ```
    /// assert_eq!(a2a_card::keys::KeyType::Secp256k1.kty(), "EC");
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
    /// use a2a_card::keys::KeyType;
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
    /// use a2a_card::{alg::Algorithm, keys::KeyType};
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
    /// use a2a_card::{alg::Algorithm, keys::KeyType};
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
    /// use a2a_card::keys::KeyType;
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
    /// use a2a_card::keys::KeyType;
    /// assert!(KeyType::P256.can_generate());
    /// assert_eq!(KeyType::Rsa { bits: 2048 }.can_generate(), cfg!(feature = "native-algs"));
    /// ```
    pub fn can_generate(self) -> bool {
        cfg!(feature = "native-algs") || matches!(self, KeyType::Ed25519 | KeyType::P256 | KeyType::P384)
    }

    /// Length of an EC coordinate or scalar, or of an OKP key, in bytes.
    fn field_len(self) -> usize {
        match self {
            KeyType::Ed25519 | KeyType::P256 | KeyType::Secp256k1 => 32,
            KeyType::P384 => 48,
            KeyType::Ed448 => 57,
            KeyType::P521 => 66,
            KeyType::Rsa { .. } => 0,
        }
    }

    fn curve_oid(self) -> &'static [u8] {
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

    fn from_crv(crv: &str) -> Option<KeyType> {
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

    fn from_ec_oid(o: &[u8]) -> Option<KeyType> {
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

fn check_fit(kind: KeyType, declared: Option<Algorithm>, alg: Algorithm) -> Result<(), Error> {
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

// ---------------------------------------------------------------------------------------------
// Public keys
// ---------------------------------------------------------------------------------------------

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
    kind: KeyType,
    material: PublicMaterial,
    kid: String,
    alg: Option<Algorithm>,
    /// The RFC 7638 thumbprint, computed once when the key is read (a function of `kind` and
    /// `material`, which never change after that): verification reports it for every
    /// signature, and a SHA-256 per report is not free.
    thumbprint: String,
}

/// The RFC 7638 thumbprint of a public key's required members.
fn compute_thumbprint(kind: KeyType, material: &PublicMaterial) -> String {
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
    fn assemble(
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

    /// Reads a public key from PEM: `PUBLIC KEY` (SubjectPublicKeyInfo) or `RSA PUBLIC KEY`
    /// (PKCS#1). A private-key PEM is accepted too and yields its public half.
    ///
    /// ```
    /// let pem = "-----BEGIN PUBLIC KEY-----
    /// MCowBQYDK2VwAyEAfU0Of2FTpptiQrUiq77mhf2kQg+INLEIw72uNp71Sfo=
    /// -----END PUBLIC KEY-----";
    /// let key = a2a_card::keys::PublicKey::from_pem(pem).unwrap();
    /// assert_eq!(key.key_type(), a2a_card::keys::KeyType::Ed25519);
    /// ```
    pub fn from_pem(text: &str) -> Result<PublicKey, Error> {
        match pem_key(text)? {
            PemKey::Public(key) => Ok(key),
            PemKey::Private(key) => Ok(key.public),
        }
    }

    /// Reads a DER SubjectPublicKeyInfo.
    pub fn from_spki_der(der: &[u8]) -> Result<PublicKey, Error> {
        let (kind, material) = parse_spki(der)?;
        Ok(PublicKey::assemble(kind, material, None, None))
    }

    /// Reads a public JWK (RFC 7517/7518/8037). Private members, when present, are checked for
    /// their length and then ignored. `use` other than `sig` is refused.
    ///
    /// ```
    /// use serde_json::json;
    /// use a2a_card::keys::PublicKey;
    /// let jwk = json!({"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"});
    /// // RFC 8037 appendix A.3 gives this key's thumbprint.
    /// assert_eq!(PublicKey::from_jwk(&jwk).unwrap().kid(), "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k");
    /// let bad = json!({"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","y":"AA"});
    /// let err = PublicKey::from_jwk(&bad).unwrap_err();
    /// assert_eq!((err.code().as_str(), err.pointer()), ("jwk-inconsistent", Some("/y")));
    /// ```
    pub fn from_jwk(jwk: &Json) -> Result<PublicKey, Error> {
        public_from_jwk_at(jwk, "")
    }

    /// Reads a public JWK from JSON text with the strict reader (duplicate members refused).
    pub fn from_jwk_str(text: &str) -> Result<PublicKey, Error> {
        PublicKey::from_jwk(&strict_json(text)?)
    }

    /// Reads a public key from text of any supported form: PEM (public or private), a JWK, or
    /// a JWKS holding exactly one key.
    ///
    /// ```
    /// let jwks = r#"{"keys":[{"kty":"EC","crv":"P-256","kid":"k1",
    ///   "x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
    ///   "y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}]}"#;
    /// let key = a2a_card::keys::PublicKey::parse(jwks).unwrap();
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
            PublicKey::from_jwk(&v)
        } else {
            PublicKey::from_pem(text)
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
    /// use a2a_card::{alg::Algorithm, keys::PublicKey};
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
    /// let key = a2a_card::keys::PublicKey::parse(r#"{"kty":"RSA","e":"AQAB","alg":"RS256","kid":"2011-04-29",
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

    /// The public JWK: `kty`, `crv`, `x`, `y` / `n`, `e`, then `kid` and `alg` when known.
    pub fn to_jwk(&self) -> Json {
        let mut m = Map::new();
        m.insert("kty".into(), Json::from(self.kind.kty()));
        match &self.material {
            PublicMaterial::Okp { x } => {
                m.insert("crv".into(), Json::from(self.kind.name()));
                m.insert("x".into(), Json::from(b64::encode(x)));
            }
            PublicMaterial::Ec { x, y } => {
                m.insert("crv".into(), Json::from(self.kind.name()));
                m.insert("x".into(), Json::from(b64::encode(x)));
                m.insert("y".into(), Json::from(b64::encode(y)));
            }
            PublicMaterial::Rsa { n, e } => {
                m.insert("n".into(), Json::from(b64::encode(n)));
                m.insert("e".into(), Json::from(b64::encode(e)));
            }
        }
        m.insert("kid".into(), Json::from(self.kid.clone()));
        if let Some(alg) = self.alg {
            m.insert("alg".into(), Json::from(alg.as_str()));
        }
        Json::Object(m)
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

    /// The `PUBLIC KEY` PEM (SubjectPublicKeyInfo).
    pub fn to_spki_pem(&self) -> String {
        pem_encode("PUBLIC KEY", &self.to_spki_der())
    }
}

/// Reads a JWK Set (`{"keys":[...]}`, RFC 7517 section 5) or a single JWK, with the strict JSON
/// reader. Entries whose `use` is `enc` are skipped (they are not signature keys); any other
/// entry that cannot be loaded fails the whole set, with the JSON Pointer of the entry.
///
/// ```
/// let keys = a2a_card::keys::parse_jwks(r#"{"keys":[
///   {"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","kid":"a"},
///   {"kty":"EC","crv":"P-256","kid":"b","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
///    "y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}]}"#).unwrap();
/// assert_eq!(keys.iter().map(|k| k.kid()).collect::<Vec<_>>(), ["a", "b"]);
/// let err = a2a_card::keys::parse_jwks(r#"{"keys":[{"kty":"EC","crv":"Ed25519","x":"AA"}]}"#).unwrap_err();
/// assert_eq!(err.code().as_str(), "jwk-inconsistent");
/// assert_eq!(err.pointer(), Some("/keys/0/crv"));
/// ```
pub fn parse_jwks(text: &str) -> Result<Vec<PublicKey>, Error> {
    jwks_from_value(&strict_json(text)?)
}

/// [`parse_jwks`] for a set from a party that is not trusted to bound its own size (a JWKS
/// fetched from a `jku`): more than `max_keys` entries is refused with `too-many-keys` before
/// any key is read.
///
/// ```
/// let set = r#"{"keys":[{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"},
///   {"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]}"#;
/// assert_eq!(a2a_card::keys::parse_jwks_limited(set, 2).unwrap().len(), 2);
/// let err = a2a_card::keys::parse_jwks_limited(set, 1).unwrap_err();
/// assert_eq!(err.code().as_str(), "too-many-keys");
/// ```
pub fn parse_jwks_limited(text: &str, max_keys: usize) -> Result<Vec<PublicKey>, Error> {
    let v = strict_json(text)?;
    if let Some(Json::Array(keys)) = v.get("keys") {
        if keys.len() > max_keys {
            return Err(Error::new(
                ErrorCode::TooManyKeys,
                format!(
                    "the JWK Set holds {} keys, more than the limit of {max_keys}",
                    keys.len()
                ),
            )
            .at("/keys"));
        }
    }
    jwks_from_value(&v)
}

/// [`parse_jwks`] on an already parsed JSON value.
pub fn jwks_from_value(v: &Json) -> Result<Vec<PublicKey>, Error> {
    let Some(keys) = v.get("keys") else {
        return Ok(vec![PublicKey::from_jwk(v)?]);
    };
    let Json::Array(keys) = keys else {
        return Err(Error::new(ErrorCode::InvalidKey, "JWKS member \"keys\" must be an array").at("/keys"));
    };
    let mut out = Vec::with_capacity(keys.len());
    for (i, jwk) in keys.iter().enumerate() {
        if jwk.get("use").and_then(Json::as_str) == Some("enc") {
            continue;
        }
        out.push(public_from_jwk_at(jwk, &format!("/keys/{i}"))?);
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Private keys
// ---------------------------------------------------------------------------------------------

#[derive(Clone)]
enum Secret {
    /// Ed25519 seed or Ed448 private key.
    Okp { d: Vec<u8> },
    /// EC private scalar, full field length.
    Ec { d: Vec<u8> },
    /// RSA private parts (big-endian, no leading zeros).
    Rsa {
        d: Vec<u8>,
        p: Vec<u8>,
        q: Vec<u8>,
        dp: Vec<u8>,
        dq: Vec<u8>,
        qi: Vec<u8>,
    },
}

/// The ready-to-use signing object.
#[derive(Clone)]
#[cfg_attr(not(feature = "native-algs"), allow(dead_code))]
pub(crate) enum Signer {
    Ed25519(Arc<ring::signature::Ed25519KeyPair>),
    Ecdsa(Arc<ring::signature::EcdsaKeyPair>),
    Rsa(Arc<ring::signature::RsaKeyPair>),
    /// P-521, secp256k1, Ed448: josekit from the PKCS#8 encoding at each use.
    Native,
}

/// A signing key: its public half (with `kid` and `alg`) and the private material, validated
/// against each other when loaded. `Debug` never shows the private material.
#[derive(Clone)]
pub struct PrivateKey {
    pub(crate) public: PublicKey,
    secret: Secret,
    pub(crate) signer: Signer,
}

impl fmt::Debug for PrivateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PrivateKey")
            .field("type", &self.public.kind)
            .field("kid", &self.public.kid)
            .field("alg", &self.public.alg)
            .field("secret", &"<redacted>")
            .finish()
    }
}

/// Where key parts came from: decides between `invalid-key` and `jwk-inconsistent`.
#[derive(Clone, Copy)]
enum Src<'a> {
    Der,
    Jwk(&'a str),
}

impl Src<'_> {
    fn inconsistent(self, member: &str, message: impl fmt::Display) -> Error {
        match self {
            Src::Der => Error::new(ErrorCode::InvalidKey, message.to_string()),
            Src::Jwk(prefix) => Error::new(
                ErrorCode::JwkInconsistent,
                format!("JWK member \"{member}\": {message}"),
            )
            .at(format!("{prefix}/{member}")),
        }
    }

    fn invalid(self, member: &str, message: impl fmt::Display) -> Error {
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

impl PrivateKey {
    /// Reads a private key from PEM: PKCS#8 v1 or v2 (`PRIVATE KEY`), SEC1 (`EC PRIVATE KEY`)
    /// or PKCS#1 (`RSA PRIVATE KEY`). Encrypted PEM fails with `encrypted-key`.
    ///
    /// ```
    /// let pem = "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMAA=\n-----END ENCRYPTED PRIVATE KEY-----\n";
    /// let err = a2a_card::keys::PrivateKey::from_pem(pem).unwrap_err();
    /// assert_eq!(err.code().as_str(), "encrypted-key");
    /// ```
    pub fn from_pem(text: &str) -> Result<PrivateKey, Error> {
        match pem_key(text)? {
            PemKey::Private(key) => Ok(key),
            PemKey::Public(_) => Err(Error::new(
                ErrorCode::InvalidKey,
                "this PEM holds a public key; signing needs a private key",
            )),
        }
    }

    /// Reads a DER private key: PKCS#8 (v1 or v2), SEC1 `ECPrivateKey` (with its curve
    /// parameters) or PKCS#1 `RSAPrivateKey`.
    pub fn from_der(der: &[u8]) -> Result<PrivateKey, Error> {
        parse_private_der(der, None)
    }

    /// Reads a private JWK (it must hold `d`, and for RSA also `p`, `q`, `dp`, `dq`, `qi`).
    /// The private part must match the public part, else `jwk-inconsistent`.
    ///
    /// ```
    /// use serde_json::json;
    /// // RFC 8037 appendix A.1.
    /// let jwk = json!({"kty":"OKP","crv":"Ed25519",
    ///   "d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A",
    ///   "x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"});
    /// let key = a2a_card::keys::PrivateKey::from_jwk(&jwk).unwrap();
    /// assert_eq!(key.kid(), "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k");
    /// let mut wrong = jwk.clone();
    /// wrong["x"] = json!("fU0Of2FTpptiQrUiq77mhf2kQg-INLEIw72uNp71Sfo");
    /// assert_eq!(a2a_card::keys::PrivateKey::from_jwk(&wrong).unwrap_err().code().as_str(), "jwk-inconsistent");
    /// ```
    pub fn from_jwk(jwk: &Json) -> Result<PrivateKey, Error> {
        let parts = jwk_parts(jwk, "")?;
        let src = Src::Jwk("");
        let Some(secret) = parts.secret else {
            return Err(Error::new(
                ErrorCode::InvalidKey,
                "this JWK has no private member \"d\"; signing needs a private key",
            )
            .at("/d"));
        };
        build_private(
            parts.kind,
            Some(parts.material),
            secret,
            parts.kid,
            parts.alg,
            src,
        )
    }

    /// Reads a private JWK from JSON text with the strict reader.
    pub fn from_jwk_str(text: &str) -> Result<PrivateKey, Error> {
        PrivateKey::from_jwk(&strict_json(text)?)
    }

    /// Reads a private key from PEM or JWK JSON text, whichever it is.
    pub fn parse(text: &str) -> Result<PrivateKey, Error> {
        if looks_like_json(text) {
            PrivateKey::from_jwk_str(text)
        } else {
            PrivateKey::from_pem(text)
        }
    }

    /// Generates a key for `alg` and declares it for that algorithm: EdDSA -> Ed25519, ES256,
    /// ES384 (ring, all targets); ES512, ES256K and RS*/PS* (RSA 2048) through josekit on
    /// native builds. HS* fails with `key-algorithm-mismatch` (HMAC uses a shared secret).
    ///
    /// ```
    /// use a2a_card::{alg::Algorithm, keys::{KeyType, PrivateKey}};
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
    /// use a2a_card::keys::{KeyType, PrivateKey};
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
                    parse_private_der(&crate::alg::native::generate_rsa(bits)?, None)
                }
                #[cfg(not(feature = "native-algs"))]
                {
                    Err(crate::alg::unavailable("RSA key generation"))
                }
            }
            KeyType::P521 | KeyType::Secp256k1 | KeyType::Ed448 => {
                #[cfg(feature = "native-algs")]
                {
                    let der = if kind == KeyType::Ed448 {
                        crate::alg::native::generate_ed448()?
                    } else {
                        crate::alg::native::generate_ec(kind == KeyType::P521)?
                    };
                    parse_private_der(&der, Some(kind))
                }
                #[cfg(not(feature = "native-algs"))]
                {
                    Err(crate::alg::unavailable(kind.name()))
                }
            }
        }
    }

    /// The public half.
    pub fn public(&self) -> &PublicKey {
        &self.public
    }

    /// The key type.
    pub fn key_type(&self) -> KeyType {
        self.public.kind
    }

    /// The key id (see [`PublicKey::kid`]).
    pub fn kid(&self) -> &str {
        &self.public.kid
    }

    /// The same key under another `kid`.
    pub fn with_kid(mut self, kid: impl Into<String>) -> PrivateKey {
        self.public.kid = kid.into();
        self
    }

    /// The same key declared for one algorithm (or for none); `key-algorithm-mismatch` when it
    /// does not fit.
    pub fn with_alg(mut self, alg: Option<Algorithm>) -> Result<PrivateKey, Error> {
        self.public = self.public.with_alg(alg)?;
        Ok(self)
    }

    /// See [`PublicKey::default_algorithm`].
    pub fn default_algorithm(&self) -> Algorithm {
        self.public.default_algorithm()
    }

    /// See [`PublicKey::check_algorithm`].
    pub fn check_algorithm(&self, alg: Algorithm) -> Result<(), Error> {
        self.public.check_algorithm(alg)
    }

    /// The key as DER PKCS#8 v1 (`PrivateKeyInfo`; the EC form carries its public point).
    pub fn to_pkcs8_der(&self) -> Vec<u8> {
        let version = der::uint(&[]);
        let kind = self.public.kind;
        let (alg_id, inner) = match (&self.secret, &self.public.material) {
            (Secret::Okp { d }, _) => (
                der::algorithm_identifier(kind.curve_oid(), None),
                der::tlv(der::TAG_OCTET_STRING, d),
            ),
            (Secret::Ec { d }, PublicMaterial::Ec { x, y }) => {
                let mut point = Vec::with_capacity(1 + x.len() + y.len());
                point.push(4);
                point.extend_from_slice(x);
                point.extend_from_slice(y);
                let pubkey = der::tlv(der::TAG_CTX1, &der::bit_string(der::TAG_BIT_STRING, &point));
                let ec = der::sequence(&[&der::uint(&[1]), &der::tlv(der::TAG_OCTET_STRING, d), &pubkey]);
                let curve = der::tlv(der::TAG_OID, kind.curve_oid());
                (der::algorithm_identifier(oid::EC_PUBLIC_KEY, Some(&curve)), ec)
            }
            (Secret::Rsa { d, p, q, dp, dq, qi }, PublicMaterial::Rsa { n, e }) => {
                let null = der::tlv(der::TAG_NULL, &[]);
                let rsa = der::sequence(&[
                    &der::uint(&[]),
                    &der::uint(n),
                    &der::uint(e),
                    &der::uint(d),
                    &der::uint(p),
                    &der::uint(q),
                    &der::uint(dp),
                    &der::uint(dq),
                    &der::uint(qi),
                ]);
                (der::algorithm_identifier(oid::RSA, Some(&null)), rsa)
            }
            // Secret and public material are built together and always agree.
            _ => (Vec::new(), Vec::new()),
        };
        der::sequence(&[&version, &alg_id, &der::tlv(der::TAG_OCTET_STRING, &inner)])
    }

    /// The `PRIVATE KEY` PEM (PKCS#8 v1).
    ///
    /// ```
    /// use a2a_card::{alg::Algorithm, keys::PrivateKey};
    /// let key = PrivateKey::generate(Algorithm::ES384).unwrap();
    /// let again = PrivateKey::from_pem(&key.to_pkcs8_pem()).unwrap();
    /// assert_eq!(again.public().material(), key.public().material());
    /// ```
    pub fn to_pkcs8_pem(&self) -> String {
        pem_encode("PRIVATE KEY", &self.to_pkcs8_der())
    }

    /// The private JWK: the public members, the private ones (`d`, and for RSA `p`, `q`, `dp`,
    /// `dq`, `qi`), then `kid` and `alg`. Handle with care: it contains the secret.
    pub fn to_jwk_private(&self) -> Json {
        let mut jwk = self.public.to_jwk();
        if let Json::Object(m) = &mut jwk {
            let kid = m.remove("kid");
            let alg = m.remove("alg");
            let field = self.public.kind.field_len();
            match &self.secret {
                Secret::Okp { d } => {
                    m.insert("d".into(), Json::from(b64::encode(d)));
                }
                Secret::Ec { d } => {
                    m.insert("d".into(), Json::from(b64::encode(left_pad(d, field))));
                }
                Secret::Rsa { d, p, q, dp, dq, qi } => {
                    for (name, v) in [("d", d), ("p", p), ("q", q), ("dp", dp), ("dq", dq), ("qi", qi)] {
                        m.insert(name.into(), Json::from(b64::encode(v)));
                    }
                }
            }
            if let Some(kid) = kid {
                m.insert("kid".into(), kid);
            }
            if let Some(alg) = alg {
                m.insert("alg".into(), alg);
            }
        }
        jwk
    }
}

fn left_pad(v: &[u8], len: usize) -> Vec<u8> {
    let mut out = vec![0u8; len.saturating_sub(v.len())];
    out.extend_from_slice(v);
    out
}

fn weak_rsa(bits: u32) -> Error {
    Error::new(
        ErrorCode::WeakKey,
        format!("RSA key of {bits} bits refused: at least 2048 bits are required"),
    )
}

/// Checks public material; `src` decides the error code for contradictions.
fn validate_public(kind: KeyType, material: &PublicMaterial, src: Src<'_>) -> Result<(), Error> {
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

fn bit_len(v: &[u8]) -> u32 {
    match v.iter().position(|b| *b != 0) {
        None => 0,
        Some(i) => {
            let rest = (v.len() - i - 1) as u32;
            rest * 8 + (8 - v.get(i).map_or(8, |b| b.leading_zeros()))
        }
    }
}

/// Builds a private key from parts, checking that they agree.
fn build_private(
    kind: KeyType,
    public: Option<PublicMaterial>,
    secret: Secret,
    kid: Option<String>,
    alg: Option<Algorithm>,
    src: Src<'_>,
) -> Result<PrivateKey, Error> {
    if let Some(p) = &public {
        validate_public(kind, p, src)?;
    }
    let (material, signer) = match (&secret, kind) {
        (Secret::Okp { d }, KeyType::Ed25519) => {
            let kp = match &public {
                Some(PublicMaterial::Okp { x }) => {
                    ring::signature::Ed25519KeyPair::from_seed_and_public_key(d, x).map_err(|_| {
                        src.inconsistent("d", "the private key does not match the public key \"x\"")
                    })?
                }
                _ => ring::signature::Ed25519KeyPair::from_seed_unchecked(d)
                    .map_err(|_| src.inconsistent("d", "an Ed25519 private key is a 32-byte seed"))?,
            };
            use ring::signature::KeyPair as _;
            let x = kp.public_key().as_ref().to_vec();
            (PublicMaterial::Okp { x }, Signer::Ed25519(Arc::new(kp)))
        }
        (Secret::Ec { d }, KeyType::P256 | KeyType::P384) => {
            let Some(PublicMaterial::Ec { x, y }) = &public else {
                return Err(Error::new(
                    ErrorCode::InvalidKey,
                    "this EC private key does not include its public point; export it with the public key",
                ));
            };
            let alg = if kind == KeyType::P256 {
                &ring::signature::ECDSA_P256_SHA256_FIXED_SIGNING
            } else {
                &ring::signature::ECDSA_P384_SHA384_FIXED_SIGNING
            };
            if !curve::scalar_in_range(kind, d) {
                return Err(
                    src.inconsistent("d", format!("the private scalar is not in [1, n-1] for {kind}"))
                );
            }
            let mut point = vec![4u8];
            point.extend_from_slice(x);
            point.extend_from_slice(y);
            let rng = ring::rand::SystemRandom::new();
            let kp = ring::signature::EcdsaKeyPair::from_private_key_and_public_key(alg, d, &point, &rng)
                .map_err(|e| {
                    src.inconsistent(
                        "d",
                        format!("the private key does not match the public point ({e})"),
                    )
                })?;
            (
                PublicMaterial::Ec {
                    x: x.clone(),
                    y: y.clone(),
                },
                Signer::Ecdsa(Arc::new(kp)),
            )
        }
        (Secret::Rsa { d, p, q, dp, dq, qi }, KeyType::Rsa { .. }) => {
            let Some(PublicMaterial::Rsa { n, e }) = &public else {
                return Err(Error::new(
                    ErrorCode::InvalidKey,
                    "RSA private key without modulus",
                ));
            };
            let bits = bit_len(n);
            if bits > 4096 {
                return Err(src.invalid(
                    "n",
                    format!("RSA signing keys over 4096 bits are not supported ({bits} bits)"),
                ));
            }
            if d.len() > n.len() {
                return Err(src.inconsistent("d", "the private exponent is longer than the modulus"));
            }
            let comps = ring::rsa::KeyPairComponents {
                public_key: ring::rsa::PublicKeyComponents {
                    n: n.as_slice(),
                    e: e.as_slice(),
                },
                d: d.as_slice(),
                p: p.as_slice(),
                q: q.as_slice(),
                dP: dp.as_slice(),
                dQ: dq.as_slice(),
                qInv: qi.as_slice(),
            };
            let kp = ring::signature::RsaKeyPair::from_components(&comps).map_err(|e| {
                src.inconsistent(
                    "d",
                    format!("the RSA private parts are inconsistent or unsupported ({e})"),
                )
            })?;
            (
                PublicMaterial::Rsa {
                    n: n.clone(),
                    e: e.clone(),
                },
                Signer::Rsa(Arc::new(kp)),
            )
        }
        (Secret::Okp { .. } | Secret::Ec { .. }, KeyType::Ed448 | KeyType::P521 | KeyType::Secp256k1) => {
            native_private(kind, &secret, public, src)?
        }
        _ => {
            return Err(Error::new(
                ErrorCode::InvalidKey,
                format!("private material does not fit a {kind} key"),
            ))
        }
    };
    let public = PublicKey::assemble(kind, material, kid, alg);
    Ok(PrivateKey {
        public,
        secret,
        signer,
    })
}

#[cfg(feature = "native-algs")]
fn native_private(
    kind: KeyType,
    secret: &Secret,
    public: Option<PublicMaterial>,
    src: Src<'_>,
) -> Result<(PublicMaterial, Signer), Error> {
    // PKCS#8 without the public part; OpenSSL derives it, and it must equal the given one.
    let (alg_id, inner) = match secret {
        Secret::Okp { d } => (
            der::algorithm_identifier(kind.curve_oid(), None),
            der::tlv(der::TAG_OCTET_STRING, d),
        ),
        Secret::Ec { d } => {
            if !curve::scalar_in_range(kind, d) {
                return Err(
                    src.inconsistent("d", format!("the private scalar is not in [1, n-1] for {kind}"))
                );
            }
            let curve = der::tlv(der::TAG_OID, kind.curve_oid());
            (
                der::algorithm_identifier(oid::EC_PUBLIC_KEY, Some(&curve)),
                der::sequence(&[&der::uint(&[1]), &der::tlv(der::TAG_OCTET_STRING, d)]),
            )
        }
        Secret::Rsa { .. } => return Err(Error::new(ErrorCode::InvalidKey, "RSA material for a curve key")),
    };
    let pkcs8 = der::sequence(&[&der::uint(&[]), &alg_id, &der::tlv(der::TAG_OCTET_STRING, &inner)]);
    let spki = crate::alg::native::derive_public(&pkcs8, kind == KeyType::Ed448, kind == KeyType::P521)
        .map_err(|e| src.invalid("d", e.message()))?;
    let (derived_kind, derived) = parse_spki(&spki)?;
    if derived_kind != kind {
        return Err(Error::new(
            ErrorCode::InvalidKey,
            "OpenSSL derived a key of another type",
        ));
    }
    if let Some(given) = public {
        if given != derived {
            return Err(src.inconsistent("d", "the private key does not match the public key"));
        }
    }
    Ok((derived, Signer::Native))
}

#[cfg(not(feature = "native-algs"))]
fn native_private(
    kind: KeyType,
    _secret: &Secret,
    _public: Option<PublicMaterial>,
    _src: Src<'_>,
) -> Result<(PublicMaterial, Signer), Error> {
    Err(crate::alg::unavailable(&format!("{kind} private keys")))
}

// ---------------------------------------------------------------------------------------------
// JWK
// ---------------------------------------------------------------------------------------------

struct JwkParts {
    kind: KeyType,
    material: PublicMaterial,
    secret: Option<Secret>,
    kid: Option<String>,
    alg: Option<Algorithm>,
}

fn public_from_jwk_at(jwk: &Json, prefix: &str) -> Result<PublicKey, Error> {
    let parts = jwk_parts(jwk, prefix)?;
    Ok(PublicKey::assemble(
        parts.kind,
        parts.material,
        parts.kid,
        parts.alg,
    ))
}

const OKP_FOREIGN: &[&str] = &["y", "n", "e", "p", "q", "dp", "dq", "qi", "oth", "k"];
const EC_FOREIGN: &[&str] = &["n", "e", "p", "q", "dp", "dq", "qi", "oth", "k"];
const RSA_FOREIGN: &[&str] = &["crv", "x", "y", "k"];

fn jwk_parts(jwk: &Json, prefix: &str) -> Result<JwkParts, Error> {
    let src = Src::Jwk(prefix);
    let at = |m: &str| format!("{prefix}/{m}");
    let Json::Object(obj) = jwk else {
        return Err(Error::new(ErrorCode::InvalidKey, "a JWK must be a JSON object").at(prefix.to_string()));
    };
    let string = |name: &str| -> Result<Option<&str>, Error> {
        match obj.get(name) {
            None => Ok(None),
            Some(Json::String(s)) => Ok(Some(s.as_str())),
            Some(other) => Err(Error::new(
                ErrorCode::InvalidKey,
                format!("JWK member \"{name}\" must be a string, not {}", json_type(other)),
            )
            .at(at(name))),
        }
    };
    let bytes = |name: &str| -> Result<Option<Vec<u8>>, Error> {
        match string(name)? {
            None => Ok(None),
            Some(s) => b64::decode_strict(s).map(Some).map_err(|e| {
                Error::new(
                    ErrorCode::InvalidKey,
                    format!("JWK member \"{name}\" is not strict base64url: {}", e.message()),
                )
                .at(at(name))
            }),
        }
    };
    let required = |name: &str| -> Result<Vec<u8>, Error> {
        bytes(name)?.ok_or_else(|| {
            Error::new(
                ErrorCode::InvalidKey,
                format!("JWK member \"{name}\" is required"),
            )
            .at(at(name))
        })
    };

    let kty = string("kty")?
        .ok_or_else(|| Error::new(ErrorCode::InvalidKey, "JWK member \"kty\" is required").at(at("kty")))?;
    if let Some(u) = string("use")? {
        if u != "sig" {
            return Err(Error::new(
                ErrorCode::InvalidKey,
                format!("JWK \"use\" is {u:?}; a signature key has \"use\":\"sig\" or no \"use\""),
            )
            .at(at("use")));
        }
    }
    let kid = string("kid")?.map(str::to_string);
    let alg = match string("alg")? {
        None => None,
        Some(name) => Some(Algorithm::from_name(name).map_err(|e| e.at(at("alg")))?),
    };
    let foreign: &[&str] = match kty {
        "OKP" => OKP_FOREIGN,
        "EC" => EC_FOREIGN,
        "RSA" => RSA_FOREIGN,
        "oct" => {
            return Err(Error::new(
                ErrorCode::InvalidKey,
                "a JWK of kty \"oct\" is a shared secret, not a signature key pair; HMAC secrets are passed explicitly",
            )
            .at(at("kty")))
        }
        other => {
            return Err(Error::new(
                ErrorCode::InvalidKey,
                format!("unsupported JWK kty {other:?}; expected OKP, EC or RSA"),
            )
            .at(at("kty")))
        }
    };
    if let Some(m) = foreign.iter().find(|m| obj.contains_key(**m)) {
        return Err(src.inconsistent(m, format!("a JWK of kty {kty} has no member \"{m}\"")));
    }

    let (kind, material, secret) = match kty {
        "OKP" | "EC" => {
            let crv = string("crv")?.ok_or_else(|| {
                Error::new(
                    ErrorCode::InvalidKey,
                    format!("JWK member \"crv\" is required for kty {kty}"),
                )
                .at(at("crv"))
            })?;
            let kind = match KeyType::from_crv(crv) {
                Some(k) if k.kty() == kty => k,
                Some(k) => {
                    return Err(
                        src.inconsistent("crv", format!("crv {crv} belongs to kty {}, not {kty}", k.kty()))
                    )
                }
                None if matches!(crv, "X25519" | "X448") => {
                    return Err(
                        src.inconsistent("crv", format!("{crv} is a key-agreement curve; it cannot sign"))
                    )
                }
                None => {
                    return Err(
                        Error::new(ErrorCode::InvalidKey, format!("unsupported crv {crv:?}")).at(at("crv")),
                    )
                }
            };
            let len = kind.field_len();
            let x = required("x")?;
            let material = if kty == "OKP" {
                PublicMaterial::Okp { x }
            } else {
                PublicMaterial::Ec { x, y: required("y")? }
            };
            validate_public(kind, &material, src)?;
            let secret = match bytes("d")? {
                None => None,
                Some(d) => {
                    if d.len() != len {
                        return Err(src.inconsistent(
                            "d",
                            format!(
                                "a {kind} private key is exactly {len} bytes, this one is {}",
                                d.len()
                            ),
                        ));
                    }
                    Some(if kty == "OKP" {
                        Secret::Okp { d }
                    } else {
                        Secret::Ec { d }
                    })
                }
            };
            (kind, material, secret)
        }
        _ => {
            let n = required("n")?;
            let e = required("e")?;
            let kind = KeyType::Rsa { bits: bit_len(&n) };
            let material = PublicMaterial::Rsa { n, e };
            validate_public(kind, &material, src)?;
            let secret = match bytes("d")? {
                None => None,
                Some(d) => {
                    if obj.contains_key("oth") {
                        return Err(Error::new(
                            ErrorCode::InvalidKey,
                            "multi-prime RSA keys (\"oth\") are not supported",
                        )
                        .at(at("oth")));
                    }
                    let mut crt = Vec::with_capacity(5);
                    for name in ["p", "q", "dp", "dq", "qi"] {
                        crt.push(bytes(name)?.ok_or_else(|| {
                            Error::new(
                                ErrorCode::InvalidKey,
                                format!("RSA private JWK without \"{name}\": the CRT members p, q, dp, dq and qi are required"),
                            )
                            .at(at(name))
                        })?);
                    }
                    let mut it = crt.into_iter();
                    let mut next = || it.next().unwrap_or_default();
                    let (p, q, dp, dq, qi) = (next(), next(), next(), next(), next());
                    if let PublicMaterial::Rsa { n, .. } = &material {
                        if d.len() > n.len() {
                            return Err(
                                src.inconsistent("d", "the private exponent is longer than the modulus")
                            );
                        }
                    }
                    Some(Secret::Rsa { d, p, q, dp, dq, qi })
                }
            };
            (kind, material, secret)
        }
    };
    if let Some(a) = alg {
        if !kind.fits(a) {
            return Err(src.inconsistent(
                "alg",
                format!("{a} needs {}; this JWK is a {kind} key", a.needs()),
            ));
        }
    }
    Ok(JwkParts {
        kind,
        material,
        secret,
        kid,
        alg,
    })
}

fn json_type(v: &Json) -> &'static str {
    match v {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "an array",
        Json::Object(_) => "an object",
    }
}

fn looks_like_json(text: &str) -> bool {
    text.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n'])
        .starts_with('{')
}

/// Reads JSON text with the crate's strict reader (duplicates, lone surrogates refused) and
/// converts it to a `serde_json::Value`.
fn strict_json(text: &str) -> Result<Json, Error> {
    Ok(to_serde(&crate::json::parse(text.as_bytes())?))
}

fn to_serde(v: &crate::json::Value) -> Json {
    use crate::json::Value as V;
    match v {
        V::Null => Json::Null,
        V::Bool(b) => Json::Bool(*b),
        V::Number(n) => serde_json::Number::from_f64(*n).map_or(Json::Null, Json::Number),
        V::String(s) => Json::String(s.clone()),
        V::Array(items) => Json::Array(items.iter().map(to_serde).collect()),
        V::Object(members) => Json::Object(members.iter().map(|(k, v)| (k.clone(), to_serde(v))).collect()),
    }
}

// ---------------------------------------------------------------------------------------------
// PEM and DER
// ---------------------------------------------------------------------------------------------

enum PemKey {
    Public(PublicKey),
    Private(PrivateKey),
}

struct PemBlock {
    label: String,
    encrypted: bool,
    body: String,
}

/// PEM labels other than keys that are common in files next to keys: shown by name when a PEM
/// holds no key.
const OTHER_LABELS: &[&str] = &[
    "CERTIFICATE",
    "TRUSTED CERTIFICATE",
    "X509 CRL",
    "CERTIFICATE REQUEST",
    "NEW CERTIFICATE REQUEST",
    "EC PARAMETERS",
    "DH PARAMETERS",
    "PGP PUBLIC KEY BLOCK",
    "PGP PRIVATE KEY BLOCK",
    "SSH2 PUBLIC KEY",
];

/// A PEM label as a message may show it: quoted when it is a known label or a short upper-case
/// token, otherwise only described. A label read from text that lost its line breaks can hold
/// a whole key body (`PRIVATE KEY-----MIGH...`), and no message may ever contain key material.
fn shown_label(label: &str) -> String {
    let token = label.len() <= 24
        && !label.is_empty()
        && label
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b' ');
    if KEY_LABELS.contains(&label) || OTHER_LABELS.contains(&label) || token {
        format!("{label:?}")
    } else {
        "with an unrecognized label".to_string()
    }
}

/// Splits PEM text into its blocks. The text is scanned for the encapsulation boundaries
/// (RFC 7468) rather than read line by line, so that a key whose line breaks were lost or
/// turned into spaces or CRs (as CI secrets often are) still reads: base64 never contains
/// `-`, so `-----` always ends a boundary. A leading byte-order mark is skipped. RFC 1421
/// header lines (`Proc-Type`, `DEK-Info`) mark a legacy encrypted key.
fn pem_blocks(text: &str) -> Result<Vec<PemBlock>, Error> {
    const BEGIN: &str = "-----BEGIN ";
    const DASHES: &str = "-----";
    let mut blocks = Vec::new();
    let mut rest = text.strip_prefix('\u{feff}').unwrap_or(text);
    while let Some(at) = rest.find(BEGIN) {
        let after = &rest[at + BEGIN.len()..];
        let Some(close) = after.find(DASHES) else {
            return Err(Error::new(
                ErrorCode::InvalidKey,
                "a PEM \"-----BEGIN\" boundary is not closed by \"-----\"",
            ));
        };
        let label = &after[..close];
        if label.contains(['\r', '\n']) {
            return Err(Error::new(
                ErrorCode::InvalidKey,
                "a PEM \"-----BEGIN\" boundary is broken across lines",
            ));
        }
        let inner = &after[close + DASHES.len()..];
        let end = format!("-----END {label}-----");
        let Some(end_at) = inner.find(&end) else {
            let other_end = inner.contains("-----END ");
            return Err(Error::new(
                ErrorCode::InvalidKey,
                if other_end {
                    format!(
                        "PEM block {} ends with an END boundary of another label",
                        shown_label(label)
                    )
                } else {
                    format!("PEM block {} has no END boundary", shown_label(label))
                },
            ));
        };
        let raw = &inner[..end_at];
        let mut body = String::with_capacity(raw.len());
        let mut encrypted = false;
        for line in raw.split(['\n', '\r']) {
            if let Some((name, value)) = line.split_once(':') {
                // An RFC 1421 header line. Base64 has no ':', so with the line breaks lost a
                // header that ran into the body is still recognized.
                if name.to_ascii_lowercase().contains("proc-type")
                    && value.to_ascii_uppercase().contains("ENCRYPTED")
                {
                    encrypted = true;
                }
                continue;
            }
            body.extend(line.chars().filter(|c| !c.is_ascii_whitespace()));
        }
        blocks.push(PemBlock {
            label: label.to_string(),
            encrypted,
            body,
        });
        rest = &inner[end_at + end.len()..];
    }
    Ok(blocks)
}

const KEY_LABELS: &[&str] = &[
    "PRIVATE KEY",
    "EC PRIVATE KEY",
    "RSA PRIVATE KEY",
    "PUBLIC KEY",
    "RSA PUBLIC KEY",
    "ENCRYPTED PRIVATE KEY",
    "OPENSSH PRIVATE KEY",
];

fn pem_key(text: &str) -> Result<PemKey, Error> {
    use base64::Engine as _;
    let blocks = pem_blocks(text)?;
    let keys: Vec<&PemBlock> = blocks
        .iter()
        .filter(|b| KEY_LABELS.contains(&b.label.as_str()))
        .collect();
    let block = match keys.as_slice() {
        [one] => *one,
        [] if blocks.is_empty() => {
            return Err(Error::new(
                ErrorCode::InvalidKey,
                "no PEM block found (expected -----BEGIN ... KEY-----)",
            ))
        }
        [] => {
            let labels: Vec<String> = blocks.iter().map(|b| shown_label(&b.label)).collect();
            return Err(Error::new(
                ErrorCode::InvalidKey,
                format!("no key in this PEM; it holds {}", labels.join(", ")),
            ));
        }
        many => {
            return Err(Error::new(
                ErrorCode::InvalidKey,
                format!("this PEM holds {} keys; give exactly one", many.len()),
            ))
        }
    };
    if block.encrypted || block.label == "ENCRYPTED PRIVATE KEY" {
        return Err(Error::new(
            ErrorCode::EncryptedKey,
            "the private key is encrypted; decrypt it first (for example `openssl pkey -in key.pem -out plain.pem`)",
        ));
    }
    if block.label == "OPENSSH PRIVATE KEY" {
        return Err(Error::new(
            ErrorCode::InvalidKey,
            "OpenSSH private key format is not supported; convert it with `ssh-keygen -p -m PKCS8 -f key`",
        ));
    }
    let der = base64::engine::general_purpose::STANDARD
        .decode(block.body.as_bytes())
        .map_err(|e| {
            Error::new(
                ErrorCode::InvalidKey,
                format!(
                    "the body of PEM block {} is not valid base64 ({})",
                    shown_label(&block.label),
                    base64_problem(&e)
                ),
            )
        })?;
    match block.label.as_str() {
        "PUBLIC KEY" => PublicKey::from_spki_der(&der).map(PemKey::Public),
        "RSA PUBLIC KEY" => {
            let (n, e) = parse_rsa_public(&der)?;
            let material = PublicMaterial::Rsa { n, e };
            let kind = rsa_kind(&material);
            validate_public(kind, &material, Src::Der)?;
            Ok(PemKey::Public(PublicKey::assemble(kind, material, None, None)))
        }
        "EC PRIVATE KEY" => parse_sec1(&der, None).map(PemKey::Private),
        "RSA PRIVATE KEY" => parse_pkcs1_private(&der).map(PemKey::Private),
        _ => parse_pkcs8(&der).map(PemKey::Private),
    }
}

/// What is wrong with a PEM body, without showing any of it.
fn base64_problem(e: &base64::DecodeError) -> String {
    match e {
        base64::DecodeError::InvalidByte(at, _) => format!("a character that is not base64 at position {at}"),
        base64::DecodeError::InvalidLength(_) => "its length is not that of base64 text".to_string(),
        base64::DecodeError::InvalidLastSymbol(at, _) => {
            format!("a final character that is not canonical at position {at}")
        }
        base64::DecodeError::InvalidPadding => "wrong padding".to_string(),
    }
}

fn pem_encode(label: &str, der: &[u8]) -> String {
    use base64::Engine as _;
    let b = base64::engine::general_purpose::STANDARD.encode(der);
    let mut out = format!("-----BEGIN {label}-----\n");
    for chunk in b.as_bytes().chunks(64) {
        out.push_str(std::str::from_utf8(chunk).unwrap_or_default());
        out.push('\n');
    }
    out.push_str(&format!("-----END {label}-----\n"));
    out
}

fn rsa_kind(m: &PublicMaterial) -> KeyType {
    match m {
        PublicMaterial::Rsa { n, .. } => KeyType::Rsa { bits: bit_len(n) },
        _ => KeyType::Rsa { bits: 0 },
    }
}

fn dotted_oid(o: &[u8]) -> String {
    let mut parts: Vec<u64> = Vec::new();
    let mut acc: u64 = 0;
    for b in o {
        acc = (acc << 7) | u64::from(b & 0x7f);
        if b & 0x80 == 0 {
            if parts.is_empty() {
                let first = (acc / 40).min(2);
                parts.push(first);
                parts.push(acc - first * 40);
            } else {
                parts.push(acc);
            }
            acc = 0;
        }
    }
    parts.iter().map(u64::to_string).collect::<Vec<_>>().join(".")
}

fn unsupported_oid(o: &[u8]) -> Error {
    let name = if o == oid::X25519 || o == oid::X448 {
        " (a key-agreement key, it cannot sign)".to_string()
    } else if o == oid::RSA_PSS {
        " (RSASSA-PSS-restricted RSA key; use a plain rsaEncryption key)".to_string()
    } else {
        String::new()
    };
    Error::new(
        ErrorCode::InvalidKey,
        format!("unsupported key algorithm OID {}{name}", dotted_oid(o)),
    )
}

/// Reads an AlgorithmIdentifier; returns the key type (RSA bits 0 until known).
fn read_algorithm(r: &mut Reader<'_>) -> Result<KeyType, Error> {
    let alg_id = r.read(der::TAG_SEQUENCE, "AlgorithmIdentifier")?;
    let mut a = Reader::new(alg_id);
    let o = a.read(der::TAG_OID, "algorithm OID")?;
    let kind = if o == oid::RSA {
        if !a.is_empty() {
            a.read(der::TAG_NULL, "NULL parameters")?;
        }
        KeyType::Rsa { bits: 0 }
    } else if o == oid::EC_PUBLIC_KEY {
        if a.peek_tag() != Some(der::TAG_OID) {
            return Err(Error::new(
                ErrorCode::InvalidKey,
                "EC keys with explicit curve parameters are not supported; use a named curve",
            ));
        }
        let curve = a.read(der::TAG_OID, "named curve")?;
        KeyType::from_ec_oid(curve).ok_or_else(|| {
            Error::new(
                ErrorCode::InvalidKey,
                format!("unsupported elliptic curve OID {}", dotted_oid(curve)),
            )
        })?
    } else if o == oid::ED25519 {
        KeyType::Ed25519
    } else if o == oid::ED448 {
        KeyType::Ed448
    } else {
        return Err(unsupported_oid(o));
    };
    a.finish("AlgorithmIdentifier")?;
    Ok(kind)
}

fn parse_spki(der_bytes: &[u8]) -> Result<(KeyType, PublicMaterial), Error> {
    let mut outer = Reader::new(der_bytes);
    let body = outer.read(der::TAG_SEQUENCE, "SubjectPublicKeyInfo")?;
    outer.finish("SubjectPublicKeyInfo")?;
    let mut r = Reader::new(body);
    let kind = read_algorithm(&mut r)?;
    let key = r.read_bit_string(der::TAG_BIT_STRING, "subjectPublicKey")?;
    r.finish("SubjectPublicKeyInfo")?;
    let (kind, material) = match kind {
        KeyType::Rsa { .. } => {
            let (n, e) = parse_rsa_public(key)?;
            let m = PublicMaterial::Rsa { n, e };
            (rsa_kind(&m), m)
        }
        KeyType::Ed25519 | KeyType::Ed448 => (kind, PublicMaterial::Okp { x: key.to_vec() }),
        _ => (kind, ec_point(kind, key)?),
    };
    validate_public(kind, &material, Src::Der)?;
    Ok((kind, material))
}

fn ec_point(kind: KeyType, point: &[u8]) -> Result<PublicMaterial, Error> {
    let len = kind.field_len();
    match point.split_first() {
        Some((4, rest)) if rest.len() == 2 * len => Ok(PublicMaterial::Ec {
            x: rest.get(..len).unwrap_or_default().to_vec(),
            y: rest.get(len..).unwrap_or_default().to_vec(),
        }),
        Some((2 | 3, _)) => Err(Error::new(
            ErrorCode::InvalidKey,
            "compressed EC points are not supported; use the uncompressed form",
        )),
        _ => Err(Error::new(
            ErrorCode::InvalidKey,
            format!("a {kind} public point is 0x04 followed by {} bytes", 2 * len),
        )),
    }
}

fn parse_rsa_public(der_bytes: &[u8]) -> Result<(Vec<u8>, Vec<u8>), Error> {
    let mut outer = Reader::new(der_bytes);
    let body = outer.read(der::TAG_SEQUENCE, "RSAPublicKey")?;
    outer.finish("RSAPublicKey")?;
    let mut r = Reader::new(body);
    let n = r.read_uint("modulus")?.to_vec();
    let e = r.read_uint("publicExponent")?.to_vec();
    r.finish("RSAPublicKey")?;
    Ok((n, e))
}

/// Any DER private key: PKCS#8, PKCS#1 or SEC1, told apart by the element after the version
/// (`curve` names the curve of a SEC1 key that lacks parameters).
fn parse_private_der(der_bytes: &[u8], curve: Option<KeyType>) -> Result<PrivateKey, Error> {
    let mut outer = Reader::new(der_bytes);
    let body = outer.read(der::TAG_SEQUENCE, "private key")?;
    let mut r = Reader::new(body);
    r.read(der::TAG_INTEGER, "version")?;
    match r.peek_tag() {
        Some(der::TAG_SEQUENCE) => parse_pkcs8(der_bytes),
        Some(der::TAG_INTEGER) => parse_pkcs1_private(der_bytes),
        Some(der::TAG_OCTET_STRING) => parse_sec1(der_bytes, curve),
        _ => Err(Error::new(
            ErrorCode::InvalidKey,
            "unrecognized DER private key (expected PKCS#8, PKCS#1 or SEC1)",
        )),
    }
}

fn parse_pkcs8(der_bytes: &[u8]) -> Result<PrivateKey, Error> {
    let mut outer = Reader::new(der_bytes);
    let body = outer.read(der::TAG_SEQUENCE, "PrivateKeyInfo")?;
    outer.finish("PrivateKeyInfo")?;
    let mut r = Reader::new(body);
    let version = r.read_small_uint("version")?;
    if version > 1 {
        return Err(Error::new(
            ErrorCode::InvalidKey,
            format!("unsupported PKCS#8 version {version}"),
        ));
    }
    let kind = read_algorithm(&mut r)?;
    let private = r.read(der::TAG_OCTET_STRING, "privateKey")?;
    let _attributes = r.read_optional(der::TAG_CTX0)?;
    let v2_public = match r.read_optional(der::TAG_CTX1_PRIM)? {
        Some(bits) if version == 1 => Some(der::bit_string_bytes(bits, "publicKey")?.to_vec()),
        Some(_) => {
            return Err(Error::new(
                ErrorCode::InvalidKey,
                "a PKCS#8 v1 key cannot carry a public key",
            ))
        }
        None => None,
    };
    r.finish("PrivateKeyInfo")?;
    match kind {
        KeyType::Rsa { .. } => parse_pkcs1_private(private),
        KeyType::Ed25519 | KeyType::Ed448 => {
            let mut inner = Reader::new(private);
            let d = inner.read(der::TAG_OCTET_STRING, "CurvePrivateKey")?.to_vec();
            inner.finish("CurvePrivateKey")?;
            if d.len() != kind.field_len() {
                return Err(Error::new(
                    ErrorCode::InvalidKey,
                    format!(
                        "a {kind} private key is {} bytes, this one is {}",
                        kind.field_len(),
                        d.len()
                    ),
                ));
            }
            let public = v2_public.map(|x| PublicMaterial::Okp { x });
            build_private(kind, public, Secret::Okp { d }, None, None, Src::Der)
        }
        _ => {
            let key = parse_sec1(private, Some(kind))?;
            if let Some(point) = v2_public {
                if ec_point(kind, &point)? != key.public.material {
                    return Err(Error::new(
                        ErrorCode::InvalidKey,
                        "the PKCS#8 public key does not match the private key",
                    ));
                }
            }
            Ok(key)
        }
    }
}

fn parse_sec1(der_bytes: &[u8], curve: Option<KeyType>) -> Result<PrivateKey, Error> {
    let mut outer = Reader::new(der_bytes);
    let body = outer.read(der::TAG_SEQUENCE, "ECPrivateKey")?;
    outer.finish("ECPrivateKey")?;
    let mut r = Reader::new(body);
    if r.read_small_uint("version")? != 1 {
        return Err(Error::new(
            ErrorCode::InvalidKey,
            "ECPrivateKey version must be 1",
        ));
    }
    let d = r.read(der::TAG_OCTET_STRING, "privateKey")?;
    let params = r.read_optional(der::TAG_CTX0)?;
    let public = r.read_optional(der::TAG_CTX1)?;
    r.finish("ECPrivateKey")?;
    let named = match params {
        Some(p) => {
            let mut pr = Reader::new(p);
            if pr.peek_tag() != Some(der::TAG_OID) {
                return Err(Error::new(
                    ErrorCode::InvalidKey,
                    "EC keys with explicit curve parameters are not supported; use a named curve",
                ));
            }
            let o = pr.read(der::TAG_OID, "named curve")?;
            pr.finish("ECParameters")?;
            Some(KeyType::from_ec_oid(o).ok_or_else(|| {
                Error::new(
                    ErrorCode::InvalidKey,
                    format!("unsupported elliptic curve OID {}", dotted_oid(o)),
                )
            })?)
        }
        None => None,
    };
    let kind = match (named, curve) {
        (Some(a), Some(b)) if a != b => {
            return Err(Error::new(
                ErrorCode::InvalidKey,
                "the ECPrivateKey curve differs from the algorithm's curve",
            ))
        }
        (Some(a), _) => a,
        (None, Some(b)) => b,
        (None, None) => {
            return Err(Error::new(
                ErrorCode::InvalidKey,
                "the ECPrivateKey does not name its curve",
            ))
        }
    };
    let len = kind.field_len();
    if d.len() > len {
        return Err(Error::new(
            ErrorCode::InvalidKey,
            format!("a {kind} private scalar is {len} bytes, this one is {}", d.len()),
        ));
    }
    let d = left_pad(d, len);
    let public = match public {
        Some(p) => {
            let mut pr = Reader::new(p);
            let bits = pr.read_bit_string(der::TAG_BIT_STRING, "publicKey")?;
            pr.finish("publicKey")?;
            Some(ec_point(kind, bits)?)
        }
        None => None,
    };
    build_private(kind, public, Secret::Ec { d }, None, None, Src::Der)
}

fn parse_pkcs1_private(der_bytes: &[u8]) -> Result<PrivateKey, Error> {
    let mut outer = Reader::new(der_bytes);
    let body = outer.read(der::TAG_SEQUENCE, "RSAPrivateKey")?;
    outer.finish("RSAPrivateKey")?;
    let mut r = Reader::new(body);
    match r.read_small_uint("version")? {
        0 => {}
        1 => {
            return Err(Error::new(
                ErrorCode::InvalidKey,
                "multi-prime RSA keys are not supported",
            ))
        }
        v => {
            return Err(Error::new(
                ErrorCode::InvalidKey,
                format!("unsupported RSAPrivateKey version {v}"),
            ))
        }
    }
    let mut next = |what: &str| r.read_uint(what).map(<[u8]>::to_vec);
    let n = next("modulus")?;
    let e = next("publicExponent")?;
    let d = next("privateExponent")?;
    let p = next("prime1")?;
    let q = next("prime2")?;
    let dp = next("exponent1")?;
    let dq = next("exponent2")?;
    let qi = next("coefficient")?;
    r.finish("RSAPrivateKey")?;
    let material = PublicMaterial::Rsa { n, e };
    let kind = rsa_kind(&material);
    build_private(
        kind,
        Some(material),
        Secret::Rsa { d, p, q, dp, dq, qi },
        None,
        None,
        Src::Der,
    )
}

// ---------------------------------------------------------------------------------------------
// Curve arithmetic for validation only (not constant time: it handles public data).
// ---------------------------------------------------------------------------------------------

mod curve {
    use super::KeyType;
    use std::cmp::Ordering;

    /// Little-endian 64-bit limbs.
    type Big = Vec<u64>;

    fn from_be(bytes: &[u8]) -> Big {
        let mut out = Vec::with_capacity(bytes.len() / 8 + 1);
        for chunk in bytes.rchunks(8) {
            out.push(chunk.iter().fold(0u64, |acc, b| (acc << 8) | u64::from(*b)));
        }
        trim(out)
    }

    fn from_hex(hex: &str) -> Big {
        let digits: Vec<u8> = hex
            .bytes()
            .filter_map(|c| (c as char).to_digit(16).map(|d| d as u8))
            .collect();
        let mut bytes = Vec::with_capacity(digits.len() / 2 + 1);
        let odd = digits.len() % 2;
        if odd == 1 {
            bytes.push(digits.first().copied().unwrap_or(0));
        }
        for pair in digits.get(odd..).unwrap_or_default().chunks(2) {
            let hi = pair.first().copied().unwrap_or(0);
            let lo = pair.get(1).copied().unwrap_or(0);
            bytes.push(hi << 4 | lo);
        }
        from_be(&bytes)
    }

    fn trim(mut v: Big) -> Big {
        while v.last() == Some(&0) {
            v.pop();
        }
        v
    }

    fn cmp(a: &Big, b: &Big) -> Ordering {
        a.len()
            .cmp(&b.len())
            .then_with(|| a.iter().rev().cmp(b.iter().rev()))
    }

    fn add(a: &Big, b: &Big) -> Big {
        let mut out = Vec::with_capacity(a.len().max(b.len()) + 1);
        let mut carry = 0u128;
        for i in 0..a.len().max(b.len()) {
            let s = u128::from(a.get(i).copied().unwrap_or(0))
                + u128::from(b.get(i).copied().unwrap_or(0))
                + carry;
            out.push(s as u64);
            carry = s >> 64;
        }
        out.push(carry as u64);
        trim(out)
    }

    /// a - b for a >= b.
    fn sub(a: &Big, b: &Big) -> Big {
        let mut out = Vec::with_capacity(a.len());
        let mut borrow = 0i128;
        for (i, limb) in a.iter().enumerate() {
            let mut d = i128::from(*limb) - i128::from(b.get(i).copied().unwrap_or(0)) - borrow;
            borrow = 0;
            if d < 0 {
                d += 1i128 << 64;
                borrow = 1;
            }
            out.push(d as u64);
        }
        trim(out)
    }

    fn mul(a: &Big, b: &Big) -> Big {
        let mut out = vec![0u64; a.len() + b.len() + 1];
        for (i, x) in a.iter().enumerate() {
            let mut carry = 0u128;
            for (j, y) in b.iter().enumerate() {
                if let Some(slot) = out.get_mut(i + j) {
                    let t = u128::from(*x) * u128::from(*y) + u128::from(*slot) + carry;
                    *slot = t as u64;
                    carry = t >> 64;
                }
            }
            let mut k = i + b.len();
            while carry != 0 {
                if let Some(slot) = out.get_mut(k) {
                    let t = u128::from(*slot) + carry;
                    *slot = t as u64;
                    carry = t >> 64;
                    k += 1;
                } else {
                    break;
                }
            }
        }
        trim(out)
    }

    /// a mod m, by shift-and-subtract (inputs are public, speed is irrelevant).
    fn reduce(a: &Big, m: &Big) -> Big {
        let mut r: Big = Vec::new();
        for i in (0..a.len() * 64).rev() {
            let bit = a.get(i / 64).map_or(0, |l| (l >> (i % 64)) & 1);
            // r = 2r + bit
            let mut carry = bit;
            for limb in r.iter_mut() {
                let next = *limb >> 63;
                *limb = (*limb << 1) | carry;
                carry = next;
            }
            if carry != 0 {
                r.push(carry);
            }
            if cmp(&r, m) != Ordering::Less {
                r = sub(&r, m);
            }
        }
        trim(r)
    }

    struct Params {
        p: &'static str,
        a: &'static str,
        b: &'static str,
        n: &'static str,
    }

    // Domain parameters as printed by `openssl ecparam -name <curve> -param_enc explicit -text`.
    fn params(kind: KeyType) -> Option<Params> {
        match kind {
            KeyType::P256 => Some(Params {
                p: "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff",
                a: "ffffffff00000001000000000000000000000000fffffffffffffffffffffffc",
                b: "5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b",
                n: "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551",
            }),
            KeyType::P384 => Some(Params {
                p: "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff0000000000000000ffffffff",
                a: "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff0000000000000000fffffffc",
                b: "b3312fa7e23ee7e4988e056be3f82d19181d9c6efe8141120314088f5013875ac656398d8a2ed19d2a85c8edd3ec2aef",
                n: "ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973",
            }),
            KeyType::P521 => Some(Params {
                p: "01ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
                a: "01fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffc",
                b: "0051953eb9618e1c9a1f929a21a0b68540eea2da725b99b315f3b8b489918ef109e156193951ec7e937b1652c0bd3bb1bf073573df883d2c34f1ef451fd46b503f00",
                n: "01fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffa51868783bf2f966b7fcc0148f709a5d03bb5c9b8899c47aebb6fb71e91386409",
            }),
            KeyType::Secp256k1 => Some(Params {
                p: "fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f",
                a: "00",
                b: "07",
                n: "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141",
            }),
            _ => None,
        }
    }

    /// True when (x, y) satisfies y^2 = x^3 + ax + b (mod p) with x, y < p.
    pub(super) fn on_curve(kind: KeyType, x: &[u8], y: &[u8]) -> bool {
        let Some(c) = params(kind) else {
            return false;
        };
        let (p, a, b) = (from_hex(c.p), from_hex(c.a), from_hex(c.b));
        let (x, y) = (from_be(x), from_be(y));
        if cmp(&x, &p) != Ordering::Less || cmp(&y, &p) != Ordering::Less {
            return false;
        }
        let lhs = reduce(&mul(&y, &y), &p);
        let x2 = reduce(&mul(&x, &x), &p);
        let x3 = reduce(&mul(&x2, &x), &p);
        let ax = reduce(&mul(&a, &x), &p);
        let rhs = reduce(&add(&add(&x3, &ax), &b), &p);
        cmp(&lhs, &rhs) == Ordering::Equal
    }

    /// True when 1 <= d < n (the group order).
    pub(super) fn scalar_in_range(kind: KeyType, d: &[u8]) -> bool {
        let Some(c) = params(kind) else {
            return false;
        };
        let d = from_be(d);
        !d.is_empty() && cmp(&d, &from_hex(c.n)) == Ordering::Less
    }

    #[cfg(test)]
    #[allow(clippy::unwrap_used)]
    mod tests {
        use super::*;

        #[test]
        fn arithmetic() {
            let a = from_hex("ffffffffffffffffffffffffffffffff");
            let sq = mul(&a, &a);
            assert_eq!(
                sq,
                from_hex("fffffffffffffffffffffffffffffffe00000000000000000000000000000001")
            );
            assert_eq!(reduce(&sq, &a), Vec::<u64>::new());
            assert_eq!(reduce(&from_hex("64"), &from_hex("07")), from_hex("02"));
            assert_eq!(sub(&add(&a, &from_hex("01")), &from_hex("01")), a);
        }

        #[test]
        fn generators_are_on_their_curves() {
            // The base points, from `openssl ecparam -param_enc explicit -text`.
            let g = [
                (
                    KeyType::P256,
                    "6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296",
                    "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5",
                ),
                (
                    KeyType::Secp256k1,
                    "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798",
                    "483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8",
                ),
            ];
            for (kind, x, y) in g {
                let xb: Vec<u8> = (0..32)
                    .map(|i| u8::from_str_radix(&x[2 * i..2 * i + 2], 16).unwrap())
                    .collect();
                let mut yb: Vec<u8> = (0..32)
                    .map(|i| u8::from_str_radix(&y[2 * i..2 * i + 2], 16).unwrap())
                    .collect();
                assert!(on_curve(kind, &xb, &yb), "{kind}");
                yb[31] ^= 1;
                assert!(!on_curve(kind, &xb, &yb), "{kind}");
            }
        }
    }
}
