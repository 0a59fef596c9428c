//! The fetcher: options, TLS roots, the redirect loop, content-type and size checks, and the
//! cache, on top of the guarded transport.

use crate::cache::{self, Cache, CacheOutcome, Entry};
use crate::http::Transport;
use crate::target::{card_url_parsed, check_https, origin_of, parse_https, JkuPrefix};
use a2a_card::signature::printable;
use a2a_card::{Error, ErrorCode};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::CertificateDer;
use rustls::{ClientConfig, RootCertStore};
use serde::Serialize;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use url::Url;

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

/// Options of every retrieval.
///
/// ```
/// let opts = a2a_card_fetch::FetchOptions::default();
/// assert_eq!(opts.total_timeout.as_secs(), 30);
/// assert_eq!(opts.max_body_bytes, 1 << 20);
/// assert!(!opts.allow_loopback && opts.cache_dir.is_none());
/// ```
#[derive(Debug, Clone)]
pub struct FetchOptions {
    /// Longest wait for one TCP connection (default 10 s).
    pub connect_timeout: Duration,
    /// Longest time for one whole retrieval, redirects included (default 30 s).
    pub total_timeout: Duration,
    /// Largest body accepted (default 1 MiB).
    pub max_body_bytes: usize,
    /// Most redirects followed (default 3).
    pub max_redirects: usize,
    /// Allow plain loopback addresses (`127.0.0.0/8`, `::1`). For local testing only: it lets a
    /// remote card or redirect reach services on this machine.
    pub allow_loopback: bool,
    /// The TLS trust roots.
    pub roots: Roots,
    /// The cache directory; `None` turns caching off. [`default_cache_dir`] gives the user's.
    pub cache_dir: Option<PathBuf>,
    /// The `User-Agent` sent.
    pub user_agent: String,
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
            user_agent: concat!("a2a-card-fetch/", env!("CARGO_PKG_VERSION")).to_string(),
        }
    }
}

/// The user's cache directory for this toolkit: `$XDG_CACHE_HOME/a2a-card` or
/// `~/.cache/a2a-card` on Unix, `~/Library/Caches/a2a-card` on macOS,
/// `%LOCALAPPDATA%\a2a-card\cache` on Windows. `None` when the environment names no home.
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

/// A retrieved JSON document.
#[derive(Debug, Clone, Serialize)]
pub struct Fetched {
    /// The body, as served.
    #[serde(skip)]
    pub bytes: Vec<u8>,
    /// The URL first requested (for an origin, its well-known card URL).
    pub requested_url: String,
    /// The URL the body came from, after redirects.
    pub final_url: String,
    /// The origin of the requested URL: the party the caller asked for, and the origin that
    /// origin-bound trust entries are matched against. Redirects do not change it.
    pub origin: String,
    /// Every redirect target followed, in order.
    pub redirects: Vec<String>,
    /// The media type served.
    pub content_type: String,
    /// What the cache did.
    pub cache: CacheOutcome,
    /// The address the body was read from (`None` when served from the cache).
    pub peer: Option<SocketAddr>,
    /// Problems that did not stop the retrieval (a cache that could not be written).
    pub warnings: Vec<String>,
}

impl Fetched {
    /// The retrieval for people, one fact a line: `origin:`, `final url:`, each redirect,
    /// `content-type:`, `cache:`, `peer:`, `bytes:`, `sha256:` and each warning (what
    /// `a2a-card fetch` writes to stderr). Server-chosen text is escaped.
    ///
    /// ```
    /// let f = a2a_card_fetch::Fetched {
    ///     bytes: b"{}".to_vec(),
    ///     requested_url: "https://agent.example/.well-known/agent-card.json".into(),
    ///     final_url: "https://agent.example/.well-known/agent-card.json".into(),
    ///     origin: "https://agent.example".into(),
    ///     redirects: vec![],
    ///     content_type: "application/json".into(),
    ///     cache: a2a_card_fetch::CacheOutcome::Off,
    ///     peer: None,
    ///     warnings: vec![],
    /// };
    /// assert_eq!(f.to_lines()[0], "origin: https://agent.example");
    /// assert_eq!(f.to_lines()[2], "redirects: none");
    /// ```
    pub fn to_lines(&self) -> Vec<String> {
        let mut lines = route_lines(&self.origin, &self.final_url, &self.redirects);
        lines.push(format!("content-type: {}", printable(&self.content_type)));
        lines.push(format!("cache: {}", self.cache.as_str()));
        if let Some(peer) = self.peer {
            lines.push(format!("peer: {peer}"));
        }
        lines.push(format!("bytes: {}", self.bytes.len()));
        lines.push(format!("sha256: {}", a2a_card::sha256_hex(&self.bytes)));
        for w in &self.warnings {
            lines.push(format!("warning: {}", printable(w)));
        }
        lines
    }
}

