//! Signing with keys in a PKCS#11 token (`--key pkcs11:...`, RFC 7512), end to end with a real
//! token: SoftHSM2 with its own configuration in each test's scratch directory
//! (`SOFTHSM2_CONF`), keys made by OpenSC's `pkcs11-tool`, imported by `softhsm2-util` and made
//! by `a2a-card keygen --key pkcs11:`. Every mechanism signs a card that `a2a-card verify` and
//! José (`jose jws ver`) accept; the corpus cards re-signed through the token are the cards a
//! key file signs, byte for byte (Ed25519 is deterministic). Every error names the URI with its
//! PIN redacted, and no output of any command holds the PIN.
//!
//! Outside CI a missing SoftHSM2 or OpenSC is a note and the test is skipped; with `CI` set it
//! is a failure (`scripts/setup.sh` installs both).

#![allow(clippy::unwrap_used, clippy::panic)] // a panic is how a test fails

mod common;

use a2a_card_testkit::softhsm::{self, Token};
use a2a_card_testkit::tools::jose_verifies_entry;
use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

/// The user PIN of every test token: distinctive, so that a leak anywhere is found.
const PIN: &str = "73915-0rbit";

/// A scratch directory with a fresh token labelled `ci` and the A2A v1.0 section 8.5 sample
/// card (`card.json`), or None when SoftHSM2 or OpenSC is missing outside CI.
fn setup(name: &str) -> Option<(PathBuf, Token, PathBuf)> {
    if !softhsm::available() {
        return None;
    }
    let dir = scratch(name);
    let token = Token::new(&dir, "ci", PIN);
    let card = write(
        &dir,
        "card.json",
        std::fs::read(testvectors_dir().join("cards/sample-8.5-unsigned.json")).unwrap(),
    );
    Some((dir, token, card))
}

/// Runs the binary with the token's environment plus `env`, and checks that neither stdout nor
/// stderr holds the PIN.
#[track_caller]
fn run_token(token: &Token, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let conf = token.conf.display().to_string();
    let mut all = vec![("SOFTHSM2_CONF", conf.as_str())];
    all.extend_from_slice(env);
    let out = run_in(Some(dir), args, None, &all);
    for (what, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        assert!(
            !String::from_utf8_lossy(bytes).contains(PIN),
            "the PIN is on {what} of {args:?}: {}",
            String::from_utf8_lossy(bytes)
        );
    }
    out
}

/// A reference, its flags and its environment.
type SourceCase<'a> = (String, Vec<&'a str>, Vec<(&'a str, &'a str)>);

/// A reference, the exit code, the error code, the flags and the words of the message.
type ErrorCase<'a> = (String, i32, &'a str, Vec<String>, Vec<&'a str>);

/// The URI of `object` with the PIN redacted, as errors show it.
fn shown(token: &Token, object: &str) -> String {
    token.uri(object).replace(PIN, "***")
}

/// Signs `card` through `uri` (plus `extra`) into `signed`, prints the key's JWKS into `jwks`
/// (with `--alg` when given) and checks the signature with `a2a-card verify` and José. Returns
/// the public JWK.
#[track_caller]
fn sign_and_check(token: &Token, dir: &Path, card: &Path, uri: &str, alg: &str, extra: &[&str]) -> Value {
    let signed = dir.join(format!("signed-{alg}.json"));
    let jwks = dir.join(format!("token-{alg}.jwks.json"));
    let mut args = vec![
        "sign",
        s(card),
        "--key",
        uri,
        "--unknown",
        "exclude",
        "--out",
        s(&signed),
        "--force",
    ];
    args.extend_from_slice(extra);
    let out = run_token(token, dir, &args, &[]);
    expect_code(&out, 0, &format!("sign {alg} through the token"));
    assert_eq!(stderr_field(&out, "alg"), alg);
    let out = run_token(
        token,
        dir,
        &["jwks", uri, "--alg", alg, "-o", s(&jwks), "--force"],
        &[],
    );
    expect_code(&out, 0, &format!("jwks {alg} of the token key"));
    let jwk = only_jwk(&jwks);
    assert_eq!(
        jwk["kid"],
        Value::from(thumbprint(&jwk)),
        "{alg}: the kid is the RFC 7638 thumbprint"
    );
    let entry = &signatures(&signed)[0];
    assert_eq!(protected(entry)["kid"], jwk["kid"], "{alg}");
    assert_eq!(protected(entry)["alg"], alg, "{alg}");
    expect_code(
        &verify(&signed, &jwks, &[]),
        0,
        &format!("{alg}: a2a-card verify"),
    );
    jose_verifies_entry(dir, entry, &canonical(&signed, &[]), &jwk);
    jwk
}

