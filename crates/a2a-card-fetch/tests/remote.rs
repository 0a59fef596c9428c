//! Verifying a remote agent end to end: cards signed with a2a_card::sign_card, served over real
//! HTTPS on loopback, verified against trust stores, with and without `jku`.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use a2a_card::jose::keys::PrivateKey;
use a2a_card::signature::trust::TrustedKey;
use a2a_card::Algorithm;
use a2a_card::{sign_card, SignOptions, TrustStore};
use a2a_card_fetch::{verify_remote, ErrorCode, JkuStatus, KeySource, RemoteOptions, RemoteReport};
use common::{Fixture, Resp, Server};
use std::sync::{Arc, Mutex};

const UNSIGNED: &[u8] = br#"{"name":"Recipe Agent","description":"Cooks","version":"1.0.0","capabilities":{"streaming":true},"skills":[{"id":"cook","name":"Cook","description":"Cooks a recipe","tags":["food"]}]}"#;

fn sign(key: &PrivateKey, jku: Option<String>) -> Vec<u8> {
    let opts = SignOptions {
        jku,
        ..SignOptions::default()
    };
    sign_card(UNSIGNED, key, &opts).unwrap().card
}

fn jwks_of(key: &PrivateKey) -> Vec<u8> {
    let jwk = key.public().to_jwk();
    serde_json::to_vec(&serde_json::json!({ "keys": [jwk] })).unwrap()
}

/// A server whose card is set after start (its signature names the server's own port).
struct Agent {
    fx: Fixture,
    server: Server,
    card: Arc<Mutex<Vec<u8>>>,
    jwks: Arc<Mutex<Vec<u8>>>,
}

impl Agent {
    fn new() -> Agent {
        let fx = Fixture::new();
        let card = Arc::new(Mutex::new(Vec::new()));
        let jwks = Arc::new(Mutex::new(Vec::new()));
        let (c, j) = (card.clone(), jwks.clone());
        let server = Server::start(&fx.leaf, move |req| match req.path.as_str() {
            "/.well-known/agent-card.json" => Resp::json(&c.lock().unwrap()),
            "/moved" => Resp::redirect(302, "/.well-known/agent-card.json"),
            // To the other origin of the same server (localhost:PORT -> 127.0.0.1:PORT).
            "/away" => {
                let port = req
                    .header("host")
                    .and_then(|h| h.rsplit(':').next())
                    .unwrap_or("");
                Resp::redirect(
                    302,
                    &format!("https://127.0.0.1:{port}/.well-known/agent-card.json"),
                )
            }
            "/keys/jwks.json" | "/other/jwks.json" => Resp::new(200)
                .header("Content-Type", "application/jwk-set+json")
                .body(&j.lock().unwrap()),
            "/keys/to-metadata" => Resp::redirect(302, "https://169.254.169.254/jwks.json"),
            "/keys/not-json" => Resp::new(200).header("Content-Type", "text/plain").body(b"{}"),
            "/not-a-card" => Resp::json(b"{\"a\":1,\"a\":2}"),
            _ => Resp::new(404),
        });
        Agent {
            fx,
            server,
            card,
            jwks,
        }
    }

    fn serve(&self, card: Vec<u8>) {
        *self.card.lock().unwrap() = card;
    }

    fn origin(&self, host: &str) -> String {
        self.server.url(host, "")
    }

    fn verify(&self, url: &str, trust: &TrustStore, jku_allow: &[String]) -> RemoteReport {
        let opts = RemoteOptions {
            jku_allow: jku_allow.to_vec(),
            ..RemoteOptions::default()
        };
        verify_remote(url, trust, &opts, &self.fx.options()).unwrap()
    }
}

fn bound(key: &PrivateKey, origins: &[String]) -> TrustStore {
    let mut tk = TrustedKey::new(key.public().clone(), "trust.json");
    tk.origins = Some(origins.iter().map(|o| o.parse().unwrap()).collect());
    let mut store = TrustStore::new();
    store.add(tk);
    store
}

