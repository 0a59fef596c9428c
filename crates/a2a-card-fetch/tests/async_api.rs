//! The asynchronous API inside a tokio runtime: many verifications at once on one fetcher,
//! retrievals dropped at any point (the cache holds whole entries or none), and the blocking
//! API called from inside a runtime.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use a2a_card::{Algorithm, PrivateKey, TrustStore};
use a2a_card_fetch::{blocking, CacheOutcome, FetchOptions, Fetcher, JkuStatus, RemoteOptions};
use a2a_card_testkit::https::Protocol;
use common::*;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// The sample card signed with a fresh key and a `jku` on the server's own origin, served with
/// an `ETag` (the JWKS too), and the options that allow that `jku`.
struct Agent {
    server: Server,
    remote: RemoteOptions,
    card: Vec<u8>,
}

fn agent(fx: &Fixture, protocol: Option<Protocol>) -> Agent {
    let key = PrivateKey::generate(Algorithm::ES256).unwrap();
    let jwks = jwks_json(&key);
    let card: Arc<std::sync::OnceLock<Vec<u8>>> = Arc::default();
    let c = card.clone();
    let handler = move |req: &Req| match req.path.as_str() {
        "/.well-known/agent-card.json" => Resp::json(c.get().unwrap()).header("ETag", "\"c\""),
        "/slow" => Resp::json(c.get().unwrap())
            .header("ETag", "\"s\"")
            .framing(Framing::Slow(Duration::from_millis(20))),
        "/keys/jwks.json" => Resp::new(200)
            .header("Content-Type", "application/jwk-set+json")
            .header("Cache-Control", "max-age=600")
            .body(&jwks),
        _ => Resp::new(404),
    };
    let server = match protocol {
        Some(p) => Server::start_with(&fx.leaf, p, handler),
        None => Server::start(&fx.leaf, handler),
    };
    let signed = signed(
        &sample_card(),
        &key,
        Some(server.url("localhost", "/keys/jwks.json")),
    );
    card.set(signed.clone()).unwrap();
    let remote = RemoteOptions {
        jku_allow: vec![server.url("localhost", "/keys/")],
        ..RemoteOptions::default()
    };
    Agent {
        server,
        remote,
        card: signed,
    }
}

#[test]
fn two_hundred_verifications_at_once_on_one_runtime() {
    let fx = Fixture::new();
    for protocol in [None, Some(Protocol::Http2)] {
        let a = Arc::new(agent(&fx, protocol));
        let fetcher = Fetcher::new(&fx.options()).unwrap();
        let trust = Arc::new(TrustStore::new());
        let results = runtime().block_on(async {
            let tasks: Vec<_> = (0..200)
                .map(|_| {
                    let (fetcher, trust, a) = (fetcher.clone(), trust.clone(), a.clone());
                    tokio::spawn(async move {
                        fetcher
                            .verify_remote(&a.server.url("localhost", ""), &trust, &a.remote)
                            .await
                    })
                })
                .collect();
            let mut out = Vec::new();
            for t in tasks {
                out.push(t.await.unwrap());
            }
            out
        });
        for r in results {
            let r = r.unwrap();
            assert!(r.report.ok, "{protocol:?}: {}", r.report.reason);
            assert_eq!(r.card, a.card);
            assert!(
                matches!(&r.jku[0].status, JkuStatus::Fetched { kids, .. } if kids.len() == 1),
                "{protocol:?}: {:?}",
                r.jku
            );
        }
        assert_eq!(a.server.requests().len(), 400, "{protocol:?}");
    }
}

/// The cache folder's files: (entries, temporary files).
fn files(dir: &Path) -> (Vec<String>, Vec<String>) {
    let names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    let (entries, other) = names.into_iter().partition(|n| n.ends_with(".entry"));
    (entries, other)
}

/// Drives `fut` until it ends or has waited `waits` times (returned `Pending` and been woken
/// again), then drops it: a cut at a point of progress, not of time, so the same sweep cuts
/// the same places whatever the machine's load or its timers' granularity.
async fn cut_after<F: std::future::Future>(fut: F, waits: u32) -> Option<F::Output> {
    let mut fut = std::pin::pin!(fut);
    let mut n = 0;
    std::future::poll_fn(|cx| match fut.as_mut().poll(cx) {
        std::task::Poll::Ready(v) => std::task::Poll::Ready(Some(v)),
        std::task::Poll::Pending if n >= waits => std::task::Poll::Ready(None),
        std::task::Poll::Pending => {
            n += 1;
            std::task::Poll::Pending
        }
    })
    .await
}

