//! A private HTTP cache (RFC 9111) on disk, for cards and JWKS.
//!
//! The rules (what may be stored, how long it is fresh, what a revalidation sends, which stored
//! response a `304` selects) are `http-cache-semantics`, used as a private cache (`private`
//! responses are stored, `s-maxage` is for shared caches) with no heuristic freshness and no
//! extra lifetime for `immutable`: a response without `max-age` or `Expires` is revalidated
//! before every use. What this module adds:
//! - a fresh entry is served without a request; a stale one is revalidated with the
//!   `If-None-Match` / `If-Modified-Since` the policy asks for;
//! - a `304` reuses the stored body; the stored response takes every field the `304` carries
//!   (RFC 9111 section 3.2: the crate replaces only fields the stored response already had) and
//!   its policy is computed again; when that changes nothing a later decision reads (still
//!   stale, same `ETag`, `Last-Modified` and `Vary`), the entry is not written again;
//! - a `304` that carries no validator answers the conditional request made from the one
//!   entry stored for the URL, so it is read as carrying that entry's validators; one whose
//!   validator is not the stored one updates nothing (the entry is removed and the retrieval
//!   fails with `http-protocol`);
//! - `no-store` in a response: nothing is stored and any stored entry for the URL is removed;
//!   `Vary: *`: not stored.
//!
//! What it does not: caching redirects, serving stale entries. The response fields kept are
//! those the rules read (`Cache-Control`, `Expires`, `Date`, `Age`, `ETag`, `Last-Modified`,
//! `Vary`, `Pragma`) and the content type.
//!
//! A fetcher with [`crate::FetchOptions::memory_cache`] also keeps the entries it read or
//! wrote in memory (at most [`MEMORY_MAX_ENTRIES`] entries and [`MEMORY_MAX_BYTES`] bytes of
//! bodies, the one used longest ago dropped first): with a cache directory the disk is written
//! through and read only for an entry not in memory; without one, that memory is the cache.
//!
//! Entries are keyed by URL and by what decides trust in the connection (the root certificates
//! and whether loopback was allowed), so a run with a private CA or with loopback opened never
//! feeds a run without. One file per entry: a JSON line of metadata (the policy included), then
//! the body; the body's length and SHA-256 are checked when read, and a damaged entry is
//! ignored. An entry is written to a new temporary file and renamed over the old one by one
//! blocking task that runs to its end even when the retrieval that started it is dropped, so
//! an entry is whole or absent, never half written (and one torn by a crash fails its digest).

mod memory;

pub(crate) use memory::Memory;
pub use memory::{MAX_BYTES as MEMORY_MAX_BYTES, MAX_ENTRIES as MEMORY_MAX_ENTRIES};

use http_cache_semantics::{AfterResponse, BeforeRequest, CacheOptions, CachePolicy};
use serde::{Deserialize, Serialize};
use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// What the cache did for one retrieval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CacheOutcome {
    /// Caching off (no cache directory and no memory cache): fetched from the network,
    /// nothing stored.
    Off,
    /// Fetched and stored.
    Stored,
    /// Fetched; not stored (`no-store`, `Vary: *`, a status or directive that forbids it, or
    /// the entry could not be kept anywhere: the directory could not be written and there is
    /// no memory cache, or it is too large for it). With a memory cache, a directory that
    /// cannot be written leaves the entry `Stored` in memory, with a warning.
    NotStored,
    /// Served from a fresh entry without any request.
    Fresh,
    /// A conditional request answered `304 Not Modified`: the stored body was reused.
    Revalidated,
}

impl CacheOutcome {
    /// The kebab-case name.
    ///
    /// ```
    /// assert_eq!(a2a_card_fetch::CacheOutcome::NotStored.as_str(), "not-stored");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            CacheOutcome::Off => "off",
            CacheOutcome::Stored => "stored",
            CacheOutcome::NotStored => "not-stored",
            CacheOutcome::Fresh => "fresh",
            CacheOutcome::Revalidated => "revalidated",
        }
    }
}

