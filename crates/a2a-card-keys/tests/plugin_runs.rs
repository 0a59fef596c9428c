//! Runs of a KMS plugin against the real test plugin (`sigstore-kms-test`), through a small
//! shell wrapper that sets its mode: every wait on a plugin is bounded by the deadline and its
//! process group is ended on every path, and no plugin inherits a variable a secret was read
//! from.

#![allow(clippy::unwrap_used, clippy::panic)] // a panic is how a test fails

use a2a_card::{Algorithm, PrivateKey, Signer};
use a2a_card_keys::{open, KeyOptions, KeyRef, PluginKey};
use a2a_card_testkit::data::scratch;
use a2a_card_testkit::softhsm::plugins_dir;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A plugin that runs the test plugin with `env` set.
fn wrapper(dir: &Path, env: &[(&str, &str)]) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("sigstore-kms-wrapped");
    let mut script = String::from("#!/bin/sh\n");
    for (k, v) in env {
        script.push_str(&format!("export {k}='{v}'\n"));
    }
    script.push_str(&format!(
        "exec '{}' \"$@\"\n",
        plugins_dir().join("sigstore-kms-test").display()
    ));
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn key_file(dir: &Path, alg: Algorithm) -> PathBuf {
    let path = dir.join("k.pem");
    std::fs::write(&path, PrivateKey::generate(alg).unwrap().to_pkcs8_pem()).unwrap();
    path
}

/// The processes of process group `pgid` that are still running (zombies left out: they have
/// ended and wait to be reaped by init).
fn running_in_group(pgid: &str) -> Vec<String> {
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

#[test]
fn a_child_holding_the_plugins_stdin_does_not_outlive_the_deadline() {
    let dir = scratch("plugin-stdin-child");
    let key = key_file(&dir, Algorithm::ES256);
    let pgid_file = dir.join("pgid");
    let plugin = wrapper(
        &dir,
        &[
            ("SIGSTORE_KMS_TEST_MODE", "stdin-child"),
            ("SIGSTORE_KMS_TEST_PGID_FILE", pgid_file.to_str().unwrap()),
        ],
    );
    let deadline = Duration::from_secs(2);
    let signer = PluginKey::open_at(&plugin, key.to_str().unwrap(), None, deadline).unwrap();
    // Far more than a pipe holds: the writer blocks until the plugin's group is ended.
    let input = vec![b'e'; 512 * 1024];
    let start = Instant::now();
    let result = signer.sign(Algorithm::ES256, &input);
    let took = start.elapsed();
    // The child sleeps 60 s; the call is bounded by the deadline.
    assert!(
        took < deadline + Duration::from_secs(3),
        "the call took {took:?} (deadline {deadline:?})"
    );
    let signature = result.unwrap();
    assert_eq!(signature.len(), 64, "an ES256 signature");
    let pgid = std::fs::read_to_string(&pgid_file).unwrap();
    let mut left = running_in_group(&pgid);
    for _ in 0..100 {
        if left.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
        left = running_in_group(&pgid);
    }
    assert!(left.is_empty(), "left running in the plugin's group: {left:?}");
}

#[test]
fn a_plugin_that_answers_leaves_nothing_running() {
    // Even a well-behaved answer ends the group: a child the plugin started is not left behind.
    let dir = scratch("plugin-group-ok");
    let key = key_file(&dir, Algorithm::ES256);
    let pgid_file = dir.join("pgid");
    let plugin = wrapper(
        &dir,
        &[
            ("SIGSTORE_KMS_TEST_MODE", "stdin-child"),
            ("SIGSTORE_KMS_TEST_PGID_FILE", pgid_file.to_str().unwrap()),
        ],
    );
    let signer = PluginKey::open_at(&plugin, key.to_str().unwrap(), None, Duration::from_secs(30)).unwrap();
    let start = Instant::now();
    signer.sign(Algorithm::ES256, b"small").unwrap();
    assert!(start.elapsed() < Duration::from_secs(10), "{:?}", start.elapsed());
    let pgid = std::fs::read_to_string(&pgid_file).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        running_in_group(&pgid).is_empty(),
        "{:?}",
        running_in_group(&pgid)
    );
}

#[test]
fn no_plugin_inherits_a_variable_a_key_was_read_from() {
    let dir = scratch("plugin-env-scrub");
    let log = dir.join("calls.log");
    let secret_var = "A2A_KEYS_TEST_RELEASE_KEY";
    let pem = PrivateKey::generate(Algorithm::EdDSA).unwrap().to_pkcs8_pem();
    std::env::set_var(secret_var, &pem);
    std::env::set_var("A2A_KEYS_TEST_HARMLESS", "1");
    let local = open(
        &KeyRef::parse(&format!("env://{secret_var}")).unwrap(),
        &KeyOptions::default(),
    )
    .unwrap();
    assert!(!local.is_external());
    let key = key_file(&dir, Algorithm::ES256);
    let plugin = wrapper(&dir, &[("SIGSTORE_KMS_TEST_LOG", log.to_str().unwrap())]);
    let signer = PluginKey::open_at(&plugin, key.to_str().unwrap(), None, Duration::from_secs(30)).unwrap();
    signer.sign(Algorithm::ES256, b"message").unwrap();
    let text = std::fs::read_to_string(&log).unwrap();
    let mut calls = 0;
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let names: Vec<&str> = v["all_env"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap())
            .collect();
        assert!(names.contains(&"A2A_KEYS_TEST_HARMLESS"), "{names:?}");
        assert!(
            !names.contains(&secret_var),
            "the plugin was given {secret_var}: {names:?}"
        );
        calls += 1;
    }
    assert_eq!(calls, 2, "publicKey and signMessage");
}
