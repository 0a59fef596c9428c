//! Key references: what `--key` names, in the forms cosign's `--key` takes.
//!
//! | reference | the key |
//! |---|---|
//! | `-` | PEM or JWK text on standard input |
//! | `env://VAR` | PEM or JWK text in the environment variable `VAR` |
//! | `pkcs11:...` | a private key in a PKCS#11 token (RFC 7512 URI, [`crate::pkcs11_uri`]) |
//! | `NAME://KEY-ID` | a key served by the executable `sigstore-kms-NAME` on the PATH (the sigstore KMS plugin protocol v1, [`crate::plugin`]) |
//! | anything else | a file: PEM (PKCS#8, SEC1, PKCS#1) or a JWK |
//!
//! `NAME` is letters, digits, `-`, `_` and `.`, beginning with a letter, so a path such as
//! `./a://b` or `/keys/x://y` stays a file path; write `./pkcs11:x` for a file named so.
//!
//! ```
//! use a2a_card_keys::KeyRef;
//! assert!(matches!(KeyRef::parse("release.pem").unwrap(), KeyRef::File(_)));
//! assert!(matches!(KeyRef::parse("env://RELEASE_KEY").unwrap(), KeyRef::Env(v) if v == "RELEASE_KEY"));
//! let kms = KeyRef::parse("ovhcloud://0f6c7e1a").unwrap();
//! assert_eq!(kms.to_string(), "ovhcloud://0f6c7e1a");
//! let token = KeyRef::parse("pkcs11:token=ci;object=card?pin-value=1234").unwrap();
//! assert_eq!(token.to_string(), "pkcs11:token=ci;object=card?pin-value=***");
//! ```

use crate::pkcs11_uri::Pkcs11Uri;
use a2a_card::{Error, ErrorCode};
use std::ffi::OsStr;
use std::fmt;
use std::path::PathBuf;

/// The prefix of every KMS plugin executable (sigstore's `PluginBinaryPrefix`).
pub const PLUGIN_PREFIX: &str = "sigstore-kms-";

/// A key reference. `Display` names it for people and error lines: a PKCS#11 URI with its
/// `pin-value` replaced by `***`, a KMS key id without its query or user information, an
/// environment variable by name, never a key.
#[derive(Clone, PartialEq, Eq)]
pub enum KeyRef {
    /// A key file.
    File(PathBuf),
    /// The key text on standard input (`-`).
    Stdin,
    /// The key text in an environment variable (`env://VAR`).
    Env(String),
    /// A key in a PKCS#11 token.
    Pkcs11(Pkcs11Uri),
    /// A key behind a sigstore KMS plugin.
    Plugin(PluginRef),
}

/// `NAME://KEY-ID`: the plugin `sigstore-kms-NAME` and the key id it is handed (the text after
/// `://`, as sigstore's client sends it). A key id may carry a secret (a token in its query, a
/// password before an `@`), so `Display` and `Debug` show it without its query, fragment and
/// user information:
///
/// ```
/// use a2a_card_keys::KeyRef;
/// let r = KeyRef::parse("hashivault://ops:hunter2@vault.example/transit/card?token=s.3cr3t").unwrap();
/// assert_eq!(r.to_string(), "hashivault://***@vault.example/transit/card?***");
/// assert!(!format!("{r:?}").contains("3cr3t"));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct PluginRef {
    /// `NAME`.
    pub name: String,
    /// `KEY-ID`.
    pub key_id: String,
}

impl PluginRef {
    /// The executable's name, `sigstore-kms-NAME`.
    pub fn executable(&self) -> String {
        format!("{PLUGIN_PREFIX}{}", self.name)
    }

    /// The key id as it may be shown: a query or fragment (from the first `?` or `#`) becomes
    /// `?***` or `#***`, user information (up to the last `@`) `***@`; when an `@` follows a `?`
    /// or `#`, which of them begins the secret cannot be told, and the whole key id is `***`.
    ///
    /// ```
    /// use a2a_card_keys::PluginRef;
    /// let r = |id: &str| PluginRef { name: "kms".into(), key_id: id.into() }.shown_key_id();
    /// assert_eq!(r("transit/card"), "transit/card");
    /// assert_eq!(r("transit/card?token=s3cr3t"), "transit/card?***");
    /// assert_eq!(r("ops:pw@vault/card"), "***@vault/card");
    /// assert_eq!(r("card?token=a@b"), "***");
    /// ```
    pub fn shown_key_id(&self) -> String {
        shown_key_id(&self.key_id)
    }
}

