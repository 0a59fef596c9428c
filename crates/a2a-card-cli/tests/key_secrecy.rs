//! No output of the binary ever shows key material. Every key input (`sign --key FILE`,
//! `sign --key -`, `$A2A_CARD_SIGNING_KEY`, `jwks FILE`, `verify --key`, `verify --jwks`, a
//! trust store's `pem` member) is fed every malformed PEM shape the library's readers are tested
//! with (`a2a_card_testkit::pem::bad_shapes`: END missing, also on one line, with CR line ends or
//! after a byte-order mark; a garbage label; the END of another label; a cut body; a BEGIN never
//! closed), and neither stdout nor stderr may contain any run of the key's body. Keys that only
//! lost their line breaks sign as usual.

#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use a2a_card_testkit::pem::{assert_no_material, bad_shapes, body};
use common::*;

fn check(out: &std::process::Output, secret: &str, what: &str) {
    assert!(!out.status.success(), "{what}: accepted\n{}", stderr(out));
    assert_no_material(&stdout(out), secret, what);
    assert_no_material(&stderr(out), secret, what);
    let line = error_line(out);
    assert!(line.starts_with("error["), "{what}: {line}");
}

/// One key input: its name, the arguments, stdin, extra environment.
type Case<'a> = (&'a str, Vec<&'a str>, Option<&'a [u8]>, Vec<(&'a str, &'a str)>);

#[test]
fn malformed_pem_never_reaches_output_through_any_key_input() {
    let (dir, card, key, _jwks) = card_and_key("key-secrecy", "ES256", &[]);
    let pem = std::fs::read_to_string(&key).unwrap();
    let secret = body(&pem);
    let signed_path = dir.join("signed.json");
    let good = sign_to(&card, &key, &[], &signed_path);
    expect_code(&good, 0, "sign");
    let (c, signed) = (s(&card), s(&signed_path));
    let mut runs = 0;
    for (shape, text) in bad_shapes(&pem) {
        let f = write(&dir, "bad.pem", &text);
        let f = s(&f);
        let store = serde_json::json!({ "keys": [{ "pem": text }] }).to_string();
        let t = write(&dir, "trust.json", store);
        let t = s(&t);
        let cases: Vec<Case<'_>> = vec![
            (
                "sign --key FILE",
                vec!["sign", "--unknown", "exclude", c, "--key", f],
                None,
                vec![],
            ),
            (
                "sign --key -",
                vec!["sign", "--unknown", "exclude", c, "--key", "-"],
                Some(text.as_bytes()),
                vec![],
            ),
            (
                "$A2A_CARD_SIGNING_KEY",
                vec!["sign", "--unknown", "exclude", c],
                None,
                vec![(KEY_ENV, text.as_str())],
            ),
            ("jwks FILE", vec!["jwks", f], None, vec![]),
            ("verify --key", vec!["verify", signed, "--key", f], None, vec![]),
            ("verify --jwks", vec!["verify", signed, "--jwks", f], None, vec![]),
            (
                "verify --trust pem",
                vec!["verify", signed, "--trust", t],
                None,
                vec![],
            ),
        ];
        for (input, args, stdin, env) in cases {
            let out = run_env(&args, stdin, &env);
            check(&out, &secret, &format!("{input} ({shape})"));
            runs += 1;
        }
    }
    assert_eq!(runs, bad_shapes(&pem).len() * 7);
}

#[test]
fn a_key_whose_line_breaks_were_lost_still_signs() {
    let (dir, card, key, jwks) = card_and_key("key-one-line", "EdDSA", &[]);
    let pem = std::fs::read_to_string(&key).unwrap();
    for (shape, text) in [
        ("one line", pem.replace('\n', "")),
        ("CR only", pem.replace('\n', "\r")),
    ] {
        let out = run_env(
            &["sign", "--unknown", "exclude", s(&card)],
            None,
            &[(KEY_ENV, text.as_str())],
        );
        expect_code(&out, 0, shape);
        let signed = write(&dir, "signed.json", stdout(&out));
        let v = verify(&signed, &jwks, &[]);
        expect_code(&v, 0, shape);
    }
}

