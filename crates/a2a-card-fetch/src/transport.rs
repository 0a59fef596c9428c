//! The guarded transport: reqwest (over hyper and rustls) set up so that the SSRF guard sees
//! every address a connection could go to, and each failure named by its own code.
//!
//! How the guard holds on this stack:
//! - **Names** are resolved by [`GuardedResolver`], reqwest's DNS hook: every address a name
//!   resolves to is checked, one refused address refuses the name, and only checked addresses
//!   are returned, so the connection goes to an address the guard saw (one resolution: no
//!   second lookup in between for a rebinding name to change its answer).
//! - **IP literals** never reach a resolver (hyper connects to them as they are), so
//!   [`Transport::admit`] checks them before a request is made, on every hop.
//! - **Every connection**, once made and before a request is written on it, passes
//!   [`PeerCheck`], a connector layer that reads the peer address hyper connected to and
//!   refuses it unless the guard allows it (or it is the configured proxy's). It holds even
//!   for a caller-supplied client builder with `resolve` overrides.
//! - **Redirects** are never followed by reqwest (`Policy::none()`): the fetcher's own loop
//!   checks each `Location` (https, the guard, a `jku`'s prefix) and asks the cache per hop.
//! - **Proxies** only as configured (`no_proxy()` otherwise: the environment is never read
//!   behind the caller's back). Through a proxy the proxy resolves the target's name, so
//!   [`Transport::admit`] also resolves it here and refuses it when any address is refused;
//!   a name that does not resolve here is left to the proxy.
//! - With `A2A_CARD_FETCH_LOOPBACK_ONLY` set (the test suites set it), nothing but plain
//!   loopback is dialled, proxy included: a safety net under the guard.

use crate::decode::{BodyDecoder, Coding, DecodeError};
use crate::guard;
use crate::options::{FetchOptions, MAX_TIMEOUT};
use crate::proxy::{ProxyHost, ProxyRoute};
use crate::{Error, ErrorCode};
use http::header::{HeaderMap, HeaderValue, ACCEPT, ACCEPT_ENCODING, USER_AGENT};
use hyper_util::client::legacy::connect::{Connection, HttpInfo};
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use std::collections::HashSet;
use std::error::Error as StdError;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Instant;
use url::{Host, Url};

/// The `Accept` of every request.
const ACCEPT_JSON: &str = "application/json, application/*+json;q=0.9";
/// The `Accept-Encoding` when compression is on (what `decode` decodes).
pub(crate) const ACCEPT_COMPRESSED: &str = "gzip, br";
/// The most a body buffer is sized in advance from a `Content-Length`, whatever the limit: a
/// peer's number never decides an allocation.
const PREALLOCATE_MAX: usize = 64 * 1024;
/// The variable that makes the fetcher dial nothing but loopback (the test suites set it).
const LOOPBACK_ONLY: &str = "A2A_CARD_FETCH_LOOPBACK_ONLY";

type BoxError = Box<dyn StdError + Send + Sync>;

fn loopback_only() -> bool {
    std::env::var_os(LOOPBACK_ONLY).is_some()
}

/// The safety net: with [`LOOPBACK_ONLY`] set, an address that is not plain loopback is never
/// dialled.
fn net(ip: IpAddr) -> Result<(), Error> {
    if loopback_only() && !ip.is_loopback() {
        return Err(Error::new(
            ErrorCode::AddressRefused,
            format!("{ip} is not loopback and {LOOPBACK_ONLY} is set"),
        ));
    }
    Ok(())
}

