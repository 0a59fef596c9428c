//! Interoperability of card signatures with two independent JOSE implementations, both ways:
//!
//! * `josekit` (Rust, on OpenSSL): its own JWS API (`deserialize_compact`, `deserialize_json`,
//!   `serialize_compact`, `serialize_flattened_json`) verifies what `sign_card` writes, and
//!   `verify_card` accepts what josekit signs;
//! * José, the Debian `jose` command (C, on OpenSSL through libjose): `jose jws ver` verifies what
//!   `sign_card` writes, and `verify_card` accepts what `jose jws sig` signs with keys that
//!   `jose jwk gen` made.
//!
//! The JWS payload of a card signature is the card's canonical bytes, detached: the signing input
//! is `protected '.' BASE64URL(canonical)`. Each direction also checks that a one-byte change of
//! the payload (or of a covered card member) is refused.
//!
//! When the `jose` command is missing, the José tests print a note and return, except when the
//! environment variable `CI` is set: then they fail, because `.ci/run` installs it.

#![allow(clippy::unwrap_used, clippy::panic)]

use a2a_card::jose::keys::{PrivateKey, PublicKey};
use a2a_card::signature::trust::TrustStore;
use a2a_card::Algorithm;
use a2a_card::{canonicalize, sign_card, verify_card, CanonicalizeOptions, SignOptions, VerifyOptions};
use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A card with nested messages, a Struct, non-ASCII text, escapes, numbers that RFC 8785
/// reformats, an empty REQUIRED list and an unknown member: the canonical bytes differ from the
/// served bytes in many ways, so a peer that verified the served bytes instead would fail.
const CARD: &str = r#"{
  "name": "Recipe Agent \u00e9\ud83c\udf73",
  "description": "Cooks \"things\" \u2014 fast",
  "version": "1.0.0",
  "x-vendor": {"unsigned": true},
  "supportedInterfaces": [
    {"url": "https://agent.example/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
  ],
  "capabilities": {
    "streaming": true,
    "pushNotifications": false,
    "extensions": [{"uri": "https://ext.example/v1", "params": {"z": 1.50, "a": [1E2, -0.0, 1e-7]}}]
  },
  "securitySchemes": {"bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer"}}},
  "securityRequirements": [{"schemes": {"bearer": {}}}],
  "defaultInputModes": ["text/plain"],
  "defaultOutputModes": [],
  "skills": [{"id": "cook", "name": "Cook", "description": "Makes food", "tags": ["food", "\u00fcber"]}]
}"#;

/// The algorithms the brief asks for; the ones both peers and we have in common.
const ALGS: [Algorithm; 6] = [
    Algorithm::EdDSA,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::ES512,
    Algorithm::RS256,
    Algorithm::PS256,
];

fn canonical(card: &[u8]) -> Vec<u8> {
    canonicalize(card, &CanonicalizeOptions::default()).unwrap().bytes
}

/// The canonical bytes with one byte changed: the ASCII letter nearest after the middle has its
/// case flipped (so the payload stays UTF-8 and stays JSON).
fn tamper(payload: &[u8]) -> Vec<u8> {
    let mut out = payload.to_vec();
    let i = (out.len() / 2..out.len())
        .find(|&i| out[i].is_ascii_alphabetic())
        .expect("a letter after the middle of the payload");
    out[i] ^= 0x20;
    assert_ne!(out, payload);
    out
}

/// The card with a covered member changed (the agent's name), for the verify-side checks.
fn tampered_card(card: &[u8]) -> Vec<u8> {
    let text = std::str::from_utf8(card).unwrap();
    let changed = text.replacen("Recipe Agent", "Recipe AgenT", 1);
    assert_ne!(changed, text, "the card holds the member to tamper with");
    assert_ne!(
        canonical(changed.as_bytes()),
        canonical(card),
        "the tampered member is covered"
    );
    changed.into_bytes()
}

