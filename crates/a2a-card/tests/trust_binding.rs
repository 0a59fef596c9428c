//! A key listed more than once is bound by every listing: a revoked, expired, origin-bound or
//! algorithm-limited entry holds for the same key (by RFC 7638 thumbprint, whatever its kid)
//! arriving through another entry, such as a JWKS fetched from a `jku`. And the work one card
//! can cause is bounded: trusted keys per kid, signature checks per card.

#![allow(clippy::unwrap_used, clippy::panic)]

use a2a_card::jose::crypto::{BackendVerdict, SignatureBackend, SignatureCheck};
use a2a_card::jose::keys::PrivateKey;
use a2a_card::signature::trust::TrustedKey;
use a2a_card::signature::{verify_card_with, DEFAULT_MAX_SIGNATURE_CHECKS};
use a2a_card::Algorithm;
use a2a_card::{sign_card, Error, Profile, SignOptions, TrustStore, VerifyOptions};
use std::cell::Cell;

mod support;

const CARD: &[u8] = br#"{"name":"A","description":"d","version":"1","skills":[]}"#;

fn signed_with_kid(key: &PrivateKey, kid: &str) -> Vec<u8> {
    let opts = SignOptions {
        kid: Some(kid.into()),
        ..SignOptions::default()
    };
    sign_card(CARD, key, &opts).unwrap().card
}

/// The caller's entry for `key` under kid "release", changed by `policy`, and the same key again
/// under kid "dup" as keys from a `jku` join the store (bound to the card's origin).
fn store(key: &PrivateKey, policy: impl FnOnce(&mut TrustedKey)) -> TrustStore {
    let mut entry = TrustedKey::new(key.public().clone().with_kid("release"), "trust.json");
    policy(&mut entry);
    let mut jku = TrustedKey::new(
        key.public().clone().with_kid("dup"),
        "jku:https://a.example/keys/jwks.json",
    );
    jku.origins = Some(vec!["https://a.example".parse().unwrap()]);
    let mut store = TrustStore::new();
    store.add(entry);
    store.add(jku);
    store
}

fn opts() -> VerifyOptions {
    VerifyOptions {
        origin: Some("https://a.example".parse().unwrap()),
        now: Some(1_800_000_000),
        ..VerifyOptions::default()
    }
}

fn verdict(card: &[u8], trust: &TrustStore) -> (String, String) {
    let r = a2a_card::verify_card(card, trust, &opts()).unwrap();
    let v = &r.signatures[0].verdict;
    (v.code.to_string(), v.message.clone())
}

/// A change to a trust entry's policy.
type Policy = Box<dyn FnOnce(&mut TrustedKey)>;

#[test]
fn an_entry_that_limits_a_key_binds_it_under_any_kid() {
    let key = PrivateKey::generate(Algorithm::ES256).unwrap();
    let card = signed_with_kid(&key, "dup");
    // Without a limiting entry the jku key verifies.
    assert_eq!(verdict(&card, &store(&key, |_| {})).0, "valid");

    let cases: Vec<(&str, Policy)> = vec![
        ("key-revoked", Box::new(|e: &mut TrustedKey| e.revoked = true)),
        (
            "key-expired",
            Box::new(|e: &mut TrustedKey| e.not_after = Some(1_700_000_000)),
        ),
        (
            "key-expired",
            Box::new(|e: &mut TrustedKey| e.not_before = Some(1_900_000_000)),
        ),
        (
            "untrusted-key",
            Box::new(|e: &mut TrustedKey| e.origins = Some(vec!["https://b.example".parse().unwrap()])),
        ),
        (
            "algorithm-not-allowed",
            Box::new(|e: &mut TrustedKey| e.algorithms = Some(vec![Algorithm::ES384])),
        ),
    ];
    for (want, policy) in cases {
        let (code, message) = verdict(&card, &store(&key, policy));
        assert_eq!(code, want, "{message}");
        assert!(
            message.contains("trust.json"),
            "the binding entry is named: {message}"
        );
    }
}

