//! What the core's integration tests share that needs the library's own types (the testkit,
//! which every test crate uses, does not depend on the library).

#![allow(dead_code)] // each test file uses its part

pub mod x5c;

use a2a_card::SignOptions;

/// Signing options for cards that carry unknown members on purpose: they are left unsigned
/// (signing refuses that unless asked).
pub fn lenient() -> SignOptions {
    SignOptions {
        allow_unsigned: true,
        ..SignOptions::default()
    }
}

/// One signature entry over `card` by `key` as a signer other than this library makes it: over
/// the canonical bytes of `opts`, with the protected header `{"alg","kid","typ"}` only, so it
/// declares nothing of the bytes it covers (no `urn:a2a-card:canonical`).
pub fn undeclared_entry(
    card: &[u8],
    key: &a2a_card::PrivateKey,
    kid: &str,
    opts: &a2a_card::CanonicalizeOptions,
) -> serde_json::Value {
    let alg = key.default_algorithm();
    let canonical = a2a_card::canonicalize(card, opts).unwrap();
    let protected = serde_json::json!({"alg": alg.as_str(), "kid": kid, "typ": "JOSE"}).to_string();
    a2a_card_testkit::cards::signed_entry(&canonical.bytes, &protected, None, |input| {
        a2a_card::jose::crypto::sign(alg, key, input).unwrap()
    })
}

/// `card` signed as [`a2a_card::sign_card`] signs it with `opts` (its profile, then each of
/// `also_profiles` whose bytes differ from those signed before), but each signature made the way
/// other signers make it ([`undeclared_entry`]). The entries replace any `signatures` of the card.
pub fn undeclared(card: &[u8], key: &a2a_card::PrivateKey, opts: &SignOptions) -> Vec<u8> {
    let kid = opts.kid.clone().unwrap_or_else(|| key.public().kid().to_string());
    let mut seen: Vec<Vec<u8>> = Vec::new();
    let mut entries = Vec::new();
    for p in std::iter::once(opts.canonicalize.profile).chain(opts.also_profiles.iter().copied()) {
        let c = a2a_card::CanonicalizeOptions {
            profile: p,
            ..opts.canonicalize
        };
        let bytes = a2a_card::canonicalize(card, &c).unwrap().bytes;
        if seen.contains(&bytes) {
            continue;
        }
        seen.push(bytes);
        entries.push(undeclared_entry(card, key, &kid, &c));
    }
    a2a_card_testkit::cards::with_signatures(&serde_json::from_slice(card).unwrap(), entries)
}
