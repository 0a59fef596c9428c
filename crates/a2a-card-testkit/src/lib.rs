//! Test support shared by every test crate of the workspace, so that none of them writes its
//! own: where the test data is ([`data`]: the project's `testvectors/`, the third-party corpora
//! of `A2A_CARD_CORPORA`, the key files, listing folders), the one loader of the
//! canonicalization vectors ([`vectors`]), signature entries and cards built by hand
//! ([`cards`], on `serde_json`, which the workspace builds with `preserve_order`), real HTTPS
//! servers on loopback with a test CA (HTTP/1.1 framings by hand, or hyper's HTTP/1.1 and
//! HTTP/2; [`https`]), CONNECT proxies on loopback ([`proxy`]), running the `a2a-card` binary ([`bin`]), the
//! independent tools the tests check against ([`tools`]), PEM text in good and bad shapes
//! ([`pem`]), a real PKCS#11 token ([`softhsm`]), the sigstore KMS test plugin ([`plugin`]), certificate
//! chains for `x5c` made by rcgen or the `openssl` command ([`pki`]) and a fixed pseudo-random
//! sequence ([`rng`]).
//!
//! It depends on no crate of the workspace, so that every one of them can use it as a
//! dev-dependency.
//!
//! ```
//! let dir = a2a_card_testkit::data::testvectors_dir();
//! assert!(dir.join("canonical").is_dir());
//! assert_eq!(a2a_card_testkit::data::b64url(b"hi?"), "aGk_");
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![allow(clippy::unwrap_used, clippy::panic)] // test support reports by panicking

pub mod bin;
pub mod cards;
pub mod data;
pub mod https;
pub mod pem;
pub mod pki;
pub mod plugin;
pub mod proxy;
pub mod rng;
pub mod softhsm;
pub mod tools;
pub mod vectors;
