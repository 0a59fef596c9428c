//! The binary as a hostile user tries it, for the rules of signing and verifying: `sign` refuses
//! what `verify` would refuse, an unsigned card that `--mode if-present` lets pass has no
//! verified content, and the work limits are options with bounds.

#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::*;

#[test]
fn sign_refuses_a_signature_verify_would_refuse() {
    let dir = scratch("harden-sign");
    let (key, _) = keygen(&dir, "k.pem", "EdDSA", &[]);
    let mut card = write(&dir, "card.json", CARD);
    // 16 signatures by 16 keys: the limit verifiers apply.
    for i in 0..16 {
        let (k, _) = keygen(&dir, &format!("k{i}.pem"), "EdDSA", &[]);
        let next = dir.join(format!("card{i}.json"));
        expect_code(&sign_to(&card, &k, &[], &next), 0, "sign");
        card = next;
    }
    let before = std::fs::read(&card).unwrap();
    let out = sign(&card, &key, &["--in-place"]);
    let line = expect_error(&out, 2, "too-many-signatures", s(&card));
    assert!(
        line.contains("17 signatures") && line.contains("at /signatures"),
        "{line}"
    );
    assert_eq!(std::fs::read(&card).unwrap(), before, "the card is untouched");

    // A protected header past 4,096 bytes, or nested past 16 levels.
    let small = write(&dir, "small.json", CARD);
    let big = format!("x={}", serde_json::Value::from("a".repeat(5000)));
    let out = sign(&small, &key, &["--protected-header", &big]);
    expect_error(&out, 2, "header-too-large", "<command line>");
    let deep = format!("x={}{}", "[".repeat(16), "]".repeat(16));
    let out = sign(&small, &key, &["--protected-header", &deep]);
    expect_error(&out, 2, "malformed-header", "<command line>");
}

#[test]
fn an_unsigned_card_passing_if_present_has_no_verified_content() {
    let (dir, card, _, jwks) = card_and_key("harden-if-present", "ES256", &[]);
    let verified = dir.join("verified.json");
    let out = verify(
        &card,
        &jwks,
        &[
            "--mode",
            "if-present",
            "--emit-verified",
            s(&verified),
            "--format",
            "json",
        ],
    );
    expect_code(&out, 0, "if-present passes");
    assert!(!verified.exists(), "nothing is verified, nothing is written");
    assert!(stderr(&out).contains("nothing written"), "{}", stderr(&out));
    let r = json_out(&out);
    let top: Vec<String> = serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(CARD)
        .unwrap()
        .keys()
        .map(|k| format!("/{k}"))
        .collect();
    assert_eq!(r["unsigned"], serde_json::json!(top));
}

#[test]
fn the_work_limits_are_bounded_options() {
    let (dir, card, key, jwks) = card_and_key("harden-limits", "ES256", &["--kid", "dup"]);
    let signed = dir.join("signed.json");
    expect_code(&sign_to(&card, &key, &["--kid", "dup"], &signed), 0, "sign");
    // Five keys under kid "dup" (the signer's last): over the default limit of 4, none is tried.
    let mut keys: Vec<serde_json::Value> = (0..4)
        .map(|i| {
            let (_, j) = keygen(&dir, &format!("o{i}.pem"), "ES256", &["--kid", "dup"]);
            only_jwk(&j)
        })
        .collect();
    keys.push(only_jwk(&jwks));
    let crowd = write(
        &dir,
        "crowd.json",
        serde_json::json!({ "keys": keys }).to_string(),
    );
    let out = verify(&signed, &crowd, &["--format", "json"]);
    expect_code(&out, 1, "five keys under one kid");
    assert_eq!(
        json_out(&out)["signatures"][0]["verdict"]["code"],
        "too-many-keys"
    );
    let out = verify(&signed, &crowd, &["--max-keys-per-kid", "5"]);
    expect_code(&out, 0, "--max-keys-per-kid 5");
    let out = verify(
        &signed,
        &crowd,
        &["--max-keys-per-kid", "5", "--max-signature-checks", "4"],
    );
    expect_code(&out, 1, "--max-signature-checks 4");
    for (flag, bad) in [
        ("--max-keys-per-kid", "0"),
        ("--max-keys-per-kid", "257"),
        ("--max-signature-checks", "4097"),
    ] {
        let out = verify(&signed, &crowd, &[flag, bad]);
        expect_code(&out, 2, &format!("{flag} {bad}"));
    }
    // --max-jwks-keys is about fetching a jku: only with a URL.
    let out = verify(&signed, &crowd, &["--max-jwks-keys", "8"]);
    let line = expect_error(&out, 2, "usage", "<command line>");
    assert!(line.contains("--max-jwks-keys applies only"), "{line}");
}