/// Runs `attempt(waits)` for 0, 1, 2, ... waits, from a cut before anything is sent to a whole
/// retrieval, until 20 attempts have finished (at most 4,000): (cut, done).
fn sweep_cuts(mut attempt: impl FnMut(u32) -> bool) -> (u32, u32) {
    let (mut cut, mut done) = (0, 0);
    for waits in 0..4000u32 {
        if attempt(waits) {
            done += 1;
            if done == 20 {
                break;
            }
        } else {
            cut += 1;
        }
    }
    (cut, done)
}

#[test]
fn a_dropped_retrieval_never_leaves_a_partial_cache_entry() {
    let fx = Fixture::new();
    let a = agent(&fx, Some(Protocol::Http2));
    let dir = temp_dir("async-cancel");
    let opts = FetchOptions {
        cache_dir: Some(dir.clone()),
        ..fx.options()
    };
    let rt = runtime();
    let fetcher = Fetcher::new(&opts).unwrap();
    // Dropped in the middle of the body (it drips for about 50 s).
    let slow = a.server.url("localhost", "/slow");
    let cut = rt.block_on(async {
        tokio::time::timeout(Duration::from_millis(300), fetcher.fetch_card(&slow)).await
    });
    assert!(cut.is_err(), "the retrieval was not cut");
    assert!(a.server.count("/slow") == 1, "the body had started");
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(files(&dir), (vec![], vec![]), "something was written");

    // Dropped at every point of a whole retrieval, the cache write included: what is left is
    // whole entries, no temporary file, and every entry reads back as the card.
    let origin = a.server.url("localhost", "");
    let (cut, done) = sweep_cuts(|waits| {
        let fresh = Fetcher::new(&opts).unwrap();
        let trust = TrustStore::new();
        let ended = rt.block_on(cut_after(fresh.verify_remote(&origin, &trust, &a.remote), waits));
        match ended {
            Some(r) => {
                assert!(r.unwrap().report.ok);
                true
            }
            None => false,
        }
    });
    // The cuts span a whole retrieval: the first ones are cut, the last ones finish.
    assert!(cut > 0 && done > 0, "cut {cut}, done {done}");
    std::thread::sleep(Duration::from_millis(300));
    let (entries, other) = files(&dir);
    assert!(other.is_empty(), "left behind: {other:?}");
    assert!(entries.len() <= 2, "{entries:?}");
    let r = rt
        .block_on(fetcher.verify_remote(&origin, &TrustStore::new(), &a.remote))
        .unwrap();
    assert!(r.report.ok, "{}", r.report.reason);
    assert_eq!(r.card, a.card);
    assert!(matches!(
        r.cache,
        CacheOutcome::Revalidated | CacheOutcome::Stored
    ));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_dropped_retrieval_leaves_a_memory_cache_whole() {
    let fx = Fixture::new();
    let a = agent(&fx, Some(Protocol::Http1));
    let opts = FetchOptions {
        memory_cache: true,
        ..fx.options()
    };
    let rt = runtime();
    let origin = a.server.url("localhost", "");
    // One kept fetcher, its retrievals dropped at every point from nothing to a whole one:
    // what its memory holds after each is the card or nothing, so every finished one verifies.
    let kept = Fetcher::new(&opts).unwrap();
    let (cut, done) = sweep_cuts(|waits| {
        let trust = TrustStore::new();
        let ended = rt.block_on(cut_after(kept.verify_remote(&origin, &trust, &a.remote), waits));
        match ended {
            Some(r) => {
                let r = r.unwrap();
                assert!(r.report.ok, "{}", r.report.reason);
                assert_eq!(r.card, a.card);
                true
            }
            None => false,
        }
    });
    assert!(cut > 0 && done > 0, "cut {cut}, done {done}");
    let r = rt
        .block_on(kept.verify_remote(&origin, &TrustStore::new(), &a.remote))
        .unwrap();
    assert!(r.report.ok, "{}", r.report.reason);
    assert_eq!(r.card, a.card);
    assert!(matches!(
        r.cache,
        CacheOutcome::Revalidated | CacheOutcome::Stored | CacheOutcome::Fresh
    ));
}

/// The TCP connections from or to `port` that are still open (Linux: /proc/net/tcp and tcp6;
/// listening sockets and connections in TIME_WAIT or CLOSE are not open). Counting by the
/// test server's port keeps the other tests' connections out of the count.
#[cfg(target_os = "linux")]
fn open_connections(port: u16) -> usize {
    let mut n = 0;
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = std::fs::read_to_string(table) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let f: Vec<&str> = line.split_whitespace().collect();
            let port_of = |addr: &str| {
                addr.rsplit_once(':')
                    .and_then(|(_, p)| u16::from_str_radix(p, 16).ok())
            };
            let ours = f.len() > 3 && (port_of(f[1]) == Some(port) || port_of(f[2]) == Some(port));
            if ours && !matches!(f[3], "06" | "07" | "0A") {
                n += 1;
            }
        }
    }
    n
}

