//! The fetcher's error: the core's [`a2a_card::Error`] for a document that cannot be read or
//! verified, or a retrieval failure with its own stable code, and the facts of the retrieval
//! (the URL concerned, the HTTP status, whether the caller's own input was refused).

use std::fmt;

/// Stable, kebab-case codes of the fetcher: the failures of a retrieval over the network, and
/// [`ErrorCode::Card`], the core's code of a document that was fetched but cannot be used (or
/// of options the core refused). The spellings are part of the public interface: the CLI
/// prints them in its error line.
///
/// ```
/// use a2a_card_fetch::ErrorCode;
/// assert_eq!(ErrorCode::DnsFailed.as_str(), "dns-failed");
/// assert_eq!(ErrorCode::from(a2a_card::ErrorCode::InvalidJson).as_str(), "invalid-json");
/// assert!(ErrorCode::Timeout.is_retrieval());
/// assert!(!ErrorCode::Card(a2a_card::ErrorCode::InvalidJson).is_retrieval());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// A URL that cannot be used (no host, user information, unparsable).
    InvalidUrl,
    /// A URL, given or redirected to, that is not https.
    NotHttps,
    /// The SSRF guard refused an address (loopback, private, link-local, metadata, ...).
    AddressRefused,
    /// A host name that does not resolve.
    DnsFailed,
    /// The TCP connection was refused or failed.
    ConnectFailed,
    /// The TCP connection took longer than its timeout.
    ConnectTimeout,
    /// The whole retrieval took longer than its timeout.
    Timeout,
    /// The TLS handshake failed for a reason other than the certificate.
    TlsHandshake,
    /// The server certificate is not trusted (chain, expiry, ...).
    CertificateInvalid,
    /// The server certificate is valid for another name.
    CertificateNameMismatch,
    /// The server answered with a status other than 200 (or 304 on revalidation).
    HttpStatus,
    /// A malformed or cut-short HTTP response.
    HttpProtocol,
    /// More redirects than the limit.
    TooManyRedirects,
    /// A redirect without a usable Location.
    RedirectInvalid,
    /// A response whose Content-Type is not JSON.
    NotJson,
    /// A response body larger than the limit.
    BodyTooLarge,
    /// A CA file that cannot be read or holds no certificate.
    CaFile,
    /// The core's code: a fetched document that cannot be read or verified, or options the
    /// core refused (`usage`).
    Card(a2a_card::ErrorCode),
}

impl ErrorCode {
    /// The retrieval codes, in declaration order (every code but [`ErrorCode::Card`]).
    pub const RETRIEVAL: &'static [ErrorCode] = &[
        ErrorCode::InvalidUrl,
        ErrorCode::NotHttps,
        ErrorCode::AddressRefused,
        ErrorCode::DnsFailed,
        ErrorCode::ConnectFailed,
        ErrorCode::ConnectTimeout,
        ErrorCode::Timeout,
        ErrorCode::TlsHandshake,
        ErrorCode::CertificateInvalid,
        ErrorCode::CertificateNameMismatch,
        ErrorCode::HttpStatus,
        ErrorCode::HttpProtocol,
        ErrorCode::TooManyRedirects,
        ErrorCode::RedirectInvalid,
        ErrorCode::NotJson,
        ErrorCode::BodyTooLarge,
        ErrorCode::CaFile,
    ];

    /// The stable kebab-case spelling of the code (the core's for [`ErrorCode::Card`]).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidUrl => "invalid-url",
            ErrorCode::NotHttps => "not-https",
            ErrorCode::AddressRefused => "address-refused",
            ErrorCode::DnsFailed => "dns-failed",
            ErrorCode::ConnectFailed => "connect-failed",
            ErrorCode::ConnectTimeout => "connect-timeout",
            ErrorCode::Timeout => "timeout",
            ErrorCode::TlsHandshake => "tls-handshake",
            ErrorCode::CertificateInvalid => "certificate-invalid",
            ErrorCode::CertificateNameMismatch => "certificate-name-mismatch",
            ErrorCode::HttpStatus => "http-status",
            ErrorCode::HttpProtocol => "http-protocol",
            ErrorCode::TooManyRedirects => "too-many-redirects",
            ErrorCode::RedirectInvalid => "redirect-invalid",
            ErrorCode::NotJson => "not-json",
            ErrorCode::BodyTooLarge => "body-too-large",
            ErrorCode::CaFile => "ca-file",
            ErrorCode::Card(code) => code.as_str(),
        }
    }

    /// True for the codes of a failed retrieval (every code but [`ErrorCode::Card`]): the
    /// failure may be the network's or the server's rather than the caller's input. A
    /// command-line tool maps them to its "retrieval failed" exit code, unless
    /// [`Error::is_caller_input`] says the caller's own URL was refused.
    pub fn is_retrieval(self) -> bool {
        !matches!(self, ErrorCode::Card(_))
    }

    /// The code with the given spelling: a retrieval code, else the core's.
    ///
    /// ```
    /// use a2a_card_fetch::ErrorCode;
    /// assert_eq!(ErrorCode::from_name("http-status"), Some(ErrorCode::HttpStatus));
    /// assert_eq!(ErrorCode::from_name("dual-name"), Some(ErrorCode::Card(a2a_card::ErrorCode::DualName)));
    /// assert_eq!(ErrorCode::from_name("no-such-code"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<ErrorCode> {
        Self::RETRIEVAL
            .iter()
            .copied()
            .find(|c| c.as_str() == name)
            .or_else(|| a2a_card::ErrorCode::from_name(name).map(ErrorCode::Card))
    }
}

