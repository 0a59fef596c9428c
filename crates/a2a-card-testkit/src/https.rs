//! A real HTTPS server on loopback for the tests: a CA and server certificates generated at test
//! time with rcgen, rustls on a TcpListener bound to 127.0.0.1:0, and every accepted connection
//! and every request recorded. Responses are set by a handler, with the framing (length,
//! chunked, close, slow, raw bytes) and the content coding (gzip, brotli) chosen per response.
//!
//! [`Server::start`] speaks HTTP/1.1 one request per connection (`Connection: close`), written
//! by hand so that every framing, raw bytes included, is exactly as the test asks.
//! [`Server::start_with`] serves the same handler with hyper: HTTP/1.1 with keep-alive, or
//! HTTP/2 by ALPN ([`Protocol`]), for the tests of connection reuse and HTTP/2.

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair, KeyUsagePurpose,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::{ServerConfig, ServerConnection, StreamOwned};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

mod pooled;

/// A test CA.
pub struct Ca {
    /// Its certificate, PEM.
    pub pem: String,
    cert: rcgen::Certificate,
    key: KeyPair,
}

impl Ca {
    /// A new self-signed CA named `name`.
    pub fn new(name: &str) -> Ca {
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let cert = params.self_signed(&key).unwrap();
        Ca {
            pem: cert.pem(),
            cert,
            key,
        }
    }

