//! # a2a-card-keys
//!
//! Signing keys for [`a2a_card`] that never touch the disk: a key reference ([`KeyRef`]) names
//! a key file, standard input, an environment variable, a private key in a PKCS#11 token
//! (`pkcs11:` URI, RFC 7512) or a key behind a sigstore KMS plugin (`NAME://KEY-ID`, served by
//! `sigstore-kms-NAME` on the PATH); [`open`] turns it into a [`SigningKey`], which signs cards
//! through the core's [`a2a_card::Signer`] trait. Every signature made outside the process is
//! verified with the key's public key by the core's signing path before a card is written.
//!
//! This crate does the I/O the core must not do (loading PKCS#11 modules, running plugins with
//! deadlines and output bounds) and is native only. PKCS#11 support is the `pkcs11` feature
//! (on by default), through the `cryptoki` crate, which loads the module at run time.
//!
//! ```
//! use a2a_card_keys::{open, KeyOptions, KeyRef};
//! use a2a_card::{sign_card, SignOptions, Signer};
//!
//! std::env::set_var("DOC_RELEASE_KEY", a2a_card::PrivateKey::generate(a2a_card::Algorithm::ES256)
//!     .unwrap().to_pkcs8_pem());
//! let key = open(&KeyRef::parse("env://DOC_RELEASE_KEY").unwrap(), &KeyOptions::default()).unwrap();
//! let card = br#"{"name":"A","description":"d","version":"1","skills":[]}"#;
//! let signed = sign_card(card, &key, &SignOptions::default()).unwrap();
//! assert_eq!(signed.kid, key.public_key().thumbprint());
//! ```
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

/// The crate's README (its crates.io page) examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod error;
mod pin;
#[cfg(feature = "pkcs11")]
#[cfg_attr(docsrs, doc(cfg(feature = "pkcs11")))]
pub mod pkcs11;
pub mod pkcs11_uri;
pub mod plugin;
pub mod reference;

pub use error::ErrorCode;
pub use pin::{Pin, MAX_PIN_BYTES};
pub use plugin::PluginKey;
pub use reference::{KeyRef, PluginRef};

use a2a_card::{Algorithm, Error, PrivateKey, PublicKey, Signer};
use std::io::Read;
use std::path::PathBuf;
use std::time::Duration;

/// The largest key text read from a file, standard input or a variable, in bytes.
pub const MAX_KEY_BYTES: u64 = 1024 * 1024;

/// How external keys are reached.
#[derive(Clone, Debug)]
pub struct KeyOptions {
    /// The PKCS#11 module when a `pkcs11:` URI has no `module-path`.
    pub pkcs11_module: Option<PathBuf>,
    /// The token PIN when a `pkcs11:` URI has neither `pin-value` nor `pin-source`.
    pub pin: Option<Pin>,
    /// The deadline of each plugin call (default 30 s).
    pub timeout: Duration,
    /// The algorithm the key will sign with, when the caller knows it: its hash is the one a
    /// plugin is told about when its public key is read, and it spares the `defaultAlgorithm`
    /// call for RSA keys.
    pub alg: Option<Algorithm>,
}

impl Default for KeyOptions {
    fn default() -> Self {
        KeyOptions {
            pkcs11_module: None,
            pin: None,
            timeout: plugin::DEFAULT_TIMEOUT,
            alg: None,
        }
    }
}

/// A key that signs: in memory, in a PKCS#11 token, or behind a KMS plugin.
#[derive(Debug)]
#[non_exhaustive]
pub enum SigningKey {
    /// A private key read from a file, standard input or a variable.
    Local(PrivateKey),
    /// A private key in a PKCS#11 token.
    #[cfg(feature = "pkcs11")]
    Pkcs11(pkcs11::Pkcs11Key),
    /// A key behind a sigstore KMS plugin.
    Plugin(PluginKey),
}

impl SigningKey {
    fn inner(&self) -> &dyn Signer {
        match self {
            SigningKey::Local(k) => k,
            #[cfg(feature = "pkcs11")]
            SigningKey::Pkcs11(k) => k,
            SigningKey::Plugin(k) => k,
        }
    }

    /// True for a key outside this process (its signatures are checked before use).
    pub fn is_external(&self) -> bool {
        !matches!(self, SigningKey::Local(_))
    }
}

impl Signer for SigningKey {
    fn public_key(&self) -> &PublicKey {
        self.inner().public_key()
    }
    fn sign(&self, alg: Algorithm, signing_input: &[u8]) -> Result<Vec<u8>, Error> {
        self.inner().sign(alg, signing_input)
    }
    fn default_algorithm(&self) -> Algorithm {
        self.inner().default_algorithm()
    }
    fn local_key(&self) -> Option<&PrivateKey> {
        self.inner().local_key()
    }
}

