//! How long the worst card an attacker can write takes to verify, beside a normally signed one.
//!
//! The hostile card carries the most the default limits allow: 16 signature entries
//! (`max_signatures`), each with a protected header of exactly 4096 decoded bytes and an
//! unprotected header of exactly 4096 serialized bytes (`max_header_bytes`), a `kid` that a
//! trusted key has (so every entry passes the header rules, the policy and the key lookup and
//! reaches the cryptographic check), and a real signature by that key over other bytes (right
//! length, in range, wrong). `tests/limits.rs` checks that every entry of such a card ends in
//! `signature-invalid` with its key found, so this is what is timed.
//!
//! Measured per algorithm (EdDSA, ES256, ES384, ES512, RS256 with RSA 2048, PS512 with RSA 4096)
//! on the A2A v1.0 section 8.5 sample card, and for the slowest per-signature algorithm on
//! generated cards of 1,000 skills and of nearly the 8 MiB input limit, with the `spec` profile
//! only (the default) and with all three profiles accepted (each entry then checked up to three
//! times). Each line gives the time of `verify_card` on the hostile card, on the same card with
//! one genuine signature, their ratio, the time per hostile entry and per cryptographic check.
//!
//! `cargo bench -p a2a-card --bench hostile` runs criterion on a subset, then prints the summary
//! table (medians of interleaved rounds). Under `cargo test` each benchmark runs once on the
//! small cards and no table is printed.

#![allow(clippy::panic, clippy::unwrap_used)]

mod support;

use a2a_card::jose::crypto as alg;
use a2a_card::jose::keys::PrivateKey;
use a2a_card::Algorithm;
use a2a_card::{sign_card, verify_card, Profile, SignOptions, TrustStore, VerifyOptions};
use a2a_card_testkit::cards::{entry, with_signatures};
use a2a_card_testkit::data::{b64url, key_file};
use criterion::black_box;
use serde_json::{json, Value};
use std::time::Duration;
use support::timing::{criterion, fmt, median, per_call};

const ENTRIES: usize = 16;
const HEADER_BYTES: usize = 4096;
const ROUNDS: usize = 7;

struct Case {
    name: String,
    profiles: Vec<Profile>,
    trust: TrustStore,
    normal: Vec<u8>,
    hostile: Vec<u8>,
}

impl Case {
    fn opts(&self) -> VerifyOptions {
        VerifyOptions {
            profiles: self.profiles.clone(),
            ..Default::default()
        }
    }
    fn checks(&self) -> usize {
        ENTRIES * self.profiles.len()
    }
}

fn key_for(alg: Algorithm) -> PrivateKey {
    match alg {
        Algorithm::RS256 => PrivateKey::from_pem(&key_file("rsa2048.pem")).unwrap(),
        Algorithm::PS512 => PrivateKey::from_pem(&key_file("rsa4096.pem")).unwrap(),
        _ => PrivateKey::generate(alg).unwrap(),
    }
}

