//! URLs: the card URL of an origin, the origin of a URL, and allowlist prefixes for `jku`.

use crate::{Error, ErrorCode};
use a2a_card::signature::{printable, Origin, ORIGIN_FORM};
use url::Url;

/// The path an origin serves its Agent Card at.
pub const WELL_KNOWN_PATH: &str = "/.well-known/agent-card.json";

/// Parses an absolute `https` URL with a host and no user information; the fragment is dropped.
pub(crate) fn parse_https(input: &str, what: &str) -> Result<Url, Error> {
    let mut url = Url::parse(input.trim()).map_err(|e| {
        Error::new(
            ErrorCode::InvalidUrl,
            format!("{what} {input:?} is not a URL: {e}"),
        )
    })?;
    check_https(&url, what)?;
    url.set_fragment(None);
    Ok(url)
}

/// Refuses anything but `https://host[:port]/...` without user information.
pub(crate) fn check_https(url: &Url, what: &str) -> Result<(), Error> {
    if url.scheme() != "https" {
        return Err(Error::new(
            ErrorCode::NotHttps,
            format!("{what} uses {}: only https is fetched", url.scheme()),
        )
        .with_url(url.as_str()));
    }
    if url.host().is_none() {
        return Err(Error::new(ErrorCode::InvalidUrl, format!("{what} has no host")).with_url(url.as_str()));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(Error::new(
            ErrorCode::InvalidUrl,
            format!("{what} carries user information, which is never sent"),
        )
        .with_url(url.as_str()));
    }
    Ok(())
}

/// The URL of the card for `input`: an origin (`https://agent.example.com`, with or without a
/// trailing `/`) means its well-known card path; any other URL is used as it is.
///
/// ```
/// use a2a_card_fetch::card_url;
/// assert_eq!(card_url("https://Agent.Example.com").unwrap(),
///            "https://agent.example.com/.well-known/agent-card.json");
/// assert_eq!(card_url("https://agent.example.com:8443/cards/a.json").unwrap(),
///            "https://agent.example.com:8443/cards/a.json");
/// assert_eq!(card_url("http://agent.example.com").unwrap_err().code().as_str(), "not-https");
/// ```
pub fn card_url(input: &str) -> Result<String, Error> {
    Ok(card_url_parsed(input)?.into())
}

/// The origin of the card `input` names: the origin of its card URL ([`card_url`]) by the
/// library's one rule for origins ([`Origin::https`]). It is the origin a fetched card is bound
/// to ([`crate::Fetched::origin`]), the one [`crate::Fetcher::verify_many`] counts a target
/// under, and the one a service bounds its retrievals by. Errors are [`card_url`]'s.
///
/// ```
/// use a2a_card_fetch::card_origin;
/// assert_eq!(card_origin("https://Agent.Example:443/cards/a.json").unwrap().as_str(), "https://agent.example");
/// assert_eq!(card_origin("https://[0:0::1]:8443").unwrap().as_str(), "https://[::1]:8443");
/// assert_eq!(card_origin("http://agent.example").unwrap_err().code().as_str(), "not-https");
/// ```
pub fn card_origin(input: &str) -> Result<Origin, Error> {
    let url = card_url_parsed(input)?;
    origin_of(&url).map_err(Error::caller_input)
}

pub(crate) fn card_url_parsed(input: &str) -> Result<Url, Error> {
    let mut url = parse_https(input, "the card URL").map_err(Error::caller_input)?;
    if url.path() == "/" && url.query().is_none() {
        url.set_path(WELL_KNOWN_PATH);
    }
    Ok(url)
}

/// The origin of an https URL, made from the host and port the `url` crate parsed (it has
/// already turned a host into its A-label and an IP address into its canonical form) by the
/// library's one rule for origins ([`Origin::https`]): never the URL's text read again. A host
/// the URL parser takes but an origin cannot hold (`https://a!b.example`) is `invalid-url`.
pub(crate) fn origin_of(url: &Url) -> Result<Origin, Error> {
    let host = url.host_str().unwrap_or_default();
    Origin::https(host, url.port()).map_err(|_| {
        Error::new(
            ErrorCode::InvalidUrl,
            format!(
                "the host {} is not one an origin can name: {ORIGIN_FORM}",
                printable(host)
            ),
        )
        .with_url(url.as_str())
    })
}

