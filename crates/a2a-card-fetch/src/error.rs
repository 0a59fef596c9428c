//! Errors of the fetcher: every way a retrieval can fail has its own stable kebab-case code, and
//! a card or key that arrives but cannot be read keeps the code `a2a-card` gave it.

use std::fmt;

/// Stable, kebab-case codes for retrieval failures. The spelling of each code is part of the
/// public interface (the CLI prints it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FetchCode {
    /// The URL cannot be parsed, has no host, carries user information, or is otherwise unusable.
    InvalidUrl,
    /// The URL (given or redirected to) is not `https`.
    NotHttps,
    /// The SSRF guard refused an address: loopback, private, link-local, shared, multicast,
    /// reserved, or an IPv6 form that embeds one of these.
    AddressRefused,
    /// The host name does not resolve.
    DnsFailed,
    /// No TCP connection could be opened to any checked address.
    ConnectFailed,
    /// Opening the TCP connection took longer than the connect timeout.
    ConnectTimeout,
    /// The whole retrieval (resolution, redirects, TLS, body) took longer than the total timeout.
    Timeout,
    /// The TLS handshake failed for a reason other than the certificate.
    TlsHandshake,
    /// The server's certificate does not chain to a trusted root, has expired, or is otherwise
    /// invalid.
    CertificateInvalid,
    /// The server's certificate is valid but not for the host name asked for.
    CertificateNameMismatch,
    /// The final response has a status other than 200 (or 304 to a conditional request).
    HttpStatus,
    /// The response is not well-formed HTTP/1.1 (status line, headers, chunking, truncation,
    /// an unsupported content encoding).
    HttpProtocol,
    /// More redirects than the limit.
    TooManyRedirects,
    /// A redirect without a usable `Location`.
    RedirectInvalid,
    /// The response's `Content-Type` is not JSON (`application/json` or `application/*+json`).
    NotJson,
    /// The body is larger than the limit.
    BodyTooLarge,
    /// The CA file given for a private CA cannot be read or holds no certificate.
    CaFile,
}

impl FetchCode {
    /// The stable kebab-case spelling of the code.
    ///
    /// ```
    /// assert_eq!(a2a_card_fetch::FetchCode::AddressRefused.as_str(), "address-refused");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            FetchCode::InvalidUrl => "invalid-url",
            FetchCode::NotHttps => "not-https",
            FetchCode::AddressRefused => "address-refused",
            FetchCode::DnsFailed => "dns-failed",
            FetchCode::ConnectFailed => "connect-failed",
            FetchCode::ConnectTimeout => "connect-timeout",
            FetchCode::Timeout => "timeout",
            FetchCode::TlsHandshake => "tls-handshake",
            FetchCode::CertificateInvalid => "certificate-invalid",
            FetchCode::CertificateNameMismatch => "certificate-name-mismatch",
            FetchCode::HttpStatus => "http-status",
            FetchCode::HttpProtocol => "http-protocol",
            FetchCode::TooManyRedirects => "too-many-redirects",
            FetchCode::RedirectInvalid => "redirect-invalid",
            FetchCode::NotJson => "not-json",
            FetchCode::BodyTooLarge => "body-too-large",
            FetchCode::CaFile => "ca-file",
        }
    }

    /// Every code, in declaration order.
    pub const ALL: &'static [FetchCode] = &[
        FetchCode::InvalidUrl,
        FetchCode::NotHttps,
        FetchCode::AddressRefused,
        FetchCode::DnsFailed,
        FetchCode::ConnectFailed,
        FetchCode::ConnectTimeout,
        FetchCode::Timeout,
        FetchCode::TlsHandshake,
        FetchCode::CertificateInvalid,
        FetchCode::CertificateNameMismatch,
        FetchCode::HttpStatus,
        FetchCode::HttpProtocol,
        FetchCode::TooManyRedirects,
        FetchCode::RedirectInvalid,
        FetchCode::NotJson,
        FetchCode::BodyTooLarge,
        FetchCode::CaFile,
    ];

    /// The code with this spelling, if there is one.
    ///
    /// ```
    /// use a2a_card_fetch::FetchCode;
    /// assert_eq!(FetchCode::from_name("not-json"), Some(FetchCode::NotJson));
    /// assert_eq!(FetchCode::from_name("io"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<FetchCode> {
        Self::ALL.iter().copied().find(|c| c.as_str() == name)
    }

    /// The same code in [`a2a_card::ErrorCode`], the one code space of the toolkit.
    ///
    /// ```
    /// use a2a_card_fetch::FetchCode;
    /// assert_eq!(FetchCode::BodyTooLarge.card_code(), a2a_card::ErrorCode::BodyTooLarge);
    /// for c in FetchCode::ALL {
    ///     assert_eq!(c.card_code().as_str(), c.as_str());
    /// }
    /// ```
    pub fn card_code(self) -> a2a_card::ErrorCode {
        match self {
            FetchCode::InvalidUrl => a2a_card::ErrorCode::InvalidUrl,
            FetchCode::NotHttps => a2a_card::ErrorCode::NotHttps,
            FetchCode::AddressRefused => a2a_card::ErrorCode::AddressRefused,
            FetchCode::DnsFailed => a2a_card::ErrorCode::DnsFailed,
            FetchCode::ConnectFailed => a2a_card::ErrorCode::ConnectFailed,
            FetchCode::ConnectTimeout => a2a_card::ErrorCode::ConnectTimeout,
            FetchCode::Timeout => a2a_card::ErrorCode::Timeout,
            FetchCode::TlsHandshake => a2a_card::ErrorCode::TlsHandshake,
            FetchCode::CertificateInvalid => a2a_card::ErrorCode::CertificateInvalid,
            FetchCode::CertificateNameMismatch => a2a_card::ErrorCode::CertificateNameMismatch,
            FetchCode::HttpStatus => a2a_card::ErrorCode::HttpStatus,
            FetchCode::HttpProtocol => a2a_card::ErrorCode::HttpProtocol,
            FetchCode::TooManyRedirects => a2a_card::ErrorCode::TooManyRedirects,
            FetchCode::RedirectInvalid => a2a_card::ErrorCode::RedirectInvalid,
            FetchCode::NotJson => a2a_card::ErrorCode::NotJson,
            FetchCode::BodyTooLarge => a2a_card::ErrorCode::BodyTooLarge,
            FetchCode::CaFile => a2a_card::ErrorCode::CaFile,
        }
    }
}