/// The card carrying exactly one signature entry `{"protected", "signature"}`.
fn card_with_signature(card: &[u8], protected: &str, signature: &str) -> Vec<u8> {
    let mut v: Json = serde_json::from_slice(card).unwrap();
    v.as_object_mut().unwrap().insert(
        "signatures".into(),
        serde_json::json!([{ "protected": protected, "signature": signature }]),
    );
    serde_json::to_vec_pretty(&v).unwrap()
}

/// The `(protected, signature)` of the only signature entry of a signed card, read back from the
/// card bytes themselves (not from what `sign_card` returned alongside).
fn only_entry(signed_card: &[u8]) -> (Json, String, String) {
    let v: Json = serde_json::from_slice(signed_card).unwrap();
    let sigs = v["signatures"].as_array().unwrap();
    assert_eq!(sigs.len(), 1);
    let entry = sigs[0].clone();
    let p = entry["protected"].as_str().unwrap().to_string();
    let s = entry["signature"].as_str().unwrap().to_string();
    (entry, p, s)
}

/// Signs `CARD` with a fresh key of our own for `alg`; returns the key, the signed card, the
/// entry and the canonical bytes the signature covers.
#[cfg(feature = "native-algs")]
fn sign_ours(alg: Algorithm) -> (PrivateKey, Vec<u8>, Json, String, String, Vec<u8>) {
    sign_with(PrivateKey::generate(alg).unwrap(), alg)
}

/// Signs `CARD` with `key` under `alg` (see [`sign_ours`]).
fn sign_with(key: PrivateKey, alg: Algorithm) -> (PrivateKey, Vec<u8>, Json, String, String, Vec<u8>) {
    let opts = SignOptions {
        alg: Some(alg),
        allow_unsigned: true,
        ..Default::default()
    };
    let signed = sign_card(CARD.as_bytes(), &key, &opts).unwrap();
    let (entry, p, s) = only_entry(&signed.card);
    let payload = canonical(&signed.card);
    assert_eq!(payload, canonical(CARD.as_bytes()));
    assert_eq!(payload, signed.canonical.bytes);
    (key, signed.card, entry, p, s, payload)
}

/// Decodes a protected header (base64url JSON) with serde_json.
fn header_of(protected_b64: &str) -> Json {
    serde_json::from_slice(&a2a_card_testkit::data::unb64url(protected_b64)).unwrap()
}

/// Verifies `card` with our verifier against `key` only; asserts it passes with a `valid`
/// verdict over exactly `payload`.
fn assert_we_accept(card: &[u8], key: PublicKey, payload: &[u8], what: &str) {
    let mut trust = TrustStore::new();
    trust.pin(key, what.to_string());
    let report = verify_card(card, &trust, &VerifyOptions::default()).unwrap();
    assert!(
        report.ok,
        "{what}: our verifier refused the peer's signature: {} / {:?}",
        report.reason, report.signatures
    );
    assert_eq!(report.signatures.len(), 1, "{what}");
    assert_eq!(report.signatures[0].verdict.code, "valid", "{what}");
    assert_eq!(
        report.canonical, payload,
        "{what}: verified other bytes than were signed"
    );
    assert_eq!(report.unsigned, vec!["/x-vendor".to_string()], "{what}");

    // The same signature on a card whose covered content changed must not verify.
    let report = verify_card(&tampered_card(card), &trust, &VerifyOptions::default()).unwrap();
    assert!(!report.ok, "{what}: a tampered card passed");
    assert_eq!(
        report.signatures[0].verdict.code, "signature-invalid",
        "{what}: tampered card: {}",
        report.signatures[0].verdict.message
    );
}

/// Generates one `#[test]` per algorithm calling `$body(alg)`.
macro_rules! per_alg {
    ($body:path: $($name:ident => $alg:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                $body(Algorithm::$alg);
            }
        )*
    };
}

// ---------------------------------------------------------------------------------------------
// josekit
// ---------------------------------------------------------------------------------------------

#[cfg(feature = "native-algs")]
mod josekit_interop {
    use super::*;
    use josekit::jwk::{Ed25519, Jwk, KeyPair};
    use josekit::jws::{self, JwsHeader, JwsHeaderSet, JwsSigner, JwsVerifier};

