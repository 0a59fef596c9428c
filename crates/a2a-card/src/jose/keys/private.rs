//! Private keys: the secret material (never shown by `Debug`), the ready-to-use signer, and the
//! assembly from parts that checks the private part against the public part.

use super::curve;
use super::kind::KeyType;
use super::public::{bit_len, validate_public, PublicKey, PublicMaterial, Src};
#[cfg(feature = "native-algs")]
use super::spki::parse_spki;
use crate::error::{Error, ErrorCode};
use crate::jose::algorithm::Algorithm;
use crate::jose::der::{self, oid};
use std::fmt;
use std::sync::Arc;

#[derive(Clone)]
pub(super) enum Secret {
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
pub(crate) enum KeyPair {
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
    pub(super) secret: Secret,
    pub(crate) signer: KeyPair,
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

impl PrivateKey {
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
}

pub(super) fn left_pad(v: &[u8], len: usize) -> Vec<u8> {
    let mut out = vec![0u8; len.saturating_sub(v.len())];
    out.extend_from_slice(v);
    out
}

/// Builds a private key from parts, checking that they agree.
pub(super) fn build_private(
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
            (PublicMaterial::Okp { x }, KeyPair::Ed25519(Arc::new(kp)))
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
                KeyPair::Ecdsa(Arc::new(kp)),
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
                KeyPair::Rsa(Arc::new(kp)),
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
pub(super) fn native_private(
    kind: KeyType,
    secret: &Secret,
    public: Option<PublicMaterial>,
    src: Src<'_>,
) -> Result<(PublicMaterial, KeyPair), Error> {
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
    let spki = crate::jose::native::derive_public(&pkcs8, kind == KeyType::Ed448, kind == KeyType::P521)
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
    Ok((derived, KeyPair::Native))
}

#[cfg(not(feature = "native-algs"))]
pub(super) fn native_private(
    kind: KeyType,
    _secret: &Secret,
    _public: Option<PublicMaterial>,
    _src: Src<'_>,
) -> Result<(PublicMaterial, KeyPair), Error> {
    Err(crate::jose::native::unavailable(&format!("{kind} private keys")))
}