/// Checks every address of a host with the guard; the first refusal refuses the host. `name`
/// is the host name when the addresses came from resolving it.
fn guard_addresses(
    name: Option<&str>,
    addrs: &[IpAddr],
    allow_loopback: bool,
    when: &str,
) -> Result<(), Error> {
    for &ip in addrs {
        if let Err(refused) = guard::check(ip, allow_loopback) {
            let via = match name {
                Some(n) => format!("{n} resolves to {refused}"),
                None => refused.to_string(),
            };
            let message = format!("refused {when}: {via}");
            if refused.classification.class == guard::AddressClass::Loopback
                && refused.classification.embedded.is_none()
            {
                // The option that would allow it, named for each front end to spell.
                return Err(Error::about_options(
                    ErrorCode::AddressRefused,
                    &format!(
                        "{} (loopback is opened only with {{allow_loopback}}, for local testing)",
                        a2a_card::request::template_literal(&message)
                    ),
                    &["allow_loopback"],
                ));
            }
            return Err(Error::new(ErrorCode::AddressRefused, message));
        }
    }
    Ok(())
}

/// [`guard_addresses`], then the safety net: for addresses this process is about to dial.
fn check_addresses(
    name: Option<&str>,
    addrs: &[IpAddr],
    allow_loopback: bool,
    when: &str,
) -> Result<(), Error> {
    guard_addresses(name, addrs, allow_loopback, when)?;
    addrs.iter().try_for_each(|&ip| net(ip))
}

/// Resolves a name with the system resolver (on tokio's blocking pool).
async fn lookup(name: &str) -> Result<Vec<IpAddr>, Error> {
    let found = tokio::net::lookup_host((name, 0))
        .await
        .map_err(|e| Error::new(ErrorCode::DnsFailed, format!("{name} does not resolve: {e}")))?;
    let mut addrs: Vec<IpAddr> = Vec::new();
    for a in found {
        if !addrs.contains(&a.ip()) {
            addrs.push(a.ip());
        }
    }
    if addrs.is_empty() {
        return Err(Error::new(
            ErrorCode::DnsFailed,
            format!("{name} resolves to no address"),
        ));
    }
    Ok(addrs)
}

/// The addresses the configured proxy resolved to: the only ones allowed past the guard.
#[derive(Debug, Clone, Default)]
struct ProxyAddresses {
    host: Option<ProxyHost>,
    seen: Arc<Mutex<HashSet<IpAddr>>>,
}

impl ProxyAddresses {
    fn is_proxy_name(&self, name: &str) -> bool {
        matches!(&self.host, Some(ProxyHost::Name(n)) if n.eq_ignore_ascii_case(name))
    }

    fn record(&self, addrs: &[IpAddr]) {
        if let Ok(mut seen) = self.seen.lock() {
            seen.extend(addrs.iter().copied());
        }
    }

    fn contains(&self, ip: IpAddr) -> bool {
        matches!(&self.host, Some(ProxyHost::Ip(p)) if *p == ip)
            || self.seen.lock().map(|s| s.contains(&ip)).unwrap_or(false)
    }
}

/// reqwest's DNS hook: resolves, checks every address, returns only checked ones. The
/// configured proxy's name is the one exception to the guard (its addresses are recorded for
/// [`PeerCheck`]); the safety net still applies to it.
struct GuardedResolver {
    allow_loopback: bool,
    proxy: ProxyAddresses,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let name = name.as_str().to_string();
        let allow_loopback = self.allow_loopback;
        let proxy = self.proxy.clone();
        Box::pin(async move {
            let addrs = lookup(&name).await?;
            if proxy.is_proxy_name(&name) {
                addrs.iter().try_for_each(|&ip| net(ip))?;
                proxy.record(&addrs);
            } else {
                check_addresses(Some(&name), &addrs, allow_loopback, "before connecting")?;
            }
            let out: Addrs = Box::new(addrs.into_iter().map(|ip| SocketAddr::new(ip, 0)));
            Ok(out)
        })
    }
}

/// A connector layer that checks the peer address of every new connection before anything is
/// sent on it: the guard's address check (or the configured proxy's addresses), then the
/// safety net. A connection whose peer cannot be told is refused.
#[derive(Clone)]
struct PeerCheck {
    allow_loopback: bool,
    proxy: ProxyAddresses,
}

