//! Signatures that say which bytes they cover: `sign_card` writes the protected header parameter
//! `urn:a2a-card:canonical` (`{"profile": NAME, "unknown": CHOICE}`) in every signature it
//! makes, and verification reads it: a declared profile the policy does not accept is
//! `profile-not-accepted` (never `signature-invalid`), an accepted one is checked over its bytes
//! only, `retain` over the retained bytes, a malformed value is refused at the parameter, and a
//! signature without it (every other signer's) is read as before.

#![allow(clippy::unwrap_used, clippy::panic)] // a test reports by panicking

mod support;

use a2a_card::jose::crypto::{BackendVerdict, SignatureBackend, SignatureCheck};
use a2a_card::jose::header::decode_header;
use a2a_card::signature::{verify_card_with, DeferredVerification, TextForm, DECLARED_PARAMETER};
use a2a_card::{
    sign_card, verify_card, Algorithm, CanonicalizeOptions, Error, ErrorCode, Mode, PrivateKey, Profile,
    Report, SignOptions, TrustStore, UnknownMembers, VerifyOptions,
};
use a2a_card_testkit::cards::{signed_entry, with_signatures};
use serde_json::{json, Value};
use std::cell::Cell;

/// Its spec and prune-empty bytes differ (the empty description, `streaming: false`, the empty
/// input modes), so the transition makes two signatures.
const CARD: &[u8] = br#"{"name":"A","description":"","version":"1","capabilities":{"streaming":false},
  "defaultInputModes":[],"defaultOutputModes":["text/plain"],"skills":[]}"#;

fn transition() -> SignOptions {
    SignOptions {
        kid: Some("release-2026".into()),
        also_profiles: vec![Profile::PruneEmpty],
        ..SignOptions::default()
    }
}

fn pinned(key: &PrivateKey) -> TrustStore {
    let mut trust = TrustStore::new();
    trust.pin(key.public().clone().with_kid("release-2026"), "jwks.json");
    trust
}

fn accepting(profiles: &[Profile], mode: Mode) -> VerifyOptions {
    VerifyOptions {
        profiles: profiles.to_vec(),
        mode,
        ..VerifyOptions::default()
    }
}

fn codes(r: &Report) -> Vec<String> {
    r.signatures.iter().map(|s| s.verdict.code.to_string()).collect()
}

/// The same verification made the deferred way (the WebCrypto path), every check answered by
/// the library.
fn deferred(card: &[u8], trust: &TrustStore, opts: &VerifyOptions) -> Report {
    DeferredVerification::new(card.to_vec(), trust, opts)
        .unwrap()
        .finish()
        .unwrap()
}

fn protected_of(card: &[u8], i: usize) -> Value {
    let v: Value = serde_json::from_slice(card).unwrap();
    let h = decode_header(v["signatures"][i]["protected"].as_str().unwrap(), None, 4096).unwrap();
    let names = h
        .protected_names()
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>();
    let mut out = serde_json::Map::new();
    for n in names {
        out.insert(n.clone(), h.protected_param(&n).unwrap());
    }
    Value::Object(out)
}

#[test]
fn sign_declares_the_bytes_of_each_signature_and_never_uses_crit() {
    let key = PrivateKey::generate(Algorithm::ES256).unwrap();
    let signed = sign_card(CARD, &key, &transition()).unwrap();
    assert_eq!(signed.also.len(), 1);
    assert_ne!(
        signed.also[0].protected, signed.protected,
        "each signature has its own header"
    );
    let main = protected_of(&signed.card, 0);
    let also = protected_of(&signed.card, 1);
    // The specification's bytes: the header of section 8.4.2, nothing declared.
    let names: Vec<&String> = main.as_object().unwrap().keys().collect();
    assert_eq!(names, ["alg", "kid", "typ"], "{main}");
    assert_eq!(
        also[DECLARED_PARAMETER],
        json!({"profile": "prune-empty", "unknown": "exclude"})
    );
    for h in [&main, &also] {
        assert!(h.get("crit").is_none(), "{h}");
        assert_eq!(h["kid"], "release-2026");
        assert_eq!(h["alg"], "ES256");
    }
    // The unknown-member choice is written as signed.
    let retain = SignOptions {
        canonicalize: CanonicalizeOptions {
            unknown: UnknownMembers::Retain,
            ..CanonicalizeOptions::default()
        },
        ..SignOptions::default()
    };
    let signed = sign_card(br#"{"name":"A","skills":[],"x-vendor":1}"#, &key, &retain).unwrap();
    assert_eq!(
        protected_of(&signed.card, 0)[DECLARED_PARAMETER],
        json!({"profile": "spec", "unknown": "retain"})
    );
    // The signer writes the parameter itself: a caller's is refused.
    let own = SignOptions {
        extra_protected: vec![(
            DECLARED_PARAMETER.into(),
            json!({"profile": "spec", "unknown": "exclude"}),
        )],
        ..SignOptions::default()
    };
    let e = sign_card(CARD, &key, &own).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Usage);
    assert!(e.message().contains(DECLARED_PARAMETER), "{e}");
}

