//! Helpers for the end-to-end tests of the `a2a-card` binary: running it, scratch directories,
//! reading its output, third-party corpora, and small independent encoders.

#![allow(dead_code, clippy::unwrap_used, clippy::panic)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The environment variable the binary reads a signing key from.
pub const KEY_ENV: &str = "A2A_CARD_SIGNING_KEY";

/// A small card with every REQUIRED member, an empty REQUIRED string and an unknown member.
pub const CARD: &str = r#"{
  "name": "Release Agent",
  "description": "",
  "version": "1.0.0",
  "capabilities": {"streaming": true, "extensions": []},
  "skills": [{"id": "s1", "name": "Ship", "description": "ships", "tags": ["release"]}],
  "x-vendor": {"build": 7}
}
"#;

/// Every algorithm the default build signs with, and the `keygen` options for it.
pub const ALGORITHMS: &[(&str, &[&str])] = &[
    ("EdDSA", &[]),
    ("EdDSA", &["--curve", "Ed448"]),
    ("ES256", &[]),
    ("ES384", &[]),
    ("ES512", &[]),
    ("ES256K", &[]),
    ("RS256", &[]),
    ("RS384", &[]),
    ("RS512", &[]),
    ("PS256", &[]),
    ("PS384", &[]),
    ("PS512", &["--rsa-bits", "3072"]),
];

/// The binary, with the signing-key variable removed so that the caller's environment never
/// leaks into a test.
pub fn bin() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_a2a-card"));
    cmd.env_remove(KEY_ENV);
    cmd
}

/// Runs the binary with `args`, feeding `stdin` when given.
pub fn run(args: &[&str], stdin: Option<&[u8]>) -> Output {
    run_env(args, stdin, &[])
}

/// [`run`] with extra environment variables.
pub fn run_env(args: &[&str], stdin: Option<&[u8]>, env: &[(&str, &str)]) -> Output {
    run_in(None, args, stdin, env)
}

/// [`run_env`] in a working directory.
pub fn run_in(dir: Option<&Path>, args: &[&str], stdin: Option<&[u8]>, env: &[(&str, &str)]) -> Output {
    let mut cmd = bin();
    if let Some(dir) = dir {
        cmd.current_dir(dir);
    }
    cmd.args(args)
        .envs(env.iter().copied())
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    if let Some(input) = stdin {
        let mut pipe = child.stdin.take().unwrap();
        // A process that stops reading early (usage errors) closes the pipe.
        match pipe.write_all(input) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
            other => other.unwrap(),
        }
        drop(pipe);
    }
    child.wait_with_output().unwrap()
}

/// A fresh, empty scratch directory unique to one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("a2a-card-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The path as a `&str`.
pub fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).unwrap()
}

/// Asserts the exit code, showing stdout and stderr when it differs.
#[track_caller]
pub fn expect_code(out: &Output, code: i32, what: &str) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "{what}: exit code\nstdout: {}\nstderr: {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The single error line; fails unless stderr holds exactly one line.
#[track_caller]
pub fn error_line(out: &Output) -> String {
    let err = stderr(out);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "expected exactly one stderr line, got {err:?}");
    lines[0].to_string()
}