#[test]
fn every_mechanism_signs_through_softhsm_and_verifies() {
    let Some((dir, token, card)) = setup("pkcs11-mechanisms") else {
        return;
    };
    token.keypairgen("EC:prime256v1", "p256", "01");
    token.keypairgen("EC:secp384r1", "p384", "02");
    token.keypairgen("EC:edwards25519", "ed25519", "03");
    token.keypairgen("rsa:2048", "rsa", "04");
    // (object, alg, sign options): CKM_ECDSA on a digest made here, CKM_EDDSA, and the RSA
    // mechanisms with their hash (CKM_SHA*_RSA_PKCS, CKM_SHA*_RSA_PKCS_PSS).
    let cases: &[(&str, &str, &[&str])] = &[
        ("p256", "ES256", &[]),
        ("p384", "ES384", &[]),
        ("ed25519", "EdDSA", &[]),
        ("rsa", "RS256", &[]),
        ("rsa", "RS384", &["--alg", "RS384"]),
        ("rsa", "RS512", &["--alg", "RS512"]),
        ("rsa", "PS256", &["--alg", "PS256"]),
        ("rsa", "PS384", &["--alg", "PS384"]),
        ("rsa", "PS512", &["--alg", "PS512"]),
    ];
    for (object, alg, extra) in cases {
        sign_and_check(&token, &dir, &card, &token.uri(object), alg, extra);
    }
    // The object named by its id instead of its label.
    let by_id = token.uri("x").replace(";object=x", ";id=%02");
    sign_and_check(&token, &dir, &card, &by_id, "ES384", &[]);
}

#[test]
fn keys_imported_with_the_tokens_own_tool_are_the_file_keys() {
    let Some((dir, token, card)) = setup("pkcs11-import") else {
        return;
    };
    for (alg, object, id) in [
        ("ES256", "imp-p256", "11"),
        ("EdDSA", "imp-ed", "12"),
        ("RS256", "imp-rsa", "13"),
    ] {
        let (pem, file_jwks) = keygen(&dir, object, alg, &[]);
        token.import(&pem, object, id);
        let jwk = sign_and_check(&token, &dir, &card, &token.uri(object), alg, &[]);
        let file = only_jwk(&file_jwks);
        for member in ["kty", "crv", "x", "y", "n", "e", "kid"] {
            assert_eq!(
                jwk[member], file[member],
                "{alg}: {member} of the token key and the file key"
            );
        }
    }
}

#[test]
fn keygen_makes_a_non_extractable_key_pair_in_the_token() {
    let Some((dir, token, card)) = setup("pkcs11-keygen") else {
        return;
    };
    for (alg, object, extra) in [
        ("ES256", "kg-es256", &[][..]),
        ("ES384", "kg-es384", &[]),
        ("EdDSA", "kg-ed", &[]),
        ("PS256", "kg-rsa", &["--rsa-bits", "2048"]),
    ] {
        let uri = token.uri(object);
        let jwks = dir.join(format!("{object}.jwks.json"));
        let mut args = vec!["keygen", "--alg", alg, "--key", &uri, "--jwks", s(&jwks)];
        args.extend_from_slice(extra);
        let out = run_token(&token, &dir, &args, &[]);
        expect_code(&out, 0, &format!("keygen {alg} in the token"));
        let jwk = only_jwk(&jwks);
        assert_eq!(jwk["alg"], alg);
        assert_eq!(
            stderr_field(&out, "kid"),
            format!("\"{}\"", jwk["kid"].as_str().unwrap())
        );
        assert!(stderr_field(&out, "key").contains("made in the token, not extractable"));
        let signed = dir.join(format!("{object}.signed.json"));
        let mut sign = vec![
            "sign",
            s(&card),
            "--key",
            &uri,
            "--unknown",
            "exclude",
            "-o",
            s(&signed),
        ];
        if alg == "PS256" {
            sign.extend(["--alg", "PS256"]);
        }
        expect_code(
            &run_token(&token, &dir, &sign, &[]),
            0,
            &format!("sign with the {alg} key made by keygen"),
        );
        expect_code(
            &verify(&signed, &jwks, &[]),
            0,
            &format!("verify {alg} against keygen's JWKS"),
        );
        jose_verifies_entry(&dir, &signatures(&signed)[0], &canonical(&signed, &[]), &jwk);
        // The same object again is refused: keys are never replaced.
        let out = run_token(&token, &dir, &["keygen", "--alg", alg, "--key", &uri], &[]);
        expect_code(&out, 2, "keygen over an existing key");
        assert!(error_line(&out).ends_with(&format!("({})", shown(&token, object))));
    }
    // The token says the private keys are sensitive and were never extractable.
    let listing =
        String::from_utf8(token.pkcs11_tool(&["--list-objects", "--type", "privkey"]).stdout).unwrap();
    for object in ["kg-es256", "kg-es384", "kg-ed", "kg-rsa"] {
        let block = listing
            .split("Private Key Object")
            .find(|b| b.contains(&format!("label:      {object}\n")))
            .unwrap_or_else(|| panic!("{object} is not in the token:\n{listing}"));
        assert!(
            block.contains("never extractable") && block.contains("sensitive"),
            "{object}: {block}"
        );
    }
}

