//! PEM text in the shapes it takes after a trip through CI secrets and copy-paste (line breaks
//! lost, CR-only line ends, spaces for line breaks, a byte-order mark) reads as the same key,
//! and every malformed shape (END boundary missing, a garbage label, a cut body) is refused
//! without ever showing key material: no error message contains any run of the key's body.
//! The CLI tests feed the same shapes through every key input of the binary.

#![allow(clippy::unwrap_used, clippy::panic)] // a test reports by panicking

use a2a_card::jose::keys::{parse_jwks, PrivateKey, PublicKey};
use a2a_card::TrustStore;
use a2a_card_testkit::data::key_file;
use a2a_card_testkit::pem::{assert_no_material, bad_shapes, body, good_shapes};

/// Key files of every PEM label the reader knows, private and public.
const FILES: &[&str] = &[
    "ed25519.pem",
    "ed25519.pub.pem",
    "p256.pem",
    "p256.sec1.pem",
    "p256.pub.pem",
    "p384.pem",
    "rsa2048.pem",
    "rsa2048.pkcs1.pem",
    "rsa2048.pkcs1.pub.pem",
    "secp256k1.pem",
];

/// Every way the library reads key text: private, public, either, a JWKS, a trust-store `pem`.
fn read_all(text: &str) -> Vec<(&'static str, Result<(), a2a_card::Error>)> {
    let store = serde_json::json!({ "keys": [{ "pem": text }] }).to_string();
    vec![
        ("PrivateKey::parse", PrivateKey::parse(text).map(drop)),
        ("PublicKey::parse", PublicKey::parse(text).map(drop)),
        ("PublicKey::from_pem", PublicKey::from_pem(text).map(drop)),
        ("parse_jwks", parse_jwks(text).map(drop)),
        (
            "TrustStore pem member",
            TrustStore::from_json(&store, "trust.json").map(drop),
        ),
    ]
}

#[test]
fn line_breaks_lost_or_changed_still_read_as_the_same_key() {
    for file in FILES {
        let pem = key_file(file);
        let want = PublicKey::parse(&pem).unwrap();
        for (shape, text) in good_shapes(&pem) {
            let got = PublicKey::parse(&text).unwrap_or_else(|e| panic!("{file} ({shape}): {e}"));
            assert_eq!(got.thumbprint(), want.thumbprint(), "{file} ({shape})");
            if !file.contains(".pub.") {
                let private = PrivateKey::parse(&text).unwrap_or_else(|e| panic!("{file} ({shape}): {e}"));
                assert_eq!(
                    private.public().thumbprint(),
                    want.thumbprint(),
                    "{file} ({shape})"
                );
            }
        }
    }
}

#[test]
fn malformed_pem_is_refused_without_showing_key_material() {
    let mut refused = 0;
    for file in FILES {
        let pem = key_file(file);
        let secret = body(&pem);
        for (shape, text) in bad_shapes(&pem) {
            for (reader, result) in read_all(&text) {
                let what = format!("{file} ({shape}) through {reader}");
                let Err(e) = result else {
                    panic!("{what}: accepted");
                };
                assert!(
                    matches!(
                        e.code().as_str(),
                        "invalid-key" | "invalid-json" | "invalid-trust-store"
                    ),
                    "{what}: {} {e}",
                    e.code()
                );
                assert_no_material(&e.to_string(), &secret, &what);
                assert_no_material(&format!("{e:?}"), &secret, &what);
                refused += 1;
            }
        }
    }
    assert_eq!(refused, FILES.len() * 9 * 5);
}

#[test]
fn labels_are_shown_only_when_known_or_a_short_token() {
    let pem = key_file("p256.pem");
    let b = body(&pem);
    // A known label is named.
    let e = PrivateKey::parse(&pem[..pem.find("-----END").unwrap()]).unwrap_err();
    assert!(e.message().contains("\"PRIVATE KEY\""), "{e}");
    // A short upper-case token is named; an unknown one is described, never quoted.
    let e = PrivateKey::parse(&format!("-----BEGIN FOO BAR-----\n{b}\n-----END FOO BAR-----\n")).unwrap_err();
    assert!(e.message().contains("\"FOO BAR\""), "{e}");
    let e = PrivateKey::parse(&format!("-----BEGIN foo.bar-----\n{b}\n")).unwrap_err();
    assert!(
        e.message().contains("unrecognized label") && !e.message().contains("foo.bar"),
        "{e}"
    );
    // The defect this guards against: the label of a one-line PEM without END swallowed the body.
    let one_line = pem.replace('\n', "").replace("-----END PRIVATE KEY-----", "");
    let e = PrivateKey::parse(&one_line).unwrap_err();
    assert!(e.message().contains("has no END boundary"), "{e}");
    assert_no_material(e.message(), &b, "one line, no END");
}

#[test]
fn legacy_encrypted_pem_is_recognized_in_every_shape() {
    let pem = key_file("rsa2048.encrypted-legacy.pem");
    for (shape, text) in good_shapes(&pem) {
        let e = PrivateKey::parse(&text).unwrap_err();
        assert_eq!(e.code().as_str(), "encrypted-key", "{shape}: {e}");
    }
}
