//! The HTTP stack against real servers on loopback: HTTP/2 where offered and HTTP/1.1
//! elsewhere, one connection for a card and its `jku` on the same origin, gzip and brotli
//! bodies decoded with the limit counted after decoding (a decompression bomb is refused),
//! identity only when compression is off, a slow drip stopped by the total timeout, and a silent
//! peer or proxy stopped by the connect timeout.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use a2a_card::{Algorithm, PrivateKey, TrustStore};
use a2a_card_fetch::{blocking, fetch_card, ErrorCode, FetchOptions, JkuStatus, RemoteOptions};
use a2a_card_testkit::https::{Coding, Protocol};
use common::*;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

const CARD: &[u8] = br#"{"name":"Recipe Agent","description":"Cooks","version":"1.0.0","skills":[]}"#;

/// A body that is valid JSON and `size` bytes long: `{}` and spaces.
fn padded(size: usize) -> Vec<u8> {
    let mut body = b"{}".to_vec();
    body.resize(size, b' ');
    body
}

/// 16 MiB of JSON compressed with `coding` (made once: brotli at its best ratio takes time).
fn bomb(coding: Coding) -> Resp {
    static BOMBS: OnceLock<(Resp, Resp)> = OnceLock::new();
    let (gzip, br) = BOMBS.get_or_init(|| {
        let body = padded(16 << 20);
        (
            Resp::json(&body).encoded(Coding::Gzip),
            Resp::json(&body).encoded(Coding::Br),
        )
    });
    match coding {
        Coding::Gzip => gzip.clone(),
        Coding::Br => br.clone(),
    }
}

fn routes(req: &Req) -> Resp {
    match req.path.as_str() {
        "/.well-known/agent-card.json" => Resp::json(CARD),
        "/gzip" => Resp::json(CARD).encoded(Coding::Gzip),
        "/br" => Resp::json(CARD).encoded(Coding::Br),
        "/gzip-chunked" => Resp::json(CARD).encoded(Coding::Gzip).framing(Framing::Chunked),
        // 16 MiB of JSON that travels as a few KiB.
        "/bomb-gzip" => bomb(Coding::Gzip),
        "/bomb-br" => bomb(Coding::Br),
        "/deflate" => Resp::json(CARD).header("Content-Encoding", "deflate"),
        // A coded body must be one whole stream and nothing after it.
        p if p.starts_with("/tail/") => {
            let (coding, tail) = tails(&p["/tail/".len()..]);
            let mut body = coding.encode(CARD);
            if p.ends_with("-cut") {
                body.truncate(body.len() - 3);
            }
            body.extend_from_slice(&tail);
            Resp::json(&body).header("Content-Encoding", coding.name())
        }
        "/slow" => Resp::json(&padded(50)).framing(Framing::Slow(Duration::from_millis(100))),
        _ => Resp::new(404),
    }
}