#[test]
fn corpus_cards_resigned_through_the_token_are_the_file_signed_cards() {
    let Some(corpora) = corpus_dir() else { return };
    let Some((dir, token, _)) = setup("pkcs11-corpus") else {
        return;
    };
    let (pem, jwks) = keygen(&dir, "ed", "EdDSA", &[]);
    token.import(&pem, "ed", "21");
    let uri = token.uri("ed");
    let mut signed_cards = 0;
    for file in a2a_card_testkit::data::card_sign_vector_files(&corpora) {
        let v = read_json(&file);
        let Some(served) = v.get("served_card") else {
            continue;
        };
        let mut served = served.clone();
        served.as_object_mut().unwrap().remove("signatures");
        let card = write(&dir, "served.json", serde_json::to_vec_pretty(&served).unwrap());
        for profile in ["spec", "prune-empty", "served-as-is"] {
            let args = |key: &str, out: &Path| {
                [
                    "sign",
                    s(&card),
                    "--key",
                    key,
                    "--profile",
                    profile,
                    "--unknown",
                    "retain",
                    "--lint",
                    "off",
                    "-o",
                    s(out),
                    "--force",
                ]
                .map(str::to_string)
            };
            let (by_file, by_token) = (dir.join("by-file.json"), dir.join("by-token.json"));
            let file_args = args(s(&pem), &by_file);
            let file_out = run_token(
                &token,
                &dir,
                &file_args.iter().map(String::as_str).collect::<Vec<_>>(),
                &[],
            );
            let token_args = args(&uri, &by_token);
            let token_out = run_token(
                &token,
                &dir,
                &token_args.iter().map(String::as_str).collect::<Vec<_>>(),
                &[],
            );
            let id = format!("{} {profile}", file_name(&file));
            assert_eq!(
                token_out.status.code(),
                file_out.status.code(),
                "{id}: {}",
                stderr(&token_out)
            );
            if file_out.status.success() {
                assert!(
                    std::fs::read(&by_token).unwrap() == std::fs::read(&by_file).unwrap(),
                    "{id}: the token signed other bytes than the key file"
                );
                expect_code(
                    &verify(&by_token, &jwks, &["--profile", profile, "--unknown", "retain"]),
                    0,
                    &id,
                );
                signed_cards += 1;
            }
        }
    }
    assert!(signed_cards >= 30, "only {signed_cards} corpus cards signed");
}

