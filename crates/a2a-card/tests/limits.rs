//! Resource limits: what an attacker who writes the card can make the verifier do is bounded,
//! and each bound is refused with its own error code at a named place.
//!
//! - input size: `input-too-large`, pointer `""`, checked before a byte is read;
//! - nesting depth: `nesting-too-deep`, pointer of the first container past the limit, no
//!   recursion beyond the limit however deep the input goes;
//! - number of signatures: `too-many-signatures`, pointer `/signatures`, before any entry is
//!   looked at;
//! - header size: `header-too-large`, as the verdict of the entry concerned (protected header
//!   decoded size, protected text length before decoding, unprotected header size);
//! - objects with many members: the duplicate-name check stays exact past the point where it
//!   switches from a linear scan to a hash set, and a 100,000-member object reads, canonicalizes
//!   and verifies (behaviour only; the time is measured by `benches/hostile.rs`, not here).
//!
//! Each test sits exactly at the bound and one past it, so moving a bound or removing a check
//! fails a test.

#![allow(clippy::unwrap_used, clippy::panic)]

mod support;

use a2a_card::canonical::parse_json;
use a2a_card::jose::crypto as alg;
use a2a_card::jose::keys::PrivateKey;
use a2a_card::signature::trust::TrustStore;
use a2a_card::signature::Report;
use a2a_card::Algorithm;
use a2a_card::Limits;
use a2a_card::{
    canonicalize, sign_card, verify_card, CanonicalizeOptions, ErrorCode, SignOptions, UnknownMembers,
    VerifyOptions,
};
use a2a_card_testkit::cards::{self, entry, with_signatures};
use a2a_card_testkit::data::b64url;
use serde_json::{json, Value};
use support::lenient;

const CARD: &str = r#"{"name":"Limits","description":"A card for the limit tests","version":"1.0.0",
"capabilities":{"streaming":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],
"skills":[{"id":"s","name":"S","description":"d","tags":["t"]}]}"#;

fn key() -> PrivateKey {
    PrivateKey::generate(Algorithm::EdDSA).unwrap()
}

fn trust_of(key: &PrivateKey) -> TrustStore {
    let mut t = TrustStore::new();
    t.pin(key.public().clone(), "pinned");
    t
}

/// [`CARD`] signed by a fresh key (default options), and a trust store that pins that key.
fn signed_and_trusted() -> (Vec<u8>, TrustStore) {
    let k = key();
    let signed = sign_card(CARD.as_bytes(), &k, &SignOptions::default())
        .unwrap()
        .card;
    (signed, trust_of(&k))
}

/// `card` with `member` (JSON text) added as its last member.
fn with_member(card: &str, name: &str, value: &str) -> String {
    let body = card.trim_end().strip_suffix('}').unwrap();
    format!("{body},\"{name}\":{value}}}")
}

/// `card` with its `signatures` replaced by `entries`.
fn with_entries(card: &[u8], entries: Vec<Value>) -> Vec<u8> {
    with_signatures(&serde_json::from_slice(card).unwrap(), entries)
}

/// A genuine EdDSA signature entry over `card`'s `spec` canonical bytes with the given
/// protected header JSON text.
fn signed_entry(card: &[u8], key: &PrivateKey, protected_json: &str, header: Option<Value>) -> Value {
    let canonical = canonicalize(card, &CanonicalizeOptions::default()).unwrap();
    cards::signed_entry(&canonical.bytes, protected_json, header, |input| {
        alg::sign(Algorithm::EdDSA, key, input).unwrap()
    })
}

