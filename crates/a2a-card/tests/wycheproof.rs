//! Wycheproof signature-verification vectors (C2SP/wycheproof, read from the shared corpora,
//! never copied): every `valid` case must verify and every `invalid` case must be refused
//! through `a2a_card::jose::crypto::verify`, with keys loaded by our own JWK and SPKI readers.

#![allow(clippy::unwrap_used, clippy::panic)] // a test reports by panicking

use a2a_card::jose::crypto::verify;
use a2a_card::jose::keys::PublicKey;
use a2a_card::Algorithm;
use a2a_card::ErrorCode;
use a2a_card_testkit::data::{b64url, corpus, unhex};
use serde_json::{json, Value};

#[derive(Default, Debug)]
struct Counts {
    groups: usize,
    weak_key_groups: usize,
    valid: usize,
    invalid: usize,
    acceptable_accepted: usize,
    acceptable_refused: usize,
    skipped_tests: usize,
}

/// The group's public key, from its JWK or (for the ECDSA groups without one) from the
/// uncompressed point; cross-checked against the group's SubjectPublicKeyInfo DER.
fn group_key(group: &Value, curve: Option<&str>) -> Result<PublicKey, a2a_card::Error> {
    let jwk = group
        .get("publicKeyJwk")
        .or_else(|| group.get("keyJwk"))
        .cloned()
        .or_else(|| {
            let point = unhex(group["publicKey"]["uncompressed"].as_str()?);
            assert_eq!(point[0], 4);
            let half = (point.len() - 1) / 2;
            Some(json!({
                "kty": "EC",
                "crv": curve.expect("EC curve"),
                "x": b64url(&point[1..1 + half]),
                "y": b64url(&point[1 + half..]),
            }))
        })
        .expect("group has a key");
    let from_jwk = PublicKey::from_jwk(&jwk);
    if let Some(der) = group["publicKeyDer"].as_str() {
        let from_der = PublicKey::from_spki_der(&unhex(der));
        match (&from_jwk, &from_der) {
            (Ok(a), Ok(b)) => assert_eq!(a.material(), b.material(), "JWK and DER keys differ"),
            (Err(a), Err(b)) => assert_eq!(a.code(), b.code(), "JWK and DER refused differently"),
            _ => panic!("JWK and DER forms load differently: {from_jwk:?} vs {from_der:?}"),
        }
    }
    from_jwk
}

fn run(file: &str, alg: Algorithm, curve: Option<&str>) {
    let Some(dir) = corpus("wycheproof") else { return };
    let path = dir.join(file);
    let doc: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let mut c = Counts::default();
    let mut failures = Vec::new();
    for group in doc["testGroups"].as_array().unwrap() {
        c.groups += 1;
        let tests = group["tests"].as_array().unwrap();
        let key = match group_key(group, curve) {
            Ok(k) => k,
            Err(e) => {
                assert_eq!(e.code(), ErrorCode::WeakKey, "unexpected key refusal: {e}");
                let bits = group["keySize"].as_u64().unwrap_or(0);
                assert!(bits < 2048, "weak-key for a {bits}-bit key");
                c.weak_key_groups += 1;
                c.skipped_tests += tests.len();
                continue;
            }
        };
        for t in tests {
            let msg = unhex(t["msg"].as_str().unwrap());
            let sig = unhex(t["sig"].as_str().unwrap());
            let id = t["tcId"].as_u64().unwrap();
            let got = verify(alg, &key, &msg, &sig);
            match t["result"].as_str().unwrap() {
                "valid" => {
                    c.valid += 1;
                    if let Err(e) = got {
                        failures.push(format!("tcId {id} valid but refused: {e}"));
                    }
                }
                "invalid" => {
                    c.invalid += 1;
                    match got {
                        Ok(()) => failures.push(format!("tcId {id} invalid but accepted ({})", t["comment"])),
                        Err(e) if e.code() != ErrorCode::SignatureInvalid => failures.push(format!(
                            "tcId {id} refused with {} not signature-invalid",
                            e.code()
                        )),
                        Err(_) => {}
                    }
                }
                "acceptable" => match got {
                    Ok(()) => c.acceptable_accepted += 1,
                    Err(_) => c.acceptable_refused += 1,
                },
                other => panic!("unknown result {other}"),
            }
        }
    }
    println!("{file} ({alg}): {c:?}");
    assert!(
        failures.is_empty(),
        "{file}: {} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    let total = doc["numberOfTests"].as_u64().unwrap() as usize;
    assert_eq!(
        c.valid + c.invalid + c.acceptable_accepted + c.acceptable_refused + c.skipped_tests,
        total,
        "every test counted"
    );
    assert!(c.valid > 0 && c.invalid > 0);
}

#[test]
fn es256_p1363() {
    run(
        "ecdsa_secp256r1_sha256_p1363_test.json",
        Algorithm::ES256,
        Some("P-256"),
    );
}

#[test]
fn es384_p1363() {
    run(
        "ecdsa_secp384r1_sha384_p1363_test.json",
        Algorithm::ES384,
        Some("P-384"),
    );
}

#[test]
#[cfg(feature = "native-algs")]
fn es512_p1363() {
    run(
        "ecdsa_secp521r1_sha512_p1363_test.json",
        Algorithm::ES512,
        Some("P-521"),
    );
}

#[test]
fn ed25519() {
    run("ed25519_test.json", Algorithm::EdDSA, None);
}

#[test]
fn rs256_2048() {
    run("rsa_signature_2048_sha256_test.json", Algorithm::RS256, None);
}

#[test]
fn ps256_2048_mgf1_32() {
    run("rsa_pss_2048_sha256_mgf1_32_test.json", Algorithm::PS256, None);
}
