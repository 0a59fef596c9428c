//! The signature-backend hook (`alg::SignatureBackend`, `alg::verify_with`,
//! `verify::verify_card_with`): a backend is asked for the final primitive only, after every
//! check of the library; a backend that declines leaves the check to ring; a backend's own
//! failure is the signature's verdict, at the signature's JSON Pointer.
#![allow(clippy::unwrap_used)] // helpers of the tests report by panicking

mod support;

use a2a_card::jose::crypto as alg;
use a2a_card::jose::crypto::{verify_with, BackendVerdict, SignatureBackend, SignatureCheck};
use a2a_card::jose::keys::PrivateKey;
use a2a_card::signature::verify_card_with;
use a2a_card::Algorithm;
use a2a_card::{sign_card, verify_card, Error, ErrorCode, TrustStore, VerifyOptions};
use std::cell::RefCell;
use support::lenient;

/// What the backend was asked: algorithm, message and signature of every call.
type Calls = RefCell<Vec<(Algorithm, Vec<u8>, Vec<u8>)>>;

/// Declines every call, recording it.
#[derive(Default)]
struct Declines {
    calls: Calls,
}

impl SignatureBackend for Declines {
    fn verify(&self, c: &SignatureCheck<'_>) -> Result<BackendVerdict, Error> {
        self.calls
            .borrow_mut()
            .push((c.alg, c.message.to_vec(), c.signature.to_vec()));
        Ok(BackendVerdict::Declined)
    }
}

/// Answers with a fixed verdict, recording each call.
struct Says {
    verdict: BackendVerdict,
    calls: Calls,
}

impl Says {
    fn new(verdict: BackendVerdict) -> Self {
        Says {
            verdict,
            calls: RefCell::new(Vec::new()),
        }
    }
}

impl SignatureBackend for Says {
    fn verify(&self, c: &SignatureCheck<'_>) -> Result<BackendVerdict, Error> {
        self.calls
            .borrow_mut()
            .push((c.alg, c.message.to_vec(), c.signature.to_vec()));
        Ok(self.verdict)
    }
}

/// Fails every call, as a host whose crypto throws would.
struct Fails;

impl SignatureBackend for Fails {
    fn verify(&self, _: &SignatureCheck<'_>) -> Result<BackendVerdict, Error> {
        Err(Error::new(
            ErrorCode::InvalidKey,
            "the host could not import the key",
        ))
    }
}

/// A second implementation of the primitive: the library's own ring check, called from outside.
struct Ring;

impl SignatureBackend for Ring {
    fn verify(&self, c: &SignatureCheck<'_>) -> Result<BackendVerdict, Error> {
        Ok(match alg::verify(c.alg, c.key, c.message, c.signature) {
            Ok(()) => BackendVerdict::Valid,
            Err(_) => BackendVerdict::Invalid,
        })
    }
}

const CARD: &[u8] = br#"{"name":"Backend Agent","description":"d","version":"1","skills":[]}"#;

fn signed(key: &PrivateKey) -> Vec<u8> {
    sign_card(CARD, key, &lenient()).unwrap().card
}

fn trusting(key: &PrivateKey) -> TrustStore {
    let mut trust = TrustStore::new();
    trust.pin(key.public().clone(), "test");
    trust
}

/// The card with its one signature replaced by `sig` (base64url-encoded here).
fn with_signature(card: &[u8], sig: &[u8]) -> Vec<u8> {
    let mut v: serde_json::Value = serde_json::from_slice(card).unwrap();
    v["signatures"][0]["signature"] = serde_json::Value::String(a2a_card_testkit::data::b64url(sig));
    serde_json::to_vec(&v).unwrap()
}

fn signature_of(card: &[u8]) -> Vec<u8> {
    let v: serde_json::Value = serde_json::from_slice(card).unwrap();
    a2a_card_testkit::data::unb64url(v["signatures"][0]["signature"].as_str().unwrap())
}

#[test]
fn a_declining_backend_falls_back_to_ring_with_the_same_verdicts() {
    for &alg in &[Algorithm::EdDSA, Algorithm::ES256, Algorithm::ES384] {
        let key = PrivateKey::generate(alg).unwrap();
        let card = signed(&key);
        let trust = trusting(&key);
        let opts = VerifyOptions::default();
        let backend = Declines::default();

        let report = verify_card_with(&card, &trust, &opts, Some(&backend)).unwrap();
        assert!(report.ok, "{alg}: {report:?}");
        assert_eq!(report, verify_card(&card, &trust, &opts).unwrap());

        let mut sig = signature_of(&card);
        sig[5] ^= 1;
        let bad = with_signature(&card, &sig);
        let report = verify_card_with(&bad, &trust, &opts, Some(&backend)).unwrap();
        assert!(!report.ok);
        assert_eq!(report.signatures[0].verdict.code, "signature-invalid");
        assert_eq!(report, verify_card(&bad, &trust, &opts).unwrap());

        // It was asked both times, with the JWS signing input and the raw signature; for the
        // bad card once more, over the prune-empty bytes (which differ: `skills` is empty), to
        // see whether a hint is due.
        let calls = backend.calls.borrow();
        assert_eq!(calls.len(), 3, "{alg}");
        let v: serde_json::Value = serde_json::from_slice(&card).unwrap();
        let protected = v["signatures"][0]["protected"].as_str().unwrap();
        let payload = a2a_card_testkit::data::b64url(&report.canonical);
        assert_eq!(calls[0].0, alg);
        assert_eq!(calls[0].1, format!("{protected}.{payload}").into_bytes());
        assert_eq!(calls[0].2, signature_of(&card));
        assert_eq!(calls[1].2, sig);
    }
}

