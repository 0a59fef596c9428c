//! What a long-running async program sees (`scripts/bench-fetch.sh`, this tree only): one
//! `a2a_card_fetch::Fetcher` kept for the whole run on one tokio runtime, so its connection
//! (HTTP/1.1 keep-alive or HTTP/2) and TLS session serve every call. Times
//! `Fetcher::verify_remote` N times after a warm-up and prints one JSON line (median, p10,
//! p90 in microseconds).
//!
//! `bench_pooled URL CA.pem JWKS.json full|revalidate N`: as `bench_client`.
#![allow(clippy::unwrap_used, clippy::panic)]

use a2a_card_fetch::{CacheOutcome, FetchOptions, Fetcher, RemoteOptions, Roots};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [url, ca, jwks, mode, n] = &args[..] else {
        panic!("usage: bench_pooled URL CA.pem JWKS.json full|revalidate N");
    };
    let n: usize = n.parse().unwrap();
    let trust =
        a2a_card::TrustStore::from_json(&std::fs::read_to_string(jwks).unwrap(), "jwks.json").unwrap();
    let cache = std::env::temp_dir().join(format!("a2a-bench-pooled-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache);
    let (cache_dir, want) = match mode.as_str() {
        "full" => (None, CacheOutcome::Off),
        "revalidate" => (Some(cache.clone()), CacheOutcome::Revalidated),
        other => panic!("unknown mode {other:?}"),
    };
    let opts = FetchOptions {
        roots: Roots::CaPem(std::fs::read(ca).unwrap()),
        allow_loopback: true,
        cache_dir,
        ..FetchOptions::default()
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let remote = RemoteOptions::default();
    let mut times: Vec<f64> = rt.block_on(async {
        let fetcher = Fetcher::new(&opts).unwrap();
        let once = || async {
            let started = Instant::now();
            let r = fetcher.verify_remote(url, &trust, &remote).await.unwrap();
            let took = started.elapsed();
            assert!(r.report.ok, "{}", r.report.reason);
            (took, r.cache)
        };
        for _ in 0..(n / 10).max(5) {
            once().await;
        }
        let mut times = Vec::with_capacity(n);
        for _ in 0..n {
            let (took, outcome) = once().await;
            assert_eq!(outcome, want);
            times.push(took.as_secs_f64() * 1e6);
        }
        times
    });
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    println!(
        "{{\"mode\":\"{mode}\",\"n\":{n},\"median_us\":{:.1},\"p10_us\":{:.1},\"p90_us\":{:.1}}}",
        at(0.5),
        at(0.1),
        at(0.9)
    );
    let _ = std::fs::remove_dir_all(&cache);
}
