//! End-to-end tests of `a2a-card fetch` and `a2a-card verify URL` against a real HTTPS server on
//! loopback (rustls, with a CA and certificates generated at test time): cards signed by
//! `a2a-card sign`, trust from files, origin-bound trust entries, allowlisted `jku`, the SSRF
//! guard, each retrieval failure with its code and exit code, and the HTTP cache.

#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use a2a_card_testkit::https::{Fixture, Framing, Req, Resp, Server, LOOPBACK_ONLY};
use common::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const WELL_KNOWN: &str = "/.well-known/agent-card.json";

/// A server whose responses are set per path after it started (a card's jku names the
/// server's own port, so the card is signed after the port is known). A response with an
/// `ETag` answers `304` to a request whose `If-None-Match` names it, and counts it.
struct Agent {
    fx: Fixture,
    server: Server,
    routes: Arc<Mutex<HashMap<String, Resp>>>,
    not_modified: Arc<AtomicUsize>,
}

impl Agent {
    fn new() -> Agent {
        let fx = Fixture::new();
        let routes: Arc<Mutex<HashMap<String, Resp>>> = Arc::default();
        let not_modified = Arc::new(AtomicUsize::new(0));
        let (r, nm) = (routes.clone(), not_modified.clone());
        let server = Server::start(&fx.leaf, move |req: &Req| {
            let Some(resp) = r.lock().unwrap().get(&req.path).cloned() else {
                return Resp::new(404);
            };
            let etag = resp
                .headers
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case("etag"))
                .map(|(_, v)| v.clone());
            if let Some(etag) = etag {
                if req.header("if-none-match") == Some(etag.as_str()) {
                    nm.fetch_add(1, Ordering::SeqCst);
                    return Resp::new(304).header("ETag", &etag);
                }
            }
            resp
        });
        Agent {
            fx,
            server,
            routes,
            not_modified,
        }
    }

    fn route(&self, path: &str, resp: Resp) {
        self.routes.lock().unwrap().insert(path.to_string(), resp);
    }

    /// `https://localhost:PORT`.
    fn origin(&self) -> String {
        self.server.url("localhost", "")
    }

    fn url(&self, path: &str) -> String {
        self.server.url("localhost", path)
    }
}

/// Runs the binary with the loopback-only safety net in its environment.
fn run_net(args: &[&str]) -> Output {
    run_env(args, None, &[LOOPBACK_ONLY])
}

/// A scratch directory, a server, its CA as a file, and an ES256 key (PEM, JWKS).
struct Setup {
    dir: PathBuf,
    agent: Agent,
    ca: PathBuf,
    pem: PathBuf,
    jwks: PathBuf,
}

impl Setup {
    fn new(name: &str) -> Setup {
        let dir = scratch(&format!("remote-{name}"));
        let agent = Agent::new();
        let ca = agent.fx.write_ca(&dir);
        let (pem, jwks) = keygen(&dir, "agent", "ES256", &[]);
        Setup {
            dir,
            agent,
            ca,
            pem,
            jwks,
        }
    }

    /// The small card signed by `a2a-card sign` with `extra` options.
    fn signed(&self, extra: &[&str]) -> Vec<u8> {
        let card = write(&self.dir, "card.json", CARD);
        let out = self.dir.join("signed.json");
        sign_to(&card, &self.pem, extra, &out);
        std::fs::read(out).unwrap()
    }

    /// Serves the card signed with `extra` at the well-known path and returns it.
    fn serve_signed(&self, extra: &[&str]) -> Vec<u8> {
        let card = self.signed(extra);
        self.agent.route(WELL_KNOWN, Resp::json(&card));
        card
    }

    /// `cmd target` with loopback opened, the test CA, no cache, then `extra`.
    fn run(&self, cmd: &str, target: &str, extra: &[&str]) -> Output {
        let mut args = vec![
            cmd,
            target,
            "--allow-loopback",
            "--ca-file",
            s(&self.ca),
            "--no-cache",
        ];
        args.extend_from_slice(extra);
        run_net(&args)
    }

    /// `verify URL --jwks KEY.json` plus `extra`.
    fn verify(&self, target: &str, extra: &[&str]) -> Output {
        let mut args = vec!["--jwks", s(&self.jwks)];
        args.extend_from_slice(extra);
        self.run("verify", target, &args)
    }
}

/// The lines of stdout.
fn lines(out: &Output) -> Vec<String> {
    stdout(out).lines().map(str::to_string).collect()
}

#[track_caller]
fn has_line(out: &Output, line: &str) {
    let text = stdout(out);
    assert!(text.lines().any(|l| l == line), "no line {line:?} in:\n{text}");
}

/// Asserts a failure of a command whose error concerns a URL: exit code, nothing on stdout,
/// and one line `error[CODE]: ... (URL)`.
#[track_caller]
fn expect_url_error(out: &Output, code: i32, error_code: &str, url: &str) -> String {
    expect_error(out, code, error_code, url)
}

