//! `signature::DeferredVerification`, the verification whose signature checks are answered
//! from outside (the npm package's WebCrypto path): against `verify_card_with` with a backend
//! that answers the same, over cards with one to several signatures, candidate keys that share a
//! kid, several accepted profiles, policy refusals, small check budgets and every mode. The
//! reports are equal, and the deferred verification makes exactly the checks the synchronous
//! one makes (counted), whatever the order the answers come in.
#![allow(clippy::unwrap_used)] // helpers of the tests report by panicking

use a2a_card::jose::crypto::{self as alg, BackendVerdict, SignatureBackend, SignatureCheck};
use a2a_card::jose::keys::PrivateKey;
use a2a_card::signature::{verify_card_with, CheckId, DeferredVerification, Mode, TrustedKey};
use a2a_card::{
    verify_card, Algorithm, Error, ErrorCode, Profile, Report, SignOptions, TrustStore, VerifyOptions,
};
use a2a_card_testkit::data::{b64url, testvectors_dir, unb64url};
use std::cell::Cell;

mod support;

/// How the primitive answers, the same function for the backend and the deferred answers.
#[derive(Clone, Copy, Debug)]
enum Crypto {
    /// The library's own check, made from outside.
    Ring,
    /// Declines: the library makes the check.
    Declines,
    /// Says every signature is invalid.
    Invalid,
    /// Says every signature is valid (a backend that lies: the report follows it either way).
    Valid,
    /// Fails, as a host whose crypto throws.
    Fails,
}

impl Crypto {
    fn answer(self, c: &SignatureCheck<'_>) -> Result<BackendVerdict, Error> {
        match self {
            Crypto::Ring => Ok(match alg::verify(c.alg, c.key, c.message, c.signature) {
                Ok(()) => BackendVerdict::Valid,
                Err(_) => BackendVerdict::Invalid,
            }),
            Crypto::Declines => Ok(BackendVerdict::Declined),
            Crypto::Invalid => Ok(BackendVerdict::Invalid),
            Crypto::Valid => Ok(BackendVerdict::Valid),
            Crypto::Fails => Err(Error::new(
                ErrorCode::InvalidKey,
                "the host could not import the key",
            )),
        }
    }
}

/// A backend answering as `crypto` does, counting its calls.
struct Counted {
    crypto: Crypto,
    calls: Cell<usize>,
}

impl SignatureBackend for Counted {
    fn verify(&self, c: &SignatureCheck<'_>) -> Result<BackendVerdict, Error> {
        self.calls.set(self.calls.get() + 1);
        self.crypto.answer(c)
    }
}

/// The deferred verification answered by `crypto`, round by round; `reverse` answers each
/// round's checks in the opposite order. Returns the report, the checks made and the rounds.
fn deferred(
    card: &[u8],
    trust: &TrustStore,
    opts: &VerifyOptions,
    crypto: Crypto,
    reverse: bool,
) -> (Report, usize, usize) {
    let mut v = DeferredVerification::new(card.to_vec(), trust, opts).unwrap();
    let (mut made, mut rounds) = (0, 0);
    loop {
        let mut answers: Vec<(CheckId, Result<BackendVerdict, Error>)> = Vec::new();
        let n = v
            .pending(|id, check| answers.push((id, crypto.answer(check))))
            .unwrap();
        assert_eq!(n, answers.len());
        if n == 0 {
            break;
        }
        rounds += 1;
        assert!(rounds <= 1000, "no progress");
        made += n;
        if reverse {
            answers.reverse();
        }
        for (id, answer) in answers {
            v.answer(id, answer).unwrap();
        }
        // Asking again before answering names nothing new: the answers were all given.
    }
    (v.finish().unwrap(), made, rounds)
}

/// A fresh key whose kid is `kid`.
fn key(alg: Algorithm, kid: &str) -> PrivateKey {
    PrivateKey::generate(alg).unwrap().with_kid(kid)
}

fn sample() -> Vec<u8> {
    std::fs::read(testvectors_dir().join("cards/sample-8.5-unsigned.json")).unwrap()
}

fn sign(card: &[u8], key: &PrivateKey, kid: &str, profile: Profile, also: &[Profile]) -> Vec<u8> {
    // The sample's two A2A 0.3 members stay unsigned, knowingly.
    let mut o = SignOptions {
        kid: Some(kid.into()),
        also_profiles: also.to_vec(),
        allow_unsigned: true,
        ..SignOptions::default()
    };
    o.canonicalize.profile = profile;
    // Signed as other signers sign (no declaration of the bytes): the walk tries every accepted
    // profile, which is what these tests follow.
    support::undeclared(card, key, &o)
}

