//! The load client of `scripts/bench-serve.sh`: CONNECTIONS keep-alive HTTP/1.1 connections
//! (one tokio thread) sending the lines of a JSON Lines file of cards, round robin, to `POST
//! /v1/verify` until TOTAL requests are answered. Prints the throughput, the latency
//! percentiles, the answers that were not 200, and the server's resident memory (VmRSS of PID)
//! at the start, the middle and the end.
//!
//! Like `wrk`, it writes each request from bytes made before the run (one write per request)
//! and reads only what an HTTP/1.1 answer needs (the status, `Content-Length`, the body): it
//! runs on the server's cores, so it takes as little of them as it can. One request at a time
//! on each connection (no pipelining), as a registry's client sends them.
//!
//! ```text
//! cargo run --release -p a2a-card-serve --example bench_serve -- ADDR CARDS.jsonl TOTAL CONNECTIONS PID
//! ```
#![allow(clippy::unwrap_used, clippy::panic)] // a benchmark: a failure stops it

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

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
    // Each card as a whole request: head and body.
    let requests: Vec<Vec<u8>> = std::fs::read_to_string(&args[2])
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut r = format!(
                "POST /v1/verify HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
                l.len()
            )
            .into_bytes();
            r.extend_from_slice(l.as_bytes());
            r
        })
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
    let requests = Arc::new(requests);
    let started = Instant::now();
    let latencies: Vec<u32> = rt.block_on(async {
        let mut tasks = Vec::new();
        for _ in 0..connections {
            let (next, bad, rss, requests, pid) = (
                next.clone(),
                bad.clone(),
                rss.clone(),
                requests.clone(),
                pid.clone(),
            );
            tasks.push(tokio::spawn(async move {
                let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
                stream.set_nodelay(true).unwrap();
                let mut buf = Vec::with_capacity(16 * 1024);
                let mut mine = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= total {
                        break;
                    }
                    if i == total / 2 {
                        rss.lock().unwrap().push(rss_kb(&pid));
                    }
                    let t = Instant::now();
                    stream.write_all(&requests[i % requests.len()]).await.unwrap();
                    let status = answer(&mut stream, &mut buf).await;
                    mine.push(u32::try_from(t.elapsed().as_micros()).unwrap_or(u32::MAX));
                    if status != 200 {
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

/// Reads one answer whole (head and a `Content-Length` body) and returns its status. `buf`
/// holds what was read past it (nothing, since a request is sent only after its answer).
async fn answer(stream: &mut tokio::net::TcpStream, buf: &mut Vec<u8>) -> u16 {
    buf.clear();
    let head_end = loop {
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        read_more(stream, buf).await;
    };
    let head = std::str::from_utf8(&buf[..head_end]).unwrap();
    let status: u16 = head.get(9..12).unwrap().parse().unwrap();
    let length: usize = head
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().unwrap())
        })
        .unwrap();
    while buf.len() < head_end + length {
        read_more(stream, buf).await;
    }
    assert_eq!(buf.len(), head_end + length, "bytes past the answer");
    status
}

async fn read_more(stream: &mut tokio::net::TcpStream, buf: &mut Vec<u8>) {
    buf.reserve(16 * 1024);
    let n = stream.read_buf(buf).await.unwrap();
    assert!(n > 0, "the server closed the connection");
}
