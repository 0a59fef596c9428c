//! Fuzz target: reading keys never panics, whatever the bytes.
//!
//! The input is tried as DER (PKCS#8, SEC1, PKCS#1 private keys; SubjectPublicKeyInfo) and, as
//! text, as PEM or JWK (`PrivateKey::parse`, `PublicKey::parse`), as a JWKS (`keys::parse_jwks`)
//! and as a trust store file (`TrustStore::from_json`). A key that loads must survive its own
//! encodings: the public key written as JWK and as SPKI (DER and PEM) reads back as the same key,
//! and a private key written as PKCS#8 and as a private JWK reads back with the same public half.
//! A trust file never means less than it says: a trust store or JWK Set that loads has no
//! policy member (`revoked`, `exp`, `notAfter`, ...) on a JWK, where it would be ignored, and
//! a trust store's JWKs carry only the registered JWK members.
#![no_main]

use a2a_card::jose::keys::{self, policy_member, PrivateKey, PublicKey, REGISTERED_MEMBERS};
use a2a_card::signature::trust::TrustStore;
use libfuzzer_sys::fuzz_target;

fn public_round_trips(key: &PublicKey) {
    let from_jwk = PublicKey::from_jwk(&key.to_jwk())
        .unwrap_or_else(|e| panic!("{key:?} written as JWK does not read back: {e}"));
    assert_eq!(&from_jwk, key, "JWK round trip changed the key");
    let from_der = PublicKey::from_spki_der(&key.to_spki_der())
        .unwrap_or_else(|e| panic!("{key:?} written as SPKI does not read back: {e}"));
    assert_eq!(
        from_der.thumbprint(),
        key.thumbprint(),
        "SPKI round trip changed the key"
    );
    let from_pem = PublicKey::from_pem(&key.to_spki_pem())
        .unwrap_or_else(|e| panic!("{key:?} written as PEM does not read back: {e}"));
    assert_eq!(
        from_pem.thumbprint(),
        key.thumbprint(),
        "PEM round trip changed the key"
    );
}

fn private_round_trips(key: &PrivateKey) {
    public_round_trips(key.public());
    let from_der = PrivateKey::from_der(&key.to_pkcs8_der())
        .unwrap_or_else(|e| panic!("{key:?} written as PKCS#8 does not read back: {e}"));
    assert_eq!(from_der.public().thumbprint(), key.public().thumbprint());
    let from_jwk = PrivateKey::from_jwk(&key.to_jwk_private())
        .unwrap_or_else(|e| panic!("{key:?} written as a private JWK does not read back: {e}"));
    assert_eq!(
        from_jwk.public(),
        key.public(),
        "private JWK round trip changed the key"
    );
}

/// The JWK objects of a trust store or JWK Set text: bare entries of `keys` (with `kty`), the
/// `jwk` members of wrapped entries, or the text itself when it is one JWK.
fn jwks_of(text: &str) -> Vec<serde_json::Map<String, serde_json::Value>> {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(text) else {
        return Vec::new();
    };
    let entries = match v.get("keys").and_then(|k| k.as_array()) {
        Some(items) => items.clone(),
        None => vec![v],
    };
    entries
        .into_iter()
        .filter_map(|e| match e.get("jwk") {
            Some(serde_json::Value::Object(j)) if e.get("kty").is_none() => Some(j.clone()),
            _ => e.as_object().filter(|o| o.contains_key("kty")).cloned(),
        })
        .collect()
}

/// A set read as the verifier's trust: no JWK of it carries policy or an unregistered member.
fn says_what_it_means(text: &str, registered: bool) {
    for jwk in jwks_of(text) {
        for name in jwk.keys() {
            assert!(
                policy_member(name).is_none(),
                "policy member {name:?} on a JWK was accepted"
            );
            if registered {
                assert!(
                    REGISTERED_MEMBERS.contains(&name.as_str()),
                    "unknown JWK member {name:?} was accepted"
                );
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    if let Ok(k) = PrivateKey::from_der(data) {
        private_round_trips(&k);
    }
    if let Ok(k) = PublicKey::from_spki_der(data) {
        public_round_trips(&k);
    }
    let text = String::from_utf8_lossy(data);
    if let Ok(k) = PrivateKey::parse(&text) {
        private_round_trips(&k);
    }
    if let Ok(k) = PublicKey::parse(&text) {
        public_round_trips(&k);
    }
    if let Ok(set) = keys::parse_jwks(&text) {
        for k in &set {
            public_round_trips(k);
        }
        says_what_it_means(&text, true);
    }
    if keys::parse_jwks_limited(&text, 64).is_ok() {
        says_what_it_means(&text, false);
    }
    if let Ok(store) = TrustStore::from_json(&text, "fuzz") {
        for tk in store.keys() {
            public_round_trips(&tk.key);
        }
        says_what_it_means(&text, true);
    }
});
