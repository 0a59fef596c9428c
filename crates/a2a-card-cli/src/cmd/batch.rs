//! `a2a-card verify --batch DIR|FILE.jsonl`: many cards verified in parallel (on the core's
//! `a2a_card::parallel::Pool`, 16 MiB of stack per worker, the one Python's `verify_many` runs
//! on), against one trust store loaded once and shared.
//! Each card is read once; the library canonicalizes it once per accepted profile.
//!
//! The cards go through in chunks of at most [`CHUNK_ITEMS`] (and, for a JSON Lines file,
//! [`CHUNK_BYTES`] of lines): a chunk is verified in parallel while the next one is read, and
//! its report lines are written to stdout, in input order, as soon as it is done. So memory is
//! bounded whatever the size of the batch (a JSON Lines file is streamed, each line bounded by
//! `--max-input-bytes`), and the lines of finished chunks are out even if a later step fails.
//! A card whose verification panics (a bug) becomes an error line instead of ending the batch.
//! The summary goes to stderr; a progress line is drawn on stderr only when stderr is a
//! terminal.

use super::verify::Args;
use crate::io::{io_failure, kind_of, quoted, read_input, write_stderr_line, write_stdout};
use crate::Failure;
use a2a_card::parallel::{default_threads, JsonLines, Line, Pool, MAX_THREADS};
use a2a_card::{verify_card, Error, ErrorCode, Report, TrustStore, VerifyOptions};
use serde_json::{json, Value};
use std::fs::File;
use std::io::{BufRead, BufReader, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The most cards verified together before their lines are written.
const CHUNK_ITEMS: usize = 1024;
/// The most bytes of JSON Lines held in one chunk (at least one line is always taken).
const CHUNK_BYTES: usize = 64 * 1024 * 1024;
/// The environment variable that sets the number of threads when --threads is absent.
const THREADS_ENV: &str = "RAYON_NUM_THREADS";
/// The read buffer of a JSON Lines file.
const READ_BUFFER_BYTES: usize = 256 * 1024;

/// Where one card of the batch comes from.
enum Item {
    /// A `*.json` entry of the directory (checked to be a regular file before it is opened).
    File(PathBuf),
    /// A line of the `.jsonl` file (its 1-based number and its bytes), or the number of one
    /// longer than the limit, skipped without being kept.
    Line(Line),
}

impl Item {
    /// The `source` member of its report line: the path, or the line number.
    fn source(&self) -> Value {
        match self {
            Item::File(path) => Value::from(path.display().to_string()),
            Item::Line(Line::Text(n, _) | Line::TooLong(n)) => Value::from(*n),
        }
    }
}

/// The outcome of one card, reduced to what the report line and the summary need (the
/// canonical bytes are dropped as soon as their digest is taken).
struct Outcome {
    /// The JSON line, without its newline.
    line: String,
    /// `Some(ok)` when the card was verified, `None` when it could not be read or parsed.
    verdict: Option<bool>,
}

/// Runs `verify --batch PATH`; returns 0 when every card is valid, 1 otherwise.
pub(crate) fn run(args: &Args, path: &Path) -> Result<u8, Failure> {
    check_usage(args)?;
    let (trust, opts) = args.ready(&[])?;
    let pool = thread_pool(args.threads)?;
    let start = Instant::now();
    let max_bytes = opts.limits.max_input_bytes;
    let mut cards = Cards::open(path, max_bytes)?;

    let total = cards.known_total();
    let done = AtomicUsize::new(0);
    let finished = AtomicBool::new(false);
    let counts = std::thread::scope(|scope| {
        if std::io::stderr().is_terminal() {
            scope.spawn(|| progress(&done, &finished, total));
        }
        let counts = run_chunks(&pool, &mut cards, &trust, &opts, max_bytes, &done);
        finished.store(true, Ordering::Relaxed);
        counts
    })?;

    let total: usize = counts.iter().sum();
    write_stderr_line(&summary("batch", counts, start))?;
    if total == 0 && !args.allow_empty {
        return Err(Failure::new(
            a2a_card::Error::new(a2a_card::ErrorCode::Usage, empty_batch_message(path)),
            path.display().to_string(),
        ));
    }
    Ok(if counts[0] == total { 0 } else { 1 })
}

/// Verifies the batch a chunk at a time on the pool (the core's `Pool::map_chunks`: each chunk
/// while the next one is read), the lines of each chunk written when it is done; the verdicts.
fn run_chunks(
    pool: &Pool,
    cards: &mut Cards,
    trust: &TrustStore,
    opts: &VerifyOptions,
    max_bytes: usize,
    done: &AtomicUsize,
) -> Result<[usize; 3], Failure> {
    let mut counts = [0; 3];
    let verify = |item: &Item| {
        let outcome = verify_item(item, trust, opts, max_bytes);
        done.fetch_add(1, Ordering::Relaxed);
        Ok(outcome)
    };
    pool.map_chunks(
        || cards.next_chunk(),
        verify,
        |chunk, results| write_chunk(&outcomes(chunk, results, done), &mut counts),
    )?;
    Ok(counts)
}

/// Why a batch holds no card, in the terms of what was given: a directory batch reads its
/// `*.json` files only (not `*.jsonl` files, which are batches of their own), a JSON Lines
/// file its non-empty lines.
fn empty_batch_message(path: &Path) -> String {
    let tail = "a wrong path? --allow-empty accepts an empty batch";
    if !path.is_dir() {
        return format!("the batch holds no card: the JSON Lines file has no non-empty line; {tail}");
    }
    let jsonl = std::fs::read_dir(path)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|e| {
                    e.path()
                        .extension()
                        .is_some_and(|x| x.eq_ignore_ascii_case("jsonl"))
                })
                .count()
        })
        .unwrap_or(0);
    let note = match jsonl {
        0 => String::new(),
        1 => " (it holds a *.jsonl file, which a directory batch does not read: give that file to --batch)"
            .to_string(),
        n => format!(
            " (it holds {n} *.jsonl files, which a directory batch does not read: give each file to --batch)"
        ),
    };
    format!("the batch holds no card: the directory has no *.json file{note}; {tail}")
}

