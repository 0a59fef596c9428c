//! `a2a-card verify --urls FILE`: many remote cards verified concurrently over one fetcher, by
//! the fetch crate's `Fetcher::verify_many` (through its blocking form). This file only reads
//! the lines, turns the flags into the library's options and writes one JSON line per line of
//! the file: the members of a `--batch` line (`source` is the line number) and `url`.
//!
//! Every line of the file gives exactly one output line (an empty line, a JSON line without a
//! string "url", a line that is not an https URL, a line too long: each an error line), so the
//! output can be counted against the input. Progress is drawn on stderr only on a terminal.

use super::batch::{progress, report_line};
use super::fetch;
use super::verify::Args;
use crate::io::{is_stdin, printable, write_stderr_line, write_stdout};
use crate::options::Flags;
use crate::Failure;
use a2a_card_fetch::{target_of_line, Error, ErrorCode, ManyItem, ManyRequest};
use serde_json::{json, Value};
use std::fs::File;
use std::io::{BufRead, BufReader, IsTerminal, Read as _};
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

/// The longest line read as a target; a longer one is an error line.
const MAX_LINE_BYTES: usize = 64 * 1024;

/// Runs `verify --urls FILE`; returns 0 when every card is valid, 1 otherwise.
pub(crate) fn run(args: &Args, list: &Path) -> Result<u8, Failure> {
    check_usage(args)?;
    let options = fetch::options(&args.fetch)?;
    let (trust, remote) = args.remote()?;
    let many = args.many.build(ManyRequest::default())?;
    // The memory cache: a jku named by many cards of one origin is fetched once.
    let fetch_opts = a2a_card_fetch::FetchOptions {
        memory_cache: true,
        ..options
    };
    let lines = TargetLines::open(list)?;

    let start = Instant::now();
    let done = AtomicUsize::new(0);
    let finished = AtomicBool::new(false);
    let mut counts = [0usize; 3]; // valid, invalid, errors
    let mut failed: Option<Failure> = None;
    let outcome = std::thread::scope(|scope| {
        if std::io::stderr().is_terminal() {
            scope.spawn(|| progress(&done, &finished, None));
        }
        let outcome =
            a2a_card_fetch::blocking::verify_many(lines, &trust, &remote, &many, &fetch_opts, None, |item| {
                let (line, verdict) = item_line(item);
                counts[verdict] += 1;
                done.fetch_add(1, Ordering::Relaxed);
                let mut text = line.to_string();
                text.push('\n');
                match write_stdout(text.as_bytes()) {
                    Ok(()) => ControlFlow::Continue(()),
                    Err(f) => {
                        failed = Some(f);
                        ControlFlow::Break(())
                    }
                }
            });
        finished.store(true, Ordering::Relaxed);
        outcome
    });
    outcome.map_err(|e| fetch::failure(e, &list.display().to_string()))?;
    if let Some(f) = failed {
        return Err(f);
    }
    let [valid, invalid, errors] = counts;
    let total = valid + invalid + errors;
    write_stderr_line(&super::batch::summary("urls", counts, start))?;
    if total == 0 && !args.allow_empty {
        return Err(Failure::usage(format!(
            "the URL list {} holds no line; a wrong path? --allow-empty accepts an empty list",
            printable(&list.display().to_string())
        )));
    }
    Ok(if valid == total { 0 } else { 1 })
}

/// The options that do not go with `--urls`.
fn check_usage(args: &Args) -> Result<(), Failure> {
    let refused = if args.card.is_some() {
        Some("a CARD argument (the URLs come from the file)")
    } else if args.emit_verified.is_some() {
        Some("--emit-verified")
    } else if args.format.as_deref() == Some("text") {
        Some("--format text (the report is JSON Lines)")
    } else if args.table.is_given("origin") {
        Some("--origin (a fetched card's origin is its URL's)")
    } else {
        None
    };
    match refused {
        Some(what) => Err(Failure::usage(format!("--urls cannot be combined with {what}"))),
        None => Ok(()),
    }
}

