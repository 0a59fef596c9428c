//! The blocking API: the asynchronous [`crate::Fetcher`] driven by a runtime of its own, for
//! callers without one (the command-line tool uses it). The free functions
//! ([`fetch_card`], [`fetch_jwks`], [`verify_remote`], also at the crate root) build a fetcher
//! for one call; a [`Fetcher`] keeps its connections and TLS sessions between calls. The free
//! functions run on a runtime kept by the calling thread (built at its first call, gone with
//! the thread), so calling them again costs no new runtime or resolver thread; the fetcher,
//! its connections and cache settings are still the call's own, closed before it returns.
//!
//! Called from inside a tokio runtime these functions still work (the retrieval runs on a
//! thread of its own while the caller's thread waits), but an async caller is better served by
//! [`crate::Fetcher`] itself.

use crate::client::{Fetched, FetchedJwks};
use crate::many::{ManyItem, ManyOptions};
use crate::options::FetchOptions;
use crate::remote::{RemoteOptions, RemoteReport};
use crate::target::JkuPrefix;
use crate::{Error, ErrorCode};
use a2a_card::TrustStore;
use std::future::Future;
use std::ops::ControlFlow;

/// A single-threaded runtime for blocking calls.
fn runtime() -> Result<tokio::runtime::Runtime, Error> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| {
            Error::new(
                ErrorCode::Card(a2a_card::ErrorCode::Io),
                format!("cannot start the fetcher's runtime: {e}"),
            )
        })
}

/// Runs `fut` to its end on `rt`. On a thread that already runs a tokio runtime (where
/// blocking on another one is not allowed), on a scoped thread of its own.
fn block_on<F>(rt: &tokio::runtime::Runtime, fut: F) -> F::Output
where
    F: Future + Send,
    F::Output: Send,
{
    if tokio::runtime::Handle::try_current().is_err() {
        return rt.block_on(fut);
    }
    std::thread::scope(|s| match s.spawn(|| rt.block_on(fut)).join() {
        Ok(out) => out,
        Err(panic) => std::panic::resume_unwind(panic),
    })
}

/// A blocking fetcher: a [`crate::Fetcher`] and the runtime that drives it. Retrievals made
/// with one share its connections (a card and its `jku` on the same origin cost one), its TLS
/// sessions and its cache.
///
/// ```no_run
/// use a2a_card_fetch::{blocking, FetchOptions};
/// let fetcher = blocking::Fetcher::new(&FetchOptions::default())?;
/// let card = fetcher.fetch_card("https://agent.example.com")?;
/// println!("{} bytes from {}", card.bytes.len(), card.final_url);
/// # Ok::<(), a2a_card_fetch::Error>(())
/// ```
#[derive(Debug)]
pub struct Fetcher {
    rt: Option<tokio::runtime::Runtime>,
    inner: crate::Fetcher,
}

impl Fetcher {
    /// Checks the options, builds the client and starts its runtime.
    pub fn new(opts: &FetchOptions) -> Result<Fetcher, Error> {
        let rt = runtime()?;
        let inner = {
            let _entered = rt.enter();
            crate::Fetcher::new(opts)?
        };
        Ok(Fetcher { rt: Some(rt), inner })
    }

    /// The options.
    pub fn options(&self) -> &FetchOptions {
        self.inner.options()
    }

    fn run<T: Send>(&self, fut: impl Future<Output = Result<T, Error>> + Send) -> Result<T, Error> {
        match &self.rt {
            Some(rt) => block_on(rt, fut),
            // Only `drop` takes the runtime out.
            None => Err(Error::new(
                ErrorCode::Card(a2a_card::ErrorCode::Io),
                "the blocking fetcher's runtime is gone",
            )),
        }
    }

    /// [`crate::Fetcher::fetch_card`], blocking.
    pub fn fetch_card(&self, url_or_origin: &str) -> Result<Fetched, Error> {
        self.run(self.inner.fetch_card(url_or_origin))
    }

    /// [`crate::Fetcher::fetch_jwks`], blocking.
    pub fn fetch_jwks(&self, url: &str) -> Result<FetchedJwks, Error> {
        self.run(self.inner.fetch_jwks(url))
    }

    /// [`crate::Fetcher::fetch_jwks_under`], blocking.
    pub fn fetch_jwks_under(
        &self,
        url: &str,
        prefix: &JkuPrefix,
        max_keys: usize,
    ) -> Result<FetchedJwks, Error> {
        self.run(self.inner.fetch_jwks_under(url, prefix, max_keys))
    }

