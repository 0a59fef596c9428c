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

/// Private JWKs of each key type, made once (an RSA key takes a while in a debug build), each
/// with a fixed `kid` (a generated one is a thumbprint, base64 of its own): the JWK text and its
/// base64 members (the public ones too: the property is about the text, not the secret alone).
fn keys() -> &'static [(String, Vec<String>)] {
    static KEYS: std::sync::OnceLock<Vec<(String, Vec<String>)>> = std::sync::OnceLock::new();
    KEYS.get_or_init(|| {
        [Algorithm::ES256, Algorithm::EdDSA, Algorithm::RS256]
            .into_iter()
            .map(|alg| {
                let mut jwk = PrivateKey::generate(alg).unwrap().to_jwk_private();
                jwk["kid"] = "k1".into();
                let b64 = ["x", "y", "d", "n", "e", "p", "q", "dp", "dq", "qi"]
                    .iter()
                    .filter_map(|m| jwk.get(*m).and_then(|v| v.as_str()).map(String::from))
                    .collect();
                (jwk.to_string(), b64)
            })
            .collect()
    })
}

/// Characters a mutation inserts or writes over one: JSON's structure, number parts, escapes, a
/// control character, and base64 letters.
const MUTANTS: &[char] = &[
    '"', ':', ',', '{', '}', '[', ']', '\\', '0', '9', 'e', '-', '.', '+', '\n', '\u{1}', 'u', 'A', ' ',
];

/// One edit of `text`, driven by the numbers proptest draws: delete a character, insert one,
/// write one over another, delete a run, repeat a run, or write the `d` member as a number.
fn mutate(text: &str, b64: &[String], kind: u8, at: usize, what: usize, len: usize) -> String {
    let chars: Vec<char> = text.chars().collect();
    let at = at % (chars.len() + 1);
    let end = (at + len % 16 + 1).min(chars.len());
    let c = MUTANTS[what % MUTANTS.len()];
    let mut out: Vec<char> = chars.clone();
    match kind % 6 {
        0 if at < chars.len() => {
            out.remove(at);
        }
        1 => out.insert(at, c),
        2 if at < chars.len() => out[at] = c,
        3 => {
            out.drain(at..end);
        }
        4 => {
            let run: Vec<char> = chars[at..end].to_vec();
            out.splice(at..at, run);
        }
        _ => {
            // A private member written as a number (its characters as digits), in a shape the
            // reader refuses: past 2^53, past a double, too small, malformed, a leading zero.
            let d = b64
                .iter()
                .find(|v| text.contains(&format!("\"d\":\"{v}\"")))
                .unwrap_or(&b64[0]);
            let digits: String = d.bytes().map(|b| char::from(b'0' + b % 10)).collect();
            let shape =
                ["1{}", "1{}e400", "1{}e-400", "1{}.", "0{}", "1{}.5"][what % 6].replace("{}", &digits);
            return text.replacen(&format!("\"{d}\""), &shape, 1);
        }
    }
    out.into_iter().collect()
}

/// The texts a mutated JWK reaches the readers in: bare, in a JWK Set, in a trust-store entry.
fn containers(jwk: &str) -> [String; 3] {
    [
        jwk.to_string(),
        format!("{{\"keys\":[{jwk}]}}"),
        format!("{{\"keys\":[{{\"jwk\":{jwk},\"kid\":\"k2\"}}]}}"),
    ]
}

