//! A fixed number of `verify_card` calls beside as many raw signature checks of the same JWS
//! signing input (ring), for counting instructions with callgrind (issue 31). Each loop is a
//! function of its own, so one run gives both counts:
//!
//! ```text
//! cargo build --release -p a2a-card --example verify_count
//! valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.out \
//!   --toggle-collect='verify_count::verify_loop' --toggle-collect='verify_count::raw_loop' \
//!   target/release/examples/verify_count ES256 sample 200
//! callgrind_annotate --inclusive=yes /tmp/cg.out | grep -E 'verify_loop|raw_loop'
//! ```
//!
//! Arguments: the algorithm (`ES256` or `EdDSA`), the card (`sample` for the A2A v1.0 section
//! 8.5 sample, a number of skills for a generated card, `benches/support`, or the path of a card
//! file, such as the cards `scripts/bench-peers/gen.py` writes) and the number of calls of each
//! loop. It prints the card's size and checks every verdict, then each loop's time per call and
//! minor page faults per call (Linux; timings are meaningless under callgrind).

#![allow(clippy::panic, clippy::unwrap_used, clippy::print_stdout)]

#[path = "../benches/support/mod.rs"]
mod support;

use a2a_card::{sign_card, verify_card, Algorithm, PrivateKey, SignOptions, TrustStore, VerifyOptions};
use std::hint::black_box;
use std::time::{Duration, Instant};
use support::raw::RawKey;

#[inline(never)]
fn verify_loop(n: usize, signed: &[u8], trust: &TrustStore) {
    let options = VerifyOptions::default();
    for _ in 0..n {
        let report = verify_card(black_box(signed), trust, &options).unwrap();
        assert!(report.ok);
    }
}

#[inline(never)]
fn raw_loop(n: usize, key: &RawKey, input: &[u8], sig: &[u8]) {
    for _ in 0..n {
        assert!(key.verify(black_box(input), black_box(sig)));
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, alg, card, n] = args.as_slice() else {
        panic!("usage: verify_count ES256|EdDSA sample|SKILLS CALLS");
    };
    let alg = match alg.as_str() {
        "ES256" => Algorithm::ES256,
        "EdDSA" => Algorithm::EdDSA,
        other => panic!("unknown algorithm {other:?}"),
    };
    let card = support::card_arg(card);
    let n: usize = n.parse().unwrap();
    let key = PrivateKey::generate(alg).unwrap();
    let mut trust = TrustStore::new();
    trust.pin(key.public().clone(), "count");
    let options = SignOptions {
        alg: Some(alg),
        allow_unsigned: true,
        ..Default::default()
    };
    let signed = sign_card(&card, &key, &options).unwrap();
    let input = a2a_card::jose::header::signing_input(&signed.protected, &signed.canonical.bytes);
    let sig = a2a_card_testkit::data::unb64url(&signed.signature);
    // ring's own key object of the same key.
    let raw = RawKey::of(alg, &key).unwrap();
    let (verify_time, verify_faults) = timed(|| verify_loop(n, &signed.card, &trust));
    let (raw_time, raw_faults) = timed(|| raw_loop(n, &raw, &input, &sig));
    println!("{} bytes, {n} calls each", card.len());
    let per_call = |t: Duration| t.as_secs_f64() * 1e6 / n as f64;
    let faults = |f: Option<u64>| {
        f.map_or_else(
            || "page faults not known".to_string(),
            |f| format!("{:.1} page faults", f as f64 / n as f64),
        )
    };
    println!(
        "verify_card: {:.1} us, {} per call",
        per_call(verify_time),
        faults(verify_faults)
    );
    println!(
        "raw check:   {:.1} us, {} per call",
        per_call(raw_time),
        faults(raw_faults)
    );
}

/// How long `f` takes and how many minor page faults (memory taken back from the system) the
/// process had meanwhile, where `/proc/self/stat` tells (Linux). Outside the two loops, so
/// callgrind's counts are the loops' alone.
fn timed(f: impl FnOnce()) -> (Duration, Option<u64>) {
    let before = minor_faults();
    let start = Instant::now();
    f();
    let time = start.elapsed();
    (
        time,
        minor_faults().zip(before).map(|(after, before)| after - before),
    )
}

/// Field 10 of `/proc/self/stat` (minflt), counted from the end of the command name.
fn minor_faults() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    stat.rsplit(')').next()?.split_whitespace().nth(7)?.parse().ok()
}