/// How the policy judges responses: a private cache, nothing guessed.
const OPTIONS: CacheOptions = CacheOptions {
    shared: false,
    cache_heuristic: 0.0,
    immutable_min_time_to_live: Duration::ZERO,
    ignore_cargo_cult: false,
};

/// The response fields the rules read (the rest is not stored).
const KEPT: &[&str] = &[
    "cache-control",
    "expires",
    "date",
    "age",
    "etag",
    "last-modified",
    "vary",
    "pragma",
];

/// The stored metadata of one entry.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Meta {
    pub format: u32,
    pub url: String,
    pub content_type: String,
    pub body_len: usize,
    pub body_sha256: String,
    /// The stored response's fields the rules read (names lower-case), for updating it from
    /// a `304`.
    pub fields: Vec<(String, String)>,
    pub policy: CachePolicy,
}

impl Meta {
    fn headers(&self) -> http::HeaderMap {
        let mut h = http::HeaderMap::new();
        for (n, v) in &self.fields {
            if let (Ok(n), Ok(v)) = (
                http::HeaderName::from_bytes(n.as_bytes()),
                http::HeaderValue::from_bytes(v.as_bytes()),
            ) {
                h.append(n, v);
            }
        }
        h
    }
}

/// The fields of `headers` the rules read.
fn kept_fields(headers: &http::HeaderMap) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for name in KEPT {
        for v in headers.get_all(*name) {
            out.push((
                name.to_string(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            ));
        }
    }
    out
}

const FORMAT: u32 = 2;

/// A stored response.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub meta: Meta,
    pub body: Vec<u8>,
}

/// The request as the cache sees it: `GET url` with the fields every retrieval sends.
pub(crate) fn request(url: &str, headers: &http::HeaderMap) -> Option<http::request::Parts> {
    let mut parts = http::Request::get(url).body(()).ok()?.into_parts().0;
    parts.headers = headers.clone();
    Some(parts)
}

/// A response's status and the fields the rules read.
fn response(status: u16, headers: &http::HeaderMap) -> Option<http::response::Parts> {
    let mut parts = http::Response::builder()
        .status(status)
        .body(())
        .ok()?
        .into_parts()
        .0;
    for name in KEPT {
        for v in headers.get_all(*name) {
            parts.headers.append(*name, v.clone());
        }
    }
    Some(parts)
}

/// What to do with a stored entry before asking the server.
pub(crate) enum Before {
    /// Fresh: use it, no request.
    Fresh,
    /// Ask with these conditional fields (`If-None-Match`, `If-Modified-Since`; none when the
    /// entry cannot be revalidated for this request).
    Revalidate(http::HeaderMap),
}

impl Entry {
    pub fn before(&self, req: &http::request::Parts) -> Before {
        match self.meta.policy.before_request(req, SystemTime::now()) {
            BeforeRequest::Fresh(_) => Before::Fresh,
            BeforeRequest::Stale { request, matches } => {
                let mut conditions = http::HeaderMap::new();
                if matches {
                    for name in [http::header::IF_NONE_MATCH, http::header::IF_MODIFIED_SINCE] {
                        if let Some(v) = request.headers.get(&name) {
                            conditions.insert(name, v.clone());
                        }
                    }
                }
                Before::Revalidate(conditions)
            }
        }
    }