#[test]
fn a_profile_the_policy_does_not_accept_is_named_not_called_invalid() {
    let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    let trust = pinned(&key);
    let card = sign_card(CARD, &key, &transition()).unwrap().card;
    // The default policy: spec only, mode require.
    let r = verify_card(&card, &trust, &VerifyOptions::default()).unwrap();
    assert!(r.ok, "{}", r.reason);
    assert_eq!(codes(&r), ["valid", "profile-not-accepted"]);
    let v = &r.signatures[1].verdict;
    assert!(
        v.message.starts_with(
            "made over the prune-empty bytes (what a2a-sdk and @a2a-js/sdk sign), as its protected header \
             declares; not accepted by this policy, which accepts spec"
        ),
        "{}",
        v.message
    );
    assert_eq!(v.pointer.as_deref(), Some("/signatures/1/protected"));
    assert_eq!(r.signatures[1].profile, None);
    assert_eq!(deferred(&card, &trust, &VerifyOptions::default()), r);
    // Mode all says which signature fails and why.
    let all = accepting(&[Profile::Spec], Mode::All);
    let r = verify_card(&card, &trust, &all).unwrap();
    assert!(!r.ok);
    assert!(
        r.reason.starts_with(
            "1 of 2 signatures do not verify; mode all needs every one (signature 1: profile-not-accepted: \
             made over the prune-empty bytes"
        ),
        "{}",
        r.reason
    );
    assert_eq!(deferred(&card, &trust, &all), r);
    // The other way round: the spec signature declares nothing (its header is the
    // specification's), so a policy of prune-empty alone reads it as any undeclared signature:
    // not valid over its bytes, with the hint of the bytes it does verify over.
    let r = verify_card(&card, &trust, &accepting(&[Profile::PruneEmpty], Mode::Require)).unwrap();
    assert!(r.ok);
    assert_eq!(codes(&r), ["signature-invalid", "valid"]);
    assert!(
        r.signatures[0]
            .verdict
            .message
            .contains("it verifies over the spec bytes"),
        "{}",
        r.signatures[0].verdict.message
    );
}

#[test]
fn the_transition_card_is_valid_under_mode_all_with_each_purpose_shown() {
    let key = PrivateKey::generate(Algorithm::ES256).unwrap();
    let trust = pinned(&key);
    let card = sign_card(CARD, &key, &transition()).unwrap().card;
    for profiles in [vec![Profile::Spec, Profile::PruneEmpty], Profile::ALL.to_vec()] {
        let opts = accepting(&profiles, Mode::All);
        let r = verify_card(&card, &trust, &opts).unwrap();
        assert!(r.ok, "{}", r.reason);
        assert_eq!(r.reason, "all 2 signatures verify");
        assert_eq!(r.signatures[0].profile, Some(Profile::Spec));
        assert_eq!(r.signatures[1].profile, Some(Profile::PruneEmpty));
        // The report is about the first valid signature's bytes.
        assert_eq!(r.profile, Profile::Spec);
        // Each signature's profile, and what a profile other than the specification's is for.
        let text = r.to_text(&TextForm::default());
        assert!(text.contains("(key from jwks.json, profile spec)\n"), "{text}");
        assert!(
            text.contains("(key from jwks.json, profile prune-empty: what a2a-sdk and @a2a-js/sdk sign)\n"),
            "{text}"
        );
        let json = r.to_json();
        assert_eq!(json["signatures"][0]["profile"], "spec");
        assert_eq!(json["signatures"][1]["profile"], "prune-empty");
        assert_eq!(deferred(&card, &trust, &opts), r);
    }
}