#[test]
fn fetch_prints_the_card_as_served() {
    let t = Setup::new("fetch");
    let card = t.serve_signed(&[]);
    let out = t.run("fetch", &t.agent.origin(), &[]);
    expect_code(&out, 0, "fetch");
    assert_eq!(out.stdout, card, "stdout is the card byte for byte");
    assert_eq!(stderr_field(&out, "origin"), t.agent.origin());
    assert_eq!(stderr_field(&out, "final url"), t.agent.url(WELL_KNOWN));
    assert_eq!(stderr_field(&out, "redirects"), "none");
    assert_eq!(stderr_field(&out, "cache"), "off");
    assert_eq!(stderr_field(&out, "content-type"), "application/json");
    assert_eq!(stderr_field(&out, "bytes"), card.len().to_string());
    assert_eq!(stderr_field(&out, "sha256"), hex(&sha256(&card)));
    assert!(stderr_field(&out, "peer").starts_with("127.0.0.1:"));
    // The server saw one GET of the well-known path, from a2a-card.
    let reqs = t.agent.server.requests();
    assert_eq!(reqs.len(), 1);
    assert_eq!(reqs[0].path, WELL_KNOWN);
    assert!(
        reqs[0].header("user-agent").unwrap().starts_with("a2a-card/"),
        "{reqs:?}"
    );

    // A full URL is fetched as given; --out writes the file and nothing goes to stdout.
    t.agent.route(
        "/cards/a.json",
        Resp::new(200)
            .header("Content-Type", "application/a2a+json; charset=utf-8")
            .body(b"{\"name\":\"A\"}"),
    );
    let dest = t.dir.join("fetched.json");
    let out = t.run("fetch", &t.agent.url("/cards/a.json"), &["--out", s(&dest)]);
    expect_code(&out, 0, "fetch --out");
    assert!(out.stdout.is_empty());
    assert_eq!(std::fs::read(&dest).unwrap(), b"{\"name\":\"A\"}");
    assert_eq!(stderr_field(&out, "content-type"), "application/a2a+json");
    assert_eq!(stderr_field(&out, "final url"), t.agent.url("/cards/a.json"));
    // No temporary file is left next to it.
    assert!(
        listing(&t.dir).iter().all(|n| !n.ends_with(".tmp")),
        "{:?}",
        listing(&t.dir)
    );

    // A redirect is followed and named; the origin stays the one asked for.
    t.agent.route("/moved", Resp::redirect(302, WELL_KNOWN));
    let out = t.run("fetch", &t.agent.url("/moved"), &[]);
    expect_code(&out, 0, "redirect");
    assert_eq!(out.stdout, card);
    assert_eq!(stderr_field(&out, "redirect 1"), t.agent.url(WELL_KNOWN));
    assert_eq!(stderr_field(&out, "origin"), t.agent.origin());
}

#[test]
fn loopback_is_refused_without_allow_loopback_before_any_connection() {
    let t = Setup::new("loopback");
    t.serve_signed(&[]);
    for host in ["localhost", "127.0.0.1"] {
        let url = t.agent.server.url(host, "");
        for cmd in [
            vec!["fetch", url.as_str(), "--ca-file", s(&t.ca), "--no-cache"],
            vec![
                "verify",
                url.as_str(),
                "--jwks",
                s(&t.jwks),
                "--ca-file",
                s(&t.ca),
                "--no-cache",
            ],
        ] {
            let out = run_net(&cmd);
            let line = expect_url_error(&out, 3, "address-refused", &t.agent.server.url(host, WELL_KNOWN));
            assert!(line.contains("loopback"), "{line}");
        }
    }
    assert_eq!(t.agent.server.accepts(), 0, "the server saw a connection");
}

