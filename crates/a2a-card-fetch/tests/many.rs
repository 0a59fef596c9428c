//! `Fetcher::verify_many` and its blocking form: every target given back once, in input order
//! or as each finishes, inputs that are already errors in their place, the options' bounds
//! named, the per-origin bound counted at the servers.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use a2a_card::{Algorithm, PrivateKey, TrustStore};
use a2a_card_fetch::{
    blocking, target_of_line, Error, ErrorCode, Fetcher, ManyItem, ManyOptions, RemoteOptions,
};
use common::*;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// A server answering every path with `card` after `pause`; the most requests seen in flight.
fn server(fx: &Fixture, card: Vec<u8>, pause: Duration) -> (Server, Arc<AtomicUsize>) {
    let (now, max) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (n, m) = (now.clone(), max.clone());
    let server = Server::start(&fx.leaf, move |_: &Req| {
        let in_flight = n.fetch_add(1, Ordering::SeqCst) + 1;
        m.fetch_max(in_flight, Ordering::SeqCst);
        std::thread::sleep(pause);
        n.fetch_sub(1, Ordering::SeqCst);
        Resp::json(&card)
    });
    (server, max)
}

fn signed_card() -> (Vec<u8>, TrustStore) {
    let key = PrivateKey::generate(Algorithm::ES256).unwrap();
    let card = signed(&sample_card(), &key, None);
    let mut trust = TrustStore::new();
    trust.pin(key.public().clone(), "test");
    (card, trust)
}

async fn collect(
    fetcher: &Fetcher,
    targets: Vec<Result<String, Error>>,
    trust: &TrustStore,
    many: &ManyOptions,
) -> Vec<ManyItem> {
    let mut results = fetcher
        .verify_many(targets, trust, &RemoteOptions::default(), many)
        .unwrap();
    let mut out = Vec::new();
    while let Some(item) = results.next().await {
        out.push(item);
    }
    out
}

#[test]
fn every_target_comes_back_once_in_order_and_the_origin_bound_holds() {
    let fx = Fixture::new();
    let (card, trust) = signed_card();
    let origins: Vec<_> = (0..3)
        .map(|_| server(&fx, card.clone(), Duration::from_millis(60)))
        .collect();
    let mut targets = Vec::new();
    for i in 0..8 {
        for (s, _) in &origins {
            // Spellings of one origin are one origin (its card's, by the library's one rule).
            let host = if i % 2 == 0 { "localhost" } else { "LocalHost" };
            targets.push(Ok(s.url(host, &format!("/c/{i}"))));
        }
        if i == 3 {
            targets.push(target_of_line(""));
            targets.push(Ok("https://localhost:1/none".to_string()));
        }
    }
    let n = targets.len();
    let fetcher = Fetcher::new(&fx.options()).unwrap();
    let many = ManyOptions {
        concurrency: 16,
        per_origin: 2,
        ..ManyOptions::default()
    };
    let items = runtime().block_on(collect(&fetcher, targets, &trust, &many));
    assert_eq!(items.len(), n);
    for (i, item) in items.iter().enumerate() {
        assert_eq!(item.index, i, "input order");
        match &item.target {
            None => assert_eq!(
                item.result.as_ref().unwrap_err().code(),
                ErrorCode::Card(a2a_card::ErrorCode::Usage)
            ),
            Some(t) if t.contains("localhost:1/") => {
                assert!(item.result.as_ref().unwrap_err().code().is_retrieval());
            }
            Some(_) => assert!(item.result.as_ref().unwrap().report.ok),
        }
    }
    for (_, max) in &origins {
        assert!(max.load(Ordering::SeqCst) <= 2, "per-origin bound");
    }

    // As each finishes: the same items, each once.
    let targets: Vec<_> = origins
        .iter()
        .map(|(s, _)| Ok(s.url("localhost", "/x")))
        .collect();
    let many = ManyOptions {
        ordered: false,
        ..ManyOptions::default()
    };
    let items = runtime().block_on(collect(&fetcher, targets, &trust, &many));
    let mut seen: Vec<usize> = items.iter().map(|i| i.index).collect();
    seen.sort_unstable();
    assert_eq!(seen, [0, 1, 2]);
}

