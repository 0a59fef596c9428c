//! Signing through a sigstore KMS plugin (`--key NAME://KEY-ID`), end to end with a real plugin
//! executable: `crates/a2a-card-testkit/plugins/sigstore-kms-test` speaks the CLI plugin
//! protocol v1 (argument 1 `v1`, argument 2 the JSON request, the message on stdin, one JSON
//! answer on stdout) and signs with the `openssl` command line, ECDSA in ASN.1 DER as KMSs
//! return it. Its `SIGSTORE_KMS_TEST_MODE` makes it misbehave: bad JSON, an `errorMessage`,
//! another key, DER that cannot be a signature of the curve, a hang, a huge answer, nothing,
//! a signal. Every misbehaviour is exit 3 with a stable code, and the card is left as it was.
//!
//! The requests a2a-card sends are checked against the wire format of sigstore's own Go structs
//! (`testvectors/sigstore-kms/protocol-v1.json`, the expected JSON of sigstore's
//! `common/interface_test.go`).

#![allow(clippy::unwrap_used, clippy::panic)] // a panic is how a test fails

mod common;

use a2a_card_testkit::plugin::{
    left_in_group, logged_calls, names, path_with_plugins, test_plugin, MISBEHAVIOURS,
};
use a2a_card_testkit::tools::jose_verifies_entry;
use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

/// Asserts exit `exit`, nothing on stdout and one error line with `code`; returns the line.
#[track_caller]
fn refused(out: &Output, exit: i32, code: &str) -> String {
    expect_code(out, exit, code);
    assert!(
        out.stdout.is_empty(),
        "stdout: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let line = error_line(out);
    assert!(line.starts_with(&format!("error[{code}]: ")), "{line}");
    line
}

/// Extra environment variables of a run.
type Env<'a> = &'a [(&'a str, &'a str)];

/// Runs the binary with the test plugins on PATH, in `dir`, with the extra variables `env`.
fn run_plugin(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let path = path_with_plugins();
    let mut all = vec![("PATH", path.as_str())];
    all.extend_from_slice(env);
    run_in(Some(dir), args, None, &all)
}

/// The plugin reference of a key file: `test://PATH` (the plugin's key id is the file's path).
fn reference(key: &Path) -> String {
    format!("test://{}", key.display())
}

/// `sign CARD --key KEY --unknown exclude` and `extra`.
fn sign_args<'a>(card: &'a Path, key: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["sign", s(card), "--key", key, "--unknown", "exclude"];
    args.extend_from_slice(extra);
    args
}

/// A scratch directory with the A2A v1.0 section 8.5 sample card (`card.json`, which lints
/// clean) and a key made by `keygen --alg ALG` (`k.pem`, `k.jwks.json`).
fn setup(name: &str, alg: &str, extra: &[&str]) -> (PathBuf, PathBuf, PathBuf, PathBuf) {
    test_plugin();
    let dir = scratch(name);
    let card = write(
        &dir,
        "card.json",
        std::fs::read(testvectors_dir().join("cards/sample-8.5-unsigned.json")).unwrap(),
    );
    let (pem, jwks) = keygen(&dir, "k", alg, extra);
    (dir, card, pem, jwks)
}

/// Verifies the first signature of `signed` with `jose jws ver` against the one key of `jwks`.
fn jose_verifies(dir: &Path, signed: &Path, jwks: &Path) {
    let payload = canonical(signed, &[]);
    jose_verifies_entry(dir, &signatures(signed)[0], &payload, &only_jwk(jwks));
}

