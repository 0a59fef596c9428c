//! Many remote cards verified at once over one [`Fetcher`]: [`Fetcher::verify_many`], with a
//! bound on verifications in flight, a bound per origin and a politeness delay per origin, every
//! target given back exactly once (a result or an error, never dropped), in input order or as
//! each finishes.
//!
//! Each target is verified by [`Fetcher::verify_remote`] (the same SSRF guard, `jku`
//! allowlist, origin binding and cache); what this module adds is only the scheduling. The
//! one fetcher's connections, TLS sessions, HTTP/2 streams and memory cache are shared by every
//! verification. An origin's first verification runs alone (its ALPN says whether it speaks
//! HTTP/2), so that the many cards of an HTTP/2 origin go over one connection rather than one
//! connection per target started before the first handshake finished.

use crate::remote::{RemoteOptions, RemoteReport};
use crate::target::{card_origin, JkuPrefix};
use crate::{Error, ErrorCode, Fetcher};
use a2a_card::error::option_error;
use a2a_card::signature::Origin;
use a2a_card::TrustStore;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, Semaphore};
use tokio::task::{Id, JoinSet};

/// Default bound on verifications in flight: 32.
pub const DEFAULT_CONCURRENCY: usize = 32;
/// The largest bound on verifications in flight: 1024.
pub const MAX_CONCURRENCY: usize = 1024;
/// Default bound on verifications in flight per origin: 4.
pub const DEFAULT_PER_ORIGIN: usize = 4;
/// The largest bound per origin: 1024.
pub const MAX_PER_ORIGIN: usize = 1024;
/// The longest politeness delay: 60 s.
pub const MAX_ORIGIN_DELAY: Duration = Duration::from_secs(60);
/// How many targets may be started and not yet given back, per unit of concurrency: the
/// bound on what is held while an earlier target is still running (in input order, its
/// followers wait for it).
const WINDOW_PER_SLOT: usize = 8;

/// How [`Fetcher::verify_many`] schedules its verifications.
///
/// ```
/// use a2a_card_fetch::ManyOptions;
/// let opts = ManyOptions::default();
/// assert_eq!((opts.concurrency, opts.per_origin), (32, 4));
/// assert!(opts.ordered && opts.origin_delay.is_zero());
/// let e = ManyOptions { concurrency: 0, ..ManyOptions::default() }.check().unwrap_err();
/// assert_eq!(e.options(), ["concurrency"]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManyOptions {
    /// Most verifications in flight at once (1 to [`MAX_CONCURRENCY`], default 32).
    pub concurrency: usize,
    /// Most verifications in flight at once for one origin, the origin of the target as given
    /// (1 to [`MAX_PER_ORIGIN`], default 4). A redirect to another origin is not counted there.
    /// Targets are started in input order within a window of `8 x concurrency`: a list sorted
    /// by origin keeps few origins in that window, so interleave the origins of a long list.
    pub per_origin: usize,
    /// The least time between the starts of two verifications of the same origin (at most
    /// [`MAX_ORIGIN_DELAY`], default none).
    pub origin_delay: Duration,
    /// Give the results back in input order (default) rather than as each finishes. In input
    /// order a slow target holds back the results after it (at most `8 x concurrency` targets
    /// are started and not given back).
    pub ordered: bool,
}

impl Default for ManyOptions {
    fn default() -> Self {
        ManyOptions {
            concurrency: DEFAULT_CONCURRENCY,
            per_origin: DEFAULT_PER_ORIGIN,
            origin_delay: Duration::ZERO,
            ordered: true,
        }
    }
}

impl ManyOptions {
    /// Checks the bounds; the error (`usage`) names the option.
    pub fn check(&self) -> Result<(), Error> {
        let refuse = |template: &str, option: &'static str| {
            Err(Error::from(option_error(
                a2a_card::ErrorCode::Usage,
                template,
                &[option],
            )))
        };
        if !(1..=MAX_CONCURRENCY).contains(&self.concurrency) {
            return refuse(
                &format!(
                    "{{concurrency}} must be from 1 to {MAX_CONCURRENCY}, not {}",
                    self.concurrency
                ),
                "concurrency",
            );
        }
        if !(1..=MAX_PER_ORIGIN).contains(&self.per_origin) {
            return refuse(
                &format!(
                    "{{per_origin}} must be from 1 to {MAX_PER_ORIGIN}, not {}",
                    self.per_origin
                ),
                "per_origin",
            );
        }
        if self.origin_delay > MAX_ORIGIN_DELAY {
            return refuse(
                &format!(
                    "{{origin_delay}} must be at most {} ms, not {} ms",
                    MAX_ORIGIN_DELAY.as_millis(),
                    self.origin_delay.as_millis()
                ),
                "origin_delay",
            );
        }
        Ok(())
    }
}

