//! The library's side of the first-hour fixes: signing refuses to leave members uncovered
//! unless the signer chose, a `jku` must be https, `untrusted-key` names the trusted kids, and
//! a signature made over another profile's bytes is recognised in the verdict's message.
#![allow(clippy::unwrap_used, clippy::panic)] // a panic is how a test fails

mod support;

use a2a_card::{
    sign_card, verify_card, Algorithm, CanonicalizeOptions, ErrorCode, PrivateKey, Profile, SignOptions,
    TrustStore, UnknownMembers, VerifyOptions,
};

const CARD: &[u8] = br#"{"name":"A","description":"","version":"1","skills":[],"x-vendor":1}"#;
/// An A2A 0.3 card: `url`, `protocolVersion` and `preferredTransport` are not v1.0 members.
const V03: &[u8] = br#"{"name":"A","description":"d","version":"1","skills":[],"url":"https://a.example/rpc","protocolVersion":"0.3.0","preferredTransport":"JSONRPC"}"#;

fn key() -> PrivateKey {
    PrivateKey::generate(Algorithm::ES256).unwrap()
}

#[test]
fn signing_a_card_with_uncovered_members_needs_a_choice() {
    let key = key();
    let e = sign_card(CARD, &key, &SignOptions::default()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::UnsignedMembers);
    assert_eq!(e.pointer(), Some("/x-vendor"));
    assert!(e.message().contains("/x-vendor"), "{e}");
    // The option is named as the caller's interface spells it (the Rust request's name here).
    assert_eq!(e.option(), Some("unknown"));
    assert!(e.message().contains("with the option unknown: retain"), "{e}");
    assert!(!e.message().contains("migrate"), "not a 0.3 card: {e}");

    // A 0.3 card: the message names migrate and one of the 0.3 members.
    let e = sign_card(V03, &key, &SignOptions::default()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::UnsignedMembers);
    assert!(e.message().contains("3 member(s)"), "{e}");
    assert!(e.message().contains("migrate the card to v1.0 first"), "{e}");

    // Chosen: left out and reported, or covered as they are.
    let excluded = SignOptions {
        allow_unsigned: true,
        ..SignOptions::default()
    };
    let signed = sign_card(CARD, &key, &excluded).unwrap();
    assert_eq!(signed.canonical.unsigned, ["/x-vendor"]);
    let retained = SignOptions {
        canonicalize: CanonicalizeOptions {
            unknown: UnknownMembers::Retain,
            ..CanonicalizeOptions::default()
        },
        ..SignOptions::default()
    };
    let signed = sign_card(CARD, &key, &retained).unwrap();
    assert!(signed.canonical.unsigned.is_empty());

    // A card without such members signs as before.
    assert!(sign_card(br#"{"name":"A","skills":[]}"#, &key, &SignOptions::default()).is_ok());
}

#[test]
fn a_jku_must_be_an_https_url_with_a_host() {
    let key = key();
    let card = br#"{"name":"A","skills":[]}"#;
    for bad in [
        "http://a.example/jwks.json",
        "https://",
        "https:///jwks.json",
        "https://user@a.example/jwks.json",
        "jwks.json",
        "https://a.example/ jwks.json",
    ] {
        let opts = SignOptions {
            jku: Some(bad.into()),
            ..SignOptions::default()
        };
        let e = sign_card(card, &key, &opts).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Usage, "{bad}");
        assert!(e.message().contains("https"), "{bad}: {e}");
    }
    let opts = SignOptions {
        jku: Some("https://a.example/.well-known/jwks.json".into()),
        ..SignOptions::default()
    };
    assert!(sign_card(card, &key, &opts).is_ok());
}

#[test]
fn untrusted_key_names_the_trusted_kids_and_nothing_else() {
    let signer = key();
    let card = sign_card(br#"{"name":"A","skills":[]}"#, &signer, &SignOptions::default())
        .unwrap()
        .card;
    let mut trust = TrustStore::new();
    for kid in ["release-2026", "release-2027"] {
        trust.pin(key().public().clone().with_kid(kid), "jwks.json");
    }
    let report = verify_card(&card, &trust, &VerifyOptions::default()).unwrap();
    let v = &report.signatures[0].verdict;
    assert_eq!(v.code, "untrusted-key");
    assert!(
        v.message
            .contains(r#"the trusted kids are "release-2026", "release-2027""#),
        "{}",
        v.message
    );
    assert!(
        v.message.contains(signer.kid()),
        "the signature's kid: {}",
        v.message
    );
    // Kids only: no coordinate of any key.
    let jwk = serde_json::to_string(&trust.keys()[0].key.to_jwk()).unwrap();
    let x = serde_json::from_str::<serde_json::Value>(&jwk).unwrap()["x"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(!v.message.contains(&x));
}

#[test]
fn a_signature_over_another_profile_gets_a_hint_and_keeps_its_verdict() {
    let key = key();
    let mut trust = TrustStore::new();
    trust.pin(key.public().clone(), "pinned");
    // Signed the way a2a-sdk signs: the empty description is not in the bytes.
    let sdk_like = SignOptions {
        canonicalize: CanonicalizeOptions {
            profile: Profile::PruneEmpty,
            ..CanonicalizeOptions::default()
        },
        allow_unsigned: true,
        ..SignOptions::default()
    };
    let card = support::undeclared(CARD, &key, &sdk_like);
    let report = verify_card(&card, &trust, &VerifyOptions::default()).unwrap();
    assert!(!report.ok);
    let v = &report.signatures[0].verdict;
    assert_eq!(v.code, "signature-invalid");
    assert!(
        v.message
            .contains("it verifies over the prune-empty bytes (what a2a-sdk and @a2a-js/sdk sign)"),
        "{}",
        v.message
    );
    assert!(
        v.message.contains("accept that profile (or every profile, auto)"),
        "{}",
        v.message
    );
    // Accepting the profile accepts it.
    let auto = VerifyOptions {
        profiles: Profile::ALL.to_vec(),
        ..VerifyOptions::default()
    };
    assert!(verify_card(&card, &trust, &auto).unwrap().ok);

    // A signature that verifies under no profile gets no hint, and neither does one by a key
    // that is not trusted.
    let mut tampered: serde_json::Value = serde_json::from_slice(&card).unwrap();
    tampered["name"] = "B".into();
    let tampered = serde_json::to_vec(&tampered).unwrap();
    let report = verify_card(&tampered, &trust, &VerifyOptions::default()).unwrap();
    assert!(!report.signatures[0].verdict.message.contains("verifies over"));
    let mut stranger = TrustStore::new();
    stranger.pin(
        PrivateKey::generate(Algorithm::ES256)
            .unwrap()
            .public()
            .clone()
            .with_kid(key.kid()),
        "x",
    );
    let report = verify_card(&card, &stranger, &VerifyOptions::default()).unwrap();
    assert!(!report.signatures[0].verdict.message.contains("verifies over"));
}

#[test]
fn re_signing_with_a_kid_already_on_the_card_needs_replace_or_append() {
    use a2a_card::request::{Camel, Snake};
    let key = key();
    let other = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    let card = br#"{"name":"A","skills":[]}"#;
    let opts = |replace: bool, append: bool| SignOptions {
        kid: Some("release-2026".into()),
        replace_same_kid: replace,
        append_same_kid: append,
        ..SignOptions::default()
    };
    let once = sign_card(card, &key, &opts(false, false)).unwrap().card;
    // Another kid is added beside it, as before.
    let two = sign_card(&once, &other, &SignOptions::default()).unwrap().card;

    // The same kid again: refused, naming the kid and the entry's pointer.
    let e = sign_card(&two, &key, &opts(false, false)).unwrap_err();
    assert_eq!(e.code(), ErrorCode::KidAlreadySigned);
    assert_eq!(e.code().as_str(), "kid-already-signed");
    assert_eq!(e.pointer(), Some("/signatures/0"));
    assert_eq!(e.options(), ["replace", "append"]);
    assert_eq!(
        e.message(),
        "the card already carries a signature with kid \"release-2026\" (/signatures/0); signing \
         again would stack another signature of that kid: ask for replace to replace it, or \
         append to keep it and add the new one beside it"
    );
    assert_eq!(e.clone().spelled(&Snake).message(), e.message());
    assert!(
        e.clone().spelled(&Camel).message().ends_with(
            "ask for \"replace\" to replace it, or \"append\" to keep it and add the new one beside it"
        ),
        "{e}"
    );
    // The same kid under another key is the same kid: refused too (the kid is what verifiers
    // select by).
    let e = sign_card(&two, &other, &opts(false, false)).unwrap_err();
    assert_eq!(e.code(), ErrorCode::KidAlreadySigned);

    // Explicitly appended: both kept.
    let appended = sign_card(&two, &key, &opts(false, true)).unwrap();
    assert_eq!(appended.replaced, 0);
    let v: serde_json::Value = serde_json::from_slice(&appended.card).unwrap();
    assert_eq!(v["signatures"].as_array().unwrap().len(), 3);
    // Two of that kid now: the refusal counts them and points at the first.
    let e = sign_card(&appended.card, &key, &opts(false, false)).unwrap_err();
    assert_eq!(e.pointer(), Some("/signatures/0"));
    assert!(
        e.message().starts_with(
            "the card already carries 2 signatures with kid \"release-2026\" (the first at /signatures/0);"
        ),
        "{e}"
    );
    // Replaced: every entry of that kid goes, the other stays.
    let replaced = sign_card(&appended.card, &key, &opts(true, false)).unwrap();
    assert_eq!(replaced.replaced, 2);
    let v: serde_json::Value = serde_json::from_slice(&replaced.card).unwrap();
    assert_eq!(v["signatures"].as_array().unwrap().len(), 2);

    // Both at once is a usage error, before any card is read (SignOptions::check too).
    let both = opts(true, true);
    let e = both.check(&key).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Usage);
    assert_eq!(e.options(), ["replace", "append"]);
    assert!(
        e.message()
            .starts_with("replace and append cannot be given together"),
        "{e}"
    );
    assert_eq!(sign_card(card, &key, &both).unwrap_err(), e);
}

#[test]
fn text_from_outside_never_reads_as_an_option_in_a_message() {
    use a2a_card::request::Camel;
    // A kid that spells an option's place, and a card member that does: both are shown as they
    // are, and only the template's own places are spelled.
    let key = key();
    let kid = "{append}{{replace}}";
    let opts = SignOptions {
        kid: Some(kid.into()),
        ..SignOptions::default()
    };
    let once = sign_card(br#"{"name":"A","skills":[]}"#, &key, &opts)
        .unwrap()
        .card;
    let e = sign_card(&once, &key, &opts).unwrap_err();
    assert_eq!(e.code(), ErrorCode::KidAlreadySigned);
    assert!(
        e.message()
            .starts_with("the card already carries a signature with kid \"{append}{{replace}}\""),
        "{e}"
    );
    let camel = e.spelled(&Camel);
    assert!(camel.message().contains("kid \"{append}{{replace}}\""), "{camel}");
    assert!(
        camel
            .message()
            .ends_with("or \"append\" to keep it and add the new one beside it"),
        "{camel}"
    );

    let card = br#"{"name":"A","skills":[],"{unknown}":1}"#;
    let e = sign_card(card, &key, &SignOptions::default()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::UnsignedMembers);
    assert!(e.message().contains("/{unknown}"), "{e}");
    let camel = e.spelled(&Camel);
    assert!(camel.message().contains("/{unknown}"), "{camel}");
    assert!(camel.message().contains("with the option \"unknown\""), "{camel}");
}