/// One hostile entry: a 4096-byte protected header naming the trusted key, a 4096-byte
/// unprotected header, and `signature` (the key's real signature over other bytes).
fn hostile_entry(alg: Algorithm, kid: &str, i: usize, signature: &str) -> Value {
    let bare = format!(r#"{{"alg":"{alg}","kid":"{kid}","typ":"JOSE","pad":"{i:02}"}}"#);
    let protected = format!(
        r#"{{"alg":"{alg}","kid":"{kid}","typ":"JOSE","pad":"{i:02}{}"}}"#,
        "p".repeat(HEADER_BYTES - bare.len())
    );
    assert_eq!(protected.len(), HEADER_BYTES);
    let unprotected = r#"{"x-pad":""}"#;
    entry(
        &b64url(protected.as_bytes()),
        signature,
        Some(json!({ "x-pad": "u".repeat(HEADER_BYTES - unprotected.len()) })),
    )
}

fn case(label: &str, card: &[u8], alg: Algorithm, key: &PrivateKey, profiles: Vec<Profile>) -> Case {
    let mut trust = TrustStore::new();
    trust.pin(key.public().clone(), "bench");
    let opts = SignOptions {
        alg: Some(alg),
        allow_unsigned: true,
        ..Default::default()
    };
    let normal = sign_card(card, key, &opts).unwrap().card;
    let value: Value = serde_json::from_slice(card).unwrap();
    let wrong = b64url(alg::sign(alg, key, b"other bytes, not this card").unwrap());
    let entries = (0..ENTRIES)
        .map(|i| hostile_entry(alg, key.kid(), i, &wrong))
        .collect();
    let hostile = with_signatures(&value, entries);
    let name = format!(
        "{alg}/{label}/{}",
        if profiles.len() == 1 { "spec" } else { "3 profiles" }
    );
    let c = Case {
        name,
        profiles,
        trust,
        normal,
        hostile,
    };
    // What is timed is what it claims to be: every hostile entry reaches the crypto check.
    let r = verify_card(&c.hostile, &c.trust, &c.opts()).unwrap();
    assert!(!r.ok, "{}", c.name);
    assert!(
        r.signatures
            .iter()
            .all(|s| s.verdict.code == "signature-invalid" && s.key.is_some()),
        "{}: {:?}",
        c.name,
        r.signatures.first()
    );
    assert!(
        verify_card(&c.normal, &c.trust, &c.opts()).unwrap().ok,
        "{}",
        c.name
    );
    c
}

/// The largest generated card that, with the hostile entries added, stays under the 8 MiB limit.
fn near_limit_card() -> (usize, Vec<u8>) {
    let limit = a2a_card::canonical::DEFAULT_MAX_INPUT_BYTES;
    let room = ENTRIES * (HEADER_BYTES * 4 / 3 + HEADER_BYTES + 1024);
    let probe = support::card_bytes(1_000).len() - support::card_bytes(0).len();
    let mut n = (limit - room - support::card_bytes(0).len()) * 1_000 / probe;
    loop {
        let card = support::card_bytes(n);
        if card.len() + room <= limit {
            return (n, card);
        }
        n -= n / 50;
    }
}

fn cases(full: bool) -> Vec<Case> {
    let sample = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testvectors/cards/sample-8.5-unsigned.json"
    ))
    .expect("testvectors/cards/sample-8.5-unsigned.json");
    let algs = [
        Algorithm::EdDSA,
        Algorithm::ES256,
        Algorithm::ES384,
        Algorithm::ES512,
        Algorithm::RS256,
        Algorithm::PS512,
    ];
    let spec = || vec![Profile::Spec];
    let all = || vec![Profile::Spec, Profile::PruneEmpty, Profile::ServedAsIs];
    let mut out = Vec::new();
    for alg in algs.into_iter().filter(|a| a.available()) {
        let key = key_for(alg);
        out.push(case("8.5 sample", &sample, alg, &key, spec()));
        out.push(case("8.5 sample", &sample, alg, &key, all()));
    }
    if full {
        // The slowest check per signature among the algorithms above decides the bound.
        let worst = out
            .iter()
            .filter(|c| c.profiles.len() == 1)
            .max_by_key(|c| per_call(Duration::from_millis(50), || run(c, true)))
            .map(|c| c.name.split('/').next().unwrap().to_string())
            .unwrap();
        let alg = Algorithm::from_name(&worst).unwrap();
        let key = key_for(alg);
        let thousand = support::card_bytes(1_000);
        let (n, big) = near_limit_card();
        let big_label = format!("{n} skills, {:.1} MiB", big.len() as f64 / (1 << 20) as f64);
        for (label, card) in [("1000 skills".to_string(), &thousand), (big_label, &big)] {
            out.push(case(&label, card, alg, &key, spec()));
            out.push(case(&label, card, alg, &key, all()));
        }
    }
    out
}

fn run(case: &Case, hostile: bool) -> bool {
    let card = if hostile { &case.hostile } else { &case.normal };
    verify_card(black_box(card), &case.trust, &case.opts())
        .unwrap()
        .ok
}

fn summary(cases: &[Case]) {
    println!(
        "\nhostile card: {ENTRIES} entries x ({HEADER_BYTES}-byte protected + {HEADER_BYTES}-byte unprotected header, trusted kid, wrong signature); medians of {ROUNDS} interleaved rounds"
    );
    println!(
        "{:<44} {:>10} {:>10} {:>11} {:>8} {:>11} {:>11}",
        "algorithm/card/profiles", "card", "normal", "hostile", "ratio", "per entry", "per check"
    );
    let mut worst = Duration::ZERO;
    let mut worst_name = "";
    for case in cases {
        let budget = Duration::from_millis(if case.hostile.len() > 1 << 20 { 400 } else { 40 });
        let (mut n, mut h) = (Vec::new(), Vec::new());
        for _ in 0..ROUNDS {
            n.push(per_call(budget, || run(case, false)));
            h.push(per_call(budget, || run(case, true)));
        }
        let (n, h) = (median(n), median(h));
        if h > worst {
            worst = h;
            worst_name = &case.name;
        }
        println!(
            "{:<44} {:>10} {:>10} {:>11} {:>7.1}x {:>11} {:>11}",
            case.name,
            format!("{} KiB", case.hostile.len() / 1024),
            fmt(n),
            fmt(h),
            h.as_secs_f64() / n.as_secs_f64(),
            fmt(h / ENTRIES as u32),
            fmt(h / case.checks() as u32),
        );
    }
    println!("slowest hostile card: {} ({worst_name})", fmt(worst));
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let bench_mode = args.iter().any(|a| a == "--bench");
    let listing = args.iter().any(|a| a == "--list");
    let cases = cases(bench_mode && !listing);
    let mut c = criterion(Duration::from_millis(300), Duration::from_secs(1));
    for case in &cases {
        // Criterion on the spec-only cases; the summary covers all of them.
        if case.profiles.len() != 1 {
            continue;
        }
        c.bench_function(&format!("hostile/{}", case.name), |b| b.iter(|| run(case, true)));
        c.bench_function(&format!("normal/{}", case.name), |b| b.iter(|| run(case, false)));
    }
    c.final_summary();
    if bench_mode && !listing && !args.iter().any(|a| a == "--profile-time") {
        summary(&cases);
    }
}
