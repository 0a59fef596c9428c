//! The options of a retrieval as a front end gives them: the table [`FETCH`] (rows of the
//! core's kind: canonical name, kind, default, bounds, documentation) and [`FetchRequest`],
//! which a front end fills by the rows and which makes the [`FetchOptions`], with the defaults
//! of a front end (the user's cache directory, the environment's proxy) and every bound. The
//! CLI makes its fetch flags from the rows; the rules are here.

use crate::options::{default_cache_dir, MAX_CA_FILE_BYTES};
use crate::{Error, ErrorCode, FetchOptions, Proxy, Roots};
use a2a_card::request::{check_count, check_seconds, option, Fronts, Kind, OptionSpec, OptionValue, Request};
use std::path::PathBuf;
use std::time::Duration;

/// The shortest timeout a front end may ask for: a millisecond (a zero timeout is an error for
/// sockets).
pub const MIN_TIMEOUT: Duration = Duration::from_millis(1);
/// The longest connect timeout a front end may ask for: ten minutes.
pub const MAX_CONNECT_TIMEOUT: Duration = Duration::from_secs(600);
/// The longest total timeout a front end may ask for: an hour.
pub const MAX_TOTAL_TIMEOUT: Duration = Duration::from_secs(3600);
/// The largest body limit a front end may ask for: 64 MiB.
pub const MAX_BODY_BYTES_LIMIT: usize = 64 * 1024 * 1024;
/// The most redirects a front end may allow.
pub const MAX_REDIRECTS_LIMIT: usize = 20;

/// The command line's alone (the packages do not fetch).
const CLI: Fronts = Fronts {
    cli: true,
    npm: false,
    python: false,
};

/// The options of a retrieval ([`FetchRequest`]).
///
/// ```
/// use a2a_card::request::option;
/// let redirects = option(a2a_card_fetch::FETCH, "max_redirects").unwrap();
/// assert_eq!(redirects.bounds(), Some((0, 20)));
/// assert_eq!(redirects.count_default(), Some(3));
/// ```
pub const FETCH: &[OptionSpec] = &[
    OptionSpec {
        name: "roots",
        kind: Kind::Path,
        fronts: CLI,
        doc: "Trust only the CA certificates in this PEM file for the server's certificate (a private CA), instead of the Mozilla roots. A regular file of at most 4 MiB (or a FIFO).",
    },
    OptionSpec {
        name: "connect_timeout",
        kind: Kind::Seconds {
            min: MIN_TIMEOUT,
            max: MAX_CONNECT_TIMEOUT,
            default: crate::DEFAULT_CONNECT_TIMEOUT,
        },
        fronts: CLI,
        doc: "Longest wait for one connection to be set up (name resolution, TCP, a proxy's tunnel, the TLS handshake), in seconds.",
    },
    OptionSpec {
        name: "timeout",
        kind: Kind::Seconds {
            min: MIN_TIMEOUT,
            max: MAX_TOTAL_TIMEOUT,
            default: crate::DEFAULT_TOTAL_TIMEOUT,
        },
        fronts: CLI,
        doc: "Longest time for one whole retrieval (resolution, redirects, TLS, body), in seconds.",
    },
    OptionSpec {
        name: "max_body_bytes",
        kind: Kind::Count {
            min: 1,
            max: MAX_BODY_BYTES_LIMIT,
            default: crate::DEFAULT_MAX_BODY_BYTES,
        },
        fronts: CLI,
        doc: "Refuse a response body larger than this many bytes; by default 1 MiB, at most 64 MiB.",
    },
    OptionSpec {
        name: "max_redirects",
        kind: Kind::Count {
            min: 0,
            max: MAX_REDIRECTS_LIMIT,
            default: crate::DEFAULT_MAX_REDIRECTS,
        },
        fronts: CLI,
        doc: "Follow at most this many redirects.",
    },
    OptionSpec {
        name: "allow_loopback",
        kind: Kind::Flag(false),
        fronts: CLI,
        doc: "Allow loopback addresses (127.0.0.0/8, ::1). For local testing only: it lets a card, a redirect or a jku reach services on this machine.",
    },
    OptionSpec {
        name: "no_cache",
        kind: Kind::Flag(false),
        fronts: CLI,
        doc: "Neither read nor write the HTTP cache.",
    },
    OptionSpec {
        name: "cache_dir",
        kind: Kind::Path,
        fronts: CLI,
        doc: "The HTTP cache directory; by default a2a-card in the user's cache directory ($XDG_CACHE_HOME/a2a-card or ~/.cache/a2a-card on Linux).",
    },
    OptionSpec {
        name: "proxy",
        kind: Kind::Text,
        fronts: CLI,
        doc: "Go through this HTTP proxy URL (http://HOST:PORT or https://HOST:PORT, with USER:PASSWORD@ for Basic authentication) instead of the one HTTPS_PROXY or ALL_PROXY names; hosts matched by NO_PROXY still go direct.",
    },
    OptionSpec {
        name: "no_proxy",
        kind: Kind::Flag(false),
        fronts: CLI,
        doc: "Connect directly, whatever HTTPS_PROXY, ALL_PROXY and NO_PROXY say.",
    },
];