    /// A server certificate for these names (IP addresses become IP SANs).
    pub fn leaf(&self, names: &[&str]) -> Leaf {
        let key = KeyPair::generate().unwrap();
        let mut params =
            CertificateParams::new(names.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap();
        params.distinguished_name.push(DnType::CommonName, names[0]);
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        let cert = params.signed_by(&key, &self.cert, &self.key).unwrap();
        Leaf {
            der: cert.der().clone(),
            key: key.serialize_der(),
        }
    }
}

impl Ca {
    /// A server certificate for these names valid only from `not_before` to `not_after`
    /// (year, month, day, UTC): an expired or not yet valid certificate.
    pub fn leaf_valid(&self, names: &[&str], not_before: (i32, u8, u8), not_after: (i32, u8, u8)) -> Leaf {
        let key = KeyPair::generate().unwrap();
        let mut params =
            CertificateParams::new(names.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap();
        params.distinguished_name.push(DnType::CommonName, names[0]);
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        params.not_before = rcgen::date_time_ymd(not_before.0, not_before.1, not_before.2);
        params.not_after = rcgen::date_time_ymd(not_after.0, not_after.1, not_after.2);
        let cert = params.signed_by(&key, &self.cert, &self.key).unwrap();
        Leaf {
            der: cert.der().clone(),
            key: key.serialize_der(),
        }
    }

    /// What the usual one-line self-signed recipe makes (`openssl req -x509 ... -addext
    /// subjectAltName=DNS:localhost`): one certificate that is a CA (basic constraints CA:TRUE)
    /// and names these hosts, served as the server's own certificate. Its PEM is the root a
    /// client is given.
    pub fn self_signed_server(names: &[&str]) -> (String, Leaf) {
        let key = KeyPair::generate().unwrap();
        let mut params =
            CertificateParams::new(names.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, names[0]);
        let cert = params.self_signed(&key).unwrap();
        (
            cert.pem(),
            Leaf {
                der: cert.der().clone(),
                key: key.serialize_der(),
            },
        )
    }
}

/// A server certificate and its key.
pub struct Leaf {
    der: CertificateDer<'static>,
    key: Vec<u8>,
}

impl Leaf {
    /// A certificate and its key read from PEM text, as files made by OpenSSL hold them: the
    /// first `CERTIFICATE` of `cert_pem` and the PKCS#8 `PRIVATE KEY` of `key_pem` (what
    /// OpenSSL 3's `req -newkey ... -nodes -keyout` writes).
    pub fn from_pem(cert_pem: &str, key_pem: &str) -> Leaf {
        Leaf {
            der: CertificateDer::from(pem_body(cert_pem, "CERTIFICATE")),
            key: pem_body(key_pem, "PRIVATE KEY"),
        }
    }
}

/// The DER bytes of the first PEM block labelled `label` in `text`.
fn pem_body(text: &str, label: &str) -> Vec<u8> {
    use base64::Engine as _;
    let begin = format!("-----BEGIN {label}-----");
    let end = format!("-----END {label}-----");
    let start = text
        .find(&begin)
        .unwrap_or_else(|| panic!("no {begin} in the PEM text"))
        + begin.len();
    let stop = start + text[start..].find(&end).unwrap_or_else(|| panic!("no {end}"));
    let b64: String = text[start..stop].split_whitespace().collect();
    base64::engine::general_purpose::STANDARD.decode(b64).unwrap()
}

/// A request as the server read it.
#[derive(Debug, Clone)]
pub struct Req {
    /// The request target (path and query).
    pub path: String,
    /// The header fields, names lower-case (over HTTP/2, `host` is the `:authority`).
    pub headers: Vec<(String, String)>,
    /// `HTTP/1.1` or `HTTP/2`.
    pub version: String,
}

impl Req {
    /// The value of a header (names lower-case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// How a response body is framed and sent.
#[derive(Debug, Clone, Copy)]
pub enum Framing {
    /// Content-Length.
    Length,
    /// Transfer-Encoding: chunked (7-byte chunks, an extension and a trailer).
    Chunked,
    /// No length: the end of the connection (after close_notify) ends the body.
    Close,
    /// Content-Length, then one byte per interval.
    Slow(Duration),
    /// Raw bytes as the whole response, no status line added.
    Raw,
}

/// A response to send.
#[derive(Debug, Clone)]
pub struct Resp {
    /// The status code.
    pub status: u16,
    /// Header fields, in order.
    pub headers: Vec<(String, String)>,
    /// The body (for `Framing::Raw`, the whole response).
    pub body: Vec<u8>,
    /// How the body is sent.
    pub framing: Framing,
}

impl Resp {
    /// A response with this status and nothing else.
    pub fn new(status: u16) -> Resp {
        Resp {
            status,
            headers: Vec::new(),
            body: Vec::new(),
            framing: Framing::Length,
        }
    }
    /// 200 with `Content-Type: application/json` and this body.
    pub fn json(body: &[u8]) -> Resp {
        Resp::new(200)
            .header("Content-Type", "application/json")
            .body(body)
    }
    /// A redirect to `location`.
    pub fn redirect(status: u16, location: &str) -> Resp {
        Resp::new(status).header("Location", location)
    }
    /// The same response with one more header field.
    pub fn header(mut self, name: &str, value: &str) -> Resp {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }
    /// The same response with this body.
    pub fn body(mut self, body: &[u8]) -> Resp {
        self.body = body.to_vec();
        self
    }
    /// The same response framed this way.
    pub fn framing(mut self, f: Framing) -> Resp {
        self.framing = f;
        self
    }
    /// The same response with its body compressed and `Content-Encoding` set.
    pub fn encoded(mut self, coding: Coding) -> Resp {
        self.body = coding.encode(&self.body);
        self.header("Content-Encoding", coding.name())
    }
}

/// A content coding for [`Resp::encoded`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coding {
    /// `gzip` (flate2).
    Gzip,
    /// `br` (brotli).
    Br,
}

impl Coding {
    /// The coding's name in `Content-Encoding`.
    pub fn name(self) -> &'static str {
        match self {
            Coding::Gzip => "gzip",
            Coding::Br => "br",
        }
    }

    /// `bytes` compressed with this coding (at its best ratio: a test body of zeros shrinks a
    /// thousandfold).
    pub fn encode(self, bytes: &[u8]) -> Vec<u8> {
        match self {
            Coding::Gzip => {
                let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
                enc.write_all(bytes).unwrap();
                enc.finish().unwrap()
            }
            Coding::Br => {
                let mut out = Vec::new();
                {
                    let mut enc = brotli::CompressorWriter::new(&mut out, 4096, 11, 22);
                    enc.write_all(bytes).unwrap();
                }
                out
            }
        }
    }
}

/// What a server started with [`Server::start_with`] speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// HTTP/1.1 with keep-alive: a client may send many requests on one connection. No ALPN
    /// `h2`, so an HTTP/2 client falls back to HTTP/1.1.
    Http1,
    /// HTTP/2 when the client offers `h2` by ALPN, else HTTP/1.1 with keep-alive.
    Http2,
}

