//! # a2a-card-fetch
//!
//! Fetch an A2A Agent Card (and the JWK Sets its signatures point to) over HTTPS, safely, and
//! verify it against the keys the caller trusts: the step a client takes before it delegates
//! work to a remote agent.
//!
//! - **HTTPS only**, TLS through rustls with the Mozilla roots ([`Roots::WebPki`]) or a private
//!   CA ([`Roots::CaFile`]); HTTP/2 where the server offers it by ALPN, HTTP/1.1 otherwise.
//! - **Limits**, each with a default: connect 10 s, total 30 s, body 1 MiB (counted after
//!   decoding a gzip or brotli body, which must be one whole stream with nothing after it),
//!   3 redirects. The content type must be JSON
//!   (`application/json` or `application/*+json`).
//! - **SSRF guard** ([`guard`]) on every hop and every address a name resolves to; the
//!   connection goes to an address that was checked. Loopback opens only with
//!   [`FetchOptions::allow_loopback`], for local testing.
//! - **Keys**: the caller's [`a2a_card::TrustStore`] is the trust root. A signature's `jku` is
//!   fetched only under an allowlisted prefix, and its keys may sign only cards of that prefix's
//!   origin ([`Fetcher::verify_remote`]).
//! - **HTTP caching** (RFC 9111, [`cache`]): `ETag`/`If-None-Match`,
//!   `Last-Modified`/`If-Modified-Since`, `Cache-Control` (`max-age`, `no-cache`, `no-store`),
//!   `Expires`, on disk when a cache directory is given, in a fetcher's memory with
//!   [`FetchOptions::memory_cache`] (over the directory, written through, or alone).
//! - **Many at once** ([`Fetcher::verify_many`]): remote cards verified concurrently over one
//!   fetcher, with bounds in flight and per origin and a politeness delay ([`ManyOptions`]),
//!   each target given back once, in input order or as each finishes.
//! - **Proxies** ([`Proxy`]): none unless configured; `HTTPS_PROXY`/`NO_PROXY` when asked for.
//! - **Errors**: this crate's [`Error`]: a retrieval failure with its own stable
//!   [`ErrorCode`] (`dns-failed`, `http-status`, ...), or the core's [`a2a_card::Error`] for a
//!   fetched document that is refused ([`ErrorCode::Card`], [`Error::card_error`]); either with
//!   the URL concerned ([`Error::url`]) and, for `http-status`, the status.
//!
//! ## Async and blocking
//!
//! [`Fetcher`] is the asynchronous API, for tokio programs: build it once, share it (it is
//! cheap to clone), and its connections, TLS sessions and cache serve every retrieval.
//! [`blocking`] drives the same code on a runtime of its own; [`fetch_card`], [`fetch_jwks`]
//! and [`verify_remote`] at the root are its one-call forms.
//!
//! ```no_run
//! use a2a_card_fetch::{Fetcher, FetchOptions, RemoteOptions};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let fetcher = Fetcher::new(&FetchOptions {
//!     cache_dir: a2a_card_fetch::default_cache_dir(),
//!     memory_cache: true,
//!     ..FetchOptions::default()
//! })?;
//! let card = fetcher.fetch_card("https://agent.example.com").await?;
//! assert_eq!(card.final_url, "https://agent.example.com/.well-known/agent-card.json");
//!
//! let trust = a2a_card::TrustStore::from_json(&std::fs::read_to_string("trust.json")?, "trust.json")?;
//! let remote = RemoteOptions {
//!     jku_allow: vec!["https://agent.example.com/keys/".into()],
//!     ..RemoteOptions::default()
//! };
//! let result = fetcher.verify_remote("https://agent.example.com", &trust, &remote).await?;
//! if let Some(content) = result.report.verified_content() {
//!     // act on `content`, the bytes the signatures cover
//!     # let _ = content;
//! }
//! # Ok(()) }
//! ```
//!
//! Blocking:
//!
//! ```no_run
//! use a2a_card_fetch::{verify_remote, FetchOptions, RemoteOptions};
//! let trust = a2a_card::TrustStore::from_json(&std::fs::read_to_string("trust.json")?, "trust.json")?;
//! let result = verify_remote("https://agent.example.com", &trust, &RemoteOptions::default(),
//!                            &FetchOptions::default())?;
//! println!("{}", result.report.reason);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## The HTTP stack, and why
//!
//! The transport is **reqwest 0.12** (over hyper 1, hyper-util and h2) with rustls on ring and
//! no default features, and the cache rules are **http-cache-semantics**: maintained code for
//! HTTP/1.1 and HTTP/2 framing, connection pooling, CONNECT tunnels, and RFC 9111, where this crate used to carry its own HTTP/1.1 client. reqwest rather than hyper
//! with hyper-util directly: it exposes every hook the guard needs (a DNS resolver that
//! returns only checked addresses, a connector layer that sees each connection's peer address
//! before a request is written on it, redirects left to the caller, proxies only when set), so
//! the guard is about a hundred lines instead of a hand-assembled connector, proxy tunnel,
//! decompression layer and pool; it shares one `rustls` and `ring` with the rest of the
//! toolkit; and it is the client most tokio programs that talk to agents already carry, so it
//! adds little to their build ([`Fetcher::with_client_builder`] takes their builder). 0.12
//! rather than 0.13 because 0.13 builds on aws-lc-rs or the platform verifier, and the
//! toolkit's TLS is rustls on ring with the roots it chooses. Bodies are decoded here
//! (`flate2`, `brotli-decompressor`), not by reqwest's decompression layer, which reads the
//! first gzip member or brotli stream and never looks at what follows it. What this crate
//! still writes itself is what no client does for it: the address rules ([`guard`]), the
//! checks of IP literals and of each redirect target before a request, and which `jku` may be
//! fetched.
//!
//! ## Proxies
//!
//! [`FetchOptions::proxy`] is [`Proxy::None`] by default: the environment is not read unless
//! the caller asks for [`Proxy::FromEnv`] (the command-line tool does, unless `--no-proxy`).
//! Through a proxy (an `http://` or `https://` proxy, CONNECT, TLS end to end with the
//! server), the proxy resolves the target's name and opens the connection, so the guard cannot
//! see the address the proxy connects to. What it still checks, before anything is sent to the
//! proxy, on the first request and on every redirect:
//! - an IP-literal target (`https://10.0.0.1/`, `https://[::ffff:169.254.169.254]/`, every
//!   spelling the URL parser turns into an address) is refused as it is without a proxy;
//! - a name that resolves *here* to a refused address is refused (a name that does not
//!   resolve here is left to the proxy);
//! - every redirect target is checked the same way, and must be https (and for a `jku`, stay
//!   under its prefix).
//!
//! What it cannot check: the address a name resolves to at the proxy (a different DNS view,
//! an internal name only the proxy knows), and so what the proxy connects to. Use a proxy
//! whose own egress policy refuses internal destinations. The proxy's own address is allowed
//! whatever its class, because the caller configured it; no other address is opened by it.
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

