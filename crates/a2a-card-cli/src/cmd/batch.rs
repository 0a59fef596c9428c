//! `a2a-card verify --batch DIR|FILE.jsonl`: many cards verified in parallel on every core
//! (rayon), against one trust store loaded once and shared. Each card is read once; the
//! library canonicalizes it once per accepted profile. The report is one JSON line per card on
//! stdout, in input order, and a summary on stderr; a progress line is drawn on stderr only when
//! stderr is a terminal.

use super::verify::Args;
use crate::io::{io_failure, read_input, write_stderr_line, write_stdout};
use crate::Failure;
use a2a_card::{verify_card, Error, Report, TrustStore, VerifyOptions};
use rayon::prelude::*;
use serde_json::{json, Value};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Where one card of the batch comes from.
enum Item<'a> {
    /// A `*.json` file of the directory.
    File(PathBuf),
    /// A line of the `.jsonl` file: its 1-based number and its bytes.
    Line(usize, &'a [u8]),
}

impl Item<'_> {
    /// The `source` member of its report line: the path, or the line number.
    fn source(&self) -> Value {
        match self {
            Item::File(path) => Value::from(path.display().to_string()),
            Item::Line(n, _) => Value::from(*n),
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
    let trust = args.trust(false)?;
    let opts = args.verify_options()?;
    let start = Instant::now();

    let jsonl;
    let items: Vec<Item<'_>> = if path.is_dir() {
        list_dir(path)?.into_iter().map(Item::File).collect()
    } else if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("jsonl")) {
        let source = path.display().to_string();
        jsonl = std::fs::read(path).map_err(|e| io_failure(format!("cannot read {source}: {e}"), source))?;
        jsonl_lines(&jsonl)
    } else if path.exists() {
        return Err(Failure::usage(format!(
            "--batch takes a directory or a .jsonl file; {} is neither",
            path.display()
        )));
    } else {
        let source = path.display().to_string();
        return Err(io_failure(
            format!("cannot open {source}: no such file or directory"),
            source,
        ));
    };

    let total = items.len();
    let done = AtomicUsize::new(0);
    let finished = AtomicBool::new(false);
    let verify_all = || -> Vec<Outcome> {
        items
            .par_iter()
            .map(|item| {
                let outcome = verify_item(item, &trust, &opts, args.limits.max_input_bytes);
                done.fetch_add(1, Ordering::Relaxed);
                outcome
            })
            .collect()
    };
    let outcomes: Vec<Outcome> = std::thread::scope(|scope| {
        if std::io::stderr().is_terminal() {
            scope.spawn(|| progress(&done, &finished, total));
        }
        let outcomes = match args.threads {
            Some(n) => rayon::ThreadPoolBuilder::new()
                .num_threads(usize::from(n))
                .build()
                .map(|pool| pool.install(verify_all))
                .map_err(|e| io_failure(format!("cannot start {n} threads: {e}"), "--threads")),
            None => Ok(verify_all()),
        };
        finished.store(true, Ordering::Relaxed);
        outcomes
    })?;

    let mut out = String::with_capacity(outcomes.iter().map(|o| o.line.len() + 1).sum());
    let (mut valid, mut invalid, mut errors) = (0usize, 0usize, 0usize);
    for o in &outcomes {
        out.push_str(&o.line);
        out.push('\n');
        match o.verdict {
            Some(true) => valid += 1,
            Some(false) => invalid += 1,
            None => errors += 1,
        }
    }
    write_stdout(out.as_bytes())?;
    let elapsed = start.elapsed().as_secs_f64();
    let rate = if elapsed > 0.0 {
        total as f64 / elapsed
    } else {
        0.0
    };
    write_stderr_line(&format!(
        "batch: {total} cards, {valid} valid, {invalid} invalid, {errors} errors, elapsed {elapsed:.3} s, {rate:.0} cards/s"
    ))?;
    Ok(if valid == total { 0 } else { 1 })
}