/// The `origin:`, `final url:` and redirect lines of a retrieval.
pub(crate) fn route_lines(origin: &str, final_url: &str, redirects: &[String]) -> Vec<String> {
    let mut lines = vec![
        format!("origin: {}", printable(origin)),
        format!("final url: {}", printable(final_url)),
    ];
    if redirects.is_empty() {
        lines.push("redirects: none".into());
    }
    for (i, r) in redirects.iter().enumerate() {
        lines.push(format!("redirect {}: {}", i + 1, printable(r)));
    }
    lines
}

/// A retrieved JWK Set and its keys.
#[derive(Debug, Clone)]
pub struct FetchedJwks {
    /// The retrieval.
    pub fetched: Fetched,
    /// The signature keys of the set (`"use":"enc"` entries skipped).
    pub keys: Vec<a2a_card::PublicKey>,
}

/// Builds the TLS configuration and cache once, for several retrievals with the same options.
///
/// ```no_run
/// use a2a_card_fetch::{Fetcher, FetchOptions};
/// let fetcher = Fetcher::new(&FetchOptions::default())?;
/// let card = fetcher.fetch_card("https://agent.example.com")?;
/// println!("{} bytes from {}", card.bytes.len(), card.final_url);
/// # Ok::<(), a2a_card_fetch::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Fetcher {
    opts: FetchOptions,
    transport: Arc<TransportHolder>,
    cache: Option<Cache>,
}

struct TransportHolder(Transport);

impl std::fmt::Debug for TransportHolder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Transport")
    }
}

/// The most a CA file may hold: a bundle of every public root is about 250 KB.
pub const MAX_CA_FILE_BYTES: u64 = 4 * 1024 * 1024;

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