/// One target of [`Fetcher::verify_many`] and its outcome.
#[derive(Debug)]
pub struct ManyItem {
    /// Its position among the targets given (0-based).
    pub index: usize,
    /// The target as given (`None` when the input was already an error).
    pub target: Option<String>,
    /// The verification, or why there is none (a retrieval failure, a card that cannot be
    /// read, a target that names no URL).
    pub result: Result<RemoteReport, Error>,
}

/// The target named by one line of a list of targets: the line itself (an https URL or
/// origin, surrounding whitespace ignored), or, for a line that starts with `{`, the string
/// member `url` of the JSON object it holds (other members are ignored). An empty line, a
/// JSON line that cannot be read or has no string `url`, is a `usage` error saying so; a
/// line that is not an https URL is refused later, by the verification, with the URL.
///
/// ```
/// use a2a_card_fetch::target_of_line;
/// assert_eq!(target_of_line(" https://a.example \r").unwrap(), "https://a.example");
/// assert_eq!(target_of_line(r#"{"url":"https://b.example","tag":1}"#).unwrap(), "https://b.example");
/// assert!(target_of_line("").is_err());
/// assert!(target_of_line(r#"{"href":"https://b.example"}"#).is_err());
/// ```
pub fn target_of_line(line: &str) -> Result<String, Error> {
    let usage = |m: &str| Error::new(ErrorCode::Card(a2a_card::ErrorCode::Usage), m);
    let line = line.trim();
    if line.is_empty() {
        return Err(usage("an empty line names no URL"));
    }
    if !line.starts_with('{') {
        return Ok(line.to_string());
    }
    let value: serde_json::Value =
        serde_json::from_str(line).map_err(|e| usage(&format!("a JSON line that cannot be read: {e}")))?;
    match value.get("url") {
        Some(serde_json::Value::String(url)) => Ok(url.clone()),
        Some(_) => Err(usage("the member \"url\" of the JSON line is not a string")),
        None => Err(usage("the JSON line has no member \"url\"")),
    }
}

/// The results of [`Fetcher::verify_many`], an asynchronous stream: [`VerifyMany::next`]
/// until `None`. Dropping it stops the verifications still running.
#[derive(Debug)]
pub struct VerifyMany {
    rx: mpsc::Receiver<ManyItem>,
    driver: tokio::task::JoinHandle<()>,
}

impl VerifyMany {
    /// The next result; `None` once every target has been given back.
    pub async fn next(&mut self) -> Option<ManyItem> {
        self.rx.recv().await
    }
}

impl Drop for VerifyMany {
    fn drop(&mut self) {
        self.driver.abort();
    }
}

/// The bound and the delay of one origin, and whether a verification of it has finished.
struct Slot {
    permits: Arc<Semaphore>,
    next_start: Mutex<Instant>,
    /// True once a verification of this origin has finished (the connection is open, and its
    /// protocol known): until then, the origin's first verification runs alone.
    warmed: tokio::sync::Mutex<bool>,
}

impl Slot {
    /// Waits for this origin's turn: at least `delay` after the previous start.
    async fn turn(&self, delay: Duration) {
        if delay.is_zero() {
            return;
        }
        let wait = {
            let mut next = self
                .next_start
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let now = Instant::now();
            let start = (*next).max(now);
            *next = start + delay;
            start - now
        };
        tokio::time::sleep(wait).await;
    }
}

/// The origin a target is counted under: the origin of its card ([`card_origin`]), when it
/// names one (a target that does not is refused by its verification, under no origin).
fn origin_key(target: &str) -> Option<Origin> {
    card_origin(target).ok()
}

/// What the driver shares with each verification.
struct Shared {
    fetcher: Fetcher,
    trust: TrustStore,
    opts: RemoteOptions,
    many: ManyOptions,
    global: Arc<Semaphore>,
}

