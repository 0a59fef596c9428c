//! Fuzz target: verification never panics and never reports `valid` for a signature this target
//! did not make.
//!
//! At start-up the target signs one fixed card twice, with an Ed25519 key derived from a
//! constant seed and with a fixed P-256 test key, and builds a fixed trust store: those two keys,
//! a fixed RSA 2048 key, and a second Ed25519 key under kids whose entries are expired, revoked,
//! restricted to other algorithms or bound to an origin (a second key, because an entry that
//! limits a key binds it under every kid: the same key there would revoke the genuine one). The first input byte chooses what the
//! rest of the input is (see `Shape`) and the verification options; the input then becomes a
//! card, and `verify_card` runs on it.
//!
//! Properties checked on every input:
//! - no panic (a panic is a crash);
//! - when the report calls a signature `valid`, that entry's `protected` and `signature` are
//!   exactly one of the two genuine pairs, and the report's canonical bytes are exactly the
//!   genuine card's canonical bytes: nothing else was signed by a trusted key;
//! - the report's `ok` agrees with its verdicts and the mode.
#![no_main]

use a2a_card_testkit::cards::{entry, with_signatures};
use a2a_card_testkit::data::b64url;
use serde_json::Value;
use a2a_card::jose::keys::{PrivateKey, PublicKey};
use a2a_card::signature::trust::{TrustStore, TrustedKey};
use a2a_card::signature::{Mode, Report};
use a2a_card::{canonicalize, sign_card, verify_card, CanonicalizeOptions, Limits, Profile, SignOptions, UnknownMembers, VerifyOptions};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

/// The card the target signs: small, but with nested messages, a map, a Struct and a list.
const CARD: &str = r#"{"name":"Fuzz Agent","description":"Signed once by the fuzz target","version":"1.0.0",
"supportedInterfaces":[{"url":"https://agent.example/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
"capabilities":{"streaming":true,"extensions":[{"uri":"https://ext.example/v1","params":{"n":1.5,"deep":{"a":[1,2,{"b":null}]}}}]},
"securitySchemes":{"bearer":{"httpAuthSecurityScheme":{"scheme":"Bearer"}}},
"securityRequirements":[{"schemes":{"bearer":{"list":["read"]}}}],
"defaultInputModes":["text/plain"],"defaultOutputModes":["application/json"],
"skills":[{"id":"s1","name":"Skill","description":"Does one thing","tags":["t"]}],"x-vendor":{"k":"v"}}"#;

/// PKCS#8 v1 prefix of an Ed25519 private key; the 32-byte seed follows.
const ED25519_PKCS8_PREFIX: [u8; 16] = [
    0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
];
const ED25519_SEED: [u8; 32] = *b"a2a-card fuzz target: fixed key!";
const LIMITED_SEED: [u8; 32] = *b"a2a-card fuzz: the limited key!!";
const P256_PEM: &str = include_str!("../../crates/a2a-card/tests/data/keys/p256.pem");
const RSA_PUB_PEM: &str = include_str!("../../crates/a2a-card/tests/data/keys/rsa2048.pub.pem");

struct Fixture {
    /// The card without `signatures`, as read.
    unsigned: Value,
    /// The genuine card's canonical bytes (`spec`, unknown members excluded).
    canonical: Vec<u8>,
    /// The genuine `(protected, signature)` pairs: Ed25519 first, then P-256.
    genuine: Vec<(String, String)>,
    trust: TrustStore,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let der = [ED25519_PKCS8_PREFIX.as_slice(), ED25519_SEED.as_slice()].concat();
        let ed = PrivateKey::from_der(&der).unwrap().with_kid("fuzz-ed25519");
        let p256 = PrivateKey::from_pem(P256_PEM).unwrap().with_kid("fuzz-p256");
        let rsa = PublicKey::from_pem(RSA_PUB_PEM).unwrap().with_kid("fuzz-rsa");

        // The card's x-vendor member is left unsigned on purpose (reported, never covered).
        let opts = SignOptions { allow_unsigned: true, ..SignOptions::default() };
        let once = sign_card(CARD.as_bytes(), &ed, &opts).unwrap();
        let twice = sign_card(&once.card, &p256, &opts).unwrap();
        assert_eq!(once.canonical.bytes, twice.canonical.bytes);
        let genuine = vec![
            (once.protected.clone(), once.signature.clone()),
            (twice.protected.clone(), twice.signature.clone()),
        ];

        let mut trust = TrustStore::new();
        trust.pin(ed.public().clone(), "fuzz");
        trust.pin(p256.public().clone(), "fuzz");
        trust.pin(rsa, "fuzz");
        let limited = [ED25519_PKCS8_PREFIX.as_slice(), LIMITED_SEED.as_slice()].concat();
        let edp = PrivateKey::from_der(&limited).unwrap().public().clone();
        trust.add(TrustedKey {
            not_after: Some(1),
            ..TrustedKey::new(edp.clone().with_kid("expired"), "fuzz")
        });
        trust.add(TrustedKey {
            revoked: true,
            ..TrustedKey::new(edp.clone().with_kid("revoked"), "fuzz")
        });
        trust.add(TrustedKey {
            algorithms: Some(vec![a2a_card::Algorithm::ES256]),
            ..TrustedKey::new(edp.clone().with_kid("wrong-alg"), "fuzz")
        });
        trust.add(TrustedKey {
            origins: Some(vec!["https://agent.example".parse().unwrap()]),
            ..TrustedKey::new(edp.with_kid("origin-bound"), "fuzz")
        });

        let unsigned: Value = serde_json::from_str(CARD).unwrap();
        // Sanity: the genuine card verifies (default options: `spec`, unknown members excluded).
        let report = verify_card(&twice.card, &trust, &options(0)).unwrap();
        assert!(report.ok && report.signatures.iter().all(|s| s.verdict.is_valid()));
        Fixture {
            unsigned,
            canonical: once.canonical.bytes,
            genuine,
            trust,
        }
    })
}

