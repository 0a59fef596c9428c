//! PEM text in the shapes it takes after a trip through CI secrets and copy-paste (line breaks
//! lost, CR-only line ends, spaces for line breaks, a byte-order mark) reads as the same key,
//! and every malformed shape (END boundary missing, a garbage label, a cut body) is refused
//! without ever showing key material: no error message contains any run of the key's body.
//! The CLI tests feed the same shapes through every key input of the binary.

#![allow(clippy::unwrap_used, clippy::panic)] // a test reports by panicking

use a2a_card::jose::keys::{parse_jwks, PrivateKey, PublicKey};
use a2a_card::TrustStore;
use a2a_card_testkit::data::key_file;

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

/// The base64 body of a PEM file (every line between the boundaries).
fn body(pem: &str) -> String {
    pem.lines().filter(|l| !l.starts_with("-----")).collect()
}

/// Shapes that must read as the key itself.
fn good_shapes(pem: &str) -> Vec<(&'static str, String)> {
    vec![
        ("one line", pem.replace('\n', "")),
        ("CR only", pem.replace('\n', "\r")),
        ("CRLF", pem.replace('\n', "\r\n")),
        ("spaces for line breaks", pem.replace('\n', " ")),
        ("byte-order mark", format!("\u{feff}{pem}")),
        (
            "byte-order mark, one line",
            format!("\u{feff}{}", pem.replace('\n', "")),
        ),
    ]
}

/// Shapes that must be refused.
fn bad_shapes(pem: &str) -> Vec<(&'static str, String)> {
    let end = pem.find("-----END").unwrap();
    let no_end = &pem[..end];
    let label_end = pem.find("-----\n").unwrap();
    let garbage_label = format!("-----BEGIN pr1v@te k3y{}", &pem[label_end..]);
    let cut = {
        let b = body(pem);
        let one_line = pem.replace('\n', "");
        assert!(one_line.contains(&b[b.len() / 2..b.len() / 2 + 8]));
        one_line.replace(&b[b.len() / 2..b.len() / 2 + 8], "")
    };
    vec![
        ("missing END", no_end.to_string()),
        ("missing END, one line", no_end.replace('\n', "")),
        ("missing END, CR only", no_end.replace('\n', "\r")),
        ("missing END, byte-order mark", format!("\u{feff}{no_end}")),
        ("garbage label", garbage_label.clone()),
        ("garbage label, one line", garbage_label.replace('\n', "")),
        (
            "END of another label",
            format!("{no_end}-----END CERTIFICATE-----\n"),
        ),
        ("body cut", cut),
        ("BEGIN never closed", format!("-----BEGIN {}", body(pem))),
    ]
}

/// Panics when `message` contains any 12-character run of `body`.
fn assert_no_material(message: &str, body: &str, what: &str) {
    let chars: Vec<char> = body.chars().collect();
    for window in chars.windows(12) {
        let run: String = window.iter().collect();
        assert!(
            !message.contains(&run),
            "{what}: the message shows key material ({run:?}): {message}"
        );
    }
}

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