#[test]
fn each_retrieval_failure_has_its_code_and_exit_code() {
    let t = Setup::new("failures");
    let a = &t.agent;
    a.route(
        "/text",
        Resp::new(200).header("Content-Type", "text/plain").body(b"{}"),
    );
    a.route("/big", Resp::json(&[b' '; 64]));
    a.route("/moved", Resp::redirect(302, WELL_KNOWN));
    a.route(WELL_KNOWN, Resp::json(b"{}"));
    a.route(
        "/slow",
        Resp::json(b"{\"name\":\"slow\"}").framing(Framing::Slow(Duration::from_millis(400))),
    );
    let dest = t.dir.join("never.json");
    let cases: &[(&str, &[&str], &str)] = &[
        ("/text", &[], "not-json"),
        ("/missing", &[], "http-status"),
        ("/big", &["--max-body-bytes", "10"], "body-too-large"),
        ("/moved", &["--max-redirects", "0"], "too-many-redirects"),
        ("/slow", &["--timeout", "1"], "timeout"),
    ];
    for (path, extra, code) in cases {
        let mut args = vec!["--out", s(&dest)];
        args.extend_from_slice(extra);
        let out = t.run("fetch", &a.url(path), &args);
        expect_url_error(&out, 3, code, &a.url(path));
        assert!(!dest.exists(), "{code}: --out written on failure");
        // verify URL fails the same way.
        let out = t.verify(&a.url(path), extra);
        expect_url_error(&out, 3, code, &a.url(path));
    }

    // A redirect to a private or metadata address is refused by the guard, before connecting
    // (the loopback-only safety net in the environment would name itself).
    for (path, target, class) in [
        (
            "/to-metadata",
            "https://169.254.169.254/latest/meta-data/",
            "link-local",
        ),
        ("/to-private", "https://10.0.0.1/card.json", "private"),
    ] {
        a.route(path, Resp::redirect(302, target));
        for cmd in ["fetch", "verify"] {
            let out = if cmd == "fetch" {
                t.run(cmd, &a.url(path), &[])
            } else {
                t.verify(&a.url(path), &[])
            };
            expect_code(&out, 3, path);
            let line = error_line(&out);
            assert!(line.starts_with("error[address-refused]: "), "{line}");
            assert!(line.contains(&format!("is a {class} address")), "{line}");
            assert!(!line.contains("A2A_CARD_FETCH_LOOPBACK_ONLY"), "{line}");
            assert!(line.ends_with(&format!("({target})")), "{line}");
        }
    }

    // A certificate from a CA the client does not trust, and one for another name.
    let other_ca = Fixture::new().write_ca(&scratch("remote-failures-other-ca"));
    let out = run_net(&[
        "fetch",
        &a.origin(),
        "--allow-loopback",
        "--ca-file",
        s(&other_ca),
        "--no-cache",
    ]);
    expect_url_error(&out, 3, "certificate-invalid", &a.url(WELL_KNOWN));
    let elsewhere = Server::start(&t.agent.fx.ca.leaf(&["agent.example.com"]), |_| Resp::json(b"{}"));
    let out = t.run("fetch", &elsewhere.url("localhost", ""), &[]);
    expect_url_error(
        &out,
        3,
        "certificate-name-mismatch",
        &elsewhere.url("localhost", WELL_KNOWN),
    );

    // A CA file that cannot be read: exit 3, like a key file.
    let out = run_net(&[
        "fetch",
        &a.origin(),
        "--allow-loopback",
        "--ca-file",
        s(&t.dir.join("missing.pem")),
        "--no-cache",
    ]);
    expect_code(&out, 3, "ca-file");
    assert!(error_line(&out).starts_with("error[ca-file]: "));

    // The caller's own URL refused before anything is sent: exit 2.
    let plain = format!("http://localhost:{}", a.server.port);
    let out = t.run("fetch", &plain, &[]);
    expect_url_error(&out, 2, "not-https", &format!("{plain}/"));
    let out = t.verify(&plain, &[]);
    expect_url_error(&out, 2, "not-https", &format!("{plain}/"));
    let out = t.run("fetch", "https://", &[]);
    expect_code(&out, 2, "not a URL");
    assert!(error_line(&out).starts_with("error[invalid-url]: "));
}

