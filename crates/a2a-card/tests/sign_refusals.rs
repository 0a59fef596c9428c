//! `sign_card` refuses what `verify_card` would refuse, before anything is signed: a protected
//! header past the verifier's size or nesting limits, and a card that would carry more
//! signatures than verifiers accept (which would make them refuse the whole card, the good
//! signatures included). An extra profile whose bytes are those already signed adds nothing.

#![allow(clippy::unwrap_used, clippy::panic)]

use a2a_card::jose::keys::PrivateKey;
use a2a_card::Algorithm;
use a2a_card::{sign_card, verify_card, ErrorCode, Profile, SignOptions, TrustStore, VerifyOptions};
use serde_json::Value;

const CARD: &[u8] = br#"{"name":"A","description":"d","version":"1","skills":[{"id":"s","name":"S","description":"d","tags":["t"]}]}"#;

fn with_protected(name: &str, value: Value) -> SignOptions {
    SignOptions {
        extra_protected: vec![(name.to_string(), value)],
        ..SignOptions::default()
    }
}

#[test]
fn a_header_the_verifier_refuses_is_refused_when_signing() {
    let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    let mut trust = TrustStore::new();
    trust.pin(key.public().clone(), "k");
    // Just under the 4,096-byte limit signs and verifies; just over is refused.
    let base = a2a_card::jose::header::encode_protected(
        Algorithm::EdDSA,
        key.kid(),
        None,
        &[("x".into(), Value::String(String::new()))],
    )
    .unwrap();
    let base_len = a2a_card_testkit::data::unb64url(&base).len();
    let fits = with_protected("x", Value::String("a".repeat(4096 - base_len)));
    let signed = sign_card(CARD, &key, &fits).unwrap();
    assert!(
        verify_card(&signed.card, &trust, &VerifyOptions::default())
            .unwrap()
            .ok
    );
    let over = with_protected("x", Value::String("a".repeat(4097 - base_len)));
    let e = sign_card(CARD, &key, &over).unwrap_err();
    assert_eq!(e.code(), ErrorCode::HeaderTooLarge, "{e}");
    assert!(e.message().contains("a verifier would refuse"), "{e}");

    // Nesting: 16 levels in the protected header (the object is level 1) sign; 17 do not.
    let nested = |levels: usize| {
        serde_json::from_str::<Value>(&format!("{}{}", "[".repeat(levels), "]".repeat(levels))).unwrap()
    };
    let signed = sign_card(CARD, &key, &with_protected("x", nested(15))).unwrap();
    assert!(
        verify_card(&signed.card, &trust, &VerifyOptions::default())
            .unwrap()
            .ok
    );
    let e = sign_card(CARD, &key, &with_protected("x", nested(16))).unwrap_err();
    assert_eq!(e.code(), ErrorCode::MalformedHeader, "{e}");

    // An unprotected header over the limit.
    let big = SignOptions {
        unprotected: vec![("note".into(), Value::String("n".repeat(5000)))],
        ..SignOptions::default()
    };
    assert_eq!(
        sign_card(CARD, &key, &big).unwrap_err().code(),
        ErrorCode::HeaderTooLarge
    );
}

#[test]
fn a_seventeenth_signature_is_refused_and_replace_makes_room() {
    let mut card = CARD.to_vec();
    let keys: Vec<PrivateKey> = (0..16)
        .map(|_| PrivateKey::generate(Algorithm::EdDSA).unwrap())
        .collect();
    for k in &keys {
        card = sign_card(&card, k, &SignOptions::default()).unwrap().card;
    }
    let mut trust = TrustStore::new();
    trust.pin(keys[0].public().clone(), "k0");
    assert!(verify_card(&card, &trust, &VerifyOptions::default()).unwrap().ok);

    let newcomer = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    let e = sign_card(&card, &newcomer, &SignOptions::default()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::TooManySignatures);
    assert_eq!(e.pointer(), Some("/signatures"));
    assert!(e.message().contains("17 signatures"), "{e}");
    // The extra profiles count too.
    let opts = SignOptions {
        also_profiles: vec![Profile::PruneEmpty],
        ..SignOptions::default()
    };
    let fifteen = {
        let mut c = CARD.to_vec();
        for k in &keys[..15] {
            c = sign_card(&c, k, &SignOptions::default()).unwrap().card;
        }
        c
    };
    let card_with_empty = String::from_utf8(fifteen).unwrap().replacen(
        "\"version\":\"1\"",
        "\"version\":\"1\",\"iconUrl\":\"\"",
        1,
    );
    assert_eq!(
        sign_card(card_with_empty.as_bytes(), &newcomer, &opts)
            .unwrap_err()
            .code(),
        ErrorCode::TooManySignatures
    );
    // Re-signing with a key already on the card, replacing its signature, fits.
    let again = SignOptions {
        replace_same_kid: true,
        ..SignOptions::default()
    };
    let resigned = sign_card(&card, &keys[3], &again).unwrap();
    assert_eq!(resigned.replaced, 1);
    assert!(
        verify_card(&resigned.card, &trust, &VerifyOptions::default())
            .unwrap()
            .ok
    );
}

#[test]
fn an_extra_profile_over_the_same_bytes_adds_no_signature() {
    let key = PrivateKey::generate(Algorithm::ES256).unwrap();
    let opts = SignOptions {
        also_profiles: vec![Profile::PruneEmpty, Profile::ServedAsIs],
        ..SignOptions::default()
    };
    // This card has no empty member and no unknown member: all three profiles agree.
    let signed = sign_card(CARD, &key, &opts).unwrap();
    assert!(signed.also.is_empty());
    assert_eq!(signed.also_same_bytes, [Profile::PruneEmpty, Profile::ServedAsIs]);
    let v: Value = serde_json::from_slice(&signed.card).unwrap();
    let Some(Value::Array(entries)) = v.get("signatures") else {
        panic!()
    };
    assert_eq!(entries.len(), 1);
    // With an empty REQUIRED member, prune-empty's bytes differ (it drops it) and get their own
    // signature; served-as-is keeps it like spec, so it still adds nothing.
    let card = br#"{"name":"A","description":"","version":"1","skills":[{"id":"s","name":"S","description":"d","tags":["t"]}]}"#;
    let signed = sign_card(card, &key, &opts).unwrap();
    assert_eq!(signed.also.len(), 1);
    assert_eq!(signed.also[0].canonical.profile, Profile::PruneEmpty);
    assert_eq!(signed.also_same_bytes, [Profile::ServedAsIs]);
}
