//! Shared by the service's tests: a policy in a scratch folder, a service on a loopback port
//! (the library, in this process), a small HTTP/1.1 client over a real TCP connection, keys
//! and signed cards.
#![allow(dead_code, clippy::unwrap_used, clippy::panic)] // a panic is how a test fails

use a2a_card::{sign_card, Algorithm, PrivateKey, SignOptions};
use a2a_card_serve::{serve, Limits, Service};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A fresh scratch folder.
pub fn scratch(name: &str) -> PathBuf {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("a2a-card-serve-{name}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A key, its JWK Set written to `dir/jwks.json`, and the 8.5 sample card signed with it.
pub struct Signed {
    pub key: PrivateKey,
    pub card: Vec<u8>,
}

pub fn signed(dir: &std::path::Path) -> Signed {
    let key = PrivateKey::generate(Algorithm::ES256).unwrap();
    let jwks = serde_json::json!({"keys": [key.public().to_jwk()]});
    std::fs::write(dir.join("jwks.json"), jwks.to_string()).unwrap();
    let card = sign_card(
        &sample(),
        &key,
        &SignOptions {
            allow_unsigned: true,
            ..SignOptions::default()
        },
    )
    .unwrap()
    .card;
    Signed { key, card }
}

/// The A2A v1.0 section 8.5 sample card, unsigned.
pub fn sample() -> Vec<u8> {
    std::fs::read(a2a_card_testkit::data::testvectors_dir().join("cards/sample-8.5-unsigned.json")).unwrap()
}

/// The card with one covered member changed after signing.
pub fn tampered(card: &[u8]) -> Vec<u8> {
    let text = String::from_utf8(card.to_vec()).unwrap();
    let changed = text.replacen("\"name\": \"", "\"name\": \"X", 1);
    assert_ne!(changed, text, "the sample card has a name");
    changed.into_bytes()
}

/// A running service: its address, the state, and the way to stop it.
pub struct Running {
    pub addr: SocketAddr,
    pub service: Arc<Service>,
    pub dir: PathBuf,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    done: Option<tokio::task::JoinHandle<()>>,
}

impl Running {
    /// Stops the service and waits for it to have answered every request it read.
    pub async fn stop(mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(d) = self.done.take() {
            d.await.unwrap();
        }
    }
}

/// Writes `policy` to `dir/policy.json` and starts the service on a loopback port.
pub async fn start(dir: PathBuf, policy: &serde_json::Value, limits: Limits) -> Running {
    std::fs::write(
        dir.join("policy.json"),
        serde_json::to_vec_pretty(policy).unwrap(),
    )
    .unwrap();
    let service = Arc::new(Service::new(dir.join("policy.json"), limits).unwrap());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let svc = service.clone();
    let done = tokio::spawn(async move {
        serve(listener, svc, async {
            let _ = rx.await;
        })
        .await;
    });
    Running {
        addr,
        service,
        dir,
        stop: Some(tx),
        done: Some(done),
    }
}

/// An answer: status, header fields (names lower-case) and body.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }
}

/// One keep-alive HTTP/1.1 connection (hyper's client), for many requests.
pub struct Client {
    send: hyper::client::conn::http1::SendRequest<http_body_util::Full<bytes::Bytes>>,
}

impl Client {
    pub async fn connect(addr: SocketAddr) -> Client {
        let stream = TcpStream::connect(addr).await.unwrap();
        let (send, conn) = hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
            .await
            .unwrap();
        tokio::spawn(conn);
        Client { send }
    }

    /// One request; an error when the connection failed.
    pub async fn try_request(
        &mut self,
        method: &str,
        path: &str,
        body: &[u8],
    ) -> Result<Answer, hyper::Error> {
        use http_body_util::BodyExt;
        let req = http::Request::builder()
            .method(method)
            .uri(path)
            .header("host", "localhost")
            .body(http_body_util::Full::new(bytes::Bytes::copy_from_slice(body)))
            .unwrap();
        self.send.ready().await?;
        let resp = self.send.send_request(req).await?;
        let status = resp.status().as_u16();
        let headers = resp
            .headers()
            .iter()
            .map(|(n, v)| (n.as_str().to_string(), v.to_str().unwrap_or("").to_string()))
            .collect();
        let body = resp.into_body().collect().await?.to_bytes().to_vec();
        Ok(Answer {
            status,
            headers,
            body,
        })
    }

    pub async fn request(&mut self, method: &str, path: &str, body: &[u8]) -> Answer {
        self.try_request(method, path, body).await.unwrap()
    }
}

/// One request on a new connection.
pub async fn post(addr: SocketAddr, path: &str, body: &[u8]) -> Answer {
    Client::connect(addr).await.request("POST", path, body).await
}

pub async fn get(addr: SocketAddr, path: &str) -> Answer {
    Client::connect(addr).await.request("GET", path, b"").await
}

/// Raw bytes on a new connection; what comes back until the server closes it (or `wait`).
pub async fn raw(addr: SocketAddr, bytes: &[u8], wait: Duration) -> String {
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(bytes).await.unwrap();
    let mut out = Vec::new();
    let _ = tokio::time::timeout(wait, s.read_to_end(&mut out)).await;
    String::from_utf8_lossy(&out).into_owned()
}

/// The policy with the JWK Set of `dir` and these verify options besides.
pub fn policy(verify: serde_json::Value) -> serde_json::Value {
    let mut v = serde_json::json!({"jwks": ["jwks.json"]});
    for (k, x) in verify.as_object().unwrap() {
        v[k] = x.clone();
    }
    serde_json::json!({ "verify": v })
}

/// An origin that accepts connections and never answers (the TLS handshake never completes):
/// a `/v1/verify-remote` of it holds its verification slot until the deadline. Its URL.
pub async fn stalled_origin() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((s, _)) = listener.accept().await {
            held.push(s);
        }
    });
    format!("https://{addr}")
}

/// The policy of `policy(json!({}))` whose fetcher may open loopback addresses.
pub fn loopback_policy() -> serde_json::Value {
    let mut p = policy(serde_json::json!({}));
    p["fetch"] = serde_json::json!({"allow_loopback": true});
    p
}

/// A request whose head and first `sent` body bytes of `len` are written, then one more byte
/// every `every` until the server answers or closes: what comes back, and when.
pub async fn trickle(addr: SocketAddr, path: &str, len: usize, every: Duration) -> (String, Duration) {
    let started = std::time::Instant::now();
    let mut s = TcpStream::connect(addr).await.unwrap();
    let head = format!("POST {path} HTTP/1.1\r\nhost: x\r\ncontent-length: {len}\r\n\r\n{{");
    s.write_all(head.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    for _ in 1..len {
        match tokio::time::timeout(every, s.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => break,
            Ok(Ok(n)) => out.extend_from_slice(&buf[..n]),
            Err(_) => {
                if s.write_all(b" ").await.is_err() {
                    break;
                }
            }
        }
        if started.elapsed() > Duration::from_secs(20) {
            break;
        }
    }
    (String::from_utf8_lossy(&out).into_owned(), started.elapsed())
}