#[test]
fn fetch_revalidates_with_etag_and_honours_no_cache_and_no_store() {
    let t = Setup::new("cache");
    let card = t.signed(&[]);
    t.agent
        .route(WELL_KNOWN, Resp::json(&card).header("ETag", "\"v1\""));
    let cache = t.dir.join("cache");
    let origin = t.agent.origin();
    let cached = |extra: &[&str]| {
        let mut args = vec![
            "fetch",
            origin.as_str(),
            "--allow-loopback",
            "--ca-file",
            s(&t.ca),
        ];
        args.extend_from_slice(extra);
        run_net(&args)
    };

    let first = cached(&["--cache-dir", s(&cache)]);
    expect_code(&first, 0, "first");
    assert_eq!(stderr_field(&first, "cache"), "stored");
    assert_eq!(first.stdout, card);
    assert_eq!(listing(&cache).len(), 1, "{:?}", listing(&cache));

    let second = cached(&["--cache-dir", s(&cache)]);
    expect_code(&second, 0, "second");
    assert_eq!(stderr_field(&second, "cache"), "revalidated");
    assert_eq!(second.stdout, card, "the stored card is reused");
    assert_eq!(t.agent.not_modified.load(Ordering::SeqCst), 1);
    let reqs = t.agent.server.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[0].header("if-none-match"), None);
    assert_eq!(reqs[1].header("if-none-match"), Some("\"v1\""));

    // verify URL goes through the same cache.
    let out = run_net(&[
        "verify",
        &t.agent.origin(),
        "--jwks",
        s(&t.jwks),
        "--allow-loopback",
        "--ca-file",
        s(&t.ca),
        "--cache-dir",
        s(&cache),
    ]);
    expect_code(&out, 0, "verify through the cache");
    has_line(&out, "cache: revalidated");
    assert_eq!(t.agent.not_modified.load(Ordering::SeqCst), 2);

    // --no-cache: no conditional request, nothing read or written.
    let before = t.agent.server.requests().len();
    let out = cached(&["--no-cache"]);
    expect_code(&out, 0, "no-cache");
    assert_eq!(stderr_field(&out, "cache"), "off");
    let reqs = t.agent.server.requests();
    assert_eq!(reqs.len(), before + 1);
    assert_eq!(reqs[before].header("if-none-match"), None);
    assert_eq!(t.agent.not_modified.load(Ordering::SeqCst), 2);

    // The server changes the card and its ETag: the new card is fetched and stored.
    let changed = CARD.replace("Release Agent", "Release Agent 2");
    t.agent.route(
        WELL_KNOWN,
        Resp::json(changed.as_bytes()).header("ETag", "\"v2\""),
    );
    let out = cached(&["--cache-dir", s(&cache)]);
    expect_code(&out, 0, "changed");
    assert_eq!(stderr_field(&out, "cache"), "stored");
    assert_eq!(out.stdout, changed.as_bytes());

    // no-store: not stored, and the stored entry is removed; the next fetch is unconditional.
    t.agent.route(
        WELL_KNOWN,
        Resp::json(&card)
            .header("ETag", "\"v3\"")
            .header("Cache-Control", "no-store"),
    );
    let out = cached(&["--cache-dir", s(&cache)]);
    expect_code(&out, 0, "no-store");
    assert_eq!(stderr_field(&out, "cache"), "not-stored");
    assert!(listing(&cache).is_empty(), "{:?}", listing(&cache));
    let before = t.agent.server.requests().len();
    let out = cached(&["--cache-dir", s(&cache)]);
    expect_code(&out, 0, "after no-store");
    assert_eq!(stderr_field(&out, "cache"), "not-stored");
    assert_eq!(t.agent.server.requests()[before].header("if-none-match"), None);

    // max-age: a fresh entry is used without any request.
    t.agent.route(
        WELL_KNOWN,
        Resp::json(&card).header("Cache-Control", "max-age=600"),
    );
    let out = cached(&["--cache-dir", s(&cache)]);
    assert_eq!(stderr_field(&out, "cache"), "stored");
    let before = t.agent.server.requests().len();
    let out = cached(&["--cache-dir", s(&cache)]);
    expect_code(&out, 0, "fresh");
    assert_eq!(stderr_field(&out, "cache"), "fresh");
    assert_eq!(out.stdout, card);
    assert_eq!(
        t.agent.server.requests().len(),
        before,
        "a fresh entry was re-requested"
    );
}

/// Without --cache-dir or --no-cache the cache is the user's cache directory; here HOME and
/// XDG_CACHE_HOME point into a scratch directory, so the real user cache is never touched.
#[cfg(target_os = "linux")]
#[test]
fn the_default_cache_is_in_the_users_cache_directory() {
    let t = Setup::new("default-cache");
    let card = t.signed(&[]);
    t.agent
        .route(WELL_KNOWN, Resp::json(&card).header("ETag", "\"d\""));
    let xdg = t.dir.join("xdg");
    let home = t.dir.join("home");
    let env = [LOOPBACK_ONLY, ("XDG_CACHE_HOME", s(&xdg)), ("HOME", s(&home))];
    let args = [
        "fetch",
        &t.agent.origin(),
        "--allow-loopback",
        "--ca-file",
        s(&t.ca),
    ];
    let out = run_env(&args, None, &env);
    expect_code(&out, 0, "first");
    assert_eq!(stderr_field(&out, "cache"), "stored");
    assert_eq!(listing(&xdg.join("a2a-card")).len(), 1);
    assert!(!home.exists());
    let out = run_env(&args, None, &env);
    assert_eq!(stderr_field(&out, "cache"), "revalidated");
}

