//! # a2a-card
//!
//! Canonicalize, sign and verify A2A Agent Cards exactly as A2A v1.0 section 8.4 says: the
//! field-presence rules of section 5.7, the `signatures` member removed, then RFC 8785 (JCS).
//!
//! The crate does no I/O and builds for `wasm32-unknown-unknown`. Every rule lives here once;
//! the CLI, the fetcher and the wasm package only call it.
//!
//! ```
//! use a2a_card::{canonicalize, CanonicalizeOptions, Profile, UnknownMembers};
//!
//! let card = br#"{"name":"Recipe Agent","description":"Cooks","version":"1.0.0",
//!   "capabilities":{"streaming":true},"x-vendor":1,"skills":[]}"#;
//! let c = canonicalize(card, &CanonicalizeOptions::default()).unwrap();
//! assert_eq!(
//!     c.bytes,
//!     br#"{"capabilities":{"streaming":true},"description":"Cooks","name":"Recipe Agent","skills":[],"version":"1.0.0"}"#
//! );
//! // The unknown member is not covered, and the result says so.
//! assert_eq!(c.unsigned, vec!["/x-vendor".to_string()]);
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

/// The README's Rust examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;

pub mod alg;
pub mod b64;
mod der;
pub mod error;
pub mod inspect;
pub mod jcs;
pub mod json;
pub mod jws;
pub mod keys;
pub mod lint;
pub mod migrate;
pub mod model;
pub mod presence;
pub mod schema;
pub mod sign;
pub mod trust;
pub mod verify;

pub use alg::Algorithm;
pub use error::{pointer_token, Error, ErrorCode};
pub use inspect::{inspect_card, Inspection};
pub use jcs::{jcs, jcs_with};
pub use json::Limits;
pub use keys::{KeyType, PrivateKey, PublicKey};
pub use presence::{
    canonicalize, canonicalize_doc, canonicalize_value, Canonical, CanonicalizeOptions, Profile,
    UnknownMembers,
};
pub use sign::{sign_card, AlsoSigned, SignOptions, Signed};
pub use trust::{TrustStore, TrustedKey};
pub use verify::{
    sha256_hex, verify_card, verify_card_with, verify_value, verify_value_with, Mode, Report, VerifyOptions,
};
