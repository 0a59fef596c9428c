//! The library API of `a2a-card-keys` against the real things: a SoftHSM2 token made in a
//! scratch directory and the sigstore-protocol test plugin. A key opened from a reference signs
//! through the core's `sign_card` and the card verifies with `verify_card`; nothing that shows a
//! key (its `Debug`, its reference's `Display`, any error) holds the PIN.

#![allow(clippy::unwrap_used, clippy::panic)] // a panic is how a test fails

use a2a_card::signature::trust::{TrustStore, TrustedKey};
use a2a_card::{sign_card, verify_card, Algorithm, PrivateKey, SignOptions, Signer, VerifyOptions};
use a2a_card_keys::{open, KeyOptions, KeyRef, SigningKey};
use a2a_card_testkit::data::{scratch, testvectors_dir};
use a2a_card_testkit::softhsm::{self, plugins_dir, Token};
use std::time::Duration;

const PIN: &str = "8642-lib-pin";

fn card() -> Vec<u8> {
    std::fs::read(testvectors_dir().join("cards/sample-8.5-unsigned.json")).unwrap()
}

fn lenient() -> SignOptions {
    SignOptions {
        allow_unsigned: true,
        ..SignOptions::default()
    }
}

/// Signs the sample card with `key`, verifies it with the key's public key, returns the alg.
fn round_trip(key: &SigningKey, alg: Option<Algorithm>) -> Algorithm {
    let opts = SignOptions { alg, ..lenient() };
    let signed = sign_card(&card(), key, &opts).unwrap();
    assert_eq!(signed.kid, key.public_key().thumbprint());
    let mut trust = TrustStore::new();
    trust.add(TrustedKey::new(
        key.public_key().clone().with_kid(signed.kid.clone()),
        "test",
    ));
    let report = verify_card(&signed.card, &trust, &VerifyOptions::default()).unwrap();
    assert!(report.ok, "{}", report.to_json());
    signed.alg
}

#[test]
fn token_keys_sign_through_the_library() {
    if !softhsm::available() {
        return;
    }
    let dir = scratch("keys-lib-token");
    let token = Token::new(&dir, "lib", PIN);
    token.keypairgen("EC:prime256v1", "p256", "01");
    token.keypairgen("rsa:2048", "rsa", "02");
    // SOFTHSM2_CONF for this process: the module reads it when it is loaded.
    std::env::set_var("SOFTHSM2_CONF", &token.conf);
    for (object, alg, expect) in [
        ("p256", None, Algorithm::ES256),
        ("rsa", Some(Algorithm::PS384), Algorithm::PS384),
    ] {
        let reference = KeyRef::parse(&token.uri(object)).unwrap();
        assert!(!reference.to_string().contains(PIN), "{reference}");
        assert!(!format!("{reference:?}").contains(PIN));
        let key = open(&reference, &KeyOptions::default()).unwrap();
        assert!(key.is_external());
        assert!(key.local_key().is_none());
        assert!(!format!("{key:?}").contains(PIN), "{key:?}");
        assert_eq!(round_trip(&key, alg), expect);
    }
    // A wrong PIN: the error holds neither PIN.
    let wrong = token.uri("p256").replace(PIN, "1111-wrong");
    let e = open(&KeyRef::parse(&wrong).unwrap(), &KeyOptions::default()).unwrap_err();
    assert_eq!(e.code().as_str(), "key-unavailable");
    assert!(
        !e.to_string().contains("1111-wrong") && !e.to_string().contains(PIN),
        "{e}"
    );
}

#[test]
fn plugin_keys_sign_through_the_library() {
    let dir = scratch("keys-lib-plugin");
    let key_file = dir.join("k.pem");
    std::fs::write(
        &key_file,
        PrivateKey::generate(Algorithm::ES384).unwrap().to_pkcs8_pem(),
    )
    .unwrap();
    let plugin = plugins_dir().join("sigstore-kms-test");
    let key =
        a2a_card_keys::PluginKey::open_at(&plugin, key_file.to_str().unwrap(), None, Duration::from_secs(30))
            .unwrap();
    let key = SigningKey::Plugin(key);
    assert_eq!(round_trip(&key, None), Algorithm::ES384);
    // A plugin that is not there.
    let e = open(
        &KeyRef::parse("no-such-kms-xyz://k").unwrap(),
        &KeyOptions::default(),
    )
    .unwrap_err();
    assert_eq!(e.code().as_str(), "key-unavailable");
    assert!(e.to_string().contains("sigstore-kms-no-such-kms-xyz"), "{e}");
}
