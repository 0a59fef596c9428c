//! HTTP proxies on loopback for the fetcher's proxy tests: a small CONNECT proxy written here
//! (it records every CONNECT and answers each as the test decides), and Debian's `tinyproxy`
//! started on a loopback port with a generated configuration.
//!
//! Both tunnel to loopback only: the small proxy refuses (502) a target that does not resolve
//! to loopback, and tinyproxy is given no upstream; the tests' traffic never leaves the
//! machine.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A CONNECT request as the proxy read it.
#[derive(Debug, Clone)]
pub struct Connect {
    /// The target, `host:port`.
    pub target: String,
    /// The header fields, names lower-case.
    pub headers: Vec<(String, String)>,
}

impl Connect {
    /// The value of a header (names lower-case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// What the proxy does with a CONNECT.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Open the tunnel (to a loopback target only; else 502).
    Tunnel,
    /// Answer with this status and close.
    Refuse(u16),
}

type Policy = dyn Fn(&Connect) -> Verdict + Send + Sync + 'static;

/// A running CONNECT proxy on 127.0.0.1. It lives until the test process ends.
pub struct ConnectProxy {
    /// Its port.
    pub port: u16,
    connects: Arc<Mutex<Vec<Connect>>>,
}

impl ConnectProxy {
    /// Starts a proxy that answers every CONNECT with `policy`.
    pub fn start(policy: impl Fn(&Connect) -> Verdict + Send + Sync + 'static) -> ConnectProxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let connects: Arc<Mutex<Vec<Connect>>> = Arc::default();
        let policy: Arc<Policy> = Arc::new(policy);
        let seen = connects.clone();
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { continue };
                let (seen, policy) = (seen.clone(), policy.clone());
                std::thread::spawn(move || serve(client, &seen, &*policy));
            }
        });
        ConnectProxy { port, connects }
    }

    /// A proxy that opens every tunnel.
    pub fn open() -> ConnectProxy {
        ConnectProxy::start(|_| Verdict::Tunnel)
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Every CONNECT read so far.
    pub fn connects(&self) -> Vec<Connect> {
        self.connects.lock().unwrap().clone()
    }
}

/// Reads the request head (at most 64 KiB).
fn read_head(reader: &mut impl BufRead) -> Option<(String, Vec<(String, String)>)> {
    let mut first = String::new();
    reader.read_line(&mut first).ok()?;
    let mut headers = Vec::new();
    let mut total = first.len();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        total += line.len();
        if total > 65536 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            return Some((first.trim_end().to_string(), headers));
        }
        if let Some((n, v)) = line.split_once(':') {
            headers.push((n.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
}

fn serve(client: TcpStream, seen: &Mutex<Vec<Connect>>, policy: &Policy) {
    let _ = client.set_read_timeout(Some(Duration::from_secs(10)));
    let Ok(reader_half) = client.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(reader_half);
    let mut client = client;
    let Some((first, headers)) = read_head(&mut reader) else {
        return;
    };
    let mut parts = first.split(' ');
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    if method != "CONNECT" {
        let _ = client.write_all(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n");
        return;
    }
    let connect = Connect {
        target: target.to_string(),
        headers,
    };
    seen.lock().unwrap().push(connect.clone());
    if let Verdict::Refuse(status) = policy(&connect) {
        let _ = write!(client, "HTTP/1.1 {status} Refused\r\nContent-Length: 0\r\n\r\n");
        return;
    }
    // Loopback only: the tests' traffic stays on this machine.
    let loopback = target
        .to_socket_addrs()
        .ok()
        .and_then(|mut a| a.find(|a| a.ip().is_loopback()));
    let Some(upstream) = loopback.and_then(|a| TcpStream::connect(a).ok()) else {
        let _ = client.write_all(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n");
        return;
    };
    if client
        .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
        .is_err()
    {
        return;
    }
    let _ = client.set_read_timeout(None);
    // Bytes the client sent after the head (a TLS ClientHello) are in the reader's buffer.
    let pending = reader.buffer().to_vec();
    let (Ok(mut up_write), Ok(mut up_read), Ok(mut down_write)) =
        (upstream.try_clone(), upstream.try_clone(), client.try_clone())
    else {
        return;
    };
    if !pending.is_empty() && up_write.write_all(&pending).is_err() {
        return;
    }
    let to_server = std::thread::spawn(move || {
        let mut r = reader.into_inner();
        let _ = std::io::copy(&mut r, &mut up_write);
        let _ = up_write.shutdown(Shutdown::Write);
    });
    let _ = std::io::copy(&mut up_read, &mut down_write);
    let _ = down_write.shutdown(Shutdown::Write);
    let _ = to_server.join();
}

/// `tinyproxy` running on a loopback port with a configuration written for it; stopped (by its
/// process id) when dropped.
pub struct TinyProxy {
    /// Its port on 127.0.0.1.
    pub port: u16,
    child: Child,
    log: PathBuf,
}

impl TinyProxy {
    /// Starts `tinyproxy` (from `PATH`) in the foreground with a configuration in `dir`:
    /// listening on 127.0.0.1 only, clients from 127.0.0.1 only, CONNECT to any port, logging
    /// to `dir/tinyproxy.log`. `None` when tinyproxy is not installed.
    pub fn start(dir: &Path) -> Option<TinyProxy> {
        let port = {
            let l = TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let log = dir.join("tinyproxy.log");
        let conf = dir.join("tinyproxy.conf");
        std::fs::write(
            &conf,
            format!(
                "Port {port}\nListen 127.0.0.1\nTimeout 30\nMaxClients 64\nAllow 127.0.0.1\n\
                 LogLevel Connect\nLogFile \"{}\"\nPidFile \"{}\"\n",
                log.display(),
                dir.join("tinyproxy.pid").display()
            ),
        )
        .unwrap();
        let child = Command::new("tinyproxy")
            .arg("-d")
            .arg("-c")
            .arg(&conf)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "tinyproxy did not listen on port {port}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(TinyProxy { port, child, log })
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Its log so far.
    pub fn log(&self) -> String {
        let mut text = String::new();
        if let Ok(mut f) = std::fs::File::open(&self.log) {
            let _ = f.read_to_string(&mut text);
        }
        text
    }
}

impl Drop for TinyProxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