/// The options that do not go with `--batch`.
fn check_usage(args: &Args) -> Result<(), Failure> {
    let refused = if args.card.is_some() {
        Some("a CARD argument".to_string())
    } else if args.emit_verified.is_some() {
        Some("--emit-verified".to_string())
    } else if args.format.as_deref() == Some("text") {
        Some("--format text (the batch report is JSON Lines)".to_string())
    } else if let Some(flag) = args.remote.first_given() {
        Some(format!(
            "{flag} (batch verifies card files, whose jku is never fetched)"
        ))
    } else {
        args.fetch.first_given()
    };
    match refused {
        Some(what) => Err(Failure::usage(format!("--batch cannot be combined with {what}"))),
        None => Ok(()),
    }
}

/// The pool that verifies: `threads` (--threads), else `RAYON_NUM_THREADS` (a whole number from
/// 1 to 1024, or a usage error naming it), else one thread per core (at most 1024); each
/// thread with the core's deep stack (`a2a_card::parallel::WORKER_STACK_BYTES`).
fn thread_pool(threads: Option<u16>) -> Result<Pool, Failure> {
    let (n, source) = match threads {
        Some(n) => (usize::from(n), "--threads".to_string()),
        None => match std::env::var_os(THREADS_ENV) {
            Some(value) => {
                let n = value
                    .to_str()
                    .and_then(|v| v.parse::<usize>().ok())
                    .filter(|n| (1..=MAX_THREADS).contains(n));
                let Some(n) = n else {
                    return Err(Failure::new(
                        Error::new(
                            ErrorCode::Usage,
                            format!(
                                "{THREADS_ENV} must be a whole number of threads from 1 to {MAX_THREADS}, not {}",
                                quoted(&value.to_string_lossy())
                            ),
                        ),
                        format!("${THREADS_ENV}"),
                    ));
                };
                (n, format!("${THREADS_ENV}"))
            }
            None => (default_threads(), "<batch>".to_string()),
        },
    };
    Pool::new(n).map_err(|e| Failure::new(e, source))
}

