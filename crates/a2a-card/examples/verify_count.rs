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
//! loop. It prints the card's size and checks every verdict.

#![allow(clippy::panic, clippy::unwrap_used, clippy::print_stdout)]

#[path = "../benches/support/mod.rs"]
mod support;

use a2a_card::{sign_card, verify_card, Algorithm, PrivateKey, SignOptions, TrustStore, VerifyOptions};
use std::hint::black_box;
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
    let card = if card == "sample" {
        std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testvectors/cards/sample-8.5-unsigned.json"
        ))
        .unwrap()
    } else if let Ok(skills) = card.parse() {
        support::card_bytes(skills)
    } else {
        std::fs::read(card).unwrap()
    };
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
    verify_loop(n, &signed.card, &trust);
    raw_loop(n, &raw, &input, &sig);
    println!("{} bytes, {n} calls each", card.len());
}
