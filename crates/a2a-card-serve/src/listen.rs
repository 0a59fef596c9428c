//! The listener and the connections: HTTP/1.1 with the head's limits, the signals, and the
//! shutdown that answers every request already read.

use crate::api;
use crate::state::Service;
use a2a_card::{Error, ErrorCode};
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::future::Future;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::{watch, Semaphore};

/// Serves `service` on `listener` until `shutdown` completes, then stops accepting, closes
/// idle connections, answers every request already read (within
/// [`crate::Limits::drain_timeout`]) and returns the number of connections still being answered when
/// that time ran out (closed then; 0 when every request read was answered). `/readyz` says 503
/// from the moment `shutdown` completes, for [`crate::Limits::shutdown_delay`] before the listener
/// closes.
pub async fn serve(
    listener: TcpListener,
    service: Arc<Service>,
    shutdown: impl Future<Output = ()>,
) -> usize {
    let (stop_tx, stop_rx) = watch::channel(false);
    let connections = Arc::new(Semaphore::new(service.limits.max_connections));
    let mut tasks = tokio::task::JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            () = &mut shutdown => break,
            p = connections.clone().acquire_owned() => match p {
                Ok(p) => p,
                Err(_) => break,
            },
        };
        let accepted = tokio::select! {
            () = &mut shutdown => break,
            a = listener.accept() => a,
        };
        match accepted {
            Ok((stream, _)) => {
                tasks.spawn(connection(stream, service.clone(), stop_rx.clone(), Some(permit)));
            }
            // Out of descriptors or a connection reset before accept: wait a little, go on.
            Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
        }
        // Reap the connections that ended, so the set does not grow with the connections served.
        while tasks.try_join_next().is_some() {}
    }
    service.ready.store(false, Ordering::Relaxed);
    // Still accepting and answering while a load balancer sees /readyz fail.
    let until = tokio::time::sleep(service.limits.shutdown_delay);
    tokio::pin!(until);
    // The connection limit holds then too, and a failed accept waits a little as above.
    loop {
        let permit = tokio::select! {
            () = &mut until => break,
            p = connections.clone().acquire_owned() => match p {
                Ok(p) => p,
                Err(_) => break,
            },
        };
        tokio::select! {
            () = &mut until => break,
            a = listener.accept() => match a {
                Ok((stream, _)) => {
                    tasks.spawn(connection(stream, service.clone(), stop_rx.clone(), Some(permit)));
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
            },
        }
        while tasks.try_join_next().is_some() {}
    }
    drop(listener);
    let _ = stop_tx.send(true);
    let drain = async { while tasks.join_next().await.is_some() {} };
    let _ = tokio::time::timeout(service.limits.drain_timeout, drain).await;
    let cut = tasks.len();
    tasks.abort_all();
    cut
}

/// One client connection: HTTP/1.1 with keep-alive, the head within its size and time limits,
/// closed gracefully (the request being answered first) when `stop` turns true.
async fn connection(
    stream: tokio::net::TcpStream,
    svc: Arc<Service>,
    mut stop: watch::Receiver<bool>,
    permit: Option<tokio::sync::OwnedSemaphorePermit>,
) {
    let _permit = permit;
    let _ = stream.set_nodelay(true);
    svc.metrics.connections(1);
    let handler = hyper::service::service_fn({
        let svc = svc.clone();
        move |req| {
            let svc = svc.clone();
            async move { Ok::<_, std::convert::Infallible>(api::handle(svc, req).await) }
        }
    });
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(svc.limits.header_timeout)
        // Past twice the limit hyper answers a bare 431 without reading on; up to it the
        // handler refuses the head with a JSON error naming its largest field.
        .max_header_size(svc.limits.max_header_bytes.saturating_mul(2).saturating_add(1024))
        .keep_alive(true);
    let conn = builder.serve_connection(TokioIo::new(stream), handler);
    tokio::pin!(conn);
    let stopped = tokio::select! {
        _ = conn.as_mut() => false,
        r = stop.wait_for(|s| *s) => {
            drop(r);
            true
        }
    };
    if stopped {
        conn.as_mut().graceful_shutdown();
        let _ = conn.await;
    }
    svc.metrics.connections(-1);
}

/// A future that completes on SIGTERM or SIGINT, and that calls [`Service::reload`] on each
/// SIGHUP meanwhile (a failed reload is written to stderr as one error line, the policy in
/// force kept). The handlers are installed when this is called (inside the runtime), not when
/// the future is first polled: call it before saying that the service listens, so that a signal
/// sent as soon as it does is never met by the default action. `io` when they cannot be.
///
/// ```no_run
/// # async fn run(svc: std::sync::Arc<a2a_card_serve::Service>) {
/// let stop = a2a_card_serve::signals(svc.clone()).unwrap();
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await.unwrap();
/// a2a_card_serve::serve(listener, svc, stop).await;
/// # }
/// ```
pub fn signals(service: Arc<Service>) -> Result<impl Future<Output = ()>, Error> {
    use tokio::signal::unix::{signal, SignalKind};
    let install = |kind: SignalKind| {
        signal(kind)
            .map_err(|e| Error::new(ErrorCode::Io, format!("cannot install the signal handlers: {e}")))
    };
    let mut term = install(SignalKind::terminate())?;
    let mut int = install(SignalKind::interrupt())?;
    let mut hup = install(SignalKind::hangup())?;
    Ok(async move {
        loop {
            tokio::select! {
                _ = term.recv() => return,
                _ = int.recv() => return,
                _ = hup.recv() => match service.reload() {
                    Ok(()) => eprintln!("policy reloaded: mode {}", service.policy_mode()),
                    Err(e) => eprintln!("{}", crate::error_line(&e)),
                },
            }
        }
    })
}
