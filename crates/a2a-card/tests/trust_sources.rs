//! The policy of a key follows its RFC 7638 thumbprint wherever the key comes from: every
//! policy member of a trust-store entry (revoked, notBefore, notAfter, origins, algorithms)
//! against every way the same key can reach a verification (a pinned key, a JWK Set file, the
//! trust-store entry itself, another trust store, a `jku` set, the leaf of an `x5c` chain to a
//! trust anchor, with or without the header's `jwk`). Adding a source (an anchor, a `jku`)
//! never widens what an entry allows. And a trust file never means less than it says: policy
//! written on a JWK, or a member no one defined, is refused with where it belongs.

#![allow(clippy::unwrap_used, clippy::panic)]

use a2a_card::jose::keys::{parse_jwks, PrivateKey};
use a2a_card::signature::trust::TrustedKey;
use a2a_card::signature::{KeySource, TrustAnchor};
use a2a_card::{sign_card, verify_card, SignOptions, TrustStore, VerifyOptions};
use a2a_card_testkit::pki::{Cert, Spec};
use serde_json::{json, Value};

const CARD: &[u8] = br#"{"name":"Agent","description":"d","version":"1","skills":[]}"#;
const ORIGIN: &str = "https://agent.example";
/// 2027-01-15, inside the certificates' validity (2020 to 2099).
const NOW: i64 = 1_800_000_000;

