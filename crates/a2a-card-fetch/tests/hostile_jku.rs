//! A hostile origin's `jku` against the rules of remote verification, over real HTTPS on
//! loopback: the caller's trust entries bind a key that arrives through a `jku`, every redirect
//! of a `jku` stays under the allowlist prefix that allowed it, a JWK Set cannot grow past its
//! key limit, many keys under one kid are never all tried, and an encoded `..%2f` never matches
//! a prefix.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use a2a_card::jose::keys::PrivateKey;
use a2a_card::signature::trust::TrustedKey;
use a2a_card::Algorithm;
use a2a_card::{sign_card, SignOptions, TrustStore};
use a2a_card_fetch::{verify_remote, JkuStatus, KeySource, RemoteOptions, RemoteReport};
use common::{Fixture, Resp, Server};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

const UNSIGNED: &[u8] = br#"{"name":"Recipe Agent","description":"Cooks","version":"1.0.0","skills":[]}"#;

/// A server whose every path answers what `routes` holds for it (404 otherwise).
struct Host {
    fx: Arc<Fixture>,
    server: Server,
    routes: Arc<Mutex<HashMap<String, Resp>>>,
}

impl Host {
    fn new(fx: Arc<Fixture>) -> Host {
        let routes: Arc<Mutex<HashMap<String, Resp>>> = Arc::default();
        let r = routes.clone();
        let server = Server::start(&fx.leaf, move |req| {
            r.lock()
                .unwrap()
                .get(&req.path)
                .cloned()
                .unwrap_or_else(|| Resp::new(404))
        });
        Host { fx, server, routes }
    }

    fn route(&self, path: &str, resp: Resp) {
        self.routes.lock().unwrap().insert(path.to_string(), resp);
    }

    fn url(&self, path: &str) -> String {
        self.server.url("localhost", path)
    }

    fn verify(&self, trust: &TrustStore, allow: &[&str]) -> RemoteReport {
        let opts = RemoteOptions {
            jku_allow: allow.iter().map(|p| self.url(p)).collect(),
            ..RemoteOptions::default()
        };
        verify_remote(&self.url(""), trust, &opts, &self.fx.options()).unwrap()
    }
}

fn jwks(keys: &[&PrivateKey]) -> Resp {
    let keys: Vec<_> = keys.iter().map(|k| k.public().to_jwk()).collect();
    Resp::json(&serde_json::to_vec(&serde_json::json!({ "keys": keys })).unwrap())
}

fn signed(key: &PrivateKey, jku: &str) -> Resp {
    let opts = SignOptions {
        jku: Some(jku.to_string()),
        ..SignOptions::default()
    };
    Resp::json(&sign_card(UNSIGNED, key, &opts).unwrap().card)
}

/// A change to a trust entry's policy.
type Policy = Box<dyn Fn(&mut TrustedKey)>;