type Handler = dyn Fn(&Req) -> Resp + Send + Sync + 'static;

struct State {
    accepts: AtomicUsize,
    requests: Mutex<Vec<Req>>,
    handler: Box<Handler>,
}

impl State {
    fn new(handler: impl Fn(&Req) -> Resp + Send + Sync + 'static) -> Arc<State> {
        Arc::new(State {
            accepts: AtomicUsize::new(0),
            requests: Mutex::new(Vec::new()),
            handler: Box::new(handler),
        })
    }

    /// Records a request and answers it.
    fn answer(&self, req: Req) -> Resp {
        self.requests.lock().unwrap().push(req.clone());
        (self.handler)(&req)
    }
}

/// A running server. It lives until the test process ends, or until [`Server::stop`] for one
/// started with [`Server::start`] or [`Server::start_on`].
pub struct Server {
    /// Its port on 127.0.0.1.
    pub port: u16,
    state: Arc<State>,
    accept_loop: Option<(Arc<std::sync::atomic::AtomicBool>, std::thread::JoinHandle<()>)>,
}

fn server_config(leaf: &Leaf, alpn: &[&[u8]]) -> Arc<ServerConfig> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(
            vec![leaf.der.clone()],
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf.key.clone())),
        )
        .unwrap();
    config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
    Arc::new(config)
}

impl Server {
    /// Starts a server on 127.0.0.1 with `leaf`, answering every request with `handler`:
    /// HTTP/1.1, one request per connection, one thread per connection.
    pub fn start(leaf: &Leaf, handler: impl Fn(&Req) -> Resp + Send + Sync + 'static) -> Server {
        Server::start_on(0, leaf, handler).unwrap()
    }

    /// [`Server::start`] on this port of 127.0.0.1 (0: any free port); the error if the port
    /// cannot be bound (taken by another program).
    pub fn start_on(
        port: u16,
        leaf: &Leaf,
        handler: impl Fn(&Req) -> Resp + Send + Sync + 'static,
    ) -> std::io::Result<Server> {
        let config = server_config(leaf, &[]);
        let listener = TcpListener::bind(("127.0.0.1", port))?;
        let port = listener.local_addr()?.port();
        let state = State::new(handler);
        let st = state.clone();
        let stopping = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let stop = stopping.clone();
        let accept_loop = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                st.accepts.fetch_add(1, Ordering::SeqCst);
                let (st, config) = (st.clone(), config.clone());
                std::thread::spawn(move || serve(stream, config, st));
            }
        });
        Ok(Server {
            port,
            state,
            accept_loop: Some((stopping, accept_loop)),
        })
    }

    /// Stops accepting connections and frees the port (connections already accepted are
    /// served to their end), for a test that serves another certificate on the same port.
    /// Only for a server started with [`Server::start`] or [`Server::start_on`].
    pub fn stop(self) {
        let (stopping, accept_loop) = self
            .accept_loop
            .expect("only a server started with Server::start or Server::start_on stops");
        stopping.store(true, Ordering::SeqCst);
        // Wakes the accept loop, which sees the flag and drops the listener.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        accept_loop.join().unwrap();
    }

    /// Starts a server on 127.0.0.1 with `leaf` that speaks `protocol` (hyper on a tokio
    /// runtime of its own), answering every request with `handler`. Every framing but
    /// [`Framing::Raw`] is honoured (over HTTP/2, `Chunked` and `Close` are a body sent in
    /// pieces without a length); a `Raw` response is answered 500.
    pub fn start_with(
        leaf: &Leaf,
        protocol: Protocol,
        handler: impl Fn(&Req) -> Resp + Send + Sync + 'static,
    ) -> Server {
        let alpn: &[&[u8]] = match protocol {
            Protocol::Http1 => &[b"http/1.1"],
            Protocol::Http2 => &[b"h2", b"http/1.1"],
        };
        let config = server_config(leaf, alpn);
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let state = State::new(handler);
        pooled::spawn(listener, config, state.clone());
        Server {
            port,
            state,
            accept_loop: None,
        }
    }

    /// `https://HOST:PORT` + path.
    pub fn url(&self, host: &str, path: &str) -> String {
        format!("https://{host}:{}{path}", self.port)
    }

    /// TCP connections accepted so far.
    pub fn accepts(&self) -> usize {
        self.state.accepts.load(Ordering::SeqCst)
    }

    /// Every request read so far.
    pub fn requests(&self) -> Vec<Req> {
        self.state.requests.lock().unwrap().clone()
    }

    /// Requests for this path (query included) so far.
    pub fn count(&self, path: &str) -> usize {
        self.requests().iter().filter(|r| r.path == path).count()
    }
}