/// The options that do not go with `--batch`.
fn check_usage(args: &Args) -> Result<(), Failure> {
    let refused = if args.card.is_some() {
        Some("a CARD argument")
    } else if args.emit_verified.is_some() {
        Some("--emit-verified")
    } else if args.format.as_deref() == Some("text") {
        Some("--format text (the batch report is JSON Lines)")
    } else if !args.allow_jku.is_empty() {
        Some("--allow-jku (batch verifies card files, whose jku is never fetched)")
    } else {
        args.fetch.first_given()
    };
    match refused {
        Some(what) => Err(Failure::usage(format!("--batch cannot be combined with {what}"))),
        None => Ok(()),
    }
}

/// The `*.json` files directly in `dir`, sorted by name.
fn list_dir(dir: &Path) -> Result<Vec<PathBuf>, Failure> {
    let source = dir.display().to_string();
    let fail = |e: std::io::Error| io_failure(format!("cannot list {source}: {e}"), source.clone());
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(fail)? {
        let path = entry.map_err(fail)?.path();
        if path.extension().is_some_and(|e| e == "json") && !path.is_dir() {
            files.push(path);
        }
    }
    files.sort_by(|a, b| a.file_name().cmp(&b.file_name()));
    Ok(files)
}

/// The non-empty lines of a JSON Lines file, numbered from 1 (a final `\r` is dropped).
fn jsonl_lines(bytes: &[u8]) -> Vec<Item<'_>> {
    let mut items = Vec::new();
    let mut start = 0;
    // memchr finds the line ends a word (or vector) at a time: this loop is the serial part of
    // the batch, so it must not cost a comparison per byte.
    let ends = memchr::memchr_iter(b'\n', bytes).chain(std::iter::once(bytes.len()));
    for (i, end) in ends.enumerate() {
        let line = bytes.get(start..end).unwrap_or_default();
        start = end + 1;
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if !line.iter().all(u8::is_ascii_whitespace) {
            items.push(Item::Line(i + 1, line));
        }
    }
    items
}

/// Reads (for a file) and verifies one card.
fn verify_item(item: &Item<'_>, trust: &TrustStore, opts: &VerifyOptions, max_bytes: usize) -> Outcome {
    let source = item.source();
    let result = match item {
        Item::File(path) => match read_input(Some(path), max_bytes) {
            Ok(input) => verify_card(&input.bytes, trust, opts),
            Err(failure) => Err(failure.error),
        },
        Item::Line(_, bytes) => verify_card(bytes, trust, opts),
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
fn report_line(source: Value, report: &Report) -> Value {
    let signatures: Vec<Value> = report
        .signatures
        .iter()
        .map(|s| json!({ "index": s.index, "kid": s.kid, "alg": s.alg, "code": s.verdict.code }))
        .collect();
    json!({
        "source": source,
        "ok": report.ok,
        "profile": report.profile,
        "reason": report.reason,
        "canonical_sha256": report.canonical_sha256(),
        "unsigned": report.unsigned,
        "signatures": signatures,
    })
}

/// The report line of a card that could not be read or parsed.
fn error_line(source: Value, e: &Error) -> Value {
    json!({
        "source": source,
        "ok": false,
        "error": { "code": e.code().to_string(), "message": e.message(), "pointer": e.pointer() },
    })
}

/// Redraws `verified N/TOTAL` on stderr until `finished`, then clears the line.
fn progress(done: &AtomicUsize, finished: &AtomicBool, total: usize) {
    let mut err = std::io::stderr();
    while !finished.load(Ordering::Relaxed) {
        let n = done.load(Ordering::Relaxed);
        // Progress is a courtesy: a failed write to the terminal is not an error of the batch.
        let _ = write!(err, "\rverified {n}/{total}");
        let _ = err.flush();
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = write!(err, "\r\x1b[K");
    let _ = err.flush();
}
