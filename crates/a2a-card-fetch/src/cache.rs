//! A private HTTP cache (RFC 9111) on disk, for cards and JWKS.
//!
//! What it does:
//! - stores `200` responses that can be reused or revalidated: with `Cache-Control: max-age`
//!   (fresh for that long, less the `Age` they arrived with), or with a validator (`ETag`,
//!   `Last-Modified`);
//! - serves a fresh entry without a request;
//! - revalidates a stale entry with `If-None-Match` and `If-Modified-Since`; a `304` reuses the
//!   stored body and updates the stored freshness and validators from the `304`'s fields;
//! - `no-store` in a response: nothing is stored and any stored entry for the URL is removed;
//!   `no-cache`: stored, but revalidated before every use; `Vary: *`: not stored.
//!
//! What it does not: heuristic freshness and `Expires` (a response without `max-age` is always
//! revalidated, which is the conservative reading), caching redirects, serving stale entries.
//! The requests this crate sends always carry the same header fields, so `Vary` naming fields
//! never selects between variants.
//!
//! Entries are keyed by URL and by what decides trust in the connection (the root certificates
//! and whether loopback was allowed), so a run with a private CA or with loopback opened never
//! feeds a run without. One file per entry: a JSON line of metadata, then the body; the body's
//! length and SHA-256 are checked when read, and a damaged entry is ignored.

use serde::{Deserialize, Serialize};
use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// What the cache did for one retrieval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CacheOutcome {
    /// No cache directory: fetched from the network, nothing stored.
    Off,
    /// Fetched and stored.
    Stored,
    /// Fetched; not stored (`no-store`, `Vary: *`, or neither freshness nor a validator).
    NotStored,
    /// Served from a fresh entry without any request.
    Fresh,
    /// A conditional request answered `304 Not Modified`: the stored body was reused.
    Revalidated,
}

impl CacheOutcome {
    /// The kebab-case name.
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

/// `Cache-Control` directives that matter to a private cache.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Directives {
    pub no_store: bool,
    pub no_cache: bool,
    /// `None` when absent, or when malformed or repeated with different values (then stale).
    pub max_age: Option<u64>,
}

/// Parses `Cache-Control` field values (already joined with commas).
pub(crate) fn directives(value: &str) -> Directives {
    let mut d = Directives::default();
    let mut ages: Vec<Option<u64>> = Vec::new();
    for part in split_list(value) {
        let (name, arg) = match part.split_once('=') {
            Some((n, a)) => (n.trim(), Some(a.trim().trim_matches('"'))),
            None => (part.trim(), None),
        };
        match name.to_ascii_lowercase().as_str() {
            "no-store" => d.no_store = true,
            "no-cache" => d.no_cache = true,
            "max-age" => ages.push(arg.and_then(|a| {
                (!a.is_empty() && a.bytes().all(|b| b.is_ascii_digit()))
                    .then(|| a.parse::<u64>().unwrap_or(u64::MAX))
            })),
            _ => {}
        }
    }
    d.max_age = match ages.split_first() {
        Some((first, rest)) if rest.iter().all(|a| a == first) => *first,
        _ => None,
    };
    d
}

/// Splits a comma-separated list, ignoring commas inside quoted strings.
fn split_list(value: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut start, mut quoted, mut escaped) = (0, false, false);
    for (i, c) in value.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            ',' if !quoted => {
                out.push(&value[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&value[start..]);
    out.into_iter().filter(|p| !p.trim().is_empty()).collect()
}

pub(crate) fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// The stored metadata of one entry.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct Meta {
    pub format: u32,
    pub url: String,
    pub stored_at: u64,
    pub age: u64,
    pub max_age: Option<u64>,
    pub no_cache: bool,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    pub content_type: String,
    pub body_len: usize,
    pub body_sha256: String,
}

const FORMAT: u32 = 1;