#[test]
fn the_backend_verdict_is_the_verdict() {
    let key = PrivateKey::generate(Algorithm::ES256).unwrap();
    let card = signed(&key);
    let trust = trusting(&key);
    let opts = VerifyOptions::default();

    // A backend that says invalid makes a good signature fail, with ring's code and message.
    let no = Says::new(BackendVerdict::Invalid);
    let report = verify_card_with(&card, &trust, &opts, Some(&no)).unwrap();
    assert!(!report.ok);
    let mut sig = signature_of(&card);
    sig[0] ^= 0x80;
    let ring_bad = verify_card(&with_signature(&card, &sig), &trust, &opts).unwrap();
    assert_eq!(report.signatures[0].verdict, ring_bad.signatures[0].verdict);

    // A backend that says valid is believed for a well-formed signature from a trusted key.
    let yes = Says::new(BackendVerdict::Valid);
    let report = verify_card_with(&with_signature(&card, &sig), &trust, &opts, Some(&yes)).unwrap();
    assert!(report.ok);
    assert_eq!(yes.calls.borrow().len(), 1);

    // ring called as a backend agrees with ring called directly.
    for card in [card.clone(), with_signature(&card, &sig)] {
        assert_eq!(
            verify_card_with(&card, &trust, &opts, Some(&Ring)).unwrap(),
            verify_card(&card, &trust, &opts).unwrap()
        );
    }
}

#[test]
fn a_backend_failure_is_reported_at_the_signature() {
    let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    let other = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    // Two signatures: the backend fails on both; each verdict names its own signature.
    let first = signed(&key);
    let both = sign_card(&first, &other, &lenient()).unwrap().card;
    let mut trust = trusting(&key);
    trust.pin(other.public().clone(), "test");
    let report = verify_card_with(&both, &trust, &VerifyOptions::default(), Some(&Fails)).unwrap();
    assert!(!report.ok);
    for (i, s) in report.signatures.iter().enumerate() {
        assert_eq!(s.verdict.code, "invalid-key");
        assert_eq!(s.verdict.message, "the host could not import the key");
        assert_eq!(
            s.verdict.pointer.as_deref(),
            Some(format!("/signatures/{i}/signature").as_str())
        );
        // The key it was checked with is still named.
        assert!(s.key.is_some());
    }
    // verify_with passes the backend's error through unchanged.
    let sig = alg::sign(Algorithm::EdDSA, &key, b"m").unwrap();
    let e = verify_with(Algorithm::EdDSA, key.public(), b"m", &sig, Some(&Fails)).unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidKey);
}

#[test]
fn the_library_checks_before_the_backend_is_asked() {
    // A backend that says valid to everything cannot make the library accept what its own checks
    // refuse, and is not even asked.
    let yes = Says::new(BackendVerdict::Valid);
    let key = PrivateKey::generate(Algorithm::ES256).unwrap();
    let card = signed(&key);
    let trust = trusting(&key);
    let opts = VerifyOptions::default();
    let sig = signature_of(&card);

    // Wrong length (one byte short, one byte more).
    for bad in [&sig[..63], &[&sig[..], &[0u8]].concat()[..]] {
        let report = verify_card_with(&with_signature(&card, bad), &trust, &opts, Some(&yes)).unwrap();
        assert_eq!(report.signatures[0].verdict.code, "signature-invalid");
    }
    // An untrusted key.
    let stranger = PrivateKey::generate(Algorithm::ES256).unwrap();
    let report = verify_card_with(&card, &trusting(&stranger), &opts, Some(&yes)).unwrap();
    assert_eq!(report.signatures[0].verdict.code, "untrusted-key");
    // An algorithm the policy does not allow.
    let only_eddsa = VerifyOptions {
        algorithms: Some(vec![Algorithm::EdDSA]),
        ..VerifyOptions::default()
    };
    let report = verify_card_with(&card, &trust, &only_eddsa, Some(&yes)).unwrap();
    assert_eq!(report.signatures[0].verdict.code, "algorithm-not-allowed");
    assert!(yes.calls.borrow().is_empty());

    // The primitive level: key type against algorithm, HMAC with a public key, lengths.
    assert_eq!(
        verify_with(Algorithm::ES384, key.public(), b"m", &[0u8; 96], Some(&yes))
            .unwrap_err()
            .code(),
        ErrorCode::KeyAlgorithmMismatch
    );
    assert_eq!(
        verify_with(Algorithm::HS256, key.public(), b"m", &[0u8; 32], Some(&yes))
            .unwrap_err()
            .code(),
        ErrorCode::KeyAlgorithmMismatch
    );
    let ed = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    assert_eq!(
        verify_with(Algorithm::EdDSA, ed.public(), b"m", &[0u8; 63], Some(&yes))
            .unwrap_err()
            .code(),
        ErrorCode::SignatureInvalid
    );
    assert!(yes.calls.borrow().is_empty());
    // Only a well-formed call reaches it.
    assert!(verify_with(Algorithm::EdDSA, ed.public(), b"m", &[0u8; 64], Some(&yes)).is_ok());
    assert_eq!(yes.calls.borrow().len(), 1);
}
