//! Retrieval through HTTP proxies on loopback: a CONNECT proxy written for the tests (it
//! records every CONNECT) and Debian's tinyproxy. The card and its `jku` come through the
//! proxy; `NO_PROXY` hosts go direct; a proxy that refuses or cannot be reached is a
//! `connect-failed` naming it; the guard still refuses, before the proxy hears of them,
//! IP-literal targets, names that resolve here to refused addresses and redirects to either;
//! credentials are sent to the proxy and shown nowhere.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use a2a_card::{Algorithm, PrivateKey, TrustStore};
use a2a_card_fetch::{fetch_card, verify_remote, ErrorCode, FetchOptions, JkuStatus, Proxy, RemoteOptions};
use a2a_card_testkit::https::Protocol;
use a2a_card_testkit::proxy::{ConnectProxy, TinyProxy, Verdict};
use common::*;

/// Options that go through `proxy` (every host), with the fixture's CA and loopback opened.
fn through(fx: &Fixture, proxy: &str, no_proxy: &str) -> FetchOptions {
    FetchOptions {
        proxy: Proxy::Url {
            url: proxy.into(),
            no_proxy: no_proxy.into(),
        },
        ..fx.options()
    }
}

/// An HTTP/2 server whose sample card is signed with a `jku` on its own origin; it also
/// redirects `/to?URL` to URL.
fn agent(fx: &Fixture) -> (Server, RemoteOptions) {
    let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    let jwks = jwks_json(&key);
    let card: std::sync::Arc<std::sync::OnceLock<Vec<u8>>> = Default::default();
    let c = card.clone();
    let server = Server::start_with(&fx.leaf, Protocol::Http2, move |req| match req.path.as_str() {
        "/.well-known/agent-card.json" => Resp::json(c.get().unwrap()),
        "/keys/jwks.json" => Resp::new(200)
            .header("Content-Type", "application/jwk-set+json")
            .body(&jwks),
        p if p.starts_with("/to?") => Resp::redirect(302, &p["/to?".len()..]),
        _ => Resp::new(404),
    });
    let jku = server.url("localhost", "/keys/jwks.json");
    card.set(signed(&sample_card(), &key, Some(jku))).unwrap();
    let remote = RemoteOptions {
        jku_allow: vec![server.url("localhost", "/keys/")],
        ..RemoteOptions::default()
    };
    (server, remote)
}

fn targets(proxy: &ConnectProxy) -> Vec<String> {
    proxy.connects().into_iter().map(|c| c.target).collect()
}

#[test]
fn a_card_and_its_jku_come_through_a_connect_proxy() {
    let fx = Fixture::new();
    let (server, remote) = agent(&fx);
    let proxy = ConnectProxy::open();
    let opts = through(&fx, &proxy.url(), "");
    let r = verify_remote(&server.url("localhost", ""), &TrustStore::new(), &remote, &opts).unwrap();
    assert!(r.report.ok, "{}", r.report.reason);
    assert!(matches!(r.jku[0].status, JkuStatus::Fetched { .. }));
    // One tunnel: the card and its jku share the HTTP/2 connection inside it.
    assert_eq!(targets(&proxy), [format!("localhost:{}", server.port)]);
    assert_eq!(server.accepts(), 1);
    let f = fetch_card(&server.url("localhost", ""), &opts).unwrap();
    assert_eq!(f.proxy.as_deref(), Some(proxy.url().as_str()));
    assert_eq!(f.peer.unwrap().port(), proxy.port, "the peer is the proxy");
    assert_eq!(f.protocol.as_deref(), Some("HTTP/2"));
    assert!(f.to_lines().contains(&format!("proxy: {}", proxy.url())));
    // A proxy named by a host name: its addresses are allowed as the proxy's.
    let named = through(&fx, &format!("http://localhost:{}", proxy.port), "");
    assert!(fetch_card(&server.url("localhost", ""), &named)
        .unwrap()
        .proxy
        .is_some());
    // A proxy named without a scheme is http://.
    let bare = through(&fx, &format!("127.0.0.1:{}", proxy.port), "");
    assert!(fetch_card(&server.url("127.0.0.1", ""), &bare).is_ok());
    assert_eq!(
        targets(&proxy).last().unwrap(),
        &format!("127.0.0.1:{}", server.port)
    );
}