#[test]
fn pins_and_modules_come_from_the_uri_a_file_a_flag_or_the_environment() {
    let Some((dir, token, card)) = setup("pkcs11-sources") else {
        return;
    };
    token.keypairgen("EC:prime256v1", "k", "01");
    let module = token.module.display().to_string();
    let bare = "pkcs11:token=ci;object=k".to_string();
    let pin_file = write(&dir, "pin.txt", format!("{PIN}\n"));
    let with_file = format!(
        "{bare}?pin-source=file:{}&module-path={module}",
        pin_file.display()
    );
    let with_path = format!("{bare}?pin-source={}&module-path={module}", pin_file.display());
    let pin_only = format!("{bare}?pin-value={PIN}");
    let cases: Vec<SourceCase> = vec![
        (with_file, vec![], vec![]),
        (with_path, vec![], vec![]),
        (pin_only.clone(), vec!["--pkcs11-module", &module], vec![]),
        (pin_only, vec![], vec![("A2A_CARD_PKCS11_MODULE", &module)]),
        (
            bare.clone(),
            vec!["--pkcs11-module", &module],
            vec![("A2A_CARD_PKCS11_PIN", PIN)],
        ),
    ];
    for (i, (uri, flags, env)) in cases.iter().enumerate() {
        let signed = dir.join(format!("signed-{i}.json"));
        let mut args = vec![
            "sign",
            s(&card),
            "--key",
            uri,
            "--unknown",
            "exclude",
            "-o",
            s(&signed),
        ];
        args.extend(flags.iter().copied());
        let out = run_token(&token, &dir, &args, env);
        expect_code(&out, 0, uri);
        let mut jwks_args = vec!["jwks", uri.as_str()];
        jwks_args.extend(flags.iter().copied());
        let out = run_token(&token, &dir, &jwks_args, env);
        expect_code(&out, 0, uri);
        let jwks = write(&dir, "k.jwks.json", &out.stdout);
        expect_code(&verify(&signed, &jwks, &[]), 0, uri);
    }
    // The module named twice, differently, is refused.
    let uri = token.uri("k");
    let out = run_token(
        &token,
        &dir,
        &["sign", s(&card), "--key", &uri, "--pkcs11-module", "/other.so"],
        &[],
    );
    expect_code(&out, 2, "two modules");
    assert_mentions(&error_line(&out), &["module-path and --pkcs11-module"]);
    // --pkcs11-module without a pkcs11: key.
    let (pem, _) = keygen(&dir, "file", "ES256", &[]);
    let out = run_token(
        &token,
        &dir,
        &["sign", s(&card), "--key", s(&pem), "--pkcs11-module", &module],
        &[],
    );
    expect_code(&out, 2, "--pkcs11-module with a key file");
}