/// The options of a retrieval, one member per row of [`FETCH`], as a front end read them;
/// `None` or `false` means the row's default. [`Request::build`] makes the [`FetchOptions`]:
/// the user's cache directory unless `no_cache` (or `cache_dir`), the environment's proxy
/// unless `no_proxy` (or `proxy`).
///
/// ```
/// use a2a_card::request::{OptionValue, Request};
/// use a2a_card_fetch::{FetchRequest, Proxy};
/// let mut r = FetchRequest::default();
/// r.set("max_redirects", OptionValue::Count(0)).unwrap();
/// r.set("no_proxy", OptionValue::Flag(true)).unwrap();
/// let o = r.build().unwrap();
/// assert_eq!((o.max_redirects, o.proxy), (0, Proxy::None));
/// let e = r.set("max_redirects", OptionValue::Count(21)).unwrap_err();
/// assert_eq!(e.message(), "max_redirects must be 0 to 20, got 21");
/// ```
#[derive(Debug, Clone, Default)]
pub struct FetchRequest {
    /// The CA file whose certificates are the only roots.
    pub roots: Option<PathBuf>,
    /// Longest wait for one connection.
    pub connect_timeout: Option<Duration>,
    /// Longest time for one whole retrieval.
    pub timeout: Option<Duration>,
    /// Largest body accepted.
    pub max_body_bytes: Option<usize>,
    /// Most redirects followed.
    pub max_redirects: Option<usize>,
    /// Allow loopback addresses.
    pub allow_loopback: bool,
    /// No HTTP cache.
    pub no_cache: bool,
    /// The cache directory.
    pub cache_dir: Option<PathBuf>,
    /// The proxy URL.
    pub proxy: Option<String>,
    /// No proxy, whatever the environment says.
    pub no_proxy: bool,
}

impl Request for FetchRequest {
    const TABLE: &'static [OptionSpec] = FETCH;
    const CONFLICTS: &'static [(&'static str, &'static str)] =
        &[("no_cache", "cache_dir"), ("proxy", "no_proxy")];
    type Built = FetchOptions;

    fn set(&mut self, name: &str, value: OptionValue) -> Result<(), a2a_card::Error> {
        use OptionValue as V;
        let row = || {
            option(FETCH, name).ok_or_else(|| a2a_card::request::refused_value(FETCH, name, "a retrieval"))
        };
        match (name, value) {
            ("roots", V::Path(p)) => self.roots = Some(p),
            ("connect_timeout", V::Seconds(d)) => self.connect_timeout = Some(check_seconds(row()?, d)?),
            ("timeout", V::Seconds(d)) => self.timeout = Some(check_seconds(row()?, d)?),
            ("max_body_bytes", V::Count(n)) => self.max_body_bytes = Some(check_count(row()?, n)?),
            ("max_redirects", V::Count(n)) => self.max_redirects = Some(check_count(row()?, n)?),
            ("allow_loopback", V::Flag(b)) => self.allow_loopback = b,
            ("no_cache", V::Flag(b)) => self.no_cache = b,
            ("cache_dir", V::Path(p)) => self.cache_dir = Some(p),
            ("proxy", V::Text(url)) => self.proxy = Some(url),
            ("no_proxy", V::Flag(b)) => self.no_proxy = b,
            (name, _) => return Err(a2a_card::request::refused_value(FETCH, name, "a retrieval")),
        }
        Ok(())
    }

