//! The options of every retrieval, the TLS roots and the proxy choice, with their defaults.

use crate::{Error, ErrorCode};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::CertificateDer;
use rustls::RootCertStore;
use std::path::PathBuf;
use std::time::Duration;

/// Default connect timeout: 10 s.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Default total timeout of one retrieval (resolution, redirects, TLS, body): 30 s.
pub const DEFAULT_TOTAL_TIMEOUT: Duration = Duration::from_secs(30);
/// Default body limit: 1 MiB.
pub const DEFAULT_MAX_BODY_BYTES: usize = 1024 * 1024;
/// Default limit on the keys of a JWK Set fetched from a `jku`: 64.
pub const DEFAULT_MAX_JWKS_KEYS: usize = 64;
/// The longest timeout the fetcher honours (one day); a longer one is treated as this.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(86_400);
/// Default redirect limit: 3.
pub const DEFAULT_MAX_REDIRECTS: usize = 3;
/// The most a CA file may hold: a bundle of every public root is about 250 KB.
pub(crate) const MAX_CA_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// The root certificates a server's certificate must chain to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Roots {
    /// The Mozilla root program, compiled in (`webpki-roots`). The default.
    #[default]
    WebPki,
    /// Only the CA certificates in this PEM file (a private CA); the public roots are not used.
    CaFile(PathBuf),
    /// Only the CA certificates in this PEM text.
    CaPem(Vec<u8>),
}

impl Roots {
    /// The file of [`Roots::CaFile`].
    ///
    /// ```
    /// use a2a_card_fetch::Roots;
    /// let roots = Roots::CaFile("ca.pem".into());
    /// assert_eq!(roots.ca_file(), Some(std::path::Path::new("ca.pem")));
    /// assert_eq!(Roots::WebPki.ca_file(), None);
    /// ```
    pub fn ca_file(&self) -> Option<&std::path::Path> {
        match self {
            Roots::CaFile(path) => Some(path),
            _ => None,
        }
    }
}

/// Which HTTP proxy retrievals go through. The default is none: the fetcher connects to the
/// servers itself, and the [guard](crate::guard) checks every address it connects to.
///
/// Through a proxy the proxy resolves the names and connects; the guard still refuses, before
/// anything is sent to the proxy, an IP-literal target it would refuse, a name that resolves
/// *here* to an address it would refuse, and every redirect target it would refuse (see the
/// crate documentation, "Proxies"). The proxy's own address is allowed whatever its class,
/// because the caller named it; nothing else is.
///
/// ```
/// use a2a_card_fetch::{FetchOptions, Proxy};
/// let opts = FetchOptions {
///     proxy: Proxy::Url {
///         url: "http://proxy.corp.example:3128".into(),
///         no_proxy: "localhost,.internal.example".into(),
///     },
///     ..FetchOptions::default()
/// };
/// assert_ne!(opts.proxy, Proxy::None);
/// assert_eq!(FetchOptions::default().proxy, Proxy::None);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Proxy {
    /// No proxy (the default), whatever the environment says.
    #[default]
    None,
    /// The proxy the environment names when the fetcher is built: `HTTPS_PROXY` (or
    /// `https_proxy`), else `ALL_PROXY` (or `all_proxy`); hosts matched by `NO_PROXY` (or
    /// `no_proxy`) are fetched directly. No variable set: no proxy.
    FromEnv,
    /// This proxy: `http://HOST:PORT` (CONNECT over plain TCP) or `https://HOST:PORT` (TLS to
    /// the proxy too, checked against the same roots), with `USER:PASSWORD@` for Basic
    /// authentication (never shown in errors or output). A URL without a scheme is `http://`.
    Url {
        /// The proxy URL.
        url: String,
        /// Hosts fetched directly, in `NO_PROXY` syntax: a comma-separated list of names
        /// (`example.com` also matches its subdomains), IP addresses or CIDR blocks; `*` is
        /// every host. Empty: every host goes through the proxy.
        no_proxy: String,
    },
}

