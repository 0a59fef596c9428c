//! Running a binary under test and reading what it did: its exit code, its one error line, its
//! JSON output. The `a2a-card` tests pass the path Cargo gives them
//! (`env!("CARGO_BIN_EXE_a2a-card")`).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// The proxy variables the fetcher reads (`a2a-card fetch` and `verify URL` go through the
/// proxy they name): [`run`] removes them, so that a developer's or a CI machine's proxy never
/// carries the tests' loopback traffic; a test that wants a proxy sets one in `env`.
pub const PROXY_VARS: &[&str] = &[
    "HTTPS_PROXY",
    "https_proxy",
    "ALL_PROXY",
    "all_proxy",
    "NO_PROXY",
    "no_proxy",
    "HTTP_PROXY",
    "http_proxy",
];

/// Runs `binary` with `args` in `dir` (or the current directory), feeding `stdin` when given
/// (else stdin is empty), with the extra environment `env` and without the variables named in
/// `remove` and the proxy variables ([`PROXY_VARS`]). stdout and stderr are captured.
pub fn run(
    binary: &Path,
    dir: Option<&Path>,
    args: &[&str],
    stdin: Option<&[u8]>,
    env: &[(&str, &str)],
    remove: &[&str],
) -> Output {
    let mut cmd = Command::new(binary);
    for name in remove.iter().chain(PROXY_VARS) {
        cmd.env_remove(name);
    }
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
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", binary.display()));
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

/// stdout as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// stderr as text.
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