#[test]
fn no_proxy_hosts_go_direct() {
    let fx = Fixture::new();
    let (server, _) = agent(&fx);
    let proxy = ConnectProxy::open();
    for (no_proxy, host) in [
        ("localhost", "localhost"),
        ("example.com, localhost", "localhost"),
        ("127.0.0.1", "127.0.0.1"),
        ("127.0.0.0/8", "127.0.0.1"),
        ("*", "localhost"),
    ] {
        let f = fetch_card(&server.url(host, ""), &through(&fx, &proxy.url(), no_proxy)).unwrap();
        assert_eq!(f.proxy, None, "{no_proxy}");
        assert_eq!(f.peer.unwrap().port(), server.port, "{no_proxy}");
    }
    assert!(targets(&proxy).is_empty(), "{:?}", targets(&proxy));
    // A list that does not match goes through the proxy.
    let f = fetch_card(
        &server.url("localhost", ""),
        &through(&fx, &proxy.url(), "example.com"),
    )
    .unwrap();
    assert!(f.proxy.is_some());
    assert_eq!(targets(&proxy).len(), 1);
}

#[test]
fn a_proxy_that_refuses_or_cannot_be_reached_is_a_connect_failure_naming_it() {
    let fx = Fixture::new();
    let (server, _) = agent(&fx);
    let refusing = ConnectProxy::start(|_| Verdict::Refuse(403));
    let e = fetch_card(&server.url("localhost", ""), &through(&fx, &refusing.url(), "")).unwrap_err();
    assert_eq!(e.code(), ErrorCode::ConnectFailed, "{e}");
    assert!(e.message().contains(&refusing.url()), "{e}");
    assert!(e.message().contains("refused to open a tunnel"), "{e}");
    assert_eq!(
        e.url(),
        Some(server.url("localhost", "/.well-known/agent-card.json").as_str())
    );
    assert_eq!(targets(&refusing).len(), 1);
    assert_eq!(server.accepts(), 0);
    // Nothing listens on this port.
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://127.0.0.1:{}", l.local_addr().unwrap().port())
    };
    let e = fetch_card(&server.url("localhost", ""), &through(&fx, &closed, "")).unwrap_err();
    assert_eq!(e.code(), ErrorCode::ConnectFailed, "{e}");
    assert!(e.message().contains(&closed), "{e}");
}

#[test]
fn the_guard_still_refuses_through_a_proxy() {
    let fx = Fixture::new();
    let (server, _) = agent(&fx);
    let proxy = ConnectProxy::open();
    let opts = through(&fx, &proxy.url(), "");
    // IP literals, first hop and redirect targets alike.
    for target in [
        "https://10.0.0.1/.well-known/agent-card.json",
        "https://169.254.169.254/latest/meta-data/",
        "https://[::ffff:10.0.0.1]/",
        "https://[fd00::1]/",
        "https://2852039166/",
    ] {
        let e = fetch_card(target, &opts).unwrap_err();
        assert_eq!(e.code(), ErrorCode::AddressRefused, "{target}: {e}");
        assert!(e.message().contains("refused before connecting"), "{e}");
        let redirect = server.url("localhost", &format!("/to?{target}"));
        let e = fetch_card(&redirect, &opts).unwrap_err();
        assert_eq!(e.code(), ErrorCode::AddressRefused, "{target}: {e}");
    }
    // The redirecting server was reached through the proxy; the refused targets never were.
    let seen = targets(&proxy);
    assert!(
        seen.iter().all(|t| *t == format!("localhost:{}", server.port)),
        "{seen:?}"
    );
    // A name that resolves here to a refused address (loopback, closed here).
    let closed = FetchOptions {
        allow_loopback: false,
        ..opts.clone()
    };
    let before = targets(&proxy).len();
    let e = fetch_card(&server.url("localhost", ""), &closed).unwrap_err();
    assert_eq!(e.code(), ErrorCode::AddressRefused, "{e}");
    assert!(e.message().contains("localhost resolves to"), "{e}");
    assert_eq!(targets(&proxy).len(), before, "the proxy heard of it");
}

