//! The load client of `scripts/bench-serve.sh`: CONNECTIONS keep-alive HTTP/1.1 connections
//! (hyper's client, one tokio thread) sending the lines of a JSON Lines file of cards, round
//! robin, to `POST /v1/verify` until TOTAL requests are answered. Prints the throughput, the
//! latency percentiles, the answers that were not 200, and the server's resident memory (VmRSS
//! of PID) at the start, the middle and the end.
//!
//! ```text
//! cargo run --release -p a2a-card-serve --example bench_serve -- ADDR CARDS.jsonl TOTAL CONNECTIONS PID
//! ```
#![allow(clippy::unwrap_used, clippy::panic)] // a benchmark: a failure stops it

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

fn rss_kb(pid: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|n| n.parse().ok()))
        })
        .unwrap_or(0)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 6 {
        eprintln!("usage: bench_serve ADDR CARDS.jsonl TOTAL CONNECTIONS PID");
        std::process::exit(2);
    }
    let addr: std::net::SocketAddr = args[1].parse().unwrap();
    let cards: Vec<Bytes> = std::fs::read_to_string(&args[2])
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| Bytes::from(l.to_string()))
        .collect();
    let total: usize = args[3].parse().unwrap();
    let connections: usize = args[4].parse().unwrap();
    let pid = args[5].clone();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let next = Arc::new(AtomicUsize::new(0));
    let bad = Arc::new(AtomicUsize::new(0));
    let rss = Arc::new(Mutex::new(vec![rss_kb(&pid)]));
    let cards = Arc::new(cards);
    let started = Instant::now();
    let latencies: Vec<u32> = rt.block_on(async {
        let mut tasks = Vec::new();
        for _ in 0..connections {
            let (next, bad, rss, cards, pid) =
                (next.clone(), bad.clone(), rss.clone(), cards.clone(), pid.clone());
            tasks.push(tokio::spawn(async move {
                let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
                stream.set_nodelay(true).unwrap();
                let (mut send, conn) =
                    hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
                        .await
                        .unwrap();
                tokio::spawn(conn);
                let mut mine = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= total {
                        break;
                    }
                    if i == total / 2 {
                        rss.lock().unwrap().push(rss_kb(&pid));
                    }
                    let req = http::Request::post("/v1/verify")
                        .header("host", "localhost")
                        .body(Full::new(cards[i % cards.len()].clone()))
                        .unwrap();
                    let t = Instant::now();
                    send.ready().await.unwrap();
                    let resp = send.send_request(req).await.unwrap();
                    let ok = resp.status() == 200;
                    let _ = resp.into_body().collect().await.unwrap();
                    mine.push(u32::try_from(t.elapsed().as_micros()).unwrap_or(u32::MAX));
                    if !ok {
                        bad.fetch_add(1, Ordering::Relaxed);
                    }
                }
                mine
            }));
        }
        let mut all = Vec::new();
        for t in tasks {
            all.extend(t.await.unwrap());
        }
        all
    });
    let secs = started.elapsed().as_secs_f64();
    rss.lock().unwrap().push(rss_kb(&pid));
    let mut l = latencies;
    l.sort_unstable();
    let pct = |p: f64| {
        l.get(((l.len() as f64 * p) as usize).min(l.len().saturating_sub(1)))
            .copied()
            .unwrap_or(0)
    };
    let rss = rss.lock().unwrap();
    println!(
        "requests {} in {secs:.2} s: {:.0} req/s",
        l.len(),
        l.len() as f64 / secs
    );
    println!(
        "latency ms: p50 {:.2} p90 {:.2} p99 {:.2} max {:.2}",
        f64::from(pct(0.50)) / 1000.0,
        f64::from(pct(0.90)) / 1000.0,
        f64::from(pct(0.99)) / 1000.0,
        f64::from(l.last().copied().unwrap_or(0)) / 1000.0
    );
    println!("answers not 200: {}", bad.load(Ordering::Relaxed));
    println!(
        "server RSS KiB: start {} middle {} end {}",
        rss.first().unwrap_or(&0),
        rss.get(1).unwrap_or(&0),
        rss.last().unwrap_or(&0)
    );
}
