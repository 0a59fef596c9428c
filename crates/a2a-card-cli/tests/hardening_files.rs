//! End-to-end tests of the "Hard to fool, round two" fixes: what every output option writes to
//! (devices, FIFOs, sockets, directories, symbolic links, read-only files), outputs that are
//! the same file as another output or an input, the files and lines `verify --batch` reads, and
//! the bounds of every numeric option.
//!
//! Every case runs the binary under a time limit, so that the old behaviours (a FIFO opened for
//! reading, a JSON Lines file read to its end) fail the test instead of hanging it. No case
//! names a file of the system (`/dev/null`, `/dev/stdout`) as an output: a binary without these
//! fixes would replace it. They use a device node, a FIFO and a socket made in a scratch
//! directory, and symbolic links to `/dev/null` and `/proc/self/fd/1`, which an unfixed binary
//! replaces as links without touching what they lead to.

#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::*;
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The longest any case may run.
const LIMIT: Duration = Duration::from_secs(60);

/// Runs the binary with `args` and `env`, killing it past `LIMIT` (then `None`).
fn run_limited(args: &[&str], env: &[(&str, &str)]) -> Option<Output> {
    let mut child = bin()
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = drain(child.stdout.take().unwrap());
    let stderr = drain(child.stderr.take().unwrap());
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Some(Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    })
}

fn drain(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        bytes
    })
}

/// [`run_limited`], failing the test when the binary did not finish in time.
#[track_caller]
fn run_ok(args: &[&str], what: &str) -> Output {
    run_limited(args, &[]).unwrap_or_else(|| panic!("{what}: still running after {LIMIT:?}"))
}

/// Asserts `error[io]` with exit 2 about `path`, the message containing every one of `words`.
#[track_caller]
fn expect_io_refusal(out: &Output, path: &str, words: &[&str], what: &str) {
    expect_code(out, 2, what);
    let err = stderr(out);
    let line = err
        .lines()
        .find(|l| l.starts_with("error["))
        .unwrap_or_else(|| panic!("{what}: no error line: {err}"));
    assert!(line.starts_with("error[io]: "), "{what}: {line}");
    assert!(line.ends_with(&format!("({path})")), "{what}: {line}");
    for word in words {
        assert!(line.contains(word), "{what}: {word:?} not in {line}");
    }
}

/// Asserts a usage error (exit 2) whose line names every one of `words`.
#[track_caller]
fn expect_usage(out: &Output, words: &[&str], what: &str) {
    expect_code(out, 2, what);
    let line = error_line(out);
    assert!(line.starts_with("error[usage]: "), "{what}: {line}");
    for word in words {
        assert!(line.contains(word), "{what}: {word:?} not in {line}");
    }
}

/// A directory with a key, its JWKS, an unsigned card, the card signed, and an A2A 0.3 card.
struct Fixture {
    dir: PathBuf,
    pem: PathBuf,
    jwks: PathBuf,
    card: PathBuf,
    signed: PathBuf,
    v03: PathBuf,
}

/// An A2A 0.3 card for `migrate`.
const V03_CARD: &str = r#"{"protocolVersion":"0.3.0","name":"Old Agent","description":"d","url":"https://agent.example/a2a","version":"1","capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[{"id":"s","name":"S","description":"d","tags":["t"]}]}"#;

fn fixture(name: &str) -> Fixture {
    let dir = scratch(name);
    let keys = dir.join("keys");
    std::fs::create_dir_all(&keys).unwrap();
    let (pem, jwks) = keygen(&keys, "k", "ES256", &[]);
    let card = write(&dir, "card.json", CARD);
    let signed = dir.join("signed.json");
    sign_to(&card, &pem, &[], &signed);
    let v03 = write(&dir, "v03.json", V03_CARD);
    Fixture {
        dir,
        pem,
        jwks,
        card,
        signed,
        v03,
    }
}