/// Characters no message of the binary contains; every other character of a secret below is
/// one, so that every two-character run of a secret holds one.
const MARKERS: [char; 2] = ['Z', 'ж'];

/// A secret whose every two-character run holds a marker, with `hostile` between them.
fn marked(hostile: &str) -> String {
    let mut s = String::new();
    for (i, c) in hostile.chars().enumerate() {
        s.push(MARKERS[i % 2]);
        s.push(c);
    }
    s.push(MARKERS[0]);
    s
}

/// Asserts that no two-character run of `secret` is on stdout or stderr.
fn assert_hidden(out: &std::process::Output, secret: &str, what: &str) {
    let chars: Vec<char> = secret.chars().collect();
    for stream in [stdout(out), stderr(out)] {
        for w in chars.windows(2) {
            let w: String = w.iter().collect();
            assert!(
                !stream.contains(&w),
                "{what}: shows {w:?} of the secret: {stream}"
            );
        }
    }
}

#[test]
fn a_pin_value_or_kms_secret_never_reaches_output_whatever_surrounds_it() {
    let (_dir, card, _key, _jwks) = card_and_key("pin-value-secrecy", "ES256", &[]);
    let c = s(&card);
    // The issue's shapes: the rest of a PIN after & or =, a space, a ;, a broken escape, and
    // the pin-value given twice or in the path.
    let hostile = [
        "4711&SECRET",
        "ab&cd=ef",
        "12 34",
        "12;34",
        "ab%zz",
        "a#b",
        "x&objet=y",
        "x&&module-path=/m",
        "x&pin-value=y",
        "é\t\"<>",
    ];
    let mut runs = 0;
    for h in hostile {
        let secret = marked(h);
        for template in [
            "pkcs11:token=ci;object=k?pin-value={S}",
            "pkcs11:token=ci;object=k?module-path=/nonexistent/m.so&pin-value={S}",
            "pkcs11:token=ci;object=k;pin-value={S}",
            "nosuchkms://transit/card?token={S}",
            "nosuchkms://ops:{S}@vault.example/transit/card",
        ] {
            let reference = template.replace("{S}", &secret);
            for args in [
                vec!["sign", "--unknown", "exclude", c, "--key", reference.as_str()],
                vec!["jwks", reference.as_str()],
            ] {
                let out = run(&args, None);
                assert!(!out.status.success(), "{reference}: accepted");
                assert_hidden(&out, &secret, &reference);
                assert!(error_line(&out).starts_with("error["), "{reference}");
                runs += 1;
            }
        }
    }
    assert_eq!(runs, hostile.len() * 5 * 2);
}

#[test]
fn a_private_jwk_that_is_not_json_is_not_quoted() {
    let (_dir, card, _key, _jwks) = card_and_key("jwk-secrecy", "ES256", &[]);
    let secret = marked("ab\"cd\\e");
    let text = format!("{{\"kty\":\"EC\",\"crv\":\"P-256\",\"d\":\"{secret}\"}}");
    let bad_b64 = format!("{{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"x\":\"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo\",\"d\":\"{}\"}}", marked("abcdefgh"));
    for (what, text, secret) in [
        ("not JSON", text.as_str(), secret.as_str()),
        ("bad d", bad_b64.as_str(), ""),
    ] {
        let out = run_env(
            &[
                "sign",
                "--unknown",
                "exclude",
                s(&card),
                "--key",
                "env://A2A_TEST_JWK",
            ],
            None,
            &[("A2A_TEST_JWK", text)],
        );
        assert!(!out.status.success(), "{what}");
        assert_hidden(&out, secret, what);
        for m in MARKERS {
            assert!(!stderr(&out).contains(m), "{what}: {}", stderr(&out));
        }
    }
}