    /// The entry after a `304` that answered its conditional request (RFC 9111 section 4.3.4:
    /// the stored response takes every field the `304` carries), or `Err` with the reason when
    /// the `304` names a validator the entry does not have.
    pub fn after_304(&self, req: &http::request::Parts, headers: &http::HeaderMap) -> Result<Update, String> {
        let stored = self.meta.headers();
        let mut answer = headers.clone();
        let has_validator =
            answer.contains_key(http::header::ETAG) || answer.contains_key(http::header::LAST_MODIFIED);
        if !has_validator {
            // It answers the conditions sent from this entry: it carries this entry's validators.
            for name in [http::header::ETAG, http::header::LAST_MODIFIED] {
                if let Some(v) = stored.get(&name) {
                    answer.insert(name, v.clone());
                }
            }
        }
        let Some(res) = response(304, &answer) else {
            return Err("the 304 response cannot be read".into());
        };
        // Which stored response the 304 selects is the crate's rule (strong and weak ETag,
        // Last-Modified).
        if let AfterResponse::Modified(..) = self.meta.policy.after_response(req, &res, SystemTime::now()) {
            return Err(format!(
                "the server answered 304 Not Modified with the validator {}, which the stored response does not have",
                validator_text(&answer)
            ));
        }
        let mut merged = stored;
        for name in KEPT {
            let new: Vec<http::HeaderValue> = headers.get_all(*name).iter().cloned().collect();
            if !new.is_empty() {
                merged.remove(*name);
                for v in new {
                    merged.append(*name, v);
                }
            }
        }
        let Some(policy) = policy_for(req, &merged) else {
            return Ok(Update::Remove);
        };
        // Still stale, with the same validators and Vary: the stored entry makes every later
        // decision the updated one would (revalidate, with the same conditions), so it is not
        // written again.
        let before = self.meta.headers();
        let same = |name: &str| merged.get_all(name).iter().eq(before.get_all(name).iter());
        if policy.is_stale(SystemTime::now()) && ["etag", "last-modified", "vary"].iter().all(|n| same(n)) {
            return Ok(Update::Keep);
        }
        Ok(Update::Replace(Box::new(Meta {
            fields: kept_fields(&merged),
            policy,
            ..self.meta.clone()
        })))
    }
}

/// What a `304` does to the stored entry.
#[derive(Debug)]
pub(crate) enum Update {
    /// Nothing that decides its reuse changed: it stays as stored.
    Keep,
    /// It is replaced by this one (fresh again, or with new validators).
    Replace(Box<Meta>),
    /// The updated response may not be stored (`no-store`): it is removed.
    Remove,
}

fn validator_text(headers: &http::HeaderMap) -> String {
    let v = headers
        .get(http::header::ETAG)
        .or_else(|| headers.get(http::header::LAST_MODIFIED));
    v.map(|v| format!("{:?}", String::from_utf8_lossy(v.as_bytes())))
        .unwrap_or_else(|| "(none)".into())
}

/// The policy of a `200` response: `None` when it may not be stored (`no-store`, `Vary: *`).
pub(crate) fn policy_for(req: &http::request::Parts, headers: &http::HeaderMap) -> Option<CachePolicy> {
    let vary_star = headers
        .get_all(http::header::VARY)
        .iter()
        .any(|v| v.to_str().is_ok_and(|v| v.split(',').any(|p| p.trim() == "*")));
    let res = response(200, headers)?;
    let policy = CachePolicy::new_options(req, &res, SystemTime::now(), OPTIONS);
    (policy.is_storable() && !vary_star).then_some(policy)
}

/// A new entry's metadata, from the response's fields.
pub(crate) fn meta_for(
    url: &str,
    policy: CachePolicy,
    headers: &http::HeaderMap,
    content_type: &str,
    body: &[u8],
) -> Meta {
    Meta {
        format: FORMAT,
        url: url.to_string(),
        content_type: content_type.to_string(),
        body_len: body.len(),
        body_sha256: a2a_card::sha256_hex(body),
        fields: kept_fields(headers),
        policy,
    }
}

/// The cache directory and the namespace of this configuration.
#[derive(Debug, Clone)]
pub(crate) struct Cache {
    dir: PathBuf,
    namespace: String,
}

impl Cache {
    pub fn new(dir: &Path, namespace: String) -> Cache {
        Cache {
            dir: dir.to_path_buf(),
            namespace,
        }
    }

    fn path(&self, url: &str) -> PathBuf {
        let key = a2a_card::sha256_hex(format!("{}\n{url}", self.namespace).as_bytes());
        self.dir.join(format!("{key}.entry"))
    }