#[test]
fn every_key_type_signs_through_the_plugin_and_verifies() {
    // (keygen alg, keygen options, sign options, plugin environment)
    let cases: &[(&str, &[&str], &[&str], Env)] = &[
        ("ES256", &[], &[], &[]),
        ("ES384", &[], &["--alg", "ES384"], &[]),
        ("EdDSA", &[], &[], &[]),
        ("RS256", &[], &[], &[]),
        (
            "PS256",
            &[],
            &["--alg", "PS256"],
            &[("SIGSTORE_KMS_TEST_RSA_PADDING", "pss")],
        ),
        // The padding from the plugin's defaultAlgorithm when --alg is not given.
        (
            "PS384",
            &["--rsa-bits", "3072"],
            &[],
            &[
                ("SIGSTORE_KMS_TEST_RSA_PADDING", "pss"),
                ("SIGSTORE_KMS_TEST_DEFAULT_ALG", "rsa-sign-pss-3072-sha384"),
            ],
        ),
        // A plugin that answers ECDSA raw r||s instead of DER is accepted too.
        ("ES256", &[], &[], &[("SIGSTORE_KMS_TEST_MODE", "raw")]),
    ];
    for (i, (alg, keygen_extra, sign_extra, env)) in cases.iter().enumerate() {
        let (dir, card, pem, file_jwks) = setup(&format!("plugin-sign-{i}"), alg, keygen_extra);
        let key = reference(&pem);
        let signed = dir.join("signed.json");
        let mut args = sign_args(&card, &key, &["--out", s(&signed)]);
        args.extend_from_slice(sign_extra);
        let out = run_plugin(&dir, &args, env);
        expect_code(&out, 0, &format!("{alg} through the plugin"));
        assert_eq!(stderr_field(&out, "alg"), *alg, "{alg}");
        // The JWKS of the plugin key is the JWKS of the key file, kid = RFC 7638 thumbprint.
        let jwks = dir.join("plugin.jwks.json");
        let out = run_plugin(&dir, &["jwks", &key, "--alg", alg, "-o", s(&jwks)], &[]);
        expect_code(&out, 0, "jwks through the plugin");
        let jwk = only_jwk(&jwks);
        assert_eq!(jwk["kid"], Value::from(thumbprint(&jwk)), "{alg}: kid");
        assert_eq!(
            protected(&signatures(&signed)[0])["kid"],
            jwk["kid"],
            "{alg}: header kid"
        );
        expect_code(
            &verify(&signed, &jwks, &[]),
            0,
            &format!("{alg}: verify with the plugin's JWKS"),
        );
        expect_code(
            &verify(&signed, &file_jwks, &[]),
            0,
            &format!("{alg}: verify with keygen's JWKS"),
        );
        jose_verifies(&dir, &signed, &jwks);
    }
}