    /// [`crate::Fetcher::verify_remote`], blocking.
    pub fn verify_remote(
        &self,
        url_or_origin: &str,
        trust: &TrustStore,
        opts: &RemoteOptions,
    ) -> Result<RemoteReport, Error> {
        self.run(self.inner.verify_remote(url_or_origin, trust, opts))
    }
}

impl Drop for Fetcher {
    fn drop(&mut self) {
        // Do not wait for a name resolution still running on the blocking pool (the system
        // resolver has no timeout of its own); it ends on its own and is then discarded.
        if let Some(rt) = self.rt.take() {
            rt.shutdown_background();
        }
    }
}

/// The runtime the one-call functions keep on a thread. When the thread ends it is shut down
/// without waiting, as [`Fetcher`]'s is: a name resolution still running on its blocking pool
/// (the system resolver has no timeout of its own, and the call that started it has long
/// failed with `timeout`) must not hold the thread, or the process, at exit.
struct KeptRuntime(Option<tokio::runtime::Runtime>);

impl Drop for KeptRuntime {
    fn drop(&mut self) {
        if let Some(rt) = self.0.take() {
            rt.shutdown_background();
        }
    }
}

thread_local! {
    /// The runtime of the one-call functions on this thread, built at the first call and kept
    /// for the next ones (with its blocking pool, where names are resolved), so a program that
    /// calls them again does not build a runtime and start a resolver thread for each call.
    static THREAD_RUNTIME: std::cell::OnceCell<KeptRuntime> = const { std::cell::OnceCell::new() };
}

/// Runs one retrieval on a fetcher built for it, on this thread's runtime (inside a tokio
/// runtime, on a runtime of its own on a thread of its own). Nothing of the fetcher outlives
/// the call: its connections close before this returns.
fn once<T, F, Fut>(opts: &FetchOptions, call: F) -> Result<T, Error>
where
    F: FnOnce(crate::Fetcher) -> Fut + Send,
    Fut: Future<Output = Result<T, Error>> + Send,
    T: Send,
{
    let run = |rt: &tokio::runtime::Runtime, call: F| {
        let fetcher = {
            let _entered = rt.enter();
            crate::Fetcher::new(opts)?
        };
        block_on(rt, call(fetcher))
    };
    let own_runtime = |call: F| {
        let rt = runtime()?;
        let out = run(&rt, call);
        rt.shutdown_background();
        out
    };
    if tokio::runtime::Handle::try_current().is_ok() {
        return own_runtime(call);
    }
    let mut call = Some(call);
    let kept = THREAD_RUNTIME.try_with(|cell| {
        if cell.get().is_none() {
            let _ = cell.set(KeptRuntime(Some(runtime()?)));
        }
        let (Some(rt), Some(call)) = (cell.get().and_then(|k| k.0.as_ref()), call.take()) else {
            return Err(Error::new(
                ErrorCode::Card(a2a_card::ErrorCode::Io),
                "the fetcher's runtime could not be kept",
            ));
        };
        let out = run(rt, call);
        // The fetcher went with the future: one more turn lets the tasks of its pooled
        // connections see that and close them, so no socket stays open between calls.
        rt.block_on(tokio::task::yield_now());
        out
    });
    match (kept, call.take()) {
        (Ok(out), _) => out,
        // Called while this thread's locals are being destroyed: a runtime for this call alone.
        (Err(_), Some(call)) => own_runtime(call),
        (Err(_), None) => Err(Error::new(
            ErrorCode::Card(a2a_card::ErrorCode::Io),
            "the fetcher's runtime is gone",
        )),
    }
}

/// Fetches an Agent Card: for an origin (`https://agent.example.com`) its
/// `/.well-known/agent-card.json`, for any other https URL that URL. HTTPS only, every address
/// checked by the [guard](crate::guard) on every hop, with the limits and cache of `opts`.
/// Blocking; the asynchronous form is [`crate::Fetcher::fetch_card`].
///
/// The card is returned as served; nothing here reads or trusts it. See [`verify_remote`].
///
/// ```no_run
/// let card = a2a_card_fetch::fetch_card("https://agent.example.com", &Default::default())?;
/// assert_eq!(card.final_url, "https://agent.example.com/.well-known/agent-card.json");
/// # Ok::<(), a2a_card_fetch::Error>(())
/// ```
pub fn fetch_card(url_or_origin: &str, opts: &FetchOptions) -> Result<Fetched, Error> {
    once(opts, |f| async move { f.fetch_card(url_or_origin).await })
}