/// Verification options from the control byte: bits 3-4 the mode, bit 5 every profile (else
/// `spec` only), bit 6 unknown members retained (else excluded), bit 7 an origin.
fn options(control: u8) -> VerifyOptions {
    VerifyOptions {
        profiles: if control & 0x20 != 0 {
            vec![Profile::Spec, Profile::PruneEmpty, Profile::ServedAsIs]
        } else {
            vec![Profile::Spec]
        },
        unknown: if control & 0x40 != 0 {
            UnknownMembers::Retain
        } else {
            UnknownMembers::Exclude
        },
        mode: match (control >> 3) & 3 {
            1 => Mode::All,
            2 => Mode::IfPresent,
            _ => Mode::Require,
        },
        max_signatures: 8,
        max_header_bytes: 1024,
        limits: Limits {
            max_input_bytes: 64 * 1024,
            max_depth: 32,
        },
        now: Some(1_800_000_000),
        origin: (control & 0x80 != 0).then(|| "https://agent.example".parse().unwrap()),
        ..VerifyOptions::default()
    }
}

/// What the input after the control byte is (control byte, low three bits).
enum Shape {
    /// The whole card.
    Card,
    /// A card; its `signatures` are replaced by the genuine entries followed by its own.
    CardWithGenuineEntries,
    /// A protected header (JSON text), base64url-encoded, with the genuine Ed25519 signature.
    ProtectedHeader,
    /// Signature bytes, base64url-encoded, with the genuine Ed25519 protected header.
    SignatureBytes,
    /// The unprotected `header` member (JSON text) of an otherwise genuine entry.
    UnprotectedHeader,
    /// The text of the `signatures` member, spliced into the fixed card as it is.
    SignaturesText,
    /// A `protected` string used as it is (not encoded), with the genuine Ed25519 signature.
    ProtectedText,
}

fn shape(control: u8) -> Shape {
    match control & 7 {
        1 => Shape::CardWithGenuineEntries,
        2 => Shape::ProtectedHeader,
        3 => Shape::SignatureBytes,
        4 => Shape::UnprotectedHeader,
        5 => Shape::SignaturesText,
        6 => Shape::ProtectedText,
        _ => Shape::Card,
    }
}

