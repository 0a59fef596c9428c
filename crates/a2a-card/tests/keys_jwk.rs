//! JWK and JWK Set keys: the consistency refusals of RFC 7517/7518 members, JWK Sets, RFC 7638
//! thumbprints and the known answers of the RFCs (shared corpora).

#![allow(clippy::unwrap_used, clippy::panic)] // a test reports by panicking

use a2a_card::jose::crypto::{sign, sign_hmac, verify, verify_hmac};
use a2a_card::jose::keys::{parse_jwks, PrivateKey, PublicKey};
use a2a_card::Algorithm;
use a2a_card::ErrorCode;
use a2a_card_testkit::data::{b64url, corpus, key_file, unb64url};
use serde_json::{json, Value};

fn code<T: std::fmt::Debug>(r: Result<T, a2a_card::Error>) -> ErrorCode {
    r.unwrap_err().code()
}

#[test]
fn jwk_consistency_refusals() {
    let ed_x = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo";
    let ed_d = "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A";
    let p_x = "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU";
    let p_y = "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0";
    let p_d = "jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI";
    let rsa = PrivateKey::from_pem(&key_file("rsa2048.pem"))
        .unwrap()
        .to_jwk_private();
    let n = rsa["n"].as_str().unwrap().to_string();
    let with = |base: &Value, member: &str, v: Value| {
        let mut j = base.clone();
        if v.is_null() {
            j.as_object_mut().unwrap().remove(member);
        } else {
            j[member] = v;
        }
        j
    };
    let ed = json!({"kty":"OKP","crv":"Ed25519","x":ed_x});
    let ed_priv = json!({"kty":"OKP","crv":"Ed25519","x":ed_x,"d":ed_d});
    let ec = json!({"kty":"EC","crv":"P-256","x":p_x,"y":p_y});
    let ec_priv = json!({"kty":"EC","crv":"P-256","x":p_x,"y":p_y,"d":p_d});
    let rsa_pub = json!({"kty":"RSA","n":n,"e":"AQAB"});
    // The unmodified keys load.
    PublicKey::from_jwk(&ed).unwrap();
    PublicKey::from_jwk(&ec).unwrap();
    PublicKey::from_jwk(&rsa_pub).unwrap();
    PrivateKey::from_jwk(&ed_priv).unwrap();
    PrivateKey::from_jwk(&ec_priv).unwrap();
    PrivateKey::from_jwk(&rsa).unwrap();

    let short_x = b64url(&unb64url(p_x)[1..]);
    let mut off_curve = unb64url(p_y);
    off_curve[31] ^= 1;
    let mut d_plus = unb64url(p_d);
    d_plus[31] ^= 1;
    let mut padded_n = vec![0u8];
    padded_n.extend(unb64url(&n));
    let cases: Vec<(&str, Value, bool, ErrorCode, &str)> = vec![
        (
            "EC with crv Ed25519",
            with(&ec, "crv", json!("Ed25519")),
            false,
            ErrorCode::JwkInconsistent,
            "/crv",
        ),
        (
            "OKP with crv P-256",
            with(&ed, "crv", json!("P-256")),
            false,
            ErrorCode::JwkInconsistent,
            "/crv",
        ),
        (
            "OKP with y",
            with(&ed, "y", json!(p_y)),
            false,
            ErrorCode::JwkInconsistent,
            "/y",
        ),
        (
            "OKP X25519",
            with(&ed, "crv", json!("X25519")),
            false,
            ErrorCode::JwkInconsistent,
            "/crv",
        ),
        (
            "RSA with crv",
            with(&rsa_pub, "crv", json!("P-256")),
            false,
            ErrorCode::JwkInconsistent,
            "/crv",
        ),
        (
            "RSA with x",
            with(&rsa_pub, "x", json!(p_x)),
            false,
            ErrorCode::JwkInconsistent,
            "/x",
        ),
        (
            "EC with n",
            with(&ec, "n", json!(n)),
            false,
            ErrorCode::JwkInconsistent,
            "/n",
        ),
        (
            "short x",
            with(&ec, "x", json!(short_x)),
            false,
            ErrorCode::JwkInconsistent,
            "/x",
        ),
        (
            "short OKP x",
            with(&ed, "x", json!(short_x)),
            false,
            ErrorCode::JwkInconsistent,
            "/x",
        ),
        (
            "off curve",
            with(&ec, "y", json!(b64url(&off_curve))),
            false,
            ErrorCode::JwkInconsistent,
            "/x",
        ),
        (
            "P-384 coordinates for P-256",
            with(&ec, "crv", json!("P-384")),
            false,
            ErrorCode::JwkInconsistent,
            "/x",
        ),
        (
            "EC d too short",
            with(&ec_priv, "d", json!(b64url(&unb64url(p_d)[1..]))),
            true,
            ErrorCode::JwkInconsistent,
            "/d",
        ),
        (
            "OKP d too long",
            with(&ed_priv, "d", json!(format!("{p_d}AAAA"))),
            true,
            ErrorCode::JwkInconsistent,
            "/d",
        ),
        (
            "EC d not matching",
            with(&ec_priv, "d", json!(b64url(&d_plus))),
            true,
            ErrorCode::JwkInconsistent,
            "/d",
        ),
        (
            "OKP d not matching",
            with(&ed_priv, "d", json!(p_d)),
            true,
            ErrorCode::JwkInconsistent,
            "/d",
        ),
        (
            "RSA n with leading zero",
            with(&rsa_pub, "n", json!(b64url(&padded_n))),
            false,
            ErrorCode::JwkInconsistent,
            "/n",
        ),
        (
            "RSA d not matching",
            with(&rsa, "d", rsa["dp"].clone()),
            true,
            ErrorCode::JwkInconsistent,
            "/d",
        ),
        (
            "RSA q not matching",
            with(&rsa, "q", rsa["p"].clone()),
            true,
            ErrorCode::JwkInconsistent,
            "/d",
        ),
        (
            "alg for another kty",
            with(&ec, "alg", json!("RS256")),
            false,
            ErrorCode::JwkInconsistent,
            "/alg",
        ),
        (
            "alg none",
            with(&ec, "alg", json!("none")),
            false,
            ErrorCode::UnknownAlgorithm,
            "/alg",
        ),
        (
            "x not base64url",
            with(&ec, "x", json!(format!("{}=", &p_x[..42]))),
            false,
            ErrorCode::InvalidKey,
            "/x",
        ),
        (
            "x a number",
            with(&ec, "x", json!(1)),
            false,
            ErrorCode::InvalidKey,
            "/x",
        ),
        (
            "missing y",
            with(&ec, "y", Value::Null),
            false,
            ErrorCode::InvalidKey,
            "/y",
        ),
        (
            "missing kty",
            with(&ec, "kty", Value::Null),
            false,
            ErrorCode::InvalidKey,
            "/kty",
        ),
        (
            "unknown kty",
            with(&ec, "kty", json!("EC2")),
            false,
            ErrorCode::InvalidKey,
            "/kty",
        ),
        (
            "unknown crv",
            with(&ec, "crv", json!("P-192")),
            false,
            ErrorCode::InvalidKey,
            "/crv",
        ),
        (
            "use enc",
            with(&ec, "use", json!("enc")),
            false,
            ErrorCode::InvalidKey,
            "/use",
        ),
        (
            "RSA e even",
            with(&rsa_pub, "e", json!("AQAA")),
            false,
            ErrorCode::InvalidKey,
            "/e",
        ),
        (
            "RSA without CRT",
            with(&rsa, "qi", Value::Null),
            true,
            ErrorCode::InvalidKey,
            "/qi",
        ),
        ("private without d", ec.clone(), true, ErrorCode::InvalidKey, "/d"),
    ];
    for (label, jwk, private, want, pointer) in cases {
        let err = if private {
            PrivateKey::from_jwk(&jwk).unwrap_err()
        } else {
            PublicKey::from_jwk(&jwk).unwrap_err()
        };
        assert_eq!(
            (err.code(), err.pointer()),
            (want, Some(pointer)),
            "{label}: {err}"
        );
        if want == ErrorCode::JwkInconsistent {
            let member = &pointer[1..];
            assert!(
                err.message().contains(&format!("\"{member}\"")),
                "{label}: message names the member: {err}"
            );
        }
    }
    // A 1024-bit RSA JWK: weak-key.
    let small = PublicKey::from_pem(&key_file("rsa1024.pub.pem")).unwrap_err();
    assert_eq!(small.code(), ErrorCode::WeakKey);
    // Duplicate members are refused by the strict reader.
    let dup = format!(r#"{{"kty":"OKP","crv":"Ed25519","x":"{ed_x}","x":"{ed_x}"}}"#);
    assert_eq!(code(PublicKey::from_jwk_str(&dup)), ErrorCode::DuplicateMember);
}

#[test]
fn jwks_sets() {
    let a = PrivateKey::from_pem(&key_file("p256.pem")).unwrap().with_kid("a");
    let b = PrivateKey::from_pem(&key_file("ed25519.pem")).unwrap();
    let enc = json!({"kty":"RSA","use":"enc","alg":"RSA-OAEP","n":"AQAB","e":"AQAB"});
    let set = json!({"keys":[a.public().to_jwk(), enc, b.public().to_jwk()]});
    let keys = parse_jwks(&set.to_string()).unwrap();
    assert_eq!(keys.len(), 2);
    assert_eq!(keys[0].kid(), "a");
    assert_eq!(keys[1].kid(), b.public().thumbprint());
    // One bad entry fails the set, with its pointer.
    let bad = json!({"keys":[a.public().to_jwk(), {"kty":"EC","crv":"P-256","x":"AA","y":"AA"}]});
    let err = parse_jwks(&bad.to_string()).unwrap_err();
    assert_eq!(
        (err.code(), err.pointer()),
        (ErrorCode::JwkInconsistent, Some("/keys/1/x"))
    );
    // A single JWK is a set of one; PublicKey::parse refuses a set of two.
    assert_eq!(parse_jwks(&a.public().to_jwk().to_string()).unwrap().len(), 1);
    assert_eq!(code(PublicKey::parse(&set.to_string())), ErrorCode::InvalidKey);
    assert_eq!(code(parse_jwks(r#"{"keys":{}}"#)), ErrorCode::InvalidKey);
}

#[test]
fn rfc7638_thumbprint() {
    // RFC 7638 section 3.1.
    let jwk = json!({
        "kty": "RSA",
        "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",
        "e": "AQAB",
        "alg": "RS256",
        "kid": "2011-04-29"
    });
    let key = PublicKey::from_jwk(&jwk).unwrap();
    assert_eq!(key.thumbprint(), "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs");
    assert_eq!(key.kid(), "2011-04-29");
    let mut no_kid = jwk.clone();
    no_kid.as_object_mut().unwrap().remove("kid");
    assert_eq!(
        PublicKey::from_jwk(&no_kid).unwrap().kid(),
        "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"
    );
    let out = key.to_jwk();
    assert_eq!(out["kid"], "2011-04-29");
    assert_eq!(out["alg"], "RS256");
    assert_eq!(out["n"], jwk["n"]);
    assert!(out.get("d").is_none());
}

#[test]
fn rfc_known_answers_from_corpus() {
    let Some(dir) = corpus("jws") else { return };
    let read = |p: &str| -> Value { serde_json::from_slice(&std::fs::read(dir.join(p)).unwrap()).unwrap() };
    let rfc7515 = read("rfc7515_appendix_a.json");
    for v in rfc7515["vectors"].as_array().unwrap() {
        let input = v["signing_input"].as_str().unwrap().as_bytes();
        let sig = unb64url(v["signature_b64u"].as_str().unwrap_or(""));
        let name = v["alg"].as_str().unwrap();
        let id = v["id"].as_str().unwrap();
        if name == "none" {
            assert_eq!(code(Algorithm::from_name(name)), ErrorCode::UnknownAlgorithm);
            continue;
        }
        let alg = Algorithm::from_name(name).unwrap();
        if alg.is_hmac() {
            let k = unb64url(v["key_private"]["k"].as_str().unwrap());
            assert_eq!(sign_hmac(alg, &k, input).unwrap(), sig, "{id}");
            verify_hmac(alg, &k, input, &sig).unwrap();
            continue;
        }
        if !alg.available() {
            continue;
        }
        let public = PublicKey::from_jwk(&v["key_public"]).unwrap();
        verify(alg, &public, input, &sig).unwrap_or_else(|e| panic!("{id}: {e}"));
        let private = PrivateKey::from_jwk(&v["key_private"]).unwrap();
        assert_eq!(private.public().material(), public.material());
        let ours = sign(alg, &private, input).unwrap();
        if v["reproducible"].as_bool().unwrap() {
            assert_eq!(ours, sig, "{id}: deterministic signature equals the RFC's");
        }
        verify(alg, &public, input, &ours).unwrap();
    }
    let rfc8037 = read("rfc8037_appendix_a.json");
    let v = &rfc8037["A.4_A.5"];
    let key = PrivateKey::from_jwk(&rfc8037["A.1_private_key"]).unwrap();
    assert_eq!(
        key.kid(),
        rfc8037["A.3_thumbprint"]["sha256_b64u"].as_str().unwrap()
    );
    let input = v["signing_input"].as_str().unwrap().as_bytes();
    let sig = sign(Algorithm::EdDSA, &key, input).unwrap();
    assert_eq!(b64url(&sig), v["signature_b64u"].as_str().unwrap());
    // RFC 7520 section 4: RS256 (deterministic), PS384, ES512 with the cookbook keys.
    for (file, reproducible) in [
        ("cookbook/jws/4_1.rsa_v15_signature.json", true),
        ("cookbook/jws/4_2.rsa-pss_signature.json", false),
        ("cookbook/jws/4_3.ecdsa_signature.json", false),
    ] {
        let case = read(file);
        let alg = Algorithm::from_name(case["input"]["alg"].as_str().unwrap()).unwrap();
        if !alg.available() {
            continue;
        }
        let key = PrivateKey::from_jwk(&case["input"]["key"]).unwrap();
        assert_eq!(key.kid(), "bilbo.baggins@hobbiton.example");
        let input = case["signing"]["sig-input"].as_str().unwrap().as_bytes();
        let sig = unb64url(case["signing"]["sig"].as_str().unwrap());
        verify(alg, key.public(), input, &sig).unwrap_or_else(|e| panic!("{file}: {e}"));
        if reproducible {
            assert_eq!(sign(alg, &key, input).unwrap(), sig, "{file}");
        }
    }
}