/// Member paths of a JSON value, in order, with the JSON type of each value.
fn shape(v: &Value, at: &str, out: &mut Vec<(String, &'static str)>) {
    let kind = match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    out.push((at.to_string(), kind));
    if let Value::Object(m) = v {
        for (k, v) in m {
            shape(v, &format!("{at}/{k}"), out);
        }
    }
}

fn shape_of(v: &Value) -> Vec<(String, &'static str)> {
    let mut out = Vec::new();
    shape(v, "", &mut out);
    out
}

/// The calls the test plugin logged: (argv, stdin).
fn calls(log: &Path) -> Vec<(Vec<String>, Vec<u8>)> {
    logged_calls(log)
        .iter()
        .map(|v| {
            let argv = names(v, "argv").into_iter().map(String::from).collect();
            (argv, base64_std(v["stdin"].as_str().unwrap()))
        })
        .collect()
}

/// The `methodName` of each call the test plugin logged.
fn methods(log: &Path) -> Vec<String> {
    calls(log)
        .iter()
        .map(|(argv, _)| {
            serde_json::from_str::<Value>(&argv[1]).unwrap()["methodName"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

fn base64_std(s: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.decode(s).unwrap()
}

#[test]
fn requests_have_the_wire_format_of_sigstores_go_structs() {
    let vectors = read_json(testvectors_dir().join("sigstore-kms/protocol-v1.json"));
    assert_eq!(vectors["protocol_version"], "v1");
    for (alg, extra) in [("ES256", &[][..]), ("EdDSA", &[]), ("RS384", &["--alg", "RS384"])] {
        let (dir, card, pem, _) = setup(&format!("plugin-wire-{alg}"), alg, &[]);
        let log = dir.join("calls.log");
        let key = reference(&pem);
        let signed = dir.join("signed.json");
        let mut args = sign_args(&card, &key, &["--kid", "wire", "-o", s(&signed)]);
        args.extend_from_slice(extra);
        // Secrets of other key sources stay with a2a-card: the plugin gets neither the signing-key
        // variable nor the PKCS#11 PIN (only what sigstore's client would give it).
        let out = run_plugin(
            &dir,
            &args,
            &[
                ("SIGSTORE_KMS_TEST_LOG", s(&log)),
                ("A2A_CARD_PKCS11_PIN", "55555-plugin-must-not-see"),
                ("A2A_CARD_SIGNING_KEY", "-----BEGIN PRIVATE KEY-----"),
                ("A2A_CARD_OTHER", "x"),
            ],
        );
        expect_code(&out, 0, alg);
        for line in std::fs::read_to_string(&log).unwrap().lines() {
            assert!(!line.contains("55555-plugin-must-not-see"));
        }
        for call in logged_calls(&log) {
            let env = names(&call, "env");
            assert!(env.contains(&"A2A_CARD_OTHER"), "{alg}: {env:?}");
            for secret in ["A2A_CARD_PKCS11_PIN", "A2A_CARD_SIGNING_KEY"] {
                assert!(!env.contains(&secret), "{alg}: the plugin was given {secret}");
            }
        }
        // The public key first (the kid and the check of the signature need it), then the
        // signature; an RSA key with --alg needs no defaultAlgorithm call.
        assert_eq!(methods(&log), ["publicKey", "signMessage"], "{alg}");
        let calls = calls(&log);
        // The message is the JWS signing input: protected header, '.', payload (RFC 7515 5.1).
        let entry = &signatures(&signed)[0];
        let input = format!(
            "{}.{}",
            entry["protected"].as_str().unwrap(),
            b64url(canonical(&card, &[]))
        );
        let input = input.as_bytes();
        for (argv, stdin) in &calls {
            assert_eq!(
                argv.len(),
                2,
                "argv[1] is the version, argv[2] the request, nothing else"
            );
            assert_eq!(argv[0], "v1", "argv[1] is common.ProtocolVersion");
            let text = &argv[1];
            assert!(
                !text.contains('\n') && !text.contains(": "),
                "compact JSON as json.Marshal writes it: {text}"
            );
            let request: Value = serde_json::from_str(text).unwrap();
            let method = request["methodName"].as_str().unwrap();
            let reference = &vectors["requests"][method];
            let (ours, mut theirs) = (shape_of(&request), shape_of(reference));
            if method == "signMessage" {
                // PackMessageOptions writes hashFunc only with a digest; EdDSA has neither
                // (digest null).
                let pure = alg == "EdDSA";
                theirs.retain(|(p, _)| !(pure && p.ends_with("/messageOptions/hashFunc")));
                for (p, t) in &mut theirs {
                    if pure && p.ends_with("/messageOptions/digest") {
                        *t = "null";
                    }
                }
                // The message on stdin, its digest in messageOptions.
                assert!(
                    stdin == input,
                    "{alg}: the JWS signing input is not what came on stdin"
                );
                let digest = &request["signMessage"]["signOptions"]["messageOptions"]["digest"];
                if pure {
                    assert!(digest.is_null());
                } else {
                    let (h, n) = if alg == "RS384" {
                        (&ring::digest::SHA384, 6)
                    } else {
                        (&ring::digest::SHA256, 5)
                    };
                    assert_eq!(
                        base64_std(digest.as_str().unwrap()),
                        ring::digest::digest(h, input).as_ref()
                    );
                    assert_eq!(
                        request["signMessage"]["signOptions"]["messageOptions"]["hashFunc"],
                        n
                    );
                }
            } else {
                assert!(stdin.is_empty(), "{method}: nothing on stdin");
            }
            assert_eq!(
                ours, theirs,
                "{alg} {method}: members, order and types differ from sigstore's"
            );
            let init = &request["initOptions"];
            assert_eq!(init["protocolVersion"], "v1");
            assert_eq!(
                init["keyResourceID"],
                Value::from(pem.display().to_string()),
                "the text after test://"
            );
            // The deadline is about 30 s ahead (the default --key-timeout), in RFC 3339 UTC.
            let deadline = init["ctxDeadline"].as_str().unwrap();
            assert!(deadline.ends_with('Z') && deadline.len() >= 20, "{deadline}");
            assert_eq!(init["rpcOptions"]["ctxDeadline"], init["ctxDeadline"]);
        }
    }
}

#[test]
fn the_test_plugin_answers_in_sigstores_response_format() {
    let vectors = read_json(testvectors_dir().join("sigstore-kms/protocol-v1.json"));
    let (dir, card, pem, _) = setup("plugin-answers", "ES256", &[]);
    let _ = card;
    let plugin = test_plugin();
    for method in [
        "defaultAlgorithm",
        "supportedAlgorithms",
        "publicKey",
        "signMessage",
    ] {
        let mut request = vectors["requests"][method].clone();
        request["initOptions"]["keyResourceID"] = Value::from(pem.display().to_string());
        request["initOptions"]["hashFunc"] = Value::from(5);
        if method == "signMessage" {
            let digest = ring::digest::digest(&ring::digest::SHA256, b"message");
            use base64::Engine as _;
            request["signMessage"]["signOptions"]["messageOptions"] = serde_json::json!({
                "digest": base64::engine::general_purpose::STANDARD.encode(digest), "hashFunc": 5
            });
        }
        let out = a2a_card_testkit::bin::run(
            &plugin,
            Some(&dir),
            &["v1", &request.to_string()],
            Some(b"message"),
            &[],
            &[],
        );
        let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut theirs = vectors["responses"][method].clone();
        theirs.as_object_mut().unwrap().remove("errorMessage");
        assert_eq!(shape_of(&answer), shape_of(&theirs), "{method}: {answer}");
    }
}

#[test]
fn a_misbehaving_plugin_is_exit_3_and_the_card_untouched() {
    for (i, (mode, code, words)) in MISBEHAVIOURS.iter().enumerate() {
        let (dir, card, pem, _) = setup(&format!("plugin-bad-{i}"), "ES256", &[]);
        let (other, _) = keygen(&dir, "other", "ES256", &[]);
        let before = std::fs::read(&card).unwrap();
        let key = reference(&pem);
        for place in [&["--in-place"][..], &["--out", "signed.json"]] {
            let out = run_plugin(
                &dir,
                &sign_args(&card, &key, place),
                &[
                    ("SIGSTORE_KMS_TEST_MODE", mode),
                    ("SIGSTORE_KMS_TEST_OTHER_KEY", s(&other)),
                ],
            );
            let line = refused(&out, 3, code);
            assert_mentions(&line, words);
            assert!(
                line.ends_with(&format!("({key})")),
                "{mode}: the line names the reference: {line}"
            );
            assert_eq!(std::fs::read(&card).unwrap(), before, "{mode}: the card changed");
            assert_eq!(
                listing(&dir),
                [
                    "card.json",
                    "k.jwks.json",
                    "k.pem",
                    "other.jwks.json",
                    "other.pem"
                ],
                "{mode}: a file was left behind"
            );
        }
    }
}

#[test]
fn a_plugin_that_hangs_is_killed_at_the_key_timeout() {
    for mode in ["hang", "publicKey:hang"] {
        let (dir, card, pem, _) = setup(&format!("plugin-hang-{}", mode.len()), "ES256", &[]);
        let before = std::fs::read(&card).unwrap();
        let key = reference(&pem);
        let start = Instant::now();
        let out = run_plugin(
            &dir,
            &sign_args(&card, &key, &["--in-place", "--key-timeout", "1.5"]),
            &[("SIGSTORE_KMS_TEST_MODE", mode)],
        );
        let took = start.elapsed();
        refused(&out, 3, "timeout");
        assert_mentions(
            &error_line(&out),
            &["did not answer", "within 1.5 s", "--key-timeout", "stopped"],
        );
        // The plugin's child (a `sleep 30` holding stdout) was stopped with it: the run ends
        // soon after the deadline, not when the sleep would.
        assert!(took < Duration::from_secs(15), "{mode}: took {took:?}");
        assert!(
            took >= Duration::from_millis(1400),
            "{mode}: returned before the deadline ({took:?})"
        );
        assert_eq!(std::fs::read(&card).unwrap(), before);
    }
}

#[test]
fn plugin_stderr_is_passed_through_and_its_exit_status_ignored() {
    let (dir, card, pem, jwks) = setup("plugin-chatty", "ES256", &[]);
    let key = reference(&pem);
    let signed = dir.join("signed.json");
    let sign_in_mode = |mode: &str| {
        let args = sign_args(&card, &key, &["--out", s(&signed), "--force"]);
        run_plugin(&dir, &args, &[("SIGSTORE_KMS_TEST_MODE", mode)])
    };
    let out = sign_in_mode("chatty");
    expect_code(&out, 0, "chatty plugin");
    assert!(
        stderr(&out).contains("sigstore-kms-test: debug line for signMessage\n"),
        "{}",
        stderr(&out)
    );
    expect_code(&verify(&signed, &jwks, &[]), 0, "verify");
    // sigstore's client ignores the exit status; an answer is an answer.
    let out = sign_in_mode("exit-nonzero");
    expect_code(&out, 0, "exit 7 after a good answer");
    expect_code(&verify(&signed, &jwks, &[]), 0, "verify");
}

#[test]
fn plugin_reference_errors_are_clear() {
    let (dir, card, _pem, _) = setup("plugin-refs", "ES256", &[]);
    // No such plugin on the PATH.
    let out = run_plugin(&dir, &sign_args(&card, "nosuchkms://k1", &[]), &[]);
    refused(&out, 3, "key-unavailable");
    assert_mentions(
        &error_line(&out),
        &["sigstore-kms-nosuchkms", "PATH", "(nosuchkms://k1)"],
    );
    // A key the plugin cannot read: its errorMessage is shown.
    let out = run_plugin(&dir, &sign_args(&card, "test:///no/such/key.pem", &[]), &[]);
    refused(&out, 3, "external-signer-failed");
    assert_mentions(&error_line(&out), &["publicKey", "(test:///no/such/key.pem)"]);
    // --key-timeout out of range, or without a plugin key.
    for t in ["0", "-1", "3601", "soon"] {
        let flag = format!("--key-timeout={t}");
        let out = run_plugin(&dir, &["sign", s(&card), "--key", "test:///x", &flag], &[]);
        expect_code(&out, 2, t);
        assert!(
            stderr(&out).starts_with("error[usage]: ") && stderr(&out).contains("--key-timeout"),
            "{}",
            stderr(&out)
        );
    }
    let (pem, _) = keygen(&dir, "file", "ES256", &[]);
    let out = run_plugin(
        &dir,
        &["sign", s(&card), "--key", s(&pem), "--key-timeout", "5"],
        &[],
    );
    refused(&out, 2, "usage");
    assert_mentions(
        &error_line(&out),
        &["--key-timeout applies only to a KMS plugin key"],
    );
}

#[test]
fn env_references_name_the_variable() {
    let (dir, card, pem, jwks) = setup("env-refs", "ES256", &[]);
    let pem_text = std::fs::read_to_string(&pem).unwrap();
    let signed = dir.join("signed.json");
    let out = run_in(
        Some(&dir),
        &sign_args(&card, "env://RELEASE_KEY", &["-o", s(&signed)]),
        None,
        &[("RELEASE_KEY", &pem_text)],
    );
    expect_code(&out, 0, "env://");
    expect_code(&verify(&signed, &jwks, &[]), 0, "verify");
    let out = run_in(
        Some(&dir),
        &["jwks", "env://RELEASE_KEY"],
        None,
        &[("RELEASE_KEY", &pem_text)],
    );
    expect_code(&out, 0, "jwks env://");
    let (ours, keygens) = (&json_out(&out)["keys"][0], only_jwk(&jwks));
    for member in ["kty", "crv", "x", "y", "kid"] {
        assert_eq!(ours[member], keygens[member], "{member}");
    }
    let cases: &[(Env, &str, &str)] = &[
        (
            &[],
            "invalid-key",
            "the environment variable RELEASE_KEY is not set",
        ),
        (
            &[("RELEASE_KEY", "")],
            "invalid-key",
            "the environment variable RELEASE_KEY is empty",
        ),
        (
            &[("RELEASE_KEY", "  \n")],
            "invalid-key",
            "the environment variable RELEASE_KEY is empty",
        ),
        (&[("RELEASE_KEY", "garbage")], "invalid-key", "no PEM block"),
    ];
    for (env, code, words) in cases {
        for cmd in [
            &["sign", s(&card), "--key", "env://RELEASE_KEY", "--in-place"][..],
            &["jwks", "env://RELEASE_KEY"],
        ] {
            let out = run_in(Some(&dir), cmd, None, env);
            let line = refused(&out, 3, code);
            assert_mentions(&line, &[words, "(env://RELEASE_KEY)"]);
        }
    }
    for bad in ["env://", "env://A=B"] {
        let out = run_in(Some(&dir), &["sign", s(&card), "--key", bad], None, &[]);
        refused(&out, 2, "usage");
        assert_mentions(&error_line(&out), &["env://"]);
    }
}

#[test]
fn a_card_that_lints_with_errors_is_refused_before_the_plugin_signs() {
    let (dir, _, pem, _) = setup("plugin-lint", "ES256", &[]);
    let broken = write(
        &dir,
        "broken.json",
        r#"{"name":"A","description":"d","version":"1","skills":[]}"#,
    );
    let log = dir.join("calls.log");
    let key = reference(&pem);
    let out = run_plugin(
        &dir,
        &["sign", s(&broken), "--key", &key, "--in-place"],
        &[("SIGSTORE_KMS_TEST_LOG", s(&log))],
    );
    refused(&out, 2, "lint-failed");
    assert_eq!(methods(&log), ["publicKey"], "nothing was signed");
}

#[test]
fn a_plugin_child_holding_stdin_does_not_stretch_the_key_timeout() {
    // A card far above a pipe's 64 KiB: the message fills the pipe that only the plugin's child
    // (a `sleep 60` that never reads) holds, after the plugin has answered and exited.
    let (dir, _, pem, jwks) = setup("plugin-stdin-child", "ES256", &[]);
    let mut card: Value = read_json(testvectors_dir().join("cards/sample-8.5-unsigned.json"));
    card["description"] = Value::from("a long description. ".repeat(8 * 1024));
    let card = write(&dir, "big.json", serde_json::to_vec_pretty(&card).unwrap());
    assert!(std::fs::metadata(&card).unwrap().len() > 150 * 1024);
    let pgid_file = dir.join("pgid");
    let signed = dir.join("signed.json");
    let key = reference(&pem);
    let start = Instant::now();
    let out = run_plugin(
        &dir,
        &sign_args(&card, &key, &["--key-timeout", "2", "-o", s(&signed)]),
        &[
            ("SIGSTORE_KMS_TEST_MODE", "stdin-child"),
            ("SIGSTORE_KMS_TEST_PGID_FILE", s(&pgid_file)),
        ],
    );
    let took = start.elapsed();
    assert!(
        took < Duration::from_secs(5),
        "sign --key-timeout 2 took {took:?}: {}",
        stderr(&out)
    );
    // The plugin answered a good signature of the digest: the card is signed.
    expect_code(&out, 0, "stdin-child");
    expect_code(&verify(&signed, &jwks, &[]), 0, "verify");
    let left = left_in_group(&pgid_file);
    assert!(left.is_empty(), "left running in the plugin's group: {left:?}");
}

#[test]
fn no_plugin_inherits_an_env_variable_a_key_is_read_from() {
    // `jwks` opens its keys in order: the plugin key first, then env://RELEASE_KEY; the plugin
    // must not be given RELEASE_KEY all the same, nor the variables of other sources.
    let (dir, _, pem, _) = setup("plugin-env-withheld", "ES256", &[]);
    let log = dir.join("calls.log");
    let key = reference(&pem);
    let pem_text = std::fs::read_to_string(&pem).unwrap();
    let out = run_plugin(
        &dir,
        &["jwks", &key, "env://RELEASE_KEY"],
        &[
            ("SIGSTORE_KMS_TEST_LOG", s(&log)),
            ("RELEASE_KEY", &pem_text),
            ("HARMLESS_SETTING", "1"),
        ],
    );
    expect_code(&out, 0, "jwks plugin env://");
    let calls = logged_calls(&log);
    assert!(!calls.is_empty());
    for call in &calls {
        let names = names(call, "all_env");
        assert!(names.contains(&"HARMLESS_SETTING"), "{names:?}");
        assert!(
            !names.contains(&"RELEASE_KEY"),
            "the plugin was given RELEASE_KEY"
        );
    }
}

#[test]
fn a_plugin_only_in_a_relative_path_entry_is_not_run() {
    let (dir, card, pem, _) = setup("plugin-relative", "ES256", &[]);
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    let plugin = test_plugin();
    std::os::unix::fs::symlink(&plugin, dir.join("bin/sigstore-kms-test")).unwrap();
    std::os::unix::fs::symlink(&plugin, dir.join("sigstore-kms-test")).unwrap();
    let system = std::env::var("PATH").unwrap_or_default();
    let key = reference(&pem);
    let before = std::fs::read(&card).unwrap();
    for (path, shown) in [
        (format!("bin:{system}"), "\"bin\""),
        (format!(".:{system}"), "\".\""),
        (format!(":{system}"), "\".\""),
    ] {
        let out = run_in(
            Some(&dir),
            &sign_args(&card, &key, &["--in-place"]),
            None,
            &[("PATH", &path)],
        );
        let line = refused(&out, 3, "key-unavailable");
        assert_mentions(&line, &["sigstore-kms-test", "relative PATH entry", shown]);
        assert_eq!(std::fs::read(&card).unwrap(), before);
    }
}