    /// The entry for `url`, if one is stored intact and its body is within `max_body`.
    pub fn load(&self, url: &str, max_body: usize) -> Option<Entry> {
        let path = self.path(url);
        // Only a regular file is an entry (a FIFO planted in a shared cache folder would block
        // the read); the metadata line is small, so a file far larger than the body limit is not
        // read, and what is read is bounded even if the file grows meanwhile.
        let meta = fs::symlink_metadata(&path).ok()?;
        let cap = max_body as u64 + 64 * 1024;
        if !meta.file_type().is_file() || meta.len() > cap {
            return None;
        }
        let mut raw = Vec::new();
        fs::File::open(&path)
            .ok()?
            .take(cap + 1)
            .read_to_end(&mut raw)
            .ok()?;
        if raw.len() as u64 > cap {
            return None;
        }
        let nl = raw.iter().position(|&b| b == b'\n')?;
        let meta: Meta = serde_json::from_slice(raw.get(..nl)?).ok()?;
        let body = raw.get(nl + 1..)?.to_vec();
        let intact = meta.format == FORMAT
            && meta.url == url
            && meta.body_len == body.len()
            && body.len() <= max_body
            && meta.body_sha256 == a2a_card::sha256_hex(&body);
        intact.then_some(Entry { meta, body })
    }

