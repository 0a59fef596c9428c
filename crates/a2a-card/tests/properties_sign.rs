//! Property tests of signing and verifying (proptest), and the key-substitution refusals.
//!
//! Generated inputs: Agent Cards of valid shape built from the presence table (every message
//! reachable from `AgentCard`, each field absent, present at its default or not, or `null`; at
//! most one member per oneof; Struct values of any JSON; unknown members here and there), written
//! out with their members shuffled, by the generator `tests/properties.rs` uses
//! (`strategies/mod.rs`), with JSON names only and without `signatures`. The properties are kept
//! apart so that that file's stay about canonicalization.
//!
//! Properties:
//! (a) signing then verifying succeeds for every algorithm this build supports (EdDSA with
//!     Ed25519 and Ed448, ES256, ES384, ES512, ES256K, RS256/384/512, PS256/384/512), the report
//!     covers exactly the canonical bytes of the card and lists the same unsigned members;
//! (b) changing any covered member, at any depth (a string, a boolean, a number, a `null` inside
//!     a Struct, or removing an object or array member), makes the signature `signature-invalid`;
//! (c) adding an unknown member to any message object of the card leaves the signature valid,
//!     the verified content unchanged, and the member listed as unsigned; with unknown members
//!     retained (and signed that way) the same addition breaks the signature.
//!
//! Then plain tests: the key is chosen among trusted keys only, never from the card: an embedded
//! `jwk` header parameter, a `jku` URL or an `x5c` chain are never used as keys; profiles other
//! than `spec` are accepted only when the caller allows them; origin binding is trust-store
//! policy.
//!
//! The case count defaults to 32 per property; set `PROPTEST_CASES` for a longer run.

#![allow(clippy::unwrap_used, clippy::panic)]

mod strategies;

mod support;

use a2a_card::canonical::table::{Kind, MessageDesc, AGENT_CARD};
use a2a_card::jose::crypto as alg;
use a2a_card::jose::keys::{KeyType, PrivateKey};
use a2a_card::signature::trust::{TrustStore, TrustedKey};
use a2a_card::signature::Report;
use a2a_card::Algorithm;
use a2a_card::{
    canonicalize, sign_card, verify_card, CanonicalizeOptions, Profile, SignOptions, UnknownMembers,
    VerifyOptions,
};
use a2a_card_testkit::cards::{signed_entry, with_signatures};
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::TestCaseError;
use serde_json::Value;
use std::collections::HashSet;
use std::sync::OnceLock;
use strategies::{arb_json, arb_unsigned_card, config, render, to_serde, Style, J};
use support::lenient;

// ---------------------------------------------------------------------------------------------
// Generated cards
// ---------------------------------------------------------------------------------------------

/// A generated card as bytes (the generator of `strategies/mod.rs`, shared with
/// `properties.rs`): JSON names only, no `signatures` member (signing adds it), members shuffled.
fn arb_card() -> impl Strategy<Value = Vec<u8>> {
    (arb_unsigned_card(), any::<u64>())
        .prop_map(|(card, seed)| render(&card, &mut Style::shuffled(seed)).into_bytes())
}

fn text_of(v: &Value) -> Vec<u8> {
    serde_json::to_vec(v).unwrap()
}

/// Equal as scalars, numbers by their value as doubles (the card may spell `1e21` where the
/// canonical form writes `1e+21`, or `2.0` where it writes `2`).
fn same_scalar(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

// ---------------------------------------------------------------------------------------------
// Keys and helpers
// ---------------------------------------------------------------------------------------------

/// One key per algorithm, generated once; one RSA key serves every algorithm of
/// `Algorithm::ALL` that fits it.
fn keys() -> &'static [(Algorithm, PrivateKey)] {
    static KEYS: OnceLock<Vec<(Algorithm, PrivateKey)>> = OnceLock::new();
    KEYS.get_or_init(|| {
        let of_type = |kind| PrivateKey::generate_of_type(kind).unwrap();
        let mut out = vec![
            (Algorithm::EdDSA, of_type(KeyType::Ed25519)),
            (Algorithm::EdDSA, of_type(KeyType::Ed448)),
            (Algorithm::ES256, of_type(KeyType::P256)),
            (Algorithm::ES384, of_type(KeyType::P384)),
            (Algorithm::ES512, of_type(KeyType::P521)),
            (Algorithm::ES256K, of_type(KeyType::Secp256k1)),
        ];
        let rsa = PrivateKey::generate_rsa(2048).unwrap();
        let rsa_algs = Algorithm::ALL.iter().filter(|a| rsa.key_type().fits(**a));
        out.extend(rsa_algs.map(|a| (*a, rsa.clone())));
        out
    })
}