fn serve(stream: TcpStream, config: Arc<ServerConfig>, st: Arc<State>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let _ = stream.set_write_timeout(Some(Duration::from_secs(10)));
    let Ok(conn) = ServerConnection::new(config) else {
        return;
    };
    let mut tls = StreamOwned::new(conn, stream);
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match tls.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
        if head.len() > 65536 {
            return;
        }
    }
    let text = String::from_utf8_lossy(&head).into_owned();
    let mut lines = text.split("\r\n");
    let first = lines.next().unwrap_or("");
    let path = first.split(' ').nth(1).unwrap_or("").to_string();
    let version = first.split(' ').nth(2).unwrap_or("").to_string();
    let headers = lines
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let resp = st.answer(Req {
        path,
        headers,
        version,
    });
    let _ = write_response(&mut tls, &resp);
    tls.conn.send_close_notify();
    let _ = tls.flush();
}

fn write_response(tls: &mut impl Write, r: &Resp) -> std::io::Result<()> {
    if let Framing::Raw = r.framing {
        tls.write_all(&r.body)?;
        return tls.flush();
    }
    let mut head = format!("HTTP/1.1 {} X\r\nConnection: close\r\n", r.status);
    for (n, v) in &r.headers {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    match r.framing {
        Framing::Length | Framing::Slow(_) => head.push_str(&format!("Content-Length: {}\r\n", r.body.len())),
        Framing::Chunked => head.push_str("Transfer-Encoding: chunked\r\n"),
        Framing::Close | Framing::Raw => {}
    }
    head.push_str("\r\n");
    tls.write_all(head.as_bytes())?;
    match r.framing {
        Framing::Length | Framing::Close => tls.write_all(&r.body)?,
        Framing::Chunked => {
            for chunk in r.body.chunks(7) {
                tls.write_all(format!("{:x};ext=1\r\n", chunk.len()).as_bytes())?;
                tls.write_all(chunk)?;
                tls.write_all(b"\r\n")?;
            }
            tls.write_all(b"0\r\nX-Trailer: t\r\n\r\n")?;
        }
        Framing::Slow(every) => {
            for b in &r.body {
                tls.write_all(std::slice::from_ref(b))?;
                tls.flush()?;
                std::thread::sleep(every);
            }
        }
        Framing::Raw => {}
    }
    tls.flush()
}

/// The environment variable and value that make the fetcher dial nothing but loopback, a safety
/// net under the SSRF guard while tests run (see crates/a2a-card-fetch). Give it to every run of
/// the binary; an in-process test calls [`loopback_only_in_this_process`].
pub const LOOPBACK_ONLY: (&str, &str) = ("A2A_CARD_FETCH_LOOPBACK_ONLY", "1");

/// Sets [`LOOPBACK_ONLY`] in this process, for tests that call the fetcher's library directly.
pub fn loopback_only_in_this_process() {
    std::env::set_var(LOOPBACK_ONLY.0, LOOPBACK_ONLY.1);
}

/// One CA and a server certificate for localhost and 127.0.0.1.
pub struct Fixture {
    /// The CA.
    pub ca: Ca,
    /// The server's certificate and key.
    pub leaf: Leaf,
}

impl Fixture {
    /// A new CA and leaf.
    pub fn new() -> Fixture {
        let ca = Ca::new("a2a-card test CA");
        let leaf = ca.leaf(&["localhost", "127.0.0.1"]);
        Fixture { ca, leaf }
    }

    /// Writes the CA certificate to `dir/ca.pem` (for `--ca-file`).
    pub fn write_ca(&self, dir: &std::path::Path) -> std::path::PathBuf {
        let path = dir.join("ca.pem");
        std::fs::write(&path, &self.ca.pem).unwrap();
        path
    }
}

impl Default for Fixture {
    fn default() -> Self {
        Fixture::new()
    }
}
