//! `a2a-card fetch` and `verify URL` through HTTP proxies on loopback (the testkit's CONNECT
//! proxy, and tinyproxy): `--proxy URL`, `HTTPS_PROXY`, `NO_PROXY` and `--no-proxy`; a proxy
//! that refuses; the guard refusing a private IP-literal target before the proxy hears of it;
//! a proxy password never printed; proxy options refused with a card file.

#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use a2a_card_testkit::https::{Fixture, Protocol, Resp, Server, LOOPBACK_ONLY};
use a2a_card_testkit::proxy::{ConnectProxy, TinyProxy, Verdict};
use common::*;
use std::path::PathBuf;
use std::process::Output;

/// A scratch folder, an HTTP/2 server with a card signed by `a2a-card sign`, the CA and the
/// key set as files.
struct Setup {
    dir: PathBuf,
    server: Server,
    ca: PathBuf,
    jwks: PathBuf,
}

impl Setup {
    fn new(name: &str) -> Setup {
        let (dir, card, pem, jwks) = card_and_key(&format!("proxy-{name}"), "ES256", &[]);
        let signed_path = dir.join("signed.json");
        sign_to(&card, &pem, &[], &signed_path);
        let signed = std::fs::read(&signed_path).unwrap();
        let fx = Fixture::new();
        let ca = fx.write_ca(&dir);
        let server = Server::start_with(&fx.leaf, Protocol::Http2, move |_| Resp::json(&signed));
        Setup {
            dir,
            server,
            ca,
            jwks,
        }
    }

    fn origin(&self) -> String {
        self.server.url("localhost", "")
    }

    /// `cmd URL --allow-loopback --ca-file CA --no-cache [--jwks K]` plus `extra`, with `env`
    /// (the loopback-only net always).
    fn run(&self, cmd: &str, url: &str, extra: &[&str], env: &[(&str, &str)]) -> Output {
        let mut args = vec![
            cmd,
            url,
            "--allow-loopback",
            "--ca-file",
            s(&self.ca),
            "--no-cache",
        ];
        if cmd == "verify" {
            args.extend(["--jwks", s(&self.jwks)]);
        }
        args.extend_from_slice(extra);
        let mut env = env.to_vec();
        env.push(LOOPBACK_ONLY);
        run_env(&args, None, &env)
    }
}

impl Drop for Setup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn targets(proxy: &ConnectProxy) -> Vec<String> {
    proxy.connects().into_iter().map(|c| c.target).collect()
}

#[test]
fn verify_url_and_fetch_go_through_the_proxy_named() {
    let t = Setup::new("named");
    let proxy = ConnectProxy::open();
    let target = format!("localhost:{}", t.server.port);
    // --proxy URL.
    let out = t.run("verify", &t.origin(), &["--proxy", &proxy.url()], &[]);
    expect_code(&out, 0, "verify --proxy");
    assert!(stdout(&out).starts_with("VALID: "), "{}", stdout(&out));
    assert_eq!(targets(&proxy), [target]);
    // HTTPS_PROXY, and the fetch report names the proxy.
    let out = t.run("fetch", &t.origin(), &[], &[("HTTPS_PROXY", &proxy.url())]);
    expect_code(&out, 0, "fetch with HTTPS_PROXY");
    assert_eq!(stderr_field(&out, "proxy"), proxy.url());
    assert_eq!(stderr_field(&out, "protocol"), "HTTP/2");
    assert_eq!(stderr_field(&out, "peer"), format!("127.0.0.1:{}", proxy.port));
    assert_eq!(targets(&proxy).len(), 2);
    // ALL_PROXY when HTTPS_PROXY is not set.
    let out = t.run("fetch", &t.origin(), &[], &[("all_proxy", &proxy.url())]);
    expect_code(&out, 0, "fetch with all_proxy");
    assert_eq!(targets(&proxy).len(), 3);
}

#[test]
fn no_proxy_and_the_no_proxy_flag_go_direct() {
    let t = Setup::new("direct");
    let proxy = ConnectProxy::open();
    let env = [
        ("HTTPS_PROXY", proxy.url()),
        ("NO_PROXY", "example.com,localhost".into()),
    ];
    let env: Vec<(&str, &str)> = env.iter().map(|(n, v)| (*n, v.as_str())).collect();
    let out = t.run("verify", &t.origin(), &[], &env);
    expect_code(&out, 0, "NO_PROXY");
    // NO_PROXY also holds for --proxy.
    let out = t.run("fetch", &t.origin(), &["--proxy", &proxy.url()], &env);
    expect_code(&out, 0, "--proxy with NO_PROXY");
    assert!(!stderr(&out).contains("proxy:"), "{}", stderr(&out));
    // --no-proxy: direct whatever the environment says.
    let out = t.run(
        "fetch",
        &t.origin(),
        &["--no-proxy"],
        &[("HTTPS_PROXY", &proxy.url())],
    );
    expect_code(&out, 0, "--no-proxy");
    assert_eq!(stderr_field(&out, "peer"), format!("127.0.0.1:{}", t.server.port));
    assert!(targets(&proxy).is_empty(), "{:?}", targets(&proxy));
}