#[test]
fn every_token_error_names_the_uri_without_the_pin() {
    let Some((dir, token, card)) = setup("pkcs11-errors") else {
        return;
    };
    token.keypairgen("EC:prime256v1", "p256", "01");
    token.keypairgen("rsa:2048", "rsa", "04");
    let module = token.module.display().to_string();
    let not_a_library = write(&dir, "notmod.so", "this is not a shared library\n");
    // A real shared library that is not a PKCS#11 module, when one is found.
    let plain_library = [
        "/usr/lib/x86_64-linux-gnu/libz.so.1",
        "/lib/x86_64-linux-gnu/libz.so.1",
        "/usr/lib/aarch64-linux-gnu/libz.so.1",
        "/usr/lib/x86_64-linux-gnu/libm.so.6",
    ]
    .into_iter()
    .find(|p| Path::new(p).is_file());
    let uri = |rest: &str| format!("pkcs11:{rest}");
    let mut cases: Vec<ErrorCase> = vec![
        (
            uri(&format!(
                "token=ci;object=p256?pin-value=00000-wrong&module-path={module}"
            )),
            3,
            "key-unavailable",
            vec![],
            vec!["refused the PIN", "CKR_PIN_INCORRECT", "it is not shown"],
        ),
        (
            uri(&format!(
                "token=absent;object=p256?pin-value={PIN}&module-path={module}"
            )),
            3,
            "key-unavailable",
            vec![],
            vec!["no token with token=\"absent\"", "tokens present: \"ci\""],
        ),
        (
            uri(&format!(
                "token=ci;object=nothing?pin-value={PIN}&module-path={module}"
            )),
            3,
            "key-unavailable",
            vec![],
            vec!["no private key with object=\"nothing\"", "\"p256\""],
        ),
        (
            uri(&format!("token=ci;id=%99?pin-value={PIN}&module-path={module}")),
            3,
            "key-unavailable",
            vec![],
            vec!["no private key"],
        ),
        (
            token.uri("p256"),
            2,
            "key-algorithm-mismatch",
            vec!["--alg".into(), "RS256".into()],
            vec!["RS256 needs an RSA key", "P-256"],
        ),
        (
            token.uri("p256"),
            2,
            "key-algorithm-mismatch",
            vec!["--alg".into(), "ES384".into()],
            vec!["ES384 needs a P-384 key"],
        ),
        (
            token.uri("rsa"),
            2,
            "key-algorithm-mismatch",
            vec!["--alg".into(), "EdDSA".into()],
            vec!["EdDSA needs", "RSA"],
        ),
        (
            uri(&format!(
                "token=ci;object=p256?pin-value={PIN}&module-path=/no/such/module.so"
            )),
            3,
            "key-unavailable",
            vec![],
            vec!["/no/such/module.so does not exist"],
        ),
        (
            uri(&format!(
                "token=ci;object=p256?pin-value={PIN}&module-path={}",
                not_a_library.display()
            )),
            3,
            "key-unavailable",
            vec![],
            vec!["as a PKCS#11 module", "cannot be loaded as a shared library"],
        ),
        (
            uri(&format!(
                "token=ci;object=p256?pin-source=file:{}/no-pin&module-path={module}",
                dir.display()
            )),
            3,
            "key-unavailable",
            vec![],
            vec!["cannot open the pin-source file"],
        ),
        (
            uri(&format!("token=ci;object=p256?module-path={module}")),
            3,
            "key-unavailable",
            vec![],
            vec!["needs a PIN", "pin-source", "A2A_CARD_PKCS11_PIN"],
        ),
        (
            uri(&format!("token=ci;object=p256?pin-value={PIN}")),
            2,
            "usage",
            vec![],
            vec![
                "needs its PKCS#11 module",
                "--pkcs11-module",
                "A2A_CARD_PKCS11_MODULE",
            ],
        ),
    ];
    if let Some(lib) = plain_library {
        cases.push((
            uri(&format!("token=ci;object=p256?pin-value={PIN}&module-path={lib}")),
            3,
            "key-unavailable",
            vec![],
            vec!["it is not a PKCS#11 module", "C_GetFunctionList"],
        ));
    }
    let before = std::fs::read(&card).unwrap();
    let files = listing(&dir);
    for (reference, exit, code, flags, words) in &cases {
        let redacted = reference.replace(PIN, "***").replace("00000-wrong", "***");
        let mut sign = vec![
            "sign",
            s(&card),
            "--key",
            reference.as_str(),
            "--unknown",
            "exclude",
            "--in-place",
        ];
        sign.extend(flags.iter().map(String::as_str));
        let mut jwks = vec!["jwks", reference.as_str()];
        jwks.extend(
            flags
                .iter()
                .map(String::as_str)
                .filter(|_| *code != "key-algorithm-mismatch"),
        );
        for (what, args) in [("sign", sign), ("jwks", jwks)] {
            if what == "jwks" && *code == "key-algorithm-mismatch" {
                continue;
            }
            let out = run_token(&token, &dir, &args, &[]);
            expect_code(&out, *exit, &format!("{what} {reference}"));
            assert!(out.stdout.is_empty());
            let line = error_line(&out);
            assert!(line.starts_with(&format!("error[{code}]: ")), "{line}");
            assert_mentions(&line, words);
            assert!(
                line.ends_with(&format!("({redacted})")),
                "{what}: the line names the URI, PIN redacted: {line}"
            );
            assert!(!line.contains("00000-wrong"), "{line}");
        }
        assert_eq!(
            std::fs::read(&card).unwrap(),
            before,
            "{reference}: the card changed"
        );
        assert_eq!(listing(&dir), files, "{reference}: a file was left behind");
    }
}

#[test]
fn a_pkcs11_uri_that_cannot_be_read_is_a_usage_error_naming_the_command_line() {
    let Some((dir, token, card)) = setup("pkcs11-bad-uris") else {
        return;
    };
    for bad in [
        "pkcs11:",
        "pkcs11:token=ci",
        "pkcs11:object=k;object=k2",
        "pkcs11:object=%zz",
        "pkcs11:object=k?pin-value=1&pin-source=/x",
    ] {
        let out = run_token(&token, &dir, &["sign", s(&card), "--key", bad], &[]);
        expect_code(&out, 2, bad);
        let line = error_line(&out);
        assert!(line.starts_with("error[usage]: "), "{bad}: {line}");
    }
    // The PIN of a URI that is refused is not shown either.
    let bad = format!("pkcs11:token=ci;object=%zz?pin-value={PIN}");
    let out = run_token(&token, &dir, &["sign", s(&card), "--key", &bad], &[]);
    expect_code(&out, 2, "bad URI with a PIN");
}

