//! The codes of an external key's failures. They are this crate's words: an error carries
//! them in the core's [`a2a_card::Error`] as [`a2a_card::ErrorCode::External`], so that a
//! failure inside [`a2a_card::Signer::sign`] keeps its code through the core's signing.

use std::fmt;

/// Stable, kebab-case codes of the failures of an external key (a PKCS#11 token, a KMS
/// plugin). Every other failure of this crate (an unreadable key file, a malformed reference)
/// has the core's code.
///
/// ```
/// use a2a_card_keys::ErrorCode;
/// let e = a2a_card::Error::new(ErrorCode::KeyUnavailable.into(), "no token matches");
/// assert_eq!(e.code().as_str(), "key-unavailable");
/// assert_eq!(e.code(), ErrorCode::KeyUnavailable);
/// assert!(e.code().is_external_key());
/// assert_eq!(ErrorCode::from_name("timeout"), Some(ErrorCode::Timeout));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// An external key could not be reached or opened: the module cannot be loaded or is not
    /// a PKCS#11 module, no token or key matches the reference, the token refused the PIN,
    /// the plugin is not on the PATH.
    KeyUnavailable,
    /// An external key failed to sign or answered with something unusable: a plugin's
    /// `errorMessage`, a response that is not the protocol's JSON or is over the size limit, a
    /// signature that cannot be brought to JWS form, a plugin killed by a signal.
    ExternalSignerFailed,
    /// A KMS plugin did not answer within the key timeout (`KeyOptions::timeout`) and was
    /// stopped.
    Timeout,
}

impl ErrorCode {
    /// Every code, in declaration order.
    pub const ALL: &'static [ErrorCode] = &[
        ErrorCode::KeyUnavailable,
        ErrorCode::ExternalSignerFailed,
        ErrorCode::Timeout,
    ];

    /// The stable kebab-case spelling of the code.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::KeyUnavailable => "key-unavailable",
            ErrorCode::ExternalSignerFailed => "external-signer-failed",
            ErrorCode::Timeout => "timeout",
        }
    }

    /// The code with the given spelling, if this crate has one.
    pub fn from_name(name: &str) -> Option<ErrorCode> {
        Self::ALL.iter().copied().find(|c| c.as_str() == name)
    }
}

impl From<ErrorCode> for a2a_card::ErrorCode {
    fn from(code: ErrorCode) -> Self {
        a2a_card::ErrorCode::External(code.as_str())
    }
}

impl PartialEq<ErrorCode> for a2a_card::ErrorCode {
    fn eq(&self, other: &ErrorCode) -> bool {
        *self == a2a_card::ErrorCode::from(*other)
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
