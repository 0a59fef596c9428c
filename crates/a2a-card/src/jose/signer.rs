//! Signing through something that holds a private key: a [`PrivateKey`] in memory, or a key that
//! never leaves a token, a KMS or another process ([`Signer`]), and the one rule for every
//! signature such a key returns: it is checked with the key's public key before it is used.
//!
//! The library does no I/O: a [`Signer`] for a PKCS#11 token or a KMS plugin lives in a crate of
//! its own (`a2a-card-keys`) and hands back raw JWS signature bytes. [`sign_with`] is what the
//! signing path of [`crate::sign_card`] calls for each signature: it checks the algorithm against
//! the public key, signs, and verifies an external signature before returning it.
//!
//! ```
//! use a2a_card::jose::signer::{sign_with, Signer};
//! use a2a_card::{Algorithm, Error, ErrorCode, PrivateKey, PublicKey};
//!
//! /// A signer that holds one key and claims another one's public key.
//! struct Liar { key: PrivateKey, claimed: PublicKey }
//! impl Signer for Liar {
//!     fn public_key(&self) -> &PublicKey { &self.claimed }
//!     fn sign(&self, alg: Algorithm, input: &[u8]) -> Result<Vec<u8>, Error> {
//!         self.key.sign(alg, input)
//!     }
//! }
//! let honest = PrivateKey::generate(Algorithm::ES256).unwrap();
//! assert_eq!(sign_with(&honest, Algorithm::ES256, b"input").unwrap().len(), 64);
//! let liar = Liar {
//!     key: PrivateKey::generate(Algorithm::ES256).unwrap(),
//!     claimed: honest.public().clone(),
//! };
//! let err = sign_with(&liar, Algorithm::ES256, b"input").unwrap_err();
//! assert_eq!(err.code(), ErrorCode::ExternalSignatureInvalid);
//! ```

use super::algorithm::Algorithm;
use super::crypto;
use super::der::{self, Reader};
use super::keys::{PrivateKey, PublicKey};
use crate::error::{Error, ErrorCode};

/// Something that signs with a private key: the key's public half, and a signature over a JWS
/// signing input (`BASE64URL(protected) '.' BASE64URL(payload)`) in JWS form (raw r||s of the
/// curve's length for ECDSA, RFC 7518 section 3.4).
///
/// [`PrivateKey`] is one. Another implementation (a PKCS#11 token, a KMS, a remote service)
/// never has its signatures trusted as they come: [`sign_with`] verifies each one with
/// [`Signer::public_key`] first, and refuses it with `external-signature-invalid` when it does
/// not verify (a token that signs with another key, a plugin that returns garbage).
///
/// ```
/// use a2a_card::jose::signer::Signer;
/// use a2a_card::{Algorithm, PrivateKey};
/// let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
/// let signer: &dyn Signer = &key;
/// assert_eq!(signer.default_algorithm(), Algorithm::EdDSA);
/// assert_eq!(signer.sign(Algorithm::EdDSA, b"m").unwrap().len(), 64);
/// ```
pub trait Signer {
    /// The public key of the signing key: its kid (by default its RFC 7638 thumbprint) goes in
    /// the protected header, and every external signature is verified with it.
    fn public_key(&self) -> &PublicKey;

    /// Signs `signing_input` with `alg`, returning the signature in JWS form.
    fn sign(&self, alg: Algorithm, signing_input: &[u8]) -> Result<Vec<u8>, Error>;

    /// The algorithm used when the caller names none: by default the public key's (Ed25519
    /// EdDSA, P-256 ES256, P-384 ES384, P-521 ES512, RSA RS256). A signer whose key signs
    /// one padding only (an RSA key in a KMS that signs RSA-PSS) says so here.
    fn default_algorithm(&self) -> Algorithm {
        self.public_key().default_algorithm()
    }

