//! The field's baseline for the part of verify outside the signature check (issue 31): a fixed
//! number of calls of serde_json's reader (`from_slice` into a `Value`), of serde_json plus
//! serde_json_canonicalizer (RFC 8785 of that value), of this crate's reader (`Doc::parse`) and
//! of this crate's canonicalization under the v1.0 presence rules (reading included), each in a
//! function of its own, over the same signed card, for counting instructions with callgrind:
//!
//! ```text
//! cargo build --release -p a2a-card --example read_count
//! valgrind --tool=callgrind --callgrind-out-file=/tmp/rc.out \
//!   --toggle-collect='read_count::*_loop' target/release/examples/read_count sample 200
//! callgrind_annotate --inclusive=yes /tmp/rc.out | grep -E 'read_count::.*_loop'
//! ```
//!
//! Arguments: the card (as for `verify_count`: `sample`, a number of skills, or a file) and the
//! number of calls of each loop. The card is signed first (ES256), so every reader reads what a
//! verifier reads, the `signatures` member included. It prints the signed card's size and each
//! loop's time per call (meaningless under callgrind). Every loop drops what it builds. The
//! work is not the same: serde_json_canonicalizer applies no presence rules and keeps
//! `signatures`, which the presence walk leaves out.

#![allow(clippy::panic, clippy::unwrap_used, clippy::print_stdout)]

#[path = "../benches/support/mod.rs"]
mod support;

use a2a_card::{
    canonicalize, sign_card, Algorithm, CanonicalizeOptions, Doc, Limits, PrivateKey, SignOptions,
};
use std::hint::black_box;
use std::time::Instant;

/// One loop: `n` calls over the card.
type Loop = fn(usize, &[u8]);

#[inline(never)]
fn serde_json_loop(n: usize, card: &[u8]) {
    for _ in 0..n {
        let v: serde_json::Value = serde_json::from_slice(black_box(card)).unwrap();
        black_box(&v);
    }
}

#[inline(never)]
fn serde_jcs_loop(n: usize, card: &[u8]) {
    for _ in 0..n {
        let v: serde_json::Value = serde_json::from_slice(black_box(card)).unwrap();
        black_box(serde_json_canonicalizer::to_vec(&v).unwrap());
    }
}

#[inline(never)]
fn doc_loop(n: usize, card: &[u8]) {
    let limits = Limits::default();
    for _ in 0..n {
        black_box(Doc::parse(black_box(card), &limits).unwrap());
    }
}

#[inline(never)]
fn canonicalize_loop(n: usize, card: &[u8]) {
    let options = CanonicalizeOptions::default();
    for _ in 0..n {
        black_box(canonicalize(black_box(card), &options).unwrap());
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, card, n] = args.as_slice() else {
        panic!("usage: read_count sample|SKILLS|FILE CALLS");
    };
    let card = support::card_arg(card);
    let n: usize = n.parse().unwrap();
    let key = PrivateKey::generate(Algorithm::ES256).unwrap();
    let options = SignOptions {
        alg: Some(Algorithm::ES256),
        allow_unsigned: true,
        ..Default::default()
    };
    let signed = sign_card(&card, &key, &options).unwrap();
    let card = signed.card;
    println!("{} bytes signed, {n} calls each", card.len());
    let loops: [(&str, Loop); 4] = [
        ("serde_json from_slice", serde_json_loop),
        ("serde_json + serde_json_canonicalizer", serde_jcs_loop),
        ("a2a-card Doc::parse", doc_loop),
        ("a2a-card canonicalize", canonicalize_loop),
    ];
    for (name, f) in loops {
        let start = Instant::now();
        f(n, &card);
        let us = start.elapsed().as_secs_f64() * 1e6 / n as f64;
        println!("{name}: {us:.1} us per call");
    }
}