/// Asserts a failure: exit code, nothing on stdout, and one error line with this code and source.
#[track_caller]
pub fn expect_error(out: &Output, code: i32, error_code: &str, source: &str) -> String {
    expect_code(out, code, error_code);
    assert!(
        out.stdout.is_empty(),
        "stdout: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let line = error_line(out);
    assert!(line.starts_with(&format!("error[{error_code}]: ")), "{line}");
    assert!(line.ends_with(&format!("({source})")), "{line}");
    line
}

/// stdout parsed as JSON.
#[track_caller]
pub fn json_out(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// The value of a `name: value` line on stderr.
#[track_caller]
pub fn stderr_field(out: &Output, name: &str) -> String {
    let err = stderr(out);
    err.lines()
        .find_map(|l| l.strip_prefix(&format!("{name}: ")))
        .unwrap_or_else(|| panic!("no {name:?} line on stderr: {err}"))
        .to_string()
}

/// Runs `keygen --alg ALG` into `dir`, returning the PEM and JWKS paths.
#[track_caller]
pub fn keygen(dir: &Path, name: &str, alg: &str, extra: &[&str]) -> (PathBuf, PathBuf) {
    let pem = dir.join(format!("{name}.pem"));
    let jwks = dir.join(format!("{name}.jwks.json"));
    let mut args = vec!["keygen", "--alg", alg, "--out", s(&pem), "--jwks", s(&jwks)];
    args.extend_from_slice(extra);
    let out = run(&args, None);
    expect_code(&out, 0, &format!("keygen {alg} {extra:?}"));
    (pem, jwks)
}

/// Signs `card` with `--key key` plus `extra`, writing the result to `out_path`.
#[track_caller]
pub fn sign_to(card: &Path, key: &Path, extra: &[&str], out_path: &Path) -> Output {
    let mut args = vec!["sign", s(card), "--key", s(key), "--out", s(out_path)];
    args.extend_from_slice(extra);
    let out = run(&args, None);
    expect_code(&out, 0, &format!("sign {extra:?}"));
    out
}

/// Writes `bytes` to `dir/name` and returns the path.
pub fn write(dir: &Path, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// The file names in `dir`, sorted.
pub fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Directory of the third-party corpora (`A2A_CARD_CORPORA`, default `../shared/corpora` next to
/// the repository), or `None` after a note when it is missing outside CI.
pub fn corpus_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("A2A_CARD_CORPORA") {
        Some(v) if !v.is_empty() => PathBuf::from(v),
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpora"),
    };
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "third-party corpora not found at {} (set A2A_CARD_CORPORA); CI is set, so this is a failure",
        dir.display()
    );
    eprintln!(
        "note: third-party corpora not found at {} (set A2A_CARD_CORPORA); skipping this test",
        dir.display()
    );
    None
}

/// True when an `openssl` command runs; outside CI a missing one is a note, under CI a failure.
pub fn have_openssl() -> bool {
    let ok = Command::new("openssl")
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "openssl is missing and CI is set"
        );
        eprintln!("note: no openssl command; skipping the OpenSSL part of this test");
    }
    ok
}

/// Runs `openssl` with `args` and asserts success.
#[track_caller]
pub fn openssl(args: &[&str]) -> Output {
    let out = Command::new("openssl").args(args).output().unwrap();
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// SHA-256, by ring (independent of the binary).
pub fn sha256(bytes: &[u8]) -> Vec<u8> {
    ring::digest::digest(&ring::digest::SHA256, bytes)
        .as_ref()
        .to_vec()
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn unhex(s: &str) -> Vec<u8> {
    assert!(s.len() % 2 == 0, "odd hex length");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

const B64URL: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Base64url without padding (RFC 4648 section 5).
pub fn b64url(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().fold(0u32, |acc, &b| (acc << 8) | u32::from(b)) << (8 * (3 - chunk.len()));
        for i in 0..=chunk.len() {
            out.push(B64URL[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

/// Decodes unpadded base64url.
pub fn unb64url(s: &str) -> Vec<u8> {
    let mut bits = 0u32;
    let mut n = 0;
    let mut out = Vec::new();
    for c in s.bytes() {
        let v = B64URL.iter().position(|&x| x == c).unwrap() as u32;
        bits = (bits << 6) | v;
        n += 6;
        if n >= 8 {
            n -= 8;
            out.push((bits >> n) as u8);
            bits &= (1 << n) - 1;
        }
    }
    out
}

/// The RFC 7638 thumbprint of a public JWK, computed here from its required members.
pub fn thumbprint(jwk: &serde_json::Value) -> String {
    let members: &[&str] = match jwk["kty"].as_str().unwrap() {
        "EC" => &["crv", "kty", "x", "y"],
        "OKP" => &["crv", "kty", "x"],
        "RSA" => &["e", "kty", "n"],
        other => panic!("kty {other}"),
    };
    let body: Vec<String> = members
        .iter()
        .map(|m| format!("\"{m}\":\"{}\"", jwk[*m].as_str().unwrap()))
        .collect();
    b64url(&sha256(format!("{{{}}}", body.join(",")).as_bytes()))
}

/// The only key of a JWKS file.
pub fn only_jwk(path: &Path) -> serde_json::Value {
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let keys = v["keys"].as_array().unwrap();
    assert_eq!(keys.len(), 1, "{}", path.display());
    keys[0].clone()
}

/// The signature entries of a card file.
pub fn signatures(path: &Path) -> Vec<serde_json::Value> {
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    v["signatures"].as_array().cloned().unwrap_or_default()
}

/// The decoded protected header of a signature entry.
pub fn protected(entry: &serde_json::Value) -> serde_json::Value {
    serde_json::from_slice(&unb64url(entry["protected"].as_str().unwrap())).unwrap()
}

/// The canonical bytes of a card through `a2a-card canonicalize` with `extra` options.
#[track_caller]
pub fn canonical(card: &Path, extra: &[&str]) -> Vec<u8> {
    let mut args = vec!["canonicalize", s(card)];
    args.extend_from_slice(extra);
    let out = run(&args, None);
    expect_code(&out, 0, "canonicalize");
    out.stdout
}