/// Every asymmetric algorithm this build supports has a key above.
#[test]
fn the_keys_cover_every_supported_algorithm() {
    let covered: HashSet<Algorithm> = keys().iter().map(|(a, _)| *a).collect();
    for alg in Algorithm::ALL {
        if alg.is_hmac() || !alg.available() {
            continue;
        }
        assert!(covered.contains(alg), "{alg} has no key in the property test");
    }
}

fn trust_of(key: &PrivateKey) -> TrustStore {
    let mut t = TrustStore::new();
    t.pin(key.public().clone(), "pinned");
    t
}

fn verdicts(r: &Report) -> Vec<&str> {
    r.signatures.iter().map(|s| s.verdict.code.as_str()).collect()
}

fn show(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// One step of a path into a JSON value.
#[derive(Debug, Clone, PartialEq)]
enum Seg {
    Key(String),
    At(usize),
}

/// Every node below the root, with its path, in document order.
fn nodes(v: &Value, path: &mut Vec<Seg>, out: &mut Vec<Vec<Seg>>) {
    match v {
        Value::Object(members) => {
            for (k, child) in members {
                path.push(Seg::Key(k.clone()));
                out.push(path.clone());
                nodes(child, path, out);
                path.pop();
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                path.push(Seg::At(i));
                out.push(path.clone());
                nodes(child, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

fn node<'a>(v: &'a Value, path: &[Seg]) -> Option<&'a Value> {
    path.iter().try_fold(v, |v, seg| match (v, seg) {
        (Value::Object(m), Seg::Key(k)) => m.get(k),
        (Value::Array(items), Seg::At(i)) => items.get(*i),
        _ => None,
    })
}

fn node_mut<'a>(v: &'a mut Value, path: &[Seg]) -> Option<&'a mut Value> {
    path.iter().try_fold(v, |v, seg| match (v, seg) {
        (Value::Object(m), Seg::Key(k)) => m.get_mut(k),
        (Value::Array(items), Seg::At(i)) => items.get_mut(*i),
        _ => None,
    })
}

/// Changes the node at `path` of `card`: a scalar gets another value of its type (`null`
/// becomes `true`); an object or array is removed from its parent.
fn change(card: &mut Value, path: &[Seg]) {
    let (last, parent_path) = path.split_last().unwrap();
    let v = node_mut(card, path).unwrap();
    match v {
        Value::String(s) => s.push('~'),
        Value::Bool(b) => *b = !*b,
        Value::Number(n) => {
            let n = n.as_f64().unwrap();
            let changed = if n.abs() < 4e15 { n + 1.0 } else { n / 2.0 };
            *v = Value::from(serde_json::Number::from_f64(changed).unwrap());
        }
        Value::Null => *v = Value::Bool(true),
        Value::Array(_) | Value::Object(_) => match (node_mut(card, parent_path).unwrap(), last) {
            (Value::Object(m), Seg::Key(k)) => {
                m.shift_remove(k);
            }
            (Value::Array(items), Seg::At(i)) => {
                items.remove(*i);
            }
            _ => unreachable!("a path step matches its parent"),
        },
    }
}

/// JSON Pointers of the message objects of a card (the card itself included), by the schema,
/// with their paths; `signatures` entries are not walked.
fn message_objects(
    v: &Value,
    desc: &'static MessageDesc,
    ptr: String,
    path: Vec<Seg>,
    out: &mut Vec<(String, Vec<Seg>)>,
) {
    let Value::Object(members) = v else { return };
    out.push((ptr.clone(), path.clone()));
    for (k, child) in members {
        if k == "signatures" {
            continue;
        }
        let Some((f, _)) = desc.field(k) else { continue };
        let here = format!("{ptr}/{}", a2a_card::pointer_token(k));
        let mut p = path.clone();
        p.push(Seg::Key(k.clone()));
        match (f.kind, child) {
            (Kind::Message(inner), Value::Object(_)) => message_objects(child, inner, here, p, out),
            (Kind::RepeatedMessage(inner), Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    let mut q = p.clone();
                    q.push(Seg::At(i));
                    message_objects(item, inner, format!("{here}/{i}"), q, out);
                }
            }
            (Kind::MapMessage(inner), Value::Object(entries)) => {
                for (name, item) in entries {
                    let mut q = p.clone();
                    q.push(Seg::Key(name.clone()));
                    message_objects(
                        item,
                        inner,
                        format!("{here}/{}", a2a_card::pointer_token(name)),
                        q,
                        out,
                    );
                }
            }
            _ => {}
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(config(32))]

    /// (a) Sign then verify succeeds for every algorithm, over exactly the canonical bytes.
    #[test]
    fn sign_then_verify_succeeds_for_every_algorithm(card in arb_card()) {
        let canonical = canonicalize(&card, &CanonicalizeOptions::default())
            .map_err(|e| TestCaseError::fail(format!("{e}: {}", show(&card))))?;
        for (alg, key) in keys() {
            let opts = SignOptions { alg: Some(*alg), allow_unsigned: true, ..Default::default() };
            let signed = sign_card(&card, key, &opts)
                .map_err(|e| TestCaseError::fail(format!("{alg}: {e}: {}", show(&card))))?;
            let r = verify_card(&signed.card, &trust_of(key), &VerifyOptions::default()).unwrap();
            prop_assert!(r.ok, "{alg} ({:?}): {:?}\n{}", key.key_type(), r.signatures, show(&card));
            prop_assert_eq!(verdicts(&r), vec!["valid"]);
            prop_assert_eq!(r.signatures[0].alg.as_deref(), Some(alg.as_str()));
            prop_assert_eq!(r.profile, "spec");
            prop_assert_eq!(&r.canonical, &canonical.bytes);
            prop_assert_eq!(&r.unsigned, &canonical.unsigned);
        }
    }

    /// (b) Any change to a covered member, at any depth, breaks the signature.
    #[test]
    fn changing_a_covered_member_at_any_depth_breaks_the_signature(card in arb_card(), pick in any::<Index>(), which in any::<Index>()) {
        let (alg, key) = &keys()[which.index(keys().len())];
        let signed = sign_card(&card, key, &SignOptions { alg: Some(*alg), allow_unsigned: true, ..Default::default() }).unwrap();
        let covered: Value = serde_json::from_slice(&signed.canonical.bytes).unwrap();
        let mut paths = Vec::new();
        nodes(&covered, &mut Vec::new(), &mut paths);
        prop_assume!(!paths.is_empty());
        let path = &paths[pick.index(paths.len())];

        let mut changed: Value = serde_json::from_slice(&signed.card).unwrap();
        // The path leads to the same member in the card (canonical form keeps names and order
        // of array elements); a scalar there has the same value.
        let in_card = node(&changed, path);
        prop_assert!(in_card.is_some(), "{path:?} not in the card");
        let in_covered = node(&covered, path).unwrap();
        if !matches!(in_covered, Value::Object(_) | Value::Array(_)) {
            prop_assert!(same_scalar(in_card.unwrap(), in_covered), "{:?} != {:?}", in_card.unwrap(), in_covered);
        }
        change(&mut changed, path);
        let bytes = text_of(&changed);
        let again = canonicalize(&bytes, &CanonicalizeOptions::default()).unwrap();
        prop_assert_ne!(&again.bytes, &signed.canonical.bytes, "the change at {:?} changed no covered byte", path);

        let r = verify_card(&bytes, &trust_of(key), &VerifyOptions::default()).unwrap();
        prop_assert!(!r.ok, "{alg}: changed at {path:?} and still valid:\n{}", show(&bytes));
        prop_assert_eq!(verdicts(&r), vec!["signature-invalid"]);
        prop_assert_eq!(r.verified_content(), None);
    }

    /// (c) An unknown member added to any message object leaves the signature valid and is
    /// reported unsigned; with unknown members retained, the same addition breaks it.
    #[test]
    fn adding_an_unknown_member_keeps_the_signature_and_reports_it_unsigned(card in arb_card(), pick in any::<Index>(), value in arb_json()) {
        let (_, key) = &keys()[0];
        let trust = trust_of(key);
        let name = "x-added-after-signing";
        let add = |signed: &[u8]| -> (Vec<u8>, String) {
            let mut v: Value = serde_json::from_slice(signed).unwrap();
            let mut objects = Vec::new();
            message_objects(&v, &AGENT_CARD, String::new(), Vec::new(), &mut objects);
            let (ptr, path) = objects[pick.index(objects.len())].clone();
            let Some(Value::Object(m)) = node_mut(&mut v, &path) else { unreachable!() };
            m.insert(name.to_string(), to_serde(&value));
            (text_of(&v), format!("{ptr}/{name}"))
        };

        let signed = sign_card(&card, key, &lenient()).unwrap();
        let before = verify_card(&signed.card, &trust, &VerifyOptions::default()).unwrap();
        prop_assert!(before.ok);
        let (bytes, ptr) = add(&signed.card);
        let r = verify_card(&bytes, &trust, &VerifyOptions::default()).unwrap();
        prop_assert!(r.ok, "{ptr}: {:?}\n{}", r.signatures, show(&bytes));
        prop_assert_eq!(verdicts(&r), vec!["valid"]);
        prop_assert_eq!(&r.canonical, &before.canonical);
        prop_assert!(r.unsigned.contains(&ptr), "{} not in {:?}", ptr, r.unsigned);
        let mut expected: Vec<&String> = before.unsigned.iter().chain([&ptr]).collect();
        let mut got: Vec<&String> = r.unsigned.iter().collect();
        expected.sort();
        got.sort();
        prop_assert_eq!(got, expected);

        // Retained unknown members are covered: signed that way, the addition breaks it (unless
        // it is `null`, which means absent).
        if matches!(value, J::Null) {
            return Ok(());
        }
        let retain = CanonicalizeOptions { unknown: UnknownMembers::Retain, ..Default::default() };
        let vretain = VerifyOptions { unknown: UnknownMembers::Retain, ..Default::default() };
        let signed = sign_card(&card, key, &SignOptions { canonicalize: retain, allow_unsigned: true, ..Default::default() }).unwrap();
        prop_assert!(verify_card(&signed.card, &trust, &vretain).unwrap().ok);
        let (bytes, ptr) = add(&signed.card);
        let r = verify_card(&bytes, &trust, &vretain).unwrap();
        prop_assert!(!r.ok, "{ptr} retained but not covered");
        prop_assert_eq!(verdicts(&r), vec!["signature-invalid"]);
        prop_assert!(r.unsigned.is_empty());
    }
}

// ---------------------------------------------------------------------------------------------
// The key comes from the trust store, never from the card
// ---------------------------------------------------------------------------------------------

const CARD: &str = r#"{"name":"Keys","description":"Key substitution","version":"1.0.0",
"capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}"#;

/// `card` with one signature entry: `protected_json` signed by `key` under `alg`.
fn signed_with_header(card: &[u8], key: &PrivateKey, alg: Algorithm, protected_json: &str) -> Vec<u8> {
    let canonical = canonicalize(card, &CanonicalizeOptions::default()).unwrap();
    let entry = signed_entry(&canonical.bytes, protected_json, None, |input| {
        alg::sign(alg, key, input).unwrap()
    });
    with_signatures(&serde_json::from_slice(card).unwrap(), vec![entry])
}

fn jwk_text(key: &PrivateKey) -> String {
    key.public().to_jwk().to_string()
}

#[test]
fn an_embedded_jwk_header_parameter_is_never_used_as_a_key() {
    let trusted = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    let trust = trust_of(&trusted);
    let card = CARD.as_bytes();
    for attacker_alg in [Algorithm::EdDSA, Algorithm::ES256] {
        let attacker = PrivateKey::generate(attacker_alg).unwrap();
        // The attacker signs with their own key, names it by its own kid and embeds it.
        let own_kid = signed_with_header(
            card,
            &attacker,
            attacker_alg,
            &format!(
                r#"{{"alg":"{attacker_alg}","kid":"{}","typ":"JOSE","jwk":{}}}"#,
                attacker.kid(),
                jwk_text(&attacker)
            ),
        );
        let r = verify_card(&own_kid, &trust, &VerifyOptions::default()).unwrap();
        assert!(!r.ok);
        assert_eq!(verdicts(&r), ["untrusted-key"], "{attacker_alg}");
        assert_eq!(r.signatures[0].key, None, "no key was used");

        // The same, naming the trusted key's kid: the trusted key is used, and the attacker's
        // signature does not verify with it (or does not even fit its type).
        let trusted_kid = signed_with_header(
            card,
            &attacker,
            attacker_alg,
            &format!(
                r#"{{"alg":"{attacker_alg}","kid":"{}","typ":"JOSE","jwk":{}}}"#,
                trusted.kid(),
                jwk_text(&attacker)
            ),
        );
        let r = verify_card(&trusted_kid, &trust, &VerifyOptions::default()).unwrap();
        assert!(!r.ok);
        let want = if attacker_alg == Algorithm::EdDSA {
            "signature-invalid"
        } else {
            "key-algorithm-mismatch"
        };
        assert_eq!(verdicts(&r), [want], "{attacker_alg}");
        if let Some(used) = &r.signatures[0].key {
            assert_eq!(used.thumbprint, trusted.public().thumbprint());
        }
    }
    // The control: the trusted key's own signature with the same kind of header verifies, so
    // the refusals above are about the key, not about the header parameter.
    let genuine = signed_with_header(
        card,
        &trusted,
        Algorithm::EdDSA,
        &format!(
            r#"{{"alg":"EdDSA","kid":"{}","typ":"JOSE","jwk":{}}}"#,
            trusted.kid(),
            jwk_text(&trusted)
        ),
    );
    assert_eq!(
        verdicts(&verify_card(&genuine, &trust, &VerifyOptions::default()).unwrap()),
        ["valid"]
    );
}

#[test]
fn jku_and_x5c_are_information_never_a_trust_root() {
    let trusted = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    let attacker = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    let trust = trust_of(&trusted);
    let card = signed_with_header(
        CARD.as_bytes(),
        &attacker,
        Algorithm::EdDSA,
        &format!(
            r#"{{"alg":"EdDSA","kid":"{}","typ":"JOSE","jku":"https://attacker.example/jwks.json","x5c":["MIIB"],"x5u":"https://attacker.example/c.pem"}}"#,
            attacker.kid()
        ),
    );
    // The x5u is never fetched and the x5c builds to no anchor: no key is used.
    let r = verify_card(&card, &trust, &VerifyOptions::default()).unwrap();
    assert_eq!(verdicts(&r), ["certificate-untrusted"]);
    assert_eq!(
        r.signatures[0].jku.as_deref(),
        Some("https://attacker.example/jwks.json"),
        "the jku is reported, as information"
    );
    // An empty trust store trusts nothing, whatever the card names.
    let r = verify_card(&card, &TrustStore::new(), &VerifyOptions::default()).unwrap();
    assert_eq!(verdicts(&r), ["certificate-untrusted"]);
    assert!(r.signatures[0].key.is_none());
}

#[test]
fn kid_selects_among_trusted_keys_and_each_candidate_must_verify() {
    // Two trusted keys share a kid (a rotation): the signature verifies with whichever made it,
    // and a third key under the same kid name but not in the store does not.
    let old = PrivateKey::generate(Algorithm::EdDSA)
        .unwrap()
        .with_kid("release");
    let new = PrivateKey::generate(Algorithm::EdDSA)
        .unwrap()
        .with_kid("release");
    let stranger = PrivateKey::generate(Algorithm::EdDSA)
        .unwrap()
        .with_kid("release");
    let mut trust = TrustStore::new();
    trust.pin(old.public().clone(), "old");
    trust.pin(new.public().clone(), "new");
    for (key, want, source) in [(&old, "valid", Some("old")), (&new, "valid", Some("new"))] {
        let signed = sign_card(CARD.as_bytes(), key, &lenient()).unwrap();
        let r = verify_card(&signed.card, &trust, &VerifyOptions::default()).unwrap();
        assert_eq!(verdicts(&r), [want]);
        assert_eq!(
            r.signatures[0].key.as_ref().map(|k| k.source.label()).as_deref(),
            source
        );
    }
    let signed = sign_card(CARD.as_bytes(), &stranger, &lenient()).unwrap();
    let r = verify_card(&signed.card, &trust, &VerifyOptions::default()).unwrap();
    assert_eq!(verdicts(&r), ["signature-invalid"]);
}

// ---------------------------------------------------------------------------------------------
// Downgrade: profiles, modes, algorithms
// ---------------------------------------------------------------------------------------------

#[test]
fn profiles_other_than_spec_are_accepted_only_when_the_caller_allows_them() {
    // A card whose prune-empty and served-as-is bytes differ from its spec bytes.
    let card = br#"{"name":"P","description":"","version":"1","capabilities":{"streaming":false},
      "defaultInputModes":[],"defaultOutputModes":["text/plain"],"skills":[],"x-extra":1}"#;
    let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    let trust = trust_of(&key);
    let spec = canonicalize(card, &CanonicalizeOptions::default()).unwrap().bytes;
    for profile in [Profile::PruneEmpty, Profile::ServedAsIs] {
        let copts = CanonicalizeOptions {
            profile,
            ..Default::default()
        };
        assert_ne!(canonicalize(card, &copts).unwrap().bytes, spec, "{profile:?}");
        let signed = sign_card(
            card,
            &key,
            &SignOptions {
                canonicalize: copts,
                allow_unsigned: true,
                ..Default::default()
            },
        )
        .unwrap();
        // Default: spec only. The signature declares its profile, which is named.
        let r = verify_card(&signed.card, &trust, &VerifyOptions::default()).unwrap();
        assert!(!r.ok, "{profile:?} accepted without being allowed");
        assert_eq!(verdicts(&r), ["profile-not-accepted"]);
        // Allowed: the report names the profile and carries its bytes.
        let allowed = VerifyOptions {
            profiles: vec![Profile::Spec, profile],
            ..Default::default()
        };
        let r = verify_card(&signed.card, &trust, &allowed).unwrap();
        assert!(r.ok);
        assert_eq!(r.profile, profile);
        assert_eq!(r.signatures[0].profile, Some(profile));
        assert_eq!(r.canonical, canonicalize(card, &copts).unwrap().bytes);
    }
}

#[test]
fn stripping_signatures_fails_require_and_all_and_a_bad_one_fails_all() {
    let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    let other = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    let trust = trust_of(&key);
    let signed = sign_card(CARD.as_bytes(), &key, &lenient()).unwrap();
    let mode = |m| VerifyOptions {
        mode: m,
        ..Default::default()
    };
    use a2a_card::signature::Mode;
    // Stripped entirely (and with an empty array): require and all fail; if-present passes, by
    // the caller's explicit choice.
    let stripped: &[&[u8]] = &[CARD.as_bytes(), &with_signatures_text(CARD, "[]")];
    for card in stripped {
        assert!(!verify_card(card, &trust, &mode(Mode::Require)).unwrap().ok);
        assert!(!verify_card(card, &trust, &mode(Mode::All)).unwrap().ok);
        let r = verify_card(card, &trust, &mode(Mode::IfPresent)).unwrap();
        assert!(r.ok);
        // Passing is not being verified: there is no verified content, and every member is
        // reported as unsigned.
        assert_eq!(r.verified_content(), None);
        let top: Vec<String> = match serde_json::from_slice(card).unwrap() {
            Value::Object(m) => m
                .keys()
                .filter(|k| *k != "signatures")
                .map(|k| format!("/{}", a2a_card::pointer_token(k)))
                .collect(),
            _ => unreachable!(),
        };
        assert!(!top.is_empty());
        assert_eq!(r.unsigned, top);
        assert!(r.reason.contains("no member of it is covered"), "{}", r.reason);
    }
    // A genuine signature plus one from an untrusted key: require passes, all and if-present do
    // not (the untrusted one is not silently ignored).
    let two = sign_card(&signed.card, &other, &lenient()).unwrap();
    assert!(verify_card(&two.card, &trust, &mode(Mode::Require)).unwrap().ok);
    assert!(!verify_card(&two.card, &trust, &mode(Mode::All)).unwrap().ok);
    assert!(!verify_card(&two.card, &trust, &mode(Mode::IfPresent)).unwrap().ok);
}

fn with_signatures_text(card: &str, signatures: &str) -> Vec<u8> {
    let body = card.trim_end().strip_suffix('}').unwrap();
    format!("{body},\"signatures\":{signatures}}}").into_bytes()
}

// ---------------------------------------------------------------------------------------------
// Origin binding is trust-store policy, not something the signer or the card decides
// ---------------------------------------------------------------------------------------------

#[test]
fn origin_binding_is_decided_by_the_trust_store() {
    let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    let mut trust = TrustStore::new();
    trust.add(TrustedKey {
        origins: Some(vec!["https://agent.example".parse().unwrap()]),
        ..TrustedKey::new(key.public().clone(), "bound")
    });
    // The signer signs the bytes it is given: a card naming any host signs the same way, and
    // nothing in the signature says where the card was served from.
    let card = br#"{"name":"O","description":"","version":"1","skills":[],
      "supportedInterfaces":[{"url":"https://evil.example/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}"#;
    let signed = sign_card(card, &key, &lenient()).unwrap();
    let at = |origin: Option<&str>| {
        let opts = VerifyOptions {
            origin: origin.map(|o| o.parse().unwrap()),
            ..Default::default()
        };
        verify_card(&signed.card, &trust, &opts).unwrap()
    };
    // Served from the bound origin (spelled any equivalent way): valid.
    for origin in ["https://agent.example", "https://AGENT.example:443/"] {
        assert_eq!(verdicts(&at(Some(origin))), ["valid"], "{origin}");
    }
    // Served from elsewhere, over http, or with no origin (a local file): the key is not trusted
    // for it, whatever host the card itself names.
    for origin in [
        Some("https://evil.example"),
        Some("https://agent.example.evil.example"),
        None,
    ] {
        assert_eq!(verdicts(&at(origin)), ["untrusted-key"], "{origin:?}");
    }
    // An origin that is not one (another scheme, a path, a non-ASCII or odd IPv4 host) is the
    // caller's mistake: refused, not left to match nothing.
    for bad in [
        "http://agent.example",
        "https://agent.example/a2a",
        "https://\u{e4}gent.example",
        "https://127.1",
    ] {
        let e = bad.parse::<a2a_card::signature::Origin>().unwrap_err();
        assert_eq!(e.code(), a2a_card::ErrorCode::Usage, "{bad}");
    }
}

// ---------------------------------------------------------------------------------------------
// Expired and revoked keys
// ---------------------------------------------------------------------------------------------

#[test]
fn validity_windows_are_inclusive_and_revocation_wins() {
    let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    let signed = sign_card(CARD.as_bytes(), &key, &lenient()).unwrap();
    let (nb, na) = (1_800_000_000, 1_900_000_000);
    let verdict_at = |now: i64, revoked: bool| {
        let mut trust = TrustStore::new();
        trust.add(TrustedKey {
            not_before: Some(nb),
            not_after: Some(na),
            revoked,
            ..TrustedKey::new(key.public().clone(), "windowed")
        });
        let opts = VerifyOptions {
            now: Some(now),
            ..Default::default()
        };
        let r = verify_card(&signed.card, &trust, &opts).unwrap();
        r.signatures[0].verdict.code
    };
    assert_eq!(verdict_at(nb - 1, false), "key-expired");
    assert_eq!(verdict_at(nb, false), "valid");
    assert_eq!(verdict_at(na, false), "valid");
    assert_eq!(verdict_at(na + 1, false), "key-expired");
    for now in [nb - 1, nb, na, na + 1] {
        assert_eq!(verdict_at(now, true), "key-revoked", "{now}");
    }
    // A key listed twice is bound by both entries (by thumbprint): an expired entry is not
    // escaped by listing the same key again, even by the caller (DESIGN: policy binds a key
    // wherever it arrives from). To extend a window, edit the entry.
    let mut trust = TrustStore::new();
    trust.add(TrustedKey {
        not_after: Some(nb),
        ..TrustedKey::new(key.public().clone(), "old entry")
    });
    trust.add(TrustedKey::new(key.public().clone(), "current entry"));
    let opts = VerifyOptions {
        now: Some(na),
        ..Default::default()
    };
    let r = verify_card(&signed.card, &trust, &opts).unwrap();
    assert_eq!(verdicts(&r), ["key-expired"]);
    assert!(r.signatures[0].verdict.message.contains("old entry"));
    // Another key under the same kid is not bound by it.
    let other = PrivateKey::generate(Algorithm::EdDSA)
        .unwrap()
        .with_kid(key.kid().to_string());
    let mut trust = TrustStore::new();
    trust.add(TrustedKey {
        not_after: Some(nb),
        ..TrustedKey::new(key.public().clone(), "old entry")
    });
    trust.add(TrustedKey::new(other.public().clone(), "new key"));
    let resigned = sign_card(CARD.as_bytes(), &other, &lenient()).unwrap();
    let r = verify_card(&resigned.card, &trust, &opts).unwrap();
    assert_eq!(verdicts(&r), ["valid"]);
    assert_eq!(
        r.signatures[0].key.as_ref().map(|k| k.source.label()).as_deref(),
        Some("new key")
    );
}
