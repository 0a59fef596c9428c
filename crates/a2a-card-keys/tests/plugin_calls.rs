//! The KMS plugin path of the library against the real test plugin (`sigstore-kms-test`, run
//! through a small shell wrapper that sets its environment): `publicKey` answers the key of the
//! file the plugin signs with, `signMessage` signs cards of every key type that verify with that
//! file's public key, `defaultAlgorithm` picks the RSA padding, and every way a plugin can
//! misbehave (bad JSON, an `errorMessage`, another key's signature, an impossible DER
//! signature, too much output, none, a killed plugin, a bad PEM public key, a hang) is an error
//! of the documented code, never a signature used.

#![allow(clippy::unwrap_used, clippy::panic)] // a panic is how a test fails

mod common;

use a2a_card::{sign_card, Algorithm, Signer};
use a2a_card_keys::{PluginKey, SigningKey};
use a2a_card_testkit::data::scratch;
use a2a_card_testkit::plugin::{wrapper, MISBEHAVIOURS};
use common::{card, key_file, sign_and_verify, sign_opts};
use std::path::Path;
use std::time::{Duration, Instant};

fn open_at(
    plugin: &Path,
    key: &Path,
    alg: Option<Algorithm>,
    timeout: Duration,
) -> Result<PluginKey, a2a_card::Error> {
    PluginKey::open_at(plugin, key.to_str().unwrap(), alg, timeout)
}

/// Variables set for the plugin.
type Env = &'static [(&'static str, &'static str)];

#[test]
fn every_key_type_signs_through_the_plugin_with_the_files_public_key() {
    // (key alg, alg asked for, plugin environment, alg expected)
    let cases: &[(Algorithm, Option<Algorithm>, Env, Algorithm)] = &[
        (Algorithm::ES256, None, &[], Algorithm::ES256),
        (Algorithm::ES384, Some(Algorithm::ES384), &[], Algorithm::ES384),
        (Algorithm::EdDSA, None, &[], Algorithm::EdDSA),
        (Algorithm::RS256, None, &[], Algorithm::RS256),
        (Algorithm::RS512, Some(Algorithm::RS512), &[], Algorithm::RS512),
        (
            Algorithm::PS256,
            Some(Algorithm::PS256),
            &[("SIGSTORE_KMS_TEST_RSA_PADDING", "pss")],
            Algorithm::PS256,
        ),
        // No algorithm asked: the plugin's defaultAlgorithm says PSS.
        (
            Algorithm::PS256,
            None,
            &[
                ("SIGSTORE_KMS_TEST_RSA_PADDING", "pss"),
                ("SIGSTORE_KMS_TEST_DEFAULT_ALG", "rsa-sign-pss-2048-sha256"),
            ],
            Algorithm::PS256,
        ),
        // ECDSA answered as raw r||s instead of DER is accepted too.
        (
            Algorithm::ES256,
            None,
            &[("SIGSTORE_KMS_TEST_MODE", "raw")],
            Algorithm::ES256,
        ),
    ];
    for (i, (key_alg, asked, env, expected)) in cases.iter().enumerate() {
        let dir = scratch(&format!("keys-plugin-type-{i}"));
        let (pem, file_key) = key_file(&dir, "k", *key_alg);
        let plugin = wrapper(&dir, env);
        let key = SigningKey::Plugin(open_at(&plugin, &pem, *asked, Duration::from_secs(30)).unwrap());
        assert!(key.is_external() && key.local_key().is_none());
        // publicKey: the file's public key.
        assert_eq!(
            key.public_key().thumbprint(),
            file_key.public().thumbprint(),
            "case {i}: the plugin's public key"
        );
        if asked.is_none() {
            assert_eq!(key.default_algorithm(), *expected, "case {i}");
        }
        let signed = sign_and_verify(&key, file_key.public(), *asked);
        assert_eq!(signed.alg, *expected, "case {i}");
    }
}