/// Every subcommand option that writes a file, each writing `target` (as `--out`, `-o`,
/// `--emit-verified` or `--jwks`). `fetch` is given a URL that is never reached when the
/// output is refused first. `extra` is appended to each.
fn writers(f: &Fixture, target: &str, extra: &[&str]) -> Vec<(String, Vec<String>)> {
    // The private key of `keygen --jwks TARGET`, where it may be replaced (--force).
    let fresh = f.dir.join("keys").join("fresh.pem");
    let cases: Vec<(&str, Vec<&str>)> = vec![
        (
            "sign --out",
            vec!["sign", s(&f.card), "--key", s(&f.pem), "--out", target],
        ),
        (
            "fetch --out",
            vec![
                "fetch",
                "https://a2a-card-test.invalid/",
                "--no-cache",
                "--timeout",
                "5",
                "--out",
                target,
            ],
        ),
        (
            "verify --emit-verified",
            vec![
                "verify",
                s(&f.signed),
                "--jwks",
                s(&f.jwks),
                "--emit-verified",
                target,
            ],
        ),
        ("migrate -o", vec!["migrate", s(&f.v03), "-o", target]),
        ("schema -o", vec!["schema", "-o", target]),
    ];
    let mut out: Vec<(String, Vec<String>)> = cases
        .into_iter()
        .map(|(name, args)| {
            let mut args: Vec<String> = args.into_iter().map(String::from).collect();
            args.extend(extra.iter().map(|a| a.to_string()));
            (name.to_string(), args)
        })
        .collect();
    // keygen writes over an existing file only with --force.
    let mut force = vec!["--force".to_string()];
    force.retain(|a| !extra.contains(&a.as_str()));
    let keygen_out: Vec<String> = ["keygen", "--alg", "EdDSA", "--out", target]
        .into_iter()
        .map(String::from)
        .chain(force.clone())
        .chain(extra.iter().map(|a| a.to_string()))
        .collect();
    let keygen_jwks: Vec<String> = ["keygen", "--alg", "EdDSA", "--out", s(&fresh), "--jwks", target]
        .into_iter()
        .map(String::from)
        .chain(force)
        .chain(extra.iter().map(|a| a.to_string()))
        .collect();
    out.push(("keygen --out --force".into(), keygen_out));
    out.push(("keygen --jwks --force".into(), keygen_jwks));
    out
}

fn strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

/// A FIFO at `path`.
fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success(), "mkfifo {}", path.display());
}

