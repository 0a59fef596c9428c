//! The signing and verifying layer: the signature entries of a card, the verifier's trust
//! roots and policy, signing with byte-preserving write-back, verification and its report.
//!
//! ```
//! use a2a_card::signature::{sign_card, verify_card, SignOptions, TrustStore, VerifyOptions};
//! use a2a_card::{Algorithm, PrivateKey};
//! let key = PrivateKey::generate(Algorithm::ES256).unwrap();
//! let signed = sign_card(br#"{"name":"A","description":"d","skills":[]}"#, &key, &SignOptions::default()).unwrap();
//! let mut trust = TrustStore::new();
//! trust.pin(key.public().clone(), "release key");
//! assert!(verify_card(&signed.card, &trust, &VerifyOptions::default()).unwrap().ok);
//! ```

pub mod chain;
pub(crate) mod declared;
mod deferred;
pub mod entries;
pub mod near;
mod options;
mod origin;
mod plan;
mod policy;
pub(crate) mod report;
mod sign;
pub mod trust;
mod verify;

pub use declared::DECLARED_PARAMETER;
pub use deferred::{CheckId, DeferredVerification};
pub use options::{
    check_algorithms, check_max_chain_len, check_spiffe_id, Identity, VerifyOptions, DEFAULT_MAX_CHAIN_LEN,
    DEFAULT_MAX_KEYS_PER_KID, DEFAULT_MAX_SIGNATURES, DEFAULT_MAX_SIGNATURE_CHECKS, MAX_CHAIN_LEN_LIMIT,
    MAX_HEADER_BYTES_LIMIT, MAX_KEYS_PER_KID_LIMIT, MAX_SIGNATURES_LIMIT, MAX_SIGNATURE_CHECKS_LIMIT,
};
pub use origin::{Origin, ORIGIN_FORM};
pub use report::{
    printable, quoted, sha256_hex, CertificateUsed, ChainCert, KeySource, KeyUsed, Mode, Report,
    SignatureReport, TextForm, Verdict, VerdictCode,
};
pub use sign::{sign_card, AlsoSigned, SignOptions, Signed};
pub use trust::{TrustAnchor, TrustStore, TrustedKey};
pub use verify::{verify_card, verify_card_with, verify_doc};
