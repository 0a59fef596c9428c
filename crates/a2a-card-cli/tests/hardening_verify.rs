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

/// A small-order Ed25519 point as a trust root: under the identity, R = identity, S = 0 is a
/// signature of every card. Every way `verify` is given a key refuses it as `weak-key` (exit 3,
/// as any key file the CLI cannot use), so the forged card never gets to verification; `jwks`
/// refuses it too. The same for an Ed448 point of order 4, under which OpenSSL's cofactored
/// check accepts R = B, S = 1 for every card.
#[test]
fn small_order_trust_roots_are_weak_keys() {
    use base64::Engine as _;
    let b64u = |b: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(b);
    let dir = scratch("harden-small-order");
    let mut identity = vec![0u8; 32];
    identity[0] = 1;
    let mut forged = identity.clone();
    forged.extend_from_slice(&[0u8; 32]);
    // The Ed448 base point, then S = 1.
    let mut forged448 = (0..57)
        .map(|i| {
            let h = "14fa30f25b790898adc8d74e2c13bdfdc4397ce61cffd33ad7c2a0051e9c78874098a36c7373ea4b62c7c9563720768824bcb66e71463f6900";
            u8::from_str_radix(&h[2 * i..2 * i + 2], 16).unwrap()
        })
        .collect::<Vec<u8>>();
    forged448.push(1);
    forged448.extend_from_slice(&[0u8; 56]);
    // Ed25519 identity, its non-canonical spelling p + 1, and the Ed448 point (1, 0).
    let mut p_plus_1 = vec![0xffu8; 32];
    p_plus_1[0] = 0xee;
    p_plus_1[31] = 0x7f;
    let cases = [
        ("Ed25519", identity.clone(), forged.clone()),
        ("Ed25519", p_plus_1, forged.clone()),
        ("Ed448", vec![0u8; 57], forged448),
    ];
    for (n, (crv, x, sig)) in cases.into_iter().enumerate() {
        let jwk = serde_json::json!({"kty": "OKP", "crv": crv, "x": b64u(&x), "kid": "weak"});
        let mut card: serde_json::Value = serde_json::from_str(CARD).unwrap();
        let protected = b64u(br#"{"alg":"EdDSA","kid":"weak","typ":"JOSE"}"#);
        card["signatures"] = serde_json::json!([{"protected": protected, "signature": b64u(&sig)}]);
        let card = write(&dir, &format!("forged{n}.json"), card.to_string());
        let key = write(&dir, &format!("weak{n}.jwk.json"), jwk.to_string());
        let jwks = write(
            &dir,
            &format!("weak{n}.jwks.json"),
            serde_json::json!({"keys": [jwk]}).to_string(),
        );
        let trust = write(
            &dir,
            &format!("weak{n}.trust.json"),
            serde_json::json!({"keys": [{"jwk": jwk, "origins": ["https://agent.example"]}]}).to_string(),
        );
        for (flag, file) in [("--key", &key), ("--jwks", &jwks), ("--trust", &trust)] {
            let out = run(&["verify", s(&card), flag, s(file)], None);
            let line = expect_error(&out, 3, "weak-key", s(file));
            assert!(line.contains("small order"), "{line}");
            assert!(!line.contains(&b64u(&x)), "key material in {line}");
        }
        let out = run(&["jwks", s(&key)], None);
        expect_error(&out, 3, "weak-key", s(&key));
    }

    // A CA certificate on the identity point as a trust anchor: anyone could issue under it.
    let root = a2a_card_testkit::pki::Cert::root("Test Root");
    let weak_ca = root.issue_for_ed25519_bytes(&a2a_card_testkit::pki::Spec::ca("Weak CA", None), &identity);
    let pem = format!(
        "-----BEGIN CERTIFICATE-----\n{}\n-----END CERTIFICATE-----\n",
        base64::engine::general_purpose::STANDARD.encode(&weak_ca)
    );
    let anchors = write(&dir, "weak-ca.pem", pem);
    let card = write(&dir, "card.json", CARD);
    let out = run(&["verify", s(&card), "--trust-anchors", s(&anchors)], None);
    let line = expect_error(&out, 3, "weak-key", s(&anchors));
    assert!(
        line.contains("trust anchor") && line.contains("small order"),
        "{line}"
    );
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
        // The core's error names its option; the CLI spells it as its flag.
        assert!(line.contains("--alg: HS"), "{line}");
    }
    // Origin: the core's rule, named as the flag.
    let out = verify(&signed, &jwks, &["--origin", "http://agent.example"]);
    let line = expect_error(&out, 2, "usage", "<command line>");
    assert!(
        line.contains("--origin: \"http://agent.example\" is not an origin"),
        "{line}"
    );
}