/// The output line of one item and its verdict's place in the counts (0 valid, 1 invalid,
/// 2 error). `source` is the line number.
fn item_line(item: ManyItem) -> (Value, usize) {
    let source = Value::from(item.index + 1);
    let url = item.target.map_or(Value::Null, Value::from);
    match item.result {
        Ok(remote) => {
            // `url` right after `source`, as in an error line.
            let mut line = serde_json::Map::new();
            if let Value::Object(members) = report_line(source, &remote.report) {
                for (name, value) in members {
                    line.insert(name, value);
                    if line.len() == 1 {
                        line.insert("url".into(), url.clone());
                    }
                }
            }
            let verdict = if remote.report.ok { 0 } else { 1 };
            (Value::Object(line), verdict)
        }
        Err(e) => (error_line(source, url, &e.spelled(&Flags)), 2),
    }
}

/// The line of a URL that could not be verified: the fetch code (`dns-failed`,
/// `http-status`, ...) or the core's (a card that cannot be read).
fn error_line(source: Value, url: Value, e: &Error) -> Value {
    json!({
        "source": source,
        "url": url,
        "ok": false,
        "error": { "code": e.code().as_str(), "message": e.message(), "pointer": e.pointer() },
    })
}

/// The lines of the URL list (a file or stdin), each one target or the error of the line.
struct TargetLines {
    reader: Box<dyn BufRead + Send>,
    source: String,
    number: usize,
    at_end: bool,
}

impl TargetLines {
    fn open(list: &Path) -> Result<TargetLines, Failure> {
        let source = list.display().to_string();
        let reader: Box<dyn BufRead + Send> = if is_stdin(Some(list)) {
            Box::new(BufReader::new(std::io::stdin()))
        } else {
            if list.is_dir() {
                return Err(crate::io::io_failure(
                    format!("{source} is a directory; --urls takes a file of URLs (a directory of cards is --batch)"),
                    &source,
                ));
            }
            let file = File::open(list)
                .map_err(|e| crate::io::io_failure(format!("cannot open {source}: {e}"), &source))?;
            Box::new(BufReader::new(file))
        };
        Ok(TargetLines {
            reader,
            source,
            number: 0,
            at_end: false,
        })
    }
}

impl Iterator for TargetLines {
    type Item = Result<String, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.at_end {
            return None;
        }
        let mut line = Vec::new();
        let read = (&mut self.reader)
            .take(MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut line);
        let io = |m: String| Error::new(ErrorCode::Card(a2a_card::ErrorCode::Io), m);
        match read {
            Ok(0) => {
                self.at_end = true;
                return None;
            }
            Ok(_) => {}
            Err(e) => {
                self.at_end = true;
                self.number += 1;
                return Some(Err(io(format!(
                    "cannot read {} at line {}: {e}",
                    self.source, self.number
                ))));
            }
        }
        self.number += 1;
        if line.last() != Some(&b'\n') && line.len() > MAX_LINE_BYTES {
            // The rest of the long line is skipped, so that the next line is the next one.
            let mut rest = Vec::new();
            loop {
                rest.clear();
                match (&mut self.reader)
                    .take(MAX_LINE_BYTES as u64)
                    .read_until(b'\n', &mut rest)
                {
                    Ok(0) => break,
                    Ok(_) if rest.last() == Some(&b'\n') => break,
                    Ok(_) => continue,
                    Err(_) => {
                        self.at_end = true;
                        break;
                    }
                }
            }
            return Some(Err(Error::new(
                ErrorCode::Card(a2a_card::ErrorCode::InputTooLarge),
                format!(
                    "line {} is longer than {MAX_LINE_BYTES} bytes; skipped",
                    self.number
                ),
            )));
        }
        Some(match std::str::from_utf8(&line) {
            Ok(text) => target_of_line(text),
            Err(_) => Err(Error::new(
                ErrorCode::Card(a2a_card::ErrorCode::Usage),
                format!("line {} is not UTF-8", self.number),
            )),
        })
    }
}
