//! The JOSE layer: base64url, DER, the JWS algorithms and their raw sign and verify, keys (PEM,
//! JWK, JWKS, thumbprints) and the protected header. It knows JSON only through the canonical
//! layer's reader and writer, and nothing of cards.
//!
//! ```
//! use a2a_card::jose::{crypto, Algorithm, PrivateKey};
//! let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
//! let sig = crypto::sign(Algorithm::EdDSA, &key, b"signing input").unwrap();
//! crypto::verify(Algorithm::EdDSA, key.public(), b"signing input", &sig).unwrap();
//! ```

mod algorithm;
pub(crate) mod b64;
pub mod crypto;
pub(crate) mod der;
pub mod header;
pub(crate) mod input_buffer;
pub mod keys;
mod native;
pub mod signer;
pub mod x509;

pub use algorithm::Algorithm;
pub use keys::{KeyType, PrivateKey, PublicKey};
pub use signer::Signer;