impl Fetcher {
    /// Verifies many remote cards, each as [`Fetcher::verify_remote`] does, over this fetcher
    /// (its connections, HTTP/2 streams, TLS sessions and memory cache shared by all), at most
    /// [`ManyOptions::concurrency`] at once and [`ManyOptions::per_origin`] per origin, each
    /// origin's starts at least [`ManyOptions::origin_delay`] apart. The results come back in
    /// input order unless [`ManyOptions::ordered`] is false, each target exactly once: an
    /// input that is already an error (a line that names no URL, [`target_of_line`]) comes
    /// back as that error in its place, and a verification that panics (a bug) as an error.
    ///
    /// The targets are read as they are needed, on a thread of their own: an iterator that
    /// blocks (a pipe) holds no worker, and what has finished is given back while it waits.
    /// Call it within a tokio runtime (verifications run as tasks: a multi-threaded runtime
    /// verifies on every worker).
    ///
    /// Errors before anything starts: the options ([`ManyOptions::check`], the verify options,
    /// the `jku` prefixes) and no runtime.
    ///
    /// ```no_run
    /// use a2a_card_fetch::{target_of_line, Fetcher, FetchOptions, ManyOptions, RemoteOptions};
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let fetcher = Fetcher::new(&FetchOptions { memory_cache: true, ..FetchOptions::default() })?;
    /// let trust = a2a_card::TrustStore::from_json(&std::fs::read_to_string("trust.json")?, "trust.json")?;
    /// let list = std::fs::read_to_string("urls.txt")?;
    /// let targets: Vec<_> = list.lines().map(target_of_line).collect();
    /// let many = ManyOptions { concurrency: 64, per_origin: 2, ..ManyOptions::default() };
    /// let mut results = fetcher.verify_many(targets, &trust, &RemoteOptions::default(), &many)?;
    /// while let Some(item) = results.next().await {
    ///     match item.result {
    ///         Ok(r) => println!("{} {}: {}", item.index, r.origin, r.report.ok),
    ///         Err(e) => println!("{} error[{}]: {}", item.index, e.code().as_str(), e.message()),
    ///     }
    /// }
    /// # Ok(()) }
    /// ```
    pub fn verify_many<I>(
        &self,
        targets: I,
        trust: &TrustStore,
        opts: &RemoteOptions,
        many: &ManyOptions,
    ) -> Result<VerifyMany, Error>
    where
        I: IntoIterator<Item = Result<String, Error>>,
        I::IntoIter: Send + 'static,
    {
        many.check()?;
        let mut verify = opts.verify.clone();
        verify.origin = None;
        verify.check()?;
        for p in &opts.jku_allow {
            JkuPrefix::parse(p)?;
        }
        let handle = tokio::runtime::Handle::try_current().map_err(|_| {
            Error::new(
                ErrorCode::Card(a2a_card::ErrorCode::Io),
                "verify_many runs within a tokio runtime, and none is running",
            )
        })?;
        let window = many.concurrency.saturating_mul(WINDOW_PER_SLOT);
        let (tx, rx) = mpsc::channel(window);
        let shared = Arc::new(Shared {
            fetcher: self.clone(),
            trust: trust.clone(),
            opts: opts.clone(),
            many: many.clone(),
            global: Arc::new(Semaphore::new(many.concurrency)),
        });
        // The targets are read on a thread of their own: a list read from a pipe may block on
        // each line, and the scheduler must meanwhile give back what has finished. The thread
        // ends with the list, or at the next target once the scheduler is gone.
        let (in_tx, in_rx) = mpsc::channel(window.max(1));
        let mut targets = targets.into_iter();
        std::thread::Builder::new()
            .name("a2a-card-verify-many-input".into())
            .spawn(move || {
                for target in targets.by_ref() {
                    if in_tx.blocking_send(target).is_err() {
                        break;
                    }
                }
            })
            .map_err(|e| {
                Error::new(
                    ErrorCode::Card(a2a_card::ErrorCode::Io),
                    format!("cannot start the thread that reads the targets: {e}"),
                )
            })?;
        let driver = handle.spawn(drive(in_rx, shared, window, tx));
        Ok(VerifyMany { rx, driver })
    }
}