#[test]
fn verify_url_names_origin_final_url_and_key_source() {
    let t = Setup::new("verify");
    let served = t.serve_signed(&[]);
    let verified = t.dir.join("verified.json");
    let out = t.verify(&t.agent.origin(), &["--emit-verified", s(&verified)]);
    expect_code(&out, 0, "verify");
    assert!(out.stderr.is_empty(), "{}", stderr(&out));
    let text = lines(&out);
    assert!(text[0].starts_with("VALID: "), "{text:?}");
    has_line(&out, &format!("card: {}", t.agent.url(WELL_KNOWN)));
    has_line(&out, &format!("origin: {}", t.agent.origin()));
    has_line(&out, &format!("final url: {}", t.agent.url(WELL_KNOWN)));
    has_line(&out, "redirects: none");
    has_line(&out, "cache: off");
    let sig = text.iter().find(|l| l.starts_with("signature 0: ")).unwrap();
    assert!(sig.contains(": valid: "), "{sig}");
    assert!(
        sig.ends_with(&format!("(key from trust store {}, profile spec)", s(&t.jwks))),
        "{sig}"
    );
    // The verified content is the canonical form of the card that was signed.
    let card = write(&t.dir, "plain.json", CARD);
    assert_eq!(std::fs::read(&verified).unwrap(), canonical(&card, &[]));

    // The same as JSON: the report of `verify FILE --format json` for the card served (the same
    // members, the same values) and the retrieval's facts beside them under "fetch".
    let out = t.verify(
        &t.agent.url("/x/../.well-known/agent-card.json"),
        &["--format", "json"],
    );
    expect_code(&out, 0, "json");
    let v = json_out(&out);
    let served = write(&t.dir, "served.json", &served);
    let file = run(
        &[
            "verify",
            s(&served),
            "--jwks",
            s(&t.jwks),
            "--origin",
            &t.agent.origin(),
            "--format",
            "json",
        ],
        None,
    );
    expect_code(&file, 0, "verify FILE --format json");
    let file = json_out(&file);
    let (remote, local) = (v.as_object().unwrap(), file.as_object().unwrap());
    let names: Vec<&String> = remote.keys().filter(|k| *k != "fetch").collect();
    assert_eq!(names, local.keys().collect::<Vec<_>>(), "{v}");
    for (name, value) in local {
        assert_eq!(&remote[name], value, "member {name}");
    }
    assert_eq!(v["ok"], true);
    assert_eq!(v["canonical"].as_str().unwrap().as_bytes(), canonical(&card, &[]));
    assert_eq!(v["canonical_sha256"], hex(&sha256(&canonical(&card, &[]))));
    let f = &v["fetch"];
    assert_eq!(f["requested_url"], t.agent.url(WELL_KNOWN));
    assert_eq!(f["origin"], t.agent.origin());
    assert_eq!(f["final_url"], t.agent.url(WELL_KNOWN));
    assert_eq!(f["redirects"], serde_json::json!([]));
    assert_eq!(f["status"], 200);
    assert_eq!(f["content_type"], "application/json");
    assert_eq!(f["cache"], "off");
    assert!(f["peer"].as_str().unwrap().starts_with("127.0.0.1:"), "{f}");
    assert_eq!(f["protocol"], "HTTP/1.1");
    assert_eq!(f["proxy"], serde_json::Value::Null);
    assert_eq!(f["keys"][0]["index"], 0);
    assert_eq!(f["keys"][0]["source"]["from"], "trust-store");
    assert_eq!(f["keys"][0]["source"]["source"], s(&t.jwks));
    assert_eq!(f["jku"], serde_json::json!([]));
    assert_eq!(f["warnings"], serde_json::json!([]));
    assert!(f.get("report").is_none() && v.get("report").is_none(), "{v}");

    // After a redirect the origin is still the one asked for.
    t.agent.route("/moved", Resp::redirect(301, WELL_KNOWN));
    let out = t.verify(&t.agent.url("/moved"), &[]);
    expect_code(&out, 0, "redirect");
    has_line(&out, &format!("card: {}", t.agent.url("/moved")));
    has_line(&out, &format!("origin: {}", t.agent.origin()));
    has_line(&out, &format!("redirect 1: {}", t.agent.url(WELL_KNOWN)));
    has_line(&out, &format!("final url: {}", t.agent.url(WELL_KNOWN)));
}

#[test]
fn a_tampered_served_card_fails_with_exit_1() {
    let t = Setup::new("tampered");
    let card = String::from_utf8(t.signed(&[])).unwrap();
    assert!(card.contains("\"1.0.0\""));
    t.agent.route(
        WELL_KNOWN,
        Resp::json(card.replace("\"1.0.0\"", "\"1.0.1\"").as_bytes()),
    );
    let verified = t.dir.join("verified.json");
    let out = t.verify(&t.agent.origin(), &["--emit-verified", s(&verified)]);
    expect_code(&out, 1, "tampered");
    assert!(lines(&out)[0].starts_with("INVALID: "));
    let sig = lines(&out)
        .into_iter()
        .find(|l| l.starts_with("signature 0: "))
        .unwrap();
    assert!(sig.contains(": signature-invalid: "), "{sig}");
    assert!(!verified.exists());

    // A card that is not I-JSON: bad input, exit 2, with its pointer.
    t.agent
        .route(WELL_KNOWN, Resp::json(b"{\"name\":\"a\",\"name\":\"b\"}"));
    let out = t.verify(&t.agent.origin(), &[]);
    let line = expect_url_error(&out, 2, "duplicate-member", &t.agent.url(WELL_KNOWN));
    assert!(line.contains(" at /name"), "{line}");
    // fetch refuses it the same way (exit 2, as docs/errors.md says) and writes nothing.
    let dest = t.dir.join("fetched.json");
    let out = t.run("fetch", &t.agent.origin(), &["--out", s(&dest)]);
    let line = expect_url_error(&out, 2, "duplicate-member", &t.agent.url(WELL_KNOWN));
    assert!(line.contains(" at /name"), "{line}");
    assert!(stdout(&out).is_empty());
    assert!(!dest.exists());
}