#[test]
fn a_card_signed_by_a_trusted_key_verifies_over_https() {
    let agent = Agent::new();
    let key = PrivateKey::generate(Algorithm::ES256)
        .unwrap()
        .with_kid("agent-2026");
    agent.serve(sign(&key, None));
    let mut trust = TrustStore::new();
    trust.pin(key.public().clone(), "pinned.jwk");

    let r = agent.verify(&agent.origin("localhost"), &trust, &[]);
    assert!(r.report.ok, "{}", r.report.reason);
    assert_eq!(r.origin, agent.origin("localhost"));
    assert_eq!(
        r.final_url,
        agent.server.url("localhost", "/.well-known/agent-card.json")
    );
    assert_eq!(r.report.signatures[0].verdict.code, "valid");
    assert_eq!(r.keys.len(), 1);
    assert_eq!(
        r.keys[0].source,
        KeySource::Pinned {
            label: "pinned.jwk".into()
        }
    );
    // The JSON form of the retrieval's facts: these members, the key's source as before.
    let json = r.to_json();
    let names: Vec<&str> = json["fetch"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        names,
        [
            "requested_url",
            "origin",
            "final_url",
            "redirects",
            "status",
            "content_type",
            "cache",
            "peer",
            "protocol",
            "proxy",
            "keys",
            "jku",
            "warnings"
        ]
    );
    assert_eq!(
        json["fetch"]["keys"][0],
        serde_json::json!({"index": 0, "kid": "agent-2026", "source": {"from": "trust-store", "source": "pinned.jwk"}})
    );
    assert_eq!(r.keys[0].kid, "agent-2026");
    assert!(r.jku.is_empty());
    assert_eq!(r.card, *agent.card.lock().unwrap());
    // The verified content is the canonical form of what was signed.
    let c = a2a_card::canonicalize(UNSIGNED, &a2a_card::CanonicalizeOptions::default()).unwrap();
    assert_eq!(r.report.verified_content(), Some(c.bytes.as_slice()));

    // A key the store does not hold: the same card is refused.
    let stranger = PrivateKey::generate(Algorithm::ES256)
        .unwrap()
        .with_kid("agent-2026");
    let mut other = TrustStore::new();
    other.pin(stranger.public().clone(), "stranger");
    let r = agent.verify(&agent.origin("localhost"), &other, &[]);
    assert!(!r.report.ok);
    assert_eq!(r.report.signatures[0].verdict.code, "signature-invalid");

    // The report serializes with the origin, final URL and key sources.
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(json["origin"], agent.origin("localhost"));
    assert_eq!(json["report"]["ok"], false);
    assert!(json.get("card").is_none());

    // Its JSON form is the file report's (Report::to_json, member for member) with the
    // retrieval's facts beside it under "fetch".
    let json = r.to_json();
    let file_form = r.report.to_json();
    let names: Vec<&String> = json.as_object().unwrap().keys().collect();
    let mut expected: Vec<&String> = file_form.as_object().unwrap().keys().collect();
    let fetch = "fetch".to_string();
    expected.push(&fetch);
    assert_eq!(names, expected);
    for (name, value) in file_form.as_object().unwrap() {
        assert_eq!(&json[name], value, "member {name}");
    }
    let f = &json["fetch"];
    assert_eq!(f["origin"], agent.origin("localhost"));
    assert_eq!(f["final_url"], r.final_url.as_str());
    assert_eq!(f["status"], 200);
    assert_eq!(f["cache"], "off");
    assert_eq!(f["jku"], serde_json::json!([]));
    assert!(f.get("report").is_none() && f.get("card").is_none(), "{f}");
}

