//! How long canonicalization takes, beside the floor it is measured against.
//!
//! For Agent Cards with 1, 10, 100, 1,000 and 10,000 skills (see `support/mod.rs`) this measures
//! (a) `a2a_card::canonicalize` with the default options (profile `spec`), (b) the floor:
//! `serde_json::from_slice::<serde_json::Value>` then `serde_json::to_vec` of the same bytes, and
//! (c) `a2a_card::jcs` (plain RFC 8785, no presence rules).
//!
//! `cargo bench -p a2a-card --bench canonicalize` runs criterion and then, in the same process,
//! its own interleaved timing loop, and prints a table: size, canonicalize time, floor time, their
//! ratio, and how the time grows from 1,000 to 10,000 skills. The targets it reports on are a
//! ratio of at most 2.5 at every size and at most 12x growth from 1,000 to 10,000 skills.
//! A second table times the phases of `canonicalize` apart (strict read, presence rules and
//! writer, freeing the read document), per input byte, to show which one grows faster than the input.
//! The machine's load moves every number; the ratios are measured side by side and move less.
//!
//! The phase table also times what verification adds to the canonical bytes: their BASE64URL
//! encoding and the SHA-256 of that signing input (ring), which every signature check pays.
//! With `A2A_BENCH_CARDS=DIR` the tables time the `*.json` cards of DIR (for example the cards
//! `scripts/bench-peers.sh` gives every implementation) after the generated ones; their rows are
//! labelled by file name and left out of the growth line.
//!
//! Under `cargo test` (no `--bench` argument) criterion runs each benchmark once and the
//! tables are skipped; so they are under `--profile-time` (for a profiler) and `--list`.
//! The floor's serde_json is built with `float_roundtrip` (a feature serde_json_canonicalizer,
//! a dev-dependency, turns on), which costs it a little when reading numbers.

#![allow(clippy::panic)]

mod support;

use criterion::{black_box, BenchmarkId, Criterion, SamplingMode, Throughput};
use std::time::{Duration, Instant};
use support::timing::{fmt, median};

const SIZES: [usize; 5] = [1, 10, 100, 1_000, 10_000];

/// Target: canonicalize time / floor time at every size.
const RATIO_TARGET: f64 = 2.5;
/// Target: canonicalize time at 10,000 skills / at 1,000 skills.
const GROWTH_TARGET: f64 = 12.0;
/// Rounds of the summary's own timing loop (each round runs every size and function once).
const ROUNDS: usize = 31;
/// Rounds of the phase breakdown.
const PHASE_ROUNDS: usize = 15;

fn canonicalize(bytes: &[u8]) -> usize {
    let c = a2a_card::canonicalize(bytes, &Default::default()).expect("the card canonicalizes");
    c.bytes.len()
}

fn floor(bytes: &[u8]) -> usize {
    let v: serde_json::Value = serde_json::from_slice(bytes).expect("serde_json reads the card");
    serde_json::to_vec(&v).expect("serde_json writes the card").len()
}

fn jcs(bytes: &[u8]) -> usize {
    a2a_card::jcs(bytes).expect("the card is I-JSON").len()
}

/// Checks that every benchmarked call succeeds on the generated cards and does what it should, so
/// no benchmark measures an error path.
fn check(skills: usize, bytes: &[u8], cross_check: bool) {
    let c = a2a_card::canonicalize(bytes, &Default::default())
        .unwrap_or_else(|e| panic!("the {skills}-skill card does not canonicalize: {e}"));
    assert_eq!(
        c.unsigned,
        vec!["/x-vendor-build".to_string()],
        "only the unknown member is left unsigned"
    );
    let text = std::str::from_utf8(&c.bytes).expect("canonical bytes are UTF-8");
    assert!(!text.contains("signatures") && !text.contains("x-vendor-build"));
    // Canonical bytes are their own canonical form.
    assert_eq!(
        a2a_card::jcs(&c.bytes).expect("canonical bytes are I-JSON"),
        c.bytes
    );
    if !cross_check {
        return;
    }
    // Plain RFC 8785 of the card agrees with an independent implementation.
    let value: serde_json::Value = serde_json::from_slice(bytes).expect("serde_json reads it");
    let theirs = serde_json_canonicalizer::to_vec(&value).expect("serde_json_canonicalizer");
    assert_eq!(
        a2a_card::jcs(bytes).expect("jcs"),
        theirs,
        "jcs of the {skills}-skill card"
    );
}

