//! What the keys crate's test files share that needs the library's own types (the testkit
//! does not depend on the library).

#![allow(dead_code, clippy::unwrap_used)]

use a2a_card::signature::trust::{TrustStore, TrustedKey};
use a2a_card::{
    sign_card, verify_card, Algorithm, PrivateKey, PublicKey, SignOptions, Signed, Signer, VerifyOptions,
};
use a2a_card_testkit::data::testvectors_dir;
use std::path::{Path, PathBuf};

/// A fresh key of `alg` written as PKCS#8 PEM to `dir/name.pem`: (the file, the key).
pub fn key_file(dir: &Path, name: &str, alg: Algorithm) -> (PathBuf, PrivateKey) {
    let key = PrivateKey::generate(alg).unwrap();
    let path = dir.join(format!("{name}.pem"));
    std::fs::write(&path, key.to_pkcs8_pem()).unwrap();
    (path, key)
}

/// The A2A v1.0 section 8.5 sample card, unsigned.
pub fn card() -> Vec<u8> {
    std::fs::read(testvectors_dir().join("cards/sample-8.5-unsigned.json")).unwrap()
}

/// Signing options with `alg` (the key's default when `None`) that leave the sample card's
/// unknown members unsigned.
pub fn sign_opts(alg: Option<Algorithm>) -> SignOptions {
    SignOptions {
        alg,
        allow_unsigned: true,
        ..SignOptions::default()
    }
}

/// Signs the sample card with `key` ([`sign_opts`] of `alg`) and asserts that it verifies with
/// `public` (trusted under the kid the signature got); the signed card.
#[track_caller]
pub fn sign_and_verify<S: Signer + ?Sized>(key: &S, public: &PublicKey, alg: Option<Algorithm>) -> Signed {
    let signed = sign_card(&card(), key, &sign_opts(alg)).unwrap();
    let mut trust = TrustStore::new();
    trust.add(TrustedKey::new(
        public.clone().with_kid(signed.kid.clone()),
        "test",
    ));
    let report = verify_card(&signed.card, &trust, &VerifyOptions::default()).unwrap();
    assert!(report.ok, "{}", report.to_json());
    signed
}