#[test]
fn origin_bound_trust_entries_follow_the_requested_origin() {
    let agent = Agent::new();
    let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    agent.serve(sign(&key, None));
    // The same server is two origins: https://localhost:PORT and https://127.0.0.1:PORT.
    let for_ip = bound(&key, &[agent.origin("127.0.0.1")]);
    let r = agent.verify(&agent.origin("localhost"), &for_ip, &[]);
    assert!(!r.report.ok);
    assert_eq!(r.report.signatures[0].verdict.code, "untrusted-key");
    assert!(r.report.signatures[0]
        .verdict
        .message
        .contains("may sign only for"));
    let r = agent.verify(&agent.origin("127.0.0.1"), &for_ip, &[]);
    assert!(r.report.ok, "{}", r.report.reason);
    assert_eq!(r.origin, agent.origin("127.0.0.1"));

    // A redirect keeps the origin that was asked for.
    let for_localhost = bound(&key, &[agent.origin("localhost")]);
    let r = agent.verify(&agent.server.url("localhost", "/moved"), &for_localhost, &[]);
    assert!(r.report.ok, "{}", r.report.reason);
    assert_eq!(
        r.redirects,
        [agent.server.url("localhost", "/.well-known/agent-card.json")]
    );
    assert_eq!(r.origin, agent.origin("localhost"));

    // A redirect to another origin keeps it too: a key bound to the redirect target's origin
    // only does not sign for a card asked for at the first origin; one bound to the first does.
    let away = agent.server.url("localhost", "/away");
    let r = agent.verify(&away, &for_ip, &[]);
    assert_eq!(
        r.redirects,
        [agent.server.url("127.0.0.1", "/.well-known/agent-card.json")]
    );
    assert_eq!(r.origin, agent.origin("localhost"));
    assert!(!r.report.ok);
    assert_eq!(r.report.signatures[0].verdict.code, "untrusted-key");
    let r = agent.verify(&away, &for_localhost, &[]);
    assert!(r.report.ok, "{}", r.report.reason);
}

#[test]
fn verify_options_out_of_bounds_are_refused_before_any_request() {
    let agent = Agent::new();
    let mut opts = RemoteOptions::default();
    opts.verify.max_signatures = 1_000_000_000_000;
    let e = verify_remote(
        &agent.origin("localhost"),
        &TrustStore::new(),
        &opts,
        &agent.fx.options(),
    )
    .unwrap_err();
    assert_eq!(e.code(), a2a_card::ErrorCode::Usage);
    assert_eq!(e.message(), "max_signatures must be 1 to 256, got 1000000000000");
    assert_eq!(agent.server.requests().len(), 0);
}

