//! [`Origin`]: the https origin a card came from, read once from a caller's text (an option, a
//! trust entry's `origins`) or from a fetched URL's parts, and compared, printed and matched
//! against certificates as that one value from then on.

use crate::error::{Error, ErrorCode};
use std::fmt;
use std::str::FromStr;

/// How an origin is written, for messages that refuse one.
pub const ORIGIN_FORM: &str =
    "an origin is \"https://host\" or \"https://host:port\" (no path), with a host \
     that is not ASCII written as its A-label (xn--...) and an IPv4 address as four decimal numbers";

/// An https origin (`https://host[:port]`) in its canonical spelling, as a browser (and the
/// fetcher, through the `url` crate) serializes it: scheme and host lower-cased, the default
/// port (443) dropped, the port written as a plain number, an IPv6 address in its RFC 5952 form
/// (`[0:0::1]` -> `[::1]`). One trailing `/` is allowed in the text read.
///
/// Refused (a `usage` error about the option `origin`, saying how an origin is written,
/// [`ORIGIN_FORM`], and quoting the text escaped, never raw): a scheme other than `https`; a
/// path, query, fragment or userinfo; an empty host; a character outside a host name (a
/// control character such as NUL, a space, a percent sign); a port past 65535; and spellings
/// that a browser would rewrite in ways this type does not: a host that is not ASCII (write its
/// A-label, `xn--...`), or an IPv4 address not written as four decimal numbers (`127.1`,
/// `0x7f.0.0.1`). Two spellings of one origin read as equal values, and no spelling reads as
/// another origin.
///
/// ```
/// use a2a_card::signature::Origin;
/// let o: Origin = "https://Agent.Example:443/".parse().unwrap();
/// assert_eq!(o.to_string(), "https://agent.example");
/// assert_eq!((o.host(), o.port()), ("agent.example", None));
/// let v6: Origin = "https://[0:0::1]:8443".parse().unwrap();
/// assert_eq!((v6.as_str(), v6.host(), v6.port()), ("https://[::1]:8443", "::1", Some(8443)));
/// let e = "http://agent.example".parse::<Origin>().unwrap_err();
/// assert_eq!((e.code().as_str(), e.option()), ("usage", Some("origin")));
/// assert!(e.message().starts_with("\"http://agent.example\" is not an origin: "));
/// assert!("https://b\u{fc}cher.example".parse::<Origin>().is_err()); // https://xn--bcher-kva.example
/// assert!("https://127.1".parse::<Origin>().is_err());
/// // serde: the canonical spelling, read by the same rule.
/// let read: Origin = serde_json::from_str("\"HTTPS://Agent.example:443\"").unwrap();
/// assert_eq!(serde_json::to_string(&read).unwrap(), "\"https://agent.example\"");
/// assert!(serde_json::from_str::<Origin>("\"https://agent.example/x\"").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Origin {
    /// `https://host[:port]`, canonical.
    text: String,
    /// The host as `text` writes it (an IPv6 address in brackets).
    host: String,
    /// The port, `None` for 443.
    port: Option<u16>,
}

impl Origin {
    /// The origin of an https URL already split into its host (as a URL writes it: an IPv6
    /// address in brackets) and its port (`None` for the default), as a URL parser gives them:
    /// the host read by the same rules as [`Origin::from_str`].
    ///
    /// ```
    /// use a2a_card::signature::Origin;
    /// assert_eq!(Origin::https("Agent.example", Some(443)).unwrap().as_str(), "https://agent.example");
    /// assert_eq!(Origin::https("[::1]", Some(8443)).unwrap().as_str(), "https://[::1]:8443");
    /// assert!(Origin::https("a b.example", None).is_err());
    /// ```
    pub fn https(host: &str, port: Option<u16>) -> Result<Origin, Error> {
        Origin::read(host, port).ok_or_else(|| match port {
            Some(p) => refused(&format!("https://{host}:{p}")),
            None => refused(&format!("https://{host}")),
        })
    }

