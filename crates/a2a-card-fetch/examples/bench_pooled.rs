//! What a long-running async program sees (`scripts/bench-fetch.sh`, this tree only): one
//! `a2a_card_fetch::Fetcher` kept for the whole run on one tokio runtime, so its connection
//! (HTTP/1.1 keep-alive or HTTP/2) and TLS session serve every call. Times
//! `Fetcher::verify_remote` N times after a warm-up and prints one JSON line (median, p10,
//! p90 in microseconds).
//!
//! `bench_pooled URL CA.pem JWKS.json full|revalidate|memory N`: as `bench_client`, and
//! `memory`: the fetcher's memory layer (`FetchOptions::memory_cache`) holds the card, with no
//! cache folder, so every call is a conditional request answered `304` from memory.
#![allow(clippy::unwrap_used, clippy::panic)]

mod bench_support;

use a2a_card_fetch::{Fetcher, RemoteOptions};
use std::time::Instant;

fn main() {
    let mut run = bench_support::Run::from_args("bench_pooled");
    run.opts.memory_cache = run.mode == "memory";
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let remote = RemoteOptions::default();
    let times = rt.block_on(async {
        let fetcher = Fetcher::new(&run.opts).unwrap();
        let once = || async {
            let started = Instant::now();
            let r = fetcher
                .verify_remote(&run.url, &run.trust, &remote)
                .await
                .unwrap();
            let took = started.elapsed();
            assert!(r.report.ok, "{}", r.report.reason);
            (took, r.cache)
        };
        for _ in 0..run.warm_up() {
            once().await;
        }
        let mut times = Vec::with_capacity(run.n);
        for _ in 0..run.n {
            let (took, outcome) = once().await;
            assert_eq!(outcome, run.want);
            times.push(took.as_secs_f64() * 1e6);
        }
        times
    });
    run.finish(times);
}
