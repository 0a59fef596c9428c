//! The service over real HTTP on loopback: verdicts under each mode and in audit, the body and
//! head limits, slow clients, the in-flight limit and the deadline, refusals that name their
//! place, the policy file's refusals and reload.
#![allow(clippy::unwrap_used, clippy::panic)] // a panic is how a test fails

mod common;

use a2a_card_serve::{Limits, Service};
use common::*;
use serde_json::json;
use std::time::Duration;

/// The body `a2a-card verify --format json` prints: the core's `Report::to_json`, pretty, one
/// newline.
fn report_text(card: &[u8], dir: &std::path::Path) -> Vec<u8> {
    let jwks = std::fs::read_to_string(dir.join("jwks.json")).unwrap();
    let ready = a2a_card::request::VerifyRequest {
        jwks: Some(vec![a2a_card::request::Input::new(jwks, "jwks.json")]),
        ..Default::default()
    }
    .build()
    .unwrap();
    let mut text = serde_json::to_vec_pretty(&ready.verify(card).unwrap().to_json()).unwrap();
    text.push(b'\n');
    text
}

#[tokio::test]
async fn valid_tampered_and_unsigned_cards_under_each_mode() {
    let dir = scratch("modes");
    let s = signed(&dir);
    let svc = start(dir.clone(), &policy(json!({})), Limits::default()).await;
    let valid = post(svc.addr, "/v1/verify", &s.card).await;
    assert_eq!(valid.status, 200, "{}", String::from_utf8_lossy(&valid.body));
    assert_eq!(valid.header("a2a-card-verdict"), Some("valid"));
    assert_eq!(valid.header("content-type"), Some("application/json"));
    // Byte for byte the report the CLI prints, from the same core function.
    assert_eq!(valid.body, report_text(&s.card, &dir));
    // A card past 16 KiB is verified on a blocking thread rather than in place: the same
    // answer.
    let mut big: serde_json::Value = serde_json::from_slice(&sample()).unwrap();
    big["description"] = "d".repeat(20 * 1024).into();
    let big = a2a_card::sign_card(
        &serde_json::to_vec(&big).unwrap(),
        &s.key,
        &a2a_card::SignOptions {
            allow_unsigned: true,
            ..a2a_card::SignOptions::default()
        },
    )
    .unwrap()
    .card;
    assert!(big.len() > 16 * 1024);
    let answer = post(svc.addr, "/v1/verify", &big).await;
    assert_eq!(answer.status, 200, "{}", String::from_utf8_lossy(&answer.body));
    assert_eq!(answer.body, report_text(&big, &dir));

    let bad = post(svc.addr, "/v1/verify", &tampered(&s.card)).await;
    assert_eq!(bad.status, 422);
    assert_eq!(bad.header("a2a-card-verdict"), Some("invalid"));
    let j = bad.json();
    assert_eq!(j["ok"], false);
    assert_eq!(j["signatures"][0]["verdict"]["code"], "signature-invalid");

    let unsigned = post(svc.addr, "/v1/verify", &sample()).await;
    assert_eq!(unsigned.status, 422);
    assert_eq!(unsigned.json()["mode"], "require");
    let metrics = get(svc.addr, "/metrics").await;
    let text = String::from_utf8(metrics.body).unwrap();
    for line in [
        "a2a_card_serve_verifications_total{endpoint=\"verify\",verdict=\"valid\",code=\"valid\"} 2",
        "a2a_card_serve_verifications_total{endpoint=\"verify\",verdict=\"invalid\",code=\"signature-invalid\"} 1",
        "a2a_card_serve_verifications_total{endpoint=\"verify\",verdict=\"invalid\",code=\"unsigned\"} 1",
        "a2a_card_serve_request_duration_seconds_count{endpoint=\"verify\"} 4",
        "a2a_card_serve_in_flight_requests 0",
    ] {
        assert!(text.contains(line), "no {line} in\n{text}");
    }
    svc.stop().await;

    for (mode, unsigned_status, tampered_status) in
        [("if-present", 200, 422), ("all", 422, 422), ("off", 200, 200)]
    {
        let dir = scratch(&format!("mode-{mode}"));
        let s = signed(&dir);
        let svc = start(dir, &policy(json!({"mode": mode})), Limits::default()).await;
        let u = post(svc.addr, "/v1/verify", &sample()).await;
        assert_eq!(u.status, unsigned_status, "unsigned under {mode}");
        assert_eq!(u.json()["mode"], mode);
        let t = post(svc.addr, "/v1/verify", &tampered(&s.card)).await;
        assert_eq!(t.status, tampered_status, "tampered under {mode}");
        let v = post(svc.addr, "/v1/verify", &s.card).await;
        assert_eq!(v.status, 200, "valid under {mode}");
        if mode == "off" {
            assert_eq!(v.header("a2a-card-verdict"), Some("off"));
            assert!(v.json()["reason"]
                .as_str()
                .unwrap()
                .contains("nothing was checked"));
        }
        svc.stop().await;
    }
}