/// The cards of the batch, handed out a chunk at a time.
enum Cards {
    /// The `*.json` entries of a directory, sorted by name.
    Dir(std::vec::IntoIter<PathBuf>, usize),
    /// The lines of a JSON Lines file, read as they are needed.
    Lines(Lines<BufReader<File>>),
}

impl Cards {
    /// The directory or JSON Lines file `path`.
    fn open(path: &Path, max_bytes: usize) -> Result<Cards, Failure> {
        let source = path.display().to_string();
        if path.is_dir() {
            let files = list_dir(path)?;
            let n = files.len();
            return Ok(Cards::Dir(files.into_iter(), n));
        }
        let meta = match std::fs::metadata(path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(io_failure(
                    format!("cannot open {source}: no such file or directory"),
                    source,
                ))
            }
            Err(e) => return Err(io_failure(format!("cannot open {source}: {e}"), source)),
        };
        if !path.extension().is_some_and(|e| e.eq_ignore_ascii_case("jsonl")) {
            return Err(Failure::usage(format!(
                "--batch takes a directory or a .jsonl file; {source} is neither"
            )));
        }
        // A regular file, or a FIFO (a stream of lines someone writes); never a device or a
        // socket, which could be read forever.
        if !meta.is_file() && !is_fifo(&meta) {
            return Err(io_failure(
                format!(
                    "{source} is {}, not a regular file; refusing to read it",
                    kind_of(meta.file_type())
                ),
                source,
            ));
        }
        let file = File::open(path).map_err(|e| io_failure(format!("cannot open {source}: {e}"), &source))?;
        Ok(Cards::Lines(Lines {
            reader: BufReader::with_capacity(READ_BUFFER_BYTES, file),
            source,
            split: JsonLines::new(max_bytes),
            at_end: false,
        }))
    }

    /// The number of cards, when it is known before reading them.
    fn known_total(&self) -> Option<usize> {
        match self {
            Cards::Dir(_, n) => Some(*n),
            Cards::Lines(_) => None,
        }
    }

    /// The next cards, empty at the end.
    fn next_chunk(&mut self) -> Result<Vec<Item>, Failure> {
        match self {
            Cards::Dir(files, _) => Ok(files.by_ref().take(CHUNK_ITEMS).map(Item::File).collect()),
            Cards::Lines(lines) => {
                let mut items = Vec::new();
                let mut bytes = 0usize;
                while items.len() < CHUNK_ITEMS && bytes < CHUNK_BYTES {
                    match lines.next_item()? {
                        Some(item) => {
                            if let Item::Line(Line::Text(_, line)) = &item {
                                bytes = bytes.saturating_add(line.len());
                            }
                            items.push(item);
                        }
                        None => break,
                    }
                }
                Ok(items)
            }
        }
    }
}

#[cfg(unix)]
fn is_fifo(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::FileTypeExt;
    meta.file_type().is_fifo()
}

#[cfg(not(unix))]
fn is_fifo(_meta: &std::fs::Metadata) -> bool {
    false
}

/// The `*.json` entries directly in `dir` (the extension in any case: `.json`, `.JSON`,
/// `.Json`), sorted by name. What each one is gets checked when it is verified.
fn list_dir(dir: &Path) -> Result<Vec<PathBuf>, Failure> {
    let source = dir.display().to_string();
    let fail = |e: std::io::Error| io_failure(format!("cannot list {source}: {e}"), source.clone());
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(fail)? {
        let path = entry.map_err(fail)?.path();
        if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("json")) {
            files.push(path);
        }
    }
    files.sort_by(|a, b| a.file_name().cmp(&b.file_name()));
    Ok(files)
}

