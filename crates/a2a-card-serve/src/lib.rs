//! # a2a-card-serve
//!
//! `a2a-card serve`: an HTTP service that verifies A2A Agent Cards for the registries,
//! gateways and operators written in languages that have no card signing of their own. The
//! guide is `docs/serve.md`; the API is `docs/serve.openapi.json`.
//!
//! - `POST /v1/verify`: the card's bytes as the body; the answer is the report `a2a-card
//!   verify --format json` prints ([`a2a_card::Report::to_json`], the same function).
//! - `POST /v1/verify-remote`: `{"url": "https://..."}`; the answer is the report of `a2a-card
//!   verify URL --format json` ([`a2a_card_fetch::RemoteReport::to_json`]), made by one
//!   [`a2a_card_fetch::Fetcher`] kept across requests (SSRF guard, `jku` allowlist, origin
//!   binding, memory cache), with at most `per_origin_fetches` retrievals per origin at once.
//! - `GET /healthz`, `GET /readyz`, `GET /metrics` (Prometheus text format, [`Metrics`]).
//!
//! ## Why a crate of its own, and a subcommand of the CLI
//!
//! The service is a front end like the CLI: it reads its input (a policy file, HTTP requests)
//! into the core's types and writes what the core and the fetcher return; it decides nothing.
//! It is a crate rather than a module of the CLI so that the CLI stays thin (one hook:
//! `a2a-card serve` flattens [`Args`] and calls [`run`]), and so that the server's
//! dependencies (hyper's server half, tokio's signals) are this crate's. It is not a separate
//! binary because the arrows stay one way (`cli -> serve -> fetch -> core`) and one binary is
//! what the releases ship and the container image runs.
//!
//! ## The policy file
//!
//! ```json
//! {
//!   "verify": { "jwks": ["jwks.json"], "mode": "require", "profiles": ["spec"],
//!               "allow_jku": ["https://agent.example.com/keys/"] },
//!   "audit": false,
//!   "fetch": { "allow_loopback": false, "ca_file": "ca.pem", "per_origin_fetches": 4 }
//! }
//! ```
//!
//! - `verify`: the options of the core's table [`a2a_card::request::VERIFY`] by their
//!   canonical names (every row but `host_crypto` and `now`), each read by its row's kind into
//!   one [`a2a_card::request::VerifyRequest`] and built by the core. Keys, JWK Sets, trust
//!   stores, anchors and CRLs are file names relative to the policy file (keys may also be JSON
//!   objects written in place). `mode` takes the core's names (`require`, `all`,
//!   `if-present`) and `off`: nothing is verified, every card is answered 200 with
//!   `"mode": "off"`.
//! - `audit`: report, never refuse: every verdict (valid, invalid, a card the core refuses) is
//!   answered with 200 and the same body; the verdict is in the `a2a-card-verdict` header.
//! - `fetch`: `allow_loopback`, `ca_file`, `connect_timeout_ms`, `total_timeout_ms`,
//!   `max_body_bytes`, `max_jwks_keys`, `max_jku_fetches`, `per_origin_fetches`,
//!   `memory_cache` (default true).
//!
//! An unknown member anywhere is refused; every refusal names the file and the member's JSON
//! Pointer ([`Policy::load`], [`PolicySpelling`]). The file is read whole or refused whole: on
//! SIGHUP a policy that does not load leaves the one in force ([`Service::reload`]).
//!
//! ## Status codes
//!
//! | status | when |
//! | --- | --- |
//! | 200 | the card meets the mode (or audit, or mode `off`); health, readiness, metrics |
//! | 400 | `/v1/verify`: the card is refused by the core's reader (the core's code); a malformed `/v1/verify-remote` body or URL |
//! | 403 | `/v1/verify-remote`: the SSRF guard refused the requested URL's address (a redirect's: 502) |
//! | 404, 405 | no such path; the path answers another method |
//! | 408 | the body was not received within `--body-timeout-ms` of the head (the connection is closed) |
//! | 413 | the body is larger than `--max-body-bytes` |
//! | 422 | the verdict is invalid (the body is the report); a fetched card the core refuses |
//! | 431 | the request head is larger than `--max-header-bytes` (`header-too-large`, naming its largest field) |
//! | 502 | the remote card could not be retrieved (the fetcher's code) |
//! | 503 | `--max-in-flight` verifications are running, or the bodies being received hold `--max-in-flight` x `--max-body-bytes` bytes (`Retry-After: 1`); `/readyz` while stopping |
//! | 504 | past `--deadline-ms`, or the retrieval timed out |
//!
//! Errors are JSON: `{"code", "message", "pointer"?, "offset"?, "source"}` with the core's or
//! the fetcher's code, or the service's own (`not-found`, `method-not-allowed`, `overloaded`,
//! `timeout`).
//!
//! ```
//! // The library: a service on a loopback port, stopped by a future.
//! # let dir = std::env::temp_dir().join(format!("a2a-card-serve-lib-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir).unwrap();
//! std::fs::write(dir.join("policy.json"), r#"{"verify": {"mode": "off"}}"#).unwrap();
//! let rt = tokio::runtime::Runtime::new().unwrap();
//! rt.block_on(async {
//!     let svc = std::sync::Arc::new(a2a_card_serve::Service::new(dir.join("policy.json"), Default::default()).unwrap());
//!     let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
//!     a2a_card_serve::serve(listener, svc, async {}).await; // stops at once
//! });
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod api;
mod cli;
mod listen;
mod metrics;
mod policy;
mod state;

pub use api::{error_json, ROUTES, VERDICT_HEADER};
pub use cli::{error_line, run, Args, AFTER_HELP};
pub use listen::{serve, signals};
pub use metrics::{Metrics, LATENCY_BUCKETS};
pub use policy::{Policy, PolicySpelling, DEFAULT_PER_ORIGIN_FETCHES, MAX_POLICY_FILE_BYTES};
pub use state::{Limits, Service};
