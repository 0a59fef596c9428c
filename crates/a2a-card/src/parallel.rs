//! Card batches on threads (feature `parallel`, native targets only): a [`Pool`] of verifying
//! threads, each with a [`WORKER_STACK_BYTES`] stack (as deep a card as the main thread
//! verifies), that maps a function over a batch with the results in input order and a panic in
//! one card (a bug) turned into that card's error, so that the rest of the batch is still
//! done. The CLI's `verify --batch` and Python's `verify_many` both run on it; how many threads
//! is theirs to decide. A batch streamed a chunk at a time goes through [`Pool::map_chunks`],
//! and a JSON Lines batch is split into its lines by [`JsonLines`] from the bytes the caller
//! reads (nothing is read here).
//!
//! ```
//! use a2a_card::parallel::Pool;
//! use a2a_card::{verify_card, PrivateKey, Algorithm, TrustStore, VerifyOptions};
//!
//! let pool = Pool::new(2).unwrap();
//! assert_eq!(pool.threads(), 2);
//! let cards: Vec<&[u8]> = vec![br#"{"name":"A"}"#, b"[1,"];
//! let trust = TrustStore::new();
//! let results = pool.map(&cards, |card| verify_card(card, &trust, &VerifyOptions::default()));
//! assert!(!results[0].as_ref().unwrap().ok); // read, but not signed
//! assert_eq!(results[1].as_ref().unwrap_err().code().as_str(), "invalid-json");
//! ```

use crate::error::{Error, ErrorCode};
use rayon::prelude::*;

/// The stack of each verifying thread: as deep a card as the main thread verifies.
pub const WORKER_STACK_BYTES: usize = 16 * 1024 * 1024;

/// The most threads [`default_threads`] answers.
pub const MAX_THREADS: usize = 1024;

/// One thread per core (1 when the number of cores is unknown), at most [`MAX_THREADS`].
///
/// ```
/// let n = a2a_card::parallel::default_threads();
/// assert!((1..=a2a_card::parallel::MAX_THREADS).contains(&n));
/// ```
pub fn default_threads() -> usize {
    std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .min(MAX_THREADS)
}

/// A pool of verifying threads (named `a2a-card-verify-N`).
#[derive(Debug)]
pub struct Pool {
    pool: rayon::ThreadPool,
    threads: usize,
}

impl Pool {
    /// A pool of `threads` threads; `io` when the system cannot start them.
    ///
    /// ```
    /// let pool = a2a_card::parallel::Pool::new(1).unwrap();
    /// assert_eq!(pool.threads(), 1);
    /// ```
    pub fn new(threads: usize) -> Result<Pool, Error> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .stack_size(WORKER_STACK_BYTES)
            .thread_name(|i| format!("a2a-card-verify-{i}"))
            .build()
            .map_err(|e| {
                Error::new(
                    ErrorCode::Io,
                    format!("cannot start {threads} verifying threads: {e}"),
                )
            })?;
        let threads = pool.current_num_threads();
        Ok(Pool { pool, threads })
    }

    /// How many threads the pool has.
    ///
    /// ```
    /// assert_eq!(a2a_card::parallel::Pool::new(3).unwrap().threads(), 3);
    /// ```
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// `f` of every item, run on the pool's threads; the results in the order of `items`. A
    /// panic in `f` becomes that item's `malformed-card` error saying it is an internal error.
    ///
    /// ```
    /// let pool = a2a_card::parallel::Pool::new(2).unwrap();
    /// let out = pool.map(&[4u32, 2, 1], |n| Ok(8 / n));
    /// assert_eq!(out.into_iter().map(Result::unwrap).collect::<Vec<_>>(), [2, 4, 8]);
    /// ```
    pub fn map<T, R, F>(&self, items: &[T], f: F) -> Vec<Result<R, Error>>
    where
        T: Sync,
        R: Send,
        F: Fn(&T) -> Result<R, Error> + Sync + Send,
    {
        self.pool
            .install(|| items.par_iter().map(|item| contained(|| f(item))).collect())
    }

    /// `a` and `b` run on the pool at the same time (for reading the next part of a batch while
    /// this one is verified); both results.
    ///
    /// ```
    /// let pool = a2a_card::parallel::Pool::new(2).unwrap();
    /// assert_eq!(pool.join(|| 1, || 2), (1, 2));
    /// ```
    pub fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        self.pool.install(|| rayon::join(a, b))
    }
}