/// Runs the binary with the token's environment, killing it when it has not ended within
/// `limit` (a test of a hang fails instead of hanging).
fn run_bounded(token: &Token, dir: &Path, args: &[&str], limit: Duration) -> Output {
    let mut child = bin()
        .current_dir(dir)
        .args(args)
        .env("SOFTHSM2_CONF", &token.conf)
        .env_remove("A2A_CARD_PKCS11_PIN")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            child.kill().unwrap();
            let out = child.wait_with_output().unwrap();
            panic!(
                "{args:?} did not end within {limit:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn a_pin_source_that_cannot_hold_a_pin_is_refused_without_reaching_the_token() {
    let Some((dir, token, card)) = setup("pkcs11-pin-source-shapes") else {
        return;
    };
    token.keypairgen("EC:prime256v1", "k", "01");
    let module = token.module.display().to_string();
    let fifo = dir.join("pin.fifo");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let pem = std::fs::read_to_string(keygen(&dir, "other", "ES256", &[]).0).unwrap();
    let pem_body = a2a_card_testkit::pem::body(&pem);
    let file = |name: &str, content: &[u8]| write(&dir, name, content);
    let sources: Vec<(PathBuf, &str, Option<&str>)> = vec![
        (fifo.clone(), "a FIFO", None),
        (dir.clone(), "a directory", None),
        (PathBuf::from("/dev/null"), "a device", None),
        (
            file("pem.txt", pem.as_bytes()),
            "a PEM block",
            Some(pem_body.as_str()),
        ),
        (
            file("lines.txt", format!("{PIN}\n{PIN}\n").as_bytes()),
            "more than one line",
            None,
        ),
        (
            file("nul.txt", format!("{PIN}\0x").as_bytes()),
            "a NUL byte",
            None,
        ),
        (
            file("long.txt", "9".repeat(400).as_bytes()),
            "longer than 256 bytes",
            Some("999"),
        ),
    ];
    for (source, words, secret) in &sources {
        let uri = format!(
            "pkcs11:token=ci;object=k?pin-source=file:{}&module-path={module}",
            source.display()
        );
        for args in [
            vec![
                "sign",
                s(&card),
                "--key",
                &uri,
                "--unknown",
                "exclude",
                "--in-place",
            ],
            vec!["jwks", &uri],
        ] {
            let out = run_bounded(&token, &dir, &args, Duration::from_secs(20));
            expect_code(&out, 2, &format!("{words}: {args:?}"));
            let line = error_line(&out);
            assert!(line.starts_with("error[usage]: "), "{line}");
            assert_mentions(&line, &[words]);
            for stream in [stdout(&out), stderr(&out)] {
                assert!(!stream.contains(PIN), "{words}: {stream}");
                if let Some(secret) = secret {
                    a2a_card_testkit::pem::assert_no_material(&stream, secret, words);
                }
            }
        }
    }
    // The PIN variable holding a key (a PEM block) is refused the same way, naming the variable.
    let bare = format!("pkcs11:token=ci;object=k?module-path={module}");
    let out = bin()
        .current_dir(&dir)
        .args(["jwks", &bare])
        .env("SOFTHSM2_CONF", &token.conf)
        .env("A2A_CARD_PKCS11_PIN", &pem)
        .output()
        .unwrap();
    expect_code(&out, 2, "A2A_CARD_PKCS11_PIN holding a PEM key");
    assert_mentions(&error_line(&out), &["A2A_CARD_PKCS11_PIN", "a PEM block"]);
    a2a_card_testkit::pem::assert_no_material(&stderr(&out), &pem_body, "PIN variable");
    // The token was never given a wrong PIN: the right one still works at once.
    let pin_file = file("pin.txt", format!("{PIN}\n").as_bytes());
    let uri = format!(
        "pkcs11:token=ci;object=k?pin-source=file:{}&module-path={module}",
        pin_file.display()
    );
    let out = run_bounded(&token, &dir, &["jwks", &uri], Duration::from_secs(20));
    expect_code(&out, 0, "the right PIN");
}