/// Every reader of key text, on `text`: its name and the error, if any. The trust store's
/// error carries its source as context (`t.json: ...`), taken off here.
fn every_reader(text: &str) -> Vec<(&'static str, Option<a2a_card::Error>)> {
    use a2a_card::jose::keys::{parse_jwks_limited, public_keys_of};
    let trust = a2a_card::TrustStore::from_json(text, "t.json").err().map(|e| {
        let msg = e
            .message()
            .strip_prefix("t.json: ")
            .unwrap_or(e.message())
            .to_string();
        let mut plain = a2a_card::Error::new(e.code(), msg);
        if let Some(p) = e.pointer() {
            plain = plain.at(p);
        }
        if let Some(o) = e.offset() {
            plain = plain.at_offset(o);
        }
        plain
    });
    vec![
        ("PublicKey::parse", PublicKey::parse(text).err()),
        ("PrivateKey::parse", PrivateKey::parse(text).err()),
        ("PublicKey::from_jwk_str", PublicKey::from_jwk_str(text).err()),
        ("PrivateKey::from_jwk_str", PrivateKey::from_jwk_str(text).err()),
        ("parse_jwks", parse_jwks(text).err()),
        ("parse_jwks_limited", parse_jwks_limited(text, 16).err()),
        ("public_keys_of", public_keys_of(text).err()),
        ("TrustStore::from_json", trust),
    ]
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(256),
        failure_persistence: None,
        ..proptest::test_runner::Config::default()
    })]

    /// Whatever one edit does to a private JWK's text, no error of any key reader shows a run
    /// of eight characters of its base64 members (runs that are also in the text's structure,
    /// a member name say, aside). Eight, not fewer: a fresh random key's base64 holds English
    /// runs of four now and then ("root", which "(document root)" shows, was one seen in CI),
    /// while any eight-character run of it is in a message only if the message quotes the key.
    #[test]
    fn no_reader_of_key_text_shows_a_run_of_it(
        key in 0usize..3, kind in 0u8..6, at in 0usize..4096, what in 0usize..64, len in 0usize..64,
    ) {
        let (jwk, b64) = &keys()[key];
        let mut skeleton = jwk.clone();
        for v in b64 {
            skeleton = skeleton.replace(v.as_str(), "");
        }
        let mutated = mutate(jwk, b64, kind, at, what, len);
        for text in containers(&mutated) {
            for (reader, e) in every_reader(&text) {
                let Some(e) = e else { continue };
                for shown in [e.to_string(), format!("{e:?}")] {
                    for v in b64 {
                        for run in v.as_bytes().windows(8) {
                            let run = std::str::from_utf8(run).unwrap();
                            proptest::prop_assert!(
                                skeleton.contains(run) || !shown.contains(run),
                                "{reader} shows {run} of {text}: {shown}"
                            );
                        }
                    }
                }
            }
        }
    }

    /// Text the JSON reader refuses gets the same error from every key reader: the same code,
    /// message, pointer and offset (the code and offset are the plain reader's too).
    #[test]
    fn every_reader_of_key_text_refuses_bad_json_alike(
        key in 0usize..3, kind in 0u8..6, at in 0usize..4096, what in 0usize..64, len in 0usize..64,
    ) {
        let (jwk, b64) = &keys()[key];
        let mutated = mutate(jwk, b64, kind, at, what, len);
        for text in containers(&mutated) {
            let Err(plain) = a2a_card::canonical::parse_json(text.as_bytes(), &Default::default()) else {
                continue;
            };
            if !text.starts_with('{') {
                continue; // PEM to some readers
            }
            let errors = every_reader(&text);
            let first = errors[0].1.clone().unwrap_or_else(|| panic!("accepted {text}"));
            for (reader, e) in errors {
                let e = e.unwrap_or_else(|| panic!("{reader} accepted {text}"));
                proptest::prop_assert_eq!(
                    (e.code(), e.message(), e.pointer(), e.offset()),
                    (first.code(), first.message(), first.pointer(), first.offset()),
                    "{} on {}", reader, text
                );
                proptest::prop_assert_eq!((e.code(), e.offset()), (plain.code(), plain.offset()));
            }
        }
    }
}

/// A member whose value the formats register (`kty`, `crv`, `use`, `alg`) holding a piece of the
/// key instead (a private member's value pasted in the wrong place): no reader repeats it. The
/// proptest above once found `crv` echoed this way.
#[test]
fn a_registered_member_holding_key_text_is_not_repeated() {
    for (jwk, b64) in keys() {
        let value: serde_json::Value = serde_json::from_str(jwk).unwrap();
        let secret = b64.iter().max_by_key(|v| v.len()).unwrap();
        for member in ["kty", "crv", "use", "alg", "key_ops"] {
            let mut damaged = value.clone();
            damaged[member] = if member == "key_ops" {
                serde_json::json!([secret])
            } else {
                secret.as_str().into()
            };
            for text in containers(&damaged.to_string()) {
                for (reader, e) in every_reader(&text) {
                    let Some(e) = e else { continue };
                    for shown in [e.to_string(), format!("{e:?}")] {
                        assert!(
                            !secret
                                .as_bytes()
                                .windows(8)
                                .any(|run| shown.contains(std::str::from_utf8(run).unwrap())),
                            "{reader} repeats the {member} value: {shown}"
                        );
                    }
                }
            }
        }
    }
}