fn build(fx: &Fixture, control: u8, data: &[u8]) -> Vec<u8> {
    let (ed_protected, ed_signature) = &fx.genuine[0];
    let limits = Limits {
        max_input_bytes: 64 * 1024,
        max_depth: 32,
    };
    match shape(control) {
        Shape::Card => data.to_vec(),
        Shape::CardWithGenuineEntries => match a2a_card::canonical::parse_json(data, &limits) {
            Ok(card @ Value::Object(_)) => {
                let mut entries: Vec<Value> = fx.genuine.iter().map(|(p, s)| entry(p, s, None)).collect();
                if let Some(Value::Array(own)) = card.get("signatures") {
                    entries.extend(own.iter().cloned());
                }
                with_signatures(&card, entries)
            }
            _ => data.to_vec(),
        },
        Shape::ProtectedHeader => {
            with_signatures(&fx.unsigned, vec![entry(&b64url(data), ed_signature, None)])
        }
        Shape::SignatureBytes => {
            with_signatures(&fx.unsigned, vec![entry(ed_protected, &b64url(data), None)])
        }
        Shape::UnprotectedHeader => {
            let header = a2a_card::canonical::parse_json(data, &limits)
                .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(data).into_owned()));
            with_signatures(
                &fx.unsigned,
                vec![entry(ed_protected, ed_signature, Some(header))],
            )
        }
        Shape::SignaturesText => {
            let mut out = serde_json::to_vec(&fx.unsigned).unwrap();
            out.pop(); // the closing '}'
            out.extend_from_slice(b",\"signatures\":");
            out.extend_from_slice(data);
            out.push(b'}');
            out
        }
        Shape::ProtectedText => with_signatures(
            &fx.unsigned,
            vec![entry(&String::from_utf8_lossy(data), ed_signature, None)],
        ),
    }
}

/// The `protected` and `signature` strings of entry `index` of the card, as the verifier read them.
fn entry_strings(card: &[u8], limits: &Limits, index: usize) -> (Option<String>, Option<String>) {
    let Ok(v) = a2a_card::canonical::parse_json(card, limits) else {
        return (None, None);
    };
    let Some(Value::Array(items)) = v.get("signatures") else {
        return (None, None);
    };
    let Some(item) = items.get(index) else {
        return (None, None);
    };
    let s = |k: &str| item.get(k).and_then(Value::as_str).map(str::to_string);
    (s("protected"), s("signature"))
}

fn check(fx: &Fixture, card: &[u8], opts: &VerifyOptions, report: &Report) {
    let valid = report.signatures.iter().filter(|s| s.verdict.is_valid()).count();
    let total = report.signatures.len();
    let expected_ok = match opts.mode {
        Mode::Require => valid > 0,
        Mode::All => total > 0 && valid == total,
        Mode::IfPresent => valid == total,
    };
    assert_eq!(
        report.ok, expected_ok,
        "ok disagrees with the verdicts: {report:?}"
    );
    for s in report.signatures.iter().filter(|s| s.verdict.is_valid()) {
        let (protected, signature) = entry_strings(card, &opts.limits, s.index);
        let pair = (protected.unwrap_or_default(), signature.unwrap_or_default());
        assert!(
            fx.genuine.contains(&pair),
            "signature {} reported valid but it is not one the target made: {pair:?}\ncard: {}",
            s.index,
            String::from_utf8_lossy(card)
        );
        assert_eq!(
            report.canonical,
            fx.canonical,
            "a genuine signature reported valid over other bytes: {}",
            String::from_utf8_lossy(&report.canonical)
        );
    }
    if valid > 0 {
        // The verified content is the genuine card's, and canonicalizing it again agrees.
        let again = canonicalize(&report.canonical, &CanonicalizeOptions::default()).unwrap();
        assert_eq!(again.bytes, fx.canonical);
    }
}

fuzz_target!(|data: &[u8]| {
    let fx = fixture();
    let Some((&control, rest)) = data.split_first() else {
        return;
    };
    let opts = options(control);
    let card = build(fx, control, rest);
    if let Ok(report) = verify_card(&card, &fx.trust, &opts) {
        check(fx, &card, &opts, &report);
    }
});