#[test]
fn origin_bound_trust_entries_count_only_for_their_origin() {
    let t = Setup::new("origins");
    t.serve_signed(&[]);
    let jwk = only_jwk(&t.jwks);
    let trust_for = |name: &str, origins: &[String]| {
        write(
            &t.dir,
            name,
            serde_json::json!({"keys": [{"jwk": jwk, "origins": origins}]}).to_string(),
        )
    };
    let elsewhere = trust_for("elsewhere.json", &["https://agent.example.com".into()]);
    let here = trust_for("here.json", &[t.agent.origin()]);

    let run = |url: &str, trust: &Path| t.run("verify", url, &["--trust", s(trust)]);
    let out = run(&t.agent.origin(), &elsewhere);
    expect_code(&out, 1, "other origin");
    let sig = lines(&out)
        .into_iter()
        .find(|l| l.starts_with("signature 0: "))
        .unwrap();
    assert!(sig.contains(": untrusted-key: "), "{sig}");

    let out = run(&t.agent.origin(), &here);
    expect_code(&out, 0, "listed origin");
    let sig = lines(&out)
        .into_iter()
        .find(|l| l.starts_with("signature 0: "))
        .unwrap();
    assert!(
        sig.contains(&format!("(key from trust store {}", s(&here))),
        "{sig}"
    );

    // The same server under another name is another origin.
    let by_ip = t.agent.server.url("127.0.0.1", "");
    let out = run(&by_ip, &here);
    expect_code(&out, 1, "same server, other origin");
    has_line(&out, &format!("origin: {by_ip}"));

    // --origin cannot override the URL's origin.
    let out = t.run(
        "verify",
        &by_ip,
        &["--trust", s(&here), "--origin", &t.agent.origin()],
    );
    expect_error(&out, 2, "usage", "<command line>");

    // A redirect to another origin keeps the origin asked for: a key bound to the redirect
    // target's origin only does not sign for it; a key bound to the first origin does.
    let there = trust_for("there.json", std::slice::from_ref(&by_ip));
    t.agent.route(
        "/away",
        Resp::redirect(302, &t.agent.server.url("127.0.0.1", WELL_KNOWN)),
    );
    let away = t.agent.url("/away");
    let out = run(&away, &there);
    expect_code(&out, 1, "redirected to the key's origin");
    has_line(&out, &format!("origin: {}", t.agent.origin()));
    let sig = lines(&out)
        .into_iter()
        .find(|l| l.starts_with("signature 0: "))
        .unwrap();
    assert!(sig.contains(": untrusted-key: "), "{sig}");
    expect_code(&run(&away, &here), 0, "redirected, key of the origin asked for");
}