    fn build(&self) -> Result<FetchOptions, a2a_card::Error> {
        let defaults = FetchOptions::default();
        let proxy = match &self.proxy {
            _ if self.no_proxy => Proxy::None,
            Some(url) => Proxy::named(url.clone()),
            None => Proxy::FromEnv,
        };
        Ok(FetchOptions {
            connect_timeout: self.connect_timeout.unwrap_or(defaults.connect_timeout),
            total_timeout: self.timeout.unwrap_or(defaults.total_timeout),
            max_body_bytes: self.max_body_bytes.unwrap_or(defaults.max_body_bytes),
            max_redirects: self.max_redirects.unwrap_or(defaults.max_redirects),
            allow_loopback: self.allow_loopback,
            roots: self.roots.clone().map(Roots::CaFile).unwrap_or_default(),
            cache_dir: match self.no_cache {
                true => None,
                false => self.cache_dir.clone().or_else(default_cache_dir),
            },
            proxy,
            ..defaults
        })
    }
}

impl FetchOptions {
    /// Checks the CA file of [`Roots::CaFile`] before anything is fetched, since the fetcher
    /// reads it whole: a device, a socket or a directory is refused (a device such as
    /// /dev/zero would be read forever), and so is a file larger than 4 MiB; a FIFO is allowed
    /// (a CA file given as `<(command)`). A file that cannot be looked at is left to the
    /// retrieval, whose error says so. Refusals are `ca-file` errors.
    ///
    /// ```
    /// use a2a_card_fetch::{FetchOptions, Roots};
    /// let dir = FetchOptions { roots: Roots::CaFile(std::env::temp_dir()), ..FetchOptions::default() };
    /// assert_eq!(dir.check_ca_file().unwrap_err().code().as_str(), "ca-file");
    /// assert!(FetchOptions::default().check_ca_file().is_ok());
    /// ```
    pub fn check_ca_file(&self) -> Result<(), Error> {
        let Some(path) = self.roots.ca_file() else {
            return Ok(());
        };
        let Ok(meta) = std::fs::metadata(path) else {
            return Ok(());
        };
        let source = path.display();
        let refuse = |message: String| Err(Error::new(ErrorCode::CaFile, message));
        if !meta.is_file() && !is_fifo(&meta) {
            return refuse(format!(
                "{source} is {}, not a regular file; refusing to read it as CA certificates",
                kind_of(&meta)
            ));
        }
        if meta.len() > MAX_CA_FILE_BYTES {
            return refuse(format!(
                "{source} is {} bytes, more than the limit of {MAX_CA_FILE_BYTES} bytes for a CA file",
                meta.len()
            ));
        }
        Ok(())
    }
}

/// Whether the file is a FIFO (named pipe).
fn is_fifo(meta: &std::fs::Metadata) -> bool {
    #[cfg(unix)]
    return std::os::unix::fs::FileTypeExt::is_fifo(&meta.file_type());
    #[cfg(not(unix))]
    return false;
}

/// What a file that is not a regular file is, in words.
fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
    }
    if t.is_dir() {
        "a directory"
    } else {
        "a special file"
    }
}

/// The scheduling options of many remote verifications ([`ManyRequest`], making the
/// [`crate::ManyOptions`]).
///
/// ```
/// use a2a_card::request::option;
/// let c = option(a2a_card_fetch::MANY, "concurrency").unwrap();
/// assert_eq!((c.bounds(), c.count_default()), (Some((1, 1024)), Some(32)));
/// ```
pub const MANY: &[OptionSpec] = &[
    OptionSpec {
        name: "concurrency",
        kind: Kind::Count {
            min: 1,
            max: crate::MAX_CONCURRENCY,
            default: crate::DEFAULT_CONCURRENCY,
        },
        fronts: CLI,
        doc: "Most verifications in flight at once.",
    },
    OptionSpec {
        name: "per_origin",
        kind: Kind::Count {
            min: 1,
            max: crate::MAX_PER_ORIGIN,
            default: crate::DEFAULT_PER_ORIGIN,
        },
        fronts: CLI,
        doc: "Most verifications in flight at once for one origin.",
    },
    OptionSpec {
        name: "delay_ms",
        kind: Kind::Count {
            min: 0,
            max: crate::MAX_ORIGIN_DELAY.as_millis() as usize,
            default: 0,
        },
        fronts: CLI,
        doc: "The least time between two requests started to the same origin, in milliseconds.",
    },
    OptionSpec {
        name: "unordered",
        kind: Kind::Flag(false),
        fronts: CLI,
        doc: "Give each result as its card finishes instead of in input order.",
    },
];

