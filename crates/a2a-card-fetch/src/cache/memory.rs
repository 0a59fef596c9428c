//! The in-memory layer of the cache ([`crate::FetchOptions::memory_cache`]): the entries one
//! [`crate::Fetcher`] (and its clones) read or wrote, kept between its retrievals so that a
//! long-running program reads no file and waits for no blocking task to reuse an entry. With a
//! cache directory the disk is written through (every change goes to both) and read only when
//! an entry is not in memory; without one, entries live as long as the fetcher.
//!
//! Bounded: at most [`MAX_ENTRIES`] entries and [`MAX_BYTES`] bytes (each entry counted as its
//! body, its URL and content type, and twice its kept response fields, which its policy holds
//! a copy of); the entry used longest ago goes first, and an entry larger than the whole budget
//! is not kept in memory. An update is one step under a lock (no `await` in between), so a
//! retrieval whose future is dropped leaves the old entry or the new one, never a mix.

use super::Entry;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

/// The most entries kept in memory by one fetcher.
///
/// ```
/// assert_eq!(a2a_card_fetch::cache::MEMORY_MAX_ENTRIES, 256);
/// ```
pub const MAX_ENTRIES: usize = 256;
/// The most bytes kept in memory by one fetcher (16 MiB: bodies and the fields kept with them).
///
/// ```
/// assert_eq!(a2a_card_fetch::cache::MEMORY_MAX_BYTES, 16 << 20);
/// ```
pub const MAX_BYTES: usize = 16 * 1024 * 1024;

#[derive(Debug)]
struct Slot {
    entry: Arc<Entry>,
    size: usize,
    used: u64,
}

/// What an entry counts against the byte budget.
fn size_of(e: &Entry) -> usize {
    let fields: usize = e.meta.fields.iter().map(|(n, v)| n.len() + v.len()).sum();
    e.body.len() + e.meta.url.len() + e.meta.content_type.len() + 2 * fields
}

#[derive(Debug, Default)]
struct Slots {
    by_key: HashMap<String, Slot>,
    bytes: usize,
    clock: u64,
}

/// The entries of one fetcher, by cache key; clones share them.
#[derive(Debug, Clone, Default)]
pub(crate) struct Memory {
    slots: Arc<Mutex<Slots>>,
    max_entries: usize,
    max_bytes: usize,
}

impl Memory {
    /// A memory layer with the crate's bounds.
    pub fn new() -> Memory {
        Memory::with_bounds(MAX_ENTRIES, MAX_BYTES)
    }

