//! Hints that point at the real remedy, in the core's reports and errors (so every front end
//! shows them): a signature made with unknown members retained, a `kid` that is the thumbprint
//! of a trusted key with another kid, a member one edit away from a defined one, and an Agent
//! Card given where a key is expected. A hint never changes a verdict.

#![allow(clippy::unwrap_used, clippy::panic)] // a test reports by panicking

use a2a_card::jose::crypto::BackendVerdict;
use a2a_card::jose::keys::{parse_jwks, PrivateKey, PublicKey};
use a2a_card::lint::{lint_card, LintOptions, Rule};
use a2a_card::signature::{DeferredVerification, TextForm};
use a2a_card::{
    sign_card, verify_card, Algorithm, CanonicalizeOptions, ErrorCode, Profile, Report, SignOptions,
    TrustStore, UnknownMembers, VerifyOptions,
};
use a2a_card_testkit::data::testvectors_dir;

mod support;

fn sample() -> Vec<u8> {
    std::fs::read(testvectors_dir().join("cards/sample-8.5-unsigned.json")).unwrap()
}

fn retained() -> SignOptions {
    SignOptions {
        canonicalize: CanonicalizeOptions {
            unknown: UnknownMembers::Retain,
            ..CanonicalizeOptions::default()
        },
        ..SignOptions::default()
    }
}

fn pinned(key: &PrivateKey) -> TrustStore {
    let mut trust = TrustStore::new();
    trust.pin(key.public().clone(), "release.jwk");
    trust
}

/// The same verification made the deferred way, every check answered by the library.
fn deferred(card: &[u8], trust: &TrustStore, opts: &VerifyOptions) -> Report {
    let mut v = DeferredVerification::new(card.to_vec(), trust, opts).unwrap();
    loop {
        let mut ids = Vec::new();
        if v.pending(|id, _| ids.push(id)).unwrap() == 0 {
            break;
        }
        for id in ids {
            v.answer(id, Ok(BackendVerdict::Declined)).unwrap();
        }
    }
    v.finish().unwrap()
}

#[test]
fn a_signature_made_with_unknown_members_retained_says_to_retain_them() {
    let key = PrivateKey::generate(Algorithm::ES256).unwrap();
    let trust = pinned(&key);
    // The 8.5 sample has two members A2A v1.0 does not define; its retained spec bytes are
    // also its served-as-is bytes (it has no default-valued member).
    // Signed as another signer signs: nothing in it says the unknown members are retained.
    let card = support::undeclared(&sample(), &key, &retained());
    let opts = VerifyOptions::default();
    let report = verify_card(&card, &trust, &opts).unwrap();
    assert!(!report.ok);
    let v = &report.signatures[0].verdict;
    assert_eq!(v.code, "signature-invalid");
    assert!(
        v.message.contains(
            "it verifies over the spec bytes with the members A2A v1.0 does not define retained: \
             set unknown to retain to accept it"
        ),
        "{}",
        v.message
    );
    assert!(
        v.message.contains("these are the served-as-is bytes too"),
        "{}",
        v.message
    );
    assert_eq!(deferred(&card, &trust, &opts).to_json(), report.to_json());
    // The remedy works, and the verdict is as before without the hint: retained, it verifies.
    let retain = VerifyOptions {
        unknown: UnknownMembers::Retain,
        ..VerifyOptions::default()
    };
    assert!(verify_card(&card, &trust, &retain).unwrap().ok);
}

#[test]
fn the_retain_hint_is_found_where_no_other_profile_has_those_bytes() {
    let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    let trust = pinned(&key);
    // An implicit member at its default (left out by spec, kept by served-as-is) and an unknown
    // member: the retained spec bytes are no other profile's bytes.
    let card = br#"{"name":"A","description":"d","version":"1","capabilities":{},"securitySchemes":{},
      "defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[],"x-vendor":1}"#;
    let card = support::undeclared(card, &key, &retained());
    let opts = VerifyOptions::default();
    let report = verify_card(&card, &trust, &opts).unwrap();
    let v = &report.signatures[0].verdict;
    assert_eq!(v.code, "signature-invalid");
    assert!(
        v.message.contains("set unknown to retain to accept it"),
        "{}",
        v.message
    );
    assert!(!v.message.contains("bytes too"), "{}", v.message);
    assert_eq!(deferred(&card, &trust, &opts).to_json(), report.to_json());
    // Every profile accepted: the retain hint still names the remedy.
    let auto = VerifyOptions {
        profiles: Profile::ALL.to_vec(),
        ..VerifyOptions::default()
    };
    let report = verify_card(&card, &trust, &auto).unwrap();
    assert!(!report.ok);
    assert!(
        report.signatures[0]
            .verdict
            .message
            .contains("set unknown to retain"),
        "{}",
        report.signatures[0].verdict.message
    );
    // With unknown members retained already there is nothing to hint; with a budget of one
    // check, the hint's checks are not made.
    let retain = VerifyOptions {
        unknown: UnknownMembers::Retain,
        ..VerifyOptions::default()
    };
    assert!(verify_card(&card, &trust, &retain).unwrap().ok);
    let tight = VerifyOptions {
        max_signature_checks: 1,
        ..VerifyOptions::default()
    };
    let report = verify_card(&card, &trust, &tight).unwrap();
    assert!(!report.signatures[0].verdict.message.contains("retain"));
    assert_eq!(deferred(&card, &trust, &tight).to_json(), report.to_json());
}