/// The lines of a JSON Lines file, read as they are needed and split by the core's
/// `JsonLines` (numbered, blank ones skipped, each kept only up to the limit).
struct Lines<R> {
    reader: R,
    /// The file, for error lines.
    source: String,
    split: JsonLines,
    at_end: bool,
}

impl<R: BufRead> Lines<R> {
    /// The next line that is not blank; `None` at the end of the file.
    fn next_item(&mut self) -> Result<Option<Item>, Failure> {
        while !self.at_end {
            let buf = match self.reader.fill_buf() {
                Ok(buf) => buf,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    let after = self.split.number();
                    let message = format!("cannot read {} after line {after}: {e}", self.source);
                    return Err(io_failure(message, self.source.clone()));
                }
            };
            if buf.is_empty() {
                self.at_end = true;
                return Ok(self.split.finish().map(Item::Line));
            }
            let (used, line) = self.split.feed(buf);
            self.reader.consume(used);
            if let Some(line) = line {
                return Ok(Some(Item::Line(line)));
            }
        }
        Ok(None)
    }
}

/// Writes the lines of one chunk to stdout in input order and counts its verdicts (valid,
/// invalid, errors, as a URL list's).
fn write_chunk(outcomes: &[Outcome], counts: &mut [usize; 3]) -> Result<(), Failure> {
    let mut out = String::with_capacity(outcomes.iter().map(|o| o.line.len() + 1).sum());
    for o in outcomes {
        out.push_str(&o.line);
        out.push('\n');
        counts[o.verdict.map_or(2, |ok| usize::from(!ok))] += 1;
    }
    write_stdout(out.as_bytes())
}

/// The outcomes of a chunk mapped on the pool, in input order: a panic (a bug) is the item's
/// error line, and the batch goes on.
fn outcomes(chunk: &[Item], results: Vec<Result<Outcome, Error>>, done: &AtomicUsize) -> Vec<Outcome> {
    let outcome = |(item, result): (&Item, Result<Outcome, Error>)| {
        result.unwrap_or_else(|e| {
            done.fetch_add(1, Ordering::Relaxed);
            Outcome {
                verdict: None,
                line: error_line(item.source(), &e).to_string(),
            }
        })
    };
    chunk.iter().zip(results).map(outcome).collect()
}

/// Reads (for a file) and verifies one card. A directory entry is looked at before it is
/// opened: anything but a regular file (or a link to one) is an error line, never opened.
fn verify_item(item: &Item, trust: &TrustStore, opts: &VerifyOptions, max_bytes: usize) -> Outcome {
    let source = item.source();
    let result = match item {
        Item::File(path) => match std::fs::metadata(path) {
            Ok(meta) if !meta.is_file() => Err(Error::new(
                ErrorCode::Io,
                format!(
                    "{} is {}, not a regular file; skipped without opening it",
                    path.display(),
                    kind_of(meta.file_type())
                ),
            )),
            // A missing entry (a dangling link) is reported by the open.
            _ => match read_input(Some(path), max_bytes) {
                Ok(input) => verify_card(&input.bytes, trust, opts),
                Err(failure) => Err(failure.into_card_error()),
            },
        },
        Item::Line(Line::Text(_, bytes)) => verify_card(bytes, trust, opts),
        Item::Line(Line::TooLong(n)) => Err(Error::new(
            ErrorCode::InputTooLarge,
            format!("line {n} is more than the limit of {max_bytes} bytes; skipped"),
        )
        .at("")),
    };
    match result {
        Ok(report) => Outcome {
            verdict: Some(report.ok),
            line: report_line(source, &report).to_string(),
        },
        Err(e) => Outcome {
            verdict: None,
            line: error_line(source, &e).to_string(),
        },
    }
}