impl Proxy {
    /// [`Proxy::FromEnv`] read now: the `Url` it names, or `None` when no variable is set.
    ///
    /// ```
    /// // With none of HTTPS_PROXY, https_proxy, ALL_PROXY or all_proxy set:
    /// # for v in ["HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"] { std::env::remove_var(v); }
    /// assert_eq!(a2a_card_fetch::Proxy::from_env(), a2a_card_fetch::Proxy::None);
    /// ```
    pub fn from_env() -> Proxy {
        match first_env(&["HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"]) {
            None => Proxy::None,
            Some(url) => Proxy::named(url),
        }
    }

    /// The proxy at `url`, with the environment's `NO_PROXY` (or `no_proxy`) list (what
    /// `a2a-card --proxy URL` uses).
    ///
    /// ```
    /// use a2a_card_fetch::Proxy;
    /// std::env::set_var("NO_PROXY", "localhost");
    /// assert_eq!(
    ///     Proxy::named("http://127.0.0.1:3128"),
    ///     Proxy::Url { url: "http://127.0.0.1:3128".into(), no_proxy: "localhost".into() }
    /// );
    /// ```
    pub fn named(url: impl Into<String>) -> Proxy {
        Proxy::Url {
            url: url.into(),
            no_proxy: first_env(&["NO_PROXY", "no_proxy"]).unwrap_or_default(),
        }
    }
}

/// The first of these variables that is set and not blank, trimmed.
fn first_env(names: &[&str]) -> Option<String> {
    names
        .iter()
        .filter_map(|n| std::env::var(n).ok())
        .map(|v| v.trim().to_string())
        .find(|v| !v.is_empty())
}

/// Options of every retrieval.
///
/// ```
/// let opts = a2a_card_fetch::FetchOptions::default();
/// assert_eq!(opts.total_timeout.as_secs(), 30);
/// assert_eq!(opts.max_body_bytes, 1 << 20);
/// assert!(!opts.allow_loopback && opts.cache_dir.is_none() && !opts.memory_cache);
/// assert!(opts.http2 && opts.compression);
/// ```
#[derive(Debug, Clone)]
pub struct FetchOptions {
    /// Longest wait for one connection to be set up: name resolution, TCP, the proxy's tunnel
    /// and the TLS handshake (default 10 s).
    pub connect_timeout: Duration,
    /// Longest time for one whole retrieval, redirects included (default 30 s).
    pub total_timeout: Duration,
    /// Largest body accepted, counted after decoding (default 1 MiB).
    pub max_body_bytes: usize,
    /// Most redirects followed (default 3).
    pub max_redirects: usize,
    /// Allow plain loopback addresses (`127.0.0.0/8`, `::1`). For local testing only: it lets a
    /// remote card or redirect reach services on this machine.
    pub allow_loopback: bool,
    /// The TLS trust roots.
    pub roots: Roots,
    /// The cache directory; `None` keeps nothing on disk. [`default_cache_dir`] gives the
    /// user's.
    pub cache_dir: Option<PathBuf>,
    /// Keep cache entries in memory between the retrievals of one [`crate::Fetcher`] and its
    /// clones (default false): with [`FetchOptions::cache_dir`] the disk is written through and
    /// read only for an entry not in memory; without it, this memory is the cache. For a
    /// long-running program that keeps its fetcher: an entry is then reused with no file read
    /// and no blocking task. Bounded by [`crate::cache::MEMORY_MAX_ENTRIES`] and
    /// [`crate::cache::MEMORY_MAX_BYTES`]. With neither this nor a directory, caching is off.
    pub memory_cache: bool,
    /// The `User-Agent` sent (control characters are dropped).
    pub user_agent: String,
    /// The proxy (default: none).
    pub proxy: Proxy,
    /// Offer HTTP/2 by ALPN (default true); a server that does not take it is spoken to in
    /// HTTP/1.1.
    pub http2: bool,
    /// Ask for compressed bodies (`Accept-Encoding: gzip, br`, default true): a gzip or brotli
    /// body is decoded, the body limit counts the decoded bytes, and the body must be exactly
    /// one whole stream (bytes after it, a second gzip member, or a stream cut short are
    /// refused as `http-protocol`). `false` sends `Accept-Encoding: identity` and refuses a
    /// coded body.
    pub compression: bool,
}