    fn verifier_from_jwk(alg: Algorithm, jwk: &Jwk) -> Box<dyn JwsVerifier> {
        match alg {
            Algorithm::EdDSA => Box::new(jws::EdDSA.verifier_from_jwk(jwk).unwrap()),
            Algorithm::ES256 => Box::new(jws::ES256.verifier_from_jwk(jwk).unwrap()),
            Algorithm::ES384 => Box::new(jws::ES384.verifier_from_jwk(jwk).unwrap()),
            Algorithm::ES512 => Box::new(jws::ES512.verifier_from_jwk(jwk).unwrap()),
            Algorithm::RS256 => Box::new(jws::RS256.verifier_from_jwk(jwk).unwrap()),
            Algorithm::PS256 => Box::new(jws::PS256.verifier_from_jwk(jwk).unwrap()),
            other => panic!("not in this test: {other}"),
        }
    }

    /// josekit's PEM verifier. None for PS256: josekit's PS* verifiers read only an
    /// id-RSASSA-PSS SubjectPublicKeyInfo (or PKCS#1), and we export rsaEncryption SPKI.
    fn verifier_from_pem(alg: Algorithm, pem: &str) -> Option<Box<dyn JwsVerifier>> {
        Some(match alg {
            Algorithm::EdDSA => Box::new(jws::EdDSA.verifier_from_pem(pem).unwrap()),
            Algorithm::ES256 => Box::new(jws::ES256.verifier_from_pem(pem).unwrap()),
            Algorithm::ES384 => Box::new(jws::ES384.verifier_from_pem(pem).unwrap()),
            Algorithm::ES512 => Box::new(jws::ES512.verifier_from_pem(pem).unwrap()),
            Algorithm::RS256 => Box::new(jws::RS256.verifier_from_pem(pem).unwrap()),
            Algorithm::PS256 => return None,
            other => panic!("not in this test: {other}"),
        })
    }

    /// A josekit-generated key pair for `alg`: (private JWK, public JWK, public PEM), the JWKs
    /// carrying `kid`.
    fn josekit_key(alg: Algorithm, kid: &str) -> (Jwk, Jwk, String) {
        let pair: Box<dyn KeyPair> = match alg {
            Algorithm::EdDSA => Box::new(jws::EdDSA.generate_key_pair(Ed25519).unwrap()),
            Algorithm::ES256 => Box::new(jws::ES256.generate_key_pair().unwrap()),
            Algorithm::ES384 => Box::new(jws::ES384.generate_key_pair().unwrap()),
            Algorithm::ES512 => Box::new(jws::ES512.generate_key_pair().unwrap()),
            Algorithm::RS256 => Box::new(jws::RS256.generate_key_pair(2048).unwrap()),
            Algorithm::PS256 => Box::new(jws::PS256.generate_key_pair(2048).unwrap()),
            other => panic!("not in this test: {other}"),
        };
        let mut private = pair.to_jwk_private_key();
        private.set_key_id(kid);
        let mut public = pair.to_jwk_public_key();
        public.set_key_id(kid);
        let pem = String::from_utf8(pair.to_pem_public_key()).unwrap();
        (private, public, pem)
    }

    fn signer_from_jwk(alg: Algorithm, jwk: &Jwk) -> Box<dyn JwsSigner> {
        match alg {
            Algorithm::EdDSA => Box::new(jws::EdDSA.signer_from_jwk(jwk).unwrap()),
            Algorithm::ES256 => Box::new(jws::ES256.signer_from_jwk(jwk).unwrap()),
            Algorithm::ES384 => Box::new(jws::ES384.signer_from_jwk(jwk).unwrap()),
            Algorithm::ES512 => Box::new(jws::ES512.signer_from_jwk(jwk).unwrap()),
            Algorithm::RS256 => Box::new(jws::RS256.signer_from_jwk(jwk).unwrap()),
            Algorithm::PS256 => Box::new(jws::PS256.signer_from_jwk(jwk).unwrap()),
            other => panic!("not in this test: {other}"),
        }
    }