/// The scheduling of many remote verifications, one member per row of [`MANY`].
///
/// ```
/// use a2a_card::request::{OptionValue, Request};
/// let mut r = a2a_card_fetch::ManyRequest::default();
/// r.set("delay_ms", OptionValue::Count(150)).unwrap();
/// r.set("unordered", OptionValue::Flag(true)).unwrap();
/// let o = r.build().unwrap();
/// assert_eq!((o.origin_delay.as_millis(), o.ordered, o.concurrency), (150, false, 32));
/// assert!(r.set("per_origin", OptionValue::Count(0)).is_err());
/// ```
#[derive(Debug, Clone, Default)]
pub struct ManyRequest {
    /// Most verifications in flight.
    pub concurrency: Option<usize>,
    /// Most verifications in flight for one origin.
    pub per_origin: Option<usize>,
    /// The politeness delay per origin, in milliseconds.
    pub delay_ms: Option<usize>,
    /// Results as they finish rather than in input order.
    pub unordered: bool,
}

impl Request for ManyRequest {
    const TABLE: &'static [OptionSpec] = MANY;
    type Built = crate::ManyOptions;

    fn set(&mut self, name: &str, value: OptionValue) -> Result<(), a2a_card::Error> {
        let refused = || a2a_card::request::refused_value(MANY, name, "a batch of remote verifications");
        let count = |n| check_count(option(MANY, name).ok_or_else(refused)?, n);
        match (name, value) {
            ("concurrency", OptionValue::Count(n)) => self.concurrency = Some(count(n)?),
            ("per_origin", OptionValue::Count(n)) => self.per_origin = Some(count(n)?),
            ("delay_ms", OptionValue::Count(n)) => self.delay_ms = Some(count(n)?),
            ("unordered", OptionValue::Flag(b)) => self.unordered = b,
            _ => return Err(refused()),
        }
        Ok(())
    }

    fn build(&self) -> Result<crate::ManyOptions, a2a_card::Error> {
        let defaults = crate::ManyOptions::default();
        Ok(crate::ManyOptions {
            concurrency: self.concurrency.unwrap_or(defaults.concurrency),
            per_origin: self.per_origin.unwrap_or(defaults.per_origin),
            origin_delay: Duration::from_millis(self.delay_ms.unwrap_or(0) as u64),
            ordered: !self.unordered,
        })
    }
}

/// The options of a remote verification besides the verify options ([`RemoteRequest`],
/// making the [`crate::RemoteOptions`]): where a signature's `jku` may be fetched from, and
/// how large its JWK Set may be.
///
/// ```
/// use a2a_card::request::option;
/// let keys = option(a2a_card_fetch::REMOTE, "max_jwks_keys").unwrap();
/// assert_eq!((keys.bounds(), keys.count_default()), (Some((1, 1024)), Some(64)));
/// ```
pub const REMOTE: &[OptionSpec] = &[
    OptionSpec {
        name: "allow_jku",
        kind: Kind::Texts,
        fronts: CLI,
        doc: "A URL prefix under which a signature's jku may be fetched (https). Its keys are trusted only for cards whose origin is the prefix's origin. Only with a URL.",
    },
    OptionSpec {
        name: "max_jwks_keys",
        kind: Kind::Count {
            min: 1,
            max: MAX_JWKS_KEYS_LIMIT,
            default: crate::DEFAULT_MAX_JWKS_KEYS,
        },
        fronts: CLI,
        doc: "The most keys a JWK Set fetched from a jku may hold; a larger set fails that jku. Only with a URL.",
    },
];

/// The most keys a front end may allow in a JWK Set fetched from a `jku`.
pub const MAX_JWKS_KEYS_LIMIT: usize = 1024;

/// The options of a remote verification besides the verify options, one member per row of
/// [`REMOTE`]; [`Request::build`] makes the [`crate::RemoteOptions`] with the default verify
/// options, which a front end replaces with its own.
///
/// ```
/// use a2a_card::request::{OptionValue, Request};
/// let mut r = a2a_card_fetch::RemoteRequest::default();
/// r.set("allow_jku", OptionValue::Texts(vec!["https://a.example/keys/".into()])).unwrap();
/// let o = r.build().unwrap();
/// assert_eq!((o.jku_allow.len(), o.max_jwks_keys), (1, 64));
/// ```
#[derive(Debug, Clone, Default)]
pub struct RemoteRequest {
    /// The `jku` prefixes allowed.
    pub allow_jku: Vec<String>,
    /// The most keys of a JWK Set fetched from a `jku`.
    pub max_jwks_keys: Option<usize>,
}