impl Pool {
    /// `f` of every item of a batch handed out a chunk at a time by `next` (an empty chunk
    /// ends it): each chunk is mapped on the pool ([`Pool::map`]) and handed with its results,
    /// in input order, to `done`, while the next chunk is read; so at most two chunks are held
    /// whatever the size of the batch, and what `done` writes of a chunk is out before a later
    /// chunk fails. The first error of `next` or `done` ends the batch.
    ///
    /// ```
    /// let pool = a2a_card::parallel::Pool::new(2).unwrap();
    /// let mut chunks = vec![vec![3u32], vec![1, 2]].into_iter();
    /// let mut seen = Vec::new();
    /// let next = || Ok::<_, ()>(chunks.next().unwrap_or_default());
    /// pool.map_chunks(next, |n| Ok(n * 10), |items, results| {
    ///     seen.extend(items.iter().zip(results).map(|(n, r)| (*n, r.unwrap())));
    ///     Ok(())
    /// })
    /// .unwrap();
    /// assert_eq!(seen, [(3, 30), (1, 10), (2, 20)]);
    /// ```
    pub fn map_chunks<T, R, E, N, F, D>(&self, mut next: N, f: F, mut done: D) -> Result<(), E>
    where
        T: Sync + Send,
        R: Send,
        E: Send,
        N: FnMut() -> Result<Vec<T>, E> + Send,
        F: Fn(&T) -> Result<R, Error> + Sync + Send,
        D: FnMut(&[T], Vec<Result<R, Error>>) -> Result<(), E> + Send,
    {
        let mut chunk = next()?;
        while !chunk.is_empty() {
            let (written, following) = self.join(|| done(&chunk, self.map(&chunk, &f)), &mut next);
            written?;
            chunk = following?;
        }
        Ok(())
    }
}

/// `f()`, with a panic (a bug) turned into an error of this card alone.
fn contained<R>(f: impl FnOnce() -> Result<R, Error>) -> Result<R, Error> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|_| {
        Err(Error::new(
            ErrorCode::MalformedCard,
            "internal error: verifying this card panicked (a bug in a2a-card; please report it \
             with the card); the batch went on",
        ))
    })
}

/// The lines of a JSON Lines batch, split from bytes the caller reads (nothing is read here):
/// each line numbered from 1, blank lines counted and skipped, a final `\r` dropped, and a line
/// longer than the limit (a card's `max_input_bytes`) given by its number alone, never held
/// whole, so that memory is bounded whatever the input.
///
/// ```
/// use a2a_card::parallel::{JsonLines, Line};
/// let mut split = JsonLines::new(4);
/// let (used, line) = split.feed(b"ab\r\n\nabcdef\nxy");
/// assert_eq!((used, line), (4, Some(Line::Text(1, b"ab".to_vec()))));
/// assert_eq!(split.feed(b"\nabcdef\nxy"), (1, None)); // line 2 is blank
/// assert_eq!(split.feed(b"abcdef\nxy"), (7, Some(Line::TooLong(3))));
/// assert_eq!(split.feed(b"xy"), (2, None));
/// assert_eq!(split.finish(), Some(Line::Text(4, b"xy".to_vec())));
/// ```
#[derive(Debug, Clone)]
pub struct JsonLines {
    /// The longest line kept, in bytes (a final `\r` aside).
    max_bytes: usize,
    /// The number of the last line ended.
    number: usize,
    /// The line so far (empty once it is too long).
    line: Vec<u8>,
    too_long: bool,
    /// Whether what was seen of a line too long is whitespace only.
    blank: bool,
    /// Whether the line has any byte yet (a newline counts).
    any: bool,
}

/// One line of a JSON Lines batch that is not blank.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    /// Its number (from 1) and its bytes.
    Text(usize, Vec<u8>),
    /// The number of a line longer than the limit, skipped without being kept.
    TooLong(usize),
}

impl JsonLines {
    /// A splitter of lines of at most `max_bytes` bytes.
    ///
    /// ```
    /// assert_eq!(a2a_card::parallel::JsonLines::new(10).number(), 0);
    /// ```
    pub fn new(max_bytes: usize) -> JsonLines {
        JsonLines {
            max_bytes,
            number: 0,
            line: Vec::new(),
            too_long: false,
            blank: true,
            any: false,
        }
    }

    /// The number of the last line ended (for a message about what follows it).
    ///
    /// ```
    /// let mut split = a2a_card::parallel::JsonLines::new(10);
    /// split.feed(b"\n");
    /// assert_eq!(split.number(), 1);
    /// ```
    pub fn number(&self) -> usize {
        self.number
    }

    /// Takes bytes from the start of `buf`, up to and with the first newline: how many it took,
    /// and the line they ended when it is not blank. Call again with what it left.
    ///
    /// ```
    /// let mut split = a2a_card::parallel::JsonLines::new(10);
    /// assert_eq!(split.feed(b"{}"), (2, None));
    /// assert_eq!(split.feed(b"\n{}"), (1, Some(a2a_card::parallel::Line::Text(1, b"{}".to_vec()))));
    /// ```
    pub fn feed(&mut self, buf: &[u8]) -> (usize, Option<Line>) {
        let newline = memchr::memchr(b'\n', buf);
        let part = buf.get(..newline.unwrap_or(buf.len())).unwrap_or_default();
        self.any |= !buf.is_empty();
        if self.too_long {
            self.blank = self.blank && part.iter().all(u8::is_ascii_whitespace);
        } else if self.line.len() + part.len() > self.max_bytes.saturating_add(1) {
            // One byte more than the limit may be a final \r; past that the line is too long,
            // and the rest of it is only looked at, never kept.
            self.too_long = true;
            self.blank = self.line.iter().chain(part).all(u8::is_ascii_whitespace);
            self.line = Vec::new();
        } else {
            self.line.extend_from_slice(part);
        }
        match newline {
            Some(_) => (part.len() + 1, self.end()),
            None => (part.len(), None),
        }
    }