#[tokio::test]
async fn audit_reports_every_verdict_with_200() {
    let dir = scratch("audit");
    let s = signed(&dir);
    let mut p = policy(json!({}));
    p["audit"] = json!(true);
    let svc = start(dir, &p, Limits::default()).await;
    let t = post(svc.addr, "/v1/verify", &tampered(&s.card)).await;
    assert_eq!(t.status, 200);
    assert_eq!(t.header("a2a-card-verdict"), Some("invalid"));
    assert_eq!(t.json()["ok"], false);
    let u = post(svc.addr, "/v1/verify", &sample()).await;
    assert_eq!((u.status, u.json()["ok"].clone()), (200, json!(false)));
    let m = post(svc.addr, "/v1/verify", b"{\"name\": ").await;
    assert_eq!(m.status, 200);
    assert_eq!(m.header("a2a-card-verdict"), Some("error"));
    assert_eq!(m.json()["code"], "invalid-json");
    // A request the service refuses is not a verdict: its status stays.
    let r = post(svc.addr, "/v1/verify-remote", b"[]").await;
    assert_eq!(r.status, 400);
    svc.stop().await;
}

#[tokio::test]
async fn malformed_bodies_are_refused_naming_the_place() {
    let dir = scratch("malformed");
    signed(&dir);
    let svc = start(dir, &policy(json!({})), Limits::default()).await;
    let dup = post(svc.addr, "/v1/verify", br#"{"name":"a","name":"b"}"#).await;
    assert_eq!(dup.status, 400);
    let j = dup.json();
    assert_eq!(
        (j["code"].as_str(), j["pointer"].as_str(), j["source"].as_str()),
        (Some("duplicate-member"), Some("/name"), Some("the request body"))
    );
    let cut = post(svc.addr, "/v1/verify", b"{\"name\": \"a").await;
    assert_eq!(cut.status, 400);
    assert_eq!(cut.json()["code"], "invalid-json");
    assert!(cut.json()["offset"].is_u64());
    let not_object = post(svc.addr, "/v1/verify", b"[1]").await;
    assert_eq!(
        not_object.status,
        400,
        "{}",
        String::from_utf8_lossy(&not_object.body)
    );

    for (body, code, pointer) in [
        (&b"{\"url\": 1}"[..], "type-mismatch", "/url"),
        (
            b"{\"url\": \"https://a.example\", \"x\": 1}",
            "unknown-member",
            "/x",
        ),
        (b"\"https://a.example\"", "usage", ""),
        (b"{\"url\": ", "invalid-json", ""),
    ] {
        let a = post(svc.addr, "/v1/verify-remote", body).await;
        assert_eq!(a.status, 400, "{}", String::from_utf8_lossy(&a.body));
        let j = a.json();
        assert_eq!(j["code"], code, "{j}");
        if !pointer.is_empty() {
            assert_eq!(j["pointer"], pointer, "{j}");
        }
        assert_eq!(j["source"], "the request body");
    }
    // An object without the member is told so, not that it is not an object.
    let empty = post(svc.addr, "/v1/verify-remote", b"{}").await;
    assert_eq!(empty.status, 400);
    let j = empty.json();
    assert_eq!(j["code"], "usage", "{j}");
    assert!(
        j["message"]
            .as_str()
            .unwrap()
            .starts_with("the body has no member \"url\""),
        "{j}"
    );
    let bad_url = post(svc.addr, "/v1/verify-remote", br#"{"url": "ftp://x"}"#).await;
    assert_eq!(bad_url.status, 400, "{}", String::from_utf8_lossy(&bad_url.body));
    assert_eq!(bad_url.json()["code"], "not-https", "{}", bad_url.json());
    let nf = get(svc.addr, "/v2/verify").await;
    assert_eq!((nf.status, nf.json()["code"].as_str()), (404, Some("not-found")));
    let m = get(svc.addr, "/v1/verify").await;
    assert_eq!((m.status, m.header("allow")), (405, Some("POST")));
    assert!(m.json()["message"]
        .as_str()
        .unwrap()
        .contains("/v1/verify answers POST only"));
    svc.stop().await;
}

#[tokio::test]
async fn bodies_and_heads_past_their_limits_are_refused() {
    let dir = scratch("limits");
    signed(&dir);
    let limits = Limits {
        max_body_bytes: 1000,
        max_header_bytes: 2048,
        ..Limits::default()
    };
    let svc = start(dir, &policy(json!({})), limits).await;
    let big = vec![b' '; 1001];
    let a = post(svc.addr, "/v1/verify", &big).await;
    assert_eq!(a.status, 413);
    let j = a.json();
    assert_eq!(
        (j["code"].as_str(), j["source"].as_str()),
        (Some("input-too-large"), Some("the request body"))
    );
    assert!(j["message"].as_str().unwrap().contains("larger than 1000 bytes"));
    // Chunked, with no length declared: counted as it comes.
    let chunked = format!(
        "POST /v1/verify HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n{:x}\r\n{}\r\n0\r\n\r\n",
        1500,
        " ".repeat(1500)
    );
    let r = raw(svc.addr, chunked.as_bytes(), Duration::from_secs(5)).await;
    assert!(r.starts_with("HTTP/1.1 413"), "{r}");
    let head = format!(
        "GET /healthz HTTP/1.1\r\nhost: x\r\nx-big: {}\r\n\r\n",
        "a".repeat(4096)
    );
    let r = raw(svc.addr, head.as_bytes(), Duration::from_secs(5)).await;
    assert!(r.starts_with("HTTP/1.1 431"), "{r}");
    let r = raw(svc.addr, b"NOT HTTP AT ALL\r\n\r\n", Duration::from_secs(5)).await;
    assert!(r.starts_with("HTTP/1.1 400") || r.is_empty(), "{r}");
    let m = String::from_utf8(get(svc.addr, "/metrics").await.body).unwrap();
    assert!(
        m.contains("a2a_card_serve_refused_total{reason=\"too-large\"} 2"),
        "{m}"
    );
    svc.stop().await;
}

#[tokio::test]
async fn a_slow_client_is_closed_and_others_are_served_meanwhile() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let dir = scratch("slow");
    let s = signed(&dir);
    let limits = Limits {
        header_timeout: Duration::from_millis(300),
        ..Limits::default()
    };
    let svc = start(dir, &policy(json!({})), limits).await;
    let mut slow = tokio::net::TcpStream::connect(svc.addr).await.unwrap();
    let head = b"POST /v1/verify HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\n{}";
    let started = std::time::Instant::now();
    let mut closed = false;
    for b in head.iter() {
        if slow.write_all(&[*b]).await.is_err() {
            closed = true;
            break;
        }
        // Meanwhile the service answers others.
        assert_eq!(post(svc.addr, "/v1/verify", &s.card).await.status, 200);
        tokio::time::sleep(Duration::from_millis(100)).await;
        if started.elapsed() > Duration::from_secs(3) {
            break;
        }
    }
    let mut out = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(3), slow.read_to_end(&mut out)).await;
    assert!(
        closed || read.is_ok(),
        "the slow client's connection is still open"
    );
    let text = String::from_utf8_lossy(&out);
    assert!(!text.contains("200 OK"), "the slow request was answered: {text}");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "closed after {:?}",
        started.elapsed()
    );
    // An idle keep-alive connection is closed after the same time.
    let mut idle = tokio::net::TcpStream::connect(svc.addr).await.unwrap();
    let mut buf = [0u8; 16];
    let n = tokio::time::timeout(Duration::from_secs(3), idle.read(&mut buf)).await;
    assert!(matches!(n, Ok(Ok(0)) | Ok(Err(_))), "{n:?}");
    svc.stop().await;
}