/// A policy member of a trust-store entry, as the file writes it, and the code of its refusal.
const MEMBERS: &[(&str, &str, &str)] = &[
    ("revoked", "true", "key-revoked"),
    ("notAfter", r#""2020-01-01T00:00:00Z""#, "key-expired"),
    ("notBefore", r#""2099-01-01T00:00:00Z""#, "key-expired"),
    ("origins", r#"["https://other.example"]"#, "untrusted-key"),
    ("algorithms", "[]", "algorithm-not-allowed"),
];

/// A root, an intermediate, and a leaf for agent.example whose key signs.
struct Fixture {
    root: Cert,
    chain: Vec<Vec<u8>>,
    key: PrivateKey,
}

fn fixture() -> Fixture {
    let root = Cert::root("Sources Root");
    let int = root.issue(&Spec::ca("Sources Intermediate", Some(0)));
    let leaf = int.issue(&Spec::leaf("agent").dns("agent.example"));
    Fixture {
        key: PrivateKey::from_pem(&leaf.key_pem).unwrap(),
        chain: vec![leaf.der.clone(), int.der.clone()],
        root,
    }
}

/// How the signing key reaches the verifier, and how the card names it.
#[derive(Clone, Copy, Debug)]
enum Source {
    /// A key given alone (`PublicKey`, pinned).
    Pinned,
    /// A JWK Set file read as pinned keys.
    JwksFile,
    /// The trust-store entry that carries the policy is the only listing.
    TrustEntry,
    /// Another trust store lists the key without policy.
    OtherTrustStore,
    /// A JWK Set served at an allowed `jku` (bound to the card's origin, as the fetcher adds it).
    Jku,
    /// The leaf of an `x5c` chain to an anchor; the card's kid names no trusted key.
    X5cLeaf,
    /// The same, with the header's `jwk` naming the leaf's key.
    X5cLeafWithJwk,
    /// The same, the card's kid naming the policy entry.
    X5cLeafKidOfEntry,
}

const SOURCES: &[Source] = &[
    Source::Pinned,
    Source::JwksFile,
    Source::TrustEntry,
    Source::OtherTrustStore,
    Source::Jku,
    Source::X5cLeaf,
    Source::X5cLeafWithJwk,
    Source::X5cLeafKidOfEntry,
];

/// The trust-store file with the key under kid "policy" and `member` (none: no policy).
fn policy_file(f: &Fixture, member: Option<(&str, &str)>) -> String {
    let jwk = f.key.public().to_jwk();
    let policy = member.map_or(String::new(), |(name, value)| format!(r#","{name}":{value}"#));
    format!(r#"{{"keys":[{{"jwk":{jwk},"kid":"policy"{policy}}}]}}"#)
}

/// The card and the store for `source`, the store holding the policy entry (`member`).
fn case(f: &Fixture, source: Source, member: Option<(&str, &str)>) -> (Vec<u8>, TrustStore) {
    let public = || f.key.public().clone().with_kid("k");
    let mut trust = TrustStore::from_json(&policy_file(f, member), "trust.json").unwrap();
    let mut opts = SignOptions {
        kid: Some("k".into()),
        ..SignOptions::default()
    };
    match source {
        Source::Pinned => trust.pin(public(), "key.pem"),
        Source::JwksFile => {
            let jwks = json!({ "keys": [public().to_jwk()] }).to_string();
            for k in parse_jwks(&jwks).unwrap() {
                trust.pin(k, "jwks.json");
            }
        }
        Source::TrustEntry => opts.kid = Some("policy".into()),
        Source::OtherTrustStore => {
            let other = json!({ "keys": [{ "jwk": public().to_jwk() }] }).to_string();
            trust.extend(&TrustStore::from_json(&other, "other.json").unwrap());
        }
        Source::Jku => {
            let mut k = TrustedKey::new(
                public(),
                KeySource::Jku {
                    url: "https://agent.example/keys.json".into(),
                    origin: ORIGIN.parse().unwrap(),
                },
            );
            k.origins = Some(vec![ORIGIN.parse().unwrap()]);
            trust.add(k);
        }
        Source::X5cLeaf | Source::X5cLeafWithJwk | Source::X5cLeafKidOfEntry => {
            trust.add_anchor(TrustAnchor::from_der(f.root.der.clone(), "anchors.pem").unwrap());
            opts.x5c = f.chain.clone();
            opts.kid = Some("leaf".into());
            if let Source::X5cLeafWithJwk = source {
                opts.extra_protected = vec![("jwk".into(), f.key.public().to_jwk())];
            }
            if let Source::X5cLeafKidOfEntry = source {
                opts.kid = Some("policy".into());
            }
        }
    }
    (sign_card(CARD, &f.key, &opts).unwrap().card, trust)
}

fn opts() -> VerifyOptions {
    VerifyOptions {
        origin: Some(ORIGIN.parse().unwrap()),
        now: Some(NOW),
        ..VerifyOptions::default()
    }
}

#[test]
fn every_policy_member_binds_the_key_through_every_source() {
    let f = fixture();
    for &source in SOURCES {
        // Without policy the key verifies through the source: the refusals below are the policy's.
        let (card, trust) = case(&f, source, None);
        let r = verify_card(&card, &trust, &opts()).unwrap();
        assert!(r.ok, "{source:?} without policy: {:?}", r.signatures[0].verdict);
        for &(name, value, code) in MEMBERS {
            let (card, trust) = case(&f, source, Some((name, value)));
            let r = verify_card(&card, &trust, &opts()).unwrap();
            let v = &r.signatures[0].verdict;
            assert!(!r.ok, "{source:?} {name}: the key verified past its entry");
            assert_eq!(v.code, code, "{source:?} {name}: {}", v.message);
            assert!(
                v.message.contains("trust.json") || matches!(source, Source::TrustEntry),
                "{source:?} {name}: the binding entry is not named: {}",
                v.message
            );
            assert!(
                r.signatures[0].certificate.is_none(),
                "{source:?} {name}: a refused leaf is reported as the chain used"
            );
        }
    }
}

#[test]
fn an_anchor_never_lifts_a_refusal_the_key_gets_without_it() {
    // The same revoked entry, the same card: key-revoked with and without the anchor.
    let f = fixture();
    let (card, with_anchor) = case(&f, Source::X5cLeafKidOfEntry, Some(("revoked", "true")));
    let without = TrustStore::from_json(&policy_file(&f, Some(("revoked", "true"))), "trust.json").unwrap();
    for trust in [&with_anchor, &without] {
        let r = verify_card(&card, trust, &opts()).unwrap();
        assert_eq!(r.signatures[0].verdict.code, "key-revoked");
    }
    // An entry for another key under the leaf's kid does not bind the leaf's key.
    let other = PrivateKey::generate(a2a_card::Algorithm::ES256).unwrap();
    let mut trust = TrustStore::new();
    let mut revoked = TrustedKey::new(other.public().clone().with_kid("leaf"), "trust.json");
    revoked.revoked = true;
    trust.add(revoked);
    trust.add_anchor(TrustAnchor::from_der(f.root.der.clone(), "anchors.pem").unwrap());
    let (card, _) = case(&f, Source::X5cLeaf, None);
    let r = verify_card(&card, &trust, &opts()).unwrap();
    assert!(r.ok, "{:?}", r.signatures[0].verdict);
}

/// The trust file of one entry `entry` (JSON text), read.
fn read(entry: &Value) -> a2a_card::Error {
    let text = json!({ "keys": [entry] }).to_string();
    TrustStore::from_json(&text, "trust.json").unwrap_err()
}

#[test]
fn policy_written_on_a_jwk_is_refused_with_the_form_that_says_it() {
    let key = PrivateKey::generate(a2a_card::Algorithm::ES256).unwrap();
    let jwk = key.public().to_jwk();
    let with = |name: &str, value: Value| {
        let mut j = jwk.clone();
        j[name] = value;
        j
    };
    let members: Vec<(&str, Value, &str)> = vec![
        ("revoked", json!(true), "\"revoked\": true"),
        ("notAfter", json!("2020-01-01T00:00:00Z"), "\"notAfter\""),
        ("notBefore", json!("2099-01-01T00:00:00Z"), "\"notBefore\""),
        ("origins", json!(["https://a.example"]), "\"origins\""),
        ("algorithms", json!(["ES256"]), "\"algorithms\""),
        ("exp", json!(1_600_000_000), "\"notAfter\""),
        ("nbf", json!(4_000_000_000_i64), "\"notBefore\""),
    ];
    for (name, value, form) in members {
        let token = name;
        // A bare JWK entry of a trust store, a JWK inside an entry, and a JWK Set of pinned keys.
        let bare = read(&with(name, value.clone()));
        assert_eq!(bare.code().as_str(), "invalid-trust-store", "{bare}");
        assert_eq!(bare.pointer(), Some(format!("/keys/0/{token}").as_str()));
        let wrapped = read(&json!({ "jwk": with(name, value.clone()) }));
        assert_eq!(wrapped.code().as_str(), "invalid-trust-store", "{wrapped}");
        assert_eq!(wrapped.pointer(), Some(format!("/keys/0/jwk/{token}").as_str()));
        let set = json!({ "keys": [with(name, value.clone())] }).to_string();
        let pinned = parse_jwks(&set).unwrap_err();
        assert_eq!(pinned.code().as_str(), "invalid-key", "{pinned}");
        assert_eq!(pinned.pointer(), Some(format!("/keys/0/{token}").as_str()));
        // A single JWK given as a key, and a JWK Set served at a jku (published by someone else).
        let single =
            a2a_card::jose::keys::PublicKey::parse(&with(name, value.clone()).to_string()).unwrap_err();
        assert_eq!(single.pointer(), Some(format!("/{token}").as_str()));
        let served = a2a_card::jose::keys::parse_jwks_limited(&set, 10).unwrap_err();
        assert_eq!(served.pointer(), Some(format!("/keys/0/{token}").as_str()));
        for e in [&bare, &wrapped, &pinned, &single, &served] {
            assert!(e.message().contains(r#"{"jwk": {...}, "#), "{e}");
            assert!(e.message().contains(form), "{e}");
            assert!(
                !e.message().contains(jwk["x"].as_str().unwrap()),
                "key material: {e}"
            );
        }
    }
    // The entry form is read, and means what it says.
    let ok = json!({ "keys": [{ "jwk": jwk, "revoked": true, "notAfter": "2030-01-01T00:00:00Z" }] });
    let store = TrustStore::from_json(&ok.to_string(), "trust.json").unwrap();
    assert!(store.keys()[0].revoked);
}

#[test]
fn unknown_members_of_trust_entries_are_refused_and_registered_jwk_members_kept() {
    let key = PrivateKey::generate(a2a_card::Algorithm::ES256).unwrap();
    let jwk = key.public().to_jwk();
    let mut odd = jwk.clone();
    odd["revokedAt"] = json!("2020-01-01T00:00:00Z");
    for (entry, pointer) in [
        (odd.clone(), "/keys/0/revokedAt"),
        (json!({ "jwk": odd.clone() }), "/keys/0/jwk/revokedAt"),
        (json!({ "jwk": jwk.clone(), "revokd": true }), "/keys/0/revokd"),
        (json!({ "jwk": jwk.clone(), "alg": "ES256" }), "/keys/0/alg"),
    ] {
        let e = read(&entry);
        assert_eq!(e.code().as_str(), "invalid-trust-store", "{e}");
        assert_eq!(e.pointer(), Some(pointer), "{e}");
    }
    let set = json!({ "keys": [odd] }).to_string();
    assert_eq!(parse_jwks(&set).unwrap_err().pointer(), Some("/keys/0/revokedAt"));
    // A published set may carry members of its own (they are no rule of the verifier's).
    assert!(a2a_card::jose::keys::parse_jwks_limited(&set, 10).is_ok());
    // Every member the JWK registries define is read.
    let mut full = jwk.clone();
    for (name, value) in [
        ("use", json!("sig")),
        ("key_ops", json!(["verify"])),
        ("alg", json!("ES256")),
        ("x5t#S256", json!("AAAA")),
        ("ext", json!(true)),
        ("iat", json!(1_600_000_000)),
    ] {
        full[name] = value;
    }
    let store = TrustStore::from_json(
        &json!({ "keys": [full.clone(), { "jwk": full }] }).to_string(),
        "t",
    )
    .unwrap();
    assert_eq!(store.keys().len(), 2);
}

#[test]
fn a_jwk_whose_key_ops_exclude_verifying_is_not_trusted_to_verify() {
    let key = PrivateKey::generate(a2a_card::Algorithm::ES256).unwrap();
    let mut jwk = key.public().to_jwk();
    jwk["key_ops"] = json!(["encrypt"]);
    // A trust-store entry or a single key says the key may not verify: refused, not ignored.
    let e = read(&json!({ "jwk": jwk.clone() }));
    assert_eq!(e.pointer(), Some("/keys/0/jwk/key_ops"), "{e}");
    let e = a2a_card::jose::keys::PublicKey::parse(&jwk.to_string()).unwrap_err();
    assert_eq!(
        (e.code().as_str(), e.pointer()),
        ("invalid-key", Some("/key_ops"))
    );
    // A JWK Set skips it, as it skips "use": "enc" keys: the set trusts nothing of it.
    let set = json!({ "keys": [jwk.clone()] }).to_string();
    assert!(parse_jwks(&set).unwrap().is_empty());
    // Policy written on a key the set skips is refused all the same.
    let mut enc = jwk.clone();
    enc["use"] = json!("enc");
    enc["revoked"] = json!(true);
    let set = json!({ "keys": [enc] }).to_string();
    assert_eq!(parse_jwks(&set).unwrap_err().pointer(), Some("/keys/0/revoked"));
    // "verify" (or "sign", on a private JWK) is a signature key.
    for ops in [json!(["verify"]), json!(["sign", "verify"]), json!(["sign"])] {
        jwk["key_ops"] = ops;
        assert!(a2a_card::jose::keys::PublicKey::parse(&jwk.to_string()).is_ok());
    }
    jwk["key_ops"] = json!("verify");
    assert!(a2a_card::jose::keys::PublicKey::parse(&jwk.to_string()).is_err());
}
