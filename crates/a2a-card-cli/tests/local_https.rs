//! The section "Local HTTPS: an agent on this machine" of docs/remote-agents.md, run as written
//! in a scratch directory, in the order of the page: each ```sh block (the OpenSSL recipes) with
//! bash and the `openssl` on PATH, then the server the text describes, then each ```console
//! https block as readme.rs runs a ```console block (`common/doc_blocks.rs`: the same reader, the
//! same matcher of the output shown, `$?` shown when not 0).
//!
//! After the one-line self-signed recipe, a server on 127.0.0.1 presents `self-signed.pem` with
//! `self-signed.key`; after the development CA's recipe it is stopped and another presents
//! `localhost.pem` with `localhost.key`. Both serve, from the scratch directory, the files the
//! text names: `agent-card.json` at `/.well-known/agent-card.json` and `jwks.json` at
//! `/.well-known/jwks.json` (made by the section's own commands, the README's way).
//!
//! The servers listen on the port the page says, 8443. If that port cannot be bound (another
//! program holds it on this machine, on 127.0.0.1 or ::1), the servers take a free port and the test rewrites
//! `localhost:8443` to `localhost:PORT` in the commands and output lines, and nothing else: the
//! page stays the one a reader follows.
//!
//! readme.rs does not run these blocks: its reader takes only fences that are exactly
//! ```console. GitHub shows ```console https as a console block.

#![allow(clippy::unwrap_used, clippy::panic)] // a panic is how a test fails

mod common;

use a2a_card_testkit::https::{Leaf, Req, Resp, Server};
use common::doc_blocks::*;
use common::*;
use std::path::{Path, PathBuf};

const DOC: &str = "docs/remote-agents.md";
const SECTION: &str = "\n## Local HTTPS: an agent on this machine\n";
const PORT: u16 = 8443;

/// The section's text, up to the next `## ` heading.
fn section() -> String {
    let text = std::fs::read_to_string(repo_root().join(DOC)).unwrap();
    let start = text
        .find(SECTION)
        .unwrap_or_else(|| panic!("{DOC} has no {SECTION:?}"));
    let rest = &text[start + 1..];
    let end = rest[1..].find("\n## ").map_or(rest.len(), |i| i + 1);
    // Blank lines in front, so that line numbers in messages are those of the file.
    let before = text[..start + 1].lines().count();
    format!("{}{}", "\n".repeat(before), &rest[..end])
}

/// A server on 127.0.0.1 presenting `cert`/`key` (PEM files in `dir`) on the page's port if it
/// is free, else on any port, serving `agent-card.json` and `jwks.json` of `dir` under
/// `/.well-known/`.
fn serve(dir: &Path, cert: &str, key: &str) -> Server {
    let read = |name: &str| {
        std::fs::read_to_string(dir.join(name))
            .unwrap_or_else(|e| panic!("{name}, which the section makes: {e}"))
    };
    let leaf = Leaf::from_pem(&read(cert), &read(key));
    let files: PathBuf = dir.to_path_buf();
    let handler = move |req: &Req| {
        let (name, kind) = match req.path.as_str() {
            "/.well-known/agent-card.json" => ("agent-card.json", "application/json"),
            "/.well-known/jwks.json" => ("jwks.json", "application/jwk-set+json"),
            _ => return Resp::new(404),
        };
        match std::fs::read(files.join(name)) {
            Ok(body) => Resp::new(200).header("Content-Type", kind).body(&body),
            Err(_) => Resp::new(404),
        }
    };
    // `localhost` may resolve to ::1 first: a program there holds the port as well.
    let ipv6_taken =
        std::net::TcpListener::bind(("::1", PORT)).is_err_and(|e| e.kind() == std::io::ErrorKind::AddrInUse);
    let started = if ipv6_taken {
        Err(std::io::Error::from(std::io::ErrorKind::AddrInUse))
    } else {
        Server::start_on(PORT, &leaf, handler.clone())
    };
    match started {
        Ok(server) => server,
        Err(e) => {
            eprintln!("note: port {PORT} cannot be bound ({e}); the commands get another port");
            Server::start_on(0, &leaf, handler).unwrap()
        }
    }
}

/// The steps with `localhost:8443` made `localhost:PORT` (the port served).
fn on_port(steps: &[Step], port: u16) -> Vec<Step> {
    let fix = |s: &str| s.replace(&format!("localhost:{PORT}"), &format!("localhost:{port}"));
    steps
        .iter()
        .map(|s| Step {
            command: fix(&s.command),
            expected: s.expected.iter().map(|l| fix(l)).collect(),
            line: s.line,
        })
        .collect()
}

enum Block<'a> {
    Sh(usize, Vec<&'a str>),
    Console(Vec<Step>),
}

#[test]
fn the_local_https_section_runs_as_written() {
    if !have_openssl() {
        return;
    }
    let text = section();
    let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
    // The certificate files the text says the server presents, in this order.
    let served = [
        ("self-signed.pem", "self-signed.key"),
        ("localhost.pem", "localhost.key"),
    ];
    assert!(
        words.contains("(`self-signed.pem` with `self-signed.key`)")
            && words.contains("serve `localhost.pem` with `localhost.key`")
            && words.contains(
                "`agent-card.json` and `jwks.json` served at `https://localhost:8443/.well-known/`"
            ),
        "the section no longer says what the server presents and serves, as this test does"
    );

    let mut blocks: Vec<(usize, Block)> = fenced(DOC, &text, "```sh")
        .into_iter()
        .map(|(line, body)| (line, Block::Sh(line, body)))
        .chain(
            blocks_fenced(DOC, &text, "```console https")
                .into_iter()
                .map(|steps| (steps[0].line, Block::Console(steps))),
        )
        .collect();
    blocks.sort_by_key(|(line, _)| *line);
    let shape: String = blocks
        .iter()
        .map(|(_, b)| if matches!(b, Block::Sh(..)) { 's' } else { 'c' })
        .collect();
    assert_eq!(
        shape, "scscc",
        "the section's ```sh and ```console https blocks, in order"
    );

    let dir = scratch("docs-local-https");
    std::os::unix::fs::symlink(repo_root().join("testvectors"), dir.join("testvectors")).unwrap();
    let mut server: Option<Server> = None;
    let mut served = served.iter();
    let (mut status, mut ran) = (0, 0);
    for (_, block) in &blocks {
        match block {
            Block::Sh(line, body) => {
                let out = std::process::Command::new("bash")
                    .args(["-e", "-c", &body.join("\n")])
                    .current_dir(&dir)
                    .output()
                    .unwrap();
                assert!(
                    out.status.success(),
                    "{DOC}:{line}: the sh block failed:\n{}{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                );
                let (cert, key) = served.next().unwrap();
                if let Some(old) = server.take() {
                    old.stop();
                }
                server = Some(serve(&dir, cert, key));
            }
            Block::Console(steps) => {
                let port = server.as_ref().unwrap().port;
                ran += run_steps(DOC, &dir, &on_port(steps, port), &mut status);
            }
        }
    }
    assert!(ran >= 8, "only {ran} commands of the section ran");
    let server = server.unwrap();
    assert!(server.count("/.well-known/agent-card.json") >= 2);
    assert_eq!(
        server.count("/.well-known/jwks.json"),
        1,
        "verify fetched the card's jku once"
    );
}
