//! [`super::Server::start_with`]: the handler served by hyper (HTTP/1.1 with keep-alive, or
//! HTTP/2 by ALPN) on a tokio runtime of the server's own, so that tests see connections
//! reused and HTTP/2 spoken as a real server does it.

use super::{Framing, Req, Resp, State};
use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use std::collections::VecDeque;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

/// A body sent in pieces, each after `every` (when set).
struct Pieces {
    chunks: VecDeque<Bytes>,
    every: Option<Duration>,
    sleep: Option<Pin<Box<tokio::time::Sleep>>>,
    exact: Option<u64>,
}

impl Body for Pieces {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = &mut *self;
        if this.chunks.is_empty() {
            return Poll::Ready(None);
        }
        if let Some(every) = this.every {
            let sleep = this
                .sleep
                .get_or_insert_with(|| Box::pin(tokio::time::sleep(every)));
            if sleep.as_mut().poll(cx).is_pending() {
                return Poll::Pending;
            }
            this.sleep = None;
        }
        Poll::Ready(this.chunks.pop_front().map(|c| Ok(Frame::data(c))))
    }

    fn is_end_stream(&self) -> bool {
        self.chunks.is_empty()
    }

    fn size_hint(&self) -> SizeHint {
        match self.exact {
            Some(n) => SizeHint::with_exact(n),
            None => SizeHint::default(),
        }
    }
}

fn pieces(body: &[u8], size: usize, every: Option<Duration>, exact: bool) -> Pieces {
    Pieces {
        chunks: body.chunks(size.max(1)).map(Bytes::copy_from_slice).collect(),
        every,
        sleep: None,
        exact: exact.then_some(body.len() as u64),
    }
}

fn request_of<B>(req: &http::Request<B>) -> Req {
    let mut headers: Vec<(String, String)> = req
        .headers()
        .iter()
        .map(|(n, v)| {
            (
                n.as_str().to_string(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect();
    if !headers.iter().any(|(n, _)| n == "host") {
        if let Some(a) = req.uri().authority() {
            headers.push(("host".into(), a.to_string()));
        }
    }
    Req {
        path: req
            .uri()
            .path_and_query()
            .map(|p| p.to_string())
            .unwrap_or_default(),
        headers,
        version: if req.version() == http::Version::HTTP_2 {
            "HTTP/2".into()
        } else {
            "HTTP/1.1".into()
        },
    }
}

fn response_of(r: &Resp) -> http::Response<Pieces> {
    let body = match r.framing {
        Framing::Length => pieces(&r.body, r.body.len(), None, true),
        Framing::Chunked | Framing::Close => pieces(&r.body, 7, None, false),
        Framing::Slow(every) => pieces(&r.body, 1, Some(every), true),
        Framing::Raw => {
            return http::Response::builder()
                .status(500)
                .body(pieces(b"Framing::Raw needs Server::start", 64, None, true))
                .unwrap()
        }
    };
    let mut out = http::Response::builder().status(r.status);
    for (n, v) in &r.headers {
        out = out.header(n.as_str(), v.as_str());
    }
    out.body(body).unwrap()
}

/// Serves `state`'s handler on `listener` with `config` (its ALPN list says whether HTTP/2 is
/// offered), until the test process ends.
pub(super) fn spawn(listener: std::net::TcpListener, config: Arc<rustls::ServerConfig>, state: Arc<State>) {
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            listener.set_nonblocking(true).unwrap();
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            let acceptor = tokio_rustls::TlsAcceptor::from(config);
            loop {
                let Ok((tcp, _)) = listener.accept().await else {
                    continue;
                };
                state.accepts.fetch_add(1, Ordering::SeqCst);
                let (acceptor, state) = (acceptor.clone(), state.clone());
                tokio::spawn(async move {
                    let Ok(tls) = acceptor.accept(tcp).await else {
                        return;
                    };
                    let h2 = tls.get_ref().1.alpn_protocol() == Some(b"h2");
                    let io = TokioIo::new(tls);
                    let service =
                        hyper::service::service_fn(move |req: http::Request<hyper::body::Incoming>| {
                            let resp = state.answer(request_of(&req));
                            async move { Ok::<_, Infallible>(response_of(&resp)) }
                        });
                    let _ = if h2 {
                        hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                            .timer(TokioTimer::new())
                            .serve_connection(io, service)
                            .await
                    } else {
                        hyper::server::conn::http1::Builder::new()
                            .timer(TokioTimer::new())
                            .keep_alive(true)
                            .serve_connection(io, service)
                            .await
                    };
                });
            }
        });
    });
}
