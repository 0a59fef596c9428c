//! Verifying the A2A v1.0 section 8.5 sample signed with an `x5c` chain (ES256 leaf issued by a
//! P-256 CA that is the verifier's anchor) beside the same card, same key, verified with the
//! key pinned: criterion for each, then medians of interleaved rounds and their ratio (the
//! target is at most 2x: one more ECDSA verification, the leaf's certificate, plus the path).
//!
//! `cargo bench -p a2a-card --bench x5c`; with `X5C_PARTS=1`, the time of the parts the chain
//! adds that are the library's own (certificate summary, the leaf's key read, an anchor read).

#![allow(missing_docs, clippy::unwrap_used)]

use a2a_card::signature::TrustAnchor;
use a2a_card::{
    sign_card, verify_card, CanonicalizeOptions, PrivateKey, SignOptions, TrustStore, UnknownMembers,
    VerifyOptions,
};
use a2a_card_testkit::pki::{Cert, Spec};
use criterion::{black_box, Criterion};
use std::time::{Duration, Instant};

struct Setup {
    x5c_card: Vec<u8>,
    pinned_card: Vec<u8>,
    anchors: TrustStore,
    pinned: TrustStore,
    opts: VerifyOptions,
    leaf_der: Vec<u8>,
    ca_der: Vec<u8>,
}

fn setup() -> Setup {
    let card =
        std::fs::read(a2a_card_testkit::data::testvectors_dir().join("cards/sample-8.5-unsigned.json"))
            .unwrap();
    let ca = Cert::root("Bench CA");
    let leaf = ca.issue(&Spec::leaf("agent").dns("agent.example.com"));
    let key = PrivateKey::from_pem(&leaf.key_pem).unwrap();
    let base = SignOptions {
        canonicalize: CanonicalizeOptions {
            unknown: UnknownMembers::Exclude,
            ..Default::default()
        },
        allow_unsigned: true,
        ..SignOptions::default()
    };
    let x5c = SignOptions {
        x5c: vec![leaf.der.clone()],
        ..base.clone()
    };
    let mut anchors = TrustStore::new();
    anchors.add_anchor(TrustAnchor::from_der(ca.der.clone(), "ca.pem").unwrap());
    let mut pinned = TrustStore::new();
    pinned.pin(key.public().clone(), "pinned");
    let s = Setup {
        x5c_card: sign_card(&card, &key, &x5c).unwrap().card,
        pinned_card: sign_card(&card, &key, &base).unwrap().card,
        anchors,
        pinned,
        opts: VerifyOptions {
            origin: Some("https://agent.example.com".parse().unwrap()),
            ..VerifyOptions::default()
        },
        leaf_der: leaf.der.clone(),
        ca_der: ca.der.clone(),
    };
    assert!(verify_card(&s.x5c_card, &s.anchors, &s.opts).unwrap().ok);
    assert!(verify_card(&s.pinned_card, &s.pinned, &s.opts).unwrap().ok);
    s
}

fn x5c(s: &Setup) -> bool {
    verify_card(&s.x5c_card, &s.anchors, &s.opts).unwrap().ok
}

fn pinned(s: &Setup) -> bool {
    verify_card(&s.pinned_card, &s.pinned, &s.opts).unwrap().ok
}

fn per_call(budget: Duration, mut f: impl FnMut()) -> Duration {
    let start = Instant::now();
    let mut n = 0u32;
    while start.elapsed() < budget {
        f();
        n += 1;
    }
    start.elapsed() / n.max(1)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn parts(s: &Setup) {
    let leaf = a2a_card::jose::x509::summary(&s.leaf_der).unwrap();
    let t = per_call(Duration::from_millis(300), || {
        black_box(a2a_card::jose::x509::summary(black_box(&s.leaf_der)).unwrap());
    });
    println!("summary {:.1} us", t.as_secs_f64() * 1e6);
    let t = per_call(Duration::from_millis(300), || {
        black_box(a2a_card::PublicKey::from_spki_der(black_box(&leaf.spki)).unwrap());
    });
    println!("from_spki_der {:.1} us", t.as_secs_f64() * 1e6);
    let k = a2a_card::PublicKey::from_spki_der(&leaf.spki).unwrap();
    let t = per_call(Duration::from_millis(300), || {
        black_box(black_box(&k).thumbprint());
    });
    println!("thumbprint {:.1} us", t.as_secs_f64() * 1e6);
    let t = per_call(Duration::from_millis(300), || {
        black_box(TrustAnchor::from_der(black_box(s.ca_der.clone()), "x").unwrap());
    });
    println!("anchor {:.1} us", t.as_secs_f64() * 1e6);
}

fn main() {
    let s = setup();
    if std::env::var_os("X5C_PARTS").is_some() {
        parts(&s);
        return;
    }
    let bench_mode = std::env::args().any(|a| a == "--bench");
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .configure_from_args();
    c.bench_function("verify/sample-8.5/x5c-chain", |b| b.iter(|| x5c(black_box(&s))));
    c.bench_function("verify/sample-8.5/pinned-key", |b| {
        b.iter(|| pinned(black_box(&s)))
    });
    c.final_summary();
    if bench_mode {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for _ in 0..15 {
            a.push(per_call(Duration::from_millis(40), || {
                black_box(x5c(&s));
            }));
            b.push(per_call(Duration::from_millis(40), || {
                black_box(pinned(&s));
            }));
        }
        let (a, b) = (median(a), median(b));
        println!(
            "\nverify sample-8.5, medians of 15 interleaved rounds: x5c chain {:.1} us, pinned key {:.1} us, ratio {:.2} (target <= 2.00)",
            a.as_secs_f64() * 1e6,
            b.as_secs_f64() * 1e6,
            a.as_secs_f64() / b.as_secs_f64()
        );
    }
}
