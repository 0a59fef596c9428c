//! Runs of a KMS plugin against the real test plugin (`sigstore-kms-test`), through a small
//! shell wrapper that sets its mode: every wait on a plugin is bounded by the deadline and its
//! process group is ended on every path, and no plugin inherits a variable a secret was read
//! from.

#![allow(clippy::unwrap_used, clippy::panic)] // a panic is how a test fails

mod common;

use a2a_card::{Algorithm, PrivateKey, Signer};
use a2a_card_keys::{open, KeyOptions, KeyRef, PluginKey};
use a2a_card_testkit::data::scratch;
use a2a_card_testkit::plugin::{left_in_group, logged_calls, names, running_in_group, wrapper};
use common::key_file;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A key file of `alg` in `dir` and the test plugin run with `SIGSTORE_KMS_TEST_MODE=stdin-child`
/// (it answers, but leaves a child that holds its stdin and sleeps 60 s), which writes its
/// process group to `dir/pgid`: (key file, plugin, pgid file).
fn stdin_child(dir: &Path, alg: Algorithm) -> (PathBuf, PathBuf, PathBuf) {
    let (key, _) = key_file(dir, "k", alg);
    let pgid_file = dir.join("pgid");
    let plugin = wrapper(
        dir,
        &[
            ("SIGSTORE_KMS_TEST_MODE", "stdin-child"),
            ("SIGSTORE_KMS_TEST_PGID_FILE", pgid_file.to_str().unwrap()),
        ],
    );
    (key, plugin, pgid_file)
}

#[test]
fn a_child_holding_the_plugins_stdin_does_not_outlive_the_deadline() {
    let dir = scratch("plugin-stdin-child");
    let (key, plugin, pgid_file) = stdin_child(&dir, Algorithm::ES256);
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
    let left = left_in_group(&pgid_file);
    assert!(left.is_empty(), "left running in the plugin's group: {left:?}");
}

#[test]
fn a_plugin_that_answers_leaves_nothing_running() {
    // Even a well-behaved answer ends the group: a child the plugin started is not left behind.
    let dir = scratch("plugin-group-ok");
    let (key, plugin, pgid_file) = stdin_child(&dir, Algorithm::ES256);
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
    let (key, _) = key_file(&dir, "k", Algorithm::ES256);
    let plugin = wrapper(&dir, &[("SIGSTORE_KMS_TEST_LOG", log.to_str().unwrap())]);
    let signer = PluginKey::open_at(&plugin, key.to_str().unwrap(), None, Duration::from_secs(30)).unwrap();
    signer.sign(Algorithm::ES256, b"message").unwrap();
    let mut calls = 0;
    for call in logged_calls(&log) {
        let names = names(&call, "all_env");
        assert!(names.contains(&"A2A_KEYS_TEST_HARMLESS"), "{names:?}");
        assert!(
            !names.contains(&secret_var),
            "the plugin was given {secret_var}: {names:?}"
        );
        calls += 1;
    }
    assert_eq!(calls, 2, "publicKey and signMessage");
}
