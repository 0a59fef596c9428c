//! The fetcher: one HTTP client (its connection pool, TLS configuration and cache) shared by
//! every retrieval made with it; the redirect loop, the content-type and size checks and the
//! cache, on top of the guarded transport.

use crate::cache::{self, Before, Cache, CacheOutcome, Entry, Memory, Update};
use crate::options::{deadline_after, root_store, FetchOptions, DEFAULT_MAX_JWKS_KEYS};
use crate::proxy::ProxyRoute;
use crate::target::{card_url_parsed, check_https, origin_of, parse_https, JkuPrefix};
use crate::transport::{within, Transport};
use crate::{Error, ErrorCode};
use a2a_card::signature::{printable, Origin};
use http::HeaderMap;
use rustls::ClientConfig;
use serde::Serialize;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;
use url::Url;

/// A retrieved JSON document.
#[derive(Debug, Clone, Serialize)]
pub struct Fetched {
    /// The body, as served (decoded when it came compressed).
    #[serde(skip)]
    pub bytes: Vec<u8>,
    /// The URL first requested (for an origin, its well-known card URL).
    pub requested_url: String,
    /// The URL the body came from, after redirects.
    pub final_url: String,
    /// The origin of the requested URL: the party the caller asked for, and the origin that
    /// origin-bound trust entries are matched against. Redirects do not change it.
    pub origin: Origin,
    /// Every redirect target followed, in order.
    pub redirects: Vec<String>,
    /// The HTTP status of the last response: 200, or 304 when the stored body was revalidated
    /// (`None` when the body was served fresh from the cache).
    pub status: Option<u16>,
    /// The media type served.
    pub content_type: String,
    /// What the cache did.
    pub cache: CacheOutcome,
    /// The address the last response was read from (the proxy's, through a proxy; `None` when
    /// the body was served from the cache).
    pub peer: Option<SocketAddr>,
    /// The protocol of the last response (`HTTP/1.1` or `HTTP/2`; `None` from the cache).
    pub protocol: Option<String>,
    /// The proxy the last response came through, without credentials (`None`: direct).
    pub proxy: Option<String>,
    /// Problems that did not stop the retrieval (a cache that could not be written).
    pub warnings: Vec<String>,
}

