//! docs/serve.openapi.json against the service: every path, method and status the service
//! answers is in the document, every status the document lists is answered by the service, and
//! every answer's body validates against the document's schema for it (boon, JSON Schema
//! 2020-12, the dialect of OpenAPI 3.1).
#![allow(clippy::unwrap_used, clippy::panic)] // a panic is how a test fails

mod common;

use a2a_card_serve::{Limits, ROUTES};
use a2a_card_testkit::https::{Fixture, Resp, Server};
use common::*;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// One answer seen: path, method, status, content type, body.
type Seen = (String, String, u16, Option<String>, Vec<u8>);

fn document() -> Value {
    a2a_card_testkit::data::read_json(a2a_card_testkit::data::repo_root().join("docs/serve.openapi.json"))
}

/// The schema at `schema` (a response's), as a standalone 2020-12 schema with the document's
/// components as its `$defs`.
fn validate(doc: &Value, schema: &Value, instance: &Value, what: &str) {
    let defs = doc["components"]["schemas"].clone();
    let standalone = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": defs,
        "allOf": [schema],
    });
    let text = standalone
        .to_string()
        .replace("#/components/schemas/", "#/$defs/");
    let standalone: Value = serde_json::from_str(&text).unwrap();
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    compiler
        .add_resource("http://serve.test/schema.json", standalone)
        .unwrap();
    let index = compiler
        .compile("http://serve.test/schema.json", &mut schemas)
        .unwrap();
    if let Err(e) = schemas.validate(instance, index) {
        panic!("{what}: the answer does not fit the document's schema: {e}\n{instance:#}");
    }
}

