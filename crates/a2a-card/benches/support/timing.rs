//! The benchmarks' own timing beside criterion: a call timed over a budget, the median of
//! rounds, durations printed one way in every summary table, and the criterion settings the
//! benchmarks with a summary share.

use criterion::{black_box, Criterion};
use std::time::{Duration, Instant};

/// The median (the upper one of an even count).
pub fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Times `f` over enough iterations to take about `budget` (1 to 10,000 calls after one to
/// measure), returning the time per call. Results go through `black_box`.
pub fn per_call<R>(budget: Duration, mut f: impl FnMut() -> R) -> Duration {
    let start = Instant::now();
    black_box(f());
    let once = start.elapsed().max(Duration::from_nanos(50));
    let iters = (budget.as_nanos() / once.as_nanos()).clamp(1, 10_000) as u32;
    let start = Instant::now();
    for _ in 0..iters {
        black_box(f());
    }
    start.elapsed() / iters
}

/// A duration for the tables: `12.3 us` below a millisecond, `4.56 ms` below a second, `1.23 s`.
pub fn fmt(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us >= 1_000_000.0 {
        format!("{:.2} s", us / 1e6)
    } else if us >= 1000.0 {
        format!("{:.2} ms", us / 1000.0)
    } else {
        format!("{us:.1} us")
    }
}

/// Criterion as the command line configures it, with these warm-up and measurement times and
/// ten samples (the summary table that follows does the careful timing).
pub fn criterion(warm_up: Duration, measurement: Duration) -> Criterion {
    Criterion::default()
        .configure_from_args()
        .warm_up_time(warm_up)
        .measurement_time(measurement)
        .sample_size(10)
}