    fn with_bounds(max_entries: usize, max_bytes: usize) -> Memory {
        Memory {
            slots: Arc::default(),
            max_entries,
            max_bytes,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Slots> {
        // Nothing in the critical sections can panic half way through an update; a poisoned
        // lock still holds whole entries.
        self.slots.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The entry for `key`, marked as just used.
    pub fn get(&self, key: &str) -> Option<Arc<Entry>> {
        let mut s = self.lock();
        s.clock += 1;
        let now = s.clock;
        let slot = s.by_key.get_mut(key)?;
        slot.used = now;
        Some(slot.entry.clone())
    }

    /// Keeps `entry` for `key` (replacing any), then drops the entries used longest ago until
    /// the bounds hold. `false` when the entry alone is over the byte budget (nothing is kept
    /// for `key` then, and an older entry for it is dropped).
    pub fn put(&self, key: &str, entry: Arc<Entry>) -> bool {
        let mut s = self.lock();
        self.put_locked(&mut s, key, entry)
    }

    /// The entry kept for `key`: the one already there (a newer one stored meanwhile), else
    /// `entry`, now kept.
    pub fn put_if_absent(&self, key: &str, entry: Arc<Entry>) -> Arc<Entry> {
        let mut s = self.lock();
        if let Some(slot) = s.by_key.get(key) {
            return slot.entry.clone();
        }
        self.put_locked(&mut s, key, entry.clone());
        entry
    }

    fn put_locked(&self, s: &mut Slots, key: &str, entry: Arc<Entry>) -> bool {
        if let Some(old) = s.by_key.remove(key) {
            s.bytes -= old.size;
        }
        let size = size_of(&entry);
        if size > self.max_bytes {
            return false;
        }
        s.clock += 1;
        let used = s.clock;
        s.bytes += size;
        s.by_key.insert(key.to_string(), Slot { entry, size, used });
        while s.by_key.len() > self.max_entries || s.bytes > self.max_bytes {
            let Some(oldest) = s
                .by_key
                .iter()
                .filter(|(k, _)| k.as_str() != key)
                .min_by_key(|(_, slot)| slot.used)
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            if let Some(gone) = s.by_key.remove(&oldest) {
                s.bytes -= gone.size;
            }
        }
        true
    }

    /// Forgets the entry for `key`.
    pub fn remove(&self, key: &str) {
        let mut s = self.lock();
        if let Some(old) = s.by_key.remove(key) {
            s.bytes -= old.size;
        }
    }

    #[cfg(test)]
    fn usage(&self) -> (usize, usize) {
        let s = self.lock();
        (s.by_key.len(), s.bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{meta_for, policy_for, request};
    use super::*;

    const URL: &str = "https://a.example/x";
    /// What an entry of [`entry`] counts beyond its body: its URL and content type.
    const OVER: usize = URL.len() + "application/json".len();

    fn entry_with(body: &[u8], fields: &[(&'static str, &str)]) -> Arc<Entry> {
        let req = request(URL, &http::HeaderMap::new()).unwrap();
        let mut headers = http::HeaderMap::new();
        for (n, v) in fields {
            headers.append(*n, v.parse().unwrap());
        }
        let policy = policy_for(&req, &headers).unwrap();
        Arc::new(Entry {
            meta: meta_for(URL, policy, &headers, "application/json", body),
            body: body.to_vec(),
        })
    }

    fn entry(body: &[u8]) -> Arc<Entry> {
        entry_with(body, &[])
    }

    #[test]
    fn the_entry_used_longest_ago_goes_first() {
        let m = Memory::with_bounds(2, 1024);
        assert!(m.put("a", entry(b"1")));
        assert!(m.put("b", entry(b"22")));
        assert!(m.get("a").is_some(), "a is now the one used last");
        assert!(m.put("c", entry(b"333")));
        assert!(m.get("b").is_none(), "b was used longest ago");
        assert_eq!(m.get("a").unwrap().body, b"1");
        assert_eq!(m.usage(), (2, 4 + 2 * OVER));
        // Replacing an entry counts the new one only.
        assert!(m.put("a", entry(b"4444")));
        assert_eq!(m.usage(), (2, 7 + 2 * OVER));
        m.remove("a");
        m.remove("missing");
        assert_eq!(m.usage(), (1, 3 + OVER));
    }

    #[test]
    fn the_byte_budget_holds_and_counts_the_kept_fields() {
        let m = Memory::with_bounds(100, 10 + 2 * OVER);
        assert!(m.put("a", entry(b"12345")));
        assert!(m.put("b", entry(b"12345")));
        assert!(m.put("c", entry(b"123")), "a goes to make room");
        assert!(m.get("a").is_none());
        assert_eq!(m.usage(), (2, 8 + 2 * OVER));
        // An entry over the whole budget is not kept, and the old entry for its key goes.
        assert!(!m.put("b", entry(&[b'x'; 11 + 2 * OVER])));
        assert!(m.get("b").is_none());
        assert_eq!(m.usage(), (1, 3 + OVER));
        // The response fields kept with an entry count twice (its policy holds them too): a
        // small body with a huge ETag is no small entry.
        let tag = format!("\"{}\"", "e".repeat(20));
        let with_tag = entry_with(b"1", &[("etag", &tag)]);
        assert_eq!(size_of(&with_tag), 1 + OVER + 2 * ("etag".len() + tag.len()));
        assert!(!m.put("d", with_tag), "over the budget by its fields alone");
    }

    #[test]
    fn an_entry_read_late_does_not_replace_a_newer_one() {
        let m = Memory::with_bounds(10, 1024);
        assert!(m.put("a", entry(b"new")));
        let kept = m.put_if_absent("a", entry(b"old, read from disk"));
        assert_eq!(kept.body, b"new");
        assert_eq!(m.get("a").unwrap().body, b"new");
        assert_eq!(m.put_if_absent("b", entry(b"b")).body, b"b");
        assert_eq!(m.usage(), (2, 4 + 2 * OVER));
    }
}