#[test]
fn a_refusing_proxy_exits_3_naming_it_and_its_password_is_never_printed() {
    let t = Setup::new("refusing");
    let proxy = ConnectProxy::start(|_| Verdict::Refuse(403));
    let with_password = format!("http://agent:s3cret@127.0.0.1:{}", proxy.port);
    for cmd in ["fetch", "verify"] {
        let out = t.run(cmd, &t.origin(), &["--proxy", &with_password], &[]);
        let line = expect_error(
            &out,
            3,
            "connect-failed",
            &t.server.url("localhost", "/.well-known/agent-card.json"),
        );
        assert!(line.contains(&proxy.url()), "{line}");
        assert!(
            !stderr(&out).contains("s3cret") && !stdout(&out).contains("s3cret"),
            "{line}"
        );
    }
    // An unusable proxy URL is a usage error (2), shown without its password.
    for bad in [
        "socks5://agent:s3cret@127.0.0.1:1080",
        "http://agent:s3cret@127.0.0.1:3128/x",
    ] {
        let out = t.run("fetch", &t.origin(), &["--proxy", bad], &[]);
        expect_code(&out, 2, bad);
        assert!(
            error_line(&out).starts_with("error[invalid-url]: "),
            "{}",
            error_line(&out)
        );
        assert!(!stderr(&out).contains("s3cret"), "{}", stderr(&out));
        let out = t.run("fetch", &t.origin(), &[], &[("HTTPS_PROXY", bad)]);
        expect_code(&out, 2, bad);
        assert!(!stderr(&out).contains("s3cret"), "{}", stderr(&out));
    }
    assert_eq!(t.server.accepts(), 0);
}

#[test]
fn the_guard_refuses_a_private_ip_literal_before_the_proxy_hears_of_it() {
    let t = Setup::new("guard");
    let proxy = ConnectProxy::open();
    for target in [
        "https://10.0.0.1/card.json",
        "https://[::ffff:a9fe:a9fe]/card.json",
    ] {
        for cmd in ["fetch", "verify"] {
            let out = t.run(cmd, target, &["--proxy", &proxy.url()], &[]);
            let line = expect_error(&out, 3, "address-refused", target);
            assert!(line.contains("refused before connecting"), "{line}");
        }
    }
    // A name that resolves here to loopback, without --allow-loopback.
    let out = run_env(
        &[
            "fetch",
            &t.origin(),
            "--ca-file",
            s(&t.ca),
            "--no-cache",
            "--proxy",
            &proxy.url(),
        ],
        None,
        &[LOOPBACK_ONLY],
    );
    let line = expect_error(
        &out,
        3,
        "address-refused",
        &t.server.url("localhost", "/.well-known/agent-card.json"),
    );
    assert!(line.contains("loopback"), "{line}");
    assert!(targets(&proxy).is_empty(), "{:?}", targets(&proxy));
}

#[test]
fn proxy_options_mean_nothing_for_a_card_file() {
    let t = Setup::new("usage");
    let card = write(&t.dir, "card.json", CARD);
    for flag in [&["--proxy", "http://127.0.0.1:3128"][..], &["--no-proxy"]] {
        let out = verify(&card, &t.jwks, flag);
        let line = expect_error(&out, 2, "usage", "<command line>");
        assert!(line.contains(flag[0]), "{line}");
    }
    let out = t.run(
        "fetch",
        &t.origin(),
        &["--proxy", "http://127.0.0.1:1", "--no-proxy"],
        &[],
    );
    expect_code(&out, 2, "--proxy with --no-proxy");
    assert_mentions(
        &help(&["fetch"]),
        &["--proxy", "--no-proxy", "HTTPS_PROXY", "NO_PROXY"],
    );
}

#[test]
fn verify_url_through_tinyproxy() {
    let t = Setup::new("tinyproxy");
    let Some(tiny) = TinyProxy::start(&t.dir) else {
        assert!(
            std::env::var_os("CI").is_none(),
            "tinyproxy is not installed (scripts/setup.sh installs it)"
        );
        eprintln!("note: tinyproxy is not installed; skipped");
        return;
    };
    let out = t.run("verify", &t.origin(), &[], &[("HTTPS_PROXY", &tiny.url())]);
    expect_code(&out, 0, "verify through tinyproxy");
    assert!(tiny.log().contains("CONNECT"), "{}", tiny.log());
}