#[test]
fn the_blocking_form_stops_when_asked_and_bounds_name_their_option() {
    let fx = Fixture::new();
    let (card, trust) = signed_card();
    let (s, _) = server(&fx, card, Duration::ZERO);
    let targets: Vec<_> = (0..20)
        .map(|i| Ok(s.url("localhost", &format!("/c/{i}"))))
        .collect();
    let mut seen = 0;
    blocking::verify_many(
        targets,
        &trust,
        &RemoteOptions::default(),
        &ManyOptions::default(),
        &fx.options(),
        Some(2),
        |item| {
            assert!(item.result.unwrap().report.ok);
            seen += 1;
            if seen == 5 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        },
    )
    .unwrap();
    assert_eq!(seen, 5);

    for (many, option) in [
        (
            ManyOptions {
                concurrency: 0,
                ..ManyOptions::default()
            },
            "concurrency",
        ),
        (
            ManyOptions {
                concurrency: 1025,
                ..ManyOptions::default()
            },
            "concurrency",
        ),
        (
            ManyOptions {
                per_origin: 0,
                ..ManyOptions::default()
            },
            "per_origin",
        ),
        (
            ManyOptions {
                origin_delay: Duration::from_secs(61),
                ..ManyOptions::default()
            },
            "origin_delay",
        ),
    ] {
        let e = many.check().unwrap_err();
        assert_eq!(e.options(), [option]);
        assert!(e.message().starts_with(option), "{}", e.message());
    }
    // Outside a runtime, the async form says so instead of panicking.
    let fetcher = {
        let rt = runtime();
        let _entered = rt.enter();
        Fetcher::new(&fx.options()).unwrap()
    };
    let e = fetcher
        .verify_many(
            Vec::new(),
            &trust,
            &RemoteOptions::default(),
            &ManyOptions::default(),
        )
        .unwrap_err();
    assert!(e.message().contains("tokio runtime"), "{}", e.message());
}

#[test]
fn a_result_is_given_back_while_the_list_waits_for_its_next_target() {
    // A list read from a pipe whose writer waits for each answer before writing the next
    // target: each result must come back while the list is still blocked, in order or not.
    let fx = Fixture::new();
    let (card, trust) = signed_card();
    let (s, _) = server(&fx, card, Duration::ZERO);
    let fetcher = Fetcher::new(&fx.options()).unwrap();
    for ordered in [true, false] {
        let (feed, list) = std::sync::mpsc::channel::<Result<String, Error>>();
        let many = ManyOptions {
            ordered,
            ..ManyOptions::default()
        };
        runtime().block_on(async {
            let mut results = fetcher
                .verify_many(list, &trust, &RemoteOptions::default(), &many)
                .unwrap();
            for i in 0..3 {
                feed.send(Ok(s.url("localhost", &format!("/c/{i}")))).unwrap();
                let item = tokio::time::timeout(Duration::from_secs(20), results.next())
                    .await
                    .unwrap_or_else(|_| {
                        panic!("ordered {ordered}, target {i}: no result while the list waits")
                    })
                    .unwrap();
                assert_eq!(item.index, i);
                assert!(item.result.unwrap().report.ok);
            }
            drop(feed);
            assert!(results.next().await.is_none());
        });
    }
}

/// Many cards of one origin that speaks HTTP/2, eight at a time: every one over HTTP/2, and
/// all of them over one connection (its streams). An HTTP/1.1 keep-alive origin gets about
/// one connection per card in flight, reused, as before.
#[test]
fn many_cards_of_one_http2_origin_share_one_connection() {
    use a2a_card_testkit::https::Protocol;
    let fx = Fixture::new();
    let (card, trust) = signed_card();
    for (protocol, version) in [(Protocol::Http2, "HTTP/2"), (Protocol::Http1, "HTTP/1.1")] {
        let card = card.clone();
        let server = Server::start_with(&fx.leaf, protocol, move |_: &Req| {
            std::thread::sleep(Duration::from_millis(20));
            Resp::json(&card)
        });
        let targets: Vec<_> = (0..40)
            .map(|i| Ok(server.url("localhost", &format!("/cards/{i}.json"))))
            .collect();
        let fetcher = Fetcher::new(&fx.options()).unwrap();
        let many = ManyOptions {
            concurrency: 32,
            per_origin: 8,
            ..ManyOptions::default()
        };
        let items = runtime().block_on(collect(&fetcher, targets, &trust, &many));
        assert_eq!(items.len(), 40);
        for item in &items {
            let r = item.result.as_ref().unwrap();
            assert!(r.report.ok, "{}", r.report.reason);
            assert_eq!(r.protocol.as_deref(), Some(version), "{:?}", item.target);
        }
        assert_eq!(server.requests().len(), 40);
        assert!(server.requests().iter().all(|r| r.version == version));
        if protocol == Protocol::Http2 {
            assert_eq!(
                server.accepts(),
                1,
                "connections opened for 40 cards of one origin"
            );
        } else {
            // About one per card in flight (a connection is back in the pool a moment after its
            // answer is read), reused: far fewer than the cards.
            assert!(
                (2..=16).contains(&server.accepts()),
                "{} connections",
                server.accepts()
            );
        }
    }
}