#[tokio::test]
async fn the_in_flight_limit_and_the_deadline() {
    a2a_card_testkit::https::loopback_only_in_this_process();
    let dir = scratch("inflight");
    let s = signed(&dir);
    let limits = Limits {
        max_in_flight: 1,
        deadline: Duration::from_millis(400),
        ..Limits::default()
    };
    let svc = start(dir, &loopback_policy(), limits).await;
    // A retrieval from an origin that never answers holds the one slot until the deadline.
    let url = serde_json::to_vec(&json!({ "url": stalled_origin().await })).unwrap();
    let addr = svc.addr;
    let holder = tokio::spawn(async move { post(addr, "/v1/verify-remote", &url).await });
    tokio::time::sleep(Duration::from_millis(150)).await;
    let busy = post(svc.addr, "/v1/verify", &s.card).await;
    assert_eq!(busy.status, 503);
    assert_eq!(busy.header("retry-after"), Some("1"));
    assert_eq!(busy.json()["code"], "overloaded");
    // Health is not a verification: it is answered.
    assert_eq!(get(svc.addr, "/healthz").await.status, 200);
    let held = holder.await.unwrap();
    assert_eq!(held.status, 504, "{}", String::from_utf8_lossy(&held.body));
    assert_eq!(held.json()["code"], "timeout");
    assert_eq!(post(svc.addr, "/v1/verify", &s.card).await.status, 200);
    // A body that never comes meets the deadline too (before the body's own limit, 5 s).
    let (r, took) = trickle(svc.addr, "/v1/verify", 100, Duration::from_secs(10)).await;
    assert!(r.starts_with("HTTP/1.1 504"), "{r}");
    assert!(took < Duration::from_secs(3), "{took:?}");
    svc.stop().await;
}

