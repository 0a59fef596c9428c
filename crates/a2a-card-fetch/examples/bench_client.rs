//! The client of `scripts/bench-fetch.sh`: times the blocking library call
//! `a2a_card_fetch::verify_remote` of a card served on loopback, N times after a warm-up, and
//! prints one JSON line (median, p10, p90 in microseconds). It uses only the API that the
//! hand-written client of earlier versions had too, so the script builds this same file
//! against both and runs them side by side.
//!
//! `bench_client URL CA.pem JWKS.json full|revalidate N`: `full` with the cache off (every
//! call fetches the whole card); `revalidate` with a cache folder that holds the card, so
//! every call is a conditional request answered `304`.
#![allow(clippy::unwrap_used, clippy::panic)]

use a2a_card_fetch::{verify_remote, CacheOutcome, FetchOptions, RemoteOptions, Roots};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [url, ca, jwks, mode, n] = &args[..] else {
        panic!("usage: bench_client URL CA.pem JWKS.json full|revalidate N");
    };
    let n: usize = n.parse().unwrap();
    let trust =
        a2a_card::TrustStore::from_json(&std::fs::read_to_string(jwks).unwrap(), "jwks.json").unwrap();
    let cache = std::env::temp_dir().join(format!("a2a-bench-client-{}", std::process::id()));
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
    let remote = RemoteOptions::default();
    let once = || {
        let started = Instant::now();
        let r = verify_remote(url, &trust, &remote, &opts).unwrap();
        let took = started.elapsed();
        assert!(r.report.ok, "{}", r.report.reason);
        (took, r.cache)
    };
    for _ in 0..(n / 10).max(5) {
        once();
    }
    let mut times: Vec<f64> = (0..n)
        .map(|_| {
            let (took, outcome) = once();
            assert_eq!(outcome, want);
            took.as_secs_f64() * 1e6
        })
        .collect();
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