    /// (a) josekit verifies what `sign_card` wrote.
    fn josekit_verifies_ours(alg: Algorithm) {
        let (key, _card, _entry, p, s, payload) = sign_ours(alg);
        let payload_b64 = a2a_card_testkit::data::b64url(&payload);
        let compact = format!("{p}.{payload_b64}.{s}");

        // The public key as JWK (with our kid and alg: josekit then also checks both against
        // the header).
        let jwk = Jwk::from_bytes(serde_json::to_vec(&key.public().to_jwk()).unwrap()).unwrap();
        let verifier = verifier_from_jwk(alg, &jwk);
        let (got, header) = jws::deserialize_compact(&compact, &*verifier)
            .unwrap_or_else(|e| panic!("{alg}: josekit refused our signature: {e}"));
        assert_eq!(got, payload, "{alg}");
        assert_eq!(header.algorithm(), Some(alg.as_str()), "{alg}");
        assert_eq!(header.key_id(), Some(key.kid()), "{alg}");
        assert_eq!(header.token_type(), Some("JOSE"), "{alg}");

        // Flattened JSON serialization with the payload put back in.
        let flattened = serde_json::json!({"protected": p, "payload": payload_b64, "signature": s});
        let (got, _) = jws::deserialize_json(flattened.to_string(), &*verifier)
            .unwrap_or_else(|e| panic!("{alg}: josekit refused our flattened JWS: {e}"));
        assert_eq!(got, payload, "{alg}");

        // The public key as SubjectPublicKeyInfo PEM.
        if let Some(pem_verifier) = verifier_from_pem(alg, &key.public().to_spki_pem()) {
            jws::deserialize_compact(&compact, &*pem_verifier)
                .unwrap_or_else(|e| panic!("{alg}: josekit (PEM key) refused our signature: {e}"));
        }

        // One byte of the payload changed: refused, in both serializations.
        let bad_b64 = a2a_card_testkit::data::b64url(tamper(&payload));
        let bad_compact = format!("{p}.{bad_b64}.{s}");
        assert!(
            jws::deserialize_compact(&bad_compact, &*verifier).is_err(),
            "{alg}: josekit accepted a changed payload"
        );
        let bad_flat = serde_json::json!({"protected": p, "payload": bad_b64, "signature": s});
        assert!(
            jws::deserialize_json(bad_flat.to_string(), &*verifier).is_err(),
            "{alg}: josekit accepted a changed payload (flattened)"
        );
        println!("josekit verifies our {alg}: ok; changed payload refused: ok");
    }

