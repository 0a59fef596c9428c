//! The shared state of the service: the current policy and its fetcher (swapped whole on
//! reload, each request keeping the one it started with), the limits and the metrics.

use crate::metrics::Metrics;
use crate::policy::Policy;
use a2a_card::Error;
use a2a_card_fetch::{Fetcher, Origin};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;
use tokio::sync::Semaphore;

/// The limits of the service, fixed for the life of the process (the policy file holds what
/// verification decides; these bound what a client can make the service do).
///
/// ```
/// let l = a2a_card_serve::Limits::default();
/// assert_eq!(l.max_body_bytes, 1 << 20);
/// assert_eq!(l.header_timeout.as_secs(), 5);
/// assert_eq!(l.body_timeout.as_secs(), 5);
/// ```
#[derive(Debug, Clone)]
pub struct Limits {
    /// The largest request body (a card, or the JSON of `/v1/verify-remote`); larger: 413.
    pub max_body_bytes: usize,
    /// The largest request head (request line and header fields); larger: 431 (with a JSON
    /// error naming the largest field up to twice this, a bare 431 past it).
    pub max_header_bytes: usize,
    /// The most verifications at once (each request takes a slot once its body is read);
    /// past it: 503 with `Retry-After`.
    pub max_in_flight: usize,
    /// The most client connections open at once; past it, a new connection waits to be accepted.
    pub max_connections: usize,
    /// The longest a request may take from its head to its answer (body, fetch, verification); past it: 504.
    pub deadline: Duration,
    /// The longest a client may take to send a request head, and the longest a keep-alive
    /// connection may stay idle: the connection is closed.
    pub header_timeout: Duration,
    /// The longest a client may take to send a request body once its head is read: 408 and the
    /// connection closed. The body is read before an in-flight slot is taken, so a client that
    /// trickles its body holds only its own connection and what it sent, for this long at most.
    /// The bodies being received hold at most `max_in_flight x max_body_bytes` bytes at once
    /// (past it: 503, the connection closed).
    pub body_timeout: Duration,
    /// After SIGTERM, how long `/readyz` answers 503 while requests are still served (for a
    /// load balancer to stop sending), before the listener closes.
    pub shutdown_delay: Duration,
    /// After the listener closes, the longest wait for the requests being answered.
    pub drain_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_body_bytes: 1 << 20,
            max_header_bytes: 16 * 1024,
            max_in_flight: 256,
            max_connections: 1024,
            deadline: Duration::from_secs(10),
            header_timeout: Duration::from_secs(5),
            body_timeout: Duration::from_secs(5),
            shutdown_delay: Duration::ZERO,
            drain_timeout: Duration::from_secs(30),
        }
    }
}

/// A policy with the fetcher made for its fetch options.
#[derive(Debug)]
pub(crate) struct Loaded {
    pub(crate) policy: Policy,
    pub(crate) fetcher: Fetcher,
}

/// The state every request shares.
#[derive(Debug)]
pub struct Service {
    policy_path: PathBuf,
    current: RwLock<Arc<Loaded>>,
    pub(crate) limits: Limits,
    /// The metrics served at `/metrics`.
    pub metrics: Metrics,
    pub(crate) in_flight: Arc<Semaphore>,
    /// The bytes of the request bodies being received or held, at most
    /// `max_in_flight x max_body_bytes` at once.
    pub(crate) body_budget: Arc<Semaphore>,
    origins: Mutex<HashMap<(Origin, usize), Arc<Semaphore>>>,
    pub(crate) ready: AtomicBool,
}

