//! Fuzz target: the `x5c` header parameter and chain decoding never panic, and a chain never
//! verifies unless it builds to the verifier's anchor.
//!
//! The input is split at NUL bytes into up to four certificates (DER bytes, any content). They
//! are read by `x509::summary` one by one, then put base64-encoded into the `x5c` of a card's
//! protected header, and the card is verified against a fixed anchor made once by rcgen: the
//! verdict must be a refusal (no input holds a leaf the anchor issued with a key that signed the
//! card). The first part is also decoded as the JSON value of `x5c` itself.
#![no_main]

use a2a_card::jose::x509;
use a2a_card::signature::TrustAnchor;
use a2a_card::{verify_card, TrustStore, VerifyOptions};
use a2a_card_testkit::cards::{entry, with_signatures};
use a2a_card_testkit::data::b64url;
use a2a_card_testkit::pki::Cert;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn trust() -> &'static TrustStore {
    static T: OnceLock<TrustStore> = OnceLock::new();
    T.get_or_init(|| {
        let mut t = TrustStore::new();
        t.add_anchor(TrustAnchor::from_der(Cert::root("Fuzz Root").der, "fuzz").unwrap());
        t
    })
}

fn base64(bytes: &[u8]) -> String {
    // Standard base64 with padding, written here so that the target checks the library's reader.
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in bytes.chunks(3) {
        let n = (u32::from(c[0]) << 16) | (u32::from(*c.get(1).unwrap_or(&0)) << 8) | u32::from(*c.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= c.len() {
                out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let parts: Vec<&[u8]> = data.split(|&b| b == 0).take(4).collect();
    for p in &parts {
        let _ = x509::summary(p);
    }
    if let Ok(v) = serde_json::from_slice::<serde_json::Value>(parts[0]) {
        let _ = x509::decode_x5c(&v);
    }
    let x5c: Vec<String> = parts.iter().map(|p| base64(p)).collect();
    let header = serde_json::json!({"alg": "ES256", "kid": "k", "x5c": x5c});
    let card = serde_json::json!({"name": "A", "skills": []});
    let e = entry(&b64url(header.to_string()), &b64url([7u8; 64]), None);
    let bytes = with_signatures(&card, vec![e]);
    let opts = VerifyOptions {
        origin: Some("https://agent.example".parse().unwrap()),
        max_header_bytes: 1 << 20,
        ..VerifyOptions::default()
    };
    let report = verify_card(&bytes, trust(), &opts).unwrap();
    assert!(!report.ok);
    assert!(!report.signatures[0].verdict.is_valid());
});