#[test]
fn another_key_under_the_same_kid_is_not_bound() {
    // Binding is by the key, not by the kid: a revoked entry for key A does not touch key B.
    let a = PrivateKey::generate(Algorithm::ES256).unwrap();
    let b = PrivateKey::generate(Algorithm::ES256).unwrap();
    let mut revoked = TrustedKey::new(a.public().clone().with_kid("k"), "trust.json");
    revoked.revoked = true;
    let mut trust = TrustStore::new();
    trust.add(revoked);
    trust.pin(b.public().clone().with_kid("k"), "jwks.json");
    assert_eq!(verdict(&signed_with_kid(&b, "k"), &trust).0, "valid");
    // A's own signature finds A revoked and B not the signer.
    assert_ne!(verdict(&signed_with_kid(&a, "k"), &trust).0, "valid");
}

/// A backend that counts the signature checks and leaves each to the built-in code.
struct Counting(Cell<usize>);

impl SignatureBackend for Counting {
    fn verify(&self, _: &SignatureCheck<'_>) -> Result<BackendVerdict, Error> {
        self.0.set(self.0.get() + 1);
        Ok(BackendVerdict::Declined)
    }
}

/// A card with `n` signatures by keys the verifier does not hold, all with kid "dup".
fn card_of_strangers(n: usize) -> Vec<u8> {
    // Signed as other signers sign (no declaration of the bytes), so that each signature is
    // tried under every accepted profile.
    let entries = (0..n)
        .map(|_| {
            let stranger = PrivateKey::generate(Algorithm::ES256).unwrap();
            support::undeclared_entry(CARD, &stranger, "dup", &Default::default())
        })
        .collect();
    a2a_card_testkit::cards::with_signatures(&serde_json::from_slice(CARD).unwrap(), entries)
}

#[test]
fn the_work_of_one_card_is_bounded() {
    let card = card_of_strangers(16);
    // The three profiles that read this v1.0 card (the a2a-sdk 0.3 model refuses it: no url).
    let all = VerifyOptions {
        profiles: vec![Profile::Spec, Profile::ServedAsIs, Profile::PruneEmpty],
        ..VerifyOptions::default()
    };

    // Many trusted keys under the signatures' kid: none is tried.
    let mut crowd = TrustStore::new();
    for _ in 0..100 {
        crowd.pin(
            PrivateKey::generate(Algorithm::ES256)
                .unwrap()
                .public()
                .clone()
                .with_kid("dup"),
            "jku",
        );
    }
    let count = Counting(Cell::new(0));
    let r = verify_card_with(&card, &crowd, &all, Some(&count)).unwrap();
    assert_eq!(count.0.get(), 0);
    assert!(
        r.signatures.iter().all(|s| s.verdict.code == "too-many-keys"),
        "{:?}",
        r.signatures[0]
    );

    // Four keys under the kid (the limit), 16 signatures, three profiles: 192 checks wanted,
    // the card gets DEFAULT_MAX_SIGNATURE_CHECKS and the rest are refused unchecked.
    let mut four = TrustStore::new();
    for _ in 0..4 {
        four.pin(
            PrivateKey::generate(Algorithm::ES256)
                .unwrap()
                .public()
                .clone()
                .with_kid("dup"),
            "jku",
        );
    }
    let count = Counting(Cell::new(0));
    let r = verify_card_with(&card, &four, &all, Some(&count)).unwrap();
    assert_eq!(count.0.get(), DEFAULT_MAX_SIGNATURE_CHECKS);
    let codes: Vec<&str> = r.signatures.iter().map(|s| s.verdict.code.as_str()).collect();
    // 64 checks = 5 signatures of 12 checks, and 4 checks of the sixth.
    assert_eq!(codes[..5], ["signature-invalid"; 5]);
    assert!(codes[5..].iter().all(|c| *c == "too-many-checks"), "{codes:?}");
    assert!(!r.ok);

    // The limits are the caller's to change.
    let wide = VerifyOptions {
        max_signature_checks: 1000,
        max_keys_per_kid: 200,
        ..all.clone()
    };
    let count = Counting(Cell::new(0));
    verify_card_with(&card, &four, &wide, Some(&count)).unwrap();
    assert_eq!(count.0.get(), 16 * 4 * 3);
}