#[derive(Clone)]
struct PeerCheckService<S> {
    inner: S,
    check: PeerCheck,
}

impl<S> tower_layer::Layer<S> for PeerCheck {
    type Service = PeerCheckService<S>;
    fn layer(&self, inner: S) -> Self::Service {
        PeerCheckService {
            inner,
            check: self.clone(),
        }
    }
}

impl PeerCheck {
    fn admit(&self, peer: Option<SocketAddr>) -> Result<(), Error> {
        let Some(peer) = peer else {
            return Err(Error::new(
                ErrorCode::AddressRefused,
                "refused before sending: the connection's peer address is unknown",
            ));
        };
        if self.proxy.contains(peer.ip()) {
            return net(peer.ip());
        }
        check_addresses(None, &[peer.ip()], self.allow_loopback, "before sending")
    }
}

impl<S, R> tower_service::Service<R> for PeerCheckService<S>
where
    S: tower_service::Service<R, Error = BoxError> + Send + 'static,
    S::Response: Connection + Send,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<S::Response, BoxError>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: R) -> Self::Future {
        let connecting = self.inner.call(req);
        let check = self.check.clone();
        Box::pin(async move {
            let conn = connecting.await?;
            let mut facts = http::Extensions::new();
            conn.connected().get_extras(&mut facts);
            let peer = facts.get::<HttpInfo>().map(HttpInfo::remote_addr);
            check.admit(peer)?;
            Ok(conn)
        })
    }
}

/// The client of one [`crate::Fetcher`] and what its checks need.
pub(crate) struct Transport {
    client: reqwest::Client,
    allow_loopback: bool,
    proxy: Option<ProxyRoute>,
    user_agent: HeaderValue,
    accept_encoding: HeaderValue,
}

impl std::fmt::Debug for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transport")
            .field("allow_loopback", &self.allow_loopback)
            .field("proxy", &self.proxy)
            .finish_non_exhaustive()
    }
}

fn user_agent(text: &str) -> HeaderValue {
    let clean: String = text.chars().filter(|c| !c.is_control()).collect();
    HeaderValue::from_str(&clean).unwrap_or_else(|_| HeaderValue::from_static("a2a-card-fetch"))
}

impl Transport {
    /// Builds the client from `builder` (the caller's, or a new one): the settings the guard
    /// and the limits depend on replace whatever the builder had.
    pub(crate) fn new(
        opts: &FetchOptions,
        mut tls: rustls::ClientConfig,
        proxy: Option<ProxyRoute>,
        builder: reqwest::ClientBuilder,
    ) -> Result<Transport, Error> {
        tls.alpn_protocols = if opts.http2 {
            vec![b"h2".to_vec(), b"http/1.1".to_vec()]
        } else {
            vec![b"http/1.1".to_vec()]
        };
        let proxy_addresses = ProxyAddresses {
            host: proxy.as_ref().map(|p| p.host().clone()),
            seen: Arc::default(),
        };
        let mut builder = builder
            .use_preconfigured_tls(tls)
            .https_only(true)
            .redirect(reqwest::redirect::Policy::none())
            .referer(false)
            .connect_timeout(opts.connect_timeout.min(MAX_TIMEOUT))
            .no_proxy()
            .dns_resolver(Arc::new(GuardedResolver {
                allow_loopback: opts.allow_loopback,
                proxy: proxy_addresses.clone(),
            }))
            .connector_layer(PeerCheck {
                allow_loopback: opts.allow_loopback,
                proxy: proxy_addresses,
            });
        if !opts.http2 {
            builder = builder.http1_only();
        }
        if let Some(p) = &proxy {
            builder = builder.proxy(p.to_reqwest()?);
        }
        let client = builder.build().map_err(|e| {
            Error::new(
                ErrorCode::TlsHandshake,
                format!("the HTTP client cannot be built: {}", root_cause(&e)),
            )
        })?;
        Ok(Transport {
            client,
            allow_loopback: opts.allow_loopback,
            proxy,
            user_agent: user_agent(&opts.user_agent),
            accept_encoding: HeaderValue::from_static(if opts.compression {
                ACCEPT_COMPRESSED
            } else {
                "identity"
            }),
        })
    }

