//! End-to-end tests of the "Hard to fool, round two" fixes to what the binary reads: the files
//! and lines `verify --batch` reads, the bounds of every numeric option, and the files the
//! fetcher reads whole. (What it writes is in hardening_files.rs.) Every case runs the binary
//! under a time limit, so that an old behaviour (a FIFO opened for reading, a JSON Lines file
//! read to its end) fails the test instead of hanging it.

#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::hardening::*;
use common::*;
use std::os::unix::fs::FileTypeExt;
use std::path::PathBuf;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------------------------
// C. The files and lines verify --batch reads.

use std::io::{BufRead, BufReader, Write};
use std::process::Child;
use std::sync::mpsc;

/// The JSON lines of stdout.
fn report_lines(out: &Output) -> Vec<serde_json::Value> {
    stdout(out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l}: {e}")))
        .collect()
}

fn summary(out: &Output) -> String {
    stderr(out)
        .lines()
        .find(|l| l.starts_with("batch: "))
        .unwrap_or_else(|| panic!("no summary: {}", stderr(out)))
        .to_string()
}

#[test]
fn batch_directory_reports_special_entries_without_opening_them() {
    let f = fixture("hard-batch-special");
    let cards = f.dir.join("cards");
    std::fs::create_dir_all(&cards).unwrap();
    std::fs::copy(&f.signed, cards.join("a-card.json")).unwrap();
    std::os::unix::fs::symlink(&f.signed, cards.join("b-link.json")).unwrap();
    mkfifo(&cards.join("c-fifo.json"));
    let _listener = std::os::unix::net::UnixListener::bind(cards.join("d-socket.json")).unwrap();
    std::fs::create_dir_all(cards.join("e-directory.json")).unwrap();
    std::os::unix::fs::symlink("/dev/null", cards.join("f-null.json")).unwrap();
    let out = run_ok(&["verify", "--batch", s(&cards), "--jwks", s(&f.jwks)], "batch");
    expect_code(&out, 1, "batch with special entries");
    let report = report_lines(&out);
    let sources: Vec<String> = report
        .iter()
        .map(|l| {
            l["source"]
                .as_str()
                .unwrap()
                .rsplit('/')
                .next()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(
        sources,
        [
            "a-card.json",
            "b-link.json",
            "c-fifo.json",
            "d-socket.json",
            "e-directory.json",
            "f-null.json"
        ]
    );
    assert_eq!(report[0]["ok"], true, "{}", report[0]);
    assert_eq!(
        report[1]["ok"], true,
        "a link to a regular file is read: {}",
        report[1]
    );
    for (line, kind) in report[2..]
        .iter()
        .zip(["a FIFO", "a socket", "a directory", "a character device"])
    {
        assert_eq!(line["ok"], false, "{line}");
        assert_eq!(line["error"]["code"], "io", "{line}");
        let message = line["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("not a regular file") && message.contains(kind),
            "{line}"
        );
        assert!(message.contains(line["source"].as_str().unwrap()), "{line}");
    }
    assert!(
        summary(&out).starts_with("batch: 6 cards, 2 valid, 0 invalid, 4 errors,"),
        "{}",
        summary(&out)
    );
    assert!(file_type(&cards.join("c-fifo.json")).is_fifo());
}

#[test]
fn batch_json_extensions_are_matched_in_any_case() {
    let f = fixture("hard-batch-case");
    let cards = f.dir.join("cards");
    std::fs::create_dir_all(&cards).unwrap();
    for name in ["a.json", "b.JSON", "c.Json", "d.jSoN"] {
        std::fs::copy(&f.signed, cards.join(name)).unwrap();
    }
    write(&cards, "e.jsonl", "ignored: not a .json file");
    write(&cards, "f.json.txt", "ignored");
    let out = run_ok(&["verify", "--batch", s(&cards), "--jwks", s(&f.jwks)], "batch");
    expect_code(&out, 0, "batch of four cards");
    let report = report_lines(&out);
    assert_eq!(report.len(), 4, "{}", stdout(&out));
    assert!(summary(&out).starts_with("batch: 4 cards, 4 valid, 0 invalid, 0 errors,"));
    // And a JSON Lines file whose extension is in capitals.
    let line = serde_json::from_slice::<serde_json::Value>(&std::fs::read(&f.signed).unwrap())
        .unwrap()
        .to_string();
    let jsonl = write(&f.dir, "cards.JSONL", format!("{line}\n{line}\n"));
    let out = run_ok(&["verify", "--batch", s(&jsonl), "--jwks", s(&f.jwks)], "jsonl");
    expect_code(&out, 0, "batch of .JSONL");
    assert_eq!(report_lines(&out).len(), 2);
}

/// The peak resident memory of a running process, in KiB (Linux), if known.
fn peak_rss_kib(child: &Child) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn batch_jsonl_is_streamed_in_chunks_with_each_line_bounded() {
    let f = fixture("hard-batch-stream");
    let line = serde_json::from_slice::<serde_json::Value>(&std::fs::read(&f.signed).unwrap())
        .unwrap()
        .to_string();
    let fifo = f.dir.join("stream.jsonl");
    mkfifo(&fifo);
    let mut child = bin()
        .args([
            "verify",
            "--batch",
            s(&fifo),
            "--jwks",
            s(&f.jwks),
            "--threads",
            "2",
            "--max-input-bytes",
            "65536",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        for l in BufReader::new(stdout).lines() {
            if tx.send(l.unwrap()).is_err() {
                break;
            }
        }
    });
    let stderr_pipe = drain(child.stderr.take().unwrap());
    // Opening the FIFO for writing waits for the binary to open it for reading.
    let mut writer = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    const FIRST: usize = 1100;
    for _ in 0..FIRST {
        writeln!(writer, "{line}").unwrap();
    }
    writer.flush().unwrap();
    // The file is still open: a binary that reads it to the end first prints nothing yet; one
    // that verifies in chunks prints the first chunk's lines now.
    let mut got = Vec::new();
    let deadline = Instant::now() + LIMIT;
    while got.len() < 1024 && Instant::now() < deadline {
        match rx.recv_timeout(Duration::from_millis(200)) {
            Ok(l) => got.push(l),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    let streamed = got.len();
    // Then a line of 64 MiB (much more than --max-input-bytes), still in the same open file:
    // it is skipped as it comes, not kept.
    let big = vec![b'x'; 1024 * 1024];
    if streamed >= 1024 {
        for _ in 0..64 {
            writer.write_all(&big).unwrap();
        }
        writer.write_all(b"\n").unwrap();
        writer.flush().unwrap();
    }
    // Wait until the binary has read all of it (the FIFO holds little), then look at its peak
    // memory while it still runs.
    std::thread::sleep(Duration::from_millis(300));
    let peak = peak_rss_kib(&child);
    writeln!(writer, "{line}").unwrap();
    drop(writer);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline + LIMIT {
            let _ = child.kill();
            panic!("the batch did not end");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    reader.join().unwrap();
    got.extend(rx.try_iter());
    let err = String::from_utf8(stderr_pipe.join().unwrap()).unwrap();
    assert!(
        streamed >= 1024,
        "only {streamed} report lines before the input ended: the lines of a finished chunk were held back"
    );
    assert_eq!(status.code(), Some(1), "{err}");
    assert_eq!(got.len(), FIRST + 2, "{err}");
    for (i, l) in got.iter().take(FIRST).enumerate() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        assert_eq!(v["source"], i + 1);
        assert_eq!(v["ok"], true, "{l}");
    }
    let too_long: serde_json::Value = serde_json::from_str(&got[FIRST]).unwrap();
    assert_eq!(too_long["source"], FIRST + 1);
    assert_eq!(too_long["error"]["code"], "input-too-large", "{too_long}");
    assert!(
        too_long["error"]["message"]
            .as_str()
            .unwrap()
            .contains(&format!("line {}", FIRST + 1)),
        "{too_long}"
    );
    let last: serde_json::Value = serde_json::from_str(&got[FIRST + 1]).unwrap();
    assert_eq!(last["source"], FIRST + 2);
    assert_eq!(last["ok"], true);
    assert!(
        err.contains(&format!(
            "batch: {} cards, {} valid, 0 invalid, 1 errors,",
            FIRST + 2,
            FIRST + 1
        )),
        "{err}"
    );
    if let Some(kib) = peak {
        assert!(kib < 48 * 1024, "peak memory {kib} KiB after a 64 MiB line");
    }
}

#[test]
fn batch_jsonl_path_must_be_a_file_or_a_fifo() {
    let f = fixture("hard-batch-path");
    let socket = f.dir.join("socket.jsonl");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let out = run_ok(
        &["verify", "--batch", s(&socket), "--jwks", s(&f.jwks)],
        "batch socket",
    );
    expect_io_refusal(
        &out,
        s(&socket),
        &["a socket", "not a regular file"],
        "--batch a socket",
    );
    // A device (made here like /dev/null: a device such as /dev/zero could be read forever).
    let device = f.dir.join("device.jsonl");
    if mknod_null(&device) {
        let out = run_ok(
            &["verify", "--batch", s(&device), "--jwks", s(&f.jwks)],
            "batch device",
        );
        expect_io_refusal(
            &out,
            s(&device),
            &["a character device", "not a regular file"],
            "--batch a device",
        );
    }
}

#[test]
fn batch_threads_from_the_environment_are_bounded() {
    let f = fixture("hard-batch-env");
    let cards = f.dir.join("cards");
    std::fs::create_dir_all(&cards).unwrap();
    std::fs::copy(&f.signed, cards.join("a.json")).unwrap();
    let args = ["verify", "--batch", s(&cards), "--jwks", s(&f.jwks)];
    for good in ["1", "2", "1024"] {
        let out = run_limited(&args, &[("RAYON_NUM_THREADS", good)]).unwrap();
        expect_code(&out, 0, &format!("RAYON_NUM_THREADS={good}"));
    }
    for bad in ["0", "1025", "50000", "x", "", "-1", "2.5"] {
        let out = run_limited(&args, &[("RAYON_NUM_THREADS", bad)]).unwrap();
        expect_error(&out, 2, "usage", "$RAYON_NUM_THREADS");
        let line = error_line(&out);
        assert!(
            line.contains("RAYON_NUM_THREADS") && line.contains("1 to 1024"),
            "{line}"
        );
    }
    // --threads wins over the environment, which is then not read.
    let mut with_threads = args.to_vec();
    with_threads.extend(["--threads", "2"]);
    let out = run_limited(&with_threads, &[("RAYON_NUM_THREADS", "x")]).unwrap();
    expect_code(&out, 0, "--threads with a bad RAYON_NUM_THREADS");
}

// ---------------------------------------------------------------------------------------------
// D. Every numeric option is bounded when it is parsed.

/// What the argument parser's refusals end with (after their `error[usage]:` line).
const CLAP_HINT: &str = "For more information, try '--help'.";

/// Asserts a refusal by the argument parser (exit 2) naming `option`, with `words` in it.
#[track_caller]
fn expect_parse_refusal(out: &Output, option: &str, words: &[&str], what: &str) {
    expect_code(out, 2, what);
    let err = stderr(out);
    assert!(
        err.starts_with("error[usage]: ") && err.contains(CLAP_HINT),
        "{what}: not a parse error: {err}"
    );
    assert!(err.contains(option), "{what}: {option} not named: {err}");
    for word in words {
        assert!(err.contains(word), "{what}: {word:?} not in {err}");
    }
}

/// Asserts that the argument parser accepted the value: whatever the outcome, it is not a
/// parse error.
#[track_caller]
fn expect_parsed(out: &Output, what: &str) {
    let err = stderr(out);
    assert!(
        !err.contains(CLAP_HINT) && out.status.code() != Some(101),
        "{what}: refused or panicked: {err}"
    );
}

#[test]
fn fetch_numeric_options_are_bounded() {
    // (option, accepted, refused): each accepted value reaches the fetcher, which refuses the
    // http URL with not-https; each refused one is a parse error naming the option.
    let cases: [(&str, &[&str], &[&str]); 4] = [
        (
            "--timeout",
            &["3600", "0.001", "30", "1e3"],
            &[
                "3600.001", "3601", "1e19", "0.0009", "0", "-1", "NaN", "inf", "-inf", "x", "",
            ],
        ),
        (
            "--connect-timeout",
            &["600", "0.001", "2.5"],
            &["600.001", "601", "1e19", "0", "-0.5", "NaN", "infinity", "x"],
        ),
        (
            "--max-body-bytes",
            &["1", "67108864"],
            &["0", "67108865", "18446744073709551616", "-1", "1.5"],
        ),
        ("--max-redirects", &["0", "20"], &["21", "-1", "1000000", "x"]),
    ];
    for (option, good, bad) in cases {
        for value in good {
            for cmd in ["fetch", "verify"] {
                let mut args = vec![cmd, "http://a2a-card-test.invalid/", option, value];
                if cmd == "verify" {
                    args.extend(["--allow-jku", "https://a2a-card-test.invalid/"]);
                }
                let out = run_ok(&args, option);
                expect_parsed(&out, &format!("{cmd} {option} {value}"));
                let line = error_line(&out);
                assert!(
                    line.starts_with("error[not-https]: "),
                    "{cmd} {option} {value}: {line}"
                );
            }
        }
        for value in bad {
            let arg = format!("{option}={value}");
            let out = run_ok(&["fetch", "http://a2a-card-test.invalid/", &arg], option);
            expect_parse_refusal(&out, option, &[], &format!("fetch {arg}"));
            let out = run_ok(
                &[
                    "verify",
                    "https://a2a-card-test.invalid/",
                    "--allow-jku",
                    "https://a2a-card-test.invalid/",
                    &arg,
                ],
                option,
            );
            expect_parse_refusal(&out, option, &[], &format!("verify {arg}"));
        }
    }
}

/// A card nested `depth` levels deep (the root object is level 1).
fn deep_card(depth: usize) -> String {
    let inner = depth - 1;
    format!(
        r#"{{"name":"a","description":"","version":"1","capabilities":{{}},"skills":[],"x":{}{}}}"#,
        "[".repeat(inner),
        "]".repeat(inner)
    )
}

#[test]
fn reader_and_verifier_limits_are_bounded() {
    let f = fixture("hard-limits");
    let deep = write(&f.dir, "deep.json", deep_card(512));
    // --max-depth: 1 to 512 (the library cap), and a card 512 levels deep is read at 512.
    let out = run_ok(
        &[
            "canonicalize",
            s(&deep),
            "--max-depth",
            "512",
            "--unknown",
            "retain",
        ],
        "depth 512",
    );
    expect_code(&out, 0, "--max-depth 512");
    let out = run_ok(&["canonicalize", s(&deep), "--max-depth", "511"], "depth 511");
    expect_code(&out, 2, "--max-depth 511 on a card 512 deep");
    assert!(
        error_line(&out).starts_with("error[nesting-too-deep]"),
        "{}",
        stderr(&out)
    );
    for bad in ["513", "0", "100000", "-1", "x"] {
        for cmd in ["canonicalize", "inspect", "lint", "migrate", "sign", "verify"] {
            let arg = format!("--max-depth={bad}");
            let out = run_ok(&[cmd, s(&f.card), &arg], cmd);
            expect_parse_refusal(&out, "--max-depth", &["1 to 512"], &format!("{cmd} {arg}"));
        }
    }
    // --max-input-bytes: 1 to 1 GiB.
    for good in ["1073741824", "100000"] {
        let out = run_ok(&["canonicalize", s(&f.card), "--max-input-bytes", good], good);
        expect_code(&out, 0, &format!("--max-input-bytes {good}"));
    }
    let out = run_ok(&["canonicalize", s(&f.card), "--max-input-bytes", "1"], "1");
    expect_code(&out, 2, "--max-input-bytes 1");
    assert!(error_line(&out).starts_with("error[input-too-large]"));
    for bad in ["1073741825", "0", "18446744073709551616", "-5", "1e6"] {
        let arg = format!("--max-input-bytes={bad}");
        let out = run_ok(&["canonicalize", s(&f.card), &arg], &arg);
        expect_parse_refusal(&out, "--max-input-bytes", &["1 to 1073741824"], &arg);
        let out = run_ok(
            &["verify", "--batch", s(&f.dir), "--jwks", s(&f.jwks), &arg],
            &arg,
        );
        expect_parse_refusal(&out, "--max-input-bytes", &[], &format!("batch {arg}"));
    }
    // --max-signatures: 1 to 256.
    for good in ["1", "256"] {
        let out = run_ok(&f.verify_args(&["--max-signatures", good]), good);
        expect_code(&out, 0, &format!("--max-signatures {good}"));
    }
    for bad in ["257", "0", "100000", "-1"] {
        let arg = format!("--max-signatures={bad}");
        let out = run_ok(&["verify", s(&f.signed), "--jwks", s(&f.jwks), &arg], &arg);
        expect_parse_refusal(&out, "--max-signatures", &["1 to 256"], &arg);
    }
}

// ---------------------------------------------------------------------------------------------
// E. Files the fetcher reads whole.

#[test]
fn ca_file_must_be_a_bounded_file() {
    // The fetcher reads the CA file whole: a device (here one made like /dev/null; /dev/zero
    // would be read forever) and a file over 4 MiB are refused before anything is fetched.
    let dir = scratch("hard-ca-file");
    let big = write(&dir, "big.pem", vec![b'a'; 4 * 1024 * 1024 + 1]);
    let device = dir.join("device.pem");
    let mut cases: Vec<(PathBuf, &str)> = vec![(big, "more than the limit of 4194304 bytes")];
    if mknod_null(&device) {
        cases.push((device, "a character device"));
    }
    for (ca, words) in &cases {
        for cmd in ["fetch", "verify"] {
            let mut args = vec![
                cmd,
                "https://a2a-card-test.invalid/",
                "--ca-file",
                s(ca),
                "--no-cache",
            ];
            if cmd == "verify" {
                args.extend(["--allow-jku", "https://a2a-card-test.invalid/"]);
            }
            let out = run_ok(&args, cmd);
            let line = expect_error(&out, 3, "ca-file", s(ca));
            assert!(line.contains(words), "{cmd}: {line}");
        }
    }
}