fn criterion_benches(c: &mut Criterion, cards: &[(usize, Vec<u8>)]) {
    let mut group = c.benchmark_group("canonicalize");
    for (skills, bytes) in cards {
        let big = bytes.len() > 100_000;
        group
            .throughput(Throughput::Bytes(bytes.len() as u64))
            .sample_size(if big { 10 } else { 20 })
            .warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_millis(if big { 2_500 } else { 1_000 }))
            .sampling_mode(if big {
                SamplingMode::Flat
            } else {
                SamplingMode::Auto
            });
        group.bench_with_input(BenchmarkId::new("spec", skills), bytes, |b, bytes| {
            b.iter(|| canonicalize(black_box(bytes)))
        });
        group.bench_with_input(BenchmarkId::new("floor-serde_json", skills), bytes, |b, bytes| {
            b.iter(|| floor(black_box(bytes)))
        });
        group.bench_with_input(BenchmarkId::new("jcs", skills), bytes, |b, bytes| {
            b.iter(|| jcs(black_box(bytes)))
        });
    }
    group.finish();
}

/// Median time of one call of each function on each card. Every round measures every card
/// and every function in turn (a batch of calls each, sized to about 2 ms), so that load from other
/// processes falls on all of them alike, including on both sides of the growth ratio.
fn interleaved_medians(cards: &[(usize, Vec<u8>)], rounds: usize) -> Vec<[Duration; 3]> {
    let fns: [fn(&[u8]) -> usize; 3] = [canonicalize, floor, jcs];
    let iters: Vec<u32> = cards
        .iter()
        .map(|(_, bytes)| {
            let probe = Instant::now();
            black_box(floor(black_box(bytes)));
            let once = probe.elapsed().max(Duration::from_nanos(100));
            (Duration::from_millis(2).as_nanos() / once.as_nanos()).clamp(1, 10_000) as u32
        })
        .collect();
    let mut times: Vec<[Vec<Duration>; 3]> = cards.iter().map(|_| Default::default()).collect();
    for _ in 0..rounds {
        for (c, (_, bytes)) in cards.iter().enumerate() {
            for (k, f) in fns.iter().enumerate() {
                let start = Instant::now();
                for _ in 0..iters[c] {
                    black_box(f(black_box(bytes)));
                }
                times[c][k].push(start.elapsed() / iters[c]);
            }
        }
    }
    times.into_iter().map(|per_fn| per_fn.map(median)).collect()
}

/// The phases of `canonicalize` timed apart, median over rounds: the strict read
/// (`json::Doc::parse`), the presence rules and RFC 8785 writer (`canonicalize_doc`), freeing
/// the document, and what a verification adds: BASE64URL of the canonical bytes and SHA-256 of
/// the signing input.
fn phase_medians(cards: &[(usize, Vec<u8>)], rounds: usize) -> Vec<[Duration; 4]> {
    let opts = a2a_card::CanonicalizeOptions::default();
    let mut times: Vec<[Vec<Duration>; 4]> = cards.iter().map(|_| Default::default()).collect();
    for _ in 0..rounds {
        for (c, (_, bytes)) in cards.iter().enumerate() {
            let iters = (2_000_000 / bytes.len().max(1)).clamp(1, 1_000) as u32;
            let mut sum = [Duration::ZERO; 4];
            for _ in 0..iters {
                let t0 = Instant::now();
                let v = a2a_card::canonical::Doc::parse(black_box(bytes), &opts.limits).expect("reads");
                let t1 = Instant::now();
                let out = a2a_card::canonicalize_doc(black_box(&v), &opts).expect("canonicalizes");
                let t2 = Instant::now();
                drop(black_box(v));
                let t3 = Instant::now();
                let input = a2a_card::jose::header::signing_input("eyJhbGciOiJFUzI1NiJ9", &out.bytes);
                let digest = ring::digest::digest(&ring::digest::SHA256, &input);
                let t4 = Instant::now();
                black_box((out, digest));
                sum[0] += t1 - t0;
                sum[1] += t2 - t1;
                sum[2] += t3 - t2;
                sum[3] += t4 - t3;
            }
            for k in 0..4 {
                times[c][k].push(sum[k] / iters);
            }
        }
    }
    times.into_iter().map(|per| per.map(median)).collect()
}

/// How a row is labelled: the skill count, or for a card from `A2A_BENCH_CARDS` its file name.
fn label(skills: usize, names: &[String]) -> String {
    match skills.checked_sub(EXTERNAL) {
        Some(i) => names.get(i).cloned().unwrap_or_default(),
        None => skills.to_string(),
    }
}

/// Cards from `A2A_BENCH_CARDS` get keys from here up, so they never count as a skill number.
const EXTERNAL: usize = usize::MAX / 2;