fn root_store(roots: &Roots) -> Result<(RootCertStore, String), Error> {
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

fn media_type(value: &str) -> String {
    value.split(';').next().unwrap_or("").trim().to_ascii_lowercase()
}

/// `application/json` or a `+json` structured suffix (`application/jwk-set+json`,
/// `application/a2a+json`, ...).
fn is_json(media: &str) -> bool {
    match media.split_once('/') {
        Some(("application", sub)) => sub == "json" || (sub.len() > 5 && sub.ends_with("+json")),
        _ => false,
    }
}

impl Fetcher {
    /// Checks the options and builds the TLS configuration (reading the CA file, if any).
    pub fn new(opts: &FetchOptions) -> Result<Fetcher, Error> {
        let (store, roots_id) = root_store(&opts.roots)?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let tls = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| Error::new(ErrorCode::TlsHandshake, format!("TLS configuration: {e}")))?
            .with_root_certificates(store)
            .with_no_client_auth();
        let cache = opts
            .cache_dir
            .as_ref()
            .map(|dir| Cache::new(dir, format!("roots={roots_id} loopback={}", opts.allow_loopback)));
        Ok(Fetcher {
            opts: opts.clone(),
            transport: Arc::new(TransportHolder(Transport {
                tls: Arc::new(tls),
                connect_timeout: opts.connect_timeout,
                allow_loopback: opts.allow_loopback,
                user_agent: opts.user_agent.clone(),
            })),
            cache,
        })
    }

    /// The options.
    pub fn options(&self) -> &FetchOptions {
        &self.opts
    }

    /// Fetches a card: for an origin (`https://host[:port]` with no path) its well-known card
    /// URL, for any other URL that URL.
    pub fn fetch_card(&self, url_or_origin: &str) -> Result<Fetched, Error> {
        let url = card_url_parsed(url_or_origin)?;
        let fetched = self.fetch_json(url, None)?;
        // A card that is not I-JSON is refused with the reader's own error and pointer: nothing
        // downstream could canonicalize it, and `fetch` must not hand it on as a card.
        // (The deepest nesting the library allows: depth is the verifier's policy, not I-JSON's.)
        a2a_card::canonical::Doc::parse(
            &fetched.bytes,
            &a2a_card::Limits {
                max_input_bytes: fetched.bytes.len(),
                max_depth: a2a_card::canonical::MAX_DEPTH_LIMIT,
            },
        )
        .map_err(|e| e.with_url(fetched.final_url.clone()))?;
        Ok(fetched)
    }

    /// Fetches a JWK Set from exactly this URL and reads its keys (at most
    /// [`DEFAULT_MAX_JWKS_KEYS`]).
    pub fn fetch_jwks(&self, url: &str) -> Result<FetchedJwks, Error> {
        let url = parse_https(url, "the JWKS URL")?;
        let fetched = self.fetch_json(url, None)?;
        jwks_of(fetched, DEFAULT_MAX_JWKS_KEYS)
    }

    /// Fetches the JWK Set of a `jku` allowed by `prefix`: every redirect hop must stay under
    /// the prefix (and so on its origin), else the retrieval fails with `redirect-invalid`; a
    /// set of more than `max_keys` keys fails with `too-many-keys`.
    pub fn fetch_jwks_under(
        &self,
        url: &str,
        prefix: &JkuPrefix,
        max_keys: usize,
    ) -> Result<FetchedJwks, Error> {
        let url = parse_https(url, "the jku")?;
        let fetched = self.fetch_json(url, Some(prefix))?;
        jwks_of(fetched, max_keys)
    }

    /// Fetches a JSON document from an https URL, following redirects; with `within`, every
    /// redirect target must fall under that `jku` prefix.
    pub(crate) fn fetch_json(&self, start: Url, within: Option<&JkuPrefix>) -> Result<Fetched, Error> {
        let deadline = deadline_after(self.opts.total_timeout);
        let mut out = Fetched {
            bytes: Vec::new(),
            requested_url: start.to_string(),
            final_url: String::new(),
            origin: origin_of(&start),
            redirects: Vec::new(),
            content_type: String::new(),
            cache: CacheOutcome::Off,
            peer: None,
            warnings: Vec::new(),
        };
        let mut url = start;
        loop {
            let key = url.to_string();
            out.final_url.clone_from(&key);
            let stored = self
                .cache
                .as_ref()
                .and_then(|c| c.load(&key, self.opts.max_body_bytes));
            if let Some(entry) = stored.as_ref().filter(|e| e.meta.is_fresh(cache::now())) {
                out.bytes.clone_from(&entry.body);
                out.content_type.clone_from(&entry.meta.content_type);
                out.cache = CacheOutcome::Fresh;
                out.peer = None;
                return Ok(out);
            }
            let conditions = stored.as_ref().map(|e| e.meta.conditions()).unwrap_or_default();
            let ex = self.transport.0.get(&url, &conditions, deadline)?;
            out.peer = Some(ex.peer);
            match ex.status {
                200 => {
                    let ct = ex.single("content-type")?.map(media_type).unwrap_or_default();
                    if !is_json(&ct) {
                        let shown = if ct.is_empty() {
                            "no Content-Type".to_string()
                        } else {
                            ct
                        };
                        return Err(Error::new(
                            ErrorCode::NotJson,
                            format!(
                                "the server sent {shown}; a card or JWKS must be application/json or \
                                 application/*+json"
                            ),
                        )
                        .with_url(key));
                    }
                    let cc = cache::directives(&ex.header("cache-control").unwrap_or_default());
                    let age = cache::age_value(ex.single("age")?);
                    let etag = ex.single("etag")?.map(str::to_string);
                    let last_modified = ex.single("last-modified")?.map(str::to_string);
                    let vary_star = ex
                        .header("vary")
                        .is_some_and(|v| v.split(',').any(|p| p.trim() == "*"));
                    let body = ex.read_body(self.opts.max_body_bytes)?;
                    out.cache = match &self.cache {
                        None => CacheOutcome::Off,
                        Some(c) => {
                            let meta = cache::meta_for(&key, &cc, age, etag, last_modified, &ct, &body);
                            if cc.no_store || vary_star || !meta.is_useful() {
                                if let Err(e) = c.remove(&key) {
                                    out.warnings
                                        .push(format!("cannot remove the cache entry for {key}: {e}"));
                                }
                                CacheOutcome::NotStored
                            } else if let Err(e) = c.store(&meta, &body) {
                                out.warnings
                                    .push(format!("cannot write the cache entry for {key}: {e}"));
                                CacheOutcome::NotStored
                            } else {
                                CacheOutcome::Stored
                            }
                        }
                    };
                    out.bytes = body;
                    out.content_type = ct;
                    return Ok(out);
                }
                304 if !conditions.is_empty() => {
                    let (Some(c), Some(Entry { mut meta, body })) = (&self.cache, stored) else {
                        return Err(Error::new(ErrorCode::HttpStatus, "304 without a stored entry")
                            .with_url(key)
                            .with_status(304));
                    };
                    // RFC 9111 4.3.4: the stored response takes the fields the 304 carries.
                    let mut no_store = false;
                    if let Some(v) = ex.header("cache-control") {
                        let cc = cache::directives(&v);
                        meta.max_age = cc.max_age;
                        meta.no_cache = cc.no_cache;
                        no_store = cc.no_store;
                    }
                    if let Some(e) = ex.single("etag")? {
                        meta.etag = Some(e.to_string());
                    }
                    if let Some(l) = ex.single("last-modified")? {
                        meta.last_modified = Some(l.to_string());
                    }
                    meta.age = cache::age_value(ex.single("age")?);
                    meta.stored_at = cache::now();
                    let written = if no_store {
                        c.remove(&key)
                    } else {
                        c.store(&meta, &body)
                    };
                    if let Err(e) = written {
                        out.warnings
                            .push(format!("cannot update the cache entry for {key}: {e}"));
                    }
                    out.bytes = body;
                    out.content_type = meta.content_type;
                    out.cache = CacheOutcome::Revalidated;
                    return Ok(out);
                }
                301 | 302 | 303 | 307 | 308 => {
                    if out.redirects.len() >= self.opts.max_redirects {
                        return Err(Error::new(
                            ErrorCode::TooManyRedirects,
                            format!(
                                "the server redirects again after {} redirects (the limit)",
                                out.redirects.len()
                            ),
                        )
                        .with_url(key));
                    }
                    let location = ex.single("location")?.unwrap_or("").to_string();
                    if location.is_empty() {
                        return Err(Error::new(
                            ErrorCode::RedirectInvalid,
                            format!("a {} redirect without a Location", ex.status),
                        )
                        .with_url(key));
                    }
                    let mut next = url.join(&location).map_err(|e| {
                        Error::new(
                            ErrorCode::RedirectInvalid,
                            format!("the redirect Location {location:?} is not a URL: {e}"),
                        )
                        .with_url(key.clone())
                    })?;
                    next.set_fragment(None);
                    check_https(&next, "the redirect target")?;
                    if let Some(prefix) = within.filter(|p| !p.matches_url(&next)) {
                        return Err(Error::new(ErrorCode::RedirectInvalid,
                            format!(
                                "the redirect to {next} leaves the --allow-jku prefix {} that allowed this jku",
                                prefix.as_str()
                            ),
                        )
                        .with_url(key));
                    }
                    out.redirects.push(next.to_string());
                    url = next;
                }
                status => {
                    return Err(Error::new(
                        ErrorCode::HttpStatus,
                        format!("the server answered {status}; a card or JWKS needs 200"),
                    )
                    .with_url(key)
                    .with_status(status));
                }
            }
        }
    }
}