    /// The in-memory key behind this signer, when there is one: the library then signs with it
    /// itself and does not check the signature again. Only a key whose public half is the very
    /// [`Signer::public_key`] object counts; anything else is checked as external.
    #[doc(hidden)]
    fn local_key(&self) -> Option<&PrivateKey> {
        None
    }
}

impl Signer for PrivateKey {
    fn public_key(&self) -> &PublicKey {
        self.public()
    }

    fn sign(&self, alg: Algorithm, signing_input: &[u8]) -> Result<Vec<u8>, Error> {
        crypto::sign(alg, self, signing_input)
    }

    fn default_algorithm(&self) -> Algorithm {
        PrivateKey::default_algorithm(self)
    }

    fn local_key(&self) -> Option<&PrivateKey> {
        Some(self)
    }
}

impl<S: Signer + ?Sized> Signer for &S {
    fn public_key(&self) -> &PublicKey {
        (**self).public_key()
    }
    fn sign(&self, alg: Algorithm, signing_input: &[u8]) -> Result<Vec<u8>, Error> {
        (**self).sign(alg, signing_input)
    }
    fn default_algorithm(&self) -> Algorithm {
        (**self).default_algorithm()
    }
    fn local_key(&self) -> Option<&PrivateKey> {
        (**self).local_key()
    }
}

impl<S: Signer + ?Sized> Signer for Box<S> {
    fn public_key(&self) -> &PublicKey {
        (**self).public_key()
    }
    fn sign(&self, alg: Algorithm, signing_input: &[u8]) -> Result<Vec<u8>, Error> {
        (**self).sign(alg, signing_input)
    }
    fn default_algorithm(&self) -> Algorithm {
        (**self).default_algorithm()
    }
    fn local_key(&self) -> Option<&PrivateKey> {
        (**self).local_key()
    }
}

/// Signs `signing_input` through `signer` with `alg`: the algorithm must fit the public key
/// (`key-algorithm-mismatch`), and a signature made outside the library must verify with the
/// signer's public key (`external-signature-invalid` when it does not: its length is wrong, it
/// is not a signature, or another key made it). This is the signing path of every card.
///
/// ```
/// use a2a_card::jose::signer::sign_with;
/// use a2a_card::{Algorithm, PrivateKey};
/// let key = PrivateKey::generate(Algorithm::ES384).unwrap();
/// assert_eq!(sign_with(&key, Algorithm::ES384, b"m").unwrap().len(), 96);
/// let err = sign_with(&key, Algorithm::ES256, b"m").unwrap_err();
/// assert_eq!(err.code().as_str(), "key-algorithm-mismatch");
/// ```
pub fn sign_with<S: Signer + ?Sized>(
    signer: &S,
    alg: Algorithm,
    signing_input: &[u8],
) -> Result<Vec<u8>, Error> {
    let public = signer.public_key();
    public.check_algorithm(alg)?;
    if let Some(local) = signer.local_key() {
        if std::ptr::eq(local.public(), public) {
            return crypto::sign(alg, local, signing_input);
        }
    }
    let signature = signer.sign(alg, signing_input)?;
    crypto::verify(alg, public, signing_input, &signature).map_err(|e| {
        let rsa = matches!(
            alg,
            Algorithm::RS256 | Algorithm::RS384 | Algorithm::RS512 | Algorithm::PS256 | Algorithm::PS384 | Algorithm::PS512
        );
        let hint = if rsa {
            " (a KMS may sign RSA with one padding only: RS* is PKCS#1 v1.5, PS* is RSA-PSS; choose the other \
             algorithm if that is the one it uses)"
        } else {
            ""
        };
        Error::new(
            ErrorCode::ExternalSignatureInvalid,
            format!(
                "the {alg} signature the key returned does not verify with its public key (kid {:?}), \
                 so it was not used: {}{hint}",
                public.kid(),
                e.message()
            ),
        )
    })?;
    Ok(signature)
}

