//! The `a2a-sdk-0.3` and `a2a-sdk-0.3.21` profiles, rule by rule: the 0.3 model's defaults,
//! nulls, required members and unknown members, `_clean_empty` of each release, `json.dumps`
//! key order, escapes and numbers, the union of security schemes, and the refusals, each with its
//! code, pointer and message. The bytes of whole cards are checked against a2a-sdk 0.3.26 and
//! 0.3.21 themselves by the vectors (`testvectors/canonical/sdk03*.json`, `tests/vectors.rs`).
//! Signing and verifying use real keys.

#![allow(clippy::unwrap_used, clippy::panic)] // tests stop at the first surprise
mod support;

use a2a_card::canonical::accepted_profiles;
use a2a_card::jose::keys::PrivateKey;
use a2a_card::signature::trust::TrustStore;
use a2a_card::{
    canonicalize, sign_card, verify_card, Algorithm, Canonical, CanonicalizeOptions, Error, Profile,
    SignOptions, UnknownMembers, VerifyOptions,
};

/// A minimal 0.3 card with `extra` members added at its end.
fn card(extra: &str) -> String {
    format!(
        r#"{{"name":"N","description":"d","url":"https://a.example/a2a","version":"1","capabilities":{{}},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[{{"id":"s","name":"S","description":"d","tags":["t"]}}]{extra}}}"#
    )
}

/// The bytes of `card("")`, without `/capabilities` (empty, pruned).
const BASE: &str = r#""defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"description":"d","name":"N","skills":[{"description":"d","id":"s","name":"S","tags":["t"]}],"url":"https://a.example/a2a","version":"1""#;

fn canon_with(input: &str, profile: Profile, unknown: UnknownMembers) -> Result<Canonical, Error> {
    canonicalize(
        input.as_bytes(),
        &CanonicalizeOptions {
            profile,
            unknown,
            ..Default::default()
        },
    )
}

fn canon(input: &str, profile: Profile) -> Canonical {
    canon_with(input, profile, UnknownMembers::Exclude).unwrap_or_else(|e| panic!("{input}: {e}"))
}

fn text(c: &Canonical) -> String {
    String::from_utf8(c.bytes.clone()).unwrap()
}

fn refused(input: &str, profile: Profile) -> (String, String, String) {
    let e = canon_with(input, profile, UnknownMembers::Exclude).expect_err(input);
    (
        e.code().as_str().to_string(),
        e.pointer().unwrap_or("-").to_string(),
        e.message().to_string(),
    )
}

#[test]
fn the_names_are_profiles_and_auto_tries_them_last() {
    assert_eq!("a2a-sdk-0.3".parse::<Profile>().unwrap(), Profile::A2aSdk03);
    assert_eq!("a2a-sdk-0.3.21".parse::<Profile>().unwrap(), Profile::A2aSdk0321);
    let auto = accepted_profiles(&["auto"]).unwrap();
    assert_eq!(&auto[3..], [Profile::A2aSdk03, Profile::A2aSdk0321]);
    let e = accepted_profiles(&["a2a-sdk-0.2"]).unwrap_err();
    assert!(
        e.message().contains("a2a-sdk-0.3, a2a-sdk-0.3.21, auto"),
        "{}",
        e.message()
    );
}