impl Meta {
    /// Fresh: reusable without asking the server.
    pub fn is_fresh(&self, now: u64) -> bool {
        let age = self.age.saturating_add(now.saturating_sub(self.stored_at));
        !self.no_cache && self.max_age.is_some_and(|m| age < m)
    }

    /// Worth storing: it can be fresh, or it can be revalidated.
    pub fn is_useful(&self) -> bool {
        (!self.no_cache && self.max_age.is_some_and(|m| m > 0))
            || self.etag.is_some()
            || self.last_modified.is_some()
    }

    /// The conditional request fields for revalidation.
    pub fn conditions(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        if let Some(e) = &self.etag {
            out.push(("If-None-Match", e.clone()));
        }
        if let Some(l) = &self.last_modified {
            out.push(("If-Modified-Since", l.clone()));
        }
        out
    }
}

/// A stored response.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub meta: Meta,
    pub body: Vec<u8>,
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

    /// Stores an entry, replacing the file atomically.
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
            f.sync_all()?;
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

/// A new entry's metadata from a response's fields.
pub(crate) fn meta_for(
    url: &str,
    cc: &Directives,
    age: u64,
    etag: Option<String>,
    last_modified: Option<String>,
    content_type: &str,
    body: &[u8],
) -> Meta {
    Meta {
        format: FORMAT,
        url: url.to_string(),
        stored_at: now(),
        age,
        max_age: cc.max_age,
        no_cache: cc.no_cache,
        etag,
        last_modified,
        content_type: content_type.to_string(),
        body_len: body.len(),
        body_sha256: a2a_card::sha256_hex(body),
    }
}

/// Parses an `Age` field value (seconds); a malformed one counts as very old.
pub(crate) fn age_value(v: Option<&str>) -> u64 {
    match v {
        None => 0,
        Some(t) if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) => t.parse().unwrap_or(u64::MAX),
        Some(_) => u64::MAX,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directives_parse() {
        let d = directives("public, max-age=60, no-cache=\"set-cookie, x\"");
        assert_eq!(
            d,
            Directives {
                no_store: false,
                no_cache: true,
                max_age: Some(60)
            }
        );
        let d = directives("No-Store");
        assert!(d.no_store);
        assert_eq!(directives("max-age=\"30\"").max_age, Some(30));
        // Malformed or conflicting max-age means stale.
        assert_eq!(directives("max-age=abc").max_age, None);
        assert_eq!(directives("max-age=10, max-age=20").max_age, None);
        assert_eq!(directives("max-age=10, max-age=10").max_age, Some(10));
        assert_eq!(
            directives("max-age=99999999999999999999999").max_age,
            Some(u64::MAX)
        );
    }

    #[test]
    fn freshness() {
        let mut m = meta_for(
            "https://a.example/",
            &directives("max-age=100"),
            10,
            None,
            None,
            "application/json",
            b"{}",
        );
        let t = m.stored_at;
        assert!(m.is_fresh(t));
        assert!(m.is_fresh(t + 89));
        assert!(!m.is_fresh(t + 90)); // 10 s of Age plus 90 s here
        m.no_cache = true;
        assert!(!m.is_fresh(t));
        let m = meta_for(
            "https://a.example/",
            &directives(""),
            0,
            None,
            None,
            "application/json",
            b"{}",
        );
        assert!(!m.is_useful());
        assert_eq!(age_value(Some("x")), u64::MAX);
    }

    #[test]
    fn damaged_entries_are_ignored() {
        let dir = std::env::temp_dir().join(format!("a2a-card-fetch-unit-{}", std::process::id()));
        let cache = Cache::new(&dir, "ns".into());
        let body = br#"{"name":"A"}"#.to_vec();
        let meta = meta_for(
            "https://a.example/x",
            &directives("max-age=60"),
            0,
            Some("\"e\"".into()),
            None,
            "application/json",
            &body,
        );
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
        fs::write(&path, raw).unwrap();
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