    /// (b) `verify_card` accepts what josekit signed.
    fn we_verify_josekit(alg: Algorithm) {
        let kid = format!("josekit-{alg}");
        let (private, public, pem) = josekit_key(alg, &kid);
        let signer = signer_from_jwk(alg, &private);
        let payload = canonical(CARD.as_bytes());
        let payload_b64 = a2a_card_testkit::data::b64url(&payload);

        // Compact serialization; josekit writes its own protected header JSON (member order and
        // spelling are its choice, not RFC 8785).
        // Members set in non-RFC 8785 order: with serde_json's preserve_order (on in this
        // workspace) josekit writes them in this order, so the protected bytes differ from the
        // ones we would write, and our verifier must take them as they are.
        let mut header = JwsHeader::new();
        header.set_token_type("JOSE");
        header.set_key_id(&kid);
        header.set_algorithm(alg.as_str());
        let compact = jws::serialize_compact(&payload, &header, &*signer).unwrap();
        let parts: Vec<&str> = compact.split('.').collect();
        assert_eq!(parts.len(), 3);
        assert_eq!(parts[1], payload_b64, "{alg}: josekit encoded another payload");
        let h = header_of(parts[0]);
        assert_eq!(
            (h["alg"].as_str(), h["kid"].as_str(), h["typ"].as_str()),
            (Some(alg.as_str()), Some(kid.as_str()), Some("JOSE"))
        );
        println!(
            "josekit {alg} protected header: {}",
            String::from_utf8(a2a_card_testkit::data::unb64url(parts[0])).unwrap()
        );
        let card_compact = card_with_signature(CARD.as_bytes(), parts[0], parts[2]);

        // Flattened JSON serialization, every header member protected.
        let mut set = JwsHeaderSet::new();
        set.set_algorithm(alg.as_str(), true);
        set.set_key_id(&kid, true);
        set.set_token_type("JOSE", true);
        let flat: Json =
            serde_json::from_str(&jws::serialize_flattened_json(&payload, &set, &*signer).unwrap()).unwrap();
        assert_eq!(flat["payload"].as_str(), Some(payload_b64.as_str()));
        assert!(flat.get("header").is_none());
        let card_flat = card_with_signature(
            CARD.as_bytes(),
            flat["protected"].as_str().unwrap(),
            flat["signature"].as_str().unwrap(),
        );

        // josekit's public JWK, through our JWK parser.
        let key = PublicKey::from_jwk_str(&public.to_string()).unwrap();
        assert_eq!(key.kid(), kid);
        assert_we_accept(
            &card_compact,
            key.clone(),
            &payload,
            &format!("josekit {alg} compact, JWK key"),
        );
        assert_we_accept(
            &card_flat,
            key.clone(),
            &payload,
            &format!("josekit {alg} flattened, JWK key"),
        );

        // josekit's public PEM, through our PEM parser.
        let from_pem = PublicKey::from_pem(&pem);
        if alg == Algorithm::PS256 {
            // josekit exports a PS256 key as an id-RSASSA-PSS SubjectPublicKeyInfo; our parser
            // refuses such restricted keys by design and says what to use instead.
            let err = from_pem.unwrap_err();
            assert_eq!(err.code().as_str(), "invalid-key");
            assert!(err.message().contains("RSASSA-PSS"), "{}", err.message());
        } else {
            let key_pem = from_pem.unwrap().with_kid(kid.clone());
            assert_eq!(key_pem.material(), key.material(), "{alg}: PEM and JWK disagree");
            assert_we_accept(
                &card_compact,
                key_pem,
                &payload,
                &format!("josekit {alg} compact, PEM key"),
            );
        }
        println!("we verify josekit's {alg}: ok; tampered card refused with signature-invalid: ok");
    }

    per_alg!(josekit_verifies_ours:
        josekit_verifies_ours_eddsa => EdDSA,
        josekit_verifies_ours_es256 => ES256,
        josekit_verifies_ours_es384 => ES384,
        josekit_verifies_ours_es512 => ES512,
        josekit_verifies_ours_rs256 => RS256,
        josekit_verifies_ours_ps256 => PS256,
    );

    per_alg!(we_verify_josekit:
        we_verify_josekit_eddsa => EdDSA,
        we_verify_josekit_es256 => ES256,
        we_verify_josekit_es384 => ES384,
        we_verify_josekit_es512 => ES512,
        we_verify_josekit_rs256 => RS256,
        we_verify_josekit_ps256 => PS256,
    );