    /// The scheme: `https`.
    pub fn scheme(&self) -> &'static str {
        "https"
    }

    /// The host: a DNS name lower-cased, an IPv4 address, or an IPv6 address without its
    /// brackets.
    pub fn host(&self) -> &str {
        self.host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(&self.host)
    }

    /// The port, `None` for the default (443).
    pub fn port(&self) -> Option<u16> {
        self.port
    }

    /// The canonical spelling, `https://host[:port]`.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The origin of a host (bracketed for IPv6) and port, `None` when the host is not one.
    fn read(host: &str, port: Option<u16>) -> Option<Origin> {
        let host = match host.strip_prefix('[') {
            Some(v6) => {
                let ip: std::net::Ipv6Addr = v6.strip_suffix(']')?.parse().ok()?;
                format!("[{ip}]")
            }
            None => canonical_host(host)?,
        };
        let port = port.filter(|&p| p != 443);
        let text = match port {
            Some(p) => format!("https://{host}:{p}"),
            None => format!("https://{host}"),
        };
        Some(Origin { text, host, port })
    }

    /// [`Origin::from_str`] without the error.
    fn parse_text(s: &str) -> Option<Origin> {
        let s = s.strip_suffix('/').unwrap_or(s);
        if !s.get(..8)?.eq_ignore_ascii_case("https://") {
            return None;
        }
        let rest = &s[8..];
        if rest.is_empty() || rest.contains(['/', '?', '#', '@', '\\']) || !rest.is_ascii() {
            return None;
        }
        // Split host and port; an IPv6 host is bracketed and holds colons of its own.
        let (host, port) = match rest.strip_prefix('[') {
            Some(v6) => {
                let (addr, after) = v6.split_once(']')?;
                let port = match after {
                    "" => None,
                    p => Some(p.strip_prefix(':')?),
                };
                (&rest[..addr.len() + 2], port)
            }
            None => match rest.split_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (rest, None),
            },
        };
        let port = match port {
            None => None,
            Some(digits) => {
                if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                Some(digits.parse::<u16>().ok()?)
            }
        };
        Origin::read(host, port)
    }
}

/// The refusal of a text that is not an origin.
fn refused(s: &str) -> Error {
    Error::new(
        ErrorCode::Usage,
        format!(
            "\"{}\" is not an origin: {ORIGIN_FORM}",
            crate::signature::report::printable(s)
        ),
    )
    .for_option("origin")
}

impl FromStr for Origin {
    type Err = Error;

    fn from_str(s: &str) -> Result<Origin, Error> {
        Origin::parse_text(s).ok_or_else(|| refused(s))
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl AsRef<str> for Origin {
    fn as_ref(&self) -> &str {
        &self.text
    }
}

impl PartialEq<str> for Origin {
    fn eq(&self, other: &str) -> bool {
        self.text == other
    }
}

impl PartialEq<&str> for Origin {
    fn eq(&self, other: &&str) -> bool {
        self.text == *other
    }
}

impl PartialEq<String> for Origin {
    fn eq(&self, other: &String) -> bool {
        self.text == *other
    }
}

impl serde::Serialize for Origin {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text)
    }
}

impl<'de> serde::Deserialize<'de> for Origin {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Origin, D::Error> {
        let text = String::deserialize(d)?;
        text.parse()
            .map_err(|e: Error| serde::de::Error::custom(e.message()))
    }
}

/// A DNS name lower-cased, or an IPv4 address in its four-decimal form; `None` for an empty
/// host and for a host a browser would read as an IPv4 address written otherwise (its last
/// label a number: `127.1`, `0x7f.0.0.1`, `2130706433`).
fn canonical_host(host: &str) -> Option<String> {
    let host = host.to_ascii_lowercase();
    // A host name's characters only: no control character (NUL), space, percent sign or
    // anything else a URL parser would refuse or rewrite.
    if host.is_empty()
        || !host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_'))
    {
        return None;
    }
    let last = host.trim_end_matches('.').rsplit('.').next().unwrap_or("");
    let numeric = !last.is_empty()
        && (last.bytes().all(|b| b.is_ascii_digit())
            || last
                .strip_prefix("0x")
                .is_some_and(|hex| hex.bytes().all(|b| b.is_ascii_hexdigit())));
    if numeric {
        let ip: std::net::Ipv4Addr = host.parse().ok()?;
        if ip.to_string() != host {
            return None;
        }
    }
    Some(host)
}