impl Default for FetchOptions {
    fn default() -> Self {
        FetchOptions {
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            total_timeout: DEFAULT_TOTAL_TIMEOUT,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            max_redirects: DEFAULT_MAX_REDIRECTS,
            allow_loopback: false,
            roots: Roots::WebPki,
            cache_dir: None,
            memory_cache: false,
            user_agent: concat!("a2a-card-fetch/", env!("CARGO_PKG_VERSION")).to_string(),
            proxy: Proxy::None,
            http2: true,
            compression: true,
        }
    }
}

/// The user's cache directory for this toolkit: `$XDG_CACHE_HOME/a2a-card` or
/// `~/.cache/a2a-card` on Unix, `~/Library/Caches/a2a-card` on macOS,
/// `%LOCALAPPDATA%\a2a-card\cache` on Windows. `None` when the environment names no home.
///
/// ```
/// if let Some(dir) = a2a_card_fetch::default_cache_dir() {
///     assert!(dir.ends_with("a2a-card") || dir.ends_with("cache"));
/// }
/// ```
pub fn default_cache_dir() -> Option<PathBuf> {
    let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    if cfg!(windows) {
        return env("LOCALAPPDATA").map(|p| p.join("a2a-card").join("cache"));
    }
    if cfg!(target_os = "macos") {
        return env("HOME").map(|p| p.join("Library").join("Caches").join("a2a-card"));
    }
    if let Some(x) = env("XDG_CACHE_HOME").filter(|p| p.is_absolute()) {
        return Some(x.join("a2a-card"));
    }
    env("HOME").map(|p| p.join(".cache").join("a2a-card"))
}

/// Reads a CA file, bounded: a device or a growing file is never read past the limit.
fn read_ca_file(path: &std::path::Path) -> Result<Vec<u8>, Error> {
    use std::io::Read as _;
    let fail = |msg: String| Error::new(ErrorCode::CaFile, msg);
    let file = std::fs::File::open(path)
        .map_err(|e| fail(format!("cannot read the CA file {}: {e}", path.display())))?;
    let mut pem = Vec::new();
    file.take(MAX_CA_FILE_BYTES + 1)
        .read_to_end(&mut pem)
        .map_err(|e| fail(format!("cannot read the CA file {}: {e}", path.display())))?;
    if pem.len() as u64 > MAX_CA_FILE_BYTES {
        return Err(fail(format!(
            "the CA file {} is larger than {MAX_CA_FILE_BYTES} bytes",
            path.display()
        )));
    }
    Ok(pem)
}

/// The root store, and an identifier of it that keys the cache (`webpki` or `ca:SHA256`).
pub(crate) fn root_store(roots: &Roots) -> Result<(RootCertStore, String), Error> {
    let pem = match roots {
        Roots::WebPki => {
            let mut store = RootCertStore::empty();
            store.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
            return Ok((store, "webpki".into()));
        }
        Roots::CaFile(path) => read_ca_file(path)?,
        Roots::CaPem(pem) => pem.clone(),
    };
    let mut store = RootCertStore::empty();
    let mut count = 0;
    for cert in CertificateDer::pem_slice_iter(&pem) {
        let cert =
            cert.map_err(|e| Error::new(ErrorCode::CaFile, format!("the CA PEM cannot be read: {e}")))?;
        store
            .add(cert)
            .map_err(|e| Error::new(ErrorCode::CaFile, format!("a CA certificate cannot be used: {e}")))?;
        count += 1;
    }
    if count == 0 {
        return Err(Error::new(
            ErrorCode::CaFile,
            "the CA PEM holds no CERTIFICATE block",
        ));
    }
    Ok((store, format!("ca:{}", a2a_card::sha256_hex(&pem))))
}

/// The instant `d` from now; a duration past what the clock can hold waits as long as it can.
pub(crate) fn deadline_after(d: Duration) -> std::time::Instant {
    let now = std::time::Instant::now();
    now.checked_add(d)
        .or_else(|| now.checked_add(MAX_TIMEOUT))
        .unwrap_or(now)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ca_pem_without_certificates_is_refused() {
        let e = root_store(&Roots::CaPem(b"not a pem".to_vec())).unwrap_err();
        assert_eq!(e.code(), ErrorCode::CaFile);
        let e = root_store(&Roots::CaFile("/nonexistent/ca.pem".into())).unwrap_err();
        assert_eq!(e.code(), ErrorCode::CaFile);
    }
}