impl fmt::Display for FetchCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What went wrong: a retrieval failure, or an `a2a-card` error about what was retrieved (a
/// card that is not JSON, a JWKS whose keys cannot be read).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Code {
    /// Retrieval failed.
    Fetch(FetchCode),
    /// The retrieved bytes (or the caller's options) were refused by `a2a-card`.
    Card(a2a_card::ErrorCode),
}

impl Code {
    /// The stable kebab-case spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::Fetch(c) => c.as_str(),
            Code::Card(c) => c.as_str(),
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error of the fetcher: a [`Code`], a sentence a person can act on, the URL concerned and,
/// for [`FetchCode::HttpStatus`], the status.
///
/// ```
/// use a2a_card_fetch::{fetch_card, FetchCode, FetchOptions};
/// let err = fetch_card("http://agent.example.com", &FetchOptions::default()).unwrap_err();
/// assert_eq!(err.fetch_code(), Some(FetchCode::NotHttps));
/// assert_eq!(err.code().as_str(), "not-https");
/// assert!(err.is_usage()); // nothing was sent: the caller's URL was refused
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    code: Code,
    message: String,
    url: Option<String>,
    status: Option<u16>,
    pointer: Option<String>,
    usage: bool,
}

impl Error {
    /// A retrieval error.
    pub fn fetch(code: FetchCode, message: impl Into<String>) -> Self {
        Error {
            code: Code::Fetch(code),
            message: message.into(),
            url: None,
            status: None,
            pointer: None,
            usage: false,
        }
    }

    /// Wraps an `a2a-card` error about retrieved bytes.
    pub fn card(e: a2a_card::Error) -> Self {
        Error {
            code: Code::Card(e.code()),
            message: e.message().to_string(),
            url: None,
            status: None,
            pointer: e.pointer().map(str::to_string),
            usage: e.code() == a2a_card::ErrorCode::Usage,
        }
    }

    /// The same error, about this URL.
    pub fn with_url(mut self, url: impl Into<String>) -> Self {
        self.url = Some(url.into());
        self
    }

    pub(crate) fn with_status(mut self, status: u16) -> Self {
        self.status = Some(status);
        self
    }

    pub(crate) fn usage(mut self) -> Self {
        self.usage = true;
        self
    }

    /// The code.
    pub fn code(&self) -> Code {
        self.code
    }

    /// The retrieval code, when this is a retrieval failure.
    pub fn fetch_code(&self) -> Option<FetchCode> {
        match self.code {
            Code::Fetch(c) => Some(c),
            Code::Card(_) => None,
        }
    }

    /// The sentence, without code or URL.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The URL concerned, where there is one.
    pub fn url(&self) -> Option<&str> {
        self.url.as_deref()
    }

    /// The HTTP status, for [`FetchCode::HttpStatus`].
    pub fn status(&self) -> Option<u16> {
        self.status
    }

    /// The JSON Pointer, for an `a2a-card` error about a retrieved document.
    pub fn pointer(&self) -> Option<&str> {
        self.pointer.as_deref()
    }

    /// True when the caller's own input was refused before anything was sent (an unusable URL
    /// or allowlist prefix, a plain `http` URL given directly): a usage error, not a failed
    /// retrieval. The CLI maps usage errors and [`Code::Card`] errors on the card to exit code 2
    /// and every other retrieval failure to exit code 3.
    pub fn is_usage(&self) -> bool {
        self.usage
    }

    /// The error as an [`a2a_card::Error`], with the same code ([`FetchCode::card_code`]) and
    /// the URL in the message. Whether it was a usage error is [`Error::is_usage`].
    pub fn to_card_error(&self) -> a2a_card::Error {
        let code = match self.code {
            Code::Fetch(c) => c.card_code(),
            Code::Card(c) => c,
        };
        let mut message = self.message.clone();
        if let Some(url) = &self.url {
            message = format!("{url}: {message}");
        }
        let mut e = a2a_card::Error::new(code, message);
        if let Some(p) = &self.pointer {
            e = e.at(p.clone());
        }
        e
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(url) = &self.url {
            write!(f, "{url}: ")?;
        }
        f.write_str(&self.message)?;
        if let Some(p) = &self.pointer {
            if p.is_empty() {
                f.write_str(" at (document root)")?;
            } else {
                write!(f, " at {p}")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

impl From<a2a_card::Error> for Error {
    fn from(e: a2a_card::Error) -> Self {
        Error::card(e)
    }
}