    /// Stores an entry, replacing the file atomically (a new temporary file, then a rename).
    pub fn store(&self, meta: &Meta, body: &[u8]) -> std::io::Result<()> {
        // The cache is the user's own: on unix its folder is created readable by them alone.
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt;
            fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(&self.dir)?;
        }
        #[cfg(not(unix))]
        fs::create_dir_all(&self.dir)?;
        let path = self.path(&meta.url);
        let tmp = path.with_extension(format!(
            "tmp.{}.{}",
            std::process::id(),
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or(0)
        ));
        let meta = serde_json::to_vec(meta).map_err(std::io::Error::other)?;
        let write = (|| {
            // A new file only: never open (and follow) something already at the temporary name.
            let mut f = fs::OpenOptions::new().write(true).create_new(true).open(&tmp)?;
            f.write_all(&meta)?;
            f.write_all(b"\n")?;
            f.write_all(body)?;
            // No fsync: an entry cut short by a crash fails its length and digest check and is
            // ignored, so durability would buy nothing but a disk flush per retrieval.
            fs::rename(&tmp, &path)
        })();
        if write.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        write
    }

    /// Removes the entry for `url`, if any.
    pub fn remove(&self, url: &str) -> std::io::Result<()> {
        match fs::remove_file(self.path(url)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req() -> http::request::Parts {
        request("https://a.example/x", &http::HeaderMap::new()).unwrap()
    }

    fn headers(pairs: &[(&'static str, &str)]) -> http::HeaderMap {
        let mut h = http::HeaderMap::new();
        for (n, v) in pairs {
            h.append(*n, v.parse().unwrap());
        }
        h
    }

    fn entry(pairs: &[(&'static str, &str)]) -> Entry {
        let h = headers(pairs);
        let policy = policy_for(&req(), &h).unwrap();
        Entry {
            meta: meta_for("https://a.example/x", policy, &h, "application/json", b"{}"),
            body: b"{}".to_vec(),
        }
    }

    #[test]
    fn freshness_and_conditions() {
        assert!(matches!(
            entry(&[("cache-control", "max-age=100")]).before(&req()),
            Before::Fresh
        ));
        assert!(
            matches!(entry(&[("cache-control", "max-age=100"), ("age", "100")]).before(&req()),
            Before::Revalidate(c) if c.is_empty())
        );
        // No heuristic freshness from Last-Modified, no lifetime for immutable alone.
        let lm = "Wed, 21 Oct 2015 07:28:00 GMT";
        match entry(&[("last-modified", lm), ("cache-control", "immutable")]).before(&req()) {
            Before::Revalidate(c) => assert_eq!(c.get("if-modified-since").unwrap(), lm),
            Before::Fresh => panic!("fresh without a lifetime"),
        }
        match entry(&[("etag", "\"e\""), ("cache-control", "no-cache, max-age=60")]).before(&req()) {
            Before::Revalidate(c) => assert_eq!(c.get("if-none-match").unwrap(), "\"e\""),
            Before::Fresh => panic!("no-cache served fresh"),
        }
        // private is stored by a private cache; no-store and Vary: * are not.
        assert!(policy_for(&req(), &headers(&[("cache-control", "private, max-age=5")])).is_some());
        assert!(policy_for(&req(), &headers(&[("cache-control", "no-store")])).is_none());
        assert!(policy_for(&req(), &headers(&[("vary", "accept, *")])).is_none());
    }

    #[test]
    fn a_304_updates_or_is_refused() {
        let e = entry(&[("etag", "\"v1\"")]);
        let Ok(Update::Replace(m)) = e.after_304(&req(), &headers(&[("cache-control", "max-age=60")])) else {
            panic!("a 304 with max-age did not replace the entry");
        };
        assert!(!m.policy.is_stale(SystemTime::now()), "the 304's max-age applies");
        assert!(m.fields.contains(&("etag".into(), "\"v1\"".into())));
        let err = e.after_304(&req(), &headers(&[("etag", "\"v2\"")])).unwrap_err();
        assert!(err.contains("\\\"v2\\\""), "{err}");
        let no_store = e.after_304(&req(), &headers(&[("cache-control", "no-store")]));
        assert!(matches!(no_store, Ok(Update::Remove)), "{no_store:?}");
        // Nothing new: kept as stored (no write); the weak form of the same tag is new.
        assert!(matches!(
            e.after_304(&req(), &headers(&[("etag", "\"v1\"")])),
            Ok(Update::Keep)
        ));
        let weak = e.after_304(&req(), &headers(&[("etag", "W/\"v1\"")]));
        assert!(matches!(weak, Ok(Update::Replace(_))), "{weak:?}");
        // Last-Modified only, and a bare 304.
        let lm = entry(&[("last-modified", "Wed, 21 Oct 2015 07:28:00 GMT")]);
        assert!(matches!(
            lm.after_304(&req(), &http::HeaderMap::new()),
            Ok(Update::Keep)
        ));
    }

    #[test]
    fn damaged_entries_are_ignored() {
        let dir = std::env::temp_dir().join(format!("a2a-card-fetch-unit-{}", std::process::id()));
        let cache = Cache::new(&dir, "ns".into());
        let body = br#"{"name":"A"}"#.to_vec();
        let h = headers(&[("cache-control", "max-age=60")]);
        let policy = policy_for(&req(), &h).unwrap();
        let meta = meta_for("https://a.example/x", policy, &h, "application/json", &body);
        cache.store(&meta, &body).unwrap();
        assert_eq!(cache.load("https://a.example/x", 1024).unwrap().body, body);
        // Over the body limit of the caller: ignored.
        assert!(cache.load("https://a.example/x", 4).is_none());
        // Another namespace (roots, loopback) does not see it.
        assert!(Cache::new(&dir, "other".into())
            .load("https://a.example/x", 1024)
            .is_none());
        // A changed byte fails the digest.
        let path = cache.path("https://a.example/x");
        let mut raw = fs::read(&path).unwrap();
        let last = raw.len() - 2;
        raw[last] ^= 1;
        fs::write(&path, &raw).unwrap();
        assert!(cache.load("https://a.example/x", 1024).is_none());
        // A cut entry too.
        raw.truncate(raw.len() - 3);
        fs::write(&path, &raw).unwrap();
        assert!(cache.load("https://a.example/x", 1024).is_none());
        cache.remove("https://a.example/x").unwrap();
        assert!(!path.exists());
        let _ = fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn an_entry_that_is_not_a_regular_file_is_never_opened() {
        let dir = std::env::temp_dir().join(format!("a2a-card-fetch-fifo-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let cache = Cache::new(&dir, "ns".into());
        let path = cache.path("https://a.example/x");
        // A FIFO at the entry's name: opening it for reading would block forever.
        let made = std::process::Command::new("mkfifo").arg(&path).status();
        if made.map(|s| s.success()).unwrap_or(false) {
            assert!(cache.load("https://a.example/x", 1024).is_none());
        }
        let _ = fs::remove_file(&path);
        // A symbolic link at the entry's name is not followed either.
        std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
        assert!(cache.load("https://a.example/x", 1024).is_none());
        let _ = fs::remove_dir_all(&dir);
    }
}