#[test]
fn proxy_credentials_are_sent_and_never_shown() {
    let fx = Fixture::new();
    let (server, _) = agent(&fx);
    let proxy = ConnectProxy::start(|c| {
        if c.header("proxy-authorization") == Some("Basic YWdlbnQ6czNjcmV0") {
            Verdict::Tunnel
        } else {
            Verdict::Refuse(407)
        }
    });
    let with = format!("http://agent:s3cret@127.0.0.1:{}", proxy.port);
    let f = fetch_card(&server.url("localhost", ""), &through(&fx, &with, "")).unwrap();
    assert_eq!(f.proxy.as_deref(), Some(proxy.url().as_str()));
    assert!(!format!("{:?} {:?}", f, f.to_lines()).contains("s3cret"));
    let wrong = format!("http://agent:wr0ng@127.0.0.1:{}", proxy.port);
    let e = fetch_card(&server.url("localhost", ""), &through(&fx, &wrong, "")).unwrap_err();
    assert_eq!(e.code(), ErrorCode::ConnectFailed, "{e}");
    assert!(!format!("{e} {e:?}").contains("wr0ng"), "{e:?}");
    // An unusable proxy URL is the caller's input, shown without its password.
    for bad in [
        "socks5://agent:s3cret@127.0.0.1:1080",
        "http://agent:s3cret@127.0.0.1:3128/path",
    ] {
        let e = fetch_card(&server.url("localhost", ""), &through(&fx, bad, "")).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidUrl, "{bad}: {e}");
        assert!(e.is_caller_input());
        assert!(!format!("{e} {e:?}").contains("s3cret"), "{e:?}");
    }
}

#[test]
fn the_proxys_address_is_allowed_as_the_proxy_only() {
    let fx = Fixture::new();
    let proxy = ConnectProxy::start(|_| Verdict::Refuse(403));
    for named in [
        format!("http://127.0.0.1:{}", proxy.port),
        format!("http://localhost:{}", proxy.port),
    ] {
        // Loopback closed: the proxy on loopback is still dialled, because it was named. A name
        // that does not resolve here (RFC 6761 .invalid) is the proxy's to resolve; it refuses.
        let opts = FetchOptions {
            allow_loopback: false,
            ..through(&fx, &named, "")
        };
        let e = fetch_card("https://agent.invalid/", &opts).unwrap_err();
        assert_eq!(e.code(), ErrorCode::ConnectFailed, "{named}: {e}");
        assert!(e.message().contains("refused to open a tunnel"), "{named}: {e}");
        assert_eq!(targets(&proxy).last().unwrap(), "agent.invalid:443");
        // The proxy's own address is no target: through it, or direct (NO_PROXY), refused
        // before any connection.
        let heard = targets(&proxy).len();
        for target in [
            format!("https://127.0.0.1:{}/", proxy.port),
            format!("https://localhost:{}/", proxy.port),
        ] {
            for no_proxy in ["", "*"] {
                let opts = FetchOptions {
                    allow_loopback: false,
                    ..through(&fx, &named, no_proxy)
                };
                let e = fetch_card(&target, &opts).unwrap_err();
                assert_eq!(
                    e.code(),
                    ErrorCode::AddressRefused,
                    "{named} NO_PROXY={no_proxy:?} {target}: {e}"
                );
            }
        }
        assert_eq!(targets(&proxy).len(), heard, "the proxy heard of its own address");
    }
}

#[test]
fn the_loopback_only_net_holds_for_the_proxy() {
    let fx = Fixture::new();
    let (server, _) = agent(&fx);
    let e = fetch_card(
        &server.url("localhost", ""),
        &through(&fx, "http://10.9.9.9:3128", ""),
    )
    .unwrap_err();
    assert_eq!(e.code(), ErrorCode::AddressRefused, "{e}");
    assert!(e.message().contains("A2A_CARD_FETCH_LOOPBACK_ONLY"), "{e}");
    assert!(e.message().contains("http://10.9.9.9:3128"), "{e}");
}

#[test]
fn tinyproxy_carries_a_verification() {
    let fx = Fixture::new();
    let (server, remote) = agent(&fx);
    let dir = temp_dir("tinyproxy");
    let Some(tiny) = TinyProxy::start(&dir) else {
        assert!(
            std::env::var_os("CI").is_none(),
            "tinyproxy is not installed (scripts/setup.sh installs it)"
        );
        eprintln!("note: tinyproxy is not installed; skipped");
        return;
    };
    let opts = through(&fx, &tiny.url(), "");
    let r = verify_remote(&server.url("localhost", ""), &TrustStore::new(), &remote, &opts).unwrap();
    assert!(r.report.ok, "{}", r.report.reason);
    assert!(matches!(r.jku[0].status, JkuStatus::Fetched { .. }));
    assert!(tiny.log().contains("CONNECT"), "{}", tiny.log());
    // The guard holds through tinyproxy too.
    let e = fetch_card("https://10.0.0.1/", &opts).unwrap_err();
    assert_eq!(e.code(), ErrorCode::AddressRefused, "{e}");
    drop(tiny);
    let _ = std::fs::remove_dir_all(dir);
}