/// The card with signature `i` flipped in one bit.
fn tampered(card: &[u8], i: usize) -> Vec<u8> {
    let mut v: serde_json::Value = serde_json::from_slice(card).unwrap();
    let mut sig = unb64url(v["signatures"][i]["signature"].as_str().unwrap());
    sig[3] ^= 0x10;
    v["signatures"][i]["signature"] = b64url(&sig).into();
    serde_json::to_vec(&v).unwrap()
}

/// The card with signature `i` one byte short (refused before the primitive).
fn short(card: &[u8], i: usize) -> Vec<u8> {
    let mut v: serde_json::Value = serde_json::from_slice(card).unwrap();
    let sig = unb64url(v["signatures"][i]["signature"].as_str().unwrap());
    v["signatures"][i]["signature"] = b64url(&sig[1..]).into();
    serde_json::to_vec(&v).unwrap()
}

/// Appends the signatures of `other` (same card) to `card`.
fn merged(card: &[u8], other: &[u8]) -> Vec<u8> {
    let mut v: serde_json::Value = serde_json::from_slice(card).unwrap();
    let o: serde_json::Value = serde_json::from_slice(other).unwrap();
    let list = v["signatures"].as_array_mut().unwrap();
    list.extend(o["signatures"].as_array().unwrap().iter().cloned());
    serde_json::to_vec(&v).unwrap()
}

struct Case {
    name: String,
    card: Vec<u8>,
}