/// A backend that counts the checks and leaves each to the library.
struct Counting(Cell<usize>);

impl SignatureBackend for Counting {
    fn verify(&self, _: &SignatureCheck<'_>) -> Result<BackendVerdict, Error> {
        self.0.set(self.0.get() + 1);
        Ok(BackendVerdict::Declined)
    }
}

#[test]
fn a_declared_profile_is_checked_over_its_bytes_only() {
    let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    let trust = pinned(&key);
    let every = accepting(&Profile::ALL, Mode::All);
    // One check per signature, though every profile is accepted.
    let card = sign_card(CARD, &key, &transition()).unwrap().card;
    let count = Counting(Cell::new(0));
    assert!(verify_card_with(&card, &trust, &every, Some(&count)).unwrap().ok);
    assert_eq!(count.0.get(), 2);
    // Signed over the spec bytes but declaring prune-empty: the spec bytes are not tried, so it
    // does not verify (a signature without the declaration verifies under spec).
    let spec = a2a_card::canonicalize(CARD, &CanonicalizeOptions::default())
        .unwrap()
        .bytes;
    let lying = json!({"alg": "EdDSA", "kid": "release-2026", "typ": "JOSE",
        DECLARED_PARAMETER: {"profile": "prune-empty", "unknown": "exclude"}})
    .to_string();
    let entry = signed_entry(&spec, &lying, None, |input| {
        a2a_card::jose::crypto::sign(Algorithm::EdDSA, &key, input).unwrap()
    });
    let card = with_signatures(&serde_json::from_slice(CARD).unwrap(), vec![entry]);
    let count = Counting(Cell::new(0));
    let r = verify_card_with(&card, &trust, &every, Some(&count)).unwrap();
    assert!(!r.ok);
    assert_eq!(count.0.get(), 1, "one check, no hint");
    assert_eq!(codes(&r), ["signature-invalid"]);
    let v = &r.signatures[0].verdict;
    assert!(
        v.message
            .ends_with("(checked over the canonical bytes of: prune-empty)"),
        "{}",
        v.message
    );
    assert!(!v.message.contains("it verifies over"), "no hint: {}", v.message);
    assert_eq!(deferred(&card, &trust, &every), r);
    // The same signature without the declaration is read as before: valid under spec.
    let plain = support::undeclared(
        CARD,
        &key,
        &SignOptions {
            kid: Some("release-2026".into()),
            ..SignOptions::default()
        },
    );
    assert!(verify_card(&plain, &trust, &every).unwrap().ok);
}

#[test]
fn a_declared_profile_with_the_bytes_of_an_accepted_one_is_accepted() {
    // No empty value, no default: the spec and prune-empty bytes are the same, so the signer
    // makes one signature (declaring spec), which stands for both.
    let card = br#"{"name":"A","description":"d","version":"1","defaultInputModes":["text/plain"],
      "defaultOutputModes":["text/plain"],"skills":[{"id":"s","name":"S","description":"d","tags":["t"]}]}"#;
    let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    let trust = pinned(&key);
    let signed = sign_card(card, &key, &transition()).unwrap();
    assert!(signed.also.is_empty());
    assert_eq!(signed.also_same_bytes, [Profile::PruneEmpty]);
    let opts = accepting(&[Profile::PruneEmpty], Mode::All);
    let r = verify_card(&signed.card, &trust, &opts).unwrap();
    assert!(r.ok, "{}", r.reason);
    assert_eq!(r.signatures[0].profile, Some(Profile::PruneEmpty));
    assert_eq!(deferred(&signed.card, &trust, &opts), r);
}

