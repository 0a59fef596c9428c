//! The one cache of parsed keys, JWK Sets and trust stores, by their text: a front end that
//! builds a verifier again and again with the same keys (`verify(card, jwks=...)` in a loop)
//! reads them once. Reading a key checks its point on the curve, which costs more than the
//! rest of a small card's verification. Failures are not kept.

use crate::jose::keys::{parse_jwks, PublicKey};
use crate::signature::TrustStore;
use crate::Error;
use std::sync::Mutex;

/// The most parsed texts kept of each kind (keys, JWK Sets, trust stores); the least recently
/// used goes first.
pub(crate) const PARSED_CACHE: usize = 16;

type Cache<T> = Mutex<Vec<(String, T)>>;

static KEYS: Cache<PublicKey> = Mutex::new(Vec::new());
static JWKS: Cache<Vec<PublicKey>> = Mutex::new(Vec::new());
static TRUST: Cache<TrustStore> = Mutex::new(Vec::new());

fn memo<T: Clone>(cache: &Cache<T>, key: &str, parse: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
    {
        let mut c = cache.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(i) = c.iter().position(|(t, _)| t == key) {
            let entry = c.remove(i);
            let value = entry.1.clone();
            c.push(entry);
            return Ok(value);
        }
    }
    let value = parse()?;
    let mut c = cache.lock().unwrap_or_else(|p| p.into_inner());
    if c.len() >= PARSED_CACHE {
        c.remove(0);
    }
    c.push((key.to_string(), value.clone()));
    Ok(value)
}

/// [`PublicKey::parse`], from the cache when this text was read before.
pub(crate) fn parsed_key(text: &str) -> Result<PublicKey, Error> {
    memo(&KEYS, text, || PublicKey::parse(text))
}

/// [`parse_jwks`], from the cache when this text was read before.
pub(crate) fn parsed_jwks(text: &str) -> Result<Vec<PublicKey>, Error> {
    memo(&JWKS, text, || parse_jwks(text))
}

/// [`TrustStore::from_json`], from the cache when this text, from this source, was read before
/// (the source is part of the store: its keys are tagged with it).
pub(crate) fn parsed_trust(text: &str, source: &str) -> Result<TrustStore, Error> {
    let key = format!("{source}\u{0}{text}");
    memo(&TRUST, &key, || TrustStore::from_json(text, source))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Algorithm, PrivateKey};

    #[test]
    fn a_text_read_again_comes_from_the_cache_and_the_oldest_goes_first() {
        let kp = PrivateKey::generate(Algorithm::EdDSA).unwrap();
        let text = kp.public().to_jwk().to_string();
        let once = parsed_key(&text).unwrap();
        assert_eq!(once.to_jwk(), kp.public().to_jwk());
        assert_eq!(parsed_key(&text).unwrap().to_jwk(), once.to_jwk());
        assert!(KEYS.lock().unwrap().iter().any(|(t, _)| *t == text));
        // A failure is not kept.
        assert!(parsed_key("not a key").is_err());
        assert!(!KEYS.lock().unwrap().iter().any(|(t, _)| t == "not a key"));
        // The cache never holds more than PARSED_CACHE texts of a kind.
        for _ in 0..PARSED_CACHE + 2 {
            let k = PrivateKey::generate(Algorithm::EdDSA).unwrap();
            parsed_key(&k.public().to_jwk().to_string()).unwrap();
        }
        assert!(KEYS.lock().unwrap().len() <= PARSED_CACHE);
    }
}