#[tokio::test]
async fn clients_that_trickle_their_bodies_are_cut_and_never_take_the_verification_slots() {
    let dir = scratch("trickle");
    let s = signed(&dir);
    let limits = Limits {
        max_in_flight: 2,
        body_timeout: Duration::from_millis(500),
        deadline: Duration::from_secs(30),
        ..Limits::default()
    };
    let svc = start(dir, &policy(json!({})), limits).await;
    // Eight clients (four times the slots) each send a byte of body every 100 ms, over real
    // TCP connections; meanwhile every whole request is verified, none refused as overloaded.
    let mut tricklers = Vec::new();
    for i in 0..8 {
        let path = if i % 2 == 0 {
            "/v1/verify"
        } else {
            "/v1/verify-remote"
        };
        tricklers.push(tokio::spawn(trickle(
            svc.addr,
            path,
            1000,
            Duration::from_millis(100),
        )));
    }
    tokio::time::sleep(Duration::from_millis(150)).await;
    let mut client = Client::connect(svc.addr).await;
    let started = std::time::Instant::now();
    let mut answered = 0;
    while started.elapsed() < Duration::from_millis(400) {
        let a = client.request("POST", "/v1/verify", &s.card).await;
        assert_eq!(a.status, 200, "{}", String::from_utf8_lossy(&a.body));
        answered += 1;
    }
    assert!(answered > 0);
    // Each slow client is cut by the body's limit (not the 30 s deadline): 408, closed.
    for t in tricklers {
        let (r, took) = t.await.unwrap();
        assert!(r.starts_with("HTTP/1.1 408"), "{r}");
        assert!(r.contains("\"code\": \"timeout\""), "{r}");
        assert!(r.to_ascii_lowercase().contains("connection: close"), "{r}");
        assert!(took < Duration::from_secs(3), "cut after {took:?}");
    }
    let m = get(svc.addr, "/metrics").await;
    let text = String::from_utf8_lossy(&m.body);
    assert!(
        text.contains("a2a_card_serve_refused_total{reason=\"body-timeout\"} 8"),
        "{text}"
    );
    assert!(!text.contains("reason=\"in-flight\""), "{text}");
    svc.stop().await;
}