#[test]
fn members_at_their_model_default_leave_the_bytes_and_others_stay() {
    let at_default = canon(
        &card(r#","protocolVersion":"0.3.0","preferredTransport":"JSONRPC""#),
        Profile::A2aSdk03,
    );
    assert_eq!(text(&at_default), format!("{{{BASE}}}"));
    // Not reported: the 0.3 model cannot tell them from absent.
    assert_eq!(at_default.unsigned, ["/capabilities"]);
    let other = canon(
        &card(r#","protocolVersion":"0.2.5","preferredTransport":"GRPC""#),
        Profile::A2aSdk03,
    );
    assert!(text(&other).contains(r#""preferredTransport":"GRPC","protocolVersion":"0.2.5""#));
    // A default is a value, not a spelling of absence: the empty string is no default.
    let empty = canon(&card(r#","protocolVersion":"""#), Profile::A2aSdk03);
    assert_eq!(empty.unsigned, ["/capabilities", "/protocolVersion"]);
}

#[test]
fn a_scheme_is_read_as_the_union_member_its_type_names_and_its_type_never_signed() {
    let c = canon(
        &card(
            r#","securitySchemes":{"k":{"type":"apiKey","in_":"header","name":"X","scheme":"bearer"},"m":{"type":"mutualTLS"},"t":{"type":"mutualTLS","description":"mTLS"}}"#,
        ),
        Profile::A2aSdk03,
    );
    // `in_` (the field name) is written as its alias; `scheme` is no member of an API key
    // scheme (ignored by the model); a mutualTLS scheme with nothing but its type is empty.
    assert!(
        text(&c).contains(r#""securitySchemes":{"k":{"in":"header","name":"X"},"t":{"description":"mTLS"}}"#),
        "{}",
        text(&c)
    );
    assert_eq!(
        c.unsigned,
        ["/capabilities", "/securitySchemes/k/scheme", "/securitySchemes/m"]
    );
}

#[test]
fn nulls_are_absent_and_a_required_member_cannot_be_null_or_missing() {
    let c = canon(
        &card(r#","documentationUrl":null,"provider":null"#),
        Profile::A2aSdk03,
    );
    assert_eq!(text(&c), format!("{{{BASE}}}"));
    let (code, at, message) = refused(
        &card("").replace(r#""url":"https://a.example/a2a","#, ""),
        Profile::A2aSdk03,
    );
    assert_eq!((code.as_str(), at.as_str()), ("malformed-card", ""));
    assert_eq!(
        message,
        "AgentCard.url is missing: the a2a-sdk 0.3 model requires it, so a2a-sdk 0.3 signs no such card"
    );
    let (code, at, message) = refused(
        &card("").replace(r#""id":"s","#, r#""id":null,"#),
        Profile::A2aSdk03,
    );
    assert_eq!((code.as_str(), at.as_str()), ("malformed-card", "/skills/0/id"));
    assert!(message.starts_with("AgentSkill.id is null"), "{message}");
    let (code, at, _) = refused(
        &card(r#","provider":{"url":"https://p.example"}"#),
        Profile::A2aSdk0321,
    );
    assert_eq!((code.as_str(), at.as_str()), ("malformed-card", "/provider"));
}

#[test]
fn members_the_model_does_not_define_are_never_covered_and_reject_refuses_them() {
    let input = card(r#","supportedInterfaces":[{"url":"u"}]"#);
    for unknown in [UnknownMembers::Exclude, UnknownMembers::Retain] {
        let c = canon_with(&input, Profile::A2aSdk03, unknown).unwrap();
        assert_eq!(text(&c), format!("{{{BASE}}}"), "{unknown}");
        assert_eq!(c.unsigned, ["/capabilities", "/supportedInterfaces"], "{unknown}");
    }
    let e = canon_with(&input, Profile::A2aSdk03, UnknownMembers::Reject).unwrap_err();
    assert_eq!(
        (e.code().as_str(), e.pointer(), e.message()),
        (
            "unknown-member",
            Some("/supportedInterfaces"),
            r#"AgentCard has no member "supportedInterfaces" in the a2a-sdk 0.3 model (unknown members are refused)"#
        )
    );
    // A member given under its alias and its field name is refused, as under spec.
    let (code, at, _) = refused(&card(r#","default_input_modes":["a"]"#), Profile::A2aSdk03);
    assert_eq!(
        (code.as_str(), at.as_str()),
        ("dual-name", "/default_input_modes")
    );
}

#[test]
fn clean_empty_of_each_release() {
    let input = card(
        r#","supportsAuthenticatedExtendedCard":false,"capabilities":{"streaming":false,"extensions":[{"uri":"u","params":{"a":0,"b":0.0,"c":"","d":[[]],"e":{"f":null},"g":[false,1]}}]}"#,
    )
    .replace(r#""capabilities":{},"#, "");
    let late = canon(&input, Profile::A2aSdk03);
    assert!(
        text(&late).starts_with(
            r#"{"capabilities":{"extensions":[{"params":{"a":0,"b":0.0,"g":[false,1]},"uri":"u"}],"streaming":false},"#
        ),
        "{}",
        text(&late)
    );
    assert!(text(&late).contains(r#""supportsAuthenticatedExtendedCard":false"#));
    let early = canon(&input, Profile::A2aSdk0321);
    assert!(
        text(&early).starts_with(r#"{"capabilities":{"extensions":[{"params":{"g":[1]},"uri":"u"}]},"#),
        "{}",
        text(&early)
    );
    assert!(!text(&early).contains("supportsAuthenticatedExtendedCard"));
    for p in [
        "/capabilities/streaming",
        "/capabilities/extensions/0/params/a",
        "/capabilities/extensions/0/params/g/0",
        "/supportsAuthenticatedExtendedCard",
    ] {
        assert!(
            early.unsigned.iter().any(|u| u == p),
            "{p} in {:?}",
            early.unsigned
        );
        assert!(
            !late.unsigned.iter().any(|u| u == p),
            "{p} in {:?}",
            late.unsigned
        );
    }
    // A requirement whose scope list is empty goes with its list, and the list with it.
    let security = canon(
        &card(r#","security":[{"b":[]},{"o":["r",""]}]"#),
        Profile::A2aSdk03,
    );
    assert!(
        text(&security).contains(r#""security":[{"o":["r"]}]"#),
        "{}",
        text(&security)
    );
    // A card left with nothing: `_clean_empty` of 0.3.24 returns None, json.dumps writes null;
    // 0.3.21 keeps the empty object.
    let nothing = r#"{"name":"","description":"","url":"","version":"","capabilities":{},"defaultInputModes":[],"defaultOutputModes":[],"skills":[]}"#;
    assert_eq!(canon(nothing, Profile::A2aSdk03).bytes, b"null");
    assert_eq!(canon(nothing, Profile::A2aSdk0321).bytes, b"{}");
}

#[test]
fn keys_in_code_point_order_and_text_escaped_as_ensure_ascii() {
    let input =
        card(r#","capabilities":{"extensions":[{"uri":"u","params":{"😀":1,"ﬁ":2,"é":"\u0001\u007f\"/"}}]}"#)
            .replace(r#""capabilities":{},"#, "")
            .replace(r#""name":"N""#, r#""name":"Café 😀""#);
    let c = canon(&input, Profile::A2aSdk03);
    assert!(
        text(&c).starts_with(
            r#"{"capabilities":{"extensions":[{"params":{"\u00e9":"\u0001\u007f\"/","\ufb01":2,"\ud83d\ude00":1},"uri":"u"}]},"#
        ),
        "{}",
        text(&c)
    );
    assert!(text(&c).contains(r#""name":"Caf\u00e9 \ud83d\ude00""#));
    // RFC 8785 orders the same keys by UTF-16 code units: the astral one before U+FB01.
    let spec = canon(&input, Profile::ServedAsIs);
    let s = text(&spec);
    assert!(s.find("😀").unwrap() < s.find('ﬁ').unwrap(), "{s}");
}

#[test]
fn numbers_as_python_spells_what_it_read() {
    let input = card(
        r#","capabilities":{"extensions":[{"uri":"u","params":{"a":1,"b":1.0,"c":1e2,"d":1E-5,"e":1e16,"f":-0,"g":-0.0,"h":0.1}}]}"#,
    )
    .replace(r#""capabilities":{},"#, "");
    let c = canon(&input, Profile::A2aSdk03);
    assert!(
        text(&c).contains(r#""params":{"a":1,"b":1.0,"c":100.0,"d":1e-05,"e":1e+16,"f":0,"g":-0.0,"h":0.1}"#),
        "{}",
        text(&c)
    );
}

#[test]
fn refusals_of_shapes_the_model_refuses() {
    let cases = [
        (
            r#","securitySchemes":{"b":{"scheme":"bearer"}}"#,
            "malformed-card",
            "/securitySchemes/b",
            "the security scheme has no type",
        ),
        (
            r#","securitySchemes":{"b":{"type":"bearer"}}"#,
            "malformed-card",
            "/securitySchemes/b/type",
            r#"security scheme type "bearer" is not one of "apiKey", "http", "oauth2", "openIdConnect", "mutualTLS""#,
        ),
        (
            r#","securitySchemes":{"b":{"type":7}}"#,
            "type-mismatch",
            "/securitySchemes/b/type",
            "a security scheme's type must be a string, found number",
        ),
        (
            r#","securitySchemes":{"b":[]}"#,
            "type-mismatch",
            "/securitySchemes/b",
            "AgentCard.securitySchemes must be a map of objects, found array",
        ),
        (
            r#","security":[["b"]]"#,
            "type-mismatch",
            "/security/0",
            "AgentCard.security must be an array of objects of string arrays, found array",
        ),
        (
            r#","security":[{"b":"read"}]"#,
            "type-mismatch",
            "/security/0/b",
            "AgentCard.security must be an array of objects of string arrays, found string",
        ),
        (
            r#","security":[{"b":[1]}]"#,
            "type-mismatch",
            "/security/0/b/0",
            "AgentCard.security must be an array of objects of string arrays, found number",
        ),
        (
            r#","preferredTransport":1"#,
            "type-mismatch",
            "/preferredTransport",
            "AgentCard.preferredTransport must be a string, found number",
        ),
    ];
    for (extra, code, pointer, message) in cases {
        let (c, at, m) = refused(&card(extra), Profile::A2aSdk03);
        assert_eq!((c.as_str(), at.as_str()), (code, pointer), "{extra}: {m}");
        assert!(m.starts_with(message), "{extra}: {m}");
    }
}

#[test]
fn a_signature_over_the_0_3_bytes_verifies_under_its_profile_and_says_what_it_covers() {
    // protocolVersion at its default: the served-as-is bytes (which auto tries first) differ.
    let input =
        card(r#","capabilities":{"streaming":true,"stateTransitionHistory":true},"protocolVersion":"0.3.0""#)
            .replace(r#""capabilities":{},"#, "");
    let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    let signed = sign_card(
        input.as_bytes(),
        &key,
        &SignOptions {
            canonicalize: CanonicalizeOptions {
                profile: Profile::A2aSdk03,
                ..Default::default()
            },
            ..Default::default()
        },
    )
    .unwrap();
    let mut trust = TrustStore::new();
    trust.pin(key.public().clone(), "pinned");
    let verify = |profiles: Vec<Profile>| {
        verify_card(
            &signed.card,
            &trust,
            &VerifyOptions {
                profiles,
                ..Default::default()
            },
        )
        .unwrap()
    };
    for profiles in [vec![Profile::A2aSdk03], accepted_profiles(&["auto"]).unwrap()] {
        let r = verify(profiles);
        assert!(r.ok);
        assert_eq!(r.profile, Profile::A2aSdk03);
        assert_eq!(
            r.reason,
            "1 of 1 signatures verify with a trusted key; the signed bytes are an A2A 0.3 card as the a2a-sdk 0.3 \
             model reads it (covered, with no A2A v1.0 meaning: /capabilities/stateTransitionHistory)"
        );
    }
    // Under spec alone it is not accepted, and the verdict names the profile it declares.
    let r = verify(vec![Profile::Spec]);
    assert!(!r.ok);
    let v = &r.signatures[0].verdict;
    assert_eq!(v.code, "profile-not-accepted");
    assert!(
        v.message
            .contains("made over the a2a-sdk-0.3 bytes (what a2a-sdk 0.3.24 to 0.3.26 sign)"),
        "{}",
        v.message
    );
    // The same card under the 0.3.21 profile: the bytes agree (no false or zero here).
    assert!(verify(vec![Profile::A2aSdk0321]).ok);
}

#[test]
fn a_v1_card_under_auto_is_judged_by_the_profiles_that_read_it() {
    // A v1.0 card (no url, which the 0.3 model requires) signed the spec way, then changed:
    // under auto its verdict is signature-invalid over the profiles that could read it, not
    // the 0.3 profiles' refusal of the card.
    let input = r#"{"name":"A","description":"d","version":"1","supportedInterfaces":[{"url":"https://a.example","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}"#;
    let key = PrivateKey::generate(Algorithm::ES256).unwrap();
    // Signed as another signer signs (no declared profile), so every accepted profile is tried.
    let signed = support::undeclared(input.as_bytes(), &key, &SignOptions::default());
    let tampered = String::from_utf8(signed).unwrap().replace("\"d\"", "\"e\"");
    let mut trust = TrustStore::new();
    trust.pin(key.public().clone(), "pinned");
    let opts = VerifyOptions {
        profiles: accepted_profiles(&["auto"]).unwrap(),
        ..Default::default()
    };
    let report = verify_card(tampered.as_bytes(), &trust, &opts).unwrap();
    let verdict = &report.signatures[0].verdict;
    assert_eq!(verdict.code, "signature-invalid", "{}", verdict.message);
    assert!(
        verdict
            .message
            .contains("(checked over the canonical bytes of: spec, served-as-is, prune-empty)"),
        "{}",
        verdict.message
    );
    // Under a 0.3 profile alone no accepted profile reads the card: it is refused as input.
    let only = VerifyOptions {
        profiles: vec![Profile::A2aSdk03],
        ..Default::default()
    };
    let e = verify_card(tampered.as_bytes(), &trust, &only).unwrap_err();
    assert_eq!(e.code().as_str(), "malformed-card");
}