    /// The request fields every retrieval sends (the cache's view of the request).
    pub(crate) fn request_headers(&self) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(USER_AGENT, self.user_agent.clone());
        h.insert(ACCEPT, HeaderValue::from_static(ACCEPT_JSON));
        h.insert(ACCEPT_ENCODING, self.accept_encoding.clone());
        h
    }

    /// The proxy a request for `url` goes through, if any.
    fn proxy_for(&self, url: &Url) -> Option<&ProxyRoute> {
        self.proxy.as_ref().filter(|p| p.carries(url))
    }

    /// The checks made before a request for `url` is sent, where the resolver cannot make
    /// them: an IP literal (hyper connects to it without resolving); through a proxy, the
    /// target's name resolved here (a name that does not resolve here is left to the proxy);
    /// a direct request for the proxy's own name (which the resolver lets through). With the
    /// safety net on, a literal proxy address that is not loopback.
    pub(crate) async fn admit(&self, url: &Url) -> Result<(), Error> {
        let proxy = self.proxy_for(url);
        if let Some(p) = proxy {
            if let ProxyHost::Ip(ip) = p.host() {
                net(*ip).map_err(|e| {
                    e.context(&format!("the proxy {}", p.shown()))
                        .with_url(url.as_str())
                })?;
            }
        }
        let checked = match url.host() {
            Some(Host::Ipv4(a)) => {
                check_addresses(None, &[a.into()], self.allow_loopback, "before connecting")
            }
            Some(Host::Ipv6(a)) => {
                check_addresses(None, &[a.into()], self.allow_loopback, "before connecting")
            }
            None => Err(Error::new(ErrorCode::InvalidUrl, "the URL has no host")),
            Some(Host::Domain(name)) => {
                let own_name = matches!(self.proxy.as_ref().map(ProxyRoute::host),
                    Some(ProxyHost::Name(n)) if n.eq_ignore_ascii_case(name));
                match (proxy.is_some(), own_name) {
                    // Direct: the resolver checks every address as it resolves.
                    (false, false) => Ok(()),
                    // Direct to the proxy's own name, which the resolver lets through.
                    (false, true) => {
                        let addrs = lookup(name).await?;
                        check_addresses(Some(name), &addrs, self.allow_loopback, "before connecting")
                    }
                    // Through the proxy: what the name means here is checked (this process
                    // dials only the proxy, so the guard's verdict alone counts); a name that
                    // does not resolve here is the proxy's to resolve.
                    (true, _) => match lookup(name).await {
                        Ok(addrs) => {
                            guard_addresses(Some(name), &addrs, self.allow_loopback, "before connecting")
                        }
                        Err(_) => Ok(()),
                    },
                }
            }
        };
        checked.map_err(|e| e.with_url(url.as_str()))
    }

    /// Sends `GET url` with the extra header fields (the cache's conditions) and waits for the
    /// response head, all before `deadline`.
    pub(crate) async fn get(
        &self,
        url: &Url,
        extra: &HeaderMap,
        deadline: Instant,
    ) -> Result<Exchange, Error> {
        within(deadline, url, "looking up the host", self.admit(url)).await??;
        let mut headers = self.request_headers();
        for (name, value) in extra {
            headers.insert(name.clone(), value.clone());
        }
        let request = self.client.get(url.clone()).headers(headers);
        let proxy = self.proxy_for(url).map(|p| p.shown().to_string());
        let sent = within(
            deadline,
            url,
            "connecting and waiting for the response",
            request.send(),
        )
        .await?;
        let response = sent.map_err(|e| classify(&e, url, proxy.as_deref()))?;
        Ok(Exchange {
            peer: response.remote_addr(),
            response,
            url: url.clone(),
            proxy,
            asked: self.accept_encoding.clone(),
        })
    }
}

