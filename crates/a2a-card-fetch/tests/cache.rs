//! HTTP caching (RFC 9111) against a real HTTPS server that counts requests.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use a2a_card_fetch::{fetch_card, fetch_jwks, CacheOutcome, FetchOptions};
use common::{temp_dir, Fixture, Resp, Server};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

const V1: &[u8] = br#"{"name":"A","description":"first","version":"1","skills":[]}"#;
const V2: &[u8] = br#"{"name":"A","description":"second","version":"2","skills":[]}"#;
const LM: &str = "Wed, 21 Oct 2015 07:28:00 GMT";

fn entries(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(Result::ok)
                .filter(|e| e.path().extension().is_some_and(|x| x == "entry"))
                .count()
        })
        .unwrap_or(0)
}

struct Setup {
    fx: Fixture,
    server: Server,
    dir: std::path::PathBuf,
}

impl Setup {
    fn new() -> Setup {
        let fx = Fixture::new();
        let version = Arc::new(AtomicUsize::new(1));
        let flip = Arc::new(AtomicUsize::new(0));
        let server = Server::start(&fx.leaf, move |req| {
            let inm = req.header("if-none-match");
            match req.path.as_str() {
                "/etag" if inm == Some("\"v1\"") => Resp::new(304).header("ETag", "\"v1\""),
                "/etag" => Resp::json(V1).header("ETag", "\"v1\""),
                "/etag-then-fresh" if inm == Some("\"v1\"") => Resp::new(304)
                    .header("ETag", "\"v1\"")
                    .header("Cache-Control", "max-age=3600"),
                "/etag-then-fresh" => Resp::json(V1).header("ETag", "\"v1\""),
                "/lm" if req.header("if-modified-since") == Some(LM) => Resp::new(304),
                "/lm" => Resp::json(V1).header("Last-Modified", LM),
                "/fresh" => Resp::json(V1).header("Cache-Control", "public, max-age=3600"),
                "/aged" => Resp::json(V1).header("Cache-Control", "max-age=60").header("Age", "120"),
                "/no-cache" => Resp::json(V1)
                    .header("Cache-Control", "no-cache, max-age=3600")
                    .header("ETag", "\"n\""),
                "/no-store" => Resp::json(V1)
                    .header("Cache-Control", "no-store")
                    .header("ETag", "\"s\"")
                    .header("Last-Modified", LM),
                "/vary-star" => Resp::json(V1).header("Vary", "*").header("ETag", "\"s\""),
                "/flip" => {
                    if flip.fetch_add(1, Ordering::SeqCst) == 0 {
                        Resp::json(V1).header("ETag", "\"f\"")
                    } else {
                        Resp::json(V2).header("Cache-Control", "no-store")
                    }
                }
                "/changing" => {
                    let v = version.load(Ordering::SeqCst);
                    let tag = format!("\"c{v}\"");
                    if inm == Some(tag.as_str()) {
                        Resp::new(304).header("ETag", &tag)
                    } else {
                        version.store(2, Ordering::SeqCst);
                        Resp::json(if v == 1 { V1 } else { V2 }).header("ETag", &tag)
                    }
                }
                "/r-fresh" => Resp::redirect(302, "/fresh"),
                "/jwks" if inm == Some("\"j\"") => Resp::new(304),
                "/jwks" => Resp::new(200)
                    .header("Content-Type", "application/jwk-set+json")
                    .header("ETag", "\"j\"")
                    .body(br#"{"keys":[{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","kid":"k1"}]}"#),
                _ => Resp::new(404),
            }
        });
        let dir = temp_dir("cache");
        Setup { fx, server, dir }
    }

    fn opts(&self) -> FetchOptions {
        FetchOptions {
            cache_dir: Some(self.dir.clone()),
            ..self.fx.options()
        }
    }

    fn get(&self, path: &str) -> a2a_card_fetch::Fetched {
        fetch_card(&self.server.url("localhost", path), &self.opts()).unwrap()
    }

    /// The validators of the requests for `path`, in order.
    fn conditions(&self, path: &str) -> Vec<(Option<String>, Option<String>)> {
        self.server
            .requests()
            .iter()
            .filter(|r| r.path == path)
            .map(|r| {
                (
                    r.header("if-none-match").map(str::to_string),
                    r.header("if-modified-since").map(str::to_string),
                )
            })
            .collect()
    }
}

impl Drop for Setup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn etag_revalidation_reuses_the_stored_card() {
    let s = Setup::new();
    let first = s.get("/etag");
    assert_eq!((first.cache, first.bytes.as_slice()), (CacheOutcome::Stored, V1));
    assert_eq!(first.status, Some(200));
    let second = s.get("/etag");
    assert_eq!(second.cache, CacheOutcome::Revalidated);
    assert_eq!(second.status, Some(304), "the status of the response read");
    assert!(second.to_lines().contains(&"status: 304".to_string()));
    assert_eq!(second.bytes, V1, "the 304 reuses the stored body");
    assert_eq!(second.content_type, "application/json");
    assert_eq!(
        s.conditions("/etag"),
        [(None, None), (Some("\"v1\"".into()), None)],
        "the second request sends If-None-Match"
    );
    assert_eq!(entries(&s.dir), 1);
}

#[test]
fn last_modified_revalidation() {
    let s = Setup::new();
    assert_eq!(s.get("/lm").cache, CacheOutcome::Stored);
    let second = s.get("/lm");
    assert_eq!(
        (second.cache, second.bytes.as_slice()),
        (CacheOutcome::Revalidated, V1)
    );
    assert_eq!(s.conditions("/lm")[1], (None, Some(LM.to_string())));
}

#[test]
fn a_304_updates_freshness() {
    let s = Setup::new();
    assert_eq!(s.get("/etag-then-fresh").cache, CacheOutcome::Stored);
    assert_eq!(s.get("/etag-then-fresh").cache, CacheOutcome::Revalidated);
    // The 304 carried max-age=3600: now fresh, no request.
    let third = s.get("/etag-then-fresh");
    assert_eq!((third.cache, third.bytes.as_slice()), (CacheOutcome::Fresh, V1));
    assert_eq!(s.server.count("/etag-then-fresh"), 2);
}

#[test]
fn max_age_serves_without_a_request() {
    let s = Setup::new();
    assert_eq!(s.get("/fresh").cache, CacheOutcome::Stored);
    let accepts = s.server.accepts();
    let second = s.get("/fresh");
    assert_eq!((second.cache, second.bytes.as_slice()), (CacheOutcome::Fresh, V1));
    assert!(second.peer.is_none() && second.status.is_none());
    assert!(!second.to_lines().iter().any(|l| l.starts_with("status:")));
    assert_eq!(s.server.count("/fresh"), 1);
    assert_eq!(s.server.accepts(), accepts, "no connection at all");
    // A redirect is not cached; its fresh target is.
    let via = s.get("/r-fresh");
    assert_eq!(via.cache, CacheOutcome::Fresh);
    assert_eq!(via.final_url, s.server.url("localhost", "/fresh"));
    assert_eq!((s.server.count("/r-fresh"), s.server.count("/fresh")), (1, 1));
    // An Age at or past max-age arrives stale.
    assert_eq!(s.get("/aged").cache, CacheOutcome::Stored);
    assert_eq!(s.get("/aged").cache, CacheOutcome::Stored);
    assert_eq!(s.server.count("/aged"), 2);
    // no-cache: stored, but revalidated every time despite max-age.
    assert_eq!(s.get("/no-cache").cache, CacheOutcome::Stored);
    s.get("/no-cache");
    assert_eq!(s.conditions("/no-cache")[1].0.as_deref(), Some("\"n\""));
}

#[test]
fn no_store_is_honoured() {
    let s = Setup::new();
    assert_eq!(s.get("/no-store").cache, CacheOutcome::NotStored);
    assert_eq!(s.get("/no-store").cache, CacheOutcome::NotStored);
    assert_eq!(s.conditions("/no-store"), [(None, None), (None, None)]);
    assert_eq!(entries(&s.dir), 0);
    // no-store after a stored response removes the entry.
    assert_eq!(s.get("/flip").cache, CacheOutcome::Stored);
    assert_eq!(entries(&s.dir), 1);
    let second = s.get("/flip");
    assert_eq!(
        (second.cache, second.bytes.as_slice()),
        (CacheOutcome::NotStored, V2)
    );
    assert_eq!(entries(&s.dir), 0);
    s.get("/flip");
    assert_eq!(s.conditions("/flip")[2], (None, None));
    // Vary: * is never stored.
    assert_eq!(s.get("/vary-star").cache, CacheOutcome::NotStored);
    assert_eq!(entries(&s.dir), 0);
}

#[test]
fn a_changed_resource_replaces_the_entry() {
    let s = Setup::new();
    assert_eq!(s.get("/changing").bytes, V1);
    let second = s.get("/changing");
    assert_eq!(
        (second.cache, second.bytes.as_slice()),
        (CacheOutcome::Stored, V2)
    );
    let third = s.get("/changing");
    assert_eq!(
        (third.cache, third.bytes.as_slice()),
        (CacheOutcome::Revalidated, V2)
    );
    assert_eq!(
        s.conditions("/changing")
            .into_iter()
            .map(|c| c.0)
            .collect::<Vec<_>>(),
        [None, Some("\"c1\"".into()), Some("\"c2\"".into())]
    );
}

#[test]
fn jwks_are_cached_too() {
    let s = Setup::new();
    let url = s.server.url("localhost", "/jwks");
    assert_eq!(
        fetch_jwks(&url, &s.opts()).unwrap().fetched.cache,
        CacheOutcome::Stored
    );
    let second = fetch_jwks(&url, &s.opts()).unwrap();
    assert_eq!(second.fetched.cache, CacheOutcome::Revalidated);
    assert_eq!(second.keys[0].kid(), "k1");
}

#[test]
fn without_a_cache_dir_nothing_is_kept() {
    let s = Setup::new();
    let off = s.fx.options();
    for _ in 0..2 {
        let f = fetch_card(&s.server.url("localhost", "/etag"), &off).unwrap();
        assert_eq!(f.cache, CacheOutcome::Off);
    }
    assert_eq!(s.conditions("/etag"), [(None, None), (None, None)]);
    assert_eq!(entries(&s.dir), 0);
}

#[test]
fn an_unwritable_cache_is_a_warning_not_a_failure() {
    let s = Setup::new();
    let file = s.dir.join("not-a-dir");
    std::fs::write(&file, b"x").unwrap();
    let opts = FetchOptions {
        cache_dir: Some(file.join("sub")),
        ..s.fx.options()
    };
    let f = fetch_card(&s.server.url("localhost", "/etag"), &opts).unwrap();
    assert_eq!((f.cache, f.bytes.as_slice()), (CacheOutcome::NotStored, V1));
    assert_eq!(f.warnings.len(), 1, "{:?}", f.warnings);
}

/// A kept fetcher with the memory layer: its entries are reused without the directory.
fn kept(s: &Setup, dir: Option<&Path>) -> a2a_card_fetch::blocking::Fetcher {
    a2a_card_fetch::blocking::Fetcher::new(&FetchOptions {
        cache_dir: dir.map(Path::to_path_buf),
        memory_cache: true,
        ..s.fx.options()
    })
    .unwrap()
}

#[test]
fn a_memory_cache_follows_the_same_rules_and_writes_no_file() {
    let s = Setup::new();
    let f = kept(&s, None);
    let url = |p: &str| s.server.url("localhost", p);
    assert_eq!(f.fetch_card(&url("/etag")).unwrap().cache, CacheOutcome::Stored);
    let second = f.fetch_card(&url("/etag")).unwrap();
    assert_eq!(
        (second.cache, second.status, second.bytes.as_slice()),
        (CacheOutcome::Revalidated, Some(304), V1)
    );
    assert_eq!(s.conditions("/etag")[1].0.as_deref(), Some("\"v1\""));
    // A 304 that makes the entry fresh updates it; then no request at all.
    assert_eq!(
        f.fetch_card(&url("/etag-then-fresh")).unwrap().cache,
        CacheOutcome::Stored
    );
    assert_eq!(
        f.fetch_card(&url("/etag-then-fresh")).unwrap().cache,
        CacheOutcome::Revalidated
    );
    let accepts = s.server.accepts();
    assert_eq!(
        f.fetch_card(&url("/etag-then-fresh")).unwrap().cache,
        CacheOutcome::Fresh
    );
    assert_eq!(s.server.accepts(), accepts);
    // no-store after a stored response drops the entry; Vary: * is never kept.
    assert_eq!(f.fetch_card(&url("/flip")).unwrap().cache, CacheOutcome::Stored);
    assert_eq!(
        f.fetch_card(&url("/flip")).unwrap().cache,
        CacheOutcome::NotStored
    );
    f.fetch_card(&url("/flip")).unwrap();
    assert_eq!(
        s.conditions("/flip")[2],
        (None, None),
        "the no-store removed the entry"
    );
    assert_eq!(
        f.fetch_card(&url("/vary-star")).unwrap().cache,
        CacheOutcome::NotStored
    );
    // A changed resource replaces the entry.
    assert_eq!(f.fetch_card(&url("/changing")).unwrap().bytes, V1);
    assert_eq!(f.fetch_card(&url("/changing")).unwrap().bytes, V2);
    assert_eq!(
        f.fetch_card(&url("/changing")).unwrap().cache,
        CacheOutcome::Revalidated
    );
    // JWK Sets too.
    assert_eq!(
        f.fetch_jwks(&url("/jwks")).unwrap().fetched.cache,
        CacheOutcome::Stored
    );
    assert_eq!(
        f.fetch_jwks(&url("/jwks")).unwrap().fetched.cache,
        CacheOutcome::Revalidated
    );
    assert_eq!(entries(&s.dir), 0, "a memory cache wrote to disk");
    // Another fetcher has a memory of its own.
    assert_eq!(
        kept(&s, None).fetch_card(&url("/etag")).unwrap().cache,
        CacheOutcome::Stored
    );
}

#[test]
fn memory_over_a_directory_is_written_through_and_read_first() {
    let s = Setup::new();
    let f = kept(&s, Some(&s.dir));
    let url = s.server.url("localhost", "/etag-then-fresh");
    assert_eq!(f.fetch_card(&url).unwrap().cache, CacheOutcome::Stored);
    assert_eq!(entries(&s.dir), 1, "written through");
    // The kept fetcher does not read the directory again: with the file gone, it still
    // revalidates its entry.
    std::fs::remove_dir_all(&s.dir).unwrap();
    assert_eq!(f.fetch_card(&url).unwrap().cache, CacheOutcome::Revalidated);
    // The 304 made the entry fresh: written to the directory too, where a new fetcher (or
    // another process) finds it.
    assert_eq!(entries(&s.dir), 1);
    assert_eq!(fetch_card(&url, &s.opts()).unwrap().cache, CacheOutcome::Fresh);
    assert_eq!(f.fetch_card(&url).unwrap().cache, CacheOutcome::Fresh);
    // A new kept fetcher starts from the directory and keeps what it read.
    let g = kept(&s, Some(&s.dir));
    let again = s.server.url("localhost", "/etag");
    assert_eq!(g.fetch_card(&again).unwrap().cache, CacheOutcome::Stored);
    let h = kept(&s, Some(&s.dir));
    assert_eq!(h.fetch_card(&again).unwrap().cache, CacheOutcome::Revalidated);
    std::fs::remove_dir_all(&s.dir).unwrap();
    assert_eq!(h.fetch_card(&again).unwrap().cache, CacheOutcome::Revalidated);
    // An unwritable directory under a memory cache: kept in memory, with the warning.
    let file = s.dir.join("not-a-dir");
    std::fs::create_dir_all(&s.dir).unwrap();
    std::fs::write(&file, b"x").unwrap();
    let w = kept(&s, Some(&file.join("sub")));
    let first = w.fetch_card(&again).unwrap();
    assert_eq!(first.cache, CacheOutcome::Stored);
    assert_eq!(first.warnings.len(), 1, "{:?}", first.warnings);
    assert_eq!(w.fetch_card(&again).unwrap().cache, CacheOutcome::Revalidated);
}
