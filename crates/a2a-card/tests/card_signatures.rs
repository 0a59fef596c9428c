//! Signing and verifying whole cards: the A2A signed-card corpus, the TCK EdDSA vectors, round
//! trips for every algorithm, and every refusal the design names, each with its code.

#![allow(clippy::unwrap_used, clippy::panic)] // tests stop at the first surprise

mod support;

use a2a_card_testkit::data;
use support::lenient;

use a2a_card::jose::crypto as alg;
use a2a_card::jose::keys::{PrivateKey, PublicKey};
use a2a_card::signature::trust::{TrustStore, TrustedKey};
use a2a_card::signature::{Mode, Report};
use a2a_card::Algorithm;
use a2a_card::{
    sign_card, verify_card, CanonicalizeOptions, ErrorCode, Profile, SignOptions, UnknownMembers,
    VerifyOptions,
};
use a2a_card_testkit::cards::{entry, signed_entry, with_signatures};
use serde_json::Value;
use std::fs;

fn sample_card() -> Vec<u8> {
    fs::read(data::testvectors_dir().join("cards/sample-8.5-unsigned.json")).unwrap_or_else(|_| {
        br#"{"name":"Sample","description":"A sample agent","version":"1.0.0",
            "supportedInterfaces":[{"url":"https://a.example/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
            "capabilities":{"streaming":true,"extensions":[{"uri":"https://x.example/ext","params":{"n":1.5,"list":[1,2]}}]},
            "securitySchemes":{"bearer":{"httpAuthSecurityScheme":{"scheme":"Bearer"}}},
            "securityRequirements":[{"schemes":{"bearer":{"list":["read"]}}}],
            "defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],
            "skills":[{"id":"s","name":"S","description":"d","tags":["t"]}]}"#
            .to_vec()
    })
}

fn trust_of(key: &PublicKey) -> TrustStore {
    let mut t = TrustStore::new();
    t.pin(key.clone(), "pinned");
    t
}

/// Appends a signature entry with a hand-made protected header (and optional unprotected
/// header) to `card`, signing the spec canonical bytes with `key` under `alg`.
fn add_raw_signature(
    card: &[u8],
    protected_json: &str,
    unprotected: Option<&str>,
    key: &PrivateKey,
    alg: Algorithm,
) -> Vec<u8> {
    let canonical = a2a_card::canonicalize(card, &CanonicalizeOptions::default()).unwrap();
    let header = unprotected.map(|h| serde_json::from_str(h).unwrap());
    let entry = signed_entry(&canonical.bytes, protected_json, header, |input| {
        alg::sign(alg, key, input).unwrap()
    });
    with_signatures(&serde_json::from_slice(card).unwrap(), vec![entry])
}

/// `card` with one entry of these `protected` and `signature` strings as its `signatures`.
fn with_entry(card: &[u8], protected: &str, signature: &str) -> Vec<u8> {
    with_signatures(
        &serde_json::from_slice(card).unwrap(),
        vec![entry(protected, signature, None)],
    )
}

fn verdict(report: &Report) -> &str {
    report.signatures[0].verdict.code.as_str()
}

#[test]
fn a2a_card_sign_corpus_under_spec() {
    let Some(root) = data::corpus_dir() else { return };
    let dir = root.join("a2a/a2a-card-sign-v01");
    let jwks = fs::read_to_string(dir.join("testkey_jwks.json")).unwrap();
    let trust = TrustStore::from_json(&jwks, "testkey_jwks.json").unwrap();
    let (mut accepted, mut rejected) = (0, 0);
    for path in data::card_sign_vector_files(&root) {
        let v = data::read_json(&path);
        let id = v.get("id").and_then(Value::as_str).unwrap().to_string();
        let lists = |name: &str| -> bool {
            matches!(v.get(name), Some(Value::Array(a)) if a.iter().any(|r| r.as_str() == Some("rule-1-as-written")))
        };
        let (accept, reject) = (lists("accept_under"), lists("reject_under"));
        if !accept && !reject {
            continue;
        }
        let card = v.get("served_card").unwrap().to_string();
        let result = verify_card(card.as_bytes(), &trust, &VerifyOptions::default());
        let ok = matches!(&result, Ok(r) if r.ok);
        if accept {
            assert!(ok, "{id}: must verify under spec: {result:?}");
            accepted += 1;
        } else {
            assert!(!ok, "{id}: must not verify under spec");
            rejected += 1;
        }
    }
    println!("a2a-card-sign-v01 under spec: {accepted} accepted, {rejected} rejected as expected");
    assert!(
        accepted >= 8 && rejected >= 4,
        "the corpus names rule-1-as-written on both sides"
    );
}

#[test]
fn tck_eddsa_vectors_reproduced_byte_for_byte() {
    let Some(doc) = data::corpus_json("a2a/a2a-tck-card-sign-pr194-204/card_signing_vectors.json") else {
        return;
    };
    let private = PrivateKey::from_jwk_str(&doc.get("private_jwk").unwrap().to_string()).unwrap();
    let public = PublicKey::from_jwk_str(&doc.get("public_jwk").unwrap().to_string()).unwrap();
    let Some(Value::Array(cases)) = doc.get("signing_cases") else {
        panic!("signing_cases")
    };
    assert_eq!(cases.len(), 2);
    for case in cases {
        let id = case.get("id").and_then(Value::as_str).unwrap();
        let card = case.get("agent_card").unwrap().to_string();
        let expected_payload = case.get("expected_jcs_payload").and_then(Value::as_str).unwrap();
        // The TCK signs the card's JCS form; under spec the two agree when every member is a
        // v1.0 member, otherwise the TCK's bytes are the served-as-is reading.
        let profile = if a2a_card::canonicalize(card.as_bytes(), &CanonicalizeOptions::default())
            .unwrap()
            .bytes
            == expected_payload.as_bytes()
        {
            Profile::Spec
        } else {
            Profile::ServedAsIs
        };
        let opts = SignOptions {
            kid: Some(case.get("kid").and_then(Value::as_str).unwrap().to_string()),
            canonicalize: CanonicalizeOptions {
                profile,
                ..Default::default()
            },
            allow_unsigned: true,
            // The TCK's signer declares nothing: its header is {alg, kid, typ}. a2a-card's is the
            // same for the spec bytes; a served-as-is signature would declare its bytes unless
            // told not to.
            declare: profile == Profile::Spec,
            ..Default::default()
        };
        let signed = sign_card(card.as_bytes(), &private, &opts).unwrap();
        assert_eq!(
            signed.canonical.bytes,
            expected_payload.as_bytes(),
            "{id}: payload"
        );
        assert_eq!(
            signed.protected,
            case.get("expected_protected_b64")
                .and_then(Value::as_str)
                .unwrap(),
            "{id}: protected"
        );
        let input = a2a_card::jose::header::signing_input(&signed.protected, &signed.canonical.bytes);
        assert_eq!(
            std::str::from_utf8(&input).unwrap(),
            case.get("expected_signing_input")
                .and_then(Value::as_str)
                .unwrap()
        );
        assert_eq!(
            signed.signature,
            case.get("signature").and_then(Value::as_str).unwrap(),
            "{id}: signature"
        );
        let report = verify_card(
            &signed.card,
            &trust_of(&public),
            &VerifyOptions {
                profiles: vec![profile],
                ..Default::default()
            },
        )
        .unwrap();
        assert!(report.ok, "{id}: {report:?}");
    }
}

#[test]
fn sign_then_verify_every_algorithm() {
    let card = sample_card();
    let rsa = PrivateKey::generate_rsa(2048).unwrap(); // declares no alg: usable for RS* and PS*
    for &alg in Algorithm::ALL.iter().filter(|a| !a.is_hmac()) {
        if !alg.available() {
            continue;
        }
        let key = if alg.as_str().starts_with("RS") || alg.as_str().starts_with("PS") {
            rsa.clone()
        } else {
            PrivateKey::generate(alg).unwrap()
        };
        let signed = sign_card(
            &card,
            &key,
            &SignOptions {
                alg: Some(alg),
                allow_unsigned: true,
                ..Default::default()
            },
        )
        .unwrap();
        let report = verify_card(&signed.card, &trust_of(key.public()), &VerifyOptions::default()).unwrap();
        assert!(report.ok, "{}: {report:?}", alg.as_str());
        assert_eq!(report.signatures[0].alg.as_deref(), Some(alg.as_str()));
        assert_eq!(report.profile, "spec");
        assert_eq!(report.canonical, signed.canonical.bytes);
        // Whitespace is not part of the canonical form: still valid.
        let tampered = String::from_utf8(signed.card.clone()).unwrap().replacen(
            "\"description\"",
            "\"description\" ",
            1,
        );
        assert!(
            verify_card(
                tampered.as_bytes(),
                &trust_of(key.public()),
                &VerifyOptions::default()
            )
            .unwrap()
            .ok,
            "whitespace is not covered"
        );
    }
}

#[test]
fn deterministic_algorithms_give_the_same_bytes_twice() {
    let card = sample_card();
    for alg in [Algorithm::EdDSA, Algorithm::RS256] {
        let key = PrivateKey::generate(alg).unwrap();
        let a = sign_card(&card, &key, &lenient()).unwrap();
        let b = sign_card(&card, &key, &lenient()).unwrap();
        assert_eq!(a.card, b.card, "{}", alg.as_str());
    }
}

#[test]
fn signing_keeps_every_other_member_and_its_order() {
    let card =
        b"{\n  \"zeta\": 1.50,\n  \"name\": \"A\",\n  \"signatures\": [],\n  \"description\": \"d\"\n}\n";
    let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    let signed = sign_card(card, &key, &lenient()).unwrap();
    let out = String::from_utf8(signed.card).unwrap();
    assert!(
        out.starts_with("{\n  \"zeta\": 1.50,\n  \"name\": \"A\",\n  \"signatures\": [\n    {\"protected\":"),
        "{out}"
    );
    assert!(out.ends_with("\n  ],\n  \"description\": \"d\"\n}\n"), "{out}");
    // A second signature of the same kid is refused unless asked for: appended with
    // append_same_kid, replacing with replace_same_kid.
    assert_eq!(
        sign_card(out.as_bytes(), &key, &lenient()).unwrap_err().code(),
        a2a_card::ErrorCode::KidAlreadySigned
    );
    let twice = sign_card(
        out.as_bytes(),
        &key,
        &SignOptions {
            append_same_kid: true,
            ..lenient()
        },
    )
    .unwrap();
    let v: Value = serde_json::from_slice(&twice.card).unwrap();
    assert!(matches!(v.get("signatures"), Some(Value::Array(a)) if a.len() == 2));
    let replaced = sign_card(
        out.as_bytes(),
        &key,
        &SignOptions {
            replace_same_kid: true,
            allow_unsigned: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(replaced.replaced, 1);
    let v: Value = serde_json::from_slice(&replaced.card).unwrap();
    assert!(matches!(v.get("signatures"), Some(Value::Array(a)) if a.len() == 1));
}

#[test]
fn refusals_each_with_their_code() {
    let card = sample_card();
    let ed = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    let p256 = PrivateKey::generate(Algorithm::ES256).unwrap();
    let kid = ed.public().kid().to_string();
    let trust = trust_of(ed.public());
    let opts = VerifyOptions::default();
    let check = |card: &[u8], trust: &TrustStore, want: &str| {
        let r = verify_card(card, trust, &opts).unwrap();
        assert!(!r.ok, "{want}: must fail");
        assert_eq!(verdict(&r), want, "{}", r.signatures[0].verdict.message);
    };

    // alg none
    let none = with_entry(
        &card,
        &data::b64url(format!(r#"{{"alg":"none","kid":"{kid}"}}"#).as_bytes()),
        "",
    );
    check(&none, &trust, "unknown-algorithm");
    // HS256 keyed with the verifier's public key bytes (algorithm confusion)
    let jwk = ed.public().to_jwk();
    let x = data::unb64url(jwk.get("x").and_then(|v| v.as_str()).unwrap());
    let protected = data::b64url(format!(r#"{{"alg":"HS256","kid":"{kid}","typ":"JOSE"}}"#).as_bytes());
    let canonical = a2a_card::canonicalize(&card, &CanonicalizeOptions::default()).unwrap();
    let mac = alg::sign_hmac(
        Algorithm::HS256,
        &[x.as_slice(), x.as_slice()].concat(),
        &a2a_card::jose::header::signing_input(&protected, &canonical.bytes),
    )
    .unwrap();
    check(
        &with_entry(&card, &protected, &data::b64url(&mac)),
        &trust,
        "algorithm-not-allowed",
    );
    // ES256 header, Ed25519 key
    let es_on_ed = add_raw_signature(
        &card,
        &format!(r#"{{"alg":"ES256","kid":"{kid}","typ":"JOSE"}}"#),
        None,
        &p256,
        Algorithm::ES256,
    );
    check(&es_on_ed, &trust, "key-algorithm-mismatch");
    // unknown kid
    let other = sign_card(&card, &p256, &lenient()).unwrap();
    check(&other.card, &trust, "untrusted-key");
    // expired and revoked keys
    let good = sign_card(&card, &ed, &lenient()).unwrap();
    let mut expired = TrustStore::new();
    expired.add(TrustedKey {
        not_after: Some(1_000_000),
        ..TrustedKey::new(ed.public().clone(), "t")
    });
    check(&good.card, &expired, "key-expired");
    let mut future = TrustStore::new();
    future.add(TrustedKey {
        not_before: Some(i64::MAX / 2),
        ..TrustedKey::new(ed.public().clone(), "t")
    });
    check(&good.card, &future, "key-expired");
    let mut revoked = TrustStore::new();
    revoked.add(TrustedKey {
        revoked: true,
        ..TrustedKey::new(ed.public().clone(), "t")
    });
    check(&good.card, &revoked, "key-revoked");
    // crit, b64:false, duplicate header member, parameter in both headers
    let crit = add_raw_signature(
        &card,
        &format!(r#"{{"alg":"EdDSA","kid":"{kid}","crit":["exp"],"exp":1}}"#),
        None,
        &ed,
        Algorithm::EdDSA,
    );
    check(&crit, &trust, "unsupported-crit");
    let b64f = add_raw_signature(
        &card,
        &format!(r#"{{"alg":"EdDSA","kid":"{kid}","b64":false,"crit":["b64"]}}"#),
        None,
        &ed,
        Algorithm::EdDSA,
    );
    let r = verify_card(&b64f, &trust, &opts).unwrap();
    assert!(matches!(verdict(&r), "unsupported-crit" | "unsupported-b64"));
    let b64only = add_raw_signature(
        &card,
        &format!(r#"{{"alg":"EdDSA","kid":"{kid}","b64":false}}"#),
        None,
        &ed,
        Algorithm::EdDSA,
    );
    check(&b64only, &trust, "unsupported-b64");
    let dup = add_raw_signature(
        &card,
        &format!(r#"{{"alg":"EdDSA","kid":"{kid}","kid":"{kid}"}}"#),
        None,
        &ed,
        Algorithm::EdDSA,
    );
    check(&dup, &trust, "duplicate-member");
    let both = add_raw_signature(
        &card,
        &format!(r#"{{"alg":"EdDSA","kid":"{kid}"}}"#),
        Some(&format!(r#"{{"kid":"{kid}"}}"#)),
        &ed,
        Algorithm::EdDSA,
    );
    check(&both, &trust, "header-conflict");
    // padded, foreign-character and truncated signatures
    let padded = with_entry(&card, &good.protected, &format!("{}==", good.signature));
    check(&padded, &trust, "invalid-base64url");
    let r = verify_card(&padded, &trust, &opts).unwrap();
    assert_eq!(
        r.signatures[0].verdict.pointer.as_deref(),
        Some("/signatures/0/signature"),
        "the verdict names the place"
    );
    let foreign = with_entry(
        &card,
        &good.protected,
        &good
            .signature
            .replacen(|c: char| c.is_ascii_alphanumeric(), "+", 1),
    );
    check(&foreign, &trust, "invalid-base64url");
    let sig = data::unb64url(&good.signature);
    let truncated = with_entry(&card, &good.protected, &data::b64url(&sig[..sig.len() - 1]));
    check(&truncated, &trust, "signature-invalid");
    // DER-encoded ECDSA signature
    let es = sign_card(&card, &p256, &lenient()).unwrap();
    let raw = data::unb64url(&es.signature);
    let der = der_from_raw(&raw);
    let der_card = with_entry(&card, &es.protected, &data::b64url(&der));
    check(&der_card, &trust_of(p256.public()), "signature-invalid");
    // A signature copied onto a different card
    let other_card =
        String::from_utf8(card.clone())
            .unwrap()
            .replacen("\"name\"", "\"name\":\"Other\",\"x-was-name\"", 1);
    let copied = with_entry(other_card.as_bytes(), &good.protected, &good.signature);
    let r = verify_card(&copied, &trust, &opts);
    assert!(matches!(r, Ok(r) if !r.ok && verdict(&r) == "signature-invalid"));
}

/// Re-encodes a raw r||s ECDSA signature as ASN.1 DER.
fn der_from_raw(raw: &[u8]) -> Vec<u8> {
    let half = raw.len() / 2;
    let int = |b: &[u8]| {
        let mut v: Vec<u8> = b.iter().copied().skip_while(|&x| x == 0).collect();
        if v.first().is_some_and(|&x| x & 0x80 != 0) {
            v.insert(0, 0);
        }
        let mut out = vec![0x02, v.len() as u8];
        out.extend(v);
        out
    };
    let body = [int(&raw[..half]), int(&raw[half..])].concat();
    let mut out = vec![0x30, body.len() as u8];
    out.extend(body);
    out
}

#[test]
fn a_change_to_any_covered_member_breaks_verification() {
    let card = br#"{"name":"A","description":"d","version":"1",
      "capabilities":{"streaming":true,"extensions":[{"uri":"https://x.example","params":{"k":{"deep":[1,2,3]}}}]},
      "securitySchemes":{"bearer":{"httpAuthSecurityScheme":{"scheme":"Bearer"}}},
      "defaultInputModes":["text/plain","image/png"],"defaultOutputModes":["text/plain"],"skills":[]}"#;
    let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    let signed = String::from_utf8(sign_card(card, &key, &lenient()).unwrap().card).unwrap();
    let trust = trust_of(key.public());
    let cases = [
        ("string", "\"name\":\"A\"", "\"name\":\"B\""),
        ("bool", "\"streaming\":true", "\"streaming\":false"),
        ("list element", "\"image/png\"", "\"image/gif\""),
        ("map entry", "\"scheme\":\"Bearer\"", "\"scheme\":\"Basic\""),
        ("Struct value", "[1,2,3]", "[1,2,4]"),
    ];
    for (kind, from, to) in cases {
        assert!(signed.contains(from), "{kind}");
        let changed = signed.replacen(from, to, 1);
        let r = verify_card(changed.as_bytes(), &trust, &VerifyOptions::default()).unwrap();
        assert!(!r.ok, "{kind}: change must break the signature");
        assert_eq!(verdict(&r), "signature-invalid", "{kind}");
    }
}

#[test]
fn unknown_members_stay_valid_and_are_reported_unsigned() {
    let key = PrivateKey::generate(Algorithm::ES256).unwrap();
    let signed = sign_card(&sample_card(), &key, &lenient()).unwrap();
    let before = verify_card(&signed.card, &trust_of(key.public()), &VerifyOptions::default()).unwrap();
    assert!(before.ok);
    let mut v: Value = serde_json::from_slice(&signed.card).unwrap();
    if let Value::Object(m) = &mut v {
        m.shift_insert(0, "x-injected".into(), Value::from("not signed"));
    }
    let bytes = serde_json::to_vec(&v).unwrap();
    let r = verify_card(&bytes, &trust_of(key.public()), &VerifyOptions::default()).unwrap();
    assert!(r.ok);
    let mut expected = vec!["/x-injected".to_string()];
    expected.extend(before.unsigned.iter().cloned());
    assert_eq!(
        r.unsigned, expected,
        "the injected member is reported first, in document order"
    );
    assert_eq!(r.canonical, before.canonical, "the verified content is unchanged");
    // With unknown members rejected the card is refused outright.
    let e = verify_card(
        &bytes,
        &trust_of(key.public()),
        &VerifyOptions {
            unknown: UnknownMembers::Reject,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert_eq!(e.code(), ErrorCode::UnknownMember);
    assert_eq!(e.pointer(), Some("/x-injected"));
}

#[test]
fn modes_and_limits() {
    let card = sample_card();
    let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    let stranger = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    let trust = trust_of(key.public());
    let unsigned = verify_card(&card, &trust, &VerifyOptions::default()).unwrap();
    assert!(!unsigned.ok);
    let r = verify_card(
        &card,
        &trust,
        &VerifyOptions {
            mode: Mode::IfPresent,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(r.ok);
    let one = sign_card(&card, &key, &lenient()).unwrap();
    let two = sign_card(&one.card, &stranger, &lenient()).unwrap();
    assert!(
        verify_card(&two.card, &trust, &VerifyOptions::default())
            .unwrap()
            .ok,
        "require: one valid is enough"
    );
    assert!(
        !verify_card(
            &two.card,
            &trust,
            &VerifyOptions {
                mode: Mode::All,
                ..Default::default()
            }
        )
        .unwrap()
        .ok
    );
    assert!(
        !verify_card(
            &two.card,
            &trust,
            &VerifyOptions {
                mode: Mode::IfPresent,
                ..Default::default()
            }
        )
        .unwrap()
        .ok
    );
    let e = verify_card(
        &two.card,
        &trust,
        &VerifyOptions {
            max_signatures: 1,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert_eq!(e.code(), ErrorCode::TooManySignatures);
    // Algorithm allow-list
    let r = verify_card(
        &one.card,
        &trust,
        &VerifyOptions {
            algorithms: Some(vec![Algorithm::ES256]),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(verdict(&r), "algorithm-not-allowed");
    // Header size limit
    let big = add_raw_signature(
        &card,
        &format!(
            r#"{{"alg":"EdDSA","kid":"{}","x":"{}"}}"#,
            key.public().kid(),
            "a".repeat(5000)
        ),
        None,
        &key,
        Algorithm::EdDSA,
    );
    let r = verify_card(&big, &trust, &VerifyOptions::default()).unwrap();
    assert_eq!(verdict(&r), "header-too-large");
}

#[test]
fn also_profiles_add_one_signature_per_profile_for_the_transition() {
    // The sample card has empty values prune-empty drops, so the two forms differ.
    let card = br#"{"name":"A","description":"","version":"1","capabilities":{"streaming":false},
      "defaultInputModes":[],"defaultOutputModes":["text/plain"],"skills":[]}"#;
    let key = PrivateKey::generate(Algorithm::ES256).unwrap();
    let opts = SignOptions {
        also_profiles: vec![Profile::PruneEmpty, Profile::Spec],
        allow_unsigned: true,
        ..Default::default()
    };
    let signed = sign_card(card, &key, &opts).unwrap();
    assert_eq!(signed.also.len(), 1, "the main profile is not signed twice");
    assert_ne!(signed.also[0].canonical.bytes, signed.canonical.bytes);
    let trust = trust_of(key.public());
    // The transition signature declares its profile: a policy that does not accept it names it
    // so, never a bad signature. The spec one declares nothing, as every other signer's.
    for (profiles, want) in [
        (vec![Profile::Spec], vec!["valid", "profile-not-accepted"]),
        // The spec signature declares nothing: read as any other signer's.
        (vec![Profile::PruneEmpty], vec!["signature-invalid", "valid"]),
        (Profile::ALL.to_vec(), vec!["valid", "valid"]),
    ] {
        let r = verify_card(
            &signed.card,
            &trust,
            &VerifyOptions {
                profiles: profiles.clone(),
                ..Default::default()
            },
        )
        .unwrap();
        assert!(r.ok);
        let got: Vec<&str> = r.signatures.iter().map(|s| s.verdict.code.as_str()).collect();
        assert_eq!(got, want, "{profiles:?}");
    }
    let all = VerifyOptions {
        profiles: Profile::ALL.to_vec(),
        mode: Mode::All,
        ..Default::default()
    };
    let r = verify_card(&signed.card, &trust, &all).unwrap();
    assert!(r.ok);
    assert_eq!(r.signatures[1].profile, Some(Profile::PruneEmpty));
    // Re-signing with replace removes both entries of that kid before adding the new pair.
    let again = sign_card(
        &signed.card,
        &key,
        &SignOptions {
            replace_same_kid: true,
            ..opts.clone()
        },
    )
    .unwrap();
    assert_eq!(again.replaced, 2);
}

#[test]
fn sign_and_inspect_refuse_malformed_requests_up_front() {
    let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    let card = sample_card();
    let opts = SignOptions {
        unprotected: vec![
            ("a".into(), serde_json::json!(1)),
            ("a".into(), serde_json::json!(2)),
        ],
        allow_unsigned: true,
        ..Default::default()
    };
    let e = sign_card(&card, &key, &opts).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Usage);
    assert!(e.message().contains("\"a\""), "{e}");
    for bad in [
        &br#"{"name":"A","signatures":{"protected":"e30"}}"#[..],
        br#"{"name":"A","signatures":"x"}"#,
    ] {
        let e = a2a_card::inspect_card(bad, &CanonicalizeOptions::default()).unwrap_err();
        assert_eq!(e.code(), ErrorCode::MalformedCard);
        assert_eq!(e.pointer(), Some("/signatures"));
        let e = sign_card(bad, &key, &lenient()).unwrap_err();
        assert_eq!(e.code(), ErrorCode::MalformedCard);
    }
}