/// A character device like /dev/null at `path`, when this process may make one (root, with
/// CAP_MKNOD); `false` after a note otherwise.
fn mknod_null(path: &Path) -> bool {
    let ok = Command::new("mknod")
        .arg(path)
        .args(["c", "1", "3"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("note: cannot make a device node here; skipping the device-node case");
    }
    ok
}

fn file_type(path: &Path) -> std::fs::FileType {
    std::fs::symlink_metadata(path).unwrap().file_type()
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

/// The names in `dir` that look like our temporary files.
fn temp_files(dir: &Path) -> Vec<String> {
    listing(dir)
        .into_iter()
        .filter(|n| n.contains(".a2a-card-") && n.ends_with(".tmp"))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// A. Writes replace only regular files.

#[test]
fn writes_refuse_fifos_sockets_devices_and_directories() {
    let f = fixture("hard-special");
    let special = f.dir.join("special");
    std::fs::create_dir_all(&special).unwrap();
    let fifo = special.join("fifo.json");
    mkfifo(&fifo);
    let socket = special.join("socket.json");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let directory = special.join("directory.json");
    std::fs::create_dir_all(&directory).unwrap();
    let null_link = special.join("null-link.json");
    std::os::unix::fs::symlink("/dev/null", &null_link).unwrap();
    let device = special.join("null-node");
    let mut targets: Vec<(&Path, &[&str])> = vec![
        (&fifo, &["a FIFO", "not a regular file"]),
        (&socket, &["a socket", "not a regular file"]),
        (&directory, &["a directory", "not a regular file"]),
        (
            &null_link,
            &[
                "symbolic link to /dev/null",
                "a character device",
                "not a regular file",
            ],
        ),
    ];
    if mknod_null(&device) {
        targets.push((&device, &["a character device", "not a regular file"]));
    }
    for (target, words) in &targets {
        let before = file_type(target);
        for (name, args) in writers(&f, s(target), &[]) {
            let what = format!("{name} {}", target.display());
            let out = run_ok(&strs(&args), &what);
            expect_io_refusal(&out, s(target), words, &what);
            let after = file_type(target);
            assert_eq!(
                (
                    after.is_fifo(),
                    after.is_socket(),
                    after.is_dir(),
                    after.is_symlink(),
                    after.is_char_device()
                ),
                (
                    before.is_fifo(),
                    before.is_socket(),
                    before.is_dir(),
                    before.is_symlink(),
                    before.is_char_device()
                ),
                "{what}: the target changed kind"
            );
        }
        // sign --in-place: the card itself is the FIFO or device; it is refused before it is
        // opened (opening a FIFO would wait for a writer forever).
        let out = run_ok(
            &["sign", s(target), "--key", s(&f.pem), "--in-place"],
            "sign --in-place",
        );
        expect_io_refusal(
            &out,
            s(target),
            words,
            &format!("sign --in-place {}", target.display()),
        );
        assert_eq!(file_type(target).is_file(), before.is_file());
    }
    assert_eq!(std::fs::read_link(&null_link).unwrap(), Path::new("/dev/null"));
    assert!(temp_files(&special).is_empty(), "{:?}", listing(&special));
}

#[test]
fn a_link_into_proc_like_dev_stdout_is_refused() {
    let f = fixture("hard-proc");
    // What /dev/stdout is on Linux: a link to /proc/self/fd/1. With stdout a pipe it leads to
    // a FIFO; with stdout a file it would lead to that file as another process holds it open.
    let stdout_link = f.dir.join("stdout-link");
    std::os::unix::fs::symlink("/proc/self/fd/1", &stdout_link).unwrap();
    for (name, args) in writers(&f, s(&stdout_link), &[]) {
        let what = format!("{name} -> /proc/self/fd/1");
        let out = run_ok(&strs(&args), &what);
        expect_code(&out, 2, &what);
        let line = stderr(&out)
            .lines()
            .find(|l| l.starts_with("error["))
            .unwrap_or_default()
            .to_string();
        assert!(line.starts_with("error[io]: "), "{what}: {line}");
        assert!(
            line.ends_with(&format!("({})", s(&stdout_link))),
            "{what}: {line}"
        );
        assert!(
            line.contains("/proc") || line.contains("a FIFO"),
            "{what}: {line}"
        );
        assert!(
            file_type(&stdout_link).is_symlink(),
            "{what}: the link was replaced"
        );
    }
}

#[test]
fn symbolic_links_are_written_through_and_dangling_ones_refused() {
    let f = fixture("hard-links");
    let real = f.dir.join("real");
    let links = f.dir.join("links");
    std::fs::create_dir_all(&real).unwrap();
    std::fs::create_dir_all(&links).unwrap();

    // sign --in-place through a relative link in another directory: the link stays a link,
    // the card it leads to is signed, and the temporary file was made next to that card.
    let target = write(&real, "card.json", CARD);
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).unwrap();
    let link = links.join("card.json");
    std::os::unix::fs::symlink("../real/card.json", &link).unwrap();
    let out = run_ok(
        &["sign", s(&link), "--key", s(&f.pem), "--in-place"],
        "sign --in-place link",
    );
    expect_code(&out, 0, "sign --in-place through a link");
    assert!(file_type(&link).is_symlink(), "the link was replaced by a file");
    assert_eq!(std::fs::read_link(&link).unwrap(), Path::new("../real/card.json"));
    assert_eq!(
        signatures(&target).len(),
        1,
        "the card behind the link is not signed"
    );
    assert_eq!(mode(&target), 0o640, "the permissions of the card were not kept");
    let verified = run_ok(&["verify", s(&target), "--jwks", s(&f.jwks)], "verify");
    expect_code(&verified, 0, "the card behind the link verifies");
    assert_eq!(listing(&links), ["card.json"]);
    assert_eq!(listing(&real), ["card.json"]);

    // Every writer, through a link to an existing file and through a chain of two links.
    let chain_end = write(&real, "end.json", "old");
    let first = links.join("first.json");
    std::os::unix::fs::symlink(&chain_end, links.join("second.json")).unwrap();
    std::os::unix::fs::symlink("second.json", &first).unwrap();
    for (name, args) in writers(&f, s(&first), &[]) {
        std::fs::write(&chain_end, "old").unwrap();
        let out = run_ok(&strs(&args), &name);
        if name == "fetch --out" {
            // Not reachable: the output was accepted, the retrieval failed afterwards.
            assert_ne!(out.status.code(), Some(0), "{name}");
            assert!(!stderr(&out).starts_with("error[io]"), "{name}: {}", stderr(&out));
            assert_eq!(std::fs::read(&chain_end).unwrap(), b"old");
        } else {
            assert!(
                matches!(out.status.code(), Some(0 | 1)),
                "{name}: {}",
                stderr(&out)
            );
            assert_ne!(
                std::fs::read(&chain_end).unwrap(),
                b"old",
                "{name}: nothing written through the links"
            );
        }
        assert!(
            file_type(&first).is_symlink() && file_type(&links.join("second.json")).is_symlink(),
            "{name}"
        );
        assert!(
            temp_files(&links).is_empty() && temp_files(&real).is_empty(),
            "{name}"
        );
    }

    // A dangling link is refused by every writer, and nothing appears where it points.
    let dangling = links.join("dangling.json");
    let nowhere = real.join("nowhere.json");
    std::os::unix::fs::symlink(&nowhere, &dangling).unwrap();
    for (name, args) in writers(&f, s(&dangling), &[]) {
        let out = run_ok(&strs(&args), &name);
        expect_io_refusal(
            &out,
            s(&dangling),
            &["symbolic link", "does not exist", "dangling"],
            &name,
        );
        assert!(file_type(&dangling).is_symlink(), "{name}: the link was replaced");
        assert!(!nowhere.exists(), "{name}: the link's target was created");
    }
    let before = std::fs::read(&f.card).unwrap();
    let out = run_ok(
        &["sign", s(&dangling), "--key", s(&f.pem), "--in-place"],
        "in-place dangling",
    );
    expect_io_refusal(
        &out,
        s(&dangling),
        &["dangling"],
        "sign --in-place on a dangling link",
    );
    assert_eq!(std::fs::read(&f.card).unwrap(), before);
}

#[test]
fn read_only_targets_are_replaced_only_with_force() {
    let f = fixture("hard-read-only");
    let target = f.dir.join("read-only.json");
    for (name, args) in writers(&f, s(&target), &[]) {
        if name.starts_with("keygen") {
            continue; // keygen replaces only with --force: below.
        }
        std::fs::write(&target, "old").unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o444)).unwrap();
        let out = run_ok(&strs(&args), &name);
        expect_io_refusal(&out, s(&target), &["read-only", "0444", "--force"], &name);
        assert_eq!(std::fs::read(&target).unwrap(), b"old", "{name}");
        assert_eq!(mode(&target), 0o444, "{name}");
    }
    for (name, args) in writers(&f, s(&target), &["--force"]) {
        std::fs::write(&target, "old").unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o444)).unwrap();
        let out = run_ok(&strs(&args), &name);
        if name == "fetch --out" {
            // Accepted; the retrieval then fails (no network here) and nothing is written.
            assert!(!stderr(&out).starts_with("error[io]"), "{name}: {}", stderr(&out));
            assert_eq!(std::fs::read(&target).unwrap(), b"old");
            continue;
        }
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{name} --force: {}",
            stderr(&out)
        );
        assert_ne!(std::fs::read(&target).unwrap(), b"old", "{name} --force");
        let want = if name == "keygen --out --force" {
            0o600
        } else {
            0o444
        };
        assert_eq!(mode(&target), want, "{name} --force: permissions");
    }
    // sign --in-place on a read-only card, and through a link to one.
    let card = write(&f.dir, "ro-card.json", CARD);
    std::fs::set_permissions(&card, std::fs::Permissions::from_mode(0o444)).unwrap();
    let link = f.dir.join("ro-link.json");
    std::os::unix::fs::symlink(&card, &link).unwrap();
    let out = run_ok(
        &["sign", s(&card), "--key", s(&f.pem), "--in-place"],
        "in-place ro",
    );
    expect_io_refusal(
        &out,
        s(&card),
        &["read-only", "--force"],
        "sign --in-place read-only",
    );
    let out = run_ok(
        &["sign", s(&link), "--key", s(&f.pem), "--in-place"],
        "in-place ro link",
    );
    expect_io_refusal(
        &out,
        s(&link),
        &["symbolic link", "read-only", "--force"],
        "through a link",
    );
    assert_eq!(std::fs::read(&card).unwrap(), CARD.as_bytes());
    let out = run_ok(
        &["sign", s(&link), "--key", s(&f.pem), "--in-place", "--force"],
        "forced",
    );
    expect_code(&out, 0, "sign --in-place --force");
    assert_eq!(signatures(&card).len(), 1);
    assert_eq!(mode(&card), 0o444);
    assert!(file_type(&link).is_symlink());
    assert!(temp_files(&f.dir).is_empty(), "{:?}", listing(&f.dir));
}

