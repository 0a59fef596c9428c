//! What the `x5c` test files share: a card, a root and an intermediate to issue leaves from,
//! cards signed with a chain (by `sign_card`, or by hand with what `sign_card` refuses to
//! make), trust stores of anchors, and the check of a refused verdict.

#![allow(dead_code)]

use a2a_card::jose::crypto;
use a2a_card::signature::TrustAnchor;
use a2a_card::{sign_card, verify_card, Algorithm, PrivateKey, SignOptions, TrustStore, VerifyOptions};
use a2a_card_testkit::cards::{signed_entry, with_signatures};
use a2a_card_testkit::pki::{Cert, Spec};
use base64::Engine as _;

/// The card the chains sign.
pub const CARD: &[u8] = br#"{"name":"Agent","description":"d","version":"1","skills":[]}"#;
/// The origin the card is verified as served from ([`at_origin`]).
pub const ORIGIN: &str = "https://agent.example";

/// A root ("Test Root") and an intermediate under it ("Test Intermediate", path length 0).
pub struct Pki {
    pub root: Cert,
    pub int: Cert,
}

/// A fresh [`Pki`].
pub fn pki() -> Pki {
    let root = Cert::root("Test Root");
    let int = root.issue(&Spec::ca("Test Intermediate", Some(0)));
    Pki { root, int }
}

/// The private key of `c`.
pub fn key_of(c: &Cert) -> PrivateKey {
    PrivateKey::from_pem(&c.key_pem).unwrap()
}

/// [`CARD`] signed by `leaf`'s key with `x5c` of `chain`.
pub fn sign_with(leaf: &Cert, chain: &[&Cert]) -> Vec<u8> {
    let opts = SignOptions {
        x5c: chain.iter().map(|c| c.der.clone()).collect(),
        ..SignOptions::default()
    };
    sign_card(CARD, &key_of(leaf), &opts).unwrap().card
}

/// A card signed with a leaf of `leaf_spec` issued by `p.int` and the chain `[leaf, int]`.
pub fn dns_card(p: &Pki, leaf_spec: Spec) -> Vec<u8> {
    let leaf = p.int.issue(&leaf_spec);
    sign_with(&leaf, &[&leaf, &p.int])
}

/// A trust store of `certs` as anchors (from `bundle.pem`).
pub fn anchors(certs: &[&Cert]) -> TrustStore {
    let mut t = TrustStore::new();
    for c in certs {
        t.add_anchor(TrustAnchor::from_der(c.der.clone(), "bundle.pem").unwrap());
    }
    t
}

/// Verifying options with the origin [`ORIGIN`].
pub fn at_origin() -> VerifyOptions {
    VerifyOptions {
        origin: Some(ORIGIN.parse().unwrap()),
        ..VerifyOptions::default()
    }
}

/// Asserts that `card` does not verify with `trust` and `opts`, and that its first signature's
/// verdict has `code`, a message with `words` and a place under `/signatures/0/`.
#[track_caller]
pub fn refused(card: &[u8], trust: &TrustStore, opts: &VerifyOptions, code: &str, words: &str) {
    let r = verify_card(card, trust, opts).unwrap();
    let v = &r.signatures[0].verdict;
    let m = &v.message;
    assert!(!r.ok, "{m}");
    assert_eq!(v.code, code, "{m}");
    assert!(m.contains(words), "{m:?} lacks {words:?}");
    assert!(
        v.pointer
            .as_ref()
            .is_some_and(|p| p.starts_with("/signatures/0/")),
        "no place: {m}"
    );
}

/// A card whose one signature is by `key` with `x5c` of `chain`, written by hand (what
/// `sign_card` refuses to make).
pub fn hand_signed(chain: &[&Cert], key: &PrivateKey, alg: Algorithm) -> Vec<u8> {
    let x5c: Vec<String> = chain
        .iter()
        .map(|c| base64::engine::general_purpose::STANDARD.encode(&c.der))
        .collect();
    hand_header(
        &serde_json::json!({"alg": alg.as_str(), "kid": "k", "x5c": x5c}),
        key,
        alg,
    )
}

/// A card whose one signature is by `key` under the protected header `header`, written by hand.
pub fn hand_header(header: &serde_json::Value, key: &PrivateKey, alg: Algorithm) -> Vec<u8> {
    let canonical = a2a_card::canonicalize(CARD, &Default::default()).unwrap().bytes;
    let entry = signed_entry(&canonical, &header.to_string(), None, |input| {
        crypto::sign(alg, key, input).unwrap()
    });
    with_signatures(&serde_json::from_slice(CARD).unwrap(), vec![entry])
}

/// `root` -> `n` intermediates (`NAME 1` to `NAME n`, no path length limit) -> a leaf for
/// `agent.example`: the certificates in `x5c` order, the leaf first.
pub fn long_chain(root: &Cert, name: &str, n: usize) -> Vec<Cert> {
    let mut issuers = vec![root.issue(&Spec::ca(&format!("{name} 1"), None))];
    for i in 2..=n {
        let next = issuers
            .last()
            .unwrap()
            .issue(&Spec::ca(&format!("{name} {i}"), None));
        issuers.push(next);
    }
    let leaf = issuers
        .last()
        .unwrap()
        .issue(&Spec::leaf("agent").dns("agent.example"));
    issuers.reverse();
    issuers.insert(0, leaf);
    issuers
}
