//! The PKCS#11 path of the library against a real SoftHSM2 token (one token for this test
//! binary: the module reads `SOFTHSM2_CONF` once per process): a key of every type the crate
//! reads (P-256, P-384, P-521, Ed25519, RSA) signs cards that verify with a key taken from
//! outside the token; the public key read from the token is the key imported into it; keys
//! generated through the library are the keys then opened; a wrong PIN, a missing PIN, token,
//! label, id or module are `key-unavailable` errors that name what is missing and show no PIN;
//! an algorithm the key does not fit is `key-algorithm-mismatch`.

#![cfg(feature = "pkcs11")]
#![allow(clippy::unwrap_used, clippy::panic)] // a panic is how a test fails

mod common;

use a2a_card::{Algorithm, KeyType, PrivateKey, PublicKey, Signer};
use a2a_card_keys::pkcs11::{Pkcs11Key, Pkcs11Options};
use a2a_card_keys::pkcs11_uri::Pkcs11Uri;
use a2a_card_keys::{open, KeyOptions, KeyRef, Pin, SigningKey};
use a2a_card_testkit::data::scratch;
use a2a_card_testkit::softhsm::{self, Token};
use std::sync::OnceLock;

const PIN: &str = "5173-token-pin";

/// The token and the file keys imported into it (object, key).
type Setup = (Token, Vec<(String, PrivateKey)>);

/// The token of this binary, its key pairs made and its file keys imported once, before the
/// module is loaded (a token changed by another process while this one has it open is not
/// reread), with the file keys imported (object, key); `None` when SoftHSM2 is missing. A
/// second token, "spare", is never logged in to by a key: PIN checks go to it (a token's login
/// is shared by all the sessions of a process, so a PIN is checked only at the first login).
fn setup() -> Option<&'static Setup> {
    static SETUP: OnceLock<Option<Setup>> = OnceLock::new();
    SETUP
        .get_or_init(|| {
            if !softhsm::available() {
                return None;
            }
            let dir = scratch("keys-pkcs11-token");
            let token = Token::new(&dir, "keys", PIN);
            token.keypairgen("EC:prime256v1", "p256", "01");
            token.keypairgen("EC:secp384r1", "p384", "02");
            token.keypairgen("EC:secp521r1", "p521", "03");
            token.keypairgen("EC:edwards25519", "ed25519", "04");
            token.keypairgen("rsa:2048", "rsa", "05");
            let mut imported = Vec::new();
            for (i, alg) in [
                Algorithm::ES256,
                Algorithm::ES384,
                Algorithm::EdDSA,
                Algorithm::RS256,
            ]
            .into_iter()
            .enumerate()
            {
                let key = PrivateKey::generate(alg).unwrap();
                let pem = dir.join(format!("k{i}.pem"));
                std::fs::write(&pem, key.to_pkcs8_pem()).unwrap();
                let object = format!("imported-{i}");
                token.import(&pem, &object, &format!("1{i}"));
                imported.push((object, key));
            }
            token.init("spare", PIN);
            let spare = Token {
                label: "spare".into(),
                ..token.clone()
            };
            spare.keypairgen("EC:prime256v1", "p256", "01");
            // Keys are made on a token of their own: SoftHSM2 writing a token's object store
            // while other sessions of the process read that token's objects fails now and then
            // with CKR_GENERAL_ERROR (about one run in three when the tests ran side by side).
            token.init("made", PIN);
            // Set before any test loads the module, and never changed.
            std::env::set_var("SOFTHSM2_CONF", &token.conf);
            Some((token, imported))
        })
        .as_ref()
}

fn token() -> Option<&'static Token> {
    setup().map(|(token, _)| token)
}

fn open_uri(uri: &str) -> Result<SigningKey, a2a_card::Error> {
    open(&KeyRef::parse(uri).unwrap(), &KeyOptions::default())
}

/// Signs the sample card with `key` and verifies it with `public` (a key from outside the
/// token when there is one); the algorithm used.
fn sign_and_verify(key: &SigningKey, public: &PublicKey, alg: Option<Algorithm>) -> Algorithm {
    common::sign_and_verify(key, public, alg).alg
}

#[test]
fn a_key_of_every_type_signs_through_the_token() {
    let Some(token) = token() else { return };
    // (object, its key type, the key's default algorithm); it signs with every algorithm the
    // library says its type fits.
    let cases = [
        ("p256", KeyType::P256, Algorithm::ES256),
        ("p384", KeyType::P384, Algorithm::ES384),
        ("p521", KeyType::P521, Algorithm::ES512),
        ("ed25519", KeyType::Ed25519, Algorithm::EdDSA),
        ("rsa", KeyType::Rsa { bits: 2048 }, Algorithm::RS256),
    ];
    for (object, kind, default) in &cases {
        let algs: Vec<Algorithm> = Algorithm::ALL.iter().copied().filter(|a| kind.fits(*a)).collect();
        let key = open_uri(&token.uri(object)).unwrap();
        assert!(matches!(key, SigningKey::Pkcs11(_)), "{object}");
        assert!(key.is_external() && key.local_key().is_none());
        assert_eq!(key.public_key().key_type(), *kind, "{object}");
        if let SigningKey::Pkcs11(k) = &key {
            assert_eq!(k.token(), "keys");
        }
        // The default algorithm of the key, then each one it fits.
        assert_eq!(
            sign_and_verify(&key, key.public_key(), None),
            *default,
            "{object}"
        );
        for alg in &algs {
            assert_eq!(
                sign_and_verify(&key, key.public_key(), Some(*alg)),
                *alg,
                "{object}"
            );
        }
        assert!(!format!("{key:?}").contains(PIN), "{key:?}");
    }
}