/// A protected header for `key` padded with a `pad` parameter to exactly `size` bytes.
fn protected_of_size(key: &PrivateKey, size: usize) -> String {
    let bare = format!(r#"{{"alg":"EdDSA","kid":"{}","typ":"JOSE","pad":""}}"#, key.kid());
    assert!(bare.len() <= size);
    let text = format!(
        r#"{{"alg":"EdDSA","kid":"{}","typ":"JOSE","pad":"{}"}}"#,
        key.kid(),
        "p".repeat(size - bare.len())
    );
    assert_eq!(text.len(), size);
    text
}

/// An unprotected header whose RFC 8785 serialization is exactly `size` bytes.
fn unprotected_of_size(size: usize) -> Value {
    let bare = r#"{"x-pad":""}"#.len();
    json!({ "x-pad": "u".repeat(size - bare) })
}

fn verdicts(r: &Report) -> Vec<&str> {
    r.signatures.iter().map(|s| s.verdict.code.as_str()).collect()
}

fn code_and_pointer(e: &a2a_card::Error) -> (ErrorCode, Option<&str>) {
    (e.code(), e.pointer())
}

// ---------------------------------------------------------------------------------------------
// Input size
// ---------------------------------------------------------------------------------------------

#[test]
fn input_size_is_refused_at_the_limit_plus_one_before_reading() {
    let key = key();
    let signed = sign_card(CARD.as_bytes(), &key, &lenient()).unwrap().card;
    let trust = trust_of(&key);
    let n = signed.len();
    let limits = |max| Limits {
        max_input_bytes: max,
        ..Limits::default()
    };

    // Exactly at the limit: read, verified.
    let at = VerifyOptions {
        limits: limits(n),
        ..Default::default()
    };
    assert!(verify_card(&signed, &trust, &at).unwrap().ok);
    // One byte over: refused for the whole document, every entry point.
    let over = VerifyOptions {
        limits: limits(n - 1),
        ..Default::default()
    };
    let e = verify_card(&signed, &trust, &over).unwrap_err();
    assert_eq!(code_and_pointer(&e), (ErrorCode::InputTooLarge, Some("")));
    let copts = CanonicalizeOptions {
        limits: limits(n - 1),
        ..Default::default()
    };
    let e = canonicalize(&signed, &copts).unwrap_err();
    assert_eq!(code_and_pointer(&e), (ErrorCode::InputTooLarge, Some("")));
    let sopts = SignOptions {
        canonicalize: copts,
        allow_unsigned: true,
        ..Default::default()
    };
    let e = sign_card(&signed, &key, &sopts).unwrap_err();
    assert_eq!(code_and_pointer(&e), (ErrorCode::InputTooLarge, Some("")));

    // The default limit is 8 MiB. One byte more of something that is not JSON at all is
    // refused as too large, not as bad JSON: the size is checked before a byte is read.
    assert_eq!(Limits::default().max_input_bytes, 8 * 1024 * 1024);
    let huge = vec![b'['; 8 * 1024 * 1024 + 1];
    let e = verify_card(&huge, &trust, &VerifyOptions::default()).unwrap_err();
    assert_eq!(code_and_pointer(&e), (ErrorCode::InputTooLarge, Some("")));
    // Exactly 8 MiB of the same is read, and fails for what it is.
    let e = verify_card(&huge[1..], &trust, &VerifyOptions::default()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::NestingTooDeep);
}

// ---------------------------------------------------------------------------------------------
// Nesting depth
// ---------------------------------------------------------------------------------------------

/// `depth` nested arrays around `1`.
fn nested(depth: usize) -> String {
    format!("{}1{}", "[".repeat(depth), "]".repeat(depth))
}

#[test]
fn nesting_depth_is_refused_past_the_limit_with_the_pointer_of_the_first_container_too_deep() {
    let key = key();
    let trust = trust_of(&key);
    assert_eq!(Limits::default().max_depth, 128);
    // The card object is level 1, so 127 arrays under one member reach level 128.
    let at = with_member(CARD, "x-deep", &nested(127));
    let signed = sign_card(at.as_bytes(), &key, &lenient()).unwrap();
    let r = verify_card(&signed.card, &trust, &VerifyOptions::default()).unwrap();
    assert!(r.ok);
    assert_eq!(r.unsigned, ["/x-deep"]);

    // One more: the 129th container is element 0 of the 128th, which is element 0 of ...
    // of the member x-deep (the second container).
    let over = with_member(CARD, "x-deep", &nested(128));
    let want = format!("/x-deep{}", "/0".repeat(127));
    let e = verify_card(over.as_bytes(), &trust, &VerifyOptions::default()).unwrap_err();
    assert_eq!(
        code_and_pointer(&e),
        (ErrorCode::NestingTooDeep, Some(want.as_str()))
    );
    let e = canonicalize(over.as_bytes(), &CanonicalizeOptions::default()).unwrap_err();
    assert_eq!(
        code_and_pointer(&e),
        (ErrorCode::NestingTooDeep, Some(want.as_str()))
    );
    let e = sign_card(over.as_bytes(), &key, &lenient()).unwrap_err();
    assert_eq!(
        code_and_pointer(&e),
        (ErrorCode::NestingTooDeep, Some(want.as_str()))
    );

    // Objects count the same as arrays.
    let objects = format!("{}1{}", r#"{"a":"#.repeat(128), "}".repeat(128));
    let e = verify_card(
        with_member(CARD, "x-deep", &objects).as_bytes(),
        &trust,
        &VerifyOptions::default(),
    )
    .unwrap_err();
    let want = format!("/x-deep{}", "/a".repeat(127));
    assert_eq!(
        code_and_pointer(&e),
        (ErrorCode::NestingTooDeep, Some(want.as_str()))
    );

    // A caller's own limit applies the same way.
    let tight = VerifyOptions {
        limits: Limits {
            max_depth: 4,
            ..Limits::default()
        },
        ..Default::default()
    };
    let three = with_member(CARD, "x-deep", &nested(3));
    let signed = sign_card(three.as_bytes(), &key, &lenient()).unwrap();
    assert!(verify_card(&signed.card, &trust, &tight).unwrap().ok);
    let e = verify_card(with_member(CARD, "x-deep", &nested(4)).as_bytes(), &trust, &tight).unwrap_err();
    assert_eq!(
        code_and_pointer(&e),
        (ErrorCode::NestingTooDeep, Some("/x-deep/0/0/0"))
    );
}

#[test]
fn a_million_open_brackets_are_refused_without_exhausting_the_stack() {
    // The reader stops at the limit; it never recurses once per bracket of the input.
    let deep = vec![b'['; 1_000_000];
    let e = parse_json(&deep, &Limits::default()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::NestingTooDeep);
    // The root is container 1; container 129 is element 0 of element 0 ... of the root.
    assert_eq!(e.pointer(), Some("/0".repeat(128).as_str()));
    let deep_objects = r#"{"a":"#.repeat(200_000);
    let e = canonicalize(deep_objects.as_bytes(), &CanonicalizeOptions::default()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::NestingTooDeep);
}

#[test]
fn protected_header_nesting_is_bounded_at_16_levels() {
    let key = key();
    let trust = trust_of(&key);
    let header = |depth: usize| {
        format!(
            r#"{{"alg":"EdDSA","kid":"{}","x-deep":{}}}"#,
            key.kid(),
            nested(depth)
        )
    };
    // The header object is level 1: 15 arrays inside reach 16 and are read.
    let at = with_entries(
        CARD.as_bytes(),
        vec![signed_entry(CARD.as_bytes(), &key, &header(15), None)],
    );
    let r = verify_card(&at, &trust, &VerifyOptions::default()).unwrap();
    assert_eq!(verdicts(&r), ["valid"]);
    // 16 arrays: the header is refused (a header that is not acceptable JSON is malformed).
    let over = with_entries(
        CARD.as_bytes(),
        vec![signed_entry(CARD.as_bytes(), &key, &header(16), None)],
    );
    let r = verify_card(&over, &trust, &VerifyOptions::default()).unwrap();
    assert_eq!(verdicts(&r), ["malformed-header"]);
    assert!(
        r.signatures[0].verdict.message.contains("nest"),
        "{:?}",
        r.signatures[0]
    );
}

// ---------------------------------------------------------------------------------------------
// Number of signatures
// ---------------------------------------------------------------------------------------------

#[test]
fn signature_count_is_refused_past_16_before_any_entry_is_looked_at() {
    let key = key();
    let trust = trust_of(&key);
    let good = signed_entry(
        CARD.as_bytes(),
        &key,
        &format!(r#"{{"alg":"EdDSA","kid":"{}","typ":"JOSE"}}"#, key.kid()),
        None,
    );
    assert_eq!(VerifyOptions::default().max_signatures, 16);

    // 16 entries: each gets a verdict.
    let sixteen = with_entries(CARD.as_bytes(), vec![good.clone(); 16]);
    let r = verify_card(&sixteen, &trust, &VerifyOptions::default()).unwrap();
    assert_eq!(verdicts(&r), vec!["valid"; 16]);

    // 17 entries, all genuine: refused as a whole; no "first valid one wins".
    let seventeen = with_entries(CARD.as_bytes(), vec![good.clone(); 17]);
    let e = verify_card(&seventeen, &trust, &VerifyOptions::default()).unwrap_err();
    assert_eq!(
        code_and_pointer(&e),
        (ErrorCode::TooManySignatures, Some("/signatures"))
    );

    // 17 entries that are not even objects: the count is refused first, so no entry (and no
    // header, key or signature) is looked at.
    let junk = with_entries(CARD.as_bytes(), vec![json!(1); 17]);
    let e = verify_card(&junk, &trust, &VerifyOptions::default()).unwrap_err();
    assert_eq!(
        code_and_pointer(&e),
        (ErrorCode::TooManySignatures, Some("/signatures"))
    );
    let sixteen_junk = with_entries(CARD.as_bytes(), vec![json!(1); 16]);
    let r = verify_card(&sixteen_junk, &trust, &VerifyOptions::default()).unwrap();
    assert_eq!(verdicts(&r), vec!["malformed-header"; 16]);

    // The caller's own bound.
    let two = VerifyOptions {
        max_signatures: 2,
        ..Default::default()
    };
    let r = verify_card(
        &with_entries(CARD.as_bytes(), vec![good.clone(); 2]),
        &trust,
        &two,
    )
    .unwrap();
    assert!(r.ok);
    let e = verify_card(&with_entries(CARD.as_bytes(), vec![good; 3]), &trust, &two).unwrap_err();
    assert_eq!(e.code(), ErrorCode::TooManySignatures);
}

// ---------------------------------------------------------------------------------------------
// Header size
// ---------------------------------------------------------------------------------------------

#[test]
fn protected_header_is_refused_past_4096_bytes_as_the_verdict_of_its_entry() {
    let key = key();
    let trust = trust_of(&key);
    assert_eq!(VerifyOptions::default().max_header_bytes, 4096);
    let card = CARD.as_bytes();
    let at = signed_entry(card, &key, &protected_of_size(&key, 4096), None);
    let over = signed_entry(card, &key, &protected_of_size(&key, 4097), None);
    // Entry 1 is the one too large; entries 0 and 2 (exactly at the limit) verify.
    let r = verify_card(
        &with_entries(card, vec![at.clone(), over.clone(), at.clone()]),
        &trust,
        &VerifyOptions::default(),
    )
    .unwrap();
    assert_eq!(verdicts(&r), ["valid", "header-too-large", "valid"]);
    assert_eq!(r.signatures[1].index, 1);
    assert_eq!(r.signatures[1].kid, None, "nothing of a refused header is read");

    // The caller's bound: 4096 is now one too many.
    let tighter = VerifyOptions {
        max_header_bytes: 4095,
        ..Default::default()
    };
    let r = verify_card(&with_entries(card, vec![at]), &trust, &tighter).unwrap();
    assert_eq!(verdicts(&r), ["header-too-large"]);

    // Directly: the decoder names the code.
    let e =
        a2a_card::jose::header::decode_header(&b64url(protected_of_size(&key, 4097).as_bytes()), None, 4096)
            .unwrap_err();
    assert_eq!(e.code(), ErrorCode::HeaderTooLarge);
}

#[test]
fn the_header_limit_is_an_option_of_every_front_end() {
    // `max_header_bytes` of the request (the CLI's --max-header-bytes, Python's
    // max_header_bytes, npm's maxHeaderBytes): a header past the default is valid once raised.
    use a2a_card::request::{option, Input, OptionValue, VerifyRequest, VERIFY};
    let key = key();
    let card = CARD.as_bytes();
    let card = with_entries(
        card,
        vec![signed_entry(card, &key, &protected_of_size(&key, 6000), None)],
    );
    let spec = option(VERIFY, "max_header_bytes").unwrap();
    assert_eq!(
        spec.count_default(),
        Some(VerifyOptions::default().max_header_bytes)
    );
    assert_eq!(
        spec.bounds(),
        Some((1, a2a_card::signature::MAX_HEADER_BYTES_LIMIT))
    );
    let verdict = |n: Option<usize>| {
        let mut r = VerifyRequest {
            keys: Some(vec![Input::new(key.public().to_jwk().to_string(), "k")]),
            ..Default::default()
        };
        if let Some(n) = n {
            r.set("max_header_bytes", OptionValue::Count(n)).unwrap();
        }
        verdicts(&r.build().unwrap().verify(&card).unwrap())[0].to_string()
    };
    assert_eq!(verdict(None), "header-too-large");
    assert_eq!(verdict(Some(6000)), "valid");
    assert_eq!(verdict(Some(5999)), "header-too-large");
    let past = VerifyRequest {
        max_header_bytes: Some(a2a_card::signature::MAX_HEADER_BYTES_LIMIT + 1),
        ..Default::default()
    };
    let e = past.options().unwrap_err();
    assert_eq!(e.option(), Some("max_header_bytes"));
    assert_eq!(e.message(), "max_header_bytes must be 1 to 1048576, got 1048577");
}

#[test]
fn an_oversized_protected_text_is_refused_by_its_length_before_decoding() {
    let key = key();
    let trust = trust_of(&key);
    // One megabyte of text that is not even base64url (a '*' at the end): refused as too large,
    // not as bad base64url, so it was never decoded.
    let text = format!("{}*", "A".repeat(1 << 20));
    let card = with_entries(CARD.as_bytes(), vec![entry(&text, "AAAA", None)]);
    let r = verify_card(&card, &trust, &VerifyOptions::default()).unwrap();
    assert_eq!(verdicts(&r), ["header-too-large"]);
    let e = a2a_card::jose::header::decode_header(&text, None, 4096).unwrap_err();
    assert_eq!(e.code(), ErrorCode::HeaderTooLarge);
    // The same text cut to a length the limit allows is decoded, and fails as what it is.
    let short = format!("{}*", "A".repeat(100));
    let e = a2a_card::jose::header::decode_header(&short, None, 4096).unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidBase64url);
}

#[test]
fn unprotected_header_is_refused_past_4096_serialized_bytes() {
    let key = key();
    let trust = trust_of(&key);
    let card = CARD.as_bytes();
    let protected = format!(r#"{{"alg":"EdDSA","kid":"{}","typ":"JOSE"}}"#, key.kid());
    let at = signed_entry(card, &key, &protected, Some(unprotected_of_size(4096)));
    let over = signed_entry(card, &key, &protected, Some(unprotected_of_size(4097)));
    let r = verify_card(
        &with_entries(card, vec![over, at]),
        &trust,
        &VerifyOptions::default(),
    )
    .unwrap();
    assert_eq!(verdicts(&r), ["header-too-large", "valid"]);
    assert!(r.ok, "require: the valid entry is enough");
}

// ---------------------------------------------------------------------------------------------
// Objects with many members
// ---------------------------------------------------------------------------------------------

fn object_of(names: impl IntoIterator<Item = String>) -> String {
    let members: Vec<String> = names.into_iter().map(|n| format!("\"{n}\":0")).collect();
    format!("{{{}}}", members.join(","))
}

#[test]
fn duplicate_names_are_found_at_every_position_around_the_hashed_check() {
    // The reader compares names linearly in small objects and through a hash set in larger ones;
    // a duplicate of any earlier member must be found whichever way, also when spelled with an
    // escape. Sizes straddle the switch (16 members) and a few doublings.
    for n in [1usize, 2, 15, 16, 17, 18, 31, 32, 33, 64, 65] {
        let names: Vec<String> = (0..n).map(|i| format!("m{i}")).collect();
        let unique = object_of(names.clone());
        assert!(
            parse_json(unique.as_bytes(), &Limits::default()).is_ok(),
            "{n} unique members"
        );
        for j in 0..n {
            for spelling in [format!("m{j}"), format!("\\u006d{j}")] {
                let mut all = names.clone();
                all.push(spelling.clone());
                let text = object_of(all);
                let e = parse_json(text.as_bytes(), &Limits::default()).unwrap_err();
                let want = format!("/m{j}");
                assert_eq!(
                    code_and_pointer(&e),
                    (ErrorCode::DuplicateMember, Some(want.as_str())),
                    "{n} members, duplicate of member {j} spelled {spelling}"
                );
                // The offset is that of the second spelling, the last member.
                assert_eq!(e.offset(), text.rfind(&format!("\"{spelling}\"")), "{n}/{j}");
            }
        }
    }
}

#[test]
fn an_object_with_100000_members_reads_canonicalizes_and_verifies() {
    let n = 100_000;
    let names: Vec<String> = (0..n).map(|i| format!("k{i}")).collect();
    let big = object_of(names.clone());
    let card = with_member(CARD, "x-big", &big);
    let key = key();
    let trust = trust_of(&key);

    // Excluded (the default): verifies, reported unsigned as one member.
    let signed = sign_card(card.as_bytes(), &key, &lenient()).unwrap();
    let r = verify_card(&signed.card, &trust, &VerifyOptions::default()).unwrap();
    assert!(r.ok);
    assert_eq!(r.unsigned, ["/x-big"]);

    // Retained: every member is in the canonical bytes, in sorted order.
    let retain = CanonicalizeOptions {
        unknown: UnknownMembers::Retain,
        ..Default::default()
    };
    let c = canonicalize(card.as_bytes(), &retain).unwrap();
    let v: Value = serde_json::from_slice(&c.bytes).unwrap();
    let Some(Value::Object(members)) = v.get("x-big") else {
        panic!("x-big missing from the retained canonical form");
    };
    let mut sorted = names.clone();
    sorted.sort(); // ASCII names: UTF-16 order is byte order
    let got: Vec<&str> = members.keys().map(String::as_str).collect();
    assert_eq!(got, sorted);

    // A duplicate anywhere in it is found: of the first, a middle and the last member.
    for j in [0, n / 2, n - 1] {
        let dup = with_member(
            CARD,
            "x-big",
            &object_of(names.iter().cloned().chain([format!("k{j}")])),
        );
        let e = verify_card(dup.as_bytes(), &trust, &VerifyOptions::default()).unwrap_err();
        let want = format!("/x-big/k{j}");
        assert_eq!(
            code_and_pointer(&e),
            (ErrorCode::DuplicateMember, Some(want.as_str()))
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The hostile card of benches/hostile.rs
// ---------------------------------------------------------------------------------------------

#[test]
fn a_hostile_card_at_every_bound_reaches_the_crypto_check_for_every_entry() {
    // 16 entries, each with a 4096-byte protected header and a 4096-byte unprotected one, kids
    // that match trusted keys, and real signatures by those keys over other bytes: the most work
    // a card can ask of the verifier per entry. What benches/hostile.rs times must be this.
    let key = key();
    let trust = trust_of(&key);
    let card = CARD.as_bytes();
    let other = CARD.replace("\"Limits\"", "\"Other\"");
    assert_ne!(
        canonicalize(other.as_bytes(), &CanonicalizeOptions::default())
            .unwrap()
            .bytes,
        canonicalize(card, &CanonicalizeOptions::default()).unwrap().bytes
    );
    let entries: Vec<Value> = (0..16)
        .map(|_| {
            signed_entry(
                other.as_bytes(),
                &key,
                &protected_of_size(&key, 4096),
                Some(unprotected_of_size(4096)),
            )
        })
        .collect();
    let hostile = with_entries(card, entries);
    let r = verify_card(&hostile, &trust, &VerifyOptions::default()).unwrap();
    assert!(!r.ok);
    assert_eq!(verdicts(&r), vec!["signature-invalid"; 16]);
    assert!(
        r.signatures.iter().all(|s| s.key.is_some()),
        "every entry found its key"
    );
}

/// `depth` levels under a card's extension `params` (a Struct, walked by the presence rules
/// member by member), as objects or arrays, so the whole path of a card is exercised.
fn deep_card(depth: usize, objects: bool) -> String {
    // The card is level 1, capabilities 2, extensions 3, the extension 4, params 5.
    let inner = depth - 5;
    let (open, close) = if objects { ("{\"a\":", "}") } else { ("[", "]") };
    format!(
        r#"{{"name":"A","description":"d","version":"1","skills":[],"capabilities":{{"extensions":[{{"uri":"u","params":{{"x":{}1{}}}}}]}}}}"#,
        open.repeat(inner),
        close.repeat(inner)
    )
}

#[test]
fn the_deepest_allowed_nesting_is_safe_on_a_one_megabyte_stack() {
    // Every operation that recurses per level, at the cap, on a thread with half the stack of a
    // default Rust thread: a stack overflow aborts the whole test binary, so this cannot pass
    // by accident.
    let cap = a2a_card::canonical::MAX_DEPTH_LIMIT;
    let limits = Limits {
        max_depth: cap,
        ..Limits::default()
    };
    let worker = std::thread::Builder::new()
        .stack_size(1024 * 1024)
        .spawn(move || {
            for objects in [true, false] {
                let card = deep_card(cap, objects);
                let canon = CanonicalizeOptions {
                    limits,
                    ..CanonicalizeOptions::default()
                };
                assert!(parse_json(card.as_bytes(), &limits).unwrap().is_object());
                canonicalize(card.as_bytes(), &canon).unwrap();
                a2a_card::jcs_with(card.as_bytes(), &limits).unwrap();
                let key = key();
                let signed = sign_card(
                    card.as_bytes(),
                    &key,
                    &SignOptions {
                        canonicalize: canon,
                        allow_unsigned: true,
                        ..Default::default()
                    },
                )
                .unwrap();
                let opts = VerifyOptions {
                    limits,
                    profiles: a2a_card::Profile::ALL.to_vec(),
                    ..VerifyOptions::default()
                };
                assert!(verify_card(&signed.card, &trust_of(&key), &opts).unwrap().ok);
                a2a_card::lint::lint_card(card.as_bytes(), &a2a_card::lint::LintOptions { limits }).unwrap();
                let m = a2a_card::migrate::MigrateOptions {
                    limits,
                    protocol_version: None,
                };
                a2a_card::migrate::migrate_card(card.as_bytes(), &m).unwrap();
                a2a_card::inspect_card(&signed.card, &canon).unwrap();
                // One level more is refused, not walked.
                let over = deep_card(cap + 1, objects);
                assert_eq!(
                    canonicalize(over.as_bytes(), &canon).unwrap_err().code(),
                    ErrorCode::NestingTooDeep
                );
            }
        })
        .unwrap();
    worker.join().unwrap();
}

#[test]
fn a_nesting_limit_above_the_cap_is_refused_before_reading() {
    let over = Limits {
        max_depth: a2a_card::canonical::MAX_DEPTH_LIMIT + 1,
        ..Limits::default()
    };
    let card = deep_card(20, true);
    for e in [
        parse_json(card.as_bytes(), &over).unwrap_err(),
        canonicalize(
            card.as_bytes(),
            &CanonicalizeOptions {
                limits: over,
                ..Default::default()
            },
        )
        .unwrap_err(),
        verify_card(
            card.as_bytes(),
            &TrustStore::new(),
            &VerifyOptions {
                limits: over,
                ..Default::default()
            },
        )
        .unwrap_err(),
    ] {
        assert_eq!(e.code(), ErrorCode::Usage, "{e}");
        assert!(e.message().contains("512"), "{e}");
    }
}

/// Options a caller chooses are read one way, by `VerifyOptions::check`, in every verification
/// (and so in every front end): each limit from 1 to its bound, named as the library spells it.
/// Before the bounds lived in the core, the CLI's flags had them and the Python and npm
/// packages verified with `max_signatures` 10**12 or `max_keys_per_kid` 0.
#[test]
fn verify_options_out_of_bounds_are_refused_by_every_verification() {
    let (signed, trust) = signed_and_trusted();
    type Change = fn(&mut VerifyOptions);
    let cases: [(Change, &str); 12] = [
        (
            |o| o.max_signatures = 1_000_000_000_000,
            "max_signatures must be 1 to 256, got 1000000000000",
        ),
        (|o| o.max_signatures = 0, "max_signatures must be 1 to 256, got 0"),
        (
            |o| o.max_signatures = 257,
            "max_signatures must be 1 to 256, got 257",
        ),
        (
            |o| o.max_keys_per_kid = 0,
            "max_keys_per_kid must be 1 to 256, got 0",
        ),
        (
            |o| o.max_keys_per_kid = 1_000_000_000,
            "max_keys_per_kid must be 1 to 256, got 1000000000",
        ),
        (
            |o| o.max_signature_checks = 1_000_000_000,
            "max_signature_checks must be 1 to 4096, got 1000000000",
        ),
        (
            |o| o.max_signature_checks = 0,
            "max_signature_checks must be 1 to 4096, got 0",
        ),
        (|o| o.max_chain_len = 9, "max_chain_len must be 1 to 8, got 9"),
        (
            |o| o.max_header_bytes = 0,
            "max_header_bytes must be 1 to 1048576, got 0",
        ),
        (
            |o| o.limits.max_input_bytes = 1 << 40,
            "max_input_bytes must be 1 to 1073741824, got 1099511627776",
        ),
        (
            |o| o.limits.max_input_bytes = 0,
            "max_input_bytes must be 1 to 1073741824, got 0",
        ),
        (|o| o.limits.max_depth = 0, "max_depth must be 1 to 512, got 0"),
    ];
    for (change, message) in cases {
        let mut opts = VerifyOptions::default();
        change(&mut opts);
        let e = verify_card(&signed, &trust, &opts).unwrap_err();
        assert_eq!((e.code(), e.message()), (ErrorCode::Usage, message));
        let doc = a2a_card::Doc::parse(&signed, &Limits::default()).unwrap();
        let e = a2a_card::signature::verify_doc(&doc, &trust, &opts).unwrap_err();
        assert_eq!(e.message(), message);
        let e = a2a_card::signature::DeferredVerification::new(signed.clone(), &trust, &opts)
            .err()
            .unwrap();
        assert_eq!(e.message(), message);
    }
    // At each bound the card verifies.
    let opts = VerifyOptions {
        max_signatures: a2a_card::signature::MAX_SIGNATURES_LIMIT,
        max_keys_per_kid: a2a_card::signature::MAX_KEYS_PER_KID_LIMIT,
        max_signature_checks: a2a_card::signature::MAX_SIGNATURE_CHECKS_LIMIT,
        max_chain_len: a2a_card::signature::MAX_CHAIN_LEN_LIMIT,
        max_header_bytes: a2a_card::signature::MAX_HEADER_BYTES_LIMIT,
        limits: Limits {
            max_input_bytes: a2a_card::canonical::MAX_INPUT_BYTES_LIMIT,
            max_depth: a2a_card::canonical::MAX_DEPTH_LIMIT,
        },
        ..VerifyOptions::default()
    };
    assert!(verify_card(&signed, &trust, &opts).unwrap().ok);
    let ones = VerifyOptions {
        max_signatures: 1,
        max_keys_per_kid: 1,
        max_signature_checks: 1,
        max_chain_len: 1,
        ..VerifyOptions::default()
    };
    assert!(verify_card(&signed, &trust, &ones).unwrap().ok);
}

/// An algorithm allowlist naming HMAC is refused as an option, not quietly narrowed to its
/// asymmetric members: HMAC needs a shared secret, never a trust root for a published card.
#[test]
fn an_algorithm_allowlist_with_hmac_or_nothing_is_refused() {
    let (signed, trust) = signed_and_trusted();
    for algs in [
        vec![Algorithm::HS256],
        vec![Algorithm::EdDSA, Algorithm::HS384],
        vec![],
    ] {
        let opts = VerifyOptions {
            algorithms: Some(algs.clone()),
            ..VerifyOptions::default()
        };
        let e = verify_card(&signed, &trust, &opts).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Usage, "{algs:?}");
        assert!(e.message().starts_with("algorithms"), "{}", e.message());
        assert!(!e.message().contains("--"), "{}", e.message());
    }
    let opts = VerifyOptions {
        algorithms: Some(vec![Algorithm::EdDSA]),
        ..VerifyOptions::default()
    };
    assert!(verify_card(&signed, &trust, &opts).unwrap().ok);
}

/// The reader limits have the same bounds wherever they are given: every function that reads a
/// document refuses `max_input_bytes` 0 or past 1 GiB and `max_depth` 0 with `usage` before
/// reading a byte (0 used to read as "every input is too large", 2**40 as "no limit").
#[test]
fn reader_limits_out_of_bounds_are_refused_by_every_reader() {
    let k = key();
    for (limits, message) in [
        (
            Limits {
                max_input_bytes: 0,
                ..Limits::default()
            },
            "max_input_bytes must be 1 to 1073741824, got 0",
        ),
        (
            Limits {
                max_input_bytes: 1 << 40,
                ..Limits::default()
            },
            "max_input_bytes must be 1 to 1073741824, got 1099511627776",
        ),
        (
            Limits {
                max_depth: 0,
                ..Limits::default()
            },
            "max_depth must be 1 to 512, got 0",
        ),
    ] {
        let canon = CanonicalizeOptions {
            limits,
            ..Default::default()
        };
        let sign = SignOptions {
            canonicalize: canon,
            ..lenient()
        };
        let errors = [
            parse_json(CARD.as_bytes(), &limits).unwrap_err(),
            canonicalize(CARD.as_bytes(), &canon).unwrap_err(),
            sign_card(CARD.as_bytes(), &k, &sign).unwrap_err(),
            a2a_card::inspect_card(CARD.as_bytes(), &canon).unwrap_err(),
            a2a_card::card::lint::lint_card(CARD.as_bytes(), &a2a_card::card::lint::LintOptions { limits })
                .unwrap_err(),
        ];
        for e in errors {
            assert_eq!((e.code(), e.message()), (ErrorCode::Usage, message));
        }
    }
}
