//! The fetch tests' one addition to the shared test support (`a2a-card-testkit`): fetch options
//! that trust the test CA and open loopback. The HTTPS server is the testkit's.
#![allow(dead_code, unused_imports)]

pub use a2a_card_testkit::data::scratch as temp_dir;
pub use a2a_card_testkit::https::{Ca, Framing, Req, Resp, Server};
use std::time::Duration;

/// The testkit's CA and leaf (through `Deref`), and fetch options that trust the CA and open
/// loopback; creating one also makes this process dial nothing but loopback (the fetcher's
/// safety net under the SSRF guard).
pub struct Fixture(a2a_card_testkit::https::Fixture);

impl std::ops::Deref for Fixture {
    type Target = a2a_card_testkit::https::Fixture;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl Fixture {
    pub fn new() -> Fixture {
        a2a_card_testkit::https::loopback_only_in_this_process();
        Fixture(a2a_card_testkit::https::Fixture::new())
    }

    pub fn options(&self) -> a2a_card_fetch::FetchOptions {
        a2a_card_fetch::FetchOptions {
            roots: a2a_card_fetch::Roots::CaPem(self.0.ca.pem.clone().into_bytes()),
            allow_loopback: true,
            total_timeout: Duration::from_secs(10),
            ..Default::default()
        }
    }
}

/// The A2A v1.0 section 8.5 sample card, unsigned (the project's test vector).
pub fn sample_card() -> Vec<u8> {
    std::fs::read(a2a_card_testkit::data::testvectors_dir().join("cards/sample-8.5-unsigned.json")).unwrap()
}

/// `card` signed with `key` (its `jku` set when given), by the library. The 8.5 sample carries
/// the A2A 0.3 member `security`, which is left unsigned (signing refuses that unless asked).
pub fn signed(card: &[u8], key: &a2a_card::PrivateKey, jku: Option<String>) -> Vec<u8> {
    let opts = a2a_card::SignOptions {
        jku,
        allow_unsigned: true,
        ..a2a_card::SignOptions::default()
    };
    a2a_card::sign_card(card, key, &opts).unwrap().card
}

/// `{"keys":[JWK]}` of `key`'s public half.
pub fn jwks_json(key: &a2a_card::PrivateKey) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({ "keys": [key.public().to_jwk()] })).unwrap()
}

/// A tokio runtime with two workers, as a program that delegates to agents would run.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}
