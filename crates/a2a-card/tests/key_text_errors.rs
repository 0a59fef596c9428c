//! JWK text refused by the strict JSON reader never has its content repeated in the error: key
//! text may be a private key, and the reader's messages quote what they refuse (a number, say,
//! which a private member written as one would be). `pem_shapes.rs` holds the same rule for PEM.

#![allow(clippy::unwrap_used, clippy::panic)] // a test reports by panicking

use a2a_card::jose::keys::{parse_jwks, PrivateKey, PublicKey};
use a2a_card::Algorithm;

/// A private JWK's `d`, written as a decimal number (its bytes as digits), in shapes the strict
/// reader refuses, each with the run of text that must not be shown.
fn shapes() -> Vec<(&'static str, String, String)> {
    let key = PrivateKey::generate(Algorithm::ES256).unwrap();
    let jwk = key.to_jwk_private();
    let d = jwk["d"].as_str().unwrap().to_string();
    let digits: String = d.bytes().map(|b| char::from(b'0' + b % 10)).collect();
    let with_d = |value: &str| jwk.to_string().replace(&format!("\"{d}\""), value);
    vec![
        (
            "d an integer past 2^53",
            with_d(&format!("1{digits}")),
            format!("1{digits}"),
        ),
        (
            "d a number past a double",
            with_d(&format!("1{digits}e400")),
            digits.clone(),
        ),
        (
            "d a number too small",
            with_d(&format!("1{digits}e-400")),
            digits.clone(),
        ),
        (
            "d a malformed number",
            with_d(&format!("1{digits}.")),
            digits.clone(),
        ),
        (
            "d a number with a leading zero",
            with_d(&format!("0{digits}")),
            digits.clone(),
        ),
        ("d a fraction past 2^53", with_d(&format!("1{digits}.5")), digits),
    ]
}

#[test]
fn refused_jwk_text_is_not_repeated_in_the_error() {
    for (shape, text, secret) in shapes() {
        let set = format!("{{\"keys\":[{text}]}}");
        for (reader, result) in [
            ("PrivateKey::parse", PrivateKey::parse(&text).map(drop)),
            (
                "PrivateKey::from_jwk_str",
                PrivateKey::from_jwk_str(&text).map(drop),
            ),
            ("PublicKey::parse", PublicKey::parse(&text).map(drop)),
            ("parse_jwks", parse_jwks(&set).map(drop)),
        ] {
            let e = result
                .err()
                .unwrap_or_else(|| panic!("{shape} through {reader}: accepted"));
            for shown in [e.to_string(), format!("{e:?}")] {
                for run in secret.as_bytes().windows(6) {
                    let run = std::str::from_utf8(run).unwrap();
                    assert!(
                        !shown.contains(run),
                        "{shape} through {reader} shows {run}: {shown}"
                    );
                }
            }
        }
    }
}