/// Brings an ECDSA signature to its JWS form: raw r||s, each as long as the curve's field
/// (RFC 7518 section 3.4). `signature` may already be in that form (exactly twice the field
/// length) or be an ASN.1 DER `SEQUENCE { INTEGER r, INTEGER s }`, as KMSs, PKCS#11 modules
/// with an OpenSSL habit and Go's `ecdsa.SignASN1` return it. Other algorithms' signatures
/// come back unchanged. A DER value whose integers do not fit the field, or bytes that are
/// neither form, are refused (`signature-invalid`).
///
/// ```
/// use a2a_card::jose::signer::ecdsa_to_jws;
/// use a2a_card::Algorithm;
/// // SEQUENCE { INTEGER 1, INTEGER 0x80 } for P-256.
/// let der = [0x30, 0x07, 0x02, 0x01, 0x01, 0x02, 0x02, 0x00, 0x80];
/// let raw = ecdsa_to_jws(Algorithm::ES256, &der).unwrap();
/// assert_eq!(raw.len(), 64);
/// assert_eq!((raw[31], raw[63]), (0x01, 0x80));
/// let err = ecdsa_to_jws(Algorithm::ES256, &[0u8; 63]).unwrap_err();
/// assert_eq!(err.code().as_str(), "signature-invalid");
/// // Raw r||s whose first bytes read like a SEQUENCE of the whole length stays raw.
/// let mut raw = [7u8; 96];
/// raw[0] = 0x30;
/// raw[1] = 94;
/// assert_eq!(ecdsa_to_jws(Algorithm::ES384, &raw).unwrap(), raw.to_vec());
/// ```
pub fn ecdsa_to_jws(alg: Algorithm, signature: &[u8]) -> Result<Vec<u8>, Error> {
    let field = match alg {
        Algorithm::ES256 | Algorithm::ES256K => 32,
        Algorithm::ES384 => 48,
        Algorithm::ES512 => 66,
        _ => return Ok(signature.to_vec()),
    };
    if signature.len() == 2 * field && signature.first() != Some(&der::TAG_SEQUENCE) {
        return Ok(signature.to_vec());
    }
    let refused = |why: &str| {
        Error::new(
            ErrorCode::SignatureInvalid,
            format!(
                "the {alg} signature is neither raw r||s of {} bytes nor an ASN.1 DER SEQUENCE of two \
                 integers that fit {field} bytes: {why} ({} bytes)",
                2 * field,
                signature.len()
            ),
        )
    };
    let mut outer = Reader::new(signature);
    let body = match outer.read(der::TAG_SEQUENCE, "signature") {
        Ok(body) if outer.is_empty() => body,
        // 2 * field bytes that begin like a SEQUENCE but do not parse: raw after all.
        _ if signature.len() == 2 * field => return Ok(signature.to_vec()),
        _ => return Err(refused("not DER")),
    };
    let mut inner = Reader::new(body);
    let (r, s) = match (inner.read_uint("r"), inner.read_uint("s")) {
        (Ok(r), Ok(s))
            if inner.is_empty() && !r.is_empty() && !s.is_empty() && r.len() <= field && s.len() <= field =>
        {
            (r, s)
        }
        // 2 * field bytes whose first two happen to read as a SEQUENCE's tag and length (about
        // one raw signature in 65,536): raw after all, as above.
        _ if signature.len() == 2 * field => return Ok(signature.to_vec()),
        (Ok(r), Ok(s)) if inner.is_empty() => {
            if r.len() > field || s.len() > field {
                return Err(refused("an integer is longer than the curve's field"));
            }
            return Err(refused("an integer is zero"));
        }
        _ => {
            return Err(refused(
                "the SEQUENCE does not hold exactly two non-negative integers",
            ))
        }
    };
    let mut out = vec![0u8; 2 * field];
    out[field - r.len()..field].copy_from_slice(r);
    out[2 * field - s.len()..].copy_from_slice(s);
    Ok(out)
}