#[test]
fn a_kid_that_is_the_thumbprint_of_a_trusted_key_says_which() {
    let key = PrivateKey::generate(Algorithm::ES256).unwrap();
    let thumbprint = key.public().thumbprint();
    let trusted = key.public().clone().with_kid("release-2026");
    let mut trust = TrustStore::new();
    trust.pin(trusted, "jwks.json");
    let opts = SignOptions {
        kid: Some(thumbprint.clone()),
        ..SignOptions::default()
    };
    let card = sign_card(
        &sample(),
        &key,
        &SignOptions {
            allow_unsigned: true,
            ..opts
        },
    )
    .unwrap()
    .card;
    let report = verify_card(&card, &trust, &VerifyOptions::default()).unwrap();
    // Selection is unchanged: the kid names no trusted key.
    assert!(!report.ok);
    let v = &report.signatures[0].verdict;
    assert_eq!(v.code, "untrusted-key");
    assert!(
        v.message.contains(&format!(
            "kid \"{thumbprint}\" is the thumbprint (RFC 7638) of trusted key \"release-2026\" (jwks.json)"
        )),
        "{}",
        v.message
    );
    // A kid that is no trusted key's thumbprint still lists the trusted kids.
    let other = PrivateKey::generate(Algorithm::ES256).unwrap();
    let opts = SignOptions {
        kid: Some(other.public().thumbprint()),
        allow_unsigned: true,
        ..SignOptions::default()
    };
    let card = sign_card(&sample(), &key, &opts).unwrap().card;
    let report = verify_card(&card, &trust, &VerifyOptions::default()).unwrap();
    let message = &report.signatures[0].verdict.message;
    assert!(
        message.contains("the trusted kids are \"release-2026\""),
        "{message}"
    );
    assert!(!message.contains("thumbprint"), "{message}");
}

