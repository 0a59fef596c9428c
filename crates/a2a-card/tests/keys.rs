//! Keys and algorithms: OpenSSL-made keys in every PEM form, JWK round trips, generation,
//! sign/verify for every algorithm, refusals of weak, encrypted and wrong keys, and
//! byte-for-byte interop with the OpenSSL command line. (JWK consistency, JWK Sets, thumbprints
//! and the RFC known answers are in keys_jwk.rs.)

#![allow(clippy::unwrap_used, clippy::panic)] // a test reports by panicking

use a2a_card::jose::crypto::{sign, sign_hmac, verify, verify_hmac};
use a2a_card::jose::keys::{parse_jwks, KeyType, PrivateKey, PublicKey};
use a2a_card::Algorithm;
use a2a_card::ErrorCode;
use a2a_card_testkit::data::{key_file, keys_dir};
use a2a_card_testkit::tools::have_openssl;
use serde_json::json;
use std::process::Command;

const MSG: &[u8] = b"eyJhbGciOiJFUzI1NiJ9.eyJuYW1lIjoiUmVjaXBlIEFnZW50In0";

fn code<T: std::fmt::Debug>(r: Result<T, a2a_card::Error>) -> ErrorCode {
    r.unwrap_err().code()
}

/// Key files made by tests/data/keys/make.sh: (stem, type, private PEM forms, public PEM forms).
fn openssl_keys() -> Vec<(&'static str, KeyType, Vec<String>, Vec<String>)> {
    let mut out = Vec::new();
    for (stem, kind) in [("ed25519", KeyType::Ed25519), ("ed448", KeyType::Ed448)] {
        out.push((
            stem,
            kind,
            vec![format!("{stem}.pem")],
            vec![format!("{stem}.pub.pem")],
        ));
    }
    for (stem, kind) in [
        ("p256", KeyType::P256),
        ("p384", KeyType::P384),
        ("p521", KeyType::P521),
        ("secp256k1", KeyType::Secp256k1),
    ] {
        out.push((
            stem,
            kind,
            vec![format!("{stem}.pem"), format!("{stem}.sec1.pem")],
            vec![format!("{stem}.pub.pem")],
        ));
    }
    for (stem, bits) in [("rsa2048", 2048), ("rsa3072", 3072), ("rsa4096", 4096)] {
        out.push((
            stem,
            KeyType::Rsa { bits },
            vec![format!("{stem}.pem"), format!("{stem}.pkcs1.pem")],
            vec![format!("{stem}.pub.pem"), format!("{stem}.pkcs1.pub.pem")],
        ));
    }
    out
}

fn algs_for(kind: KeyType) -> Vec<Algorithm> {
    Algorithm::ALL
        .iter()
        .copied()
        .filter(|a| kind.fits(*a) && a.available())
        .collect()
}

/// Signs with `key` and checks the signature against every public form; tampering fails.
fn exercise(label: &str, alg: Algorithm, key: &PrivateKey, publics: &[PublicKey]) {
    let sig = sign(alg, key, MSG).unwrap_or_else(|e| panic!("{label} {alg}: {e}"));
    if let Some(len) = alg.signature_len() {
        assert_eq!(sig.len(), len, "{label} {alg}");
    }
    for public in publics {
        assert_eq!(public.material(), key.public().material(), "{label}");
        verify(alg, public, MSG, &sig).unwrap_or_else(|e| panic!("{label} {alg}: {e}"));
        let mut tampered = MSG.to_vec();
        tampered[10] ^= 0x01;
        assert_eq!(
            code(verify(alg, public, &tampered, &sig)),
            ErrorCode::SignatureInvalid,
            "{label} {alg}"
        );
        let mut bad_sig = sig.clone();
        bad_sig[sig.len() / 2] ^= 0x80;
        assert_eq!(
            code(verify(alg, public, MSG, &bad_sig)),
            ErrorCode::SignatureInvalid,
            "{label} {alg}"
        );
        assert_eq!(
            code(verify(alg, public, MSG, &sig[1..])),
            ErrorCode::SignatureInvalid,
            "{label} {alg}"
        );
    }
}

