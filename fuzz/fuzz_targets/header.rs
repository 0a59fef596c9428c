//! Fuzz target: decoding a JWS protected header (and an unprotected one) never panics, and what
//! it accepts meets the rules.
//!
//! The input is split at its first NUL byte: the part before is the protected header's JSON text,
//! the part after (if any) the unprotected header's. The protected part is given to
//! `jws::decode_header` both base64url-encoded and as it is (so the strict base64url decoder sees
//! arbitrary text), under three size limits; an accepted header goes on to
//! `jws::check_card_header`.
//!
//! An accepted header must: keep the `protected` text it was given; decode to at most the limit;
//! name neither `crit` nor `b64`; share no parameter name with the unprotected header; keep `alg`
//! out of the unprotected header; carry an `alg` whose name reads back as the same algorithm.
//! A header that passes `check_card_header` has a non-empty `kid` and `typ` absent or `JOSE`.
#![no_main]

use a2a_card::Algorithm;
use a2a_card::Limits;
use serde_json::Value;
use a2a_card::jose::header as jws;
use libfuzzer_sys::fuzz_target;

fn check(protected: &str, unprotected: Option<&Value>, max: usize) {
    let Ok(h) = jws::decode_header(protected, unprotected, max) else {
        return;
    };
    assert_eq!(h.protected_b64, protected);
    let raw = a2a_card_testkit::data::unb64url(protected);
    assert!(
        raw.len() <= max,
        "a {}-byte header passed a {max}-byte limit",
        raw.len()
    );
    let protected_names = h.protected_names();
    for k in &protected_names {
        assert!(*k != "crit" && *k != "b64", "{k} accepted in the protected header");
    }
    for k in h.unprotected_names() {
        assert!(!matches!(k, "alg" | "crit" | "b64"), "{k} accepted unprotected");
        assert!(!protected_names.contains(&k), "{k} accepted in both headers");
    }
    assert_eq!(Algorithm::from_name(h.alg.as_str()).ok(), Some(h.alg));
    assert_eq!(h.protected_param("alg"), Some(Value::String(h.alg.as_str().to_string())));
    if jws::check_card_header(&h).is_ok() {
        assert!(h.kid.as_deref().is_some_and(|k| !k.is_empty()));
        assert!(matches!(h.typ.as_deref(), None | Some("JOSE")));
    }
}

fuzz_target!(|data: &[u8]| {
    let (protected, unprotected) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], Some(&data[i + 1..])),
        None => (data, None),
    };
    let limits = Limits {
        max_input_bytes: 16 * 1024,
        max_depth: 16,
    };
    let unprotected = unprotected.and_then(|u| a2a_card::canonical::parse_json(u, &limits).ok());
    let encoded = a2a_card_testkit::data::b64url(protected);
    let as_is = String::from_utf8_lossy(protected);
    for max in [4096, 128, 16] {
        check(&encoded, unprotected.as_ref(), max);
        check(&as_is, unprotected.as_ref(), max);
    }
});