async fn hold(addr: SocketAddr, path: &str) -> tokio::net::TcpStream {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!("POST {path} HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\n{{");
    s.write_all(head.as_bytes()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    s
}

/// The status, content type and body of a raw HTTP/1.1 answer.
fn parse_raw(text: &str) -> (u16, Option<String>, Vec<u8>) {
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((text, ""));
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let ct = head.lines().find_map(|l| {
        l.to_ascii_lowercase()
            .strip_prefix("content-type: ")
            .map(str::to_string)
    });
    (status, ct, body.as_bytes().to_vec())
}

async fn read_raw(mut s: tokio::net::TcpStream) -> String {
    let mut out = vec![0u8; 16384];
    let n = tokio::time::timeout(Duration::from_secs(5), s.read(&mut out))
        .await
        .unwrap()
        .unwrap();
    String::from_utf8_lossy(&out[..n]).into_owned()
}

#[tokio::test]
async fn the_openapi_document_is_the_service() {
    a2a_card_testkit::https::loopback_only_in_this_process();
    let doc = document();
    let dir = scratch("openapi");
    let s = signed(&dir);
    let fx = Fixture::new();
    fx.write_ca(&dir);
    let card = s.card.clone();
    let server = Server::start(&fx.leaf, move |req| match req.path.as_str() {
        "/.well-known/agent-card.json" => Resp::json(&card),
        "/tampered" => Resp::json(&tampered(&card)),
        "/dup" => Resp::json(br#"{"a":1,"a":1}"#),
        _ => Resp::new(200).header("content-type", "text/html").body(b"<p>"),
    });
    let origin = server.url("127.0.0.1", "");
    let url = |p: &str| json!({ "url": format!("{origin}{p}") }).to_string().into_bytes();
    let mut p = policy(json!({}));
    p["fetch"] = json!({"allow_loopback": true, "ca_file": "ca.pem"});
    let limits = Limits {
        max_body_bytes: 100_000,
        max_header_bytes: 2048,
        max_in_flight: 1,
        deadline: Duration::from_millis(500),
        shutdown_delay: Duration::from_millis(1500),
        ..Limits::default()
    };
    let svc = start(dir.clone(), &p, limits).await;
    let mut seen: Vec<Seen> = Vec::new();
    fn note_in(seen: &mut Vec<Seen>, path: &str, method: &str, a: Answer) {
        let ct = a.header("content-type").map(str::to_string);
        seen.push((path.into(), method.into(), a.status, ct, a.body));
    }
    macro_rules! note {
        ($path:expr, $method:expr, $a:expr) => {{
            let a = $a;
            note_in(&mut seen, $path, $method, a)
        }};
    }
    let v = "/v1/verify";
    let r = "/v1/verify-remote";
    note!(v, "POST", post(svc.addr, v, &s.card).await);
    note!(v, "POST", post(svc.addr, v, b"{").await);
    note!(v, "POST", post(svc.addr, v, &tampered(&s.card)).await);
    note!(v, "POST", post(svc.addr, v, &vec![b' '; 100_001]).await);
    note!(r, "POST", post(svc.addr, r, &url("")).await);
    note!(r, "POST", post(svc.addr, r, b"{}").await);
    note!(r, "POST", post(svc.addr, r, &url("/tampered")).await);
    note!(r, "POST", post(svc.addr, r, &url("/dup")).await);
    note!(r, "POST", post(svc.addr, r, &url("/html")).await);
    note!(r, "POST", post(svc.addr, r, &vec![b' '; 100_001]).await);
    for path in ["/healthz", "/readyz", "/metrics"] {
        note!(path, "GET", get(svc.addr, path).await);
    }
    let mut raw_seen = Vec::new();
    // Every operation: a head past the limit (the service's 431), and past twice it (hyper's).
    for (path, method) in ROUTES {
        for size in [3000, 8000] {
            let big = format!(
                "{method} {path} HTTP/1.1\r\nhost: x\r\nx-big: {}\r\n\r\n",
                "a".repeat(size)
            );
            raw_seen.push((
                path.to_string(),
                method.to_string(),
                raw(svc.addr, big.as_bytes(), Duration::from_secs(5)).await,
            ));
        }
    }
    let stalled = json!({ "url": stalled_origin().await }).to_string().into_bytes();
    for path in [v, r] {
        // A body that never comes meets the deadline (504).
        let held = hold(svc.addr, path).await;
        raw_seen.push((path.to_string(), "POST".to_string(), read_raw(held).await));
        // A retrieval from an origin that never answers holds the only slot: the next request
        // is refused (503); the holder meets the deadline (504).
        let (addr, body) = (svc.addr, stalled.clone());
        let holder = tokio::spawn(async move { post(addr, r, &body).await });
        tokio::time::sleep(Duration::from_millis(150)).await;
        note!(path, "POST", post(svc.addr, path, &s.card).await);
        note!(r, "POST", holder.await.unwrap());
    }
    for (path, method, text) in raw_seen {
        let (status, ct, body) = parse_raw(&text);
        seen.push((path, method, status, ct, body));
    }
    // 404 and 405, the document's components.responses.
    let nf = get(svc.addr, "/nowhere").await;
    validate(
        &doc,
        &doc["components"]["responses"]["NotFound"]["content"]["application/json"]["schema"],
        &nf.json(),
        "404",
    );
    assert_eq!(nf.status, 404);
    let na = post(svc.addr, "/healthz", b"").await;
    validate(
        &doc,
        &doc["components"]["responses"]["MethodNotAllowed"]["content"]["application/json"]["schema"],
        &na.json(),
        "405",
    );
    assert_eq!(na.status, 405);
    // Stopping: /readyz says 503 during the shutdown delay.
    let addr = svc.addr;
    let stopping = tokio::spawn(svc.stop());
    tokio::time::sleep(Duration::from_millis(300)).await;
    note!("/readyz", "GET", get(addr, "/readyz").await);
    stopping.await.unwrap();

    // Mode off: the Off answer of both verifications.
    let off_dir = scratch("openapi-off");
    let short_body = Limits {
        body_timeout: Duration::from_millis(200),
        ..Limits::default()
    };
    let off = start(off_dir, &json!({"verify": {"mode": "off"}}), short_body).await;
    note!(v, "POST", post(off.addr, v, b"anything").await);
    note!(r, "POST", post(off.addr, r, &url("")).await);
    // A body that never comes, within a shorter body limit: 408.
    for path in [v, r] {
        let held = hold(off.addr, path).await;
        let (status, ct, body) = parse_raw(&read_raw(held).await);
        seen.push((path.to_string(), "POST".to_string(), status, ct, body));
    }
    off.stop().await;
    // The guard: the requested address refused (403).
    let guard_dir = scratch("openapi-guard");
    std::fs::copy(dir.join("jwks.json"), guard_dir.join("jwks.json")).unwrap();
    let guard = start(guard_dir, &policy(json!({})), Limits::default()).await;
    note!(r, "POST", post(guard.addr, r, &url("")).await);
    guard.stop().await;

    // Every answer is documented, and fits its schema.
    let mut answered = BTreeSet::new();
    for (path, method, status, ct, body) in &seen {
        let op = &doc["paths"][path][method.to_lowercase()];
        assert!(op.is_object(), "{method} {path} is not in the document");
        let resp = &op["responses"][status.to_string()];
        assert!(
            resp.is_object(),
            "{method} {path} answered {status}, which the document does not list"
        );
        answered.insert((path.clone(), method.clone(), *status));
        match resp.get("content") {
            None => assert!(
                body.is_empty(),
                "{method} {path} {status}: a body the document does not have"
            ),
            // hyper's own 431, past twice the limit: no body (the document says so).
            Some(_) if *status == 431 && body.is_empty() => {}
            Some(content) => {
                let ct = ct.clone().unwrap_or_default();
                let media = &content[&ct];
                assert!(
                    media.is_object(),
                    "{method} {path} {status}: content type {ct:?} not in the document"
                );
                let instance = if ct.starts_with("application/json") {
                    serde_json::from_slice(body).unwrap()
                } else {
                    Value::String(String::from_utf8(body.clone()).unwrap())
                };
                validate(
                    &doc,
                    &media["schema"],
                    &instance,
                    &format!("{method} {path} {status}"),
                );
            }
        }
    }
    // Every documented path, method and status is answered by the service.
    let mut documented = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            for status in op["responses"].as_object().unwrap().keys() {
                documented.insert((
                    path.clone(),
                    method.to_uppercase(),
                    status.parse::<u16>().unwrap(),
                ));
            }
        }
    }
    let missing: Vec<_> = documented.difference(&answered).collect();
    assert!(missing.is_empty(), "documented but never answered: {missing:?}");
    let routes: BTreeSet<(String, String)> = ROUTES
        .iter()
        .map(|(p, m)| (p.to_string(), m.to_string()))
        .collect();
    let doc_routes: BTreeSet<(String, String)> = documented
        .iter()
        .map(|(p, m, _)| (p.clone(), m.clone()))
        .collect();
    assert_eq!(routes, doc_routes, "the service's routes and the document's");
}