/// [`PluginRef::shown_key_id`] of a key id.
pub(crate) fn shown_key_id(id: &str) -> String {
    let cut = id.find(['?', '#']).unwrap_or(id.len());
    if id[cut..].contains('@') {
        return "***".to_string();
    }
    let tail = match id[cut..].chars().next() {
        Some('?') => "?***",
        Some(_) => "#***",
        None => "",
    };
    let body = &id[..cut];
    match body.rfind('@') {
        Some(at) => format!("***{}{tail}", &body[at..]),
        None => format!("{body}{tail}"),
    }
}

/// `NAME://KEY-ID` with the key id as [`PluginRef::shown_key_id`] shows it.
impl fmt::Display for PluginRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}://{}", self.name, self.shown_key_id())
    }
}

/// Like `Display`: no secret of the key id is shown.
impl fmt::Debug for PluginRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PluginRef({self})")
    }
}

fn plugin_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

impl KeyRef {
    /// Reads a key reference. Only `env://` with a bad variable name, a `pkcs11:` URI that RFC
    /// 7512 refuses, and `NAME://` with nothing after it are errors (`usage`); any other text
    /// is a file path.
    ///
    /// ```
    /// use a2a_card_keys::KeyRef;
    /// assert!(matches!(KeyRef::parse("-").unwrap(), KeyRef::Stdin));
    /// assert!(matches!(KeyRef::parse("./pkcs11:odd-name.pem").unwrap(), KeyRef::File(_)));
    /// assert_eq!(KeyRef::parse("env://").unwrap_err().code().as_str(), "usage");
    /// ```
    pub fn parse(text: &str) -> Result<KeyRef, Error> {
        if text == "-" {
            return Ok(KeyRef::Stdin);
        }
        if let Some(var) = text.strip_prefix("env://") {
            if var.is_empty() || var.contains('=') || var.contains('\0') {
                return Err(Error::new(
                    ErrorCode::Usage,
                    "env://VAR names an environment variable: env://A2A_RELEASE_KEY, for example",
                ));
            }
            return Ok(KeyRef::Env(var.to_string()));
        }
        if text.get(..7).is_some_and(|s| s.eq_ignore_ascii_case("pkcs11:")) {
            return Pkcs11Uri::parse(text).map(KeyRef::Pkcs11);
        }
        if let Some((name, key_id)) = text.split_once("://") {
            if plugin_name(name) {
                if key_id.is_empty() {
                    return Err(Error::new(
                        ErrorCode::Usage,
                        format!("{name}:// names no key: the KMS plugin form is {name}://KEY-ID"),
                    ));
                }
                return Ok(KeyRef::Plugin(PluginRef {
                    name: name.to_string(),
                    key_id: key_id.to_string(),
                }));
            }
        }
        Ok(KeyRef::File(PathBuf::from(text)))
    }

    /// [`KeyRef::parse`] for an argument that may not be UTF-8 (then always a file path).
    pub fn parse_os(text: &OsStr) -> Result<KeyRef, Error> {
        match text.to_str() {
            Some(s) => KeyRef::parse(s),
            None => Ok(KeyRef::File(PathBuf::from(text))),
        }
    }

    /// True for a key held outside this process (a PKCS#11 token or a KMS plugin).
    pub fn is_external(&self) -> bool {
        matches!(self, KeyRef::Pkcs11(_) | KeyRef::Plugin(_))
    }
}

impl fmt::Display for KeyRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyRef::File(p) => write!(f, "{}", p.display()),
            KeyRef::Stdin => f.write_str("<stdin>"),
            KeyRef::Env(v) => write!(f, "env://{v}"),
            KeyRef::Pkcs11(uri) => write!(f, "{uri}"),
            KeyRef::Plugin(p) => write!(f, "{p}"),
        }
    }
}

impl fmt::Debug for KeyRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "KeyRef({self})")
    }
}