/// Every public form of a private key that we can produce and read back.
fn public_forms(key: &PrivateKey) -> Vec<PublicKey> {
    let p = key.public();
    vec![
        p.clone(),
        PublicKey::from_jwk(&p.to_jwk()).unwrap(),
        PublicKey::parse(&p.to_jwk().to_string()).unwrap(),
        PublicKey::from_pem(&p.to_spki_pem()).unwrap(),
        PublicKey::from_spki_der(&p.to_spki_der()).unwrap(),
        PublicKey::parse(&key.to_pkcs8_pem()).unwrap(),
    ]
}

#[test]
fn openssl_keys_load_in_every_form_and_sign() {
    for (stem, kind, privates, publics) in openssl_keys() {
        if !kind.available() {
            continue;
        }
        let first = PrivateKey::from_pem(&key_file(&privates[0])).unwrap_or_else(|e| panic!("{stem}: {e}"));
        assert_eq!(first.key_type(), kind, "{stem}");
        assert_eq!(first.kid(), first.public().thumbprint());
        let mut pubs = public_forms(&first);
        for f in &publics {
            let k = PublicKey::from_pem(&key_file(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
            assert_eq!(k.key_type(), kind, "{f}");
            assert_eq!(k.kid(), first.kid(), "{f}: kid is the thumbprint");
            pubs.push(PublicKey::parse(&key_file(f)).unwrap());
            pubs.push(k);
        }
        for f in &privates {
            let key = PrivateKey::parse(&key_file(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
            assert_eq!(key.public(), first.public(), "{f}");
            // Our own encodings read back to the same key.
            let again = PrivateKey::from_pem(&key.to_pkcs8_pem()).unwrap();
            let from_jwk = PrivateKey::from_jwk(&key.to_jwk_private()).unwrap();
            for (label, k) in [
                (f.as_str(), &key),
                ("pkcs8 round trip", &again),
                ("jwk round trip", &from_jwk),
            ] {
                assert_eq!(k.public(), first.public(), "{stem} {label}");
                for alg in algs_for(kind) {
                    exercise(&format!("{stem} {label}"), alg, k, &pubs);
                }
            }
        }
    }
}

#[test]
fn generated_keys_for_every_algorithm() {
    for &alg in Algorithm::ALL {
        if alg.is_hmac() {
            assert_eq!(code(PrivateKey::generate(alg)), ErrorCode::KeyAlgorithmMismatch);
            continue;
        }
        let target = match alg {
            Algorithm::EdDSA => KeyType::Ed25519,
            Algorithm::ES256 => KeyType::P256,
            Algorithm::ES384 => KeyType::P384,
            Algorithm::ES512 => KeyType::P521,
            Algorithm::ES256K => KeyType::Secp256k1,
            _ => KeyType::Rsa { bits: 2048 },
        };
        if !target.can_generate() {
            assert_eq!(code(PrivateKey::generate(alg)), ErrorCode::UnknownAlgorithm);
            continue;
        }
        let key = PrivateKey::generate(alg).unwrap_or_else(|e| panic!("{alg}: {e}"));
        assert_eq!(key.default_algorithm(), alg);
        assert_eq!(key.public().alg(), Some(alg));
        let mut pubs = public_forms(&key);
        pubs.push(PublicKey::from_jwk(&key.to_jwk_private()).unwrap());
        exercise(&format!("generated {alg}"), alg, &key, &pubs);
        // A second key does not verify the first key's signature.
        let other = PrivateKey::generate(alg).unwrap();
        assert_ne!(other.public(), key.public());
        let sig = sign(alg, &key, MSG).unwrap();
        assert_eq!(
            code(verify(alg, other.public(), MSG, &sig)),
            ErrorCode::SignatureInvalid
        );
    }
    // Ed448 generation (EdDSA with the other curve).
    if KeyType::Ed448.can_generate() {
        let key = PrivateKey::generate_of_type(KeyType::Ed448).unwrap();
        assert_eq!(sign(Algorithm::EdDSA, &key, MSG).unwrap().len(), 114);
        exercise("generated Ed448", Algorithm::EdDSA, &key, &public_forms(&key));
    }
    for bits in [3072, 4096] {
        if !(KeyType::Rsa { bits }).can_generate() {
            assert_eq!(code(PrivateKey::generate_rsa(bits)), ErrorCode::UnknownAlgorithm);
            continue;
        }
        let key = PrivateKey::generate_rsa(bits).unwrap();
        assert_eq!(key.key_type(), KeyType::Rsa { bits });
        assert_eq!(key.default_algorithm(), Algorithm::RS256);
        exercise("generated RSA", Algorithm::PS512, &key, &public_forms(&key));
    }
    assert_eq!(code(PrivateKey::generate_rsa(1024)), ErrorCode::WeakKey);
}

#[test]
fn deterministic_and_randomized_signatures() {
    let ed = PrivateKey::from_pem(&key_file("ed25519.pem")).unwrap();
    assert_eq!(
        sign(Algorithm::EdDSA, &ed, MSG).unwrap(),
        sign(Algorithm::EdDSA, &ed, MSG).unwrap()
    );
    let rsa = PrivateKey::from_pem(&key_file("rsa2048.pem")).unwrap();
    for alg in [Algorithm::RS256, Algorithm::RS384, Algorithm::RS512] {
        assert_eq!(
            sign(alg, &rsa, MSG).unwrap(),
            sign(alg, &rsa, MSG).unwrap(),
            "{alg}"
        );
    }
    assert_ne!(
        sign(Algorithm::PS256, &rsa, MSG).unwrap(),
        sign(Algorithm::PS256, &rsa, MSG).unwrap()
    );
    let ec = PrivateKey::from_pem(&key_file("p256.pem")).unwrap();
    assert_ne!(
        sign(Algorithm::ES256, &ec, MSG).unwrap(),
        sign(Algorithm::ES256, &ec, MSG).unwrap()
    );
}

#[test]
fn refusals_of_weak_encrypted_and_wrong_pem() {
    assert_eq!(
        code(PrivateKey::from_pem(&key_file("rsa1024.pem"))),
        ErrorCode::WeakKey
    );
    assert_eq!(
        code(PublicKey::from_pem(&key_file("rsa1024.pub.pem"))),
        ErrorCode::WeakKey
    );
    assert_eq!(
        code(PublicKey::parse(&key_file("rsa1024.pem"))),
        ErrorCode::WeakKey
    );
    assert_eq!(
        code(PrivateKey::from_pem(&key_file("p256.encrypted.pem"))),
        ErrorCode::EncryptedKey
    );
    assert_eq!(
        code(PrivateKey::from_pem(&key_file("rsa2048.encrypted-legacy.pem"))),
        ErrorCode::EncryptedKey
    );
    assert_eq!(
        code(PublicKey::parse(&key_file("rsa2048.encrypted-legacy.pem"))),
        ErrorCode::EncryptedKey
    );
    // A public key cannot sign.
    assert_eq!(
        code(PrivateKey::from_pem(&key_file("p256.pub.pem"))),
        ErrorCode::InvalidKey
    );
    // Two keys in one PEM, no key at all, a broken body, a truncated DER.
    let two = key_file("p256.pem") + &key_file("p384.pem");
    assert_eq!(code(PrivateKey::from_pem(&two)), ErrorCode::InvalidKey);
    assert_eq!(code(PrivateKey::from_pem("hello")), ErrorCode::InvalidKey);
    let cert = "-----BEGIN CERTIFICATE-----\nMAA=\n-----END CERTIFICATE-----\n";
    assert!(PublicKey::from_pem(cert)
        .unwrap_err()
        .message()
        .contains("CERTIFICATE"));
    let broken = key_file("p256.pem").replace('M', "*");
    assert_eq!(code(PrivateKey::from_pem(&broken)), ErrorCode::InvalidKey);
    let pem = key_file("p256.pem");
    let der = {
        use base64::Engine as _;
        let body: String = pem.lines().filter(|l| !l.starts_with("-----")).collect();
        base64::engine::general_purpose::STANDARD.decode(body).unwrap()
    };
    for cut in [1, 10, der.len() / 2, der.len() - 1] {
        assert_eq!(
            code(PrivateKey::from_der(&der[..cut])),
            ErrorCode::InvalidKey,
            "cut {cut}"
        );
    }
    let mut extra = der.clone();
    extra.push(0);
    assert_eq!(code(PrivateKey::from_der(&extra)), ErrorCode::InvalidKey);
    assert!(PrivateKey::from_der(&der).is_ok());
    // An X25519 key is not a signing key.
    let x = "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VuAyEAIUvG1qcZtKOmPDK+ZVxNAb6uswoAlpVOBTpD7ZjvcQo=\n-----END PUBLIC KEY-----\n";
    let err = PublicKey::from_pem(x).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidKey);
    assert!(err.message().contains("1.3.101.110"), "{err}");
}

#[test]
fn ring_pkcs8_v2_and_openssl_v1_ed25519() {
    // ring writes PKCS#8 v2 (RFC 5958) with the public key; OpenSSL writes v1 without it.
    let rng = ring::rand::SystemRandom::new();
    let doc = ring::signature::Ed25519KeyPair::generate_pkcs8(&rng).unwrap();
    let v2 = doc.as_ref();
    assert_eq!(v2[4], 0x01, "ring's document is version 1 (= v2)");
    let key = PrivateKey::from_der(v2).unwrap();
    let ring_kp = ring::signature::Ed25519KeyPair::from_pkcs8(v2).unwrap();
    use ring::signature::KeyPair as _;
    match key.public().material() {
        a2a_card::jose::keys::PublicMaterial::Okp { x } => {
            assert_eq!(x.as_slice(), ring_kp.public_key().as_ref())
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        sign(Algorithm::EdDSA, &key, MSG).unwrap(),
        ring_kp.sign(MSG).as_ref()
    );
    // A v2 document whose public key does not belong to the seed is refused.
    let mut wrong = v2.to_vec();
    let last = wrong.len() - 1;
    wrong[last] ^= 1;
    assert_eq!(code(PrivateKey::from_der(&wrong)), ErrorCode::InvalidKey);
    // Our v1 output is read by ring (and by OpenSSL, see the interop test).
    let ours = key.to_pkcs8_der();
    let back = ring::signature::Ed25519KeyPair::from_pkcs8_maybe_unchecked(&ours).unwrap();
    assert_eq!(back.public_key().as_ref(), ring_kp.public_key().as_ref());
    let ec = PrivateKey::from_pem(&key_file("p384.pem")).unwrap();
    ring::signature::EcdsaKeyPair::from_pkcs8(
        &ring::signature::ECDSA_P384_SHA384_FIXED_SIGNING,
        &ec.to_pkcs8_der(),
        &rng,
    )
    .unwrap();
    let rsa = PrivateKey::from_pem(&key_file("rsa3072.pem")).unwrap();
    ring::signature::RsaKeyPair::from_pkcs8(&rsa.to_pkcs8_der()).unwrap();
}

#[test]
fn algorithm_names_and_fit() {
    for &alg in Algorithm::ALL {
        assert_eq!(Algorithm::from_name(alg.as_str()).unwrap(), alg);
    }
    for bad in [
        "none", "None", "NONE", "", "es256", "RS1", "HS1", "ES256 ", "Ed25519", "EdDsa",
    ] {
        let err = Algorithm::from_name(bad).unwrap_err();
        assert_eq!(err.code(), ErrorCode::UnknownAlgorithm, "{bad:?}");
    }
    assert!(Algorithm::from_name("none")
        .unwrap_err()
        .message()
        .contains("never accepted"));

    let ed = PrivateKey::from_pem(&key_file("ed25519.pem")).unwrap();
    let p256 = PrivateKey::from_pem(&key_file("p256.pem")).unwrap();
    let rsa = PrivateKey::from_pem(&key_file("rsa2048.pem")).unwrap();
    assert_eq!(ed.default_algorithm(), Algorithm::EdDSA);
    assert_eq!(p256.default_algorithm(), Algorithm::ES256);
    assert_eq!(rsa.default_algorithm(), Algorithm::RS256);
    for (key, alg) in [
        (&ed, Algorithm::ES256),
        (&ed, Algorithm::HS256),
        (&p256, Algorithm::RS256),
        (&p256, Algorithm::ES384),
        (&p256, Algorithm::EdDSA),
        (&rsa, Algorithm::ES256),
        (&rsa, Algorithm::HS512),
        (&rsa, Algorithm::EdDSA),
    ] {
        assert_eq!(
            code(key.check_algorithm(alg)),
            ErrorCode::KeyAlgorithmMismatch,
            "{alg}"
        );
        assert_eq!(
            code(sign(alg, key, MSG)),
            ErrorCode::KeyAlgorithmMismatch,
            "{alg}"
        );
        assert_eq!(
            code(verify(alg, key.public(), MSG, &[0; 64])),
            ErrorCode::KeyAlgorithmMismatch,
            "{alg}"
        );
    }
    // A key declared for one algorithm is not used with another of the same family.
    let declared = PublicKey::from_jwk(&{
        let mut j = rsa.public().to_jwk();
        j["alg"] = json!("PS256");
        j
    })
    .unwrap();
    assert_eq!(declared.default_algorithm(), Algorithm::PS256);
    let sig = sign(Algorithm::RS256, &rsa, MSG).unwrap();
    assert_eq!(
        code(verify(Algorithm::RS256, &declared, MSG, &sig)),
        ErrorCode::KeyAlgorithmMismatch
    );
    verify(Algorithm::RS256, rsa.public(), MSG, &sig).unwrap();
}

#[test]
fn hmac_only_with_explicit_secrets() {
    let secret = [0x5au8; 32];
    let tag = sign_hmac(Algorithm::HS256, &secret, MSG).unwrap();
    verify_hmac(Algorithm::HS256, &secret, MSG, &tag).unwrap();
    assert_eq!(
        code(verify_hmac(Algorithm::HS256, &secret, b"other", &tag)),
        ErrorCode::SignatureInvalid
    );
    assert_eq!(
        code(verify_hmac(Algorithm::HS256, &secret, MSG, &tag[..31])),
        ErrorCode::SignatureInvalid
    );
    assert_eq!(
        code(sign_hmac(Algorithm::HS384, &secret, MSG)),
        ErrorCode::WeakKey
    );
    assert_eq!(
        code(sign_hmac(Algorithm::ES256, &secret, MSG)),
        ErrorCode::KeyAlgorithmMismatch
    );
    assert_eq!(sign_hmac(Algorithm::HS512, &[1u8; 64], MSG).unwrap().len(), 64);
    // Algorithm confusion: the public key's bytes used as an HMAC secret never verify through
    // `verify`, whatever the tag.
    let rsa = PrivateKey::from_pem(&key_file("rsa2048.pem")).unwrap();
    let spki = rsa.public().to_spki_der();
    let forged = sign_hmac(Algorithm::HS256, &spki, MSG).unwrap();
    assert_eq!(
        code(verify(Algorithm::HS256, rsa.public(), MSG, &forged)),
        ErrorCode::KeyAlgorithmMismatch
    );
    // An oct JWK is never a public key.
    let oct = json!({"kty":"oct","k":"AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow"});
    assert_eq!(code(PublicKey::from_jwk(&oct)), ErrorCode::InvalidKey);
}

#[test]
fn ecdsa_der_signatures_are_refused() {
    let key = PrivateKey::from_pem(&key_file("p256.pem")).unwrap();
    let raw = sign(Algorithm::ES256, &key, MSG).unwrap();
    let der = raw_to_der(&raw);
    let err = verify(Algorithm::ES256, key.public(), MSG, &der).unwrap_err();
    assert_eq!(err.code(), ErrorCode::SignatureInvalid);
    assert!(err.message().contains("DER"), "{err}");
    if Algorithm::ES512.available() {
        let key = PrivateKey::from_pem(&key_file("p521.pem")).unwrap();
        let raw = sign(Algorithm::ES512, &key, MSG).unwrap();
        let err = verify(Algorithm::ES512, key.public(), MSG, &raw_to_der(&raw)).unwrap_err();
        assert_eq!(err.code(), ErrorCode::SignatureInvalid);
        assert!(err.message().contains("DER"), "{err}");
    }
}

fn der_int(v: &[u8]) -> Vec<u8> {
    let mut v: Vec<u8> = v.iter().copied().skip_while(|b| *b == 0).collect();
    if v.is_empty() || v[0] & 0x80 != 0 {
        v.insert(0, 0);
    }
    let mut out = vec![0x02, v.len() as u8];
    out.extend(v);
    out
}

fn raw_to_der(raw: &[u8]) -> Vec<u8> {
    let (r, s) = raw.split_at(raw.len() / 2);
    let body = [der_int(r), der_int(s)].concat();
    let mut out = vec![0x30];
    if body.len() >= 0x80 {
        out.push(0x81);
    }
    out.push(body.len() as u8);
    out.extend(body);
    out
}

fn der_to_raw(der: &[u8], len: usize) -> Vec<u8> {
    let mut i = if der[1] & 0x80 != 0 { 3 } else { 2 };
    let mut out = Vec::new();
    for _ in 0..2 {
        assert_eq!(der[i], 0x02);
        let l = der[i + 1] as usize;
        let v: Vec<u8> = der[i + 2..i + 2 + l]
            .iter()
            .copied()
            .skip_while(|b| *b == 0)
            .collect();
        out.extend(std::iter::repeat_n(0, len - v.len()));
        out.extend(v);
        i += 2 + l;
    }
    out
}

fn openssl(args: &[&str], stdin: Option<&[u8]>) -> Vec<u8> {
    use std::io::Write;
    let mut child = Command::new("openssl")
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.unwrap_or_default()).unwrap();
    drop(input);
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

#[test]
fn interop_with_openssl_cli() {
    if !have_openssl() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("a2a-card-keys-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = |n: &str| dir.join(n).to_string_lossy().into_owned();
    let keys_dir = keys_dir();
    let key_path = |n: &str| keys_dir.join(n).to_string_lossy().into_owned();
    std::fs::write(path("msg"), MSG).unwrap();

    // Deterministic schemes: our signature is byte-for-byte OpenSSL's.
    for (file, kind) in [("ed25519.pem", KeyType::Ed25519), ("ed448.pem", KeyType::Ed448)] {
        if !kind.available() {
            assert_eq!(
                code(PrivateKey::from_pem(&key_file(file))),
                ErrorCode::UnknownAlgorithm
            );
            continue;
        }
        let alg = Algorithm::EdDSA;
        let key = PrivateKey::from_pem(&key_file(file)).unwrap();
        let theirs = openssl(
            &[
                "pkeyutl",
                "-sign",
                "-rawin",
                "-inkey",
                &key_path(file),
                "-in",
                &path("msg"),
            ],
            None,
        );
        assert_eq!(sign(alg, &key, MSG).unwrap(), theirs, "{file}");
    }
    for (alg, dgst) in [
        (Algorithm::RS256, "-sha256"),
        (Algorithm::RS384, "-sha384"),
        (Algorithm::RS512, "-sha512"),
    ] {
        for file in ["rsa2048.pem", "rsa4096.pkcs1.pem"] {
            let key = PrivateKey::from_pem(&key_file(file)).unwrap();
            let theirs = openssl(&["dgst", dgst, "-sign", &key_path(file), &path("msg")], None);
            assert_eq!(sign(alg, &key, MSG).unwrap(), theirs, "{alg} {file}");
        }
    }
    // Randomized schemes: each side verifies the other's signatures.
    for (alg, dgst, salt) in [
        (Algorithm::PS256, "-sha256", "32"),
        (Algorithm::PS384, "-sha384", "48"),
        (Algorithm::PS512, "-sha512", "64"),
    ] {
        let file = "rsa3072.pem";
        let key = PrivateKey::from_pem(&key_file(file)).unwrap();
        let pss = ["-sigopt", "rsa_padding_mode:pss", "-sigopt"];
        let saltopt = format!("rsa_pss_saltlen:{salt}");
        let theirs = openssl(
            &[
                &["dgst", dgst],
                &pss[..],
                &[saltopt.as_str(), "-sign", &key_path(file), &path("msg")],
            ]
            .concat(),
            None,
        );
        verify(alg, key.public(), MSG, &theirs).unwrap_or_else(|e| panic!("{alg}: {e}"));
        std::fs::write(path("sig"), sign(alg, &key, MSG).unwrap()).unwrap();
        let pubfile = key_path("rsa3072.pub.pem");
        let out = openssl(
            &[
                &["dgst", dgst],
                &pss[..],
                &[
                    saltopt.as_str(),
                    "-verify",
                    &pubfile,
                    "-signature",
                    &path("sig"),
                    &path("msg"),
                ],
            ]
            .concat(),
            None,
        );
        assert!(String::from_utf8_lossy(&out).contains("Verified OK"), "{alg}");
    }
    for (file, alg, dgst, len) in [
        ("p256.pem", Algorithm::ES256, "-sha256", 32),
        ("p384.sec1.pem", Algorithm::ES384, "-sha384", 48),
        ("p521.pem", Algorithm::ES512, "-sha512", 66),
        ("secp256k1.sec1.pem", Algorithm::ES256K, "-sha256", 32),
    ] {
        if !alg.available() {
            continue;
        }
        let key = PrivateKey::from_pem(&key_file(file)).unwrap();
        let theirs = openssl(&["dgst", dgst, "-sign", &key_path(file), &path("msg")], None);
        verify(alg, key.public(), MSG, &der_to_raw(&theirs, len)).unwrap_or_else(|e| panic!("{alg}: {e}"));
        std::fs::write(path("sig"), raw_to_der(&sign(alg, &key, MSG).unwrap())).unwrap();
        std::fs::write(path("pub.pem"), key.public().to_spki_pem()).unwrap();
        let out = openssl(
            &[
                "dgst",
                dgst,
                "-verify",
                &path("pub.pem"),
                "-signature",
                &path("sig"),
                &path("msg"),
            ],
            None,
        );
        assert!(String::from_utf8_lossy(&out).contains("Verified OK"), "{alg}");
    }
    // OpenSSL reads our PKCS#8 and SPKI encodings back to the same keys.
    for (stem, kind, privates, _) in openssl_keys() {
        if !kind.available() {
            continue;
        }
        let key = PrivateKey::from_pem(&key_file(&privates[0])).unwrap();
        let spki = openssl(
            &["pkey", "-pubout", "-outform", "DER"],
            Some(key.to_pkcs8_pem().as_bytes()),
        );
        assert_eq!(spki, key.public().to_spki_der(), "{stem}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn pem_der(pem: &str) -> Vec<u8> {
    use base64::Engine as _;
    let body: String = pem.lines().filter(|l| !l.starts_with("-----")).collect();
    base64::engine::general_purpose::STANDARD.decode(body).unwrap()
}

#[test]
fn mangled_inputs_never_panic() {
    // Every single-byte change and every truncation of real DER keys: an error or a key, never a
    // panic. (A changed byte may still give a valid key, e.g. inside an unused attribute.)
    for (file, public) in [
        ("ed25519.pem", false),
        ("p256.sec1.pem", false),
        ("p521.pem", false),
        ("rsa2048.pkcs1.pem", false),
        ("p384.pub.pem", true),
        ("rsa2048.pub.pem", true),
    ] {
        let der = pem_der(&key_file(file));
        let step = if der.len() > 300 { 7 } else { 1 };
        for i in (0..der.len()).step_by(step) {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut m = der.clone();
                m[i] ^= flip;
                if public {
                    let _ = PublicKey::from_spki_der(&m);
                } else {
                    let _ = PrivateKey::from_der(&m);
                }
            }
            if public {
                let _ = PublicKey::from_spki_der(&der[..i]);
            } else {
                let _ = PrivateKey::from_der(&der[..i]);
            }
        }
    }
    // JWK members of every type and shape.
    let ec = PrivateKey::from_pem(&key_file("p256.pem"))
        .unwrap()
        .to_jwk_private();
    for member in ["kty", "crv", "x", "y", "d", "kid", "alg", "use"] {
        for v in [
            json!(null),
            json!(1),
            json!([]),
            json!({}),
            json!(""),
            json!("A"),
            json!("AA"),
            json!("AAAA"),
        ] {
            let mut j = ec.clone();
            j[member] = v;
            let _ = PrivateKey::from_jwk(&j);
            let _ = PublicKey::from_jwk(&j);
        }
    }
    for text in [
        "",
        "{",
        "[]",
        "null",
        "{\"keys\":null}",
        "{\"keys\":[1]}",
        "-----BEGIN PUBLIC KEY-----",
        "-----BEGIN PUBLIC KEY-----\n-----END PUBLIC KEY-----",
    ] {
        assert!(PublicKey::parse(text).is_err(), "{text:?}");
        assert!(PrivateKey::parse(text).is_err(), "{text:?}");
        let _ = parse_jwks(text);
    }
}