    /// The last line, when the bytes ended without a newline after it.
    ///
    /// ```
    /// let mut split = a2a_card::parallel::JsonLines::new(10);
    /// assert_eq!(split.finish(), None);
    /// split.feed(b"[1]");
    /// assert_eq!(split.finish(), Some(a2a_card::parallel::Line::Text(1, b"[1]".to_vec())));
    /// ```
    pub fn finish(&mut self) -> Option<Line> {
        if self.any {
            self.end()
        } else {
            None
        }
    }

    /// The line ended now, unless it is blank.
    fn end(&mut self) -> Option<Line> {
        let mut line = std::mem::take(&mut self.line);
        let (too_long, blank) = (self.too_long, self.blank);
        (self.too_long, self.blank, self.any) = (false, true, false);
        self.number += 1;
        if too_long {
            return (!blank).then_some(Line::TooLong(self.number));
        }
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            None
        } else if line.len() > self.max_bytes {
            Some(Line::TooLong(self.number))
        } else {
            Some(Line::Text(self.number, line))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_is_the_error_of_its_item_alone_and_the_order_is_kept() {
        let pool = Pool::new(3).unwrap();
        let items: Vec<u32> = (0..200).collect();
        let out = pool.map(&items, |n| {
            if n % 50 == 7 {
                panic!("a bug");
            }
            Ok(n * 2)
        });
        assert_eq!(out.len(), 200);
        for (n, r) in items.iter().zip(&out) {
            match r {
                Ok(v) => assert_eq!(*v, n * 2),
                Err(e) => {
                    assert_eq!(n % 50, 7);
                    assert_eq!(e.code(), ErrorCode::MalformedCard);
                    assert!(e.message().starts_with("internal error"), "{e}");
                }
            }
        }
        assert_eq!(out.iter().filter(|r| r.is_err()).count(), 4);
    }

    /// The lines of `text` fed in pieces of at most `piece` bytes, as a reader hands them.
    fn lines(text: &[u8], max_bytes: usize, piece: usize) -> Vec<String> {
        let mut split = JsonLines::new(max_bytes);
        let mut out = Vec::new();
        let mut rest = text;
        let mut push = |line: Line| match line {
            Line::Text(n, bytes) => out.push(format!("{n}:{}", String::from_utf8(bytes).unwrap())),
            Line::TooLong(n) => out.push(format!("{n}:too long")),
        };
        while !rest.is_empty() {
            let buf = &rest[..piece.min(rest.len())];
            let (used, line) = split.feed(buf);
            line.map(&mut push);
            rest = &rest[used..];
        }
        split.finish().map(&mut push);
        out
    }

    #[test]
    fn lines_are_numbered_bounded_and_blank_ones_skipped() {
        for piece in [1, 2, 3, 7, 64 * 1024] {
            let text = b"abc\n\n  \r\nabcd\r\nabcde\n      \nab\rc\nxy";
            assert_eq!(
                lines(text, 4, piece),
                ["1:abc", "4:abcd", "5:too long", "7:ab\rc", "8:xy"],
                "pieces of {piece}"
            );
            assert_eq!(lines(b"", 4, piece), Vec::<String>::new());
            assert_eq!(lines(b"\n\n", 4, piece), Vec::<String>::new());
            assert_eq!(lines(b"abcdefgh\r\nz\n", 4, piece), ["1:too long", "2:z"]);
        }
    }

    #[test]
    fn the_threads_have_the_deep_stack_and_the_asked_number() {
        let pool = Pool::new(2).unwrap();
        assert_eq!(pool.threads(), 2);
        // A frame of 4 MiB, more than a default 2 MiB rayon stack holds.
        let out = pool.map(&[0u8], |_| {
            let big = [1u8; 4 << 20];
            Ok(std::hint::black_box(&big)
                .iter()
                .map(|b| usize::from(*b))
                .sum::<usize>())
        });
        assert_eq!(*out[0].as_ref().unwrap(), 4 << 20);
        let names = pool.map(&[0u8; 4], |_| {
            Ok(std::thread::current().name().map(str::to_string))
        });
        assert!(names.iter().all(|n| n
            .as_ref()
            .unwrap()
            .as_deref()
            .unwrap()
            .starts_with("a2a-card-verify-")));
    }
}
