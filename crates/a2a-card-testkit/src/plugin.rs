//! The sigstore KMS test plugin (`plugins/sigstore-kms-test`) as the keys crate's and the
//! CLI's tests run it: the plugin itself, a PATH that finds it, a wrapper that runs it with a
//! mode set, the calls it logged, the processes left in its process group, and the ways it
//! misbehaves with the error each one is.

use crate::softhsm::plugins_dir;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The test plugin executable, `sigstore-kms-test` (asserted to be there).
pub fn test_plugin() -> PathBuf {
    let plugin = plugins_dir().join("sigstore-kms-test");
    assert!(
        plugin.is_file(),
        "the test plugin is missing: {}",
        plugin.display()
    );
    plugin
}

/// The PATH of this process with the test plugins' folder first.
pub fn path_with_plugins() -> String {
    format!(
        "{}:{}",
        plugins_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// A plugin `dir/sigstore-kms-wrapped`: a shell script that runs the test plugin with the
/// variables `env` set (the test plugin's modes: `SIGSTORE_KMS_TEST_MODE`, `..._LOG`, ...).
pub fn wrapper(dir: &Path, env: &[(&str, &str)]) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("sigstore-kms-wrapped");
    let mut script = String::from("#!/bin/sh\n");
    for (k, v) in env {
        script.push_str(&format!("export {k}='{v}'\n"));
    }
    script.push_str(&format!("exec '{}' \"$@\"\n", test_plugin().display()));
    // Written by a child process, not by this one: a file this process holds open for writing
    // is inherited by every child another test thread forks meanwhile, and executing it then
    // fails with "Text file busy" (ETXTBSY) until that child has exec'd. The writer's
    // descriptor lives and dies in its own process, which has exited when this returns.
    let mut writer = std::process::Command::new("sh")
        .args(["-c", "cat > \"$1\"", "sh"])
        .arg(&path)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = writer.stdin.take().unwrap();
        stdin.write_all(script.as_bytes()).unwrap();
    }
    assert!(writer.wait().unwrap().success(), "writing {}", path.display());
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// The calls the test plugin logged to `log` (`SIGSTORE_KMS_TEST_LOG`), one JSON object a
/// call: `argv`, `stdin` (standard base64), `mode`, `env` (the names of the `A2A_CARD_*`
/// variables the plugin was given), `all_env` (the names of all of them).
pub fn logged_calls(log: &Path) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The strings of the array `call[member]` of a logged call (`env`, `all_env`).
pub fn names<'a>(call: &'a Value, member: &str) -> Vec<&'a str> {
    call[member]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect()
}

/// The processes of process group `pgid` that are still running (zombies left out: they
/// have ended and wait for init to reap them), as their `/proc/PID/stat` lines.
pub fn running_in_group(pgid: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid pgrp ...
        let Some(after) = stat.rfind(')').map(|i| &stat[i + 2..]) else {
            continue;
        };
        let fields: Vec<&str> = after.split_whitespace().collect();
        if fields.get(2) == Some(&pgid) && fields.first() != Some(&"Z") {
            found.push(stat.clone());
        }
    }
    found
}

/// What is still running in the process group written to `pgid_file`
/// (`SIGSTORE_KMS_TEST_PGID_FILE`) after waiting up to 2 s for it to end (in 20 ms steps).
pub fn left_in_group(pgid_file: &Path) -> Vec<String> {
    let pgid = std::fs::read_to_string(pgid_file).unwrap();
    let mut left = running_in_group(&pgid);
    for _ in 0..100 {
        if left.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
        left = running_in_group(&pgid);
    }
    left
}

/// Each way the test plugin misbehaves (`SIGSTORE_KMS_TEST_MODE`; `publicKey:` modes misbehave
/// on that call): (mode, the error code, words of its message). `other-key` signs with the key
/// of `SIGSTORE_KMS_TEST_OTHER_KEY`.
pub const MISBEHAVIOURS: &[(&str, &str, &[&str])] = &[
    ("bad-json", "external-signer-failed", &["not the protocol's JSON"]),
    (
        "error-message",
        "external-signer-failed",
        &["returned an error", "the test KMS refuses to sign"],
    ),
    (
        "other-key",
        "external-signature-invalid",
        &["does not verify with its public key", "not used"],
    ),
    (
        "der-impossible",
        "external-signer-failed",
        &["neither raw r||s", "DER"],
    ),
    ("huge", "external-signer-failed", &["more than 1048576 bytes"]),
    ("empty", "external-signer-failed", &["nothing on stdout"]),
    ("killed", "external-signer-failed", &["killed by signal 9"]),
    (
        "publicKey:bad-pem",
        "external-signer-failed",
        &["publicKey", "no usable PEM public key"],
    ),
    (
        "publicKey:error-message",
        "external-signer-failed",
        &["publicKey", "returned an error"],
    ),
    (
        "publicKey:bad-json",
        "external-signer-failed",
        &["publicKey", "not the protocol's JSON"],
    ),
];
