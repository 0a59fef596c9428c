//! The client of `scripts/bench-fetch.sh`: times the blocking library call
//! `a2a_card_fetch::verify_remote` of a card served on loopback, N times after a warm-up, and
//! prints one JSON line (median, p10, p90 in microseconds). It uses only the API that the
//! hand-written client of earlier versions had too, so the script builds this same file
//! (with `bench_support/`) against both and runs them side by side.
//!
//! `bench_client URL CA.pem JWKS.json full|revalidate N`: `full` with the cache off (every
//! call fetches the whole card); `revalidate` with a cache folder that holds the card, so
//! every call is a conditional request answered `304`.
#![allow(clippy::unwrap_used, clippy::panic)]

mod bench_support;

use a2a_card_fetch::{verify_remote, RemoteOptions};
use std::time::Instant;

fn main() {
    let run = bench_support::Run::from_args("bench_client");
    let remote = RemoteOptions::default();
    let once = || {
        let started = Instant::now();
        let r = verify_remote(&run.url, &run.trust, &remote, &run.opts).unwrap();
        let took = started.elapsed();
        assert!(r.report.ok, "{}", r.report.reason);
        (took, r.cache)
    };
    for _ in 0..run.warm_up() {
        once();
    }
    let times: Vec<f64> = (0..run.n)
        .map(|_| {
            let (took, outcome) = once();
            assert_eq!(outcome, run.want);
            took.as_secs_f64() * 1e6
        })
        .collect();
    run.finish(times);
}
