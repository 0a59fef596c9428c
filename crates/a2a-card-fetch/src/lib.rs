//! # a2a-card-fetch
//!
//! Fetch an A2A Agent Card (and the JWK Sets its signatures point to) over HTTPS, safely, and
//! verify it against the keys the caller trusts: the step a client takes before it delegates
//! work to a remote agent.
//!
//! - **HTTPS only**, TLS through rustls with the Mozilla roots ([`Roots::WebPki`]) or a private
//!   CA ([`Roots::CaFile`]).
//! - **Limits**, each with a default: connect 10 s, total 30 s, body 1 MiB, 3 redirects.
//!   The content type must be JSON (`application/json` or `application/*+json`).
//! - **SSRF guard** ([`guard`]) on every hop and every address a name resolves to; the
//!   connection goes to the address that was checked. Loopback opens only with
//!   [`FetchOptions::allow_loopback`], for local testing.
//! - **Keys**: the caller's [`a2a_card::TrustStore`] is the trust root. A signature's `jku` is
//!   fetched only under an allowlisted prefix, and its keys may sign only cards of that prefix's
//!   origin ([`verify_remote`]).
//! - **HTTP caching** (RFC 9111, [`cache`]): `ETag`/`If-None-Match`,
//!   `Last-Modified`/`If-Modified-Since`, `Cache-Control: max-age`, `no-cache`, `no-store`.
//! - **Errors**: the toolkit's one [`Error`] type; every failure has its own stable
//!   [`ErrorCode`], with the URL concerned ([`Error::url`]) and, for `http-status`, the status.
//!
//! The API is blocking; an async caller runs it on a blocking thread (for example tokio's
//! `spawn_blocking`).
//!
//! ```no_run
//! use a2a_card_fetch::{fetch_card, verify_remote, FetchOptions, RemoteOptions};
//!
//! let opts = FetchOptions {
//!     cache_dir: a2a_card_fetch::default_cache_dir(),
//!     ..FetchOptions::default()
//! };
//! let card = fetch_card("https://agent.example.com", &opts)?;
//! assert_eq!(card.final_url, "https://agent.example.com/.well-known/agent-card.json");
//!
//! let trust = a2a_card::TrustStore::from_json(&std::fs::read_to_string("trust.json")?, "trust.json")?;
//! let remote = RemoteOptions {
//!     jku_allow: vec!["https://agent.example.com/keys/".into()],
//!     ..RemoteOptions::default()
//! };
//! let result = verify_remote("https://agent.example.com", &trust, &remote, &opts)?;
//! if let Some(content) = result.report.verified_content() {
//!     // act on `content`, the bytes the signatures cover
//!     # let _ = content;
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

pub mod cache;
mod client;
pub mod guard;
mod http;
mod remote;
mod target;

pub use a2a_card::{Error, ErrorCode};
pub use cache::CacheOutcome;
pub use client::{
    default_cache_dir, fetch_card, fetch_jwks, FetchOptions, Fetched, FetchedJwks, Fetcher, Roots,
    DEFAULT_CONNECT_TIMEOUT, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_JWKS_KEYS, DEFAULT_MAX_REDIRECTS,
    DEFAULT_TOTAL_TIMEOUT, MAX_TIMEOUT,
};
pub use remote::{
    verify_remote, JkuReport, JkuStatus, KeySource, RemoteOptions, RemoteReport, SignatureKey,
    DEFAULT_MAX_JKU_FETCHES,
};
pub use target::{card_url, JkuPrefix, WELL_KNOWN_PATH};