#[test]
fn jku_is_fetched_only_under_an_allowed_prefix_of_the_cards_origin() {
    let t = Setup::new("jku");
    let jku = t.agent.url("/keys/jwks.json");
    t.serve_signed(&["--jku", &jku]);
    t.agent.route(
        "/keys/jwks.json",
        Resp::new(200)
            .header("Content-Type", "application/jwk-set+json")
            .body(&std::fs::read(&t.jwks).unwrap()),
    );
    let count = || t.agent.server.count("/keys/jwks.json");
    let (_, stranger) = keygen(&t.dir, "stranger", "ES256", &[]);

    // Not on the allowlist: reported, not fetched; the trusted files have no key for it.
    let out = t.run("verify", &t.agent.origin(), &["--jwks", s(&stranger)]);
    expect_code(&out, 1, "no allowlist");
    has_line(
        &out,
        &format!("jku \"{jku}\" (signature 0): not fetched: no allowed jku prefix matches it"),
    );
    let other_prefix = t.agent.url("/other/");
    let out = t.run(
        "verify",
        &t.agent.origin(),
        &["--jwks", s(&stranger), "--allow-jku", &other_prefix],
    );
    expect_code(&out, 1, "prefix does not match");
    has_line(
        &out,
        &format!("jku \"{jku}\" (signature 0): not fetched: no allowed jku prefix matches it"),
    );
    // A prefix of another origin matches the URL but cannot vouch for this card.
    let ip_origin = t.agent.server.url("127.0.0.1", "");
    let out = t.run(
        "verify",
        &t.agent.origin(),
        &["--allow-jku", &t.agent.server.url("127.0.0.1", "/keys/")],
    );
    expect_code(&out, 1, "other-origin prefix");
    assert!(stdout(&out).contains("not fetched"), "{}", stdout(&out));
    let out = t.run(
        "verify",
        &t.agent.origin(),
        &["--format", "json", "--jwks", s(&stranger)],
    );
    expect_code(&out, 1, "json");
    let v = json_out(&out);
    assert_eq!(v["fetch"]["jku"][0]["url"], jku.as_str());
    assert_eq!(v["fetch"]["jku"][0]["status"], "not-allowed");
    assert_eq!(count(), 0, "a jku off the allowlist was fetched");

    // On the allowlist: fetched once, its key verifies, and the report says it came from there.
    let prefix = t.agent.url("/keys/");
    let out = t.run("verify", &t.agent.origin(), &["--allow-jku", &prefix]);
    expect_code(&out, 0, "allowed jku");
    assert_eq!(count(), 1);
    let sig = lines(&out)
        .into_iter()
        .find(|l| l.starts_with("signature 0: "))
        .unwrap();
    assert!(sig.contains(": valid: "), "{sig}");
    assert!(
        sig.contains(&format!("(key from jku {jku}, profile spec)")),
        "{sig}"
    );
    let jku_line = lines(&out).into_iter().find(|l| l.starts_with("jku ")).unwrap();
    assert!(
        jku_line.starts_with(&format!(
            "jku \"{jku}\" (signature 0): fetched from {jku}, cache off;"
        )),
        "{jku_line}"
    );
    assert!(jku_line.ends_with(&format!("are trusted for {} only", t.agent.origin())));
    let out = t.run(
        "verify",
        &t.agent.origin(),
        &["--allow-jku", &prefix, "--format", "json"],
    );
    let v = json_out(&out);
    assert_eq!(v["fetch"]["keys"][0]["source"]["from"], "jku");
    assert_eq!(v["fetch"]["keys"][0]["source"]["url"], jku.as_str());
    assert_eq!(v["fetch"]["jku"][0]["status"], "fetched");
    assert_eq!(v["fetch"]["jku"][0]["signatures"], serde_json::json!([0]));
    assert_eq!(v["signatures"][0]["key"]["source"], format!("jku:{jku}"));
    assert_eq!(count(), 2);

    // The same allowlisted key does not vouch for the card of another origin.
    let out = t.run(
        "verify",
        &ip_origin,
        &["--allow-jku", &prefix, "--jwks", s(&stranger)],
    );
    expect_code(&out, 1, "card from another origin");
    assert!(
        stdout(&out).contains("not fetched: the allowed jku prefix it matches is for"),
        "{}",
        stdout(&out)
    );
    assert_eq!(count(), 2);

    // Allowed but unreachable: the card's failure may be the network's, so exit 3.
    t.agent.routes.lock().unwrap().remove("/keys/jwks.json");
    let out = t.run("verify", &t.agent.origin(), &["--allow-jku", &prefix]);
    expect_code(&out, 3, "jku fetch failed");
    let jku_line = lines(&out).into_iter().find(|l| l.starts_with("jku ")).unwrap();
    assert!(
        jku_line.contains("fetch failed: error[http-status]: "),
        "{jku_line}"
    );
    // ... but not when another trusted key verifies it.
    let out = t.run(
        "verify",
        &t.agent.origin(),
        &["--allow-jku", &prefix, "--jwks", s(&t.jwks)],
    );
    expect_code(&out, 0, "jku failed, file key verifies");

    // At most 4 distinct jku URLs are fetched for one card; the others are reported, not
    // fetched. Every signature here is also checked by the trusted file key, so the card passes.
    let card = write(&t.dir, "card.json", CARD);
    let mut signed = card.clone();
    for i in 1..=5 {
        let next = t.dir.join(format!("signed-{i}.json"));
        let jku = t.agent.url(&format!("/keys/{i}.json"));
        sign_to(&signed, &t.pem, &["--jku", &jku, "--append"], &next);
        signed = next;
    }
    t.agent
        .route(WELL_KNOWN, Resp::json(&std::fs::read(&signed).unwrap()));
    let out = t.run(
        "verify",
        &t.agent.origin(),
        &["--allow-jku", &prefix, "--jwks", s(&t.jwks)],
    );
    expect_code(&out, 0, "five jku");
    let jku_lines: Vec<String> = lines(&out)
        .into_iter()
        .filter(|l| l.starts_with("jku "))
        .collect();
    assert_eq!(jku_lines.len(), 5, "{jku_lines:?}");
    for (i, line) in jku_lines.iter().enumerate() {
        let want = if i < 4 {
            "fetch failed: error[http-status]: "
        } else {
            "not fetched: more distinct jku URLs than the limit of 4"
        };
        assert!(line.contains(&format!("(signature {i}): {want}")), "{line}");
    }
    for i in 1..=4 {
        assert_eq!(t.agent.server.count(&format!("/keys/{i}.json")), 1);
    }
    assert_eq!(t.agent.server.count("/keys/5.json"), 0);

    // An allowlist prefix that is not https is a usage error.
    let out = t.run(
        "verify",
        &t.agent.origin(),
        &["--allow-jku", "http://localhost/keys/"],
    );
    expect_code(&out, 2, "http prefix");
    assert!(error_line(&out).starts_with("error[not-https]: "));
}