/// The coded bodies with something after (or missing from) the stream: `/tail/CODING-KIND`.
/// Returns the coding and the bytes appended after the whole encoded card.
fn tails(name: &str) -> (Coding, Vec<u8>) {
    let (coding, kind) = name.split_once('-').unwrap();
    let coding = if coding == "gzip" {
        Coding::Gzip
    } else {
        Coding::Br
    };
    let tail = match kind {
        "garbage" => b"garbage".to_vec(),
        "zero" => vec![0],
        // A second stream: what a reader of the first alone never sees.
        "second" => coding.encode(br#"{"name":"Other Agent"}"#),
        _ => Vec::new(),
    };
    (coding, tail)
}

/// The three servers: one request per connection (HTTP/1.1), keep-alive HTTP/1.1, HTTP/2.
fn servers(fx: &Fixture) -> Vec<(&'static str, Server)> {
    vec![
        ("close", Server::start(&fx.leaf, routes)),
        ("http1", Server::start_with(&fx.leaf, Protocol::Http1, routes)),
        ("http2", Server::start_with(&fx.leaf, Protocol::Http2, routes)),
    ]
}

#[test]
fn http2_where_the_server_offers_it_http1_elsewhere() {
    let fx = Fixture::new();
    for (name, server) in servers(&fx) {
        let want = if name == "http2" { "HTTP/2" } else { "HTTP/1.1" };
        let f = fetch_card(&server.url("localhost", ""), &fx.options()).unwrap();
        assert_eq!(f.bytes, CARD, "{name}");
        assert_eq!(f.protocol.as_deref(), Some(want), "{name}");
        assert!(f.to_lines().contains(&format!("protocol: {want}")), "{name}");
        let req = &server.requests()[0];
        assert_eq!(req.version, want, "{name}");
        assert_eq!(
            req.header("host"),
            Some(format!("localhost:{}", server.port).as_str()),
            "{name}"
        );
        assert!(
            req.header("user-agent").unwrap().starts_with("a2a-card-fetch/"),
            "{name}"
        );
        // HTTP/2 turned off: HTTP/1.1 even where the server offers HTTP/2.
        let h1 = FetchOptions {
            http2: false,
            ..fx.options()
        };
        let f = fetch_card(&server.url("localhost", ""), &h1).unwrap();
        assert_eq!(f.protocol.as_deref(), Some("HTTP/1.1"), "{name}");
    }
}

/// A server for `protocol` whose card is signed with a `jku` on its own origin.
fn agent(fx: &Fixture, protocol: Option<Protocol>) -> (Server, TrustStore, RemoteOptions) {
    let key = PrivateKey::generate(Algorithm::ES256).unwrap();
    let card = Arc::new(Mutex::new(Vec::new()));
    let jwks = jwks_json(&key);
    let c = card.clone();
    let handler = move |req: &Req| match req.path.as_str() {
        "/.well-known/agent-card.json" => Resp::json(&c.lock().unwrap()),
        "/keys/jwks.json" => Resp::new(200)
            .header("Content-Type", "application/jwk-set+json")
            .body(&jwks),
        _ => Resp::new(404),
    };
    let server = match protocol {
        Some(p) => Server::start_with(&fx.leaf, p, handler),
        None => Server::start(&fx.leaf, handler),
    };
    let jku = server.url("localhost", "/keys/jwks.json");
    *card.lock().unwrap() = signed(&sample_card(), &key, Some(jku));
    let remote = RemoteOptions {
        jku_allow: vec![server.url("localhost", "/keys/")],
        ..RemoteOptions::default()
    };
    (server, TrustStore::new(), remote)
}

#[test]
fn a_card_and_its_jku_on_one_origin_share_one_connection() {
    let fx = Fixture::new();
    for (protocol, connections) in [
        (Some(Protocol::Http1), 1),
        (Some(Protocol::Http2), 1),
        (None, 2), // a server that closes every connection after one response
    ] {
        let (server, trust, remote) = agent(&fx, protocol);
        let r = a2a_card_fetch::verify_remote(&server.url("localhost", ""), &trust, &remote, &fx.options())
            .unwrap();
        assert!(r.report.ok, "{protocol:?}: {}", r.report.reason);
        assert!(
            matches!(r.jku[0].status, JkuStatus::Fetched { .. }),
            "{protocol:?}"
        );
        assert_eq!(server.requests().len(), 2, "{protocol:?}");
        assert_eq!(server.accepts(), connections, "{protocol:?}");
    }
    // A blocking fetcher keeps its connection between calls.
    let (server, trust, remote) = agent(&fx, Some(Protocol::Http2));
    let fetcher = blocking::Fetcher::new(&fx.options()).unwrap();
    for _ in 0..3 {
        assert!(
            fetcher
                .verify_remote(&server.url("localhost", ""), &trust, &remote)
                .unwrap()
                .report
                .ok
        );
    }
    assert_eq!((server.requests().len(), server.accepts()), (6, 1));
}

#[test]
fn compressed_bodies_are_decoded_and_the_limit_counts_decoded_bytes() {
    let fx = Fixture::new();
    for (name, server) in servers(&fx) {
        for path in ["/gzip", "/br", "/gzip-chunked"] {
            let f = fetch_card(&server.url("localhost", path), &fx.options()).unwrap();
            assert_eq!(f.bytes, CARD, "{name} {path}");
            assert_eq!(f.content_type, "application/json", "{name} {path}");
        }
        let req = server.requests().pop().unwrap();
        assert_eq!(req.header("accept-encoding"), Some("gzip, br"), "{name}");
        // A body that expands past the limit is refused, though what travels is far smaller.
        assert!(bomb(Coding::Gzip).body.len() < 64 * 1024);
        assert!(bomb(Coding::Br).body.len() < 64 * 1024);
        for path in ["/bomb-gzip", "/bomb-br"] {
            let started = Instant::now();
            let e = fetch_card(&server.url("localhost", path), &fx.options()).unwrap_err();
            assert_eq!(e.code(), ErrorCode::BodyTooLarge, "{name} {path}: {e}");
            assert!(e.message().contains("after decoding"), "{e}");
            assert!(started.elapsed() < Duration::from_secs(5), "{name} {path}");
        }
        // The limit raised past the decoded size takes it.
        let big = FetchOptions {
            max_body_bytes: 32 << 20,
            ..fx.options()
        };
        assert_eq!(
            fetch_card(&server.url("localhost", "/bomb-br"), &big)
                .unwrap()
                .bytes
                .len(),
            16 << 20,
            "{name}"
        );
        // A coding that is not decoded is refused, and so is gzip when compression is off.
        let e = fetch_card(&server.url("localhost", "/deflate"), &fx.options()).unwrap_err();
        assert_eq!(e.code(), ErrorCode::HttpProtocol, "{name}: {e}");
        assert!(e.message().contains("\"deflate\""), "{e}");
        let identity = FetchOptions {
            compression: false,
            ..fx.options()
        };
        let e = fetch_card(&server.url("localhost", "/gzip"), &identity).unwrap_err();
        assert_eq!(e.code(), ErrorCode::HttpProtocol, "{name}: {e}");
        assert!(e.message().contains("identity"), "{e}");
        let req = server.requests().pop().unwrap();
        assert_eq!(req.header("accept-encoding"), Some("identity"), "{name}");
    }
}

/// A gzip or brotli body with bytes after its stream (garbage, a zero byte, a second gzip
/// member or brotli stream) is refused as a malformed coding, not read on the bytes of the first
/// stream; so is a stream cut short. A whole stream alone is read.
#[test]
fn coded_bodies_with_anything_after_the_stream_are_refused() {
    let fx = Fixture::new();
    for (name, server) in servers(&fx) {
        for coding in ["gzip", "br"] {
            for kind in ["garbage", "zero", "second"] {
                let url = server.url("localhost", &format!("/tail/{coding}-{kind}"));
                let e = fetch_card(&url, &fx.options()).unwrap_err();
                assert_eq!(e.code(), ErrorCode::HttpProtocol, "{name} {coding} {kind}: {e}");
                assert!(
                    e.message().contains("after the end of the") && e.message().contains(coding),
                    "{name} {coding} {kind}: {e}"
                );
            }
            let url = server.url("localhost", &format!("/tail/{coding}-cut"));
            let e = fetch_card(&url, &fx.options()).unwrap_err();
            assert_eq!(e.code(), ErrorCode::HttpProtocol, "{name} {coding} cut: {e}");
            assert!(e.message().contains("cut short"), "{name} {coding} cut: {e}");
            let url = server.url("localhost", &format!("/tail/{coding}-none"));
            assert_eq!(
                fetch_card(&url, &fx.options()).unwrap().bytes,
                CARD,
                "{name} {coding}"
            );
        }
    }
}

#[test]
fn a_slow_drip_past_the_deadline_times_out() {
    let fx = Fixture::new();
    let opts = FetchOptions {
        total_timeout: Duration::from_millis(800),
        ..fx.options()
    };
    for (name, server) in servers(&fx) {
        let started = Instant::now();
        // 50 bytes at one byte per 100 ms would take 5 s.
        let e = fetch_card(&server.url("localhost", "/slow"), &opts).unwrap_err();
        let took = started.elapsed();
        assert_eq!(e.code(), ErrorCode::Timeout, "{name}: {e}");
        assert!(e.message().contains("reading the body"), "{name}: {e}");
        assert_eq!(e.url(), Some(server.url("localhost", "/slow").as_str()));
        assert!(
            took >= Duration::from_millis(800) && took < Duration::from_secs(3),
            "{name}: {took:?}"
        );
    }
}

#[test]
fn a_caller_builder_cannot_open_the_guard() {
    let fx = Fixture::new();
    let server = Server::start(&fx.ca.leaf(&["agent.example.com"]), routes);
    // The caller's builder maps a public-looking name to loopback; loopback is closed here, so
    // the connection is refused before a request is written on it.
    let builder = a2a_card_fetch::reqwest::Client::builder().resolve(
        "agent.example.com",
        std::net::SocketAddr::from(([127, 0, 0, 1], server.port)),
    );
    let closed = FetchOptions {
        allow_loopback: false,
        ..fx.options()
    };
    let e = runtime().block_on(async {
        let fetcher = a2a_card_fetch::Fetcher::with_client_builder(&closed, builder).unwrap();
        let url = format!("https://agent.example.com:{}/", server.port);
        fetcher.fetch_card(&url).await.map(|_| ()).unwrap_err()
    });
    assert_eq!(e.code(), ErrorCode::AddressRefused, "{e}");
    assert!(e.message().contains("refused before sending"), "{e}");
    assert!(e.message().contains("127.0.0.1 is a loopback address"), "{e}");
    assert_eq!(server.accepts(), 1, "the connection was made");
    assert!(server.requests().is_empty(), "a request was sent");
}

#[test]
fn a_silent_peer_or_proxy_is_a_connect_timeout() {
    let fx = Fixture::new();
    // A listener that never reads or answers: the TCP connection completes (the backlog takes
    // it) and the TLS handshake, or the proxy's CONNECT answer, never comes.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let opts = FetchOptions {
        connect_timeout: Duration::from_millis(400),
        total_timeout: Duration::from_secs(10),
        ..fx.options()
    };
    let direct = format!("https://127.0.0.1:{port}/card.json");
    let through = FetchOptions {
        proxy: a2a_card_fetch::Proxy::Url {
            url: format!("http://127.0.0.1:{port}"),
            no_proxy: String::new(),
        },
        ..opts.clone()
    };
    let server = Server::start(&fx.leaf, routes);
    for (name, url, opts) in [
        ("direct", direct.as_str(), &opts),
        (
            "proxy",
            &server.url("localhost", "/.well-known/agent-card.json"),
            &through,
        ),
    ] {
        let started = Instant::now();
        let e = fetch_card(url, opts).unwrap_err();
        let took = started.elapsed();
        assert_eq!(e.code(), ErrorCode::ConnectTimeout, "{name}: {e}");
        assert_eq!(e.url(), Some(url), "{name}");
        assert!(
            took >= Duration::from_millis(400) && took < Duration::from_secs(5),
            "{name}: {took:?}"
        );
    }
    assert_eq!(server.accepts(), 0, "the target was reached past a silent proxy");
    drop(silent);
}