#[test]
fn the_public_key_read_from_the_token_is_the_key_imported() {
    let Some((token, imported)) = setup() else { return };
    for (object, file_key) in imported {
        let alg = file_key.default_algorithm();
        let key = open_uri(&token.uri(object)).unwrap();
        assert_eq!(
            key.public_key().thumbprint(),
            file_key.public().thumbprint(),
            "{alg}: the token's public key is not the file's"
        );
        // A card signed in the token verifies with the file's public key.
        assert_eq!(sign_and_verify(&key, file_key.public(), None), alg);
    }
}

#[test]
fn keys_generated_through_the_library_are_the_keys_opened() {
    let Some(token) = token() else { return };
    let opts = Pkcs11Options {
        module: Some(token.module.clone()),
        pin: Some(Pin::new(PIN.to_string())),
    };
    for (i, alg) in [
        Algorithm::ES256,
        Algorithm::ES384,
        Algorithm::EdDSA,
        Algorithm::PS256,
    ]
    .into_iter()
    .enumerate()
    {
        let uri = Pkcs11Uri::parse(&format!("pkcs11:token=made;object=generated-{i}")).unwrap();
        let (made, public) = Pkcs11Key::generate(&uri, &opts, alg, None).unwrap();
        assert!(!made.to_string().contains(PIN), "{made}");
        let key = SigningKey::Pkcs11(Pkcs11Key::open(&made, &opts).unwrap());
        assert_eq!(key.public_key().thumbprint(), public.thumbprint(), "{alg}");
        let alg_used = sign_and_verify(&key, &public, Some(alg));
        assert_eq!(alg_used, alg);
        // The same label again is refused: a token never holds two keys under one name.
        let e = Pkcs11Key::generate(&uri, &opts, alg, None).unwrap_err();
        assert_eq!(e.code().as_str(), "usage", "{e}");
    }
}

#[test]
fn token_errors_name_what_is_missing_and_never_the_pin() {
    let Some(token) = token() else { return };
    let module = token.module.display().to_string();
    let cases: Vec<(String, &str, Vec<&str>)> = vec![
        (
            format!("pkcs11:token=spare;object=p256?pin-value=00000-wrong&module-path={module}"),
            "key-unavailable",
            vec!["refused the PIN", "CKR_PIN_INCORRECT"],
        ),
        (
            format!("pkcs11:token=absent;object=p256?pin-value={PIN}&module-path={module}"),
            "key-unavailable",
            vec!["no token with token=\"absent\"", "\"keys\"", "\"spare\""],
        ),
        (
            format!("pkcs11:token=keys;object=nothing?pin-value={PIN}&module-path={module}"),
            "key-unavailable",
            vec!["no private key with object=\"nothing\"", "\"p256\""],
        ),
        (
            format!("pkcs11:token=keys;id=%99?pin-value={PIN}&module-path={module}"),
            "key-unavailable",
            vec!["no private key"],
        ),
        (
            format!("pkcs11:token=spare;object=p256?module-path={module}"),
            "key-unavailable",
            vec!["needs a PIN"],
        ),
        (
            format!("pkcs11:token=keys;object=p256?pin-value={PIN}&module-path=/no/such/module.so"),
            "key-unavailable",
            vec!["/no/such/module.so does not exist"],
        ),
        (
            format!("pkcs11:token=keys?pin-value={PIN}&module-path={module}"),
            "usage",
            vec!["names no key"],
        ),
    ];
    for (uri, code, words) in &cases {
        let e = open_uri(uri).map(|_| ()).unwrap_err();
        let shown = format!("{e} {e:?}");
        assert_eq!(e.code().as_str(), *code, "{uri}: {e}");
        for w in words {
            assert!(e.message().contains(w), "{uri}: {e} lacks {w:?}");
        }
        assert!(!shown.contains(PIN) && !shown.contains("00000-wrong"), "{shown}");
    }
    // A key asked for an algorithm it does not fit, before the token is asked to sign.
    let key = open_uri(&token.uri("p256")).unwrap();
    for alg in [Algorithm::RS256, Algorithm::ES384, Algorithm::EdDSA] {
        let e = key.sign(alg, b"input").unwrap_err();
        assert_eq!(e.code().as_str(), "key-algorithm-mismatch", "{alg}: {e}");
    }
}