#[test]
fn verify_url_usage_errors() {
    let t = Setup::new("usage");
    t.serve_signed(&[]);
    // No trust roots at all.
    let out = t.run("verify", &t.agent.origin(), &[]);
    let line = expect_error(&out, 2, "usage", "<command line>");
    assert!(line.contains("--allow-jku"), "{line}");
    // Fetch flags with a card file mean nothing and are refused.
    let card = write(&t.dir, "card.json", CARD);
    for flag in [
        &["--allow-loopback"][..],
        &["--no-cache"],
        &["--cache-dir", "x"],
        &["--ca-file", "ca.pem"],
        &["--timeout", "5"],
        &["--max-redirects", "1"],
        &["--allow-jku", "https://agent.example.com/keys/"],
    ] {
        let out = verify(&card, &t.jwks, flag);
        let line = expect_error(&out, 2, "usage", "<command line>");
        assert!(line.contains(flag[0]), "{line}");
    }
    // Timeouts are positive numbers of seconds.
    for bad in ["0", "-1", "x", "NaN", "inf"] {
        let out = run(&["fetch", "https://agent.example.com", "--timeout", bad], None);
        expect_code(&out, 2, bad);
    }
    assert_eq!(t.agent.server.accepts(), 0);
}

#[test]
fn fetch_help_has_examples_and_documents_loopback() {
    assert_mentions(
        &help(&["fetch"]),
        &[
            "Example",
            "a2a-card fetch ",
            "Exit codes:",
            "--allow-loopback",
            "For local testing only",
            "--ca-file",
            "--no-cache",
            "--cache-dir",
        ],
    );
    assert_mentions(
        &help(&["verify"]),
        &["a2a-card verify https://", "--allow-jku", "--allow-loopback"],
    );
}

#[test]
fn verify_url_a_jku_never_overrides_the_trust_store() {
    let t = Setup::new("jku-binding");
    let jku = t.agent.url("/keys/jwks.json");
    t.serve_signed(&["--jku", &jku, "--kid", "dup"]);
    let jwk = only_jwk(&t.jwks);
    let mut served = jwk.clone();
    served["kid"] = "dup".into();
    t.agent.route(
        "/keys/jwks.json",
        Resp::json(serde_json::json!({ "keys": [served] }).to_string().as_bytes()),
    );
    let allow = t.agent.url("/keys/");
    // With only the jku, the key verifies.
    let out = t.run("verify", &t.agent.origin(), &["--allow-jku", &allow]);
    expect_code(&out, 0, "jku alone");
    // The caller's trust store revokes the same key under another kid: still revoked with the
    // jku allowed (before the fix: VALID, "key from jku").
    for (member, value, code) in [
        ("revoked", serde_json::json!(true), "key-revoked"),
        (
            "notAfter",
            serde_json::json!("2020-01-01T00:00:00Z"),
            "key-expired",
        ),
        (
            "origins",
            serde_json::json!(["https://elsewhere.example"]),
            "untrusted-key",
        ),
    ] {
        let mut entry = serde_json::json!({ "jwk": jwk, "kid": "release-2026" });
        entry[member] = value;
        let trust = write(
            &t.dir,
            "trust.json",
            serde_json::json!({ "keys": [entry] }).to_string(),
        );
        let out = t.run(
            "verify",
            &t.agent.origin(),
            &["--trust", s(&trust), "--allow-jku", &allow, "--format", "json"],
        );
        expect_code(&out, 1, member);
        let r = json_out(&out);
        assert_eq!(r["signatures"][0]["verdict"]["code"], code, "{member}: {r}");
    }
}

#[test]
fn verify_url_a_jku_redirect_out_of_its_prefix_is_not_followed() {
    let t = Setup::new("jku-redirect");
    let other = Agent::new();
    let jku = t.agent.url("/keys/hop.json");
    t.serve_signed(&["--jku", &jku]);
    let set = serde_json::json!({ "keys": [only_jwk(&t.jwks)] }).to_string();
    other.route("/keys/jwks.json", Resp::json(set.as_bytes()));
    t.agent.route(
        "/keys/hop.json",
        Resp::redirect(302, &other.url("/keys/jwks.json")),
    );
    let out = t.run(
        "verify",
        &t.agent.origin(),
        &["--allow-jku", &t.agent.url("/keys/")],
    );
    // The only key was behind a jku that failed: exit 3, and the line says why.
    expect_code(&out, 3, "redirect out of the prefix");
    let text = stdout(&out);
    assert!(text.contains("fetch failed: error[redirect-invalid]"), "{text}");
    assert!(text.contains("leaves the allowed jku prefix"), "{text}");
    assert_eq!(other.server.count("/keys/jwks.json"), 0);
}