#[test]
fn force_is_only_for_commands_that_write() {
    let f = fixture("hard-force-usage");
    let cases: [(&str, &[&str]); 5] = [
        ("sign", &["sign", s(&f.card), "--key", s(&f.pem), "--force"]),
        (
            "verify",
            &["verify", s(&f.signed), "--jwks", s(&f.jwks), "--force"],
        ),
        ("fetch", &["fetch", "https://a2a-card-test.invalid/", "--force"]),
        ("migrate", &["migrate", s(&f.v03), "--force"]),
        ("schema", &["schema", "--force"]),
    ];
    for (name, args) in cases {
        let out = run_ok(args, name);
        expect_code(&out, 2, name);
        assert!(out.stdout.is_empty(), "{name}");
        let err = stderr(&out);
        assert!(err.contains("--force"), "{name}: {err}");
        assert!(
            err.contains("--out") || err.contains("--emit-verified") || err.contains("--in-place"),
            "{name}: the output option is not named: {err}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// B. Outputs that are the same file as another output or an input.

#[test]
fn keygen_out_and_jwks_are_compared_as_files() {
    let f = fixture("hard-keygen-same");
    let keys = f.dir.join("keys");
    let sub = keys.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    let pem_text = std::fs::read(&f.pem).unwrap();
    let link = keys.join("k-link.pem");
    std::os::unix::fs::symlink("k.pem", &link).unwrap();
    let spellings = [
        "./k.pem".to_string(),
        "sub/../k.pem".to_string(),
        s(&f.pem).to_string(),
        "k-link.pem".to_string(),
    ];
    for jwks in &spellings {
        let out = run_in(
            Some(&keys),
            &[
                "keygen", "--alg", "ES256", "--out", "k.pem", "--jwks", jwks, "--force",
            ],
            None,
            &[],
        );
        expect_usage(
            &out,
            &["--out", "--jwks", "k.pem", jwks, "same file"],
            &format!("--jwks {jwks}"),
        );
        assert_eq!(
            std::fs::read(&f.pem).unwrap(),
            pem_text,
            "--jwks {jwks}: the private key changed"
        );
    }
    // Neither exists yet: still the same file, and nothing is written.
    let dangling = keys.join("new-link.pem");
    std::os::unix::fs::symlink("new.pem", &dangling).unwrap();
    for jwks in ["./new.pem", "sub/../new.pem", "new-link.pem"] {
        let out = run_in(
            Some(&keys),
            &[
                "keygen", "--alg", "ES256", "--out", "new.pem", "--jwks", jwks, "--force",
            ],
            None,
            &[],
        );
        expect_usage(
            &out,
            &["--out", "--jwks", "same file"],
            &format!("new, --jwks {jwks}"),
        );
        assert!(!keys.join("new.pem").exists(), "--jwks {jwks}: a key was written");
    }
    // Different files are fine.
    let out = run_in(
        Some(&keys),
        &[
            "keygen",
            "--alg",
            "ES256",
            "--out",
            "sub/../other.pem",
            "--jwks",
            "./other.jwks.json",
        ],
        None,
        &[],
    );
    expect_code(&out, 0, "different files");
}

#[test]
fn sign_out_may_be_neither_the_key_nor_the_card() {
    let f = fixture("hard-sign-same");
    let pem_text = std::fs::read(&f.pem).unwrap();
    let key_link = f.dir.join("key-link.pem");
    std::os::unix::fs::symlink(&f.pem, &key_link).unwrap();
    let dotted = f.dir.join("keys").join("..").join("keys").join("k.pem");
    for out_path in [&key_link, &dotted, &f.pem] {
        let out = run_ok(
            &["sign", s(&f.card), "--key", s(&f.pem), "--out", s(out_path)],
            "sign --out key",
        );
        expect_usage(
            &out,
            &["--out", "--key", "same file"],
            &format!("--out {}", out_path.display()),
        );
        assert_eq!(
            std::fs::read(&f.pem).unwrap(),
            pem_text,
            "the key was overwritten"
        );
    }
    let card_text = std::fs::read(&f.card).unwrap();
    let card_link = f.dir.join("card-link.json");
    std::os::unix::fs::symlink("card.json", &card_link).unwrap();
    let out = run_in(
        Some(&f.dir),
        &[
            "sign",
            "card.json",
            "--key",
            s(&f.pem),
            "--out",
            "./card-link.json",
        ],
        None,
        &[],
    );
    expect_usage(
        &out,
        &["--out", "card file itself", "--in-place"],
        "--out the card",
    );
    assert_eq!(std::fs::read(&f.card).unwrap(), card_text);
    // --in-place on the key file itself.
    let out = run_ok(
        &["sign", s(&dotted), "--key", s(&f.pem), "--in-place"],
        "sign --in-place the key",
    );
    expect_usage(&out, &["--in-place", "--key", "same file"], "--in-place the key");
    assert_eq!(std::fs::read(&f.pem).unwrap(), pem_text);
}

#[test]
fn verify_emit_verified_may_not_be_an_input() {
    let f = fixture("hard-verify-same");
    let trust = write(
        &f.dir,
        "trust.json",
        format!(r#"{{"keys":[{{"jwk":{}}}]}}"#, only_jwk(&f.jwks)),
    );
    let ca = write(&f.dir, "ca.pem", "not a certificate");
    let inputs: [(&str, &Path); 5] = [
        ("the card", &f.signed),
        ("--key", &f.pem),
        ("--jwks", &f.jwks),
        ("--trust", &trust),
        ("--ca-file", &ca),
    ];
    let link = f.dir.join("emit-link");
    for (flag, input) in inputs {
        let before = std::fs::read(input).unwrap();
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(input, &link).unwrap();
        // The same file spelt another way (DIR/../DIR/NAME), and through a link.
        let dir = input.parent().unwrap();
        let dotted = dir
            .join("..")
            .join(dir.file_name().unwrap())
            .join(input.file_name().unwrap());
        for output in [&dotted, &link] {
            let card = if flag == "--ca-file" {
                "https://a2a-card-test.invalid/".to_string()
            } else {
                s(&f.signed).to_string()
            };
            let mut args = vec!["verify", card.as_str(), "--emit-verified", s(output)];
            match flag {
                "--key" => args.extend(["--key", s(&f.pem)]),
                "--trust" => args.extend(["--trust", s(&trust)]),
                "--ca-file" => args.extend(["--jwks", s(&f.jwks), "--ca-file", s(&ca), "--no-cache"]),
                _ => args.extend(["--jwks", s(&f.jwks)]),
            }
            let what = format!("--emit-verified {} vs {flag}", output.display());
            let out = run_ok(&args, &what);
            expect_usage(&out, &["--emit-verified", flag, "same file"], &what);
            assert_eq!(std::fs::read(input).unwrap(), before, "{what}: overwritten");
        }
    }
}

#[test]
fn fetch_out_may_not_be_the_ca_file_and_migrate_out_not_the_card() {
    let f = fixture("hard-fetch-migrate-same");
    let ca = write(&f.dir, "ca.pem", "not a certificate");
    let out = run_in(
        Some(&f.dir),
        &[
            "fetch",
            "https://a2a-card-test.invalid/",
            "--ca-file",
            "ca.pem",
            "--out",
            "./ca.pem",
            "--no-cache",
        ],
        None,
        &[],
    );
    expect_usage(
        &out,
        &["--out", "--ca-file", "same file"],
        "fetch --out the CA file",
    );
    assert_eq!(std::fs::read(&ca).unwrap(), b"not a certificate");

    let before = std::fs::read(&f.v03).unwrap();
    let out = run_in(
        Some(&f.dir),
        &["migrate", "v03.json", "-o", "./v03.json"],
        None,
        &[],
    );
    expect_usage(&out, &["-o", "the card", "same file"], "migrate -o the card");
    assert_eq!(std::fs::read(&f.v03).unwrap(), before);
}

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

/// Asserts a refusal by the argument parser (exit 2) naming `option`, with `words` in it.
#[track_caller]
fn expect_parse_refusal(out: &Output, option: &str, words: &[&str], what: &str) {
    expect_code(out, 2, what);
    let err = stderr(out);
    assert!(err.starts_with("error: "), "{what}: not a parse error: {err}");
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
        !err.starts_with("error: ") && out.status.code() != Some(101),
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
        let out = run_ok(
            &[
                "verify",
                s(&f.signed),
                "--jwks",
                s(&f.jwks),
                "--max-signatures",
                good,
            ],
            good,
        );
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
