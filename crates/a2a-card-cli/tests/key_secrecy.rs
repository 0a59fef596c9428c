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
