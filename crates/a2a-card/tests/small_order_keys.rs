//! Small-order Edwards points as public keys. Under the identity (or any point whose order
//! divides the cofactor) the signature R = identity, S = 0 verifies for every message whose
//! challenge k is a multiple of that order: always for the identity, for one card in 8 at worst.
//! Every such key is refused as `weak-key` wherever a public key is read.
//!
//! The blocked encodings are not taken on trust: each is shown to be of small order by making
//! the forged signature verify under it with the crypto the verifier uses (ring for Ed25519,
//! OpenSSL through josekit for Ed448), and the eight canonical Ed25519 encodings are distinct,
//! which is all the small-order points there are (the torsion subgroup has order 8).

#![allow(clippy::unwrap_used, clippy::panic)] // a test reports by panicking

use a2a_card::jose::keys::{parse_jwks, public_keys_of, PrivateKey, PublicKey};
use a2a_card::{ErrorCode, TrustStore};
use std::collections::BTreeSet;

fn b64u(bytes: impl AsRef<[u8]>) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

/// The Ed25519 small-order encodings as they are sent (little-endian y, sign of x in the top
/// bit): libsodium's blocklist (`crypto_sign/ed25519/ref10/open.c`), each also with the sign bit
/// flipped. (y, sign) -> canonical when y < p and the sign is 0 for x = 0.
const ED25519_SMALL_ORDER: [(&str, &str, bool); 14] = [
    // y = 0, order 4, x = +-sqrt(-1): both signs are canonical.
    (
        "0000000000000000000000000000000000000000000000000000000000000000",
        "0 order 4",
        true,
    ),
    (
        "0000000000000000000000000000000000000000000000000000000000000080",
        "0 order 4 (-x)",
        true,
    ),
    // y = 1, the identity; with the sign bit it is non-canonical (x = 0).
    (
        "0100000000000000000000000000000000000000000000000000000000000000",
        "identity",
        true,
    ),
    (
        "0100000000000000000000000000000000000000000000000000000000000080",
        "identity, sign bit",
        false,
    ),
    // y = Y8 and p - Y8, order 8, both signs canonical.
    (
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
        "Y8",
        true,
    ),
    (
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
        "Y8 (-x)",
        true,
    ),
    (
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
        "p-Y8",
        true,
    ),
    (
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
        "p-Y8 (-x)",
        true,
    ),
    // y = p - 1, order 2 (x = 0); with the sign bit it is non-canonical.
    (
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        "p-1 order 2",
        true,
    ),
    (
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "p-1 order 2, sign bit",
        false,
    ),
    // y = p (= 0) and y = p + 1 (= 1): non-canonical spellings, with and without the sign bit.
    (
        "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        "p",
        false,
    ),
    (
        "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "p, sign bit",
        false,
    ),
    (
        "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        "p+1",
        false,
    ),
    (
        "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "p+1, sign bit",
        false,
    ),
];

/// The Ed448 small-order encodings (57 bytes, sign of x in the top bit of the last byte): y in
/// {1 (identity), p - 1 (order 2), 0 (order 4, x = +-1)}, and y = p, p + 1 (non-canonical).
fn ed448_small_order() -> Vec<(Vec<u8>, &'static str)> {
    let le = |first: u8, rest: u8, mid: Option<(usize, u8)>| {
        let mut v = vec![rest; 57];
        v[0] = first;
        v[56] = 0;
        if let Some((i, b)) = mid {
            v[i] = b;
        }
        v
    };
    // p = 2^448 - 2^224 - 1: little-endian ff * 28, fe, ff * 27.
    let p_minus = |low: u8| le(low, 0xff, Some((28, 0xfe)));
    let mut out = vec![
        (le(0, 0, None), "0 order 4"),
        (le(1, 0, None), "identity"),
        (p_minus(0xfe), "p-1 order 2"),
        (p_minus(0xff), "p"),
    ];
    // p + 1 = 2^448 - 2^224: little-endian 00 * 28, ff * 28.
    let mut p1 = vec![0u8; 57];
    for b in p1.iter_mut().take(56).skip(28) {
        *b = 0xff;
    }
    out.push((p1, "p+1"));
    let signed: Vec<_> = out
        .iter()
        .map(|(v, _)| {
            let mut s = v.clone();
            s[56] = 0x80;
            (s, "the same, sign bit")
        })
        .collect();
    out.extend(signed);
    out
}