impl Service {
    /// Reads the policy file and makes its fetcher: the service, ready to serve.
    ///
    /// ```
    /// let dir = std::env::temp_dir().join(format!("a2a-card-serve-svc-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// std::fs::write(dir.join("policy.json"), r#"{"verify": {"mode": "off"}}"#).unwrap();
    /// let svc = a2a_card_serve::Service::new(dir.join("policy.json"), Default::default()).unwrap();
    /// assert_eq!(svc.policy_mode(), "off");
    /// ```
    pub fn new(policy_path: PathBuf, limits: Limits) -> Result<Service, Error> {
        let policy = Policy::load(&policy_path)?;
        let fetcher = fetcher_for(&policy)?;
        let metrics = Metrics::default();
        metrics.reload("ok");
        Ok(Service {
            policy_path,
            current: RwLock::new(Arc::new(Loaded { policy, fetcher })),
            in_flight: Arc::new(Semaphore::new(limits.max_in_flight)),
            body_budget: Arc::new(Semaphore::new(body_budget(&limits))),
            limits,
            metrics,
            origins: Mutex::new(HashMap::new()),
            ready: AtomicBool::new(true),
        })
    }

    /// The mode of the policy in force.
    pub fn policy_mode(&self) -> &'static str {
        self.current().policy.mode()
    }

    pub(crate) fn current(&self) -> Arc<Loaded> {
        match self.current.read() {
            Ok(g) => g.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Reads the policy file again. A policy that does not load changes nothing (the error is
    /// returned and counted); one that does replaces the old one for the requests that start
    /// after it, keeping the fetcher (its connections and cache) when the fetch options are
    /// the same.
    ///
    /// ```
    /// let dir = std::env::temp_dir().join(format!("a2a-card-serve-reload-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// std::fs::write(dir.join("policy.json"), r#"{"verify": {"mode": "off"}}"#).unwrap();
    /// let svc = a2a_card_serve::Service::new(dir.join("policy.json"), Default::default()).unwrap();
    /// std::fs::write(dir.join("policy.json"), r#"{"verify": {"mode": "off"}, "x": 1}"#).unwrap();
    /// assert_eq!(svc.reload().unwrap_err().pointer(), Some("/x"));
    /// assert!(svc.is_ready() && svc.metrics.reloads("error") == 1);
    /// ```
    pub fn reload(&self) -> Result<(), Error> {
        let result = Policy::load(&self.policy_path).and_then(|policy| {
            let old = self.current();
            // FetchOptions has no PartialEq; its Debug form holds every member (no secret:
            // options and a CA bundle's public certificates).
            let fetcher = if format!("{:?}", old.policy.fetch) == format!("{:?}", policy.fetch) {
                old.fetcher.clone()
            } else {
                fetcher_for(&policy)?
            };
            Ok(Arc::new(Loaded { policy, fetcher }))
        });
        match result {
            Ok(loaded) => {
                match self.current.write() {
                    Ok(mut g) => *g = loaded,
                    Err(poisoned) => *poisoned.into_inner() = loaded,
                }
                self.metrics.reload("ok");
                Ok(())
            }
            Err(e) => {
                self.metrics.reload("error");
                Err(e)
            }
        }
    }

    /// Whether `/readyz` says ready (false from SIGTERM on).
    pub fn is_ready(&self) -> bool {
        self.ready.load(Ordering::Relaxed)
    }

    /// The semaphore of one origin's retrievals (made on first use, dropped when unused), by
    /// origin and size: a reloaded policy's size applies to the requests that start after it,
    /// even while earlier ones still hold the old semaphore.
    pub(crate) fn body_budget_bytes(&self) -> usize {
        body_budget(&self.limits)
    }

    pub(crate) fn origin_slots(&self, origin: &Origin, size: usize) -> Arc<Semaphore> {
        let mut map = match self.origins.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        map.retain(|_, s| Arc::strong_count(s) > 1);
        map.entry((origin.clone(), size))
            .or_insert_with(|| Arc::new(Semaphore::new(size)))
            .clone()
    }
}

/// The most bytes of request bodies the service keeps at once: as many as the verifications
/// in flight could hold.
fn body_budget(limits: &Limits) -> usize {
    limits
        .max_in_flight
        .saturating_mul(limits.max_body_bytes)
        .min(Semaphore::MAX_PERMITS)
}

fn fetcher_for(policy: &Policy) -> Result<Fetcher, Error> {
    Fetcher::new(&policy.fetch).map_err(|e| {
        a2a_card::Error::new(a2a_card::ErrorCode::Usage, e.to_string())
            .at("/fetch")
            .from_input(policy.path.display().to_string(), true)
    })
}