#[tokio::test]
async fn the_bodies_being_received_are_bounded_in_bytes() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let dir = scratch("budget");
    let s = signed(&dir);
    // The budget: one verification's body, max_in_flight x max_body_bytes.
    let max = s.card.len() + 100;
    let limits = Limits {
        max_in_flight: 1,
        max_body_bytes: max,
        body_timeout: Duration::from_millis(600),
        deadline: Duration::from_secs(30),
        ..Limits::default()
    };
    let svc = start(dir, &policy(json!({})), limits).await;
    // A client sends all but 100 bytes of its body and stalls.
    let mut stalled = tokio::net::TcpStream::connect(svc.addr).await.unwrap();
    let head = format!("POST /v1/verify HTTP/1.1\r\nhost: x\r\ncontent-length: {max}\r\n\r\n");
    stalled.write_all(head.as_bytes()).await.unwrap();
    stalled.write_all(&vec![b' '; s.card.len()]).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    // A whole card does not fit in what is left: 503, retry.
    let busy = post(svc.addr, "/v1/verify", &s.card).await;
    assert_eq!(busy.status, 503, "{}", String::from_utf8_lossy(&busy.body));
    assert_eq!(busy.header("retry-after"), Some("1"));
    assert_eq!(busy.json()["code"], "overloaded");
    assert!(
        busy.json()["message"]
            .as_str()
            .unwrap()
            .contains("request bodies being received hold"),
        "{}",
        busy.json()
    );
    // The stalled client is cut by the body's time limit, and its bytes are given back.
    let mut out = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(3), stalled.read_to_end(&mut out)).await;
    let text = String::from_utf8_lossy(&out);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert_eq!(post(svc.addr, "/v1/verify", &s.card).await.status, 200);
    let m = get(svc.addr, "/metrics").await;
    let text = String::from_utf8_lossy(&m.body);
    assert!(
        text.contains("a2a_card_serve_refused_total{reason=\"body-budget\"} 1"),
        "{text}"
    );
    svc.stop().await;
}

#[tokio::test]
async fn health_readiness_and_metrics() {
    let dir = scratch("health");
    signed(&dir);
    let svc = start(dir, &policy(json!({})), Limits::default()).await;
    let h = get(svc.addr, "/healthz").await;
    assert_eq!((h.status, h.json()), (200, json!({"status": "ok"})));
    let r = get(svc.addr, "/readyz").await;
    assert_eq!(
        (r.status, r.json()),
        (200, json!({"status": "ready", "mode": "require"}))
    );
    let m = get(svc.addr, "/metrics").await;
    assert_eq!(
        m.header("content-type"),
        Some("text/plain; version=0.0.4; charset=utf-8")
    );
    let text = String::from_utf8(m.body).unwrap();
    // Every sample line is NAME{LABELS} VALUE or NAME VALUE, after its # TYPE.
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let (name, value) = line.rsplit_once(' ').unwrap();
        assert!(value.parse::<f64>().is_ok(), "{line}");
        assert!(name.starts_with("a2a_card_serve_"), "{line}");
    }
    svc.stop().await;
}

/// Loads `policy` (text) from a scratch folder with a JWK Set; the error line.
fn refusal(text: &str) -> String {
    let dir = scratch("policy");
    signed(&dir);
    std::fs::write(dir.join("not-keys.json"), "{\"keys\": 1}").unwrap();
    std::fs::write(dir.join("policy.json"), text).unwrap();
    let e = a2a_card_serve::Policy::load(&dir.join("policy.json")).unwrap_err();
    let line = a2a_card_serve::error_line(&e);
    assert!(line.ends_with("policy.json)"), "{line}");
    line
}