/// The report line of a verified card.
pub(crate) fn report_line(source: Value, report: &Report) -> Value {
    let signatures: Vec<Value> = report
        .signatures
        .iter()
        .map(|s| json!({ "index": s.index, "kid": s.kid, "alg": s.alg, "code": s.verdict.code }))
        .collect();
    let mut line = json!({
        "source": source,
        "ok": report.ok,
        "profile": report.profile,
        "reason": report.reason,
        "canonical_sha256": report.canonical_sha256(),
        "unsigned": report.unsigned,
        "signatures": signatures,
    });
    // As in the full report: present only when an unsigned member is one edit away from a
    // defined one.
    if let Some(near) = report.did_you_mean() {
        line["did_you_mean"] = near;
    }
    line
}

/// The summary on stderr of a batch or a URL list: `LABEL: N cards, V valid, I invalid, E
/// errors, elapsed S s, R cards/s`.
pub(crate) fn summary(label: &str, [valid, invalid, errors]: [usize; 3], start: Instant) -> String {
    let total = valid + invalid + errors;
    let elapsed = start.elapsed().as_secs_f64();
    let rate = if elapsed > 0.0 {
        total as f64 / elapsed
    } else {
        0.0
    };
    format!(
        "{label}: {total} cards, {valid} valid, {invalid} invalid, {errors} errors, elapsed {elapsed:.3} s, {rate:.0} cards/s"
    )
}

/// The report line of a card that could not be read or parsed.
fn error_line(source: Value, e: &Error) -> Value {
    json!({
        "source": source,
        "ok": false,
        "error": { "code": e.code().to_string(), "message": e.message(), "pointer": e.pointer() },
    })
}

/// Redraws `verified N/TOTAL` (or `verified N` when the total is not known) on stderr until
/// `finished`, then clears the line.
pub(crate) fn progress(done: &AtomicUsize, finished: &AtomicBool, total: Option<usize>) {
    let mut err = std::io::stderr();
    while !finished.load(Ordering::Relaxed) {
        let n = done.load(Ordering::Relaxed);
        // Progress is a courtesy: a failed write to the terminal is not an error of the batch.
        let _ = match total {
            Some(total) => write!(err, "\rverified {n}/{total}"),
            None => write!(err, "\rverified {n}"),
        };
        let _ = err.flush();
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = write!(err, "\r\x1b[K");
    let _ = err.flush();
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    #[test]
    fn lines_are_read_through_the_buffer_and_split() {
        // The splitting itself is the core's (`JsonLines`); here the reading around it.
        for capacity in [1, 3, 64 * 1024] {
            let mut lines = Lines {
                reader: BufReader::with_capacity(capacity, &b"{}\n\n  \nabcdef\r\n[1]"[..]),
                source: "t.jsonl".into(),
                split: JsonLines::new(4),
                at_end: false,
            };
            let mut out = Vec::new();
            while let Some(item) = lines.next_item().unwrap() {
                out.push(item.source());
            }
            assert_eq!(out, [1, 4, 5], "buffer of {capacity}");
        }
    }

    #[test]
    fn a_panic_becomes_the_error_line_of_its_card() {
        let items = [
            Item::Line(Line::Text(6, b"{}".to_vec())),
            Item::Line(Line::Text(7, b"{}".to_vec())),
        ];
        let done = AtomicUsize::new(0);
        let pool = Pool::new(2).unwrap();
        let results = pool.map(&items, |item| {
            let outcome = match item {
                Item::Line(Line::Text(7, _)) => panic!("a bug"),
                _ => Outcome {
                    verdict: Some(true),
                    line: "6".into(),
                },
            };
            done.fetch_add(1, Ordering::Relaxed);
            Ok(outcome)
        });
        let out = outcomes(&items, results, &done);
        assert_eq!(done.load(Ordering::Relaxed), 2);
        assert_eq!((out[0].verdict, out[0].line.as_str()), (Some(true), "6"));
        let outcome = &out[1];
        assert_eq!(outcome.verdict, None);
        let line: Value = serde_json::from_str(&outcome.line).unwrap();
        assert_eq!(line["source"], 7);
        assert_eq!(line["ok"], false);
        assert_eq!(line["error"]["code"], "malformed-card");
        assert!(line["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("internal error"));
    }
}
