//! What the hardening tests (hardening_files.rs, hardening_inputs.rs) share: running the binary
//! under a time limit, a scratch directory with a card, a key and its JWKS, special files (FIFOs,
//! device nodes), and the checks of a refusal.

use super::*;
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The longest any case may run.
pub(crate) const LIMIT: Duration = Duration::from_secs(60);

/// Runs the binary with `args` and `env`, killing it past `LIMIT` (then `None`).
pub(crate) fn run_limited(args: &[&str], env: &[(&str, &str)]) -> Option<Output> {
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

pub(crate) fn drain(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        bytes
    })
}

/// [`run_limited`], failing the test when the binary did not finish in time.
#[track_caller]
pub(crate) fn run_ok(args: &[&str], what: &str) -> Output {
    run_limited(args, &[]).unwrap_or_else(|| panic!("{what}: still running after {LIMIT:?}"))
}

/// Asserts `error[io]` with exit 2 about `path`, the message containing every one of `words`.
#[track_caller]
pub(crate) fn expect_io_refusal(out: &Output, path: &str, words: &[&str], what: &str) {
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
pub(crate) fn expect_usage(out: &Output, words: &[&str], what: &str) {
    expect_code(out, 2, what);
    let line = error_line(out);
    assert!(line.starts_with("error[usage]: "), "{what}: {line}");
    for word in words {
        assert!(line.contains(word), "{what}: {word:?} not in {line}");
    }
}

/// A directory with a key, its JWKS, an unsigned card, the card signed, and an A2A 0.3 card.
pub(crate) struct Fixture {
    pub(crate) dir: PathBuf,
    pub(crate) pem: PathBuf,
    pub(crate) jwks: PathBuf,
    pub(crate) card: PathBuf,
    pub(crate) signed: PathBuf,
    pub(crate) v03: PathBuf,
}

/// An A2A 0.3 card for `migrate`.
pub(crate) const V03_CARD: &str = r#"{"protocolVersion":"0.3.0","name":"Old Agent","description":"d","url":"https://agent.example/a2a","version":"1","capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[{"id":"s","name":"S","description":"d","tags":["t"]}]}"#;

pub(crate) fn fixture(name: &str) -> Fixture {
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

impl Fixture {
    /// `sign CARD --key KEY --unknown exclude` plus `extra`, as arguments.
    pub(crate) fn sign_args<'a>(&'a self, extra: &[&'a str]) -> Vec<&'a str> {
        let mut args = vec![
            "sign",
            "--unknown",
            "exclude",
            s(&self.card),
            "--key",
            s(&self.pem),
        ];
        args.extend_from_slice(extra);
        args
    }

    /// `verify SIGNED --jwks JWKS` plus `extra`, as arguments.
    pub(crate) fn verify_args<'a>(&'a self, extra: &[&'a str]) -> Vec<&'a str> {
        let mut args = vec!["verify", s(&self.signed), "--jwks", s(&self.jwks)];
        args.extend_from_slice(extra);
        args
    }
}

/// Every subcommand option that writes a file, each writing `target` (as `--out`, `-o`,
/// `--emit-verified` or `--jwks`). `fetch` is given a URL that is never reached when the
/// output is refused first. `extra` is appended to each.
pub(crate) fn writers(f: &Fixture, target: &str, extra: &[&str]) -> Vec<(String, Vec<String>)> {
    // The private key of `keygen --jwks TARGET`, where it may be replaced (--force).
    let fresh = f.dir.join("keys").join("fresh.pem");
    let cases: Vec<(&str, Vec<&str>)> = vec![
        ("sign --out", f.sign_args(&["--out", target])),
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

pub(crate) fn strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

/// A FIFO at `path`.
pub(crate) fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success(), "mkfifo {}", path.display());
}

/// A character device like /dev/null at `path`, when this process may make one (root, with
/// CAP_MKNOD); `false` after a note otherwise.
pub(crate) fn mknod_null(path: &Path) -> bool {
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

pub(crate) fn file_type(path: &Path) -> std::fs::FileType {
    std::fs::symlink_metadata(path).unwrap().file_type()
}

pub(crate) fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

/// The names in `dir` that look like our temporary files.
pub(crate) fn temp_files(dir: &Path) -> Vec<String> {
    listing(dir)
        .into_iter()
        .filter(|n| n.contains(".a2a-card-") && n.ends_with(".tmp"))
        .collect()
}