    /// The list above is the brief's list; keep it in step with ALGS.
    #[test]
    fn josekit_covers_every_listed_algorithm() {
        for alg in ALGS {
            let jwk = Jwk::from_bytes(
                serde_json::to_vec(&PrivateKey::generate(alg).unwrap().public().to_jwk()).unwrap(),
            )
            .unwrap();
            let _ = verifier_from_jwk(alg, &jwk);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// José (the Debian `jose` command)
// ---------------------------------------------------------------------------------------------

/// A scratch directory under the system temp dir, unique per process and call, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let dir = std::env::temp_dir().join(format!(
            "a2a-card-interop-{tag}-{}-{nanos}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn write(&self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

use a2a_card_testkit::tools::{jose, jose_algs, run_jose};

macro_rules! os {
    ($($a:expr),* $(,)?) => { &[$(std::ffi::OsStr::new($a)),*] };
}

/// True when José implements `alg`; else prints a note. José 11 (Debian 12) has no EdDSA.
fn jose_has(bin: &Path, alg: Algorithm) -> bool {
    a2a_card_testkit::tools::jose_has(bin, alg.as_str())
}

/// True when this build of a2a-card implements `alg`; else prints a note (ES512 needs the
/// `native-algs` feature).
fn we_have(alg: Algorithm) -> bool {
    if alg.available() {
        return true;
    }
    println!("note: {alg} is not available in this build of a2a-card (no `native-algs`); skipped");
    false
}

/// (a) `jose jws ver` verifies what `sign_card` wrote.
fn jose_verifies_ours(alg: Algorithm) {
    let Some(bin) = jose() else { return };
    if !jose_has(&bin, alg) || !we_have(alg) {
        return;
    }
    let dir = Scratch::new(&format!("ver-{alg}"));
    // Our own key when this build can generate one; without `native-algs` RSA keys cannot be
    // generated here, so José generates it and our private-JWK reader loads it.
    let key = match PrivateKey::generate(alg) {
        Ok(key) => key,
        Err(e) => {
            println!("note: {e}; using a key from `jose jwk gen` instead");
            let key_file = dir.path("ours.jwk");
            let template = serde_json::json!({ "alg": alg.as_str() }).to_string();
            let r = run_jose(&bin, os!["jwk", "gen", "-i", &template, "-o", &key_file]);
            assert!(r.status.success(), "{alg}: jose jwk gen failed");
            PrivateKey::from_jwk_str(&std::fs::read_to_string(&key_file).unwrap()).unwrap()
        }
    };
    let (key, _card, entry, p, s, payload) = sign_with(key, alg);
    let jwk = dir.write("pub.jwk", serde_json::to_vec(&key.public().to_jwk()).unwrap());
    let good = dir.write("payload.bin", &payload);
    let bad = dir.write("tampered.bin", tamper(&payload));
    // The card's entry exactly as written, payload detached ...
    let detached = dir.write("detached.json", serde_json::to_vec(&entry).unwrap());
    // ... and a flattened JWS with the base64url canonical bytes as its payload.
    let attached = dir.write(
        "attached.json",
        serde_json::json!({"protected": p, "payload": a2a_card_testkit::data::b64url(&payload), "signature": s}).to_string(),
    );
    let attached_bad = dir.write(
        "attached-tampered.json",
        serde_json::json!({"protected": p, "payload": a2a_card_testkit::data::b64url(tamper(&payload)), "signature": s})
            .to_string(),
    );
    let out1 = dir.path("out-detached.bin");
    let out2 = dir.path("out-attached.bin");

    let r = run_jose(
        &bin,
        os!["jws", "ver", "-i", &detached, "-I", &good, "-k", &jwk, "-O", &out1],
    );
    assert!(r.status.success(), "{alg}: jose refused our detached signature");
    assert_eq!(std::fs::read(&out1).unwrap(), payload, "{alg}");

    let r = run_jose(&bin, os!["jws", "ver", "-i", &attached, "-k", &jwk, "-O", &out2]);
    assert!(
        r.status.success(),
        "{alg}: jose refused our signature (payload attached)"
    );
    assert_eq!(std::fs::read(&out2).unwrap(), payload, "{alg}");

    let r = run_jose(&bin, os!["jws", "ver", "-i", &detached, "-I", &bad, "-k", &jwk]);
    assert!(
        !r.status.success(),
        "{alg}: jose accepted a changed detached payload"
    );
    let r = run_jose(&bin, os!["jws", "ver", "-i", &attached_bad, "-k", &jwk]);
    assert!(
        !r.status.success(),
        "{alg}: jose accepted a changed attached payload"
    );
    println!("jose verifies our {alg}: ok; changed payload refused: ok");
}

/// (b) `verify_card` accepts what `jose jws sig` signed with a key from `jose jwk gen`.
fn we_verify_jose(alg: Algorithm) {
    let Some(bin) = jose() else { return };
    if !jose_has(&bin, alg) || !we_have(alg) {
        return;
    }
    let dir = Scratch::new(&format!("sig-{alg}"));
    let kid = format!("jose-{alg}");
    let payload = canonical(CARD.as_bytes());
    let payload_file = dir.write("payload.bin", &payload);
    let key_file = dir.path("key.jwk");
    let pub_file = dir.path("pub.jwk");
    let jws_file = dir.path("jws.json");

    let template = serde_json::json!({"alg": alg.as_str(), "kid": kid}).to_string();
    let r = run_jose(&bin, os!["jwk", "gen", "-i", &template, "-o", &key_file]);
    assert!(r.status.success(), "{alg}: jose jwk gen failed");
    let r = run_jose(&bin, os!["jwk", "pub", "-i", &key_file, "-o", &pub_file]);
    assert!(r.status.success(), "{alg}: jose jwk pub failed");

    let sig_template =
        serde_json::json!({"protected": {"alg": alg.as_str(), "kid": kid, "typ": "JOSE"}}).to_string();
    let r = run_jose(
        &bin,
        os![
            "jws",
            "sig",
            "-I",
            &payload_file,
            "-s",
            &sig_template,
            "-k",
            &key_file,
            "-o",
            &jws_file
        ],
    );
    assert!(r.status.success(), "{alg}: jose jws sig failed");

    let jws: Json = serde_json::from_slice(&std::fs::read(&jws_file).unwrap()).unwrap();
    assert_eq!(
        jws["payload"].as_str(),
        Some(a2a_card_testkit::data::b64url(&payload).as_str()),
        "{alg}: jose encoded another payload"
    );
    assert!(
        jws.get("header").is_none(),
        "{alg}: jose added an unprotected header: {jws}"
    );
    let p = jws["protected"].as_str().unwrap();
    let h = header_of(p);
    assert_eq!(
        (h["alg"].as_str(), h["kid"].as_str(), h["typ"].as_str()),
        (Some(alg.as_str()), Some(kid.as_str()), Some("JOSE")),
        "{alg}: {h}"
    );
    let card = card_with_signature(CARD.as_bytes(), p, jws["signature"].as_str().unwrap());

    // The public JWK from `jose jwk pub`, through our parser.
    let public_text = std::fs::read_to_string(&pub_file).unwrap();
    let key = PublicKey::from_jwk_str(&public_text).unwrap();
    assert_eq!(key.kid(), kid);
    assert_we_accept(&card, key.clone(), &payload, &format!("jose {alg}, public JWK"));

    // The private JWK straight from `jose jwk gen`: our public-key reader takes its public half.
    let private_text = std::fs::read_to_string(&key_file).unwrap();
    let from_private = PublicKey::from_jwk_str(&private_text).unwrap();
    assert_eq!(from_private, key, "{alg}: the private JWK's public half differs");
    assert_we_accept(&card, from_private, &payload, &format!("jose {alg}, private JWK"));
    println!("we verify jose's {alg}: ok; tampered card refused with signature-invalid: ok");
}

per_alg!(jose_verifies_ours:
    jose_verifies_ours_eddsa => EdDSA,
    jose_verifies_ours_es256 => ES256,
    jose_verifies_ours_es384 => ES384,
    jose_verifies_ours_es512 => ES512,
    jose_verifies_ours_rs256 => RS256,
    jose_verifies_ours_ps256 => PS256,
);

per_alg!(we_verify_jose:
    we_verify_jose_eddsa => EdDSA,
    we_verify_jose_es256 => ES256,
    we_verify_jose_es384 => ES384,
    we_verify_jose_es512 => ES512,
    we_verify_jose_rs256 => RS256,
    we_verify_jose_ps256 => PS256,
);

/// José must at least implement the ECDSA and RSA algorithms of the list: a build that lacks
/// one of them would silently turn the tests above into notes.
#[test]
fn jose_implements_the_listed_algorithms_except_eddsa() {
    let Some(bin) = jose() else { return };
    let algs = jose_algs(&bin);
    for alg in ALGS.iter().filter(|a| **a != Algorithm::EdDSA) {
        assert!(
            algs.iter().any(|a| a == alg.as_str()),
            "jose alg does not list {alg}: {algs:?}"
        );
    }
}
