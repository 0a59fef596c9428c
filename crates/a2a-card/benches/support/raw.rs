//! ring's own signature operations over a JWS signing input, with the same key as an
//! a2a-card `PrivateKey`: the raw check that verification is measured beside (`sign_verify`'s
//! floor, `examples/verify_count.rs`). A key ring refuses to sign with panics: it is a bench.

#![allow(clippy::unwrap_used)]

use a2a_card::jose::keys::PrivateKey;
use a2a_card::Algorithm;
use ring::signature::{self, KeyPair};

/// The same key as ring objects, built once outside the timed loops.
pub enum RawKey {
    Ed25519(signature::Ed25519KeyPair),
    Ecdsa(
        signature::EcdsaKeyPair,
        &'static signature::EcdsaVerificationAlgorithm,
    ),
    Rsa(
        signature::RsaKeyPair,
        &'static dyn signature::RsaEncoding,
        &'static signature::RsaParameters,
    ),
}

impl RawKey {
    /// `key` as ring's key pair for `alg`; `None` for the algorithms ring does not implement.
    pub fn of(alg: Algorithm, key: &PrivateKey) -> Option<RawKey> {
        let pkcs8 = key.to_pkcs8_der();
        let rng = ring::rand::SystemRandom::new();
        let ecdsa = |signing, verifying| {
            Some(RawKey::Ecdsa(
                signature::EcdsaKeyPair::from_pkcs8(signing, &pkcs8, &rng).ok()?,
                verifying,
            ))
        };
        let rsa = |encoding, params| {
            Some(RawKey::Rsa(
                signature::RsaKeyPair::from_pkcs8(&pkcs8).ok()?,
                encoding,
                params,
            ))
        };
        match alg {
            Algorithm::EdDSA => Some(RawKey::Ed25519(
                signature::Ed25519KeyPair::from_pkcs8_maybe_unchecked(&pkcs8).ok()?,
            )),
            Algorithm::ES256 => ecdsa(
                &signature::ECDSA_P256_SHA256_FIXED_SIGNING,
                &signature::ECDSA_P256_SHA256_FIXED,
            ),
            Algorithm::ES384 => ecdsa(
                &signature::ECDSA_P384_SHA384_FIXED_SIGNING,
                &signature::ECDSA_P384_SHA384_FIXED,
            ),
            Algorithm::RS256 => rsa(
                &signature::RSA_PKCS1_SHA256,
                &signature::RSA_PKCS1_2048_8192_SHA256,
            ),
            Algorithm::RS512 => rsa(
                &signature::RSA_PKCS1_SHA512,
                &signature::RSA_PKCS1_2048_8192_SHA512,
            ),
            Algorithm::PS256 => rsa(&signature::RSA_PSS_SHA256, &signature::RSA_PSS_2048_8192_SHA256),
            _ => None,
        }
    }

    /// ring's verification of `sig` over `input` with the public half (it hashes `input`).
    pub fn verify(&self, input: &[u8], sig: &[u8]) -> bool {
        match self {
            RawKey::Ed25519(kp) => {
                signature::UnparsedPublicKey::new(&signature::ED25519, kp.public_key().as_ref())
                    .verify(input, sig)
            }
            RawKey::Ecdsa(kp, alg) => {
                signature::UnparsedPublicKey::new(*alg, kp.public_key().as_ref()).verify(input, sig)
            }
            RawKey::Rsa(kp, _, params) => {
                signature::UnparsedPublicKey::new(*params, kp.public().as_ref()).verify(input, sig)
            }
        }
        .is_ok()
    }

    /// ring's signature over `input`: its length.
    pub fn sign(&self, input: &[u8]) -> usize {
        let rng = ring::rand::SystemRandom::new();
        match self {
            RawKey::Ed25519(kp) => kp.sign(input).as_ref().len(),
            RawKey::Ecdsa(kp, _) => kp.sign(&rng, input).unwrap().as_ref().len(),
            RawKey::Rsa(kp, enc, _) => {
                let mut out = vec![0u8; kp.public().modulus_len()];
                kp.sign(*enc, &rng, input, &mut out).unwrap();
                out.len()
            }
        }
    }
}