/// Runs `fut` until `deadline`; past it, a `timeout` error saying what was being done.
pub(crate) async fn within<F: Future>(
    deadline: Instant,
    url: &Url,
    doing: &str,
    fut: F,
) -> Result<F::Output, Error> {
    tokio::time::timeout_at(deadline.into(), fut).await.map_err(|_| {
        Error::new(
            ErrorCode::Timeout,
            format!("the total timeout passed while {doing}"),
        )
        .with_url(url.as_str())
    })
}

/// A response whose head has been read; the body is read on demand.
pub(crate) struct Exchange {
    response: reqwest::Response,
    /// The address the response came from (the proxy's, through a proxy).
    pub peer: Option<SocketAddr>,
    url: Url,
    /// The proxy it came through, without credentials.
    pub proxy: Option<String>,
    /// The `Accept-Encoding` sent.
    asked: HeaderValue,
}

impl Exchange {
    /// The status code.
    pub(crate) fn status(&self) -> u16 {
        self.response.status().as_u16()
    }

    /// `HTTP/1.1` or `HTTP/2`.
    pub(crate) fn protocol(&self) -> &'static str {
        match self.response.version() {
            http::Version::HTTP_2 => "HTTP/2",
            http::Version::HTTP_10 => "HTTP/1.0",
            http::Version::HTTP_3 => "HTTP/3",
            _ => "HTTP/1.1",
        }
    }

    /// The header fields.
    pub(crate) fn headers(&self) -> &HeaderMap {
        self.response.headers()
    }

    /// Every value of a header field, in order.
    fn all(&self, name: &str) -> impl Iterator<Item = String> + '_ {
        self.response
            .headers()
            .get_all(name)
            .into_iter()
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
    }

    /// The header field, its values joined with `, ` when repeated.
    pub(crate) fn header(&self, name: &str) -> Option<String> {
        let values: Vec<String> = self.all(name).collect();
        (!values.is_empty()).then(|| values.join(", "))
    }

    /// The single value of a field that must not repeat with different values.
    pub(crate) fn single(&self, name: &str) -> Result<Option<String>, Error> {
        let mut found: Option<String> = None;
        for v in self.all(name) {
            match &found {
                Some(f) if *f != v => {
                    return Err(self.fail(
                        ErrorCode::HttpProtocol,
                        format!("the response has conflicting {name} fields"),
                    ))
                }
                _ => found = Some(v),
            }
        }
        Ok(found)
    }

    fn fail(&self, code: ErrorCode, msg: impl Into<String>) -> Error {
        Error::new(code, msg).with_url(self.url.as_str())
    }

    /// Reads the body before `deadline`, refusing more than `max` bytes; a compressed body is
    /// decoded as it arrives and the limit counts decoded bytes, so a small body that expands
    /// past the limit (a decompression bomb) is refused as soon as it passes it. A coded body
    /// must be one whole gzip member or brotli stream with nothing after it (`decode`).
    pub(crate) async fn read_body(mut self, max: usize, deadline: Instant) -> Result<Vec<u8>, Error> {
        let encoding = self.header("content-encoding");
        // A coding is decoded only when it was asked for; else only what this fetcher decodes.
        let coding = Coding::of(encoding.as_deref())
            .filter(|c| *c == Coding::Identity || self.asked.as_bytes() == ACCEPT_COMPRESSED.as_bytes());
        let Some(coding) = coding else {
            return Err(self.fail(
                ErrorCode::HttpProtocol,
                format!(
                    "the response uses content encoding {:?}, which this fetcher does not decode \
                     (it asked for {})",
                    encoding.unwrap_or_default(),
                    String::from_utf8_lossy(self.asked.as_bytes())
                ),
            ));
        };
        // The length of the bytes that travel (coded, when there is a coding).
        let declared = self.response.content_length();
        if let Some(n) = declared.filter(|&n| coding == Coding::Identity && n > max as u64) {
            return Err(self.fail(
                ErrorCode::BodyTooLarge,
                format!("the body is {n} bytes, more than the limit of {max}"),
            ));
        }
        let url = self.url.clone();
        let capacity = match coding {
            Coding::Identity => usize::try_from(declared.unwrap_or(0))
                .unwrap_or(0)
                .min(PREALLOCATE_MAX),
            _ => 0,
        };
        let mut body = BodyDecoder::new(coding, max, capacity);
        let mut received = 0usize;
        loop {
            let chunk = within(deadline, &url, "reading the body", self.response.chunk()).await?;
            let result = match chunk {
                Ok(Some(bytes)) => {
                    received = received.saturating_add(bytes.len());
                    body.push(&bytes)
                }
                Ok(None) => break,
                Err(e) => return Err(self.body_error(&e, received, declared)),
            };
            result.map_err(|e| self.decode_error(e, max))?;
        }
        body.finish().map_err(|e| self.decode_error(e, max))
    }

    fn decode_error(&self, e: DecodeError, max: usize) -> Error {
        match e {
            DecodeError::TooLarge => self.fail(
                ErrorCode::BodyTooLarge,
                format!("the body is larger than the limit of {max} bytes (counted after decoding)"),
            ),
            DecodeError::Malformed(why) => self.fail(
                ErrorCode::HttpProtocol,
                format!("the body cannot be decoded: {why}"),
            ),
        }
    }

    fn body_error(&self, e: &reqwest::Error, got: usize, declared: Option<u64>) -> Error {
        if let Some(n) = declared.filter(|&n| (got as u64) < n) {
            return self.fail(
                ErrorCode::HttpProtocol,
                format!("the body ended after {got} of {n} bytes"),
            );
        }
        if io_kinds(e).contains(&io::ErrorKind::UnexpectedEof) {
            return self.fail(
                ErrorCode::HttpProtocol,
                "the connection closed without TLS close_notify: the body may be cut short",
            );
        }
        // hyper's errors are the transport's; reqwest decodes no body here (see `decode`), so
        // a decoding error from it is unexpected, and reported as such if it ever comes.
        if find::<hyper::Error>(e).is_some() {
            return self.fail(
                ErrorCode::HttpProtocol,
                format!("the body could not be read: {}", root_cause(e)),
            );
        }
        if e.is_decode() {
            return self.fail(
                ErrorCode::HttpProtocol,
                format!("the body cannot be decoded: {}", root_cause(e)),
            );
        }
        classify(e, &self.url, self.proxy.as_deref())
    }
}