#[test]
fn a_signature_declaring_retain_is_checked_over_the_retained_bytes() {
    let card = br#"{"name":"A","description":"d","version":"1","skills":[],"x-vendor":{"tier":1}}"#;
    let key = PrivateKey::generate(Algorithm::ES256).unwrap();
    let trust = pinned(&key);
    let retain = SignOptions {
        kid: Some("release-2026".into()),
        canonicalize: CanonicalizeOptions {
            unknown: UnknownMembers::Retain,
            ..CanonicalizeOptions::default()
        },
        ..SignOptions::default()
    };
    let signed = sign_card(card, &key, &retain).unwrap();
    // The default verification excludes unknown members; the declaration says they are covered.
    let r = verify_card(&signed.card, &trust, &VerifyOptions::default()).unwrap();
    assert!(r.ok, "{:?}", r.signatures[0].verdict);
    assert_eq!(
        r.canonical, signed.canonical.bytes,
        "the report is about the bytes verified"
    );
    assert!(r.unsigned.is_empty(), "{:?}", r.unsigned);
    assert_eq!(deferred(&signed.card, &trust, &VerifyOptions::default()), r);
    // A verification that retains them reads the same bytes.
    let retained = VerifyOptions {
        unknown: UnknownMembers::Retain,
        ..VerifyOptions::default()
    };
    assert!(verify_card(&signed.card, &trust, &retained).unwrap().ok);
    // Changing the unknown member breaks the signature.
    let changed = String::from_utf8(signed.card.clone())
        .unwrap()
        .replace(r#""tier":1"#, r#""tier":2"#);
    let r = verify_card(changed.as_bytes(), &trust, &VerifyOptions::default()).unwrap();
    assert_eq!(codes(&r), ["signature-invalid"]);
}

#[test]
fn a_malformed_declaration_is_refused_at_the_parameter() {
    let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    let trust = pinned(&key);
    let spec = a2a_card::canonicalize(CARD, &CanonicalizeOptions::default())
        .unwrap()
        .bytes;
    let cases: Vec<(Value, &str)> = vec![
        (json!("spec"), "is a string, not an object"),
        (json!(["spec", "exclude"]), "is an array, not an object"),
        (Value::Null, "is null, not an object"),
        (
            json!({"profile": "strict", "unknown": "exclude"}),
            "names the profile \"strict\", which is none of spec, served-as-is",
        ),
        // auto is a policy (every profile), not bytes a signature covers.
        (
            json!({"profile": "auto", "unknown": "exclude"}),
            "names the profile \"auto\"",
        ),
        (
            json!({"profile": "spec", "unknown": "reject"}),
            "has \"unknown\" \"reject\"; the choices are \"exclude\" and \"retain\"",
        ),
        (json!({"profile": "spec"}), "has no \"unknown\" member"),
        (json!({"unknown": "exclude"}), "has no \"profile\" member"),
        (
            json!({"profile": 1, "unknown": "exclude"}),
            "has a \"profile\" that is a number",
        ),
        (
            json!({"profile": "spec", "unknown": true}),
            "has an \"unknown\" that is a boolean",
        ),
        (
            json!({"profile": "spec", "unknown": "exclude", "v": 2}),
            "has the member \"v\"",
        ),
    ];
    for (value, says) in cases {
        let mut header = json!({"alg": "EdDSA", "kid": "release-2026"});
        header[DECLARED_PARAMETER] = value.clone();
        let entry = signed_entry(&spec, &header.to_string(), None, |input| {
            a2a_card::jose::crypto::sign(Algorithm::EdDSA, &key, input).unwrap()
        });
        let card = with_signatures(&serde_json::from_slice(CARD).unwrap(), vec![entry]);
        let r = verify_card(&card, &trust, &VerifyOptions::default()).unwrap();
        let v = &r.signatures[0].verdict;
        assert_eq!(v.code, "malformed-header", "{value}: {}", v.message);
        assert_eq!(v.pointer.as_deref(), Some("/signatures/0/protected"), "{value}");
        assert!(
            v.message.contains(&format!("\"{DECLARED_PARAMETER}\"")),
            "{}",
            v.message
        );
        assert!(v.message.contains(says), "{value}: {}", v.message);
        assert_eq!(deferred(&card, &trust, &VerifyOptions::default()), r);
    }
    // In the unprotected header it covers nothing: refused there.
    let header = json!({"alg": "EdDSA", "kid": "release-2026"}).to_string();
    let entry = signed_entry(
        &spec,
        &header,
        Some(json!({DECLARED_PARAMETER: {"profile": "spec", "unknown": "exclude"}})),
        |input| a2a_card::jose::crypto::sign(Algorithm::EdDSA, &key, input).unwrap(),
    );
    let card = with_signatures(&serde_json::from_slice(CARD).unwrap(), vec![entry]);
    let r = verify_card(&card, &trust, &VerifyOptions::default()).unwrap();
    let v = &r.signatures[0].verdict;
    assert_eq!(v.code, "malformed-header", "{}", v.message);
    assert_eq!(v.pointer.as_deref(), Some("/signatures/0/header"));
    assert!(v.message.contains("unprotected header"), "{}", v.message);
}

#[test]
fn a_signature_without_the_declaration_is_read_as_before() {
    let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    let trust = pinned(&key);
    // Both signatures as a2a-sdk 1.3 or any other signer makes them: no declaration.
    let card = support::undeclared(CARD, &key, &transition());
    let r = verify_card(&card, &trust, &VerifyOptions::default()).unwrap();
    assert_eq!(codes(&r), ["valid", "signature-invalid"]);
    assert!(
        r.signatures[1]
            .verdict
            .message
            .contains("it verifies over the prune-empty bytes (what a2a-sdk and @a2a-js/sdk sign)"),
        "{}",
        r.signatures[1].verdict.message
    );
    assert_eq!(
        r.signatures[0].verdict.message,
        "the signature verifies with a trusted key"
    );
    let both = accepting(&[Profile::Spec, Profile::PruneEmpty], Mode::All);
    let r = verify_card(&card, &trust, &both).unwrap();
    assert!(r.ok);
    assert_eq!(codes(&r), ["valid", "valid"]);
    assert_eq!(deferred(&card, &trust, &both), r);
}

#[test]
fn declare_off_writes_only_what_other_signers_write() {
    let key = PrivateKey::generate(Algorithm::ES256).unwrap();
    let trust = pinned(&key);
    let quiet = SignOptions {
        kid: Some("release-2026".into()),
        declare: false,
        ..SignOptions::default()
    };
    let signed = sign_card(CARD, &key, &quiet).unwrap();
    let header = protected_of(&signed.card, 0);
    let names: Vec<&String> = header.as_object().unwrap().keys().collect();
    assert_eq!(names, ["alg", "kid", "typ"], "{header}");
    let r = verify_card(&signed.card, &trust, &VerifyOptions::default()).unwrap();
    assert_eq!(codes(&r), ["valid"]);
    // A prune-empty signature that does not say so is read as every other signer's: checked
    // over each accepted profile, so a policy accepting prune-empty finds it.
    let sdk_like = SignOptions {
        canonicalize: CanonicalizeOptions {
            profile: Profile::PruneEmpty,
            ..CanonicalizeOptions::default()
        },
        ..quiet.clone()
    };
    let signed = sign_card(CARD, &key, &sdk_like).unwrap();
    assert!(protected_of(&signed.card, 0).get(DECLARED_PARAMETER).is_none());
    let r = verify_card(
        &signed.card,
        &trust,
        &accepting(&[Profile::PruneEmpty], Mode::Require),
    )
    .unwrap();
    assert_eq!(codes(&r), ["valid"]);
    // A transition signature must say which bytes it covers: asking for one without the
    // declaration is refused before anything is signed, naming both options.
    let e = sign_card(
        CARD,
        &key,
        &SignOptions {
            declare: false,
            ..transition()
        },
    )
    .unwrap_err();
    assert_eq!(e.code(), ErrorCode::Usage);
    assert_eq!(e.options(), ["also_profiles", "declare"]);
    assert!(
        e.message()
            .starts_with("also_profiles cannot be given with declare off"),
        "{e}"
    );
}