/// A `jku` allowlist entry: an https URL prefix. A `jku` matches when it has the same origin
/// and its path (with query) starts with the prefix's path at a segment boundary: the prefix
/// `https://keys.example.com/agents` matches `/agents`, `/agents/a.json` and `/agents?x`, but
/// not `/agents-old/a.json`. Dot segments are resolved before matching, and a path with an
/// encoded slash, backslash or dot (`%2f`, `%5c`, `%2e`, any case) never matches: a server may
/// decode `..%2f` into a step out of the prefix after the match was made.
///
/// ```
/// use a2a_card_fetch::JkuPrefix;
/// let p = JkuPrefix::parse("https://keys.example.com/agents/").unwrap();
/// assert!(p.matches("https://keys.example.com/agents/jwks.json"));
/// assert!(!p.matches("https://keys.example.com/agents/../admin/jwks.json"));
/// assert!(!p.matches("https://keys.example.com.evil.example/agents/jwks.json"));
/// assert!(!p.matches("https://keys.example.com/agents/..%2fadmin/jwks.json"));
/// assert_eq!(p.origin(), "https://keys.example.com");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JkuPrefix {
    url: Url,
    origin: Origin,
}

impl JkuPrefix {
    /// Parses an allowlist entry; it must be an https URL without user information, query or
    /// fragment.
    pub fn parse(prefix: &str) -> Result<JkuPrefix, Error> {
        let url = parse_https(prefix, "the jku allowlist prefix").map_err(Error::caller_input)?;
        if url.query().is_some() || prefix.contains('#') {
            return Err(Error::new(
                ErrorCode::InvalidUrl,
                "a jku allowlist prefix has no query or fragment",
            )
            .with_url(prefix)
            .caller_input());
        }
        let origin = origin_of(&url).map_err(Error::caller_input)?;
        Ok(JkuPrefix { url, origin })
    }

    /// The prefix as parsed (normalized).
    pub fn as_str(&self) -> &str {
        self.url.as_str()
    }

    /// The origin whose cards keys from this prefix may sign.
    pub fn origin(&self) -> &Origin {
        &self.origin
    }

    /// True when `jku` falls under this prefix.
    pub fn matches(&self, jku: &str) -> bool {
        match Url::parse(jku) {
            Ok(u) => self.matches_url(&u),
            Err(_) => false,
        }
    }

    pub(crate) fn matches_url(&self, jku: &Url) -> bool {
        if has_encoded_separator(jku.path())
            || jku.scheme() != "https"
            || origin_of(jku).ok().as_ref() != Some(&self.origin)
            || !jku.username().is_empty()
            || jku.password().is_some()
        {
            return false;
        }
        let prefix = self.url.path();
        let mut rest = jku.path().to_string();
        if let Some(q) = jku.query() {
            rest.push('?');
            rest.push_str(q);
        }
        match rest.strip_prefix(prefix) {
            None => false,
            Some(_) if prefix.ends_with('/') => true,
            Some(tail) => tail.is_empty() || tail.starts_with('/') || tail.starts_with('?'),
        }
    }
}

/// True when a URL path carries a percent-encoded `/`, `\\` or `.`, which a server may decode
/// into a path separator or a dot segment after the prefix was matched.
fn has_encoded_separator(path: &str) -> bool {
    let b = path.as_bytes();
    b.windows(3).any(|w| {
        w[0] == b'%' && w[1] == b'2' && matches!(w[2], b'f' | b'F' | b'e' | b'E')
            || w[0] == b'%' && w[1] == b'5' && matches!(w[2], b'c' | b'C')
    })
}