impl Request for RemoteRequest {
    const TABLE: &'static [OptionSpec] = REMOTE;
    type Built = crate::RemoteOptions;

    fn set(&mut self, name: &str, value: OptionValue) -> Result<(), a2a_card::Error> {
        let refused = || a2a_card::request::refused_value(REMOTE, name, "a remote verification");
        match (name, value) {
            ("allow_jku", OptionValue::Texts(v)) => self.allow_jku = v,
            ("max_jwks_keys", OptionValue::Count(n)) => {
                self.max_jwks_keys = Some(check_count(option(REMOTE, name).ok_or_else(refused)?, n)?)
            }
            _ => return Err(refused()),
        }
        Ok(())
    }

    fn build(&self) -> Result<crate::RemoteOptions, a2a_card::Error> {
        let defaults = crate::RemoteOptions::default();
        Ok(crate::RemoteOptions {
            jku_allow: self.allow_jku.clone(),
            max_jwks_keys: self.max_jwks_keys.unwrap_or(defaults.max_jwks_keys),
            ..defaults
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_options_follow_the_request() {
        let o = FetchRequest::default().build().unwrap();
        assert_eq!(o.max_redirects, crate::DEFAULT_MAX_REDIRECTS);
        assert_eq!(o.total_timeout, crate::DEFAULT_TOTAL_TIMEOUT);
        assert_eq!((o.proxy, o.cache_dir), (Proxy::FromEnv, default_cache_dir()));
        let o = FetchRequest {
            no_cache: true,
            roots: Some("ca.pem".into()),
            timeout: Some(Duration::from_millis(1500)),
            ..FetchRequest::default()
        }
        .build()
        .unwrap();
        assert!(o.cache_dir.is_none() && !o.allow_loopback);
        assert_eq!(o.roots, Roots::CaFile("ca.pem".into()));
        assert_eq!(o.total_timeout, Duration::from_millis(1500));
        let o = FetchRequest {
            proxy: Some("http://127.0.0.1:3128".into()),
            cache_dir: Some("c".into()),
            ..FetchRequest::default()
        }
        .build()
        .unwrap();
        assert!(matches!(o.proxy, Proxy::Url { url, .. } if url == "http://127.0.0.1:3128"));
        assert_eq!(o.cache_dir, Some(PathBuf::from("c")));
        // A value past its row's bounds, of another kind, or of no row is refused.
        let mut r = FetchRequest::default();
        let e = r
            .set("timeout", OptionValue::Seconds(Duration::from_secs(3601)))
            .unwrap_err();
        assert_eq!(e.option(), Some("timeout"));
        assert_eq!(e.message(), "timeout must be 0.001 to 3600 seconds, got 3601");
        assert!(r.set("timeout", OptionValue::Count(1)).is_err());
        assert!(r.set("no_such_option", OptionValue::Flag(true)).is_err());
        assert!(r.set("max_body_bytes", OptionValue::Count(0)).is_err());
    }

    #[test]
    fn a_ca_file_that_is_not_a_small_file_is_refused() {
        let dir = std::env::temp_dir().join(format!("a2a-card-ca-check-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let with = |path: PathBuf| FetchOptions {
            roots: Roots::CaFile(path),
            ..FetchOptions::default()
        };
        let e = with(dir.clone()).check_ca_file().unwrap_err();
        assert_eq!(e.code(), ErrorCode::CaFile);
        assert!(e.message().contains("is a directory, not a regular file"), "{e}");
        let big = dir.join("big.pem");
        std::fs::write(&big, vec![b'x'; MAX_CA_FILE_BYTES as usize + 1]).unwrap();
        let e = with(big).check_ca_file().unwrap_err();
        assert!(
            e.message().contains("more than the limit of 4194304 bytes"),
            "{e}"
        );
        let small = dir.join("small.pem");
        std::fs::write(&small, "not read here").unwrap();
        assert!(with(small).check_ca_file().is_ok());
        // A missing file is the retrieval's to report.
        assert!(with(dir.join("missing.pem")).check_ca_file().is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