#[test]
fn a_legitimate_card_at_the_signature_limit_fits_the_check_budget() {
    // 16 signatures under all three profiles, one trusted key each: every one is checked.
    let mut card = CARD.to_vec();
    let mut trust = TrustStore::new();
    for i in 0..16 {
        let key = PrivateKey::generate(Algorithm::EdDSA)
            .unwrap()
            .with_kid(format!("k{i}"));
        trust.pin(key.public().clone(), "jwks.json");
        card = sign_card(&card, &key, &SignOptions::default()).unwrap().card;
    }
    let opts = VerifyOptions {
        profiles: vec![Profile::ServedAsIs, Profile::PruneEmpty, Profile::Spec],
        mode: a2a_card::Mode::All,
        ..VerifyOptions::default()
    };
    let r = a2a_card::verify_card(&card, &trust, &opts).unwrap();
    assert!(r.ok, "{}", r.reason);
}

#[test]
fn trust_entry_origins_are_canonical_or_refused() {
    let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    let jwk = key.public().to_jwk();
    let store = |origin: &str| {
        let text = serde_json::json!({ "keys": [{ "jwk": jwk, "origins": [origin] }] }).to_string();
        TrustStore::from_json(&text, "trust.json")
    };
    // Equivalent spellings are brought to one form, the form the fetcher derives from a URL.
    let s = store("HTTPS://[0:0::1]:443/").unwrap();
    let origins = |s: &TrustStore| -> Vec<String> {
        s.keys()[0]
            .origins
            .iter()
            .flatten()
            .map(|o| o.to_string())
            .collect()
    };
    assert_eq!(origins(&s), ["https://[::1]"]);
    let s = store("https://XN--BCHER-KVA.example:8443").unwrap();
    assert_eq!(origins(&s), ["https://xn--bcher-kva.example:8443"]);
    // Spellings a browser would rewrite differently are refused, naming the member.
    for bad in [
        "https://bücher.example",
        "https://127.1",
        "https://0x7f000001",
        "https://a.example/x",
    ] {
        let e = store(bad).unwrap_err();
        assert_eq!(e.code().as_str(), "invalid-trust-store", "{bad}");
        assert_eq!(e.pointer(), Some("/keys/0/origins/0"), "{bad}");
        assert!(e.message().contains("A-label"), "{e}");
    }
}

/// The origin of a verification is read by the core's one rule (`Origin::from_str`, through
/// which the request's `origin` is set): a NUL or other control character, a space, a path, a
/// query or userinfo is refused with `usage` about the option `origin` before any signature is
/// looked at, and the refused text is quoted escaped, never raw.
#[test]
fn an_origin_that_is_not_one_is_refused() {
    use a2a_card::request::{OptionValue, Snake, VerifyRequest};
    use a2a_card::signature::Origin;
    for bad in [
        "https://a.example\0",
        "https://a\0.example",
        "https://a.example\0.evil",
        "https://a.exa\u{7f}mple",
        "https://a .example",
        "https://a%2e.example",
        "https://a.example/keys",
        "https://a.example?x",
        "https://a.example#x",
        "https://u@a.example",
        "https://a.example:99999",
        "ftp://a.example",
        "https://",
    ] {
        let e = VerifyRequest::default()
            .set("origin", OptionValue::Text(bad.into()))
            .unwrap_err();
        assert_eq!(e, bad.parse::<Origin>().unwrap_err(), "{bad:?}");
        assert_eq!(
            (e.code().as_str(), e.option()),
            ("usage", Some("origin")),
            "{bad:?}"
        );
        let spelled = e.spelled(&Snake);
        assert!(
            spelled.message().starts_with("origin: "),
            "{bad:?}: {}",
            spelled.message()
        );
        assert!(
            !spelled.message().contains('\0') && !spelled.message().contains('\u{7f}'),
            "{bad:?}"
        );
    }
    assert_eq!(
        "HTTPS://A.example:443/".parse::<Origin>().unwrap().as_str(),
        "https://a.example"
    );
}