impl From<a2a_card::ErrorCode> for ErrorCode {
    fn from(code: a2a_card::ErrorCode) -> Self {
        ErrorCode::Card(code)
    }
}

impl PartialEq<a2a_card::ErrorCode> for ErrorCode {
    fn eq(&self, other: &a2a_card::ErrorCode) -> bool {
        *self == ErrorCode::Card(*other)
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error of the fetcher: a retrieval failure ([`ErrorCode::is_retrieval`]) with its
/// message, or the core's [`a2a_card::Error`] (a fetched document refused, options refused),
/// with the URL concerned and, for `http-status`, the status.
///
/// ```
/// use a2a_card_fetch::{Error, ErrorCode};
/// let e = Error::new(ErrorCode::HttpStatus, "the server answered 404 Not Found")
///     .with_url("https://agent.example/.well-known/agent-card.json")
///     .with_status(404);
/// assert_eq!(e.code().as_str(), "http-status");
/// assert_eq!(e.status(), Some(404));
/// assert_eq!(e.to_string(), "https://agent.example/.well-known/agent-card.json: the server answered 404 Not Found");
///
/// let card = Error::from(a2a_card::jcs(br#"{"a":1,"a":2}"#).unwrap_err());
/// assert_eq!(card.code(), a2a_card::ErrorCode::DuplicateMember);
/// assert_eq!(card.pointer(), Some("/a"));
/// assert!(card.card_error().is_some());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    // Boxed: a `Result` of the fetcher stays small (the core's error and the facts are large).
    inner: Box<Inner>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Inner {
    kind: Kind,
    url: Option<String>,
    status: Option<u16>,
    caller_input: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    /// The core's error, as it was raised.
    Card(a2a_card::Error),
    /// A retrieval failure; `about` is the message with the options it names written `{name}`
    /// and those options' canonical names, when it names any ([`Error::about_options`]).
    Retrieval {
        code: ErrorCode,
        message: String,
        about: Option<Box<(String, Vec<&'static str>)>>,
    },
}

impl Error {
    /// A new error with a code and a message (a [`ErrorCode::Card`] code makes the core's error).
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        let kind = match code {
            ErrorCode::Card(c) => Kind::Card(a2a_card::Error::new(c, message)),
            code => Kind::Retrieval {
                code,
                message: message.into(),
                about: None,
            },
        };
        Error {
            inner: Box::new(Inner {
                kind,
                url: None,
                status: None,
                caller_input: false,
            }),
        }
    }

    /// A retrieval failure whose message names options of the fetcher (a [`FetchOptions`]
    /// field that would allow what was refused): `template` writes each of `options` as
    /// `{name}`, by its canonical (field) name. The message names them so; a front end spells
    /// them its own way with [`Error::spelled`], as it spells the core's options.
    ///
    /// ```
    /// use a2a_card::request::{Quotes, Spelling};
    /// use a2a_card_fetch::{Error, ErrorCode};
    /// let e = Error::about_options(ErrorCode::AddressRefused, "loopback needs {allow_loopback}", &["allow_loopback"]);
    /// assert_eq!(e.message(), "loopback needs allow_loopback");
    /// assert_eq!(e.options(), ["allow_loopback"]);
    /// struct Upper;
    /// impl Spelling for Upper {
    ///     fn name(&self, option: &str) -> String {
    ///         option.to_uppercase()
    ///     }
    /// }
    /// assert_eq!(e.spelled(&Upper).message(), "loopback needs ALLOW_LOOPBACK");
    /// ```
    ///
    /// [`FetchOptions`]: crate::FetchOptions
    pub fn about_options(code: ErrorCode, template: &str, options: &[&'static str]) -> Self {
        let mut e = Error::new(code, option_message(template, options, None));
        if let Kind::Retrieval { about, .. } = &mut e.inner.kind {
            *about = Some(Box::new((template.to_string(), options.to_vec())));
        }
        e
    }

    /// The options the error is about, by their canonical names: a retrieval failure's
    /// ([`Error::about_options`]) or the core's ([`a2a_card::Error::options`]).
    pub fn options(&self) -> &[&'static str] {
        match &self.inner.kind {
            Kind::Card(e) => e.options(),
            Kind::Retrieval { about, .. } => about.as_ref().map_or(&[], |a| a.1.as_slice()),
        }
    }

    /// The same error with the options it names spelled as a front end spells them (the
    /// core's [`a2a_card::Error::spelled`] for a refused document or options; the template
    /// of [`Error::about_options`] for a retrieval failure). Code, URL and facts are kept.
    #[must_use]
    pub fn spelled(mut self, spelling: &dyn a2a_card::request::Spelling) -> Self {
        self.inner.kind = match self.inner.kind {
            Kind::Card(e) => Kind::Card(e.spelled(spelling)),
            Kind::Retrieval {
                code,
                message: _,
                about: Some(about),
            } => Kind::Retrieval {
                code,
                message: option_message(&about.0, &about.1, Some(spelling)),
                about: Some(about),
            },
            kind => kind,
        };
        self
    }

    /// The same error, about this URL (the card or JWKS URL whose retrieval failed, or whose
    /// document was refused).
    pub fn with_url(mut self, url: impl Into<String>) -> Self {
        self.inner.url = Some(url.into());
        self
    }

    /// The same error, with the HTTP status the server answered (for `http-status`).
    pub fn with_status(mut self, status: u16) -> Self {
        self.inner.status = Some(status);
        self
    }

    /// The same error, marked as a refusal of the caller's own input before anything was sent
    /// (an unusable URL or allowlist prefix, a plain `http` URL given directly) rather than a
    /// failed retrieval.
    pub fn caller_input(mut self) -> Self {
        self.inner.caller_input = true;
        self
    }

    /// The stable code.
    pub fn code(&self) -> ErrorCode {
        match &self.inner.kind {
            Kind::Card(e) => ErrorCode::Card(e.code()),
            Kind::Retrieval { code, .. } => *code,
        }
    }

    /// The sentence describing the problem, without code, URL or place.
    pub fn message(&self) -> &str {
        match &self.inner.kind {
            Kind::Card(e) => e.message(),
            Kind::Retrieval { message, .. } => message,
        }
    }

    /// The URL concerned.
    pub fn url(&self) -> Option<&str> {
        self.inner.url.as_deref()
    }

    /// The HTTP status, for `http-status`.
    pub fn status(&self) -> Option<u16> {
        self.inner.status
    }

    /// True when the caller's own input was refused (a `usage` error of the core, and a
    /// retrieval error marked by [`Error::caller_input`]); false for a failed retrieval or a
    /// refused document.
    pub fn is_caller_input(&self) -> bool {
        self.inner.caller_input || self.code() == a2a_card::ErrorCode::Usage
    }

    /// The same error, its message prefixed with the context it arose in (a proxy, an
    /// option); code, place and retrieval facts are kept.
    ///
    /// ```
    /// use a2a_card_fetch::{Error, ErrorCode};
    /// let e = Error::new(ErrorCode::InvalidUrl, "no host").context("the proxy");
    /// assert_eq!(e.message(), "the proxy: no host");
    /// assert_eq!(e.code(), ErrorCode::InvalidUrl);
    /// ```
    #[must_use]
    pub fn context(mut self, context: &str) -> Self {
        self.inner.kind = match self.inner.kind {
            Kind::Card(e) => Kind::Card(e.context(context)),
            Kind::Retrieval { code, message, about } => Kind::Retrieval {
                code,
                message: format!("{context}: {message}"),
                about: about.map(|a| Box::new((format!("{context}: {}", a.0), a.1))),
            },
        };
        self
    }

    /// The core's error, when the failure is the core's (a fetched document refused).
    pub fn card_error(&self) -> Option<&a2a_card::Error> {
        match &self.inner.kind {
            Kind::Card(e) => Some(e),
            Kind::Retrieval { .. } => None,
        }
    }

    /// The JSON Pointer of the offending member of a fetched document, where there is one.
    pub fn pointer(&self) -> Option<&str> {
        self.card_error().and_then(a2a_card::Error::pointer)
    }

    /// The byte offset in a fetched document, where known.
    pub fn offset(&self) -> Option<usize> {
        self.card_error().and_then(a2a_card::Error::offset)
    }

    /// The place in a fetched document as people read it (see [`a2a_card::Error::place`]).
    pub fn place(&self) -> Option<String> {
        self.card_error().and_then(a2a_card::Error::place)
    }
}

/// `template` with each `{name}` of `options` written as `spelling` writes it (the canonical
/// name without one), through the core's rendering of its own option messages.
fn option_message(
    template: &str,
    options: &[&'static str],
    spelling: Option<&dyn a2a_card::request::Spelling>,
) -> String {
    let e = a2a_card::request::option_error(a2a_card::ErrorCode::Usage, template, options);
    match spelling {
        Some(s) => e.spelled(s).message().to_string(),
        None => e.message().to_string(),
    }
}

impl From<a2a_card::Error> for Error {
    fn from(e: a2a_card::Error) -> Self {
        Error {
            inner: Box::new(Inner {
                kind: Kind::Card(e),
                url: None,
                status: None,
                caller_input: false,
            }),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(url) = &self.inner.url {
            write!(f, "{url}: ")?;
        }
        match &self.inner.kind {
            Kind::Card(e) => write!(f, "{e}"),
            Kind::Retrieval { message, .. } => f.write_str(message),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.inner.kind {
            Kind::Card(e) => Some(e),
            Kind::Retrieval { .. } => None,
        }
    }
}