fn summary(cards: &[(usize, Vec<u8>)], names: &[String]) {
    println!();
    println!("canonicalize (profile spec) vs floor (serde_json from_slice::<Value> + to_vec)");
    println!("median of {ROUNDS} interleaved rounds, same process, after criterion");
    println!(
        "{:>7} {:>10} {:>14} {:>14} {:>14} {:>7} {:>7}",
        "skills", "bytes", "canonicalize", "floor", "jcs", "ratio", "target"
    );
    let mut canon_at = std::collections::BTreeMap::new();
    let mut floor_at = std::collections::BTreeMap::new();
    let mut all_ok = true;
    let medians = interleaved_medians(cards, ROUNDS);
    for ((skills, bytes), [c, f, j]) in cards.iter().zip(medians) {
        let ratio = c.as_secs_f64() / f.as_secs_f64();
        let ok = ratio <= RATIO_TARGET;
        all_ok &= ok;
        println!(
            "{:>7} {:>10} {:>14} {:>14} {:>14} {:>6.2}x {:>7}",
            label(*skills, names),
            bytes.len(),
            fmt(c),
            fmt(f),
            fmt(j),
            ratio,
            if ok { "met" } else { "MISSED" }
        );
        canon_at.insert(*skills, c);
        floor_at.insert(*skills, f);
    }
    if let (Some(c1), Some(c10), Some(f1), Some(f10)) = (
        canon_at.get(&1_000),
        canon_at.get(&10_000),
        floor_at.get(&1_000),
        floor_at.get(&10_000),
    ) {
        let growth = c10.as_secs_f64() / c1.as_secs_f64();
        let floor_growth = f10.as_secs_f64() / f1.as_secs_f64();
        let bytes_growth = cards
            .iter()
            .find(|(s, _)| *s == 10_000)
            .zip(cards.iter().find(|(s, _)| *s == 1_000))
            .map(|((_, a), (_, b))| a.len() as f64 / b.len() as f64)
            .unwrap_or(f64::NAN);
        let ok = growth <= GROWTH_TARGET;
        all_ok &= ok;
        println!(
            "growth 10,000 vs 1,000 skills: canonicalize {growth:.2}x (target <= {GROWTH_TARGET}x: {}), floor {floor_growth:.2}x, bytes {bytes_growth:.2}x",
            if ok { "met" } else { "MISSED" }
        );
    }
    println!(
        "targets (ratio <= {RATIO_TARGET}x at every size, growth <= {GROWTH_TARGET}x): {}",
        if all_ok { "all met" } else { "NOT all met" }
    );
    println!();
    println!("where canonicalize spends its time (phases timed apart, median of {PHASE_ROUNDS} rounds)");
    println!(
        "{:>7} {:>14} {:>14} {:>14} {:>14} {:>9} {:>9} {:>9}",
        "skills", "read", "rules+write", "drop doc", "b64+sha256", "read/B", "write/B", "drop/B"
    );
    for ((skills, bytes), [r, w, d, h]) in cards.iter().zip(phase_medians(cards, PHASE_ROUNDS)) {
        let per_byte = |t: Duration| t.as_secs_f64() * 1e9 / bytes.len() as f64;
        println!(
            "{:>7} {:>14} {:>14} {:>14} {:>14} {:>7.1}ns {:>7.1}ns {:>7.1}ns",
            label(*skills, names),
            fmt(r),
            fmt(w),
            fmt(d),
            fmt(h),
            per_byte(r),
            per_byte(w),
            per_byte(d)
        );
    }
}

fn main() {
    // cargo bench passes --bench; cargo test runs this binary without it (criterion's test mode).
    // Under --profile-time (for a profiler) or --list only criterion runs.
    let args: Vec<String> = std::env::args().collect();
    let bench_mode = args.iter().any(|a| a == "--bench")
        && !args
            .iter()
            .any(|a| a.starts_with("--profile-time") || a == "--list");
    let mut cards: Vec<(usize, Vec<u8>)> = SIZES.iter().map(|&n| (n, support::card_bytes(n))).collect();
    for (skills, bytes) in &cards {
        // In a debug build (cargo test) the cross-check of the largest card would take seconds.
        check(*skills, bytes, bench_mode || *skills <= 1_000);
    }
    let mut names = Vec::new();
    if let Some(dir) = std::env::var_os("A2A_BENCH_CARDS") {
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("A2A_BENCH_CARDS {dir:?}: {e}"))
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort_by_key(|p| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0));
        for path in files {
            let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            if let Err(e) = a2a_card::canonicalize(&bytes, &Default::default()) {
                panic!("{}: does not canonicalize: {e}", path.display());
            }
            let name = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            cards.push((EXTERNAL + names.len(), bytes));
            names.push(name);
        }
    }
    let mut c = Criterion::default().configure_from_args();
    criterion_benches(&mut c, cards.get(..SIZES.len()).unwrap_or(&cards));
    c.final_summary();
    if bench_mode {
        summary(&cards, &names);
    }
}