/// Fetches a JWK Set from an https URL, with the same guard, limits and cache as cards.
/// Blocking; the asynchronous form is [`crate::Fetcher::fetch_jwks`].
///
/// ```no_run
/// let set = a2a_card_fetch::fetch_jwks("https://agent.example.com/jwks.json", &Default::default())?;
/// println!("{} keys", set.keys.len());
/// # Ok::<(), a2a_card_fetch::Error>(())
/// ```
pub fn fetch_jwks(url: &str, opts: &FetchOptions) -> Result<FetchedJwks, Error> {
    once(opts, |f| async move { f.fetch_jwks(url).await })
}

/// Fetches a card and verifies it against the caller's trust store, following allowed `jku`s
/// over the same connections. Blocking; the asynchronous form, and what it does, is
/// [`crate::Fetcher::verify_remote`].
///
/// ```no_run
/// use a2a_card_fetch::{verify_remote, FetchOptions, RemoteOptions};
/// let trust = a2a_card::TrustStore::from_json(&std::fs::read_to_string("trust.json")?, "trust.json")?;
/// let remote = verify_remote("https://agent.example.com", &trust, &RemoteOptions::default(),
///                            &FetchOptions::default())?;
/// println!("{}: {}", remote.origin, remote.report.reason);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn verify_remote(
    url_or_origin: &str,
    trust: &TrustStore,
    opts: &RemoteOptions,
    fetch: &FetchOptions,
) -> Result<RemoteReport, Error> {
    once(fetch, |f| async move {
        f.verify_remote(url_or_origin, trust, opts).await
    })
}

/// [`crate::Fetcher::verify_many`], blocking: one fetcher built from `fetch` for the whole
/// batch, on a multi-threaded runtime of its own (`threads` workers, at least 1; `None`: one
/// per core), and `each` called on the calling thread with every result as it is given back
/// (in input order unless [`ManyOptions::ordered`] is false). `each` returning
/// [`ControlFlow::Break`] stops the batch: the verifications still running are dropped.
/// The error: the options, the fetcher or the runtime, before anything started.
///
/// ```no_run
/// use a2a_card_fetch::{blocking, target_of_line, FetchOptions, ManyOptions, RemoteOptions};
/// use std::ops::ControlFlow;
/// let trust = a2a_card::TrustStore::from_json(&std::fs::read_to_string("trust.json")?, "trust.json")?;
/// let targets = ["https://a.example", "https://b.example"].map(target_of_line);
/// let mut valid = 0;
/// blocking::verify_many(targets, &trust, &RemoteOptions::default(), &ManyOptions::default(),
///                       &FetchOptions::default(), None, |item| {
///     valid += usize::from(item.result.is_ok_and(|r| r.report.ok));
///     ControlFlow::Continue(())
/// })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn verify_many<I>(
    targets: I,
    trust: &TrustStore,
    opts: &RemoteOptions,
    many: &ManyOptions,
    fetch: &FetchOptions,
    threads: Option<usize>,
    mut each: impl FnMut(ManyItem) -> ControlFlow<()> + Send,
) -> Result<(), Error>
where
    I: IntoIterator<Item = Result<String, Error>>,
    I::IntoIter: Send + 'static,
{
    many.check()?;
    let targets = targets.into_iter();
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    if let Some(n) = threads {
        builder.worker_threads(n.max(1));
    }
    let rt = builder.enable_all().build().map_err(|e| {
        Error::new(
            ErrorCode::Card(a2a_card::ErrorCode::Io),
            format!("cannot start the fetcher's runtime: {e}"),
        )
    })?;
    let run = async {
        let fetcher = crate::Fetcher::new(fetch)?;
        let mut results = fetcher.verify_many(targets, trust, opts, many)?;
        while let Some(item) = results.next().await {
            if each(item).is_break() {
                break;
            }
        }
        Ok(())
    };
    let out = if tokio::runtime::Handle::try_current().is_err() {
        rt.block_on(run)
    } else {
        std::thread::scope(|s| match s.spawn(|| rt.block_on(run)).join() {
            Ok(out) => out,
            Err(panic) => std::panic::resume_unwind(panic),
        })
    };
    rt.shutdown_background();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn a_thread_ends_without_waiting_for_a_lookup_left_on_its_kept_runtime() {
        // What a name resolution that hangs past the call's deadline leaves behind: a task on
        // the kept runtime's blocking pool. The thread must end (and a process exit) without
        // waiting for it.
        let started = Instant::now();
        std::thread::spawn(|| {
            THREAD_RUNTIME.with(|cell| {
                let _ = cell.set(KeptRuntime(Some(runtime().unwrap())));
                let rt = cell.get().and_then(|k| k.0.as_ref()).unwrap();
                drop(rt.spawn_blocking(|| std::thread::sleep(Duration::from_secs(20))));
            });
        })
        .join()
        .unwrap();
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the thread waited {:?} for its runtime's blocking task",
            started.elapsed()
        );
    }
}