/// The crate's README examples, compiled as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

pub mod blocking;
pub mod cache;
mod client;
mod decode;
mod error;
pub mod guard;
mod many;
mod options;
mod proxy;
mod remote;
mod request;
mod target;
mod tls;
mod transport;

/// The origin of a card (`https://host[:port]`, canonical), the library's one type for it.
pub use a2a_card::signature::Origin;
pub use blocking::{fetch_card, fetch_jwks, verify_remote};
pub use cache::CacheOutcome;
pub use client::{Fetched, FetchedJwks, Fetcher};
pub use error::{Error, ErrorCode};
pub use many::{
    target_of_line, ManyItem, ManyOptions, VerifyMany, DEFAULT_CONCURRENCY, DEFAULT_PER_ORIGIN,
    MAX_CONCURRENCY, MAX_ORIGIN_DELAY, MAX_PER_ORIGIN,
};
pub use options::{
    default_cache_dir, FetchOptions, Proxy, Roots, DEFAULT_CONNECT_TIMEOUT, DEFAULT_MAX_BODY_BYTES,
    DEFAULT_MAX_JWKS_KEYS, DEFAULT_MAX_REDIRECTS, DEFAULT_TOTAL_TIMEOUT, MAX_TIMEOUT,
};
pub use remote::{
    JkuReport, JkuStatus, KeySource, RemoteOptions, RemoteReport, SignatureKey, DEFAULT_MAX_JKU_FETCHES,
};
pub use request::{
    FetchRequest, ManyRequest, RemoteRequest, FETCH, MANY, MAX_BODY_BYTES_LIMIT, MAX_CONNECT_TIMEOUT,
    MAX_JWKS_KEYS_LIMIT, MAX_REDIRECTS_LIMIT, MAX_TOTAL_TIMEOUT, MIN_TIMEOUT, REMOTE,
};
/// The HTTP client this crate is built on, for [`Fetcher::with_client_builder`].
pub use reqwest;
pub use target::{card_origin, card_url, JkuPrefix, WELL_KNOWN_PATH};