impl Fetched {
    /// The retrieval for people, one fact a line: `origin:`, `final url:`, each redirect,
    /// `status:` (when a response was read), `content-type:`, `cache:`, `peer:`, `protocol:`,
    /// `proxy:` (the last three when the body came from the network, the proxy when there was
    /// one), `bytes:`, `sha256:` and each
    /// warning (what `a2a-card fetch` writes to stderr). Server-chosen text is escaped.
    ///
    /// ```
    /// let f = a2a_card_fetch::Fetched {
    ///     bytes: b"{}".to_vec(),
    ///     requested_url: "https://agent.example/.well-known/agent-card.json".into(),
    ///     final_url: "https://agent.example/.well-known/agent-card.json".into(),
    ///     origin: "https://agent.example".parse().unwrap(),
    ///     redirects: vec![],
    ///     status: Some(200),
    ///     content_type: "application/json".into(),
    ///     cache: a2a_card_fetch::CacheOutcome::Off,
    ///     peer: None,
    ///     protocol: None,
    ///     proxy: None,
    ///     warnings: vec![],
    /// };
    /// assert_eq!(f.to_lines()[0], "origin: https://agent.example");
    /// assert_eq!(f.to_lines()[2], "redirects: none");
    /// assert_eq!(f.to_lines()[3], "status: 200");
    /// ```
    pub fn to_lines(&self) -> Vec<String> {
        let mut lines = route_lines(&self.origin, &self.final_url, &self.redirects);
        if let Some(status) = self.status {
            lines.push(format!("status: {status}"));
        }
        lines.push(format!("content-type: {}", printable(&self.content_type)));
        lines.push(format!("cache: {}", self.cache.as_str()));
        if let Some(peer) = self.peer {
            lines.push(format!("peer: {peer}"));
        }
        if let Some(p) = &self.protocol {
            lines.push(format!("protocol: {p}"));
        }
        if let Some(p) = &self.proxy {
            lines.push(format!("proxy: {}", printable(p)));
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
pub(crate) fn route_lines(origin: &Origin, final_url: &str, redirects: &[String]) -> Vec<String> {
    let mut lines = vec![
        format!("origin: {origin}"),
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

/// The asynchronous fetcher: its options, TLS configuration, connection pool and cache, built
/// once and shared by every retrieval made with it (clones share them too). Connections to the
/// same origin are reused (HTTP/1.1 keep-alive, or one HTTP/2 connection where the server
/// offers it), so a card and the JWK Set of its `jku` on the same origin cost one connection.
///
/// Use it from a tokio runtime; a connection belongs to the runtime that opened it, so keep a
/// fetcher to one runtime. Every retrieval is bounded by the total timeout, and a retrieval
/// whose future is dropped leaves the cache as it was or with a whole new entry, never a
/// partial one. Without a runtime, use [`crate::blocking`].
///
/// ```no_run
/// use a2a_card_fetch::{Fetcher, FetchOptions};
/// # async fn run() -> Result<(), a2a_card_fetch::Error> {
/// let fetcher = Fetcher::new(&FetchOptions::default())?;
/// let card = fetcher.fetch_card("https://agent.example.com").await?;
/// println!("{} bytes from {} over {:?}", card.bytes.len(), card.final_url, card.protocol);
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct Fetcher {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    opts: FetchOptions,
    transport: Transport,
    /// The cache directory, if any.
    cache: Option<Cache>,
    /// The memory layer, if any (over the directory, written through).
    memory: Option<Memory>,
}

/// `application/json` or a `+json` structured suffix (`application/jwk-set+json`,
/// `application/a2a+json`, ...).
fn is_json(media: &str) -> bool {
    match media.split_once('/') {
        Some(("application", sub)) => sub == "json" || (sub.len() > 5 && sub.ends_with("+json")),
        _ => false,
    }
}

fn media_type(value: &str) -> String {
    value.split(';').next().unwrap_or("").trim().to_ascii_lowercase()
}

impl Fetcher {
    /// Checks the options and builds the client: the TLS configuration (reading the CA file, if
    /// any), the proxy (reading the environment for [`crate::Proxy::FromEnv`]).
    pub fn new(opts: &FetchOptions) -> Result<Fetcher, Error> {
        Fetcher::with_client_builder(opts, reqwest::Client::builder())
    }

    /// [`Fetcher::new`] on a client builder of the caller's (for example with its own
    /// connection-pool sizes, TCP settings, local address or HTTP/2 tuning). The settings the
    /// guarantees rest on replace the builder's: TLS (rustls with [`FetchOptions::roots`] and
    /// nothing else), name resolution (the guarded resolver), the peer-address check on every
    /// connection, redirects (never followed by the client), proxies (only
    /// [`FetchOptions::proxy`]), `https_only`, no `Referer`, the connect timeout, HTTP/2 and
    /// decoding as the options say; every request carries the fetcher's own `User-Agent`,
    /// `Accept` and `Accept-Encoding`. A `resolve` override on the builder does not open the
    /// guard: a connection to an address it refuses is refused before a request is written.
    ///
    /// ```
    /// use a2a_card_fetch::{reqwest, Fetcher, FetchOptions};
    /// let builder = reqwest::Client::builder().pool_max_idle_per_host(4).tcp_nodelay(true);
    /// let fetcher = Fetcher::with_client_builder(&FetchOptions::default(), builder)?;
    /// assert!(fetcher.options().http2);
    /// # Ok::<(), a2a_card_fetch::Error>(())
    /// ```
    pub fn with_client_builder(
        opts: &FetchOptions,
        builder: reqwest::ClientBuilder,
    ) -> Result<Fetcher, Error> {
        let (store, roots_id) = root_store(&opts.roots)?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let tls = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| Error::new(ErrorCode::TlsHandshake, format!("TLS configuration: {e}")))?
            .with_root_certificates(store)
            .with_no_client_auth();
        let proxy = ProxyRoute::new(&opts.proxy)?;
        let transport = Transport::new(opts, tls, proxy, builder)?;
        let cache = opts
            .cache_dir
            .as_ref()
            .map(|dir| Cache::new(dir, format!("roots={roots_id} loopback={}", opts.allow_loopback)));
        Ok(Fetcher {
            inner: Arc::new(Inner {
                opts: opts.clone(),
                transport,
                cache,
                memory: opts.memory_cache.then(Memory::new),
            }),
        })
    }

    /// The options.
    pub fn options(&self) -> &FetchOptions {
        &self.inner.opts
    }

    /// Fetches a card: for an origin (`https://host[:port]` with no path) its well-known card
    /// URL, for any other URL that URL. A card that is not I-JSON is refused with the reader's
    /// code and pointer.
    pub async fn fetch_card(&self, url_or_origin: &str) -> Result<Fetched, Error> {
        let fetched = self.fetch_card_bytes(url_or_origin).await?;
        // A card that is not I-JSON is refused with the reader's own error and pointer: nothing
        // downstream could canonicalize it, and `fetch` must not hand it on as a card.
        // (The deepest nesting the library allows: depth is the verifier's policy, not I-JSON's.)
        a2a_card::canonical::Doc::parse(
            &fetched.bytes,
            &a2a_card::Limits {
                // Within the reader's bounds: an empty body is the reader's "input is empty".
                max_input_bytes: fetched
                    .bytes
                    .len()
                    .clamp(1, a2a_card::canonical::MAX_INPUT_BYTES_LIMIT),
                max_depth: a2a_card::canonical::MAX_DEPTH_LIMIT,
            },
        )
        .map_err(|e| Error::from(e).with_url(fetched.final_url.clone()))?;
        Ok(fetched)
    }

    /// [`Fetcher::fetch_card`] without reading the card: for a caller that reads it itself
    /// (`verify_remote` reads it once, with the verifier's limits).
    pub(crate) async fn fetch_card_bytes(&self, url_or_origin: &str) -> Result<Fetched, Error> {
        let url = card_url_parsed(url_or_origin)?;
        self.fetch_json(url, None).await
    }

    /// Fetches a JWK Set from exactly this URL and reads its keys (at most
    /// [`DEFAULT_MAX_JWKS_KEYS`]).
    pub async fn fetch_jwks(&self, url: &str) -> Result<FetchedJwks, Error> {
        let url = parse_https(url, "the JWKS URL")?;
        let fetched = self.fetch_json(url, None).await?;
        jwks_of(fetched, DEFAULT_MAX_JWKS_KEYS)
    }

    /// Fetches the JWK Set of a `jku` allowed by `prefix`: every redirect hop must stay under
    /// the prefix (and so on its origin), else the retrieval fails with `redirect-invalid`; a
    /// set of more than `max_keys` keys fails with `too-many-keys`.
    pub async fn fetch_jwks_under(
        &self,
        url: &str,
        prefix: &JkuPrefix,
        max_keys: usize,
    ) -> Result<FetchedJwks, Error> {
        self.fetch_jwks_at(parse_https(url, "the jku")?, prefix, max_keys)
            .await
    }

    /// [`Fetcher::fetch_jwks_under`] for a `jku` already parsed (by [`parse_https`]): the URL
    /// read from the card is the URL fetched, not its text read again.
    pub(crate) async fn fetch_jwks_at(
        &self,
        url: url::Url,
        prefix: &JkuPrefix,
        max_keys: usize,
    ) -> Result<FetchedJwks, Error> {
        let fetched = self.fetch_json(url, Some(prefix)).await?;
        jwks_of(fetched, max_keys)
    }

    /// Whether anything is cached (memory or a directory).
    fn caching(&self) -> bool {
        self.inner.memory.is_some() || self.inner.cache.is_some()
    }

    /// The stored entry for `key`: from memory, else from the directory (on a blocking task;
    /// then kept in memory too).
    async fn load(&self, key: &str) -> Option<Arc<Entry>> {
        if let Some(found) = self.inner.memory.as_ref().and_then(|m| m.get(key)) {
            return Some(found);
        }
        let cache = self.inner.cache.clone()?;
        let (owned, max) = (key.to_string(), self.inner.opts.max_body_bytes);
        let entry = tokio::task::spawn_blocking(move || cache.load(&owned, max))
            .await
            .ok()
            .flatten()
            .map(Arc::new)?;
        if let Some(m) = &self.inner.memory {
            // Unless a retrieval through a clone stored a newer one meanwhile.
            return Some(m.put_if_absent(key, entry));
        }
        Some(entry)
    }

    /// Stores (`Some`) or removes (`None`) the entry for `key`: in memory at once, in the
    /// directory on a blocking task that runs to its end even if this future is dropped.
    /// Returns whether the entry is now kept somewhere, and a warning when the directory could
    /// not be updated.
    async fn keep(&self, key: &str, entry: Option<Arc<Entry>>) -> (bool, Option<String>) {
        let in_memory = match (&self.inner.memory, &entry) {
            (Some(m), Some(e)) => m.put(key, e.clone()),
            (Some(m), None) => {
                m.remove(key);
                false
            }
            (None, _) => false,
        };
        let Some(cache) = self.inner.cache.clone() else {
            return (in_memory, None);
        };
        let owned = key.to_string();
        let done = tokio::task::spawn_blocking(move || match entry {
            Some(e) => cache
                .store(&e.meta, &e.body)
                .map(|()| true)
                .map_err(|err| format!("cannot write the cache entry for {owned}: {err}")),
            None => cache
                .remove(&owned)
                .map(|()| false)
                .map_err(|err| format!("cannot remove the cache entry for {owned}: {err}")),
        })
        .await
        .unwrap_or_else(|e| Err(format!("the cache could not be updated: {e}")));
        match done {
            Ok(on_disk) => (in_memory || on_disk, None),
            Err(w) => (in_memory, Some(w)),
        }
    }

    /// Fetches a JSON document from an https URL, following redirects; with `within`, every
    /// redirect target must fall under that `jku` prefix.
    pub(crate) async fn fetch_json(
        &self,
        start: Url,
        within_prefix: Option<&JkuPrefix>,
    ) -> Result<Fetched, Error> {
        let deadline = deadline_after(self.inner.opts.total_timeout);
        let origin = origin_of(&start).map_err(Error::caller_input)?;
        let mut out = Fetched {
            bytes: Vec::new(),
            requested_url: start.to_string(),
            final_url: String::new(),
            origin,
            redirects: Vec::new(),
            status: None,
            content_type: String::new(),
            cache: CacheOutcome::Off,
            peer: None,
            protocol: None,
            proxy: None,
            warnings: Vec::new(),
        };
        let mut url = start;
        loop {
            match self.hop(&url, deadline, &mut out).await? {
                Hop::Done => return Ok(out),
                Hop::Redirect(status, location) => {
                    url = self.next_hop(&url, status, &location, &out, within_prefix)?;
                    out.redirects.push(url.to_string());
                }
            }
        }
    }

    /// The checked target of a redirect.
    fn next_hop(
        &self,
        url: &Url,
        status: u16,
        location: &str,
        out: &Fetched,
        within_prefix: Option<&JkuPrefix>,
    ) -> Result<Url, Error> {
        let key = url.as_str();
        if out.redirects.len() >= self.inner.opts.max_redirects {
            return Err(Error::new(
                ErrorCode::TooManyRedirects,
                format!(
                    "the server redirects again after {} redirects (the limit)",
                    out.redirects.len()
                ),
            )
            .with_url(key));
        }
        if location.is_empty() {
            return Err(Error::new(
                ErrorCode::RedirectInvalid,
                format!("a {status} redirect without a Location"),
            )
            .with_url(key));
        }
        let mut next = url.join(location).map_err(|e| {
            Error::new(
                ErrorCode::RedirectInvalid,
                format!("the redirect Location {location:?} is not a URL: {e}"),
            )
            .with_url(key)
        })?;
        next.set_fragment(None);
        check_https(&next, "the redirect target")?;
        if let Some(prefix) = within_prefix.filter(|p| !p.matches_url(&next)) {
            return Err(Error::new(
                ErrorCode::RedirectInvalid,
                format!(
                    "the redirect to {next} leaves the allowed jku prefix {} that allowed this jku",
                    prefix.as_str()
                ),
            )
            .with_url(key));
        }
        Ok(next)
    }

    /// One request (or a fresh cache entry) for `url`.
    async fn hop(&self, url: &Url, deadline: Instant, out: &mut Fetched) -> Result<Hop, Error> {
        let key = url.to_string();
        out.final_url.clone_from(&key);
        let transport = &self.inner.transport;
        // The request as the cache sees it, only when something is cached.
        let request = self
            .caching()
            .then(|| cache::request(&key, &transport.request_headers()))
            .flatten();
        let stored = match self.caching() {
            true => within(deadline, url, "reading the cache", self.load(&key)).await?,
            false => None,
        };
        let mut conditions = HeaderMap::new();
        if let (Some(entry), Some(req)) = (&stored, &request) {
            match entry.before(req) {
                Before::Fresh => {
                    out.bytes.clone_from(&entry.body);
                    out.content_type.clone_from(&entry.meta.content_type);
                    out.cache = CacheOutcome::Fresh;
                    (out.status, out.peer, out.protocol, out.proxy) = (None, None, None, None);
                    return Ok(Hop::Done);
                }
                Before::Revalidate(c) => conditions = c,
            }
        }
        let ex = transport.get(url, &conditions, deadline).await?;
        out.status = Some(ex.status());
        out.peer = ex.peer;
        out.protocol = Some(ex.protocol().to_string());
        out.proxy.clone_from(&ex.proxy);
        match ex.status() {
            200 => {
                let ct = ex
                    .single("content-type")?
                    .map(|v| media_type(&v))
                    .unwrap_or_default();
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
                for name in ["etag", "last-modified", "age"] {
                    ex.single(name)?;
                }
                let headers = ex.headers().clone();
                let body = ex.read_body(self.inner.opts.max_body_bytes, deadline).await?;
                out.cache = if self.caching() {
                    let policy = request.as_ref().and_then(|r| cache::policy_for(r, &headers));
                    let entry = policy.map(|p| {
                        Arc::new(Entry {
                            meta: cache::meta_for(&key, p, &headers, &ct, &body),
                            body: body.clone(),
                        })
                    });
                    let (kept, warning) = self.keep(&key, entry).await;
                    out.warnings.extend(warning);
                    if kept {
                        CacheOutcome::Stored
                    } else {
                        CacheOutcome::NotStored
                    }
                } else {
                    CacheOutcome::Off
                };
                out.bytes = body;
                out.content_type = ct;
                Ok(Hop::Done)
            }
            304 if !conditions.is_empty() => {
                let (Some(entry), Some(req)) = (stored, &request) else {
                    return Err(Error::new(ErrorCode::HttpStatus, "304 without a stored entry")
                        .with_url(key)
                        .with_status(304));
                };
                // RFC 9111 4.3.4: the stored response takes the fields the 304 carries.
                let update = entry.after_304(req, ex.headers());
                let write = match &update {
                    Ok(Update::Keep) => None,
                    Ok(Update::Replace(meta)) => Some(Some(Arc::new(Entry {
                        meta: meta.as_ref().clone(),
                        body: entry.body.clone(),
                    }))),
                    Ok(Update::Remove) | Err(_) => Some(None),
                };
                if let Some(write) = write {
                    out.warnings.extend(self.keep(&key, write).await.1);
                }
                if let Err(why) = update {
                    return Err(Error::new(ErrorCode::HttpProtocol, why).with_url(key));
                }
                out.bytes.clone_from(&entry.body);
                out.content_type.clone_from(&entry.meta.content_type);
                out.cache = CacheOutcome::Revalidated;
                Ok(Hop::Done)
            }
            status @ (301 | 302 | 303 | 307 | 308) => {
                let location = ex.single("location")?.unwrap_or_default();
                Ok(Hop::Redirect(status, location))
            }
            status => Err(Error::new(
                ErrorCode::HttpStatus,
                format!("the server answered {status}; a card or JWKS needs 200"),
            )
            .with_url(key)
            .with_status(status)),
        }
    }
}

/// What one hop ended with.
enum Hop {
    /// The document is in the output.
    Done,
    /// A redirect: its status and `Location`.
    Redirect(u16, String),
}

/// The keys of a fetched JWK Set, at most `max_keys` of them.
fn jwks_of(fetched: Fetched, max_keys: usize) -> Result<FetchedJwks, Error> {
    let text = std::str::from_utf8(&fetched.bytes).map_err(|_| {
        Error::new(
            ErrorCode::Card(a2a_card::ErrorCode::InvalidJson),
            "the JWKS is not UTF-8",
        )
        .with_url(fetched.final_url.clone())
    })?;
    let keys = a2a_card::jose::keys::parse_jwks_limited(text, max_keys)
        .map_err(|e| Error::from(e).with_url(fetched.final_url.clone()))?;
    Ok(FetchedJwks { fetched, keys })
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
}