#[test]
fn a_caller_entry_binds_the_same_key_served_by_an_allowed_jku() {
    let host = Host::new(Arc::new(Fixture::new()));
    let key = PrivateKey::generate(Algorithm::ES256).unwrap().with_kid("dup");
    host.route(
        "/.well-known/agent-card.json",
        signed(&key, &host.url("/keys/jwks.json")),
    );
    host.route("/keys/jwks.json", jwks(&[&key]));

    // The jku alone supplies the key.
    let r = host.verify(&TrustStore::new(), &["/keys/"]);
    assert!(r.report.ok, "{}", r.report.reason);

    let other_origin: a2a_card::signature::Origin = host
        .server
        .url("127.0.0.1", "")
        .trim_end_matches('/')
        .parse()
        .unwrap();
    let cases: Vec<(&str, Policy)> = vec![
        ("key-revoked", Box::new(|e| e.revoked = true)),
        ("key-expired", Box::new(|e| e.not_after = Some(1_000_000_000))),
        ("key-expired", Box::new(|e| e.not_before = Some(4_000_000_000))),
        (
            "untrusted-key",
            Box::new(move |e| e.origins = Some(vec![other_origin.clone()])),
        ),
        (
            "algorithm-not-allowed",
            Box::new(|e| e.algorithms = Some(Vec::new())),
        ),
    ];
    for (want, policy) in cases {
        // The caller's entry holds the same key under another kid.
        let mut entry = TrustedKey::new(key.public().clone().with_kid("release-2026"), "trust.json");
        policy(&mut entry);
        let mut trust = TrustStore::new();
        trust.add(entry);
        let r = host.verify(&trust, &["/keys/"]);
        assert!(!r.report.ok, "{want}: the jku overrode the trust store");
        assert_eq!(
            r.report.signatures[0].verdict.code, want,
            "{}",
            r.report.signatures[0].verdict.message
        );
        assert!(matches!(r.jku[0].status, JkuStatus::Fetched { .. }));
    }

    // A set that marks the key revoked on the JWK itself is not read as trusting it: the set
    // is refused, with the member's place, and the card is not valid.
    let mut marked = key.public().to_jwk();
    marked["revoked"] = serde_json::json!(true);
    host.route(
        "/keys/jwks.json",
        Resp::json(&serde_json::to_vec(&serde_json::json!({ "keys": [marked] })).unwrap()),
    );
    let r = host.verify(&TrustStore::new(), &["/keys/"]);
    assert!(!r.report.ok, "a key its own set calls revoked verified");
    match &r.jku[0].status {
        JkuStatus::Failed { code, .. } => assert_eq!(code, "invalid-key"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn every_redirect_of_a_jku_stays_under_its_prefix() {
    let fx = Arc::new(Fixture::new());
    let host = Host::new(fx.clone());
    let elsewhere = Host::new(fx);
    let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    elsewhere.route("/keys/jwks.json", jwks(&[&key]));
    host.route("/keys/jwks.json", jwks(&[&key]));
    host.route("/other/jwks.json", jwks(&[&key]));
    host.route(
        "/keys/to-port",
        Resp::redirect(302, &elsewhere.url("/keys/jwks.json")),
    );
    host.route("/keys/to-path", Resp::redirect(302, "/other/jwks.json"));
    host.route("/keys/within", Resp::redirect(302, "/keys/jwks.json"));

    for (jku, leaves) in [
        ("/keys/to-port", true),
        ("/keys/to-path", true),
        ("/keys/within", false),
    ] {
        host.route("/.well-known/agent-card.json", signed(&key, &host.url(jku)));
        let r = host.verify(&TrustStore::new(), &["/keys/"]);
        if leaves {
            assert!(!r.report.ok, "{jku}: followed out of the prefix");
            match &r.jku[0].status {
                JkuStatus::Failed { code, message, .. } => {
                    assert_eq!(code, "redirect-invalid", "{message}");
                    assert!(message.contains("leaves the allowed jku prefix"), "{message}");
                }
                other => panic!("{jku}: {other:?}"),
            }
            assert_eq!(r.report.signatures[0].verdict.code, "untrusted-key");
            assert!(r.key_retrieval_failed());
        } else {
            assert!(r.report.ok, "{jku}: {}", r.report.reason);
            // The report names the URL the keys really came from.
            let from = host.url("/keys/jwks.json");
            assert!(
                matches!(&r.keys[0].source, KeySource::Jku { url, .. } if *url == from),
                "{:?}",
                r.keys[0].source
            );
            match &r.jku[0].status {
                JkuStatus::Fetched { final_url, .. } => assert_eq!(final_url, &from),
                other => panic!("{other:?}"),
            }
        }
    }
    assert_eq!(elsewhere.server.count("/keys/jwks.json"), 0);
    assert_eq!(host.server.count("/other/jwks.json"), 0);
}

#[test]
fn a_jwks_past_its_key_limit_and_a_crowd_under_one_kid_cost_nothing() {
    let host = Host::new(Arc::new(Fixture::new()));
    let crowd: Vec<PrivateKey> = (0..65)
        .map(|_| PrivateKey::generate(Algorithm::ES256).unwrap().with_kid("dup"))
        .collect();
    let refs: Vec<&PrivateKey> = crowd.iter().collect();
    // 16 signatures, all kid "dup", by the last key of the set (appended: the kid is the same).
    let mut card = UNSIGNED.to_vec();
    let jku = host.url("/keys/jwks.json");
    for _ in 0..16 {
        let opts = SignOptions {
            jku: Some(jku.clone()),
            append_same_kid: true,
            ..SignOptions::default()
        };
        card = sign_card(&card, &crowd[64], &opts).unwrap().card;
    }
    host.route("/.well-known/agent-card.json", Resp::json(&card));

    // 65 keys: over the set limit (64), the set is refused before any key is read.
    host.route("/keys/jwks.json", jwks(&refs));
    let r = host.verify(&TrustStore::new(), &["/keys/"]);
    match &r.jku[0].status {
        JkuStatus::Failed { code, .. } => assert_eq!(code, "too-many-keys"),
        other => panic!("{other:?}"),
    }
    assert!(!r.report.ok);

    // 64 keys under one kid: over the per-kid limit (4), no signature is tried against them.
    host.route("/keys/jwks.json", jwks(&refs[1..]));
    let r = host.verify(&TrustStore::new(), &["/keys/"]);
    assert!(matches!(r.jku[0].status, JkuStatus::Fetched { .. }));
    assert!(r
        .report
        .signatures
        .iter()
        .all(|s| s.verdict.code == "too-many-keys"));

    // The limits are the caller's: with room for every key the signer's key is found.
    let opts = RemoteOptions {
        jku_allow: vec![host.url("/keys/")],
        verify: a2a_card::VerifyOptions {
            max_keys_per_kid: 64,
            max_signature_checks: 64 * 16,
            ..Default::default()
        },
        ..RemoteOptions::default()
    };
    let r = verify_remote(&host.url(""), &TrustStore::new(), &opts, &host.fx.options()).unwrap();
    assert!(r.report.ok, "{}", r.report.reason);
}

#[test]
fn an_encoded_dot_dot_slash_never_falls_under_a_prefix() {
    let host = Host::new(Arc::new(Fixture::new()));
    let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    host.route("/admin/jwks.json", jwks(&[&key]));
    for jku in [
        "/keys/..%2fadmin/jwks.json",
        "/keys/..%2Fadmin/jwks.json",
        "/keys/%2e%2e/admin/jwks.json",
        "/keys/..%5cadmin/jwks.json",
    ] {
        host.route("/.well-known/agent-card.json", signed(&key, &host.url(jku)));
        let r = host.verify(&TrustStore::new(), &["/keys/"]);
        assert_eq!(r.jku[0].status, JkuStatus::NotAllowed, "{jku}");
        assert!(!r.report.ok);
    }
    assert_eq!(
        host.server
            .requests()
            .iter()
            .filter(|q| q.path.contains("admin"))
            .count(),
        0
    );
}

/// A `jku` that is not a URL, or whose host no origin can name, is read once (as the URL the
/// allowlist is matched against) and reported as matching no prefix, with the same line as
/// before; nothing is requested for it.
#[test]
fn a_jku_that_is_not_a_url_matches_no_prefix_and_is_never_requested() {
    let host = Host::new(Arc::new(Fixture::new()));
    let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    host.route("/keys/jwks.json", jwks(&[&key]));
    for jku in [
        "https://[::1/keys/jwks.json",
        "https://a!b.example/keys/jwks.json",
        "https://localhost:99999/keys/jwks.json",
    ] {
        host.route("/.well-known/agent-card.json", signed(&key, jku));
        let r = host.verify(&TrustStore::new(), &["/keys/"]);
        assert_eq!(r.jku.len(), 1, "{jku}");
        assert_eq!(r.jku[0].url, jku);
        assert_eq!(r.jku[0].status, JkuStatus::NotAllowed, "{jku}");
        assert!(!r.report.ok);
        let line = format!("jku \"{jku}\" (signature 0): not fetched: no allowed jku prefix matches it");
        assert!(r.to_text().lines().any(|l| l.ends_with(&line)), "{}", r.to_text());
    }
    assert!(
        host.server
            .requests()
            .iter()
            .all(|q| !q.path.starts_with("/keys/")),
        "a jku was requested"
    );
}