#[test]
fn the_deferred_verification_gives_the_synchronous_report_with_the_same_checks() {
    let base = sample();
    let a = key(Algorithm::ES256, "shared");
    let b = key(Algorithm::ES256, "shared");
    let e = key(Algorithm::EdDSA, "ed");
    let stranger = key(Algorithm::ES256, "stranger");

    let by_a = sign(&base, &a, "shared", Profile::Spec, &[]);
    let by_b = sign(&base, &b, "shared", Profile::Spec, &[]);
    let by_a_prune = sign(&base, &a, "shared", Profile::PruneEmpty, &[]);
    let by_e_two = sign(&base, &e, "ed", Profile::Spec, &[Profile::PruneEmpty]);
    let by_stranger = sign(&base, &stranger, "stranger", Profile::Spec, &[]);
    let by_stranger_shared = sign(
        &base,
        &stranger.clone().with_kid("shared"),
        "shared",
        Profile::Spec,
        &[],
    );
    let mut cases = vec![
        Case {
            name: "unsigned".into(),
            card: base.clone(),
        },
        Case {
            name: "one signature, first candidate".into(),
            card: by_a.clone(),
        },
        Case {
            name: "one signature, second candidate".into(),
            card: by_b.clone(),
        },
        Case {
            name: "prune-empty signature".into(),
            card: by_a_prune.clone(),
        },
        Case {
            name: "tampered".into(),
            card: tampered(&by_a, 0),
        },
        Case {
            name: "one byte short".into(),
            card: short(&by_a, 0),
        },
        Case {
            name: "untrusted kid".into(),
            card: by_stranger.clone(),
        },
        Case {
            name: "untrusted key, trusted kid".into(),
            card: by_stranger_shared.clone(),
        },
        Case {
            name: "EdDSA, spec and prune-empty".into(),
            card: by_e_two.clone(),
        },
        Case {
            name: "EdDSA, the first tampered".into(),
            card: tampered(&by_e_two, 0),
        },
    ];
    // Several signatures: good and bad mixed, in both orders.
    let many = [
        ("a then b", merged(&by_a, &by_b)),
        ("bad a then b", merged(&tampered(&by_a, 0), &by_b)),
        (
            "stranger then a-prune then b",
            merged(&merged(&by_stranger_shared, &by_a_prune), &by_b),
        ),
        (
            "ed two then a then bad b",
            merged(&merged(&by_e_two, &by_a), &tampered(&by_b, 0)),
        ),
        (
            "short then stranger then a",
            merged(&merged(&short(&by_b, 0), &by_stranger), &by_a),
        ),
    ];
    for (name, card) in many {
        cases.push(Case {
            name: name.into(),
            card,
        });
    }

    // Trust: a and b share a kid (two candidates); e; a revoked copy of b's key under another
    // kid binds b too in some stores.
    let plain = {
        let mut t = TrustStore::new();
        t.pin(a.public().clone(), "a.json");
        t.pin(b.public().clone(), "b.json");
        t.pin(e.public().clone(), "e.json");
        t
    };
    let b_revoked = {
        let mut t = plain.clone();
        let mut revoked = TrustedKey::new(b.public().clone(), "revocations.json");
        revoked.revoked = true;
        t.add(revoked);
        t
    };
    let es_only = {
        let mut t = TrustStore::new();
        let mut k = TrustedKey::new(a.public().clone(), "a.json");
        k.algorithms = Some(vec![Algorithm::ES384]);
        t.add(k);
        t.pin(b.public().clone(), "b.json");
        t.pin(e.public().clone(), "e.json");
        t
    };
    let stores = [
        ("plain", plain),
        ("b revoked", b_revoked),
        ("a limited to ES384", es_only),
    ];

    let profile_sets = [
        vec![Profile::Spec],
        vec![Profile::PruneEmpty],
        vec![Profile::Spec, Profile::ServedAsIs, Profile::PruneEmpty],
        vec![Profile::PruneEmpty, Profile::Spec],
    ];
    let mut compared = 0;
    let mut multi_round = 0;
    let mut budget_hit = 0;
    for case in &cases {
        for (store_name, trust) in &stores {
            for profiles in &profile_sets {
                for mode in [Mode::Require, Mode::All, Mode::IfPresent] {
                    for budget in [1, 2, 3, 5, 64] {
                        let opts = VerifyOptions {
                            profiles: profiles.clone(),
                            mode,
                            max_signature_checks: budget,
                            ..VerifyOptions::default()
                        };
                        for crypto in [
                            Crypto::Ring,
                            Crypto::Declines,
                            Crypto::Invalid,
                            Crypto::Valid,
                            Crypto::Fails,
                        ] {
                            let what = format!(
                                "{}, {store_name}, {profiles:?}, {mode:?}, budget {budget}, {crypto:?}",
                                case.name
                            );
                            let backend = Counted {
                                crypto,
                                calls: Cell::new(0),
                            };
                            let sync = verify_card_with(&case.card, trust, &opts, Some(&backend)).unwrap();
                            // The text form written straight from the report is the value's.
                            assert_eq!(
                                sync.to_json_pretty(),
                                serde_json::to_vec_pretty(&sync.to_json()).unwrap(),
                                "{what}: pretty text"
                            );
                            for reverse in [false, true] {
                                let (report, made, rounds) =
                                    deferred(&case.card, trust, &opts, crypto, reverse);
                                assert_eq!(report, sync, "{what}");
                                assert_eq!(report.to_json(), sync.to_json(), "{what}");
                                assert_eq!(made, backend.calls.get(), "{what}: checks made");
                                if rounds > 1 {
                                    multi_round += 1;
                                }
                                compared += 1;
                            }
                            backend.calls.set(0);
                            if sync
                                .signatures
                                .iter()
                                .any(|s| s.verdict.code == "too-many-checks")
                            {
                                budget_hit += 1;
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(compared > 5000, "{compared}");
    assert!(
        multi_round > 100,
        "{multi_round} comparisons took more than one round"
    );
    assert!(budget_hit > 100, "{budget_hit} comparisons hit the check budget");
}

#[test]
fn unanswered_checks_are_made_by_the_library_and_answers_may_come_late() {
    let key = key(Algorithm::ES256, "k");
    // The empty REQUIRED description is signed under spec, not under prune-empty: two
    // signatures over different bytes.
    let card = sign(
        br#"{"name":"A","description":"","version":"1","skills":[]}"#,
        &key,
        "k",
        Profile::Spec,
        &[Profile::PruneEmpty],
    );
    assert_eq!(
        serde_json::from_slice::<serde_json::Value>(&card).unwrap()["signatures"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let mut trust = TrustStore::new();
    trust.pin(key.public().clone(), "k.json");
    let opts = VerifyOptions {
        profiles: vec![Profile::PruneEmpty, Profile::Spec],
        ..VerifyOptions::default()
    };
    let expected = verify_card(&card, &trust, &opts).unwrap();
    assert!(expected.ok);

    // finish() without a single answer: the library's own checks.
    let v = DeferredVerification::new(card.clone(), &trust, &opts).unwrap();
    assert_eq!(v.finish().unwrap(), expected);

    // pending() names the same checks until they are answered.
    let mut v = DeferredVerification::new(card.clone(), &trust, &opts).unwrap();
    let mut first = Vec::new();
    assert_eq!(
        v.pending(|id, _| first.push(id)).unwrap(),
        2,
        "one check per signature"
    );
    let mut again = Vec::new();
    v.pending(|id, _| again.push(id)).unwrap();
    assert_eq!(first, again);
    // One answered (declined: the library checks it), the other left to finish().
    v.answer(first[1], Ok(BackendVerdict::Declined)).unwrap();
    let mut left = Vec::new();
    v.pending(|id, _| left.push(id)).unwrap();
    assert_eq!(left, vec![first[0]]);
    assert_eq!(v.finish().unwrap(), expected);

    // A wrong answer is the verdict, as a lying backend's would be.
    let mut v = DeferredVerification::new(card.clone(), &trust, &opts).unwrap();
    let mut ids = Vec::new();
    v.pending(|id, _| ids.push(id)).unwrap();
    for id in &ids {
        v.answer(*id, Ok(BackendVerdict::Invalid)).unwrap();
    }
    // Both signatures failed under prune-empty: the walk now needs them under spec.
    let mut next = Vec::new();
    v.pending(|id, check| next.push((id, check.message.to_vec())))
        .unwrap();
    assert_eq!(next.len(), 2);
    assert!(next.iter().all(|(id, _)| !ids.contains(id)));
    for (id, _) in &next {
        v.answer(*id, Ok(BackendVerdict::Invalid)).unwrap();
    }
    assert_eq!(v.pending(|_, _| {}).unwrap(), 0);
    let report = v.finish().unwrap();
    assert!(!report.ok);
    assert_eq!(report.signatures[0].verdict.code, "signature-invalid");
    assert!(
        report.signatures[0].verdict.message.contains("prune-empty, spec"),
        "{report:?}"
    );
}

#[test]
fn a_failed_answer_is_the_verdict_at_the_signature_and_foreign_ids_are_refused() {
    let key = key(Algorithm::EdDSA, "k");
    let card = sign(&sample(), &key, "k", Profile::Spec, &[]);
    let mut trust = TrustStore::new();
    trust.pin(key.public().clone(), "k.json");
    let opts = VerifyOptions::default();
    let mut v = DeferredVerification::new(card, &trust, &opts).unwrap();
    let mut ids = Vec::new();
    v.pending(|id, check| {
        assert_eq!(check.alg, Algorithm::EdDSA);
        assert_eq!(check.signature.len(), 64);
        ids.push(id)
    })
    .unwrap();
    let foreign = DeferredVerification::new(sample(), &trust, &opts).unwrap();
    let err = {
        let mut foreign = foreign;
        foreign.answer(ids[0], Ok(BackendVerdict::Valid)).unwrap_err()
    };
    assert_eq!(err.code(), ErrorCode::Usage);
    assert!(
        err.message().contains("not a check of this verification"),
        "{err}"
    );
    v.answer(
        ids[0],
        Err(Error::new(ErrorCode::InvalidKey, "WebCrypto refused the key")),
    )
    .unwrap();
    let report = v.finish().unwrap();
    assert!(!report.ok);
    let verdict = &report.signatures[0].verdict;
    assert_eq!(verdict.code, "invalid-key");
    assert_eq!(verdict.message, "WebCrypto refused the key");
    assert_eq!(verdict.pointer.as_deref(), Some("/signatures/0/signature"));
}

#[test]
fn the_card_is_refused_at_the_same_point_as_by_the_synchronous_verifier() {
    let trust = TrustStore::new();
    let opts = VerifyOptions::default();
    for card in [
        &b"[1]"[..],
        br#"{"name":"a","name":"b"}"#,
        br#"{"name":"a","signatures":{}}"#,
        br#"{"name":"a","skills":"x"}"#,
        b"",
    ] {
        let sync = verify_card(card, &trust, &opts).unwrap_err();
        let deferred = DeferredVerification::new(card.to_vec(), &trust, &opts).unwrap_err();
        assert_eq!(sync, deferred, "{}", String::from_utf8_lossy(card));
    }
}