fn spki(oid_last: u8, key: &[u8]) -> Vec<u8> {
    let mut bits = vec![0x03, key.len() as u8 + 1, 0x00];
    bits.extend_from_slice(key);
    let mut body = vec![0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, oid_last];
    body.extend_from_slice(&bits);
    let mut out = vec![0x30, body.len() as u8];
    out.extend_from_slice(&body);
    out
}

fn pem(der: &[u8]) -> String {
    use base64::Engine as _;
    format!(
        "-----BEGIN PUBLIC KEY-----\n{}\n-----END PUBLIC KEY-----\n",
        base64::engine::general_purpose::STANDARD.encode(der)
    )
}

fn jwk(crv: &str, x: &[u8]) -> String {
    serde_json::json!({"kty": "OKP", "crv": crv, "x": b64u(x)}).to_string()
}

/// Every way a public key is read refuses `x` as `weak-key`, and the message holds none of it.
fn assert_refused_everywhere(crv: &str, oid_last: u8, x: &[u8], what: &str) {
    let text = jwk(crv, x);
    let der = spki(oid_last, x);
    let b64x = b64u(x);
    let set = format!(r#"{{"keys":[{text}]}}"#);
    let trust = format!(r#"{{"keys":[{{"jwk":{text},"origins":["https://a.example"]}}]}}"#);
    let trust_pem = serde_json::json!({"keys": [{"pem": pem(&der)}]}).to_string();
    let results: Vec<(&str, a2a_card::Error)> = vec![
        ("from_jwk_str", PublicKey::from_jwk_str(&text).unwrap_err()),
        ("parse (JWK)", PublicKey::parse(&text).unwrap_err()),
        ("from_spki_der", PublicKey::from_spki_der(&der).unwrap_err()),
        ("from_pem", PublicKey::from_pem(&pem(&der)).unwrap_err()),
        ("parse (PEM)", PublicKey::parse(&pem(&der)).unwrap_err()),
        ("parse_jwks", parse_jwks(&set).unwrap_err()),
        ("public_keys_of", public_keys_of(&set).unwrap_err()),
        (
            "TrustStore::from_json (JWK)",
            TrustStore::from_json(&trust, "t.json").unwrap_err(),
        ),
        (
            "TrustStore::from_json (PEM)",
            TrustStore::from_json(&trust_pem, "t.json").unwrap_err(),
        ),
        (
            "TrustStore::from_json (bare JWK)",
            TrustStore::from_json(&text, "t.json").unwrap_err(),
        ),
        // A private JWK whose x is the small-order point: refused before d is looked at.
        (
            "PrivateKey::from_jwk_str",
            PrivateKey::from_jwk_str(
                &serde_json::json!({"kty": "OKP", "crv": crv, "x": b64x, "d": b64u(vec![7u8; x.len()])})
                    .to_string(),
            )
            .unwrap_err(),
        ),
    ];
    for (path, e) in results {
        assert_eq!(e.code(), ErrorCode::WeakKey, "{what} through {path}: {e}");
        assert!(
            e.to_string().contains("small order"),
            "{what} through {path}: {e}"
        );
        assert!(
            !e.to_string().contains(&b64x),
            "{what} through {path}: key material in {e}"
        );
    }
}

#[test]
fn ed25519_small_order_points_forge_signatures_under_ring() {
    let mut identity = [0u8; 32];
    identity[0] = 1;
    let mut forged = identity.to_vec();
    forged.extend_from_slice(&[0u8; 32]);
    let mut canonical = BTreeSet::new();
    for (hex, what, is_canonical) in ED25519_SMALL_ORDER {
        let a = unhex(hex);
        let key = ring::signature::UnparsedPublicKey::new(&ring::signature::ED25519, &a);
        let hits = (0..256)
            .filter(|i| key.verify(format!("card {i}").as_bytes(), &forged).is_ok())
            .count();
        assert!(
            hits > 0,
            "{what}: R = identity, S = 0 verified for no message; not small order?"
        );
        if what == "identity" {
            assert_eq!(
                hits, 256,
                "under the identity the forgery verifies for every message"
            );
        }
        if is_canonical {
            canonical.insert(a);
        }
    }
    assert_eq!(canonical.len(), 8, "the eight points of the torsion subgroup");
}

#[test]
fn ed25519_small_order_keys_are_weak_everywhere() {
    for (hex, what, _) in ED25519_SMALL_ORDER {
        assert_refused_everywhere("Ed25519", 0x70, &unhex(hex), what);
    }
    // Ordinary keys are untouched: the RFC 8032 test 1 key, in each form.
    let ok = unhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
    PublicKey::from_jwk_str(&jwk("Ed25519", &ok)).unwrap();
    PublicKey::from_spki_der(&spki(0x70, &ok)).unwrap();
}

/// The Ed448 base point B as RFC 8032 encodes it (y little-endian, x even).
const ED448_B: &str = "14fa30f25b790898adc8d74e2c13bdfdc4397ce61cffd33ad7c2a0051e9c78874098a36c7373ea4b62c7c9563720768824bcb66e71463f6900";

/// OpenSSL's Ed448 verification is cofactored (it multiplies A and R by 4 when it decodes
/// them), so under a point A of order 4 the check [S]B = R + [k]A becomes [S]B = R for every
/// message: R = B, S = 1 is a signature of every card. The points with x = 0 (the identity and
/// the point of order 2, y = +-1) and the non-canonical spellings (y = p, p + 1) are refused by
/// OpenSSL when it decodes them: no signature verifies under them there, but they are of small
/// order all the same ((0, 1) is the neutral element, (0, -1) its own inverse, p = 0 and
/// p + 1 = 1 mod p), and `weak-key` says so before any verification is tried.
#[cfg(feature = "native-algs")]
#[test]
fn ed448_small_order_points_forge_signatures_under_openssl() {
    use josekit::jws::JwsVerifier as _;
    let mut forged = unhex(ED448_B);
    forged.push(1);
    forged.extend_from_slice(&[0u8; 56]);
    let mut forging = Vec::new();
    for (a, what) in ed448_small_order() {
        let verifier = josekit::jws::EdDSA.verifier_from_der(spki(0x71, &a)).unwrap();
        let hits = (0..32)
            .filter(|i| verifier.verify(format!("card {i}").as_bytes(), &forged).is_ok())
            .count();
        assert!(hits == 0 || hits == 32, "{what}: {hits}");
        if hits == 32 {
            forging.push(a.clone());
        }
    }
    // Exactly the two points of order 4, (+-1, 0): y = 0 with either sign.
    let mut zero = vec![0u8; 57];
    let mut zero_neg = zero.clone();
    zero_neg[56] = 0x80;
    assert_eq!(forging, vec![std::mem::take(&mut zero), zero_neg]);
    // And the forgery is no accident of the harness: B, 1 does not verify under an ordinary key.
    let ordinary = PublicKey::from_pem(&a2a_card_testkit::data::key_file("ed448.pub.pem")).unwrap();
    let v = josekit::jws::EdDSA
        .verifier_from_der(ordinary.to_spki_der())
        .unwrap();
    assert!(v.verify(b"card 0", &forged).is_err());
}

#[test]
fn ed448_small_order_keys_are_weak_everywhere() {
    for (a, what) in ed448_small_order() {
        assert_refused_everywhere("Ed448", 0x71, &a, what);
    }
}

/// Certificates on a small-order key. A CA that checks a request's proof of possession with a
/// verifier that does not refuse small-order keys certifies the identity point (R = identity,
/// S = 0 signs the request); a card "signed" under that leaf with the same forged signature
/// verified before keys were checked. The leaf, an intermediate and a trust anchor on such a
/// key are each refused as `weak-key`.
#[test]
fn certificates_on_small_order_keys_are_weak() {
    use a2a_card::signature::TrustAnchor;
    use a2a_card::{verify_card, VerifyOptions};
    use a2a_card_testkit::cards::{signed_entry, with_signatures};
    use a2a_card_testkit::pki::{Cert, Spec};
    use base64::Engine as _;
    let std_b64 = |d: &[u8]| base64::engine::general_purpose::STANDARD.encode(d);
    let card: serde_json::Value =
        serde_json::from_str(r#"{"name":"Agent","description":"d","version":"1","skills":[]}"#).unwrap();
    let mut identity = vec![0u8; 32];
    identity[0] = 1;
    let mut forged = identity.clone();
    forged.extend_from_slice(&[0u8; 32]);

    let root = Cert::root("Test Root");
    let mut trust = TrustStore::new();
    trust.add_anchor(TrustAnchor::from_der(root.der.clone(), "root.pem").unwrap());
    let opts = VerifyOptions {
        origin: Some("https://agent.example".parse().unwrap()),
        ..VerifyOptions::default()
    };
    let forged_card = |chain: &[&[u8]]| {
        let x5c: Vec<String> = chain.iter().map(|d| std_b64(d)).collect();
        let protected =
            serde_json::json!({"alg": "EdDSA", "typ": "JOSE", "kid": "leaf", "x5c": x5c}).to_string();
        let entry = signed_entry(b"any payload", &protected, None, |_| forged.clone());
        with_signatures(&card, vec![entry])
    };

    // The leaf.
    let leaf = root.issue_for_ed25519_bytes(&Spec::leaf("agent").dns("agent.example"), &identity);
    let r = verify_card(&forged_card(&[&leaf]), &trust, &opts).unwrap();
    let v = &r.signatures[0].verdict;
    assert!(!r.ok, "{}", v.message);
    assert_eq!(v.code.to_string(), "weak-key", "{}", v.message);
    assert!(v.message.contains("small order"), "{}", v.message);

    // An intermediate (the leaf under it is an ordinary one: only the intermediate is weak).
    let weak_int = root.issue_for_ed25519_bytes(&Spec::ca("Weak Intermediate", Some(0)), &identity);
    let ok_leaf = root.issue(&Spec::leaf("agent").dns("agent.example").ed25519());
    let r = verify_card(&forged_card(&[&ok_leaf.der, &weak_int]), &trust, &opts).unwrap();
    let v = &r.signatures[0].verdict;
    assert_eq!(v.code.to_string(), "weak-key", "{}", v.message);
    assert!(v.message.contains("intermediate"), "{}", v.message);

    // A trust anchor, from DER and from PEM.
    let weak_ca = root.issue_for_ed25519_bytes(&Spec::ca("Weak CA", None), &identity);
    let e = TrustAnchor::from_der(weak_ca.clone(), "ca.pem").unwrap_err();
    assert_eq!(e.code(), ErrorCode::WeakKey, "{e}");
    let pem = format!(
        "-----BEGIN CERTIFICATE-----\n{}\n-----END CERTIFICATE-----\n",
        std_b64(&weak_ca)
    );
    let e = TrustStore::new().add_anchors_pem(&pem, "ca.pem").unwrap_err();
    assert_eq!(e.code(), ErrorCode::WeakKey, "{e}");
}
