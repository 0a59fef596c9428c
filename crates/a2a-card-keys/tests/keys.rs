//! The library API of `a2a-card-keys` against the real things: a SoftHSM2 token made in a
//! scratch directory and the sigstore-protocol test plugin. A key opened from a reference signs
//! through the core's `sign_card` and the card verifies with `verify_card`; nothing that shows a
//! key (its `Debug`, its reference's `Display`, any error) holds the PIN.

#![allow(clippy::unwrap_used, clippy::panic)] // a panic is how a test fails

mod common;

use a2a_card::{Algorithm, Signer};
use a2a_card_keys::{open, KeyOptions, KeyRef, SigningKey};
use a2a_card_testkit::data::scratch;
use a2a_card_testkit::plugin::test_plugin;
use a2a_card_testkit::softhsm::{self, Token};
use common::{key_file, sign_and_verify};
use std::time::Duration;

const PIN: &str = "8642-lib-pin";

/// Signs the sample card with `key`, verifies it with the key's public key, returns the alg.
fn round_trip(key: &SigningKey, alg: Option<Algorithm>) -> Algorithm {
    let signed = sign_and_verify(key, key.public_key(), alg);
    assert_eq!(signed.kid, key.public_key().thumbprint());
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
    let (key_file, _) = key_file(&dir, "k", Algorithm::ES384);
    let plugin = test_plugin();
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