/// The errors of a chain, the error itself first; an `io::Error` that wraps another error is
/// followed into it (its own `source` skips the wrapped error).
fn chain<'a>(e: &'a (dyn StdError + 'static)) -> Vec<&'a (dyn StdError + 'static)> {
    let mut out = Vec::new();
    let mut next = Some(e);
    while let Some(cur) = next.filter(|_| out.len() < 64) {
        out.push(cur);
        next = match cur.downcast_ref::<io::Error>().and_then(io::Error::get_ref) {
            Some(inner) => Some(inner as &(dyn StdError + 'static)),
            None => cur.source(),
        };
    }
    out
}

/// The first error of type `T` in the chain.
fn find<'a, T: StdError + 'static>(e: &'a (dyn StdError + 'static)) -> Option<&'a T> {
    chain(e).into_iter().find_map(|s| s.downcast_ref::<T>())
}

/// The kinds of the I/O errors in the chain.
fn io_kinds(e: &(dyn StdError + 'static)) -> Vec<io::ErrorKind> {
    chain(e)
        .into_iter()
        .filter_map(|s| s.downcast_ref::<io::Error>().map(io::Error::kind))
        .collect()
}

/// The innermost message of an error chain.
fn root_cause(e: &(dyn StdError + 'static)) -> String {
    chain(e).last().map(|s| s.to_string()).unwrap_or_default()
}

/// True when the chain holds an error whose text starts with `prefix` (hyper-util's connect and
/// tunnel errors are not exported types; their texts are what tells them apart).
fn says(e: &(dyn StdError + 'static), prefix: &str) -> bool {
    chain(e).into_iter().any(|s| s.to_string().starts_with(prefix))
}

/// A reqwest failure as the toolkit's error: the guard's own refusals as they were made; TLS
/// failures by what rustls said; connection failures (to the server, or to the proxy and its
/// tunnel); anything else the server sent that is not HTTP.
pub(crate) fn classify(e: &reqwest::Error, url: &Url, proxy: Option<&str>) -> Error {
    let err = |code, msg: String| Error::new(code, msg).with_url(url.as_str());
    if let Some(own) = find::<Error>(e) {
        let own = own.clone();
        return match own.url() {
            Some(_) => own,
            None => own.with_url(url.as_str()),
        };
    }
    let through = proxy
        .map(|p| format!(" (through the proxy {p})"))
        .unwrap_or_default();
    if let Some(tls) = find::<rustls::Error>(e) {
        return match tls {
            rustls::Error::InvalidCertificate(c) => {
                crate::tls::certificate_error(c, url.host_str().unwrap_or_default(), &through)
                    .with_url(url.as_str())
            }
            other => err(
                ErrorCode::TlsHandshake,
                format!("the TLS handshake failed: {other}{through}"),
            ),
        };
    }
    let cause = root_cause(e);
    if e.is_connect() {
        let target = format!(
            "{}:{}",
            url.host_str().unwrap_or(""),
            url.port_or_known_default().unwrap_or(443)
        );
        if e.is_timeout() {
            return err(
                ErrorCode::ConnectTimeout,
                format!("connecting to {target}{through} took longer than the connect timeout"),
            );
        }
        // hyper-util's tunnel errors are not exported; their text is "tunnel error: ...".
        let tunnel = chain(e)
            .into_iter()
            .find(|s| s.to_string().starts_with("tunnel error"));
        if let (Some(p), Some(t)) = (proxy, tunnel) {
            let why = t.to_string();
            let said = if why.ends_with("unsuccessful") {
                "refused to open a tunnel (its answer to CONNECT was not 2xx)".to_string()
            } else if why.contains("underlying connection") {
                format!("cannot be reached: {cause}")
            } else {
                format!("failed while opening a tunnel: {why}")
            };
            return err(
                ErrorCode::ConnectFailed,
                format!("the proxy {p} {said}; CONNECT {target}"),
            );
        }
        let tcp = says(e, "tcp ");
        let handshake = !tcp
            && io_kinds(e).iter().any(|k| {
                matches!(
                    k,
                    io::ErrorKind::UnexpectedEof
                        | io::ErrorKind::ConnectionReset
                        | io::ErrorKind::ConnectionAborted
                        | io::ErrorKind::InvalidData
                )
            });
        if handshake {
            return err(
                ErrorCode::TlsHandshake,
                format!("the TLS handshake with {target}{through} failed: {cause}"),
            );
        }
        return match proxy {
            Some(p) if tcp => err(
                ErrorCode::ConnectFailed,
                format!("cannot connect to the proxy {p}: {cause}"),
            ),
            _ => err(
                ErrorCode::ConnectFailed,
                format!("cannot connect to {target}{through}: {cause}"),
            ),
        };
    }
    if e.is_timeout() {
        return err(ErrorCode::Timeout, format!("the request timed out: {cause}"));
    }
    err(
        ErrorCode::HttpProtocol,
        format!("the server's response cannot be read as HTTP: {cause}"),
    )
}
