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
//!
//! ## Features
//!
//! - `native-algs` (default): ES512, ES256K and Ed448 through `josekit` (OpenSSL), for native
//!   targets only. Without it the same API stands, and those algorithms and key types report
//!   [`Algorithm::available`] / [`KeyType::available`] as false and are refused with
//!   `unsupported-algorithm`; everything else (EdDSA with Ed25519, ES256, ES384, RS*, PS*) is
//!   `ring` and builds for `wasm32-unknown-unknown`.
//!
//! ## Layers
//!
//! [`canonical`] (the strict reader, presence rules, profiles, RFC 8785) under [`jose`]
//! (base64url, algorithms, keys, protected headers) under [`signature`] (signature entries,
//! trust, sign, verify, report), with [`card`] (typed model, JSON Schema, lint, migrate,
//! inspect) beside them. `ARCHITECTURE.md` in the repository walks a card through them.
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

/// The README's Rust examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;

/// The crate's README (its crates.io page) examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct CrateReadmeDoctests;

/// The Rust guide's examples (`docs/rust.md`), compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/rust.md")]
struct RustGuideDoctests;

pub mod canonical;
pub mod card;
pub mod error;
pub mod jose;
#[cfg(feature = "parallel")]
#[cfg_attr(docsrs, doc(cfg(feature = "parallel")))]
pub mod parallel;
pub mod request;
pub mod signature;

pub use canonical::{
    canonicalize, canonicalize_doc, jcs, jcs_with, Canonical, CanonicalizeOptions, Doc, Limits, Profile,
    UnknownMembers,
};
pub use card::{inspect_card, lint, migrate, model, Inspection};
pub use error::{pointer_token, Error, ErrorCode};
pub use jose::{Algorithm, KeyType, PrivateKey, PublicKey, Signer};
pub use signature::{
    sha256_hex, sign_card, verify_card, verify_card_with, AlsoSigned, Mode, Report, SignOptions, Signed,
    TrustStore, TrustedKey, VerifyOptions,
};
