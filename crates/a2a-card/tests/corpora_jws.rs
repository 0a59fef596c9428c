//! JWS corpora: the 41 detached cases, RFC 7515 appendix A and RFC 8037 appendix A, through the
//! core's low-level JWS verification (`a2a_card::jose::header::verify_detached`) and signing.

#![allow(clippy::unwrap_used, clippy::panic)] // tests stop at the first surprise

use a2a_card_testkit::data;

use a2a_card::jose::crypto as alg;
use a2a_card::jose::header::VerificationKey;
use a2a_card::jose::keys::{PrivateKey, PublicKey};
use a2a_card::Algorithm;
use a2a_card::ErrorCode;
use serde_json::Value;
use std::fs;

#[test]
fn detached_cases_give_their_expected_result() {
    let Some(root) = data::corpus_dir() else { return };
    let dir = root.join("jws/detached");
    let manifest = data::read_json(dir.join("manifest.json"));
    let Value::Array(cases) = manifest else {
        panic!("manifest is an array")
    };
    assert_eq!(cases.len(), 41, "the corpus has 41 detached cases");
    let mut failures = Vec::new();
    for case in &cases {
        let name = case.get("name").and_then(Value::as_str).unwrap();
        let expect = case.get("expect").and_then(Value::as_str).unwrap();
        let case_dir = dir.join(name);
        let jws_value = data::read_json(case_dir.join("jws.json"));
        let payload = fs::read(case_dir.join("payload.bin")).unwrap();
        let jwk = data::read_json(case_dir.join("jwk.json"));
        let result = if jwk.get("kty").and_then(Value::as_str) == Some("oct") {
            let secret = data::unb64url(jwk.get("k").and_then(Value::as_str).unwrap());
            a2a_card::jose::header::verify_detached(
                &jws_value.to_string(),
                &payload,
                VerificationKey::SharedSecret(&secret),
            )
        } else {
            let key =
                PublicKey::from_jwk_str(&jwk.to_string()).unwrap_or_else(|e| panic!("{name}: key: {e}"));
            a2a_card::jose::header::verify_detached(
                &jws_value.to_string(),
                &payload,
                VerificationKey::Public(&key),
            )
        };
        let got = if result.is_ok() { "valid" } else { "invalid" };
        if got != expect {
            failures.push(format!("{name}: expected {expect}, got {got} ({result:?})"));
        }
        if let Err(e) = &result {
            // A refusal must be the cryptographic one, not a parsing accident.
            assert!(
                matches!(e.code(), ErrorCode::SignatureInvalid),
                "{name}: refused with {} ({}), expected signature-invalid",
                e.code(),
                e.message()
            );
        }
    }
    assert!(
        failures.is_empty(),
        "{} of 41 detached cases disagree:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn rfc7515_appendix_a_vectors() {
    let Some(doc) = data::corpus_json("jws/rfc7515_appendix_a.json") else {
        return;
    };
    let Some(Value::Array(vectors)) = doc.get("vectors") else {
        panic!("vectors")
    };
    let mut checked = Vec::new();
    for v in vectors {
        let id = v.get("id").and_then(Value::as_str).unwrap();
        let alg_name = v.get("alg").and_then(Value::as_str).unwrap();
        let protected = v.get("protected_b64u").and_then(Value::as_str).unwrap();
        let payload = data::unb64url(v.get("payload_b64u").and_then(Value::as_str).unwrap());
        let sig_text = v.get("signature_b64u").and_then(Value::as_str).unwrap_or("");
        let signing_input = a2a_card::jose::header::signing_input(protected, &payload);
        assert_eq!(
            std::str::from_utf8(&signing_input).unwrap(),
            v.get("signing_input").and_then(Value::as_str).unwrap(),
            "{id}: signing input"
        );
        let flattened: Value = serde_json::from_str(&format!(
            r#"{{"protected":"{protected}","signature":"{sig_text}"}}"#
        ))
        .unwrap();
        if alg_name == "none" {
            let e = Algorithm::from_name("none").unwrap_err();
            assert_eq!(e.code(), ErrorCode::UnknownAlgorithm, "{id}");
            let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
            let e = a2a_card::jose::header::verify_detached(
                &flattened.to_string(),
                &payload,
                VerificationKey::Public(key.public()),
            )
            .unwrap_err();
            assert_eq!(
                e.code(),
                ErrorCode::UnknownAlgorithm,
                "{id}: alg none must be refused"
            );
            checked.push(id.to_string());
            continue;
        }
        let public = v.get("key_public").unwrap();
        let private = v.get("key_private").unwrap();
        let sig = data::unb64url(sig_text);
        if public.get("kty").and_then(Value::as_str) == Some("oct") {
            let secret = data::unb64url(public.get("k").and_then(Value::as_str).unwrap());
            a2a_card::jose::header::verify_detached(
                &flattened.to_string(),
                &payload,
                VerificationKey::SharedSecret(&secret),
            )
            .unwrap_or_else(|e| panic!("{id}: {e}"));
            let alg = Algorithm::from_name(alg_name).unwrap();
            assert_eq!(
                alg::sign_hmac(alg, &secret, &signing_input).unwrap(),
                sig,
                "{id}: HMAC reproduces"
            );
        } else {
            let key = PublicKey::from_jwk_str(&public.to_string()).unwrap_or_else(|e| panic!("{id}: {e}"));
            a2a_card::jose::header::verify_detached(
                &flattened.to_string(),
                &payload,
                VerificationKey::Public(&key),
            )
            .unwrap_or_else(|e| panic!("{id}: {e}"));
            let priv_key = PrivateKey::from_jwk_str(&private.to_string())
                .unwrap_or_else(|e| panic!("{id}: private: {e}"));
            let alg = Algorithm::from_name(alg_name).unwrap();
            let ours = alg::sign(alg, &priv_key, &signing_input).unwrap();
            if v.get("reproducible") == Some(&Value::Bool(true)) {
                assert_eq!(
                    ours, sig,
                    "{id}: deterministic signature reproduced byte for byte"
                );
            }
            alg::verify(alg, &key, &signing_input, &ours)
                .unwrap_or_else(|e| panic!("{id}: our signature: {e}"));
        }
        checked.push(id.to_string());
    }
    for want in [
        "RFC7515-A.1",
        "RFC7515-A.2",
        "RFC7515-A.3",
        "RFC7515-A.4",
        "RFC7515-A.5",
    ] {
        assert!(
            checked.iter().any(|c| c == want),
            "{want} was checked ({checked:?})"
        );
    }
    // A.7: flattened JSON with an unprotected header.
    let flat = doc.get("flattened_json").unwrap();
    let key = PublicKey::from_jwk_str(&flat.get("key_public").unwrap().to_string()).unwrap();
    let mut jws_value = flat.get("json_flattened").unwrap().clone();
    let payload = data::unb64url(jws_value.get("payload").and_then(Value::as_str).unwrap());
    if let Value::Object(m) = &mut jws_value {
        m.shift_remove("payload");
    }
    let h = a2a_card::jose::header::verify_detached(
        &jws_value.to_string(),
        &payload,
        VerificationKey::Public(&key),
    )
    .unwrap();
    assert_eq!(
        h.unprotected_names(),
        ["kid"],
        "A.7 carries kid in the unprotected header"
    );
}

#[test]
fn rfc8037_vectors() {
    let Some(doc) = data::corpus_json("jws/rfc8037_appendix_a.json") else {
        return;
    };
    let public = PublicKey::from_jwk_str(&doc.get("A.2_public_key").unwrap().to_string()).unwrap();
    let private = PrivateKey::from_jwk_str(&doc.get("A.1_private_key").unwrap().to_string()).unwrap();
    let thumb = doc
        .get("A.3_thumbprint")
        .and_then(|t| t.get("sha256_b64u"))
        .and_then(Value::as_str)
        .unwrap();
    assert_eq!(public.thumbprint(), thumb, "RFC 8037 A.3 thumbprint");
    assert_eq!(private.public().thumbprint(), thumb);
    let a4 = doc.get("A.4_A.5").unwrap();
    let input = a4.get("signing_input").and_then(Value::as_str).unwrap();
    let sig = data::unb64url(a4.get("signature_b64u").and_then(Value::as_str).unwrap());
    assert_eq!(
        alg::sign(Algorithm::EdDSA, &private, input.as_bytes()).unwrap(),
        sig,
        "A.4 reproduced"
    );
    alg::verify(Algorithm::EdDSA, &public, input.as_bytes(), &sig).unwrap();
    let mut tampered = input.as_bytes().to_vec();
    let last = tampered.len() - 1;
    tampered[last] ^= 1;
    assert_eq!(
        alg::verify(Algorithm::EdDSA, &public, &tampered, &sig)
            .unwrap_err()
            .code(),
        ErrorCode::SignatureInvalid
    );
}