const TYPOS: &[u8] = br#"{"name":"A","description":"d","version":"1","documentationURL":"https://a.example/doc",
  "capabilities":{"streming":true},"capabilites":{},"supportedInterfaces":[{"url":"https://a.example/a2a",
  "protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"defaultInputModes":["text/plain"],
  "defaultOutputModes":["text/plain"],"skills":[{"id":"s","name":"S","description":"d","tag":["t"]}],"x-vendor":1}"#;

const NEAR: [(&str, &str); 4] = [
    ("/documentationURL", "documentationUrl"),
    ("/capabilities/streming", "streaming"),
    ("/capabilites", "capabilities"),
    ("/skills/0/tag", "tags"),
];

#[test]
fn a_member_one_edit_away_gets_did_you_mean_in_lint() {
    let report = lint_card(TYPOS, &LintOptions::default()).unwrap();
    for (pointer, member) in NEAR {
        let f = report
            .findings
            .iter()
            .find(|f| f.pointer == pointer && f.rule == Rule::UnknownMember)
            .unwrap_or_else(|| panic!("no unknown-member finding at {pointer}: {:?}", report.findings));
        assert!(
            f.message.ends_with(&format!("; did you mean \"{member}\"?")),
            "{}",
            f.message
        );
    }
    let vendor = report.findings.iter().find(|f| f.pointer == "/x-vendor").unwrap();
    assert!(!vendor.message.contains("did you mean"), "{}", vendor.message);
}

#[test]
fn a_member_one_edit_away_gets_did_you_mean_in_sign_and_verify() {
    let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    // Refused by default: the refusal says what was meant.
    let e = sign_card(TYPOS, &key, &SignOptions::default()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::UnsignedMembers);
    for (pointer, member) in NEAR {
        assert!(
            e.message().contains(&format!(
                "{pointer} is not a member A2A v1.0 defines; did you mean \"{member}\"?"
            )),
            "{}",
            e.message()
        );
    }
    let signed = sign_card(
        TYPOS,
        &key,
        &SignOptions {
            allow_unsigned: true,
            ..SignOptions::default()
        },
    )
    .unwrap();
    let expected: Vec<serde_json::Value> = NEAR
        .iter()
        .map(|(p, m)| serde_json::json!({"pointer": p, "member": m}))
        .collect();
    // Document order of the card's unsigned members.
    let mut by_order = expected.clone();
    by_order.sort_by_key(|v| {
        let p = v["pointer"].as_str().unwrap().to_string();
        signed.canonical.unsigned.iter().position(|u| *u == p).unwrap()
    });
    assert_eq!(
        signed.to_json()["did_you_mean"],
        serde_json::Value::from(by_order.clone())
    );
    let report = verify_card(&signed.card, &pinned(&key), &VerifyOptions::default()).unwrap();
    assert!(report.ok);
    assert_eq!(
        report.to_json()["did_you_mean"],
        serde_json::Value::from(by_order.clone())
    );
    assert_eq!(
        serde_json::to_value(&report).unwrap()["did_you_mean"],
        serde_json::Value::from(by_order)
    );
    assert_eq!(
        report.to_json_pretty(),
        serde_json::to_vec_pretty(&report.to_json()).unwrap()
    );
    let text = report.to_text(&TextForm::default());
    assert!(
        text.contains(
            "note: /documentationURL is not a member A2A v1.0 defines; did you mean \"documentationUrl\"?\n"
        ),
        "{text}"
    );
    // A card without such a member has no `did_you_mean` member at all.
    let clean = sign_card(&sample(), &key, &retained()).unwrap();
    assert!(clean.to_json().get("did_you_mean").is_none());
    let report = verify_card(&clean.card, &pinned(&key), &VerifyOptions::default()).unwrap();
    assert!(report.to_json().get("did_you_mean").is_none());
    assert!(serde_json::to_value(&report)
        .unwrap()
        .get("did_you_mean")
        .is_none());
}

#[test]
fn a_card_given_as_a_key_says_it_looks_like_a_card_and_repeats_none_of_it() {
    let card = String::from_utf8(sample()).unwrap();
    let v03 = r#"{"name":"Secret Name 4711","url":"https://secret.example","version":"1","protocolVersion":"0.3.0"}"#;
    for text in [card.as_str(), v03] {
        let results: Vec<(&str, a2a_card::Error)> = vec![
            ("parse_jwks", parse_jwks(text).unwrap_err()),
            ("PublicKey::parse", PublicKey::parse(text).unwrap_err()),
            ("PrivateKey::parse", PrivateKey::parse(text).unwrap_err()),
            (
                "PrivateKey::from_jwk_str",
                PrivateKey::from_jwk_str(text).unwrap_err(),
            ),
            (
                "TrustStore::from_json",
                TrustStore::from_json(text, "trust.json").unwrap_err(),
            ),
        ];
        for (reader, e) in results {
            let want = if reader == "TrustStore::from_json" {
                ErrorCode::InvalidTrustStore
            } else {
                ErrorCode::InvalidKey
            };
            assert_eq!(e.code(), want, "{reader}: {}", e.message());
            assert!(
                e.message().contains("this looks like an Agent Card"),
                "{reader}: {}",
                e.message()
            );
            for shown in [
                "GeoSpatial",
                "Secret Name",
                "secret.example",
                "georoute",
                "\"name\"",
                "\"url\"",
            ] {
                assert!(
                    !e.message().contains(shown),
                    "{reader} repeats {shown}: {}",
                    e.message()
                );
            }
        }
    }
    // A JWK with a name-like member is still read as a JWK (and refused as one, not as a card).
    let jwk = r#"{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","name":"a","skills":[]}"#;
    let e = PublicKey::parse(jwk).unwrap_err();
    assert!(!e.message().contains("Agent Card"), "{}", e.message());
}

#[test]
fn an_empty_value_a_pruning_profile_leaves_out_is_not_sent_to_retain() {
    // Retaining covers the unknown member, never the empty one the profile prunes: the refusal
    // says which is which, so the remedy it names is one that works.
    let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    let card = br#"{"name":"A","description":"d","version":"1","capabilities":{},
        "defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[],"x-vendor":1}"#;
    let pruning = |unknown| SignOptions {
        canonicalize: CanonicalizeOptions {
            profile: Profile::PruneEmpty,
            unknown,
            ..CanonicalizeOptions::default()
        },
        ..SignOptions::default()
    };
    let e = sign_card(card, &key, &pruning(UnknownMembers::Exclude)).unwrap_err();
    assert_eq!(e.code(), ErrorCode::UnsignedMembers);
    assert!(
        e.message().ends_with(
            "; the prune-empty profile leaves /capabilities out whatever the choice (it signs no \
             empty value): to sign, remove them from the card or exclude them"
        ),
        "{}",
        e.message()
    );
    // Under spec nothing is pruned: no such note.
    let e = sign_card(card, &key, &SignOptions::default()).unwrap_err();
    assert!(!e.message().contains("whatever the choice"), "{}", e.message());
    // Retained, the card is signed with only the pruned member uncovered.
    let signed = sign_card(
        card,
        &key,
        &SignOptions {
            allow_unsigned: true,
            ..pruning(UnknownMembers::Retain)
        },
    )
    .unwrap();
    assert_eq!(signed.canonical.unsigned, ["/capabilities"]);
}
