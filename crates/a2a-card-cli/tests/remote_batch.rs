//! End-to-end tests of `a2a-card verify --urls FILE` against real HTTPS servers on loopback
//! (different ports, some HTTP/2 with connection reuse, some one request per connection):
//! valid and tampered cards, hostile servers (slow body, huge body, redirect loop, 500, HTML),
//! bad lines in the URL list, the per-origin bound counted at the server, the politeness
//! delay, input order kept and every line of the list given back as one line.

#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use a2a_card_testkit::https::{Fixture, Framing, Protocol, Req, Resp, Server, LOOPBACK_ONLY};
use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const WELL_KNOWN: &str = "/.well-known/agent-card.json";

/// In-flight requests at a server, and the most seen at once.
#[derive(Default)]
struct Gauge {
    now: AtomicUsize,
    max: AtomicUsize,
    starts: Mutex<Vec<Instant>>,
}

impl Gauge {
    fn enter(&self) {
        let n = self.now.fetch_add(1, Ordering::SeqCst) + 1;
        self.max.fetch_max(n, Ordering::SeqCst);
        self.starts.lock().unwrap().push(Instant::now());
    }
    fn leave(&self) {
        self.now.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A server answering every path with `card` (after `pause`), counting requests in flight.
fn card_server(
    fx: &Fixture,
    card: Vec<u8>,
    pause: Duration,
    protocol: Option<Protocol>,
) -> (Server, Arc<Gauge>) {
    let gauge = Arc::new(Gauge::default());
    let g = gauge.clone();
    let handler = move |_: &Req| {
        g.enter();
        std::thread::sleep(pause);
        g.leave();
        Resp::json(&card)
    };
    let server = match protocol {
        Some(p) => Server::start_with(&fx.leaf, p, handler),
        None => Server::start(&fx.leaf, handler),
    };
    (server, gauge)
}

struct Setup {
    dir: PathBuf,
    fx: Fixture,
    ca: PathBuf,
    jwks: PathBuf,
    card: Vec<u8>,
}

impl Setup {
    fn new(name: &str) -> Setup {
        let dir = scratch(&format!("remote-batch-{name}"));
        let fx = Fixture::new();
        let ca = fx.write_ca(&dir);
        let (pem, jwks) = keygen(&dir, "agent", "ES256", &[]);
        let unsigned = write(&dir, "card.json", CARD);
        let signed = dir.join("signed.json");
        sign_to(&unsigned, &pem, &[], &signed);
        let card = std::fs::read(signed).unwrap();
        Setup {
            dir,
            fx,
            ca,
            jwks,
            card,
        }
    }

    /// `verify --urls LIST --jwks ... --allow-loopback --ca-file ... --no-cache` plus `extra`.
    fn run(&self, list: &str, extra: &[&str], stdin: Option<&[u8]>) -> Output {
        let mut args = vec![
            "verify",
            "--urls",
            list,
            "--jwks",
            s(&self.jwks),
            "--allow-loopback",
            "--ca-file",
            s(&self.ca),
            "--no-cache",
        ];
        args.extend_from_slice(extra);
        run_env(&args, stdin, &[LOOPBACK_ONLY])
    }

    fn list(&self, lines: &[String]) -> PathBuf {
        let mut text = lines.join("\n");
        text.push('\n');
        write(&self.dir, "urls.txt", &text)
    }
}

fn out_lines(out: &Output) -> Vec<Value> {
    stdout(out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn every_line_is_accounted_for_in_input_order_with_hostile_servers_and_bad_lines() {
    let t = Setup::new("mixed");
    // Six valid origins: three HTTP/2 (connections reused), three one request per connection.
    let mut servers = Vec::new();
    for i in 0..6 {
        let protocol = (i % 2 == 0).then_some(Protocol::Http2);
        servers.push(card_server(&t.fx, t.card.clone(), Duration::ZERO, protocol).0);
    }
    // A tampered card: a covered member changed after signing.
    let tampered = String::from_utf8(t.card.clone())
        .unwrap()
        .replace("Release Agent", "Release Agent!");
    let (bad_sig, _) = card_server(&t.fx, tampered.into_bytes(), Duration::ZERO, None);
    let big = vec![b' '; 2 * 1024 * 1024];
    let hostile = Server::start(&t.fx.leaf, move |req: &Req| match req.path.as_str() {
        "/slow" => Resp::json(b"{\"name\":\"slow\"}").framing(Framing::Slow(Duration::from_millis(500))),
        "/huge" => Resp::json(&big),
        "/loop" => Resp::redirect(302, "/loop"),
        "/500" => Resp::new(500),
        "/html" => Resp::new(200)
            .header("Content-Type", "text/html")
            .body(b"<html>hi</html>"),
        _ => Resp::new(404),
    });
    let h = |p: &str| hostile.url("localhost", p);

    let mut lines: Vec<String> = Vec::new();
    let mut want: Vec<(&str, Option<&str>)> = Vec::new(); // (kind, error code)
    for (i, s) in servers.iter().enumerate() {
        // Origins, full URLs and JSON lines, interleaved with the rest.
        lines.push(if i % 3 == 0 {
            s.url("localhost", "")
        } else if i % 3 == 1 {
            s.url("localhost", WELL_KNOWN)
        } else {
            format!("{{\"url\":\"{}\",\"tag\":{i}}}", s.url("localhost", ""))
        });
        want.push(("valid", None));
        match i {
            0 => {
                lines.push(bad_sig.url("localhost", ""));
                want.push(("invalid", None));
            }
            1 => {
                lines.push(h("/slow"));
                want.push(("error", Some("timeout")));
            }
            2 => {
                lines.push(h("/huge"));
                want.push(("error", Some("body-too-large")));
                lines.push(h("/loop"));
                want.push(("error", Some("too-many-redirects")));
            }
            3 => {
                lines.push(h("/500"));
                want.push(("error", Some("http-status")));
                lines.push(h("/html"));
                want.push(("error", Some("not-json")));
            }
            4 => {
                lines.push("not a url".into());
                want.push(("error", None));
                lines.push(format!("http://localhost:{}/", servers[0].port));
                want.push(("error", Some("not-https")));
            }
            _ => {
                lines.push(String::new());
                want.push(("error", Some("usage")));
                lines.push("{\"name\":\"no url here\"}".into());
                want.push(("error", Some("usage")));
                lines.push("   ".into());
                want.push(("error", Some("usage")));
            }
        }
    }
    let list = t.list(&lines);
    let out = t.run(path_str(&list), &["--timeout", "2", "--concurrency", "8"], None);
    expect_code(&out, 1, "a batch with failures exits 1");
    let got = out_lines(&out);
    assert_eq!(
        got.len(),
        lines.len(),
        "one line out per line in:\n{}",
        stdout(&out)
    );
    for (i, (line, (kind, code))) in got.iter().zip(&want).enumerate() {
        assert_eq!(line["source"], i + 1, "input order: {line}");
        let input = &lines[i];
        match *kind {
            "valid" => {
                assert_eq!(line["ok"], true, "{input}: {line}");
                assert!(input.contains(line["url"].as_str().unwrap()), "{line}");
                assert_eq!(line["signatures"][0]["code"], "valid", "{line}");
            }
            "invalid" => {
                assert_eq!(line["ok"], false, "{line}");
                assert!(line["error"].is_null(), "verified, not an error: {line}");
                assert_eq!(line["url"], *input);
            }
            _ => {
                assert_eq!(line["ok"], false, "{line}");
                let c = line["error"]["code"].as_str().unwrap_or_else(|| panic!("{line}"));
                if let Some(code) = code {
                    assert_eq!(c, *code, "{input:?}: {line}");
                }
                assert!(!line["error"]["message"].as_str().unwrap().is_empty());
                // The URL of every line that names one.
                if !input.trim().is_empty() && !input.starts_with('{') {
                    assert_eq!(line["url"], *input, "{line}");
                } else {
                    assert!(line["url"].is_null(), "{line}");
                }
            }
        }
    }
    let summary = stderr(&out);
    let total = lines.len();
    assert!(
        summary.contains(&format!(
            "urls: {total} cards, 6 valid, 1 invalid, {} errors",
            total - 7
        )),
        "{summary}"
    );
    // The HTTP/2 origins were each asked over one connection.
    for s in servers.iter().step_by(2) {
        assert_eq!(s.accepts(), 1, "one connection per HTTP/2 origin");
    }
}

#[test]
fn the_per_origin_bound_is_respected_at_the_server_and_concurrency_is_used() {
    let t = Setup::new("per-origin");
    let pause = Duration::from_millis(150);
    // Servers with a thread per connection, so that what the client sends at once is served
    // at once and counted so (the pooled servers run a sleeping handler inside the connection's
    // task, which serializes it).
    let origins: Vec<_> = (0..3)
        .map(|_| card_server(&t.fx, t.card.clone(), pause, None))
        .collect();
    let mut lines = Vec::new();
    for i in 0..12 {
        for (s, _) in &origins {
            lines.push(s.url("localhost", &format!("/cards/{i}.json")));
        }
    }
    let list = t.list(&lines);
    let out = t.run(
        path_str(&list),
        &["--per-origin", "2", "--concurrency", "16"],
        None,
    );
    expect_code(&out, 0, "every card valid");
    let got = out_lines(&out);
    assert_eq!(got.len(), lines.len());
    for (i, line) in got.iter().enumerate() {
        assert_eq!(line["source"], i + 1);
        assert_eq!(line["url"], lines[i]);
        assert_eq!(line["ok"], true, "{line}");
    }
    for (i, (_, g)) in origins.iter().enumerate() {
        let max = g.max.load(Ordering::SeqCst);
        assert!(
            max <= 2,
            "origin {i}: {max} requests in flight at once with --per-origin 2"
        );
        assert_eq!(
            max, 2,
            "origin {i}: the bound is reached (the origins run concurrently)"
        );
    }

    // --per-origin 1 with one origin: strictly one at a time.
    let (d, gd) = card_server(
        &t.fx,
        t.card.clone(),
        Duration::from_millis(30),
        Some(Protocol::Http2),
    );
    let lines: Vec<String> = (0..8).map(|i| d.url("localhost", &format!("/c/{i}"))).collect();
    let list = t.list(&lines);
    let out = t.run(path_str(&list), &["--per-origin", "1"], None);
    expect_code(&out, 0, "per-origin 1");
    assert_eq!(gd.max.load(Ordering::SeqCst), 1);
}

#[test]
fn the_politeness_delay_spaces_the_requests_to_one_origin() {
    let t = Setup::new("delay");
    let (a, ga) = card_server(&t.fx, t.card.clone(), Duration::ZERO, Some(Protocol::Http2));
    let lines: Vec<String> = (0..5).map(|i| a.url("localhost", &format!("/c/{i}"))).collect();
    let list = t.list(&lines);
    let out = t.run(path_str(&list), &["--delay-ms", "150", "--per-origin", "4"], None);
    expect_code(&out, 0, "delay");
    let starts = ga.starts.lock().unwrap().clone();
    assert_eq!(starts.len(), 5);
    for w in starts.windows(2) {
        let gap = w[1].duration_since(w[0]);
        // The client starts them 150 ms apart; the server sees them a little less apart at worst.
        assert!(gap >= Duration::from_millis(120), "requests {gap:?} apart");
    }
}

#[test]
fn unordered_output_and_stdin_give_every_line_once() {
    let t = Setup::new("unordered");
    let (slow, _) = card_server(&t.fx, t.card.clone(), Duration::from_millis(400), None);
    let (fast, _) = card_server(&t.fx, t.card.clone(), Duration::ZERO, Some(Protocol::Http2));
    let mut lines = vec![slow.url("localhost", "")];
    lines.extend((0..6).map(|i| fast.url("localhost", &format!("/c/{i}"))));
    lines.push("nope".into());
    let mut text = lines.join("\n");
    text.push('\n');
    let out = t.run("-", &["--unordered"], Some(text.as_bytes()));
    expect_code(&out, 1, "one bad line");
    let got = out_lines(&out);
    let mut sources: Vec<u64> = got.iter().map(|l| l["source"].as_u64().unwrap()).collect();
    assert_ne!(sources[0], 1, "the slow first card finishes after the others");
    sources.sort_unstable();
    assert_eq!(sources, (1..=lines.len() as u64).collect::<Vec<_>>());
}

#[test]
fn usage_errors_exit_2() {
    let t = Setup::new("usage");
    let list = t.list(&["https://localhost:1".to_string()]);
    for extra in [
        &["--concurrency", "0"][..],
        &["--concurrency", "1025"],
        &["--per-origin", "0"],
        &["--delay-ms", "60001"],
        &["--format", "text"],
        &["--origin", "https://a.example"],
        &["--threads", "2"],
    ] {
        let out = t.run(path_str(&list), extra, None);
        expect_code(&out, 2, &format!("{extra:?}"));
        assert!(out.stdout.is_empty());
    }
    for args in [
        &["verify", "--per-origin", "2", "https://localhost:1"][..],
        &["verify", "--unordered", "https://localhost:1"],
        &["verify", "--allow-empty", "card.json"],
    ] {
        let out = run_env(args, None, &[LOOPBACK_ONLY]);
        expect_code(&out, 2, &format!("{args:?}"));
    }
    // An empty list is refused unless --allow-empty.
    let empty = write(&t.dir, "empty.txt", "");
    let out = t.run(path_str(&empty), &[], None);
    expect_code(&out, 2, "empty list");
    let out = t.run(path_str(&empty), &["--allow-empty"], None);
    expect_code(&out, 0, "empty list allowed");
}