#[test]
fn a_policy_that_does_not_parse_is_refused_naming_the_file_and_the_place() {
    for (policy, expected) in [
        (r#"{"verify": {"jwks": ["jwks.json"]}, "audit": "yes"}"#, "error[type-mismatch]: /audit must be true or false at /audit ("),
        (r#"{"verify": {"jwks": ["jwks.json"]}, "extra": 1}"#, "error[unknown-member]: unknown member \"extra\"; the members here are verify, audit, fetch at /extra ("),
        (r#"{"verify": {"jwks": ["jwks.json"], "max_chian": 2}}"#, "error[usage]: no verify option \"max_chian\"; the options are keys, "),
        (r#"{"verify": {"jwks": ["jwks.json"], "max_chain": 0}}"#, "error[usage]: /verify/max_chain must be 1 to 8, got 0 at /verify/max_chain ("),
        (r#"{"verify": {"jwks": ["jwks.json"], "max_chain": "2"}}"#, "error[type-mismatch]: /verify/max_chain must be a whole number from 1 to 8 at /verify/max_chain ("),
        (r#"{"verify": {"jwks": ["jwks.json"], "mode": "sometimes"}}"#, "error[usage]: "),
        (r#"{"verify": {"jwks": ["jwks.json"], "profiles": "spec"}}"#, "error[type-mismatch]: /verify/profiles must be a list of strings at /verify/profiles ("),
        (r#"{"verify": {"jwks": ["missing.json"]}}"#, "error[io]: cannot open "),
        (r#"{"verify": {"jwks": ["not-keys.json"]}}"#, "error["),
        (r#"{"verify": {"host_crypto": true}}"#, "error[usage]: no verify option \"host_crypto\""),
        (r#"{"verify": {}}"#, "error[usage]: no trust roots: give at least one of /verify/keys, /verify/jwks, /verify/trust or /verify/trust_anchors, or an /verify/allow_jku prefix at /verify/keys ("),
        (r#"{"verify": {"jwks": ["jwks.json"]}, "fetch": {"per_origin_fetches": 0}}"#, "error[type-mismatch]: /fetch/per_origin_fetches must be a whole number from 1 to 1024 at /fetch/per_origin_fetches ("),
        (r#"{"verify": {"jwks": ["jwks.json"]}, "fetch": {"proxy": "x"}}"#, "error[unknown-member]: unknown member \"proxy\""),
        (r#"{"verify": {"jwks": ["jwks.json"]}, "verify": {}}"#, "error[duplicate-member]: "),
        ("{\"verify\": ", "error[invalid-json]: "),
    ] {
        let line = refusal(policy);
        assert!(line.starts_with(expected), "{policy}\ngave {line}\nnot {expected}");
    }
    // The mode's refusal names its place; a bad key file names the file.
    let mode = refusal(r#"{"verify": {"jwks": ["jwks.json"], "mode": "sometimes"}}"#);
    assert!(mode.contains(" at /verify/mode ("), "{mode}");
    let keys = refusal(r#"{"verify": {"jwks": ["not-keys.json"]}}"#);
    assert!(keys.contains("not-keys.json"), "{keys}");
    let missing = refusal(r#"{"verify": {"jwks": ["jwks.json", "missing.json"]}}"#);
    assert!(missing.contains(" at /verify/jwks/1 ("), "{missing}");
}

#[tokio::test]
async fn a_reload_that_fails_keeps_the_policy_in_force() {
    let dir = scratch("reload");
    let s = signed(&dir);
    let svc = start(dir.clone(), &policy(json!({})), Limits::default()).await;
    std::fs::write(
        dir.join("policy.json"),
        r#"{"verify": {"jwks": ["jwks.json"], "mode": "nope"}}"#,
    )
    .unwrap();
    let e = svc.service.reload().unwrap_err();
    assert!(a2a_card_serve::error_line(&e).contains("at /verify/mode"));
    assert_eq!(post(svc.addr, "/v1/verify", &s.card).await.status, 200);
    assert_eq!(svc.service.metrics.reloads("error"), 1);
    // A good one takes effect for the next request.
    std::fs::write(dir.join("policy.json"), r#"{"verify": {"mode": "off"}}"#).unwrap();
    svc.service.reload().unwrap();
    assert_eq!(post(svc.addr, "/v1/verify", b"not even json").await.status, 200);
    assert_eq!(Service::policy_mode(&svc.service), "off");
    svc.stop().await;
}
