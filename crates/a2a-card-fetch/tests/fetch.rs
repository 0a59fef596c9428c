//! Fetching over real HTTPS on loopback: the well-known path, framings, redirects, limits,
//! content types, certificates and the SSRF guard, each failure with its own code.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use a2a_card_fetch::{fetch_card, fetch_jwks, ErrorCode, FetchOptions, Roots};
use common::{temp_dir, Ca, Fixture, Framing, Resp, Server};
use std::time::{Duration, Instant};

const CARD: &[u8] = br#"{"name":"Recipe Agent","description":"Cooks","version":"1.0.0","skills":[]}"#;

fn code(r: Result<a2a_card_fetch::Fetched, a2a_card_fetch::Error>) -> ErrorCode {
    match r {
        Ok(f) => panic!(
            "expected a failure, got {} bytes from {}",
            f.bytes.len(),
            f.final_url
        ),
        Err(e) => {
            assert!(e.code().is_retrieval(), "not a retrieval error: {e:?}");
            e.code()
        }
    }
}

fn routes(fx: &Fixture) -> Server {
    Server::start(&fx.leaf, |req| {
        match req.path.as_str() {
        "/.well-known/agent-card.json" => Resp::json(CARD),
        "/card+json" => Resp::new(200)
            .header("Content-Type", "application/a2a+json; charset=utf-8")
            .body(CARD),
        "/two-types" => Resp::json(CARD).header("Content-Type", "text/html"),
        "/chunked" => Resp::json(CARD).framing(Framing::Chunked),
        "/close" => Resp::json(CARD).framing(Framing::Close),
        "/r1" => Resp::redirect(302, "/r2"),
        "/r2" => Resp::redirect(301, "r3"),
        "/r3" => Resp::redirect(307, "/.well-known/agent-card.json#frag"),
        "/r4" => Resp::redirect(308, "/r1"),
        "/no-location" => Resp::new(302),
        "/html" => Resp::new(200).header("Content-Type", "text/html").body(b"<html></html>"),
        "/text-json" => Resp::new(200).header("Content-Type", "text/json").body(CARD),
        "/no-type" => Resp::new(200).body(CARD),
        "/dup" => Resp::json(br#"{"a":1,"a":2}"#),
        "/claims-a-terabyte" => Resp::new(200)
            .framing(Framing::Raw)
            .body(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 999999999999\r\nConnection: close\r\n\r\n{}"),
        "/spaces" => Resp::json(b"   "),
        "/huge-int" => Resp::json(br#"{"n":9007199254740993}"#),
        "/big" => Resp::json(&big_json()),
        "/big-chunked" => Resp::json(&big_json()).framing(Framing::Chunked),
        "/big-close" => Resp::json(&big_json()).framing(Framing::Close),
        "/slow" => Resp::json(&[b' '; 50]).framing(Framing::Slow(Duration::from_millis(100))),
        "/gzip" => Resp::json(CARD).header("Content-Encoding", "gzip"),
        "/garbage" => Resp::new(200).body(b"SSH-2.0-OpenSSH\r\n\r\n").framing(Framing::Raw),
        "/short" => Resp::new(200)
            .body(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{}")
            .framing(Framing::Raw),
        "/jwks" => Resp::new(200).header("Content-Type", "application/jwk-set+json").body(
            br#"{"keys":[{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","kid":"k1"}]}"#,
        ),
        "/to-http" => Resp::redirect(302, "http://169.254.169.254/latest/meta-data/"),
        p if p.starts_with("/to?") => Resp::redirect(302, &p["/to?".len()..]),
        _ => Resp::new(404).body(b"not found"),
    }
    })
}

#[test]
fn origin_means_the_well_known_card() {
    let fx = Fixture::new();
    let server = routes(&fx);
    let f = fetch_card(&server.url("localhost", ""), &fx.options()).unwrap();
    assert_eq!(f.bytes, CARD);
    assert_eq!(
        f.final_url,
        server.url("localhost", "/.well-known/agent-card.json")
    );
    assert_eq!(f.requested_url, f.final_url);
    assert_eq!(f.origin, server.url("localhost", ""));
    assert_eq!(f.content_type, "application/json");
    assert!(f.peer.unwrap().ip().is_loopback());
    assert_eq!(server.count("/.well-known/agent-card.json"), 1);
    let req = &server.requests()[0];
    assert_eq!(
        req.header("host"),
        Some(format!("localhost:{}", server.port).as_str())
    );
    // Compressed bodies are asked for (and decoded, the body limit counting decoded bytes);
    // FetchOptions::compression = false asks for identity only (tests/transport.rs).
    assert_eq!(req.header("accept-encoding"), Some("gzip, br"));
    // With a trailing slash, and by IP address (the certificate names 127.0.0.1 too).
    let f = fetch_card(&server.url("127.0.0.1", "/"), &fx.options()).unwrap();
    assert_eq!(f.origin, server.url("127.0.0.1", ""));
    assert_eq!(f.bytes, CARD);
}

#[test]
fn framings_and_json_media_types() {
    let fx = Fixture::new();
    let server = routes(&fx);
    for path in ["/chunked", "/close", "/card+json"] {
        let f = fetch_card(&server.url("localhost", path), &fx.options()).unwrap();
        assert_eq!(f.bytes, CARD, "{path}");
    }
    let f = fetch_card(&server.url("localhost", "/card+json"), &fx.options()).unwrap();
    assert_eq!(f.content_type, "application/a2a+json");
    let set = fetch_jwks(&server.url("localhost", "/jwks"), &fx.options()).unwrap();
    assert_eq!(set.keys.len(), 1);
    assert_eq!(set.keys[0].kid(), "k1");
    // A JWKS is fetched from exactly its URL: an origin is not a JWKS.
    let e = fetch_jwks(&server.url("localhost", ""), &fx.options()).unwrap_err();
    assert_eq!(e.status(), Some(404));
}

#[test]
fn redirects_up_to_the_limit() {
    let fx = Fixture::new();
    let server = routes(&fx);
    let f = fetch_card(&server.url("localhost", "/r1"), &fx.options()).unwrap();
    assert_eq!(f.bytes, CARD);
    assert_eq!(f.requested_url, server.url("localhost", "/r1"));
    assert_eq!(
        f.final_url,
        server.url("localhost", "/.well-known/agent-card.json")
    );
    assert_eq!(f.redirects.len(), 3);
    assert_eq!(f.origin, server.url("localhost", ""));

    // A fourth redirect is one too many: refused after the fourth response, before a fifth request.
    let before = server.requests().len();
    assert_eq!(
        code(fetch_card(&server.url("localhost", "/r4"), &fx.options())),
        ErrorCode::TooManyRedirects
    );
    let paths: Vec<String> = server.requests()[before..]
        .iter()
        .map(|r| r.path.clone())
        .collect();
    assert_eq!(paths, ["/r4", "/r1", "/r2", "/r3"]);

    let opts = FetchOptions {
        max_redirects: 0,
        ..fx.options()
    };
    assert_eq!(
        code(fetch_card(&server.url("localhost", "/r3"), &opts)),
        ErrorCode::TooManyRedirects
    );
    assert_eq!(
        code(fetch_card(
            &server.url("localhost", "/no-location"),
            &fx.options()
        )),
        ErrorCode::RedirectInvalid
    );
}

#[test]
fn redirects_to_internal_addresses_are_refused_before_connecting() {
    let fx = Fixture::new();
    let server = routes(&fx);
    // Loopback is open for these (the test server lives there); everything below is still refused.
    let opts = FetchOptions {
        connect_timeout: Duration::from_secs(5),
        ..fx.options()
    };
    for target in [
        "https://10.0.0.1/.well-known/agent-card.json",
        "https://169.254.169.254/latest/meta-data/",
        "https://[::ffff:10.0.0.1]/",
        "https://[::ffff:169.254.169.254]/",
        "https://[fc00::1]/",
        "https://[fe80::1]/",
        "https://100.64.0.1/",
        "https://0.0.0.0/",
        "https://224.0.0.1/",
        "https://[64:ff9b::a9fe:a9fe]/",
        "https://0xa9.0xfe.0xa9.0xfe/", // 169.254.169.254 spelled in hex
        "https://2852039166/",          // 169.254.169.254 as one number
    ] {
        let started = Instant::now();
        let e = fetch_card(&server.url("localhost", &format!("/to?{target}")), &opts).unwrap_err();
        assert_eq!(e.code(), ErrorCode::AddressRefused, "{target}: {e}");
        assert!(e.message().contains("refused before connecting"), "{e}");
        assert!(!e.is_caller_input());
        // Refused at once: no connection attempt could have timed out.
        assert!(started.elapsed() < Duration::from_secs(3), "{target}");
    }
    // An embedded loopback form is refused even with loopback open: no connection is made.
    let accepts = server.accepts();
    let target = format!(
        "https://[::ffff:127.0.0.1]:{}/.well-known/agent-card.json",
        server.port
    );
    let e = fetch_card(&server.url("localhost", &format!("/to?{target}")), &opts).unwrap_err();
    assert_eq!(e.code(), ErrorCode::AddressRefused, "{e}");
    assert_eq!(
        server.accepts(),
        accepts + 1,
        "only the redirecting hop was connected"
    );
    // A plain http target is refused by scheme, also before any connection.
    let e = fetch_card(&server.url("localhost", "/to-http"), &opts).unwrap_err();
    assert_eq!(e.code(), ErrorCode::NotHttps);
    assert!(!e.is_caller_input());
}

#[test]
fn loopback_is_refused_unless_opened() {
    let fx = Fixture::new();
    let server = routes(&fx);
    let closed = FetchOptions {
        allow_loopback: false,
        ..fx.options()
    };
    // An IPv6 listener too, so a refusal of [::1] is not just a connection the OS refused.
    let v6 = std::net::TcpListener::bind("[::1]:0").ok();
    let mut targets = vec![
        server.url("127.0.0.1", "/"),
        server.url("localhost", "/"), // a name that resolves to loopback
        server.url("[::ffff:127.0.0.1]", "/"),
        server.url("[::127.0.0.1]", "/"),
        server.url("127.1", "/"), // 127.0.0.1, short form
        server.url("[::1]", "/"),
    ];
    if let Some(l) = &v6 {
        targets.push(format!("https://[::1]:{}/", l.local_addr().unwrap().port()));
        l.set_nonblocking(true).unwrap();
    }
    for t in &targets {
        let e = fetch_card(t, &closed).unwrap_err();
        assert_eq!(e.code(), ErrorCode::AddressRefused, "{t}: {e}");
    }
    // Plain loopback names the option that opens it, by its canonical name, for each front end
    // to spell (the CLI writes its flag).
    let e = fetch_card(&server.url("127.0.0.1", "/"), &closed).unwrap_err();
    assert_eq!(e.options(), ["allow_loopback"]);
    assert!(
        e.message()
            .ends_with("(loopback is opened only with allow_loopback, for local testing)"),
        "{e}"
    );
    let e = e.spelled(&a2a_card::request::Camel);
    assert!(
        e.message()
            .ends_with("only with \"allowLoopback\", for local testing)"),
        "{e}"
    );
    assert_eq!(e.code(), ErrorCode::AddressRefused);
    assert_eq!(server.accepts(), 0, "no connection reached the server");
    if let Some(l) = &v6 {
        assert!(l.accept().is_err(), "no connection reached the IPv6 listener");
    }
    // Opened, the same server answers.
    assert!(fetch_card(&server.url("localhost", "/"), &fx.options()).is_ok());
    assert_eq!(server.accepts(), 1);
}

#[test]
fn every_refusal_has_its_own_code() {
    let fx = Fixture::new();
    let server = routes(&fx);
    let small = FetchOptions {
        max_body_bytes: 1024,
        ..fx.options()
    };
    let cases: &[(&str, ErrorCode)] = &[
        ("/html", ErrorCode::NotJson),
        ("/text-json", ErrorCode::NotJson),
        ("/no-type", ErrorCode::NotJson),
        ("/missing", ErrorCode::HttpStatus),
        ("/big", ErrorCode::BodyTooLarge),
        ("/big-chunked", ErrorCode::BodyTooLarge),
        ("/big-close", ErrorCode::BodyTooLarge),
        ("/gzip", ErrorCode::HttpProtocol),
        ("/garbage", ErrorCode::HttpProtocol),
        ("/short", ErrorCode::HttpProtocol),
        ("/two-types", ErrorCode::HttpProtocol),
    ];
    for &(path, want) in cases {
        assert_eq!(
            code(fetch_card(&server.url("localhost", path), &small)),
            want,
            "{path}"
        );
    }
    let e = fetch_card(&server.url("localhost", "/missing"), &small).unwrap_err();
    assert_eq!(e.status(), Some(404));
    assert_eq!(e.url(), Some(server.url("localhost", "/missing").as_str()));
    // The default limit (1 MiB) takes the 2 KiB body.
    assert_eq!(
        fetch_card(&server.url("localhost", "/big"), &fx.options())
            .unwrap()
            .bytes
            .len(),
        2048
    );
    // Codes are distinct, and these are the retrieval codes.
    let retrieval: Vec<&str> = ErrorCode::RETRIEVAL
        .iter()
        .filter(|c| c.is_retrieval())
        .map(|c| c.as_str())
        .collect();
    // They are this crate's, not the core's, and each reads back as itself.
    for code in &retrieval {
        assert_eq!(a2a_card::ErrorCode::from_name(code), None, "{code}");
        assert_eq!(ErrorCode::from_name(code).unwrap().as_str(), *code);
    }
    let mut all = retrieval.clone();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), retrieval.len());
    assert_eq!(retrieval.len(), 17);
}

/// A 2 KiB JSON document (an object padded with whitespace).
fn big_json() -> Vec<u8> {
    let mut body = b"{}".to_vec();
    body.resize(2048, b' ');
    body
}

#[test]
fn a_body_that_is_not_i_json_is_refused_with_the_readers_code_and_pointer() {
    let fx = Fixture::new();
    let server = routes(&fx);
    for (path, code, pointer) in [
        ("/dup", "duplicate-member", "/a"),
        ("/spaces", "invalid-json", ""),
        ("/huge-int", "number-out-of-range", "/n"),
    ] {
        let e = fetch_card(&server.url("localhost", path), &fx.options()).unwrap_err();
        assert_eq!(e.code().as_str(), code, "{path}: {e}");
        assert_eq!(e.pointer(), Some(pointer), "{path}");
        assert_eq!(e.url(), Some(server.url("localhost", path).as_str()));
    }
}

#[test]
fn a_content_length_is_never_an_allocation() {
    // With the body limit as high as it goes, a server claiming a terabyte and sending two
    // bytes: the fetcher must neither allocate what the peer claims nor wait for it.
    let fx = Fixture::new();
    let server = routes(&fx);
    let opts = FetchOptions {
        max_body_bytes: usize::MAX,
        ..fx.options()
    };
    let e = fetch_card(&server.url("localhost", "/claims-a-terabyte"), &opts).unwrap_err();
    assert_eq!(e.code().as_str(), "http-protocol", "{e}");
    assert!(e.message().contains("999999999999"), "{e}");
}

#[test]
fn a_slow_server_hits_the_total_timeout() {
    let fx = Fixture::new();
    let server = routes(&fx);
    let opts = FetchOptions {
        total_timeout: Duration::from_millis(800),
        ..fx.options()
    };
    let started = Instant::now();
    // 50 bytes at one byte per 100 ms would take 5 s.
    assert_eq!(
        code(fetch_card(&server.url("localhost", "/slow"), &opts)),
        ErrorCode::Timeout
    );
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(800) && took < Duration::from_secs(3),
        "{took:?}"
    );
}

#[test]
fn certificates_must_match_the_name_and_chain_to_the_roots() {
    let fx = Fixture::new();
    // A certificate from the trusted CA, but for another name.
    let other = fx.ca.leaf(&["other.example"]);
    let server = Server::start(&other, |_| Resp::json(CARD));
    assert_eq!(
        code(fetch_card(&server.url("localhost", "/"), &fx.options())),
        ErrorCode::CertificateNameMismatch
    );
    assert_eq!(
        code(fetch_card(&server.url("127.0.0.1", "/"), &fx.options())),
        ErrorCode::CertificateNameMismatch
    );
    // The right name from a CA the client does not trust: the public roots, or another CA.
    let good = routes(&fx);
    let public_roots = FetchOptions {
        roots: Roots::WebPki,
        ..fx.options()
    };
    assert_eq!(
        code(fetch_card(&good.url("localhost", "/"), &public_roots)),
        ErrorCode::CertificateInvalid
    );
    let stranger = Ca::new("another CA");
    let other_ca = FetchOptions {
        roots: Roots::CaPem(stranger.pem.into_bytes()),
        ..fx.options()
    };
    assert_eq!(
        code(fetch_card(&good.url("localhost", "/"), &other_ca)),
        ErrorCode::CertificateInvalid
    );
    assert_eq!(
        good.requests().len(),
        0,
        "no request was sent over an untrusted connection"
    );
    // The CA as a file.
    let dir = temp_dir("ca");
    let path = dir.join("ca.pem");
    std::fs::write(&path, &fx.ca.pem).unwrap();
    let from_file = FetchOptions {
        roots: Roots::CaFile(path),
        ..fx.options()
    };
    assert_eq!(
        fetch_card(&good.url("localhost", "/"), &from_file).unwrap().bytes,
        CARD
    );
    let missing = FetchOptions {
        roots: Roots::CaFile(dir.join("missing.pem")),
        ..fx.options()
    };
    assert_eq!(
        code(fetch_card(&good.url("localhost", "/"), &missing)),
        ErrorCode::CaFile
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn connection_failures() {
    let fx = Fixture::new();
    // A port with no listener.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let url = format!("https://127.0.0.1:{port}/");
    assert_eq!(code(fetch_card(&url, &fx.options())), ErrorCode::ConnectFailed);
    // A server that does not speak TLS: the handshake fails, with its own code.
    let plain = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = plain.local_addr().unwrap().port();
    let answer = std::thread::spawn(move || {
        use std::io::{Read, Write};
        let (mut s, _) = plain.accept().unwrap();
        let mut buf = [0u8; 512];
        let _ = s.read(&mut buf);
        let _ = s.write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n");
    });
    let url = format!("https://127.0.0.1:{port}/");
    assert_eq!(code(fetch_card(&url, &fx.options())), ErrorCode::TlsHandshake);
    answer.join().unwrap();
    // (dns-failed is not exercised: a name that does not resolve locally would send a query to
    // the system's DNS server, and these tests send traffic to loopback only.)
}

#[test]
fn unusable_urls_are_usage_errors() {
    let opts = FetchOptions::default();
    for (url, want) in [
        ("http://agent.example.com", ErrorCode::NotHttps),
        ("ftp://agent.example.com/card.json", ErrorCode::NotHttps),
        ("agent.example.com", ErrorCode::InvalidUrl),
        ("https://user:pw@agent.example.com/", ErrorCode::InvalidUrl),
        ("https://", ErrorCode::InvalidUrl),
        ("", ErrorCode::InvalidUrl),
    ] {
        let e = fetch_card(url, &opts).unwrap_err();
        assert_eq!(e.code(), want, "{url:?}: {e}");
        assert!(e.is_caller_input(), "{url:?}");
    }
    let e = fetch_card("http://agent.example.com", &opts).unwrap_err();
    assert!(
        e.is_caller_input(),
        "given by the caller, refused before anything was sent"
    );
}