/// Starts the targets within the window as they arrive, and gives each result back (in input
/// order when asked) as soon as it can, until every target is given back or the receiver is
/// gone. It waits for the next target and for the next finished task at once, so a slow list
/// never holds back what has finished.
async fn drive(
    mut targets: mpsc::Receiver<Result<String, Error>>,
    shared: Arc<Shared>,
    window: usize,
    tx: mpsc::Sender<ManyItem>,
) {
    enum Event {
        Target(Result<String, Error>),
        Done(Box<Result<(Id, ManyItem), tokio::task::JoinError>>),
    }
    let mut slots: HashMap<Origin, Arc<Slot>> = HashMap::new();
    let mut tasks: JoinSet<ManyItem> = JoinSet::new();
    let mut running: HashMap<Id, (usize, String)> = HashMap::new();
    let mut held: BTreeMap<usize, ManyItem> = BTreeMap::new();
    let mut next_in = 0usize;
    let mut next_out = 0usize;
    let mut exhausted = false;
    let ordered = shared.many.ordered;
    // Gives back one finished item; false when the receiver is gone.
    let give = |item: ManyItem, held: &mut BTreeMap<usize, ManyItem>, next_out: &mut usize| {
        let mut out = Vec::new();
        if ordered {
            held.insert(item.index, item);
            while let Some(item) = held.remove(next_out) {
                *next_out += 1;
                out.push(item);
            }
        } else {
            *next_out += 1;
            out.push(item);
        }
        out
    };
    loop {
        // Started and not given back (running, or held for the order) stay within the window.
        let room = !exhausted && next_in - next_out < window;
        let event = tokio::select! {
            biased;
            got = targets.recv(), if room => match got {
                Some(target) => Event::Target(target),
                None => {
                    exhausted = true;
                    continue;
                }
            },
            joined = tasks.join_next_with_id(), if !tasks.is_empty() => match joined {
                Some(joined) => Event::Done(Box::new(joined)),
                None => continue,
            },
            // Nothing running and no room: every target has been given back.
            else => return,
        };
        let item = match event {
            Event::Target(Err(e)) => {
                let index = next_in;
                next_in += 1;
                ManyItem {
                    index,
                    target: None,
                    result: Err(e),
                }
            }
            Event::Target(Ok(target)) => {
                let index = next_in;
                next_in += 1;
                // A crawl list may name millions of origins: the slots of origins with nothing
                // running and no turn pending are dropped once they outnumber the window.
                if slots.len() > window.saturating_mul(2) {
                    let now = Instant::now();
                    slots.retain(|_, slot| {
                        Arc::strong_count(slot) > 1 || slot.next_start.lock().map_or(true, |t| *t > now)
                    });
                }
                let slot = origin_key(&target).map(|key| {
                    slots
                        .entry(key)
                        .or_insert_with(|| {
                            Arc::new(Slot {
                                permits: Arc::new(Semaphore::new(shared.many.per_origin)),
                                next_start: Mutex::new(Instant::now()),
                                warmed: tokio::sync::Mutex::new(false),
                            })
                        })
                        .clone()
                });
                let shared = shared.clone();
                let t = target.clone();
                let id = tasks
                    .spawn(async move {
                        let result = verify_one(&shared, slot, &t).await;
                        ManyItem {
                            index,
                            target: Some(t),
                            result,
                        }
                    })
                    .id();
                running.insert(id, (index, target));
                continue;
            }
            Event::Done(done) => match *done {
                Ok((id, item)) => {
                    running.remove(&id);
                    item
                }
                Err(e) => {
                    let (index, target) = running.remove(&e.id()).unwrap_or_default();
                    ManyItem {
                        index,
                        target: Some(target),
                        result: Err(Error::new(
                            ErrorCode::Card(a2a_card::ErrorCode::MalformedCard),
                            format!("internal error: the verification stopped ({e}); this is a bug"),
                        )),
                    }
                }
            },
        };
        for item in give(item, &mut held, &mut next_out) {
            if tx.send(item).await.is_err() {
                return;
            }
        }
    }
}

/// One verification: its origin's permit and turn first (without holding a global permit
/// while it waits), then, for an origin no verification has finished with yet, its turn after
/// the first one, then a global permit.
///
/// The first verification of an origin runs alone: whether the origin speaks HTTP/2 is learnt
/// from its TLS handshake (ALPN), and requests that start together before any connection is
/// open each open their own. Once the first has finished, the others share its connection
/// (HTTP/2: one connection, a stream each) or open more (HTTP/1.1: one each in flight).
async fn verify_one(shared: &Shared, slot: Option<Arc<Slot>>, target: &str) -> Result<RemoteReport, Error> {
    let closed = || {
        Error::new(
            ErrorCode::Card(a2a_card::ErrorCode::Io),
            "the batch's scheduler is gone",
        )
    };
    let _origin = match &slot {
        Some(slot) => Some(slot.permits.clone().acquire_owned().await.map_err(|_| closed())?),
        None => None,
    };
    if let Some(slot) = &slot {
        slot.turn(shared.many.origin_delay).await;
    }
    // Held by the origin's first verification until it ends (released unmarked if it is
    // dropped, so that the next one becomes the first).
    let mut first = match &slot {
        Some(slot) => {
            let warmed = slot.warmed.lock().await;
            (!*warmed).then_some(warmed)
        }
        None => None,
    };
    let _global = shared
        .global
        .clone()
        .acquire_owned()
        .await
        .map_err(|_| closed())?;
    let result = shared
        .fetcher
        .verify_remote(target, &shared.trust, &shared.opts)
        .await;
    if let Some(warmed) = first.as_mut() {
        **warmed = true;
    }
    result
}
