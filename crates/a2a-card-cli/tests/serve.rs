//! `a2a-card serve` as a process: the examples of docs/serve.md run as written (the ```console
//! blocks first, as readme.rs runs them, then the server the ```console serve-start block starts
//! and the ```console serve blocks against it; the Kubernetes example's policy, arguments and
//! probes), SIGHUP while clients loop (no failed request; a policy that does not load is
//! refused whole), and SIGTERM while clients loop (every request read is answered; exit 0).
//! The HTTP client is a plain HTTP/1.1 keep-alive client over std's TcpStream.
#![allow(clippy::unwrap_used, clippy::panic)] // a panic is how a test fails

mod common;

use common::doc_blocks::*;
use common::*;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A server process, the address it listens on, and its stderr so far.
struct Serving {
    child: Child,
    addr: SocketAddr,
    stderr: Arc<Mutex<String>>,
}

impl Serving {
    /// Runs `command` (bash, in `dir`, the binary under test first on PATH) and waits for its
    /// `listening on http://ADDR` line.
    fn start(dir: &Path, command: &str) -> Serving {
        let path = format!(
            "{}:{}",
            bin_path().parent().unwrap().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut child = Command::new("bash")
            .arg("-c")
            .arg(format!("exec {command}"))
            .current_dir(dir)
            .env("PATH", path)
            .env(
                a2a_card_testkit::https::LOOPBACK_ONLY.0,
                a2a_card_testkit::https::LOOPBACK_ONLY.1,
            )
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let first = lines.next().map(|l| l.unwrap()).unwrap_or_default();
        let addr = first
            .strip_prefix("listening on http://")
            .and_then(|r| r.split(' ').next())
            .unwrap_or_else(|| panic!("`{command}` wrote {first:?}"))
            .parse()
            .unwrap();
        let stderr = Arc::new(Mutex::new(format!("{first}\n")));
        let sink = stderr.clone();
        std::thread::spawn(move || {
            for l in lines.map_while(Result::ok) {
                let mut s = sink.lock().unwrap();
                s.push_str(&l);
                s.push('\n');
            }
        });
        Serving { child, addr, stderr }
    }

    fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .args([format!("-{name}"), self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// SIGTERM, then the exit status.
    fn stop(mut self) -> (i32, String) {
        self.signal("TERM");
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                std::thread::sleep(Duration::from_millis(50));
                return (s.code().unwrap_or(-1), self.stderr.lock().unwrap().clone());
            }
            assert!(Instant::now() < deadline, "the server did not stop");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// What one request on a keep-alive connection came to.
#[derive(Debug, PartialEq)]
enum Outcome {
    /// A whole answer with this status.
    Answered(u16),
    /// The connection was closed before any byte of an answer (the request was not read).
    NotRead,
}

/// A keep-alive HTTP/1.1 connection.
struct Conn(BufReader<TcpStream>);

impl Conn {
    fn open(addr: SocketAddr) -> std::io::Result<Conn> {
        let s = TcpStream::connect(addr)?;
        s.set_read_timeout(Some(Duration::from_secs(20)))?;
        Ok(Conn(BufReader::new(s)))
    }

    /// One request; an answer cut short or malformed is a panic (a failed request).
    fn request(&mut self, method: &str, path: &str, body: &[u8]) -> Outcome {
        let head = format!(
            "{method} {path} HTTP/1.1\r\nhost: x\r\ncontent-length: {}\r\n\r\n",
            body.len()
        );
        let mut out = head.into_bytes();
        out.extend_from_slice(body);
        if self.0.get_mut().write_all(&out).is_err() {
            return Outcome::NotRead;
        }
        let mut status_line = String::new();
        match self.0.read_line(&mut status_line) {
            Ok(0) => return Outcome::NotRead,
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset && status_line.is_empty() => {
                return Outcome::NotRead
            }
            Err(e) => panic!("reading an answer: {e}"),
            Ok(_) => {}
        }
        let status: u16 = status_line
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("not a status line: {status_line:?}"));
        let mut length = 0usize;
        loop {
            let mut line = String::new();
            assert!(
                self.0.read_line(&mut line).unwrap() > 0,
                "the answer's head was cut short"
            );
            if line == "\r\n" {
                break;
            }
            if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                length = v.trim().parse().unwrap();
            }
        }
        let mut body = vec![0u8; length];
        self.0
            .read_exact(&mut body)
            .expect("the answer's body was cut short");
        Outcome::Answered(status)
    }
}

fn get(addr: SocketAddr, path: &str) -> u16 {
    match Conn::open(addr).unwrap().request("GET", path, b"") {
        Outcome::Answered(s) => s,
        Outcome::NotRead => panic!("GET {path} was not answered"),
    }
}

/// A key, its JWK Set and a card signed with it, made by the binary in `dir`.
fn signed_card(dir: &Path) -> Vec<u8> {
    let run = |args: &[&str]| {
        let out = bin().args(args).current_dir(dir).output().unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run(&[
        "keygen",
        "--alg",
        "ES256",
        "--out",
        "key.pem",
        "--jwks",
        "jwks.json",
    ]);
    let sample = testvectors_dir().join("cards/sample-8.5-unsigned.json");
    run(&[
        "sign",
        sample.to_str().unwrap(),
        "--key",
        "key.pem",
        "--unknown",
        "exclude",
        "--out",
        "card.json",
    ]);
    std::fs::read(dir.join("card.json")).unwrap()
}

#[test]
fn the_guide_runs_as_written() {
    let name = "docs/serve.md";
    let text = std::fs::read_to_string(repo_root().join(name)).unwrap();
    let dir = scratch("serve-guide");
    std::os::unix::fs::symlink(repo_root().join("testvectors"), dir.join("testvectors")).unwrap();
    let mut status = 0;
    let mut ran = 0;
    for block in console_blocks(name, &text) {
        ran += run_steps(name, &dir, &block, &mut status);
    }
    let start = blocks_fenced(name, &text, "```console serve-start");
    assert_eq!(start.len(), 1, "one block starts the server");
    let step = &start[0][0];
    let server = Serving::start(&dir, &step.command);
    let first = server.stderr.lock().unwrap().lines().next().unwrap().to_string();
    assert!(lines_match(&step.expected, &[first.as_str()]), "{first}");
    for block in blocks_fenced(name, &text, "```console serve") {
        ran += run_steps(name, &dir, &block, &mut status);
    }
    let (code, stderr) = server.stop();
    assert_eq!(code, 0, "{stderr}");
    assert!(ran >= 12, "only {ran} commands ran");
}

/// The text of the Kubernetes example's ConfigMap policy, and the container's arguments.
fn kubernetes_example() -> (String, Vec<String>, Vec<String>) {
    let text = std::fs::read_to_string(repo_root().join("docs/serve.md")).unwrap();
    let yaml = fenced("docs/serve.md", &text, "```yaml");
    assert_eq!(yaml.len(), 1);
    let lines = &yaml[0].1;
    let at = lines.iter().position(|l| l.trim() == "policy.json: |").unwrap();
    let policy: Vec<&str> = lines[at + 1..]
        .iter()
        .take_while(|l| l.starts_with("    "))
        .map(|l| &l[4..])
        .collect();
    let at = lines.iter().position(|l| l.trim() == "args:").unwrap();
    let args = lines[at + 1..]
        .iter()
        .take_while(|l| l.trim_start().starts_with("- "))
        .map(|l| l.trim_start()[2..].trim_matches('"').to_string())
        .collect();
    let probes = lines
        .iter()
        .filter(|l| l.contains("httpGet:"))
        .map(|l| {
            l.split("path: ")
                .nth(1)
                .unwrap()
                .split(',')
                .next()
                .unwrap()
                .to_string()
        })
        .collect();
    (policy.join("\n"), args, probes)
}

#[test]
fn the_kubernetes_example_starts_and_its_probes_answer() {
    let dir = scratch("serve-k8s");
    std::fs::create_dir_all(dir.join("keys")).unwrap();
    signed_card(&dir.join("keys"));
    let (policy, args, probes) = kubernetes_example();
    // The mount points of the example become the scratch folder; the port any free one.
    let mount = format!("{}/", dir.display());
    std::fs::write(dir.join("policy.json"), policy.replace("/etc/a2a-card/", &mount)).unwrap();
    let args: Vec<String> = args
        .iter()
        .map(|a| {
            a.replace("/etc/a2a-card/", &mount)
                .replace("0.0.0.0:8080", "127.0.0.1:0")
        })
        .collect();
    assert_eq!(args[0], "serve");
    let server = Serving::start(&dir, &format!("a2a-card {}", args.join(" ")));
    assert_eq!(probes, ["/healthz", "/readyz"]);
    for p in &probes {
        assert_eq!(get(server.addr, p), 200, "{p}");
    }
    let card = std::fs::read(dir.join("keys/card.json")).unwrap();
    let mut c = Conn::open(server.addr).unwrap();
    assert_eq!(c.request("POST", "/v1/verify", &card), Outcome::Answered(200));
    // The example's shutdown delay: /readyz fails first, the process still answers.
    server.signal("TERM");
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(get(server.addr, "/readyz"), 503);
    assert_eq!(c.request("POST", "/v1/verify", &card), Outcome::Answered(200));
    let (code, stderr) = server.stop();
    assert_eq!(code, 0, "{stderr}");
}

/// `threads` clients looping on keep-alive connections until `stop`; every outcome.
fn load(
    addr: SocketAddr,
    card: Vec<u8>,
    threads: usize,
    stop: Arc<AtomicBool>,
) -> Vec<std::thread::JoinHandle<Vec<Outcome>>> {
    let card = Arc::new(card);
    (0..threads)
        .map(|_| {
            let (card, stop) = (card.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut outcomes = Vec::new();
                let mut conn = match Conn::open(addr) {
                    Ok(c) => c,
                    Err(_) => return outcomes,
                };
                while !stop.load(Ordering::Relaxed) {
                    let o = conn.request("POST", "/v1/verify", &card);
                    let closed = o == Outcome::NotRead;
                    outcomes.push(o);
                    if closed {
                        match Conn::open(addr) {
                            Ok(c) => conn = c,
                            Err(_) => break,
                        }
                    }
                }
                outcomes
            })
        })
        .collect()
}

#[test]
fn sighup_under_load_drops_no_request() {
    let dir = scratch("serve-hup");
    let card = signed_card(&dir);
    let good = |mode: &str| format!(r#"{{"verify": {{"jwks": ["jwks.json"], "mode": "{mode}"}}}}"#);
    std::fs::write(dir.join("policy.json"), good("require")).unwrap();
    let server = Serving::start(&dir, "a2a-card serve --policy policy.json --listen 127.0.0.1:0");
    let stop = Arc::new(AtomicBool::new(false));
    let clients = load(server.addr, card, 4, stop.clone());
    let reloads = AtomicUsize::new(0);
    for i in 0..12 {
        std::thread::sleep(Duration::from_millis(100));
        let text = match i % 3 {
            0 => good("if-present"),
            1 => r#"{"verify": {"jwks": ["jwks.json"], "mode": "sometimes"}}"#.to_string(),
            _ => good("require"),
        };
        std::fs::write(dir.join("policy.json.new"), text).unwrap();
        std::fs::rename(dir.join("policy.json.new"), dir.join("policy.json")).unwrap();
        server.signal("HUP");
        reloads.fetch_add(1, Ordering::Relaxed);
    }
    std::thread::sleep(Duration::from_millis(200));
    stop.store(true, Ordering::Relaxed);
    let outcomes: Vec<Outcome> = clients.into_iter().flat_map(|c| c.join().unwrap()).collect();
    assert!(outcomes.len() > 50, "only {} requests", outcomes.len());
    assert!(
        outcomes.iter().all(|o| *o == Outcome::Answered(200)),
        "{:?}",
        outcomes
            .iter()
            .filter(|o| **o != Outcome::Answered(200))
            .collect::<Vec<_>>()
    );
    let (code, stderr) = server.stop();
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("policy reloaded: mode if-present"), "{stderr}");
    // The policy that does not load is refused whole, naming its file and place.
    assert!(
        stderr.contains("error[usage]: ") && stderr.contains(" at /verify/mode (policy.json)"),
        "{stderr}"
    );
}

#[test]
fn sigterm_under_load_answers_every_request_read() {
    let dir = scratch("serve-term");
    let card = signed_card(&dir);
    std::fs::write(dir.join("policy.json"), r#"{"verify": {"jwks": ["jwks.json"]}}"#).unwrap();
    let server = Serving::start(&dir, "a2a-card serve --policy policy.json --listen 127.0.0.1:0");
    let stop = Arc::new(AtomicBool::new(false));
    let clients = load(server.addr, card, 8, stop.clone());
    std::thread::sleep(Duration::from_millis(700));
    let (code, stderr) = server.stop();
    // The clients stop by themselves: the listener is closed, so a new connection is refused.
    let outcomes: Vec<Outcome> = clients.into_iter().flat_map(|c| c.join().unwrap()).collect();
    stop.store(true, Ordering::Relaxed);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("stopped: every request read was answered"),
        "{stderr}"
    );
    let answered = outcomes.iter().filter(|o| **o == Outcome::Answered(200)).count();
    assert!(answered > 50, "only {answered} answered");
    // Every outcome is a whole 200 or a connection closed before the request was read (a
    // cut-short answer panics in the client); a few unread requests per connection at most.
    assert!(
        outcomes
            .iter()
            .all(|o| matches!(o, Outcome::Answered(200) | Outcome::NotRead)),
        "{outcomes:?}"
    );
    let unread = outcomes.iter().filter(|o| **o == Outcome::NotRead).count();
    assert!(unread <= 32, "{unread} requests were not read");
}