#[test]
fn a_jku_under_the_allowlist_supplies_the_key() {
    let agent = Agent::new();
    let key = PrivateKey::generate(Algorithm::EdDSA)
        .unwrap()
        .with_kid("from-jku");
    let jku = agent.server.url("localhost", "/keys/jwks.json");
    agent.serve(sign(&key, Some(jku.clone())));
    *agent.jwks.lock().unwrap() = jwks_of(&key);
    let empty = TrustStore::new();

    let allow = [agent.server.url("localhost", "/keys/")];
    let r = agent.verify(&agent.origin("localhost"), &empty, &allow);
    assert!(r.report.ok, "{}", r.report.reason);
    assert!(
        matches!(&r.keys[0].source, KeySource::Jku { url, .. } if *url == jku),
        "{:?}",
        r.keys[0].source
    );
    assert_eq!(
        r.to_json()["fetch"]["keys"][0]["source"],
        serde_json::json!({"from": "jku", "url": jku})
    );
    assert_eq!(
        r.report.signatures[0].key.as_ref().unwrap().source.label(),
        format!("jku:{jku}")
    );
    assert_eq!(r.jku.len(), 1);
    assert_eq!(r.jku[0].signatures, [0]);
    match &r.jku[0].status {
        JkuStatus::Fetched { origin, kids, .. } => {
            assert_eq!(origin, &agent.origin("localhost"));
            assert_eq!(kids, &["from-jku".to_string()]);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(agent.server.count("/keys/jwks.json"), 1);
}

/// An allowed `jku` whose JWK Set holds the Ed25519 identity point: under it the signature
/// R = identity, S = 0 verifies for any card, so an allowlisted key server that serves it
/// (compromised, or careless) would vouch for every card. The set is refused as `weak-key`
/// and the forged card does not verify.
#[test]
fn a_jku_serving_a_small_order_key_is_refused() {
    use base64::Engine as _;
    let b64u = |b: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(b);
    let agent = Agent::new();
    let jku = agent.server.url("localhost", "/keys/jwks.json");
    let mut identity = vec![0u8; 32];
    identity[0] = 1;
    let mut forged = identity.clone();
    forged.extend_from_slice(&[0u8; 32]);
    let protected = serde_json::json!({"alg": "EdDSA", "kid": "weak", "typ": "JOSE", "jku": jku}).to_string();
    let mut card: serde_json::Value = serde_json::from_slice(UNSIGNED).unwrap();
    card["signatures"] =
        serde_json::json!([{"protected": b64u(protected.as_bytes()), "signature": b64u(&forged)}]);
    agent.serve(serde_json::to_vec(&card).unwrap());
    *agent.jwks.lock().unwrap() = serde_json::to_vec(&serde_json::json!({"keys": [
        {"kty": "OKP", "crv": "Ed25519", "x": b64u(&identity), "kid": "weak"}
    ]}))
    .unwrap();

    let allow = [agent.server.url("localhost", "/keys/")];
    let r = agent.verify(&agent.origin("localhost"), &TrustStore::new(), &allow);
    assert!(!r.report.ok, "{}", r.report.reason);
    match &r.jku[0].status {
        JkuStatus::Failed { code, message, .. } => {
            assert_eq!(code, "weak-key", "{message}");
            assert!(message.contains("small order"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(agent.server.count("/keys/jwks.json"), 1);
}

#[test]
fn a_jku_off_the_allowlist_is_reported_and_not_fetched() {
    let agent = Agent::new();
    let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    let jku = agent.server.url("localhost", "/keys/jwks.json");
    agent.serve(sign(&key, Some(jku.clone())));
    *agent.jwks.lock().unwrap() = jwks_of(&key);
    let empty = TrustStore::new();

    // No allowlist; an allowlist elsewhere on the same origin; a look-alike prefix.
    for allow in [
        vec![],
        vec![agent.server.url("localhost", "/other/")],
        vec![agent.server.url("localhost", "/keys/jwks")],
        vec![agent.server.url("127.0.0.1", "/keys/")],
    ] {
        let r = agent.verify(&agent.origin("localhost"), &empty, &allow);
        assert!(!r.report.ok, "{allow:?}");
        assert_eq!(r.report.signatures[0].verdict.code, "untrusted-key");
        assert_eq!(r.report.signatures[0].jku.as_deref(), Some(jku.as_str()));
        assert_eq!(r.jku[0].url, jku);
        assert_eq!(r.jku[0].status, JkuStatus::NotAllowed, "{allow:?}");
        assert!(!r.key_retrieval_failed());
    }
    // The prefix matches, but it is another origin's: its keys could not sign this card.
    let card_from_ip = agent.verify(
        &agent.origin("127.0.0.1"),
        &empty,
        &[agent.server.url("localhost", "/keys/")],
    );
    assert_eq!(
        card_from_ip.jku[0].status,
        JkuStatus::OtherOrigin {
            prefix_origin: agent.origin("localhost").parse().unwrap()
        }
    );
    assert!(!card_from_ip.report.ok);
    assert_eq!(
        agent.server.count("/keys/jwks.json"),
        0,
        "the server saw no JWKS request"
    );
}

#[test]
fn a_jku_fetch_passes_the_same_guard_and_checks() {
    let agent = Agent::new();
    let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    let allow = [agent.server.url("localhost", "/keys/")];
    // Allowed, but it redirects to the metadata address: refused before connecting, because the
    // hop leaves the allowlist prefix (the guard would refuse the address too).
    agent.serve(sign(
        &key,
        Some(agent.server.url("localhost", "/keys/to-metadata")),
    ));
    let r = agent.verify(&agent.origin("localhost"), &TrustStore::new(), &allow);
    match &r.jku[0].status {
        JkuStatus::Failed { code, .. } => assert_eq!(code, "redirect-invalid"),
        other => panic!("{other:?}"),
    }
    assert!(!r.report.ok);
    assert!(r.key_retrieval_failed());
    // Allowed, but not JSON.
    agent.serve(sign(&key, Some(agent.server.url("localhost", "/keys/not-json"))));
    let r = agent.verify(&agent.origin("localhost"), &TrustStore::new(), &allow);
    assert!(matches!(&r.jku[0].status, JkuStatus::Failed { code, .. } if code == "not-json"));
    // Missing.
    agent.serve(sign(&key, Some(agent.server.url("localhost", "/keys/gone.json"))));
    let r = agent.verify(&agent.origin("localhost"), &TrustStore::new(), &allow);
    assert!(matches!(&r.jku[0].status, JkuStatus::Failed { code, .. } if code == "http-status"));
    // A jku fetched directly goes through the guard as well.
    for target in [
        "https://10.0.0.1/jwks.json",
        "https://[::ffff:127.0.0.1]/jwks.json",
    ] {
        let e = a2a_card_fetch::fetch_jwks(target, &agent.fx.options()).unwrap_err();
        assert_eq!(e.code(), ErrorCode::AddressRefused, "{target}");
    }
}

#[test]
fn the_trust_store_stays_the_root() {
    // A trusted key signs; a jku names a JWKS holding another key with the same kid. The
    // trusted key still verifies, and the report says where it came from.
    let agent = Agent::new();
    let key = PrivateKey::generate(Algorithm::EdDSA).unwrap().with_kid("k");
    let impostor = PrivateKey::generate(Algorithm::EdDSA).unwrap().with_kid("k");
    agent.serve(sign(&key, Some(agent.server.url("localhost", "/keys/jwks.json"))));
    *agent.jwks.lock().unwrap() = jwks_of(&impostor);
    let mut trust = TrustStore::new();
    trust.pin(key.public().clone(), "trust.json");
    let r = agent.verify(
        &agent.origin("localhost"),
        &trust,
        &[agent.server.url("localhost", "/keys/")],
    );
    assert!(r.report.ok);
    assert_eq!(
        r.keys[0].source,
        KeySource::Pinned {
            label: "trust.json".into()
        }
    );
    // With only the impostor's JWKS, the card does not verify.
    let r = agent.verify(
        &agent.origin("localhost"),
        &TrustStore::new(),
        &[agent.server.url("localhost", "/keys/")],
    );
    assert!(!r.report.ok);
    assert_eq!(r.report.signatures[0].verdict.code, "signature-invalid");
}

#[test]
fn errors_of_verify_remote() {
    let agent = Agent::new();
    let opts = RemoteOptions::default();
    // A card that is not I-JSON: the a2a-card code, with the URL.
    let e = verify_remote(
        &agent.server.url("localhost", "/not-a-card"),
        &TrustStore::new(),
        &opts,
        &agent.fx.options(),
    )
    .unwrap_err();
    assert_eq!(e.code(), a2a_card::ErrorCode::DuplicateMember);
    assert_eq!(e.pointer(), Some("/a"));
    // A retrieval failure keeps its fetch code.
    let e = verify_remote(
        &agent.server.url("localhost", "/nothing"),
        &TrustStore::new(),
        &opts,
        &agent.fx.options(),
    )
    .unwrap_err();
    assert_eq!(e.code(), ErrorCode::HttpStatus);
    // An unusable allowlist prefix is a usage error, before any request.
    let bad = RemoteOptions {
        jku_allow: vec!["http://keys.example.com/".into()],
        ..RemoteOptions::default()
    };
    let before = agent.server.requests().len();
    let e = verify_remote(
        &agent.origin("localhost"),
        &TrustStore::new(),
        &bad,
        &agent.fx.options(),
    )
    .unwrap_err();
    assert!(e.is_caller_input());
    assert_eq!(e.code(), ErrorCode::NotHttps);
    assert_eq!(agent.server.requests().len(), before);
}