#[cfg(target_os = "linux")]
#[test]
fn the_one_call_functions_keep_no_connection_open_between_calls() {
    let fx = Fixture::new();
    // A keep-alive server: a pooled connection would stay open if the fetcher's pool outlived
    // the call (both its ends are on this machine, so both are counted).
    let a = agent(&fx, Some(Protocol::Http1));
    let origin = a.server.url("localhost", "");
    let opts = fx.options();
    assert_eq!(open_connections(a.server.port), 0);
    let calls = |n: usize| {
        for _ in 0..n {
            let r = a2a_card_fetch::verify_remote(&origin, &TrustStore::new(), &a.remote, &opts).unwrap();
            assert!(r.report.ok, "{}", r.report.reason);
        }
    };
    calls(3);
    // From several threads at once, each with its runtime.
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| calls(3));
        }
    });
    assert_eq!(
        a.server.accepts(),
        15,
        "one connection per call (card and jku share it)"
    );
    // The server's side of each connection ends when the client closes it.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while open_connections(a.server.port) > 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        open_connections(a.server.port),
        0,
        "a connection stayed open after its call"
    );
}

#[test]
fn the_blocking_api_works_inside_a_runtime() {
    let fx = Fixture::new();
    let a = agent(&fx, None);
    let origin = a.server.url("localhost", "");
    let opts = fx.options();
    let (one, shared) = runtime().block_on(async {
        let one = a2a_card_fetch::verify_remote(&origin, &TrustStore::new(), &a.remote, &opts).unwrap();
        let fetcher = blocking::Fetcher::new(&opts).unwrap();
        let shared = fetcher.fetch_card(&origin).unwrap();
        (one, shared)
    });
    assert!(one.report.ok, "{}", one.report.reason);
    assert_eq!(shared.bytes, a.card);
}

/// The verification after the retrieval runs on the runtime's blocking pool, not on the async
/// worker: with the pool's only thread held, the card is fetched (the worker is free for the
/// I/O) but its verification waits for the thread, and finishes once the thread is free.
#[test]
fn the_verification_runs_on_the_blocking_pool() {
    let fx = Fixture::new();
    let key = PrivateKey::generate(Algorithm::ES256).unwrap();
    let card = signed(&sample_card(), &key, None);
    let mut trust = TrustStore::new();
    trust.pin(key.public().clone(), "test");
    let server = Server::start(&fx.leaf, move |_: &Req| Resp::json(&card));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .max_blocking_threads(1)
        .build()
        .unwrap();
    let fetcher = Fetcher::new(&fx.options()).unwrap();
    // An IP literal: no name lookup (which would need the blocking pool too).
    let url = server.url("127.0.0.1", "");
    rt.block_on(async move {
        let (release, held) = std::sync::mpsc::channel::<()>();
        let busy = tokio::task::spawn_blocking(move || held.recv());
        let verifying = tokio::spawn(async move {
            fetcher
                .verify_remote(&url, &trust, &RemoteOptions::default())
                .await
        });
        let started = std::time::Instant::now();
        while server.requests().is_empty() {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "the card was never asked for"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(
            !verifying.is_finished(),
            "the card was verified while the blocking pool had no thread free"
        );
        release.send(()).unwrap();
        let r = verifying.await.unwrap().unwrap();
        assert!(r.report.ok, "{}", r.report.reason);
        busy.await.unwrap().unwrap();
    });
}