#[test]
fn a_misbehaving_plugin_is_an_error_and_no_signature() {
    for (i, (mode, code, words)) in MISBEHAVIOURS.iter().enumerate() {
        let dir = scratch(&format!("keys-plugin-bad-{i}"));
        let (pem, _) = key_file(&dir, "k", Algorithm::ES256);
        let (other, _) = key_file(&dir, "other", Algorithm::ES256);
        let plugin = wrapper(
            &dir,
            &[
                ("SIGSTORE_KMS_TEST_MODE", mode),
                ("SIGSTORE_KMS_TEST_OTHER_KEY", other.to_str().unwrap()),
            ],
        );
        // A publicKey misbehaviour fails the opening, a signMessage one the signing.
        let e = match open_at(&plugin, &pem, None, Duration::from_secs(30)) {
            Err(e) => {
                assert!(mode.starts_with("publicKey:"), "{mode}: opening failed: {e}");
                e
            }
            Ok(key) => {
                assert!(!mode.starts_with("publicKey:"), "{mode}: opened");
                sign_card(&card(), &SigningKey::Plugin(key), &sign_opts(None)).unwrap_err()
            }
        };
        assert_eq!(e.code().as_str(), *code, "{mode}: {e}");
        for w in *words {
            assert!(e.message().contains(w), "{mode}: {e} lacks {w:?}");
        }
    }
    // Chatter on stderr and a non-zero exit after a good answer are not failures.
    for mode in ["chatty", "exit-nonzero"] {
        let dir = scratch(&format!("keys-plugin-fine-{mode}"));
        let (pem, _) = key_file(&dir, "k", Algorithm::ES256);
        let plugin = wrapper(&dir, &[("SIGSTORE_KMS_TEST_MODE", mode)]);
        let key = open_at(&plugin, &pem, None, Duration::from_secs(30)).unwrap();
        sign_card(&card(), &SigningKey::Plugin(key), &sign_opts(None)).unwrap();
    }
}

#[test]
fn a_plugin_that_hangs_is_stopped_at_the_deadline() {
    for mode in ["hang", "publicKey:hang"] {
        let dir = scratch(&format!("keys-plugin-hang-{}", mode.len()));
        let (pem, _) = key_file(&dir, "k", Algorithm::ES256);
        let plugin = wrapper(&dir, &[("SIGSTORE_KMS_TEST_MODE", mode)]);
        let deadline = Duration::from_millis(1500);
        let start = Instant::now();
        let e = match open_at(&plugin, &pem, None, deadline) {
            Err(e) => e,
            Ok(key) => sign_card(&card(), &SigningKey::Plugin(key), &sign_opts(None)).unwrap_err(),
        };
        let took = start.elapsed();
        assert_eq!(e.code().as_str(), "timeout", "{mode}: {e}");
        assert!(e.message().contains("did not answer"), "{mode}: {e}");
        // The plugin's child (a `sleep 30` holding stdout) was stopped with it.
        assert!(took < Duration::from_secs(15), "{mode}: took {took:?}");
        assert!(took >= Duration::from_millis(1400), "{mode}: {took:?}");
    }
}

#[test]
fn an_algorithm_the_key_does_not_fit_is_refused_before_the_plugin_runs() {
    let dir = scratch("keys-plugin-mismatch");
    let (pem, _) = key_file(&dir, "k", Algorithm::ES256);
    let log = dir.join("calls.log");
    let plugin = wrapper(&dir, &[("SIGSTORE_KMS_TEST_LOG", log.to_str().unwrap())]);
    let key = open_at(&plugin, &pem, None, Duration::from_secs(30)).unwrap();
    let calls = || std::fs::read_to_string(&log).unwrap_or_default().lines().count();
    let opened = calls();
    for alg in [
        Algorithm::RS256,
        Algorithm::ES384,
        Algorithm::EdDSA,
        Algorithm::PS256,
    ] {
        let e = key.sign(alg, b"signing input").unwrap_err();
        assert_eq!(e.code().as_str(), "key-algorithm-mismatch", "{alg}: {e}");
    }
    assert_eq!(
        calls(),
        opened,
        "the plugin was run for an algorithm its key does not fit"
    );
    assert_eq!(key.sign(Algorithm::ES256, b"signing input").unwrap().len(), 64);
    assert_eq!(calls(), opened + 1);
}
