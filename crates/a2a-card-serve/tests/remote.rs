//! `/v1/verify-remote` against real HTTPS servers on loopback (the testkit's), a good one and
//! hostile ones: the fetcher's guard, limits and codes come through with their statuses, the
//! per-origin bound holds, and the fetcher and its cache are kept across requests.
#![allow(clippy::unwrap_used, clippy::panic)] // a panic is how a test fails

mod common;

use a2a_card_serve::Limits;
use a2a_card_testkit::https::{Fixture, Framing, Resp, Server};
use common::*;
use serde_json::json;
use std::time::{Duration, Instant};

fn remote_policy(extra_fetch: serde_json::Value) -> serde_json::Value {
    let mut p = policy(json!({}));
    let mut fetch = json!({"allow_loopback": true, "ca_file": "ca.pem", "total_timeout_ms": 1500});
    for (k, v) in extra_fetch.as_object().unwrap() {
        fetch[k] = v.clone();
    }
    p["fetch"] = fetch;
    p
}

fn url_body(url: &str) -> Vec<u8> {
    json!({ "url": url }).to_string().into_bytes()
}

#[tokio::test]
async fn a_good_origin_and_hostile_ones() {
    a2a_card_testkit::https::loopback_only_in_this_process();
    let dir = scratch("remote");
    let s = signed(&dir);
    let fx = Fixture::new();
    fx.write_ca(&dir);
    let card = s.card.clone();
    let dup = br#"{"name":"a","name":"b"}"#.to_vec();
    let server = Server::start(&fx.leaf, move |req| match req.path.as_str() {
        "/.well-known/agent-card.json" => Resp::json(&card).header("cache-control", "max-age=60"),
        "/tampered/.well-known/agent-card.json" => Resp::json(&tampered(&card)),
        "/huge" => Resp::json(&vec![b' '; 2 << 20]),
        "/html" => Resp::new(200).header("content-type", "text/html").body(b"<html>"),
        "/loop" => Resp::redirect(302, "/loop"),
        "/metadata" => Resp::redirect(302, "https://169.254.169.254/latest/meta-data/"),
        "/slow" => Resp::json(&card).framing(Framing::Slow(Duration::from_millis(50))),
        "/dup" => Resp::json(&dup),
        "/raw" => Resp::new(200)
            .body(b"HTTP/1.1 200 OK\r\ncontent-length: 99999999999999999999\r\n\r\n")
            .framing(Framing::Raw),
        _ => Resp::new(500),
    });
    let svc = start(dir.clone(), &remote_policy(json!({})), Limits::default()).await;
    let origin = server.url("localhost", "");

    let ok = post(svc.addr, "/v1/verify-remote", &url_body(&origin)).await;
    assert_eq!(ok.status, 200, "{}", String::from_utf8_lossy(&ok.body));
    let j = ok.json();
    assert_eq!(j["ok"], true);
    assert_eq!(j["fetch"]["origin"], origin.as_str());
    assert_eq!(
        j["fetch"]["final_url"],
        format!("{origin}/.well-known/agent-card.json")
    );
    // The same fetcher's memory cache serves the second request.
    let again = post(svc.addr, "/v1/verify-remote", &url_body(&origin)).await;
    assert_eq!(again.status, 200);
    assert_eq!(
        again.json()["fetch"]["cache"],
        "fresh",
        "{}",
        again.json()["fetch"]
    );
    assert_eq!(server.count("/.well-known/agent-card.json"), 1);

    let t = post(
        svc.addr,
        "/v1/verify-remote",
        &url_body(&format!("{origin}/tampered/.well-known/agent-card.json")),
    )
    .await;
    assert_eq!(t.status, 422);
    assert_eq!(t.json()["signatures"][0]["verdict"]["code"], "signature-invalid");

    for (path, status, code) in [
        ("/huge", 502, "body-too-large"),
        ("/html", 502, "not-json"),
        ("/loop", 502, "too-many-redirects"),
        ("/metadata", 502, "address-refused"),
        ("/slow", 504, "timeout"),
        ("/dup", 422, "duplicate-member"),
        ("/raw", 502, "http-protocol"),
        ("/500", 502, "http-status"),
    ] {
        let a = post(
            svc.addr,
            "/v1/verify-remote",
            &url_body(&format!("{origin}{path}")),
        )
        .await;
        let j = a.json();
        assert_eq!(
            (a.status, j["code"].as_str()),
            (status, Some(code)),
            "{path}: {j}"
        );
        assert!(
            j["source"].as_str().unwrap().starts_with("https://"),
            "{path}: {j}"
        );
    }
    let m = String::from_utf8(get(svc.addr, "/metrics").await.body).unwrap();
    for line in [
        "a2a_card_serve_fetches_total{outcome=\"ok\"} 3",
        "a2a_card_serve_fetches_total{outcome=\"body-too-large\"} 1",
        "a2a_card_serve_fetch_cache_total{outcome=\"fresh\"} 1",
        "a2a_card_serve_verifications_total{endpoint=\"verify-remote\",verdict=\"valid\",code=\"valid\"} 2",
    ] {
        assert!(m.contains(line), "no {line} in\n{m}");
    }
    svc.stop().await;

    // Without allow_loopback the guard refuses the address before connecting, and says which
    // member of the policy would open it.
    let dir2 = scratch("remote-guard");
    std::fs::copy(dir.join("jwks.json"), dir2.join("jwks.json")).unwrap();
    let svc = start(dir2, &policy(json!({})), Limits::default()).await;
    let a = post(svc.addr, "/v1/verify-remote", &url_body(&origin)).await;
    let j = a.json();
    assert_eq!(
        (a.status, j["code"].as_str()),
        (403, Some("address-refused")),
        "{j}"
    );
    assert!(
        j["message"].as_str().unwrap().contains("/fetch/allow_loopback"),
        "{j}"
    );
    svc.stop().await;
}

#[tokio::test]
async fn retrievals_of_one_origin_are_bounded() {
    a2a_card_testkit::https::loopback_only_in_this_process();
    let dir = scratch("per-origin");
    let s = signed(&dir);
    let fx = Fixture::new();
    fx.write_ca(&dir);
    let card = s.card.clone();
    let server = Server::start(&fx.leaf, move |_| {
        std::thread::sleep(Duration::from_millis(300));
        Resp::json(&card).header("cache-control", "no-store")
    });
    let origin = server.url("127.0.0.1", "");
    let mut elapsed = Vec::new();
    for per_origin in [1, 4] {
        let svc = start(
            dir.clone(),
            &remote_policy(json!({"per_origin_fetches": per_origin})),
            Limits::default(),
        )
        .await;
        let started = Instant::now();
        let mut tasks = Vec::new();
        for _ in 0..4 {
            let (addr, body) = (svc.addr, url_body(&origin));
            tasks.push(tokio::spawn(async move {
                post(addr, "/v1/verify-remote", &body).await.status
            }));
        }
        for t in tasks {
            assert_eq!(t.await.unwrap(), 200);
        }
        elapsed.push(started.elapsed());
        svc.stop().await;
    }
    assert!(
        elapsed[0] >= Duration::from_millis(1150),
        "one at a time took {:?}",
        elapsed[0]
    );
    assert!(
        elapsed[1] < Duration::from_millis(1100),
        "four at a time took {:?}",
        elapsed[1]
    );
}
