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

/// The bounds of the work-limit flags are the core's (`VerifyOptions::check`, `Limits::check`),
/// the ones the Python and npm packages apply: each flag accepts its core bound and refuses one
/// past it and 0, and HMAC in `--alg` is refused as the core refuses it in `algorithms`.
#[test]
fn the_limit_flags_and_the_core_agree() {
    use a2a_card::canonical::{MAX_DEPTH_LIMIT, MAX_INPUT_BYTES_LIMIT};
    use a2a_card::signature::{
        MAX_CHAIN_LEN_LIMIT, MAX_KEYS_PER_KID_LIMIT, MAX_SIGNATURES_LIMIT, MAX_SIGNATURE_CHECKS_LIMIT,
    };
    let (dir, card, key, jwks) = card_and_key("harden-bounds", "ES256", &[]);
    let signed = dir.join("signed.json");
    expect_code(&sign_to(&card, &key, &[], &signed), 0, "sign");
    for (flag, limit) in [
        ("--max-signatures", MAX_SIGNATURES_LIMIT),
        ("--max-keys-per-kid", MAX_KEYS_PER_KID_LIMIT),
        ("--max-signature-checks", MAX_SIGNATURE_CHECKS_LIMIT),
        ("--max-chain", MAX_CHAIN_LEN_LIMIT),
        ("--max-input-bytes", MAX_INPUT_BYTES_LIMIT),
        ("--max-depth", MAX_DEPTH_LIMIT),
    ] {
        let at = limit.to_string();
        expect_code(&verify(&signed, &jwks, &[flag, &at]), 0, &format!("{flag} {at}"));
        for bad in [(limit + 1).to_string(), "0".into()] {
            let out = verify(&signed, &jwks, &[flag, &bad]);
            expect_code(&out, 2, &format!("{flag} {bad}"));
            assert!(
                stderr(&out).contains(&format!("from 1 to {limit}")),
                "{}",
                stderr(&out)
            );
        }
        // The core refuses the same values in its options, naming the option its own way.
        let name = flag.trim_start_matches("--").replace('-', "_");
        let name = if name == "max_chain" {
            "max_chain_len".to_string()
        } else {
            name
        };
        let mut opts = a2a_card::VerifyOptions::default();
        let set = |o: &mut a2a_card::VerifyOptions, n: usize| match flag {
            "--max-signatures" => o.max_signatures = n,
            "--max-keys-per-kid" => o.max_keys_per_kid = n,
            "--max-signature-checks" => o.max_signature_checks = n,
            "--max-chain" => o.max_chain_len = n,
            "--max-input-bytes" => o.limits.max_input_bytes = n,
            _ => o.limits.max_depth = n,
        };
        set(&mut opts, limit);
        assert!(opts.check().is_ok(), "{flag}");
        set(&mut opts, limit + 1);
        let e = opts.check().unwrap_err();
        assert_eq!(
            e.message(),
            format!("{name} must be 1 to {limit}, got {}", limit + 1)
        );
    }
    for alg in ["HS256", "ES256,HS384"] {
        let out = verify(&signed, &jwks, &["--alg", alg]);
        let line = expect_error(&out, 2, "usage", "<command line>");
        assert!(line.contains("shared secret"), "{line}");
    }
}
