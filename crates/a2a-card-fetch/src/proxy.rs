//! The proxy a fetcher goes through, read once when the fetcher is built: its URL (checked),
//! the form shown to people (without credentials), and which targets it carries. The rules of
//! `NO_PROXY` are hyper-util's matcher, the same one reqwest builds from the same values, so
//! the fetcher's own checks and the connections reqwest makes agree on every URL.

use crate::options::Proxy;
use crate::{Error, ErrorCode};
use hyper_util::client::proxy::matcher::Matcher;
use std::net::IpAddr;
use url::{Host, Url};

/// A configured proxy.
pub(crate) struct ProxyRoute {
    /// The URL, credentials included (given to reqwest only).
    url: Url,
    /// The URL without credentials, for messages and reports.
    shown: String,
    /// The host, lower-case (a name to resolve, or a literal address).
    host: ProxyHost,
    no_proxy: String,
    matcher: Matcher,
}

/// The proxy's host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ProxyHost {
    Name(String),
    Ip(IpAddr),
}

impl std::fmt::Debug for ProxyRoute {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProxyRoute")
            .field("url", &self.shown)
            .field("no_proxy", &self.no_proxy)
            .finish()
    }
}

/// A proxy URL without its user information.
fn without_credentials(url: &Url) -> String {
    let mut shown = url.clone();
    let _ = shown.set_username("");
    let _ = shown.set_password(None);
    shown.as_str().trim_end_matches('/').to_string()
}

impl ProxyRoute {
    /// The route for `proxy`, or `None` when there is none. A proxy URL that cannot be used is
    /// the caller's input refused (`invalid-url`), shown without its credentials.
    pub(crate) fn new(proxy: &Proxy) -> Result<Option<ProxyRoute>, Error> {
        match proxy {
            Proxy::FromEnv => Self::build(&Proxy::from_env())
                .map_err(|e| e.context("the proxy of the environment (HTTPS_PROXY or ALL_PROXY)")),
            other => Self::build(other),
        }
    }

    fn build(proxy: &Proxy) -> Result<Option<ProxyRoute>, Error> {
        let (given, no_proxy) = match proxy {
            Proxy::None | Proxy::FromEnv => return Ok(None),
            Proxy::Url { url, no_proxy } => (url.clone(), no_proxy.clone()),
        };
        let given = given.trim();
        let with_scheme = if given.contains("://") {
            given.to_string()
        } else {
            format!("http://{given}")
        };
        let refuse = |why: String| Error::new(ErrorCode::InvalidUrl, why).caller_input();
        let url = Url::parse(&with_scheme).map_err(|e| {
            // The text may hold a password: say only where it went wrong.
            refuse(format!("the proxy URL is not a URL: {e}"))
        })?;
        let shown = without_credentials(&url);
        match url.scheme() {
            "http" | "https" => {}
            other => {
                return Err(refuse(format!(
                    "the proxy {shown} uses {other}: only http:// and https:// proxies are supported"
                )))
            }
        }
        if !matches!(url.path(), "" | "/") || url.query().is_some() || url.fragment().is_some() {
            return Err(refuse(format!(
                "the proxy URL {shown} has a path, query or fragment; give http://HOST:PORT"
            )));
        }
        let host = match url.host() {
            Some(Host::Domain(d)) => ProxyHost::Name(d.to_ascii_lowercase()),
            Some(Host::Ipv4(a)) => ProxyHost::Ip(a.into()),
            Some(Host::Ipv6(a)) => ProxyHost::Ip(a.into()),
            None => return Err(refuse(format!("the proxy URL {shown} has no host"))),
        };
        let matcher = Matcher::builder()
            .https(url.as_str().to_string())
            .no(no_proxy.clone())
            .build();
        Ok(Some(ProxyRoute {
            url,
            shown,
            host,
            no_proxy,
            matcher,
        }))
    }

    /// The proxy as reqwest takes it (the same URL and `NO_PROXY` list as [`Self::carries`]).
    pub(crate) fn to_reqwest(&self) -> Result<reqwest::Proxy, Error> {
        let proxy = reqwest::Proxy::https(self.url.as_str()).map_err(|e| {
            Error::new(
                ErrorCode::InvalidUrl,
                format!("the proxy {} cannot be used: {e}", self.shown),
            )
            .caller_input()
        })?;
        Ok(proxy.no_proxy(reqwest::NoProxy::from_string(&self.no_proxy)))
    }

    /// True when a request for `target` goes through the proxy (its host is not matched by
    /// the `NO_PROXY` list).
    pub(crate) fn carries(&self, target: &Url) -> bool {
        match target.as_str().parse::<http::Uri>() {
            Ok(uri) => self.matcher.intercept(&uri).is_some(),
            // A URL hyper cannot represent is never sent at all.
            Err(_) => false,
        }
    }

    /// The proxy without credentials: `http://proxy.example:3128`.
    pub(crate) fn shown(&self) -> &str {
        &self.shown
    }

    /// The proxy's host.
    pub(crate) fn host(&self) -> &ProxyHost {
        &self.host
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn route(url: &str, no_proxy: &str) -> Result<Option<ProxyRoute>, Error> {
        ProxyRoute::new(&Proxy::Url {
            url: url.into(),
            no_proxy: no_proxy.into(),
        })
    }

    #[test]
    fn urls_and_no_proxy() {
        let r = route(
            "user:s3cret@Proxy.Example:3128",
            "localhost, .internal.example,10.0.0.0/8",
        )
        .unwrap()
        .unwrap();
        assert_eq!(r.shown(), "http://proxy.example:3128");
        assert_eq!(r.host(), &ProxyHost::Name("proxy.example".into()));
        assert!(!format!("{r:?}").contains("s3cret"));
        let u = |s: &str| Url::parse(s).unwrap();
        assert!(r.carries(&u("https://agent.example.com/")));
        assert!(!r.carries(&u("https://localhost:8443/")));
        assert!(!r.carries(&u("https://a.internal.example/")));
        assert!(!r.carries(&u("https://10.1.2.3/")));
        assert!(r.carries(&u("https://11.1.2.3/")));
        let all = route("http://127.0.0.1:1", "*").unwrap().unwrap();
        assert!(!all.carries(&u("https://agent.example.com/")));
        assert_eq!(all.host(), &ProxyHost::Ip("127.0.0.1".parse().unwrap()));
    }

    #[test]
    fn unusable_proxies_are_refused_without_their_credentials() {
        for (url, needle) in [
            ("socks5://u:s3cret@proxy:1080", "only http:// and https://"),
            ("http://u:s3cret@proxy:3128/path", "path"),
            ("http://u:s3cret@[::1", "not a URL"),
        ] {
            let e = route(url, "").unwrap_err();
            assert_eq!(e.code(), ErrorCode::InvalidUrl, "{url}");
            assert!(e.is_caller_input());
            assert!(e.message().contains(needle), "{url}: {e}");
            assert!(!e.message().contains("s3cret"), "{url}: {e}");
        }
        assert!(ProxyRoute::new(&Proxy::None).unwrap().is_none());
    }
}