fn read_bounded(mut reader: impl Read, what: &str) -> Result<String, Error> {
    let mut bytes = Vec::new();
    reader
        .by_ref()
        .take(MAX_KEY_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::new(a2a_card::ErrorCode::Io, format!("cannot read {what}: {e}")))?;
    if bytes.len() as u64 > MAX_KEY_BYTES {
        return Err(Error::new(
            a2a_card::ErrorCode::InputTooLarge,
            format!("{what} is more than {MAX_KEY_BYTES} bytes for a key"),
        ));
    }
    let text = String::from_utf8(bytes).map_err(|_| {
        Error::new(
            a2a_card::ErrorCode::InvalidKey,
            format!("{what} is not UTF-8 text (PEM or JWK)"),
        )
    })?;
    Ok(text.strip_prefix('\u{feff}').map(str::to_string).unwrap_or(text))
}

/// The key text of an environment variable (`env://VAR`): `invalid-key` when it is unset,
/// empty or not UTF-8. The variable is marked as holding a secret
/// ([`plugin::withhold_variable`]): no plugin run afterwards inherits it. Messages name the
/// variable, never its text.
///
/// ```
/// std::env::set_var("DOC_KEY_TEXT", "-----BEGIN PUBLIC KEY-----");
/// assert!(a2a_card_keys::env_text("DOC_KEY_TEXT").is_ok());
/// assert_eq!(a2a_card_keys::env_text("DOC_NO_SUCH_VARIABLE").unwrap_err().code().as_str(), "invalid-key");
/// ```
pub fn env_text(var: &str) -> Result<String, Error> {
    plugin::withhold_variable(var);
    match std::env::var(var) {
        Ok(text) if !text.trim().is_empty() => Ok(text),
        Ok(_) => Err(Error::new(
            a2a_card::ErrorCode::InvalidKey,
            format!("the environment variable {var} is empty"),
        )),
        Err(std::env::VarError::NotPresent) => Err(Error::new(
            a2a_card::ErrorCode::InvalidKey,
            format!("the environment variable {var} is not set"),
        )),
        Err(std::env::VarError::NotUnicode(_)) => Err(Error::new(
            a2a_card::ErrorCode::InvalidKey,
            format!("the environment variable {var} is not UTF-8 text"),
        )),
    }
}

/// Opens the key a reference names. Files, standard input and variables are read (at most
/// [`MAX_KEY_BYTES`]) and parsed with [`PrivateKey::parse`]; a `pkcs11:` key is opened in its
/// token; a plugin key's public key is asked of its plugin. Errors carry the library's codes
/// (`invalid-key`, `io`, `usage`, `key-unavailable`, `external-signer-failed`, `timeout`) and
/// never show a PIN or key material.
pub fn open(reference: &KeyRef, opts: &KeyOptions) -> Result<SigningKey, Error> {
    match reference {
        KeyRef::File(path) => {
            let file = std::fs::File::open(path).map_err(|e| {
                Error::new(
                    a2a_card::ErrorCode::Io,
                    format!("cannot open {}: {e}", path.display()),
                )
            })?;
            let text = read_bounded(file, &path.display().to_string())?;
            PrivateKey::parse(&text).map(SigningKey::Local)
        }
        KeyRef::Stdin => {
            let text = read_bounded(std::io::stdin().lock(), "standard input")?;
            PrivateKey::parse(&text).map(SigningKey::Local)
        }
        KeyRef::Env(var) => PrivateKey::parse(&env_text(var)?).map(SigningKey::Local),
        #[cfg(feature = "pkcs11")]
        KeyRef::Pkcs11(uri) => pkcs11::Pkcs11Key::open(
            uri,
            &pkcs11::Pkcs11Options {
                module: opts.pkcs11_module.clone(),
                pin: opts.pin.clone(),
            },
        )
        .map(SigningKey::Pkcs11),
        #[cfg(not(feature = "pkcs11"))]
        KeyRef::Pkcs11(_) => Err(Error::new(
            crate::ErrorCode::KeyUnavailable.into(),
            "this build has no PKCS#11 support (the a2a-card-keys feature `pkcs11`)",
        )),
        KeyRef::Plugin(p) => PluginKey::open(p, opts.alg, opts.timeout).map(SigningKey::Plugin),
    }
}

#[cfg(feature = "pkcs11")]
pub use pkcs11::Pkcs11Key;