/// Fetches an Agent Card: for an origin (`https://agent.example.com`) its
/// `/.well-known/agent-card.json`, for any other https URL that URL. HTTPS only, every address
/// checked by the [guard](crate::guard) on every hop, with the limits and cache of `opts`.
///
/// The card is returned as served; nothing here reads or trusts it. See [`verify_remote`](crate::verify_remote).
pub fn fetch_card(url_or_origin: &str, opts: &FetchOptions) -> Result<Fetched, Error> {
    Fetcher::new(opts)?.fetch_card(url_or_origin)
}

/// Fetches a JWK Set from an https URL, with the same guard, limits and cache as cards.
pub fn fetch_jwks(url: &str, opts: &FetchOptions) -> Result<FetchedJwks, Error> {
    Fetcher::new(opts)?.fetch_jwks(url)
}

/// The keys of a fetched JWK Set, at most `max_keys` of them.
fn jwks_of(fetched: Fetched, max_keys: usize) -> Result<FetchedJwks, Error> {
    let text = std::str::from_utf8(&fetched.bytes).map_err(|_| {
        a2a_card::Error::new(a2a_card::ErrorCode::InvalidJson, "the JWKS is not UTF-8")
            .with_url(fetched.final_url.clone())
    })?;
    let keys = a2a_card::jose::keys::parse_jwks_limited(text, max_keys)
        .map_err(|e| e.with_url(fetched.final_url.clone()))?;
    Ok(FetchedJwks { fetched, keys })
}

/// The instant `d` from now; a duration past what the clock can hold waits as long as it can.
pub(crate) fn deadline_after(d: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(d)
        .or_else(|| now.checked_add(MAX_TIMEOUT))
        .unwrap_or(now)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_media_types() {
        for ok in [
            "application/json",
            "application/jwk-set+json",
            "application/a2a+json",
        ] {
            assert!(is_json(ok), "{ok}");
        }
        for bad in [
            "text/json",
            "text/html",
            "application/+json",
            "application/jsonx",
            "",
            "json",
        ] {
            assert!(!is_json(bad), "{bad}");
        }
        assert_eq!(media_type("Application/JSON; charset=utf-8"), "application/json");
    }

    #[test]
    fn ca_pem_without_certificates_is_refused() {
        let e = root_store(&Roots::CaPem(b"not a pem".to_vec())).unwrap_err();
        assert_eq!(e.code(), ErrorCode::CaFile);
        let e = root_store(&Roots::CaFile("/nonexistent/ca.pem".into())).unwrap_err();
        assert_eq!(e.code(), ErrorCode::CaFile);
    }
}
