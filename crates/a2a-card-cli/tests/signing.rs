//! End-to-end tests of `keygen`, `sign`, `verify` and `jwks` working together: every algorithm,
//! keys made by OpenSSL, keys from the environment and stdin, in-place writes, replacement, and
//! the A2A v1.0 section 8.5 sample card.

#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::*;
use std::path::Path;

/// Key type of an algorithm's default key, to know when `sign` needs `--alg`.
fn default_alg_of(alg: &str) -> &str {
    match alg {
        a if a.starts_with("RS") || a.starts_with("PS") => "RS256",
        a => a,
    }
}

#[test]
fn round_trip_for_every_algorithm_with_key_jwks_and_trust_store() {
    let dir = scratch("round-trip");
    let card = write(&dir, "card.json", CARD);
    let with_openssl = have_openssl();
    for (i, (alg, extra)) in ALGORITHMS.iter().enumerate() {
        let what = format!("{alg} {extra:?}");
        let (pem, jwks) = keygen(&dir, &format!("k{i}"), alg, extra);

        // The key file is readable by its owner only.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&pem).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "{what}: mode {mode:o}");
        }
        // The JWKS names the algorithm, and its kid is the RFC 7638 thumbprint computed here.
        let jwk = only_jwk(&jwks);
        assert_eq!(jwk["alg"], *alg, "{what}");
        assert!(jwk.get("d").is_none(), "{what}: private member in the JWKS");
        let kid = jwk["kid"].as_str().unwrap().to_string();
        assert_eq!(kid, thumbprint(&jwk), "{what}");
        if extra.contains(&"Ed448") {
            assert_eq!(jwk["crv"], "Ed448");
        }
        if extra.contains(&"3072") {
            assert_eq!(unb64url(jwk["n"].as_str().unwrap()).len(), 384, "{what}: modulus");
        }

        // The PEM is PKCS#8 that OpenSSL reads; its public half is the pinned key below.
        let public_pem = dir.join(format!("k{i}.pub.pem"));
        if with_openssl {
            openssl(&["pkey", "-in", s(&pem), "-pubout", "-out", s(&public_pem)]);
        } else {
            std::fs::copy(&pem, &public_pem).unwrap();
        }

        let signed = dir.join(format!("signed{i}.json"));
        let mut sign_args: Vec<&str> = Vec::new();
        if *alg != default_alg_of(alg) {
            sign_args.extend(["--alg", alg]);
        }
        let out = sign_to(&card, &pem, &sign_args, &signed);
        assert_eq!(stderr_field(&out, "alg"), *alg, "{what}");
        assert_eq!(stderr_field(&out, "kid"), format!("\"{kid}\""), "{what}");
        assert_eq!(stderr_field(&out, "profile"), "spec", "{what}");
        assert_eq!(stderr_field(&out, "unsigned"), r#"["/x-vendor"]"#, "{what}");
        let digest = hex(&sha256(&canonical(&card, &[])));
        assert_eq!(stderr_field(&out, "canonical sha256"), digest, "{what}");
        let entries = signatures(&signed);
        assert_eq!(entries.len(), 1);
        let header = protected(&entries[0]);
        assert_eq!(header["alg"], *alg);
        assert_eq!(header["kid"], kid.as_str());

        let trust = write(
            &dir,
            &format!("trust{i}.json"),
            serde_json::json!({"keys":[{"jwk": jwk, "algorithms": [alg]}]}).to_string(),
        );
        for (flag, file) in [("--key", &public_pem), ("--jwks", &jwks), ("--trust", &trust)] {
            let out = run(&["verify", s(&signed), flag, s(file), "--format", "json"], None);
            expect_code(&out, 0, &format!("{what} verify {flag}"));
            let report = json_out(&out);
            assert_eq!(report["ok"], true);
            assert_eq!(report["canonical_sha256"], digest.as_str());
            let sig = &report["signatures"][0];
            assert_eq!(sig["verdict"]["code"], "valid", "{what} {flag}");
            assert_eq!(sig["key"]["source"], s(file), "{what} {flag}");
            assert_eq!(sig["key"]["thumbprint"], kid.as_str());
        }

        // Any change to a covered member breaks it.
        let tampered = std::fs::read_to_string(&signed)
            .unwrap()
            .replace("Release Agent", "Release Agent!");
        let tampered = write(&dir, &format!("tampered{i}.json"), tampered);
        let out = verify(&tampered, &jwks, &["--format", "json"]);
        expect_code(&out, 1, &format!("{what} tampered"));
        assert_eq!(
            json_out(&out)["signatures"][0]["verdict"]["code"],
            "signature-invalid"
        );
    }
}

/// Keys made by `openssl genpkey`, in PKCS#8 and in the traditional SEC1 / PKCS#1 forms.
#[test]
fn keys_made_by_openssl() {
    if !have_openssl() {
        return;
    }
    let dir = scratch("openssl-keys");
    let card = write(&dir, "card.json", CARD);
    let cases: &[(&str, &[&str], &[&str])] = &[
        ("ed25519", &["-algorithm", "ed25519"], &["EdDSA"]),
        (
            "p256",
            &["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"],
            &["ES256"],
        ),
        (
            "p384",
            &["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"],
            &["ES384"],
        ),
        (
            "p521",
            &["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-521"],
            &["ES512"],
        ),
        (
            "rsa",
            &["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"],
            &["RS256", "PS256", "RS512"],
        ),
    ];
    for (name, gen, algs) in cases {
        let pem = dir.join(format!("{name}.pem"));
        let mut args = vec!["genpkey"];
        args.extend_from_slice(gen);
        args.extend(["-out", s(&pem)]);
        openssl(&args);
        let public_pem = dir.join(format!("{name}.pub.pem"));
        openssl(&["pkey", "-in", s(&pem), "-pubout", "-out", s(&public_pem)]);
        // `a2a-card jwks` of the public PEM gives the JWKS verifiers use.
        let out = run(&["jwks", s(&public_pem)], None);
        expect_code(&out, 0, name);
        let jwks = write(&dir, &format!("{name}.jwks.json"), &out.stdout);
        let jwk = only_jwk(&jwks);
        let kid = thumbprint(&jwk);
        assert_eq!(jwk["kid"], kid.as_str(), "{name}");

        let mut keys = vec![pem.clone()];
        if *name != "ed25519" {
            // SEC1 `EC PRIVATE KEY` or PKCS#1 `RSA PRIVATE KEY`.
            let traditional = dir.join(format!("{name}.trad.pem"));
            openssl(&["pkey", "-in", s(&pem), "-traditional", "-out", s(&traditional)]);
            let text = std::fs::read_to_string(&traditional).unwrap();
            assert!(
                text.contains("-----BEGIN EC PRIVATE KEY-----")
                    || text.contains("-----BEGIN RSA PRIVATE KEY-----")
            );
            keys.push(traditional);
        }
        for key in &keys {
            for alg in *algs {
                let what = format!("{name} {alg} {}", key.display());
                let signed = dir.join(format!("{name}-{alg}.json"));
                let out = sign_to(&card, key, &["--alg", alg], &signed);
                assert_eq!(stderr_field(&out, "kid"), format!("\"{kid}\""), "{what}");
                for (flag, file) in [("--key", &public_pem), ("--jwks", &jwks)] {
                    let out = run(&["verify", s(&signed), flag, s(file)], None);
                    expect_code(&out, 0, &format!("{what} verify {flag}"));
                    assert!(stdout(&out).starts_with("VALID: "), "{what}");
                }
            }
        }

        // OpenSSL itself accepts the signature over the JWS signing input, where it can check
        // the raw form (EdDSA, RSASSA-PKCS1-v1_5).
        let signed = dir.join(format!("{name}-{}.json", algs[0]));
        let entry = &signatures(&signed)[0];
        let input = format!(
            "{}.{}",
            entry["protected"].as_str().unwrap(),
            b64url(canonical(&card, &[]))
        );
        let input_path = write(&dir, &format!("{name}.input"), &input);
        let sig_path = write(
            &dir,
            &format!("{name}.sig"),
            unb64url(entry["signature"].as_str().unwrap()),
        );
        match *name {
            "ed25519" => {
                openssl(&[
                    "pkeyutl",
                    "-verify",
                    "-pubin",
                    "-inkey",
                    s(&public_pem),
                    "-rawin",
                    "-in",
                    s(&input_path),
                    "-sigfile",
                    s(&sig_path),
                ]);
            }
            "rsa" => {
                openssl(&[
                    "dgst",
                    "-sha256",
                    "-verify",
                    s(&public_pem),
                    "-signature",
                    s(&sig_path),
                    s(&input_path),
                ]);
            }
            _ => {}
        }
    }
}

/// The RFC 8037 appendix A.1 Ed25519 private key, as a JWK.
const RFC8037_JWK: &str = r#"{"kty":"OKP","crv":"Ed25519","d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#;
/// Its thumbprint, as RFC 8037 appendix A.3 gives it.
const RFC8037_KID: &str = "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k";

#[test]
fn key_from_the_environment_pem_and_jwk() {
    let (dir, card, pem, jwks) = card_and_key("env-key", "ES384", &[]);
    let pem_text = std::fs::read_to_string(&pem).unwrap();

    let out = run_env(
        &["sign", "--unknown", "exclude", s(&card)],
        None,
        &[(KEY_ENV, &pem_text)],
    );
    expect_code(&out, 0, "env PEM");
    let signed = write(&dir, "signed-pem.json", &out.stdout);
    expect_code(&verify(&signed, &jwks, &[]), 0, "verify env PEM");

    // A private JWK in the environment; `a2a-card jwks` of the same JWK is its public JWKS.
    let out = run_env(
        &["sign", "--unknown", "exclude", s(&card)],
        None,
        &[(KEY_ENV, RFC8037_JWK)],
    );
    expect_code(&out, 0, "env JWK");
    assert_eq!(stderr_field(&out, "kid"), format!("\"{RFC8037_KID}\""));
    assert_eq!(stderr_field(&out, "alg"), "EdDSA");
    let signed = write(&dir, "signed-jwk.json", &out.stdout);
    let jwk_file = write(&dir, "rfc8037.jwk", RFC8037_JWK);
    let out = run(&["jwks", s(&jwk_file)], None);
    expect_code(&out, 0, "jwks of a private JWK");
    let public = json_out(&out);
    assert!(
        public["keys"][0].get("d").is_none(),
        "private member printed: {public}"
    );
    assert_eq!(public["keys"][0]["kid"], RFC8037_KID);
    let public_jwks = write(&dir, "rfc8037.jwks.json", &out.stdout);
    expect_code(&verify(&signed, &public_jwks, &[]), 0, "verify env JWK");

    // --key wins over the environment.
    let out = run_env(
        &["sign", "--unknown", "exclude", s(&card), "--key", s(&pem)],
        None,
        &[(KEY_ENV, "not a key")],
    );
    expect_code(&out, 0, "--key over env");

    // An unreadable key in the environment is a failed key retrieval.
    let out = run_env(
        &["sign", "--unknown", "exclude", s(&card)],
        None,
        &[(
            KEY_ENV,
            "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
        )],
    );
    expect_error(&out, 3, "invalid-key", "$A2A_CARD_SIGNING_KEY");
    // No key anywhere (an empty variable counts as none) is a usage error.
    for env in [&[][..], &[(KEY_ENV, "")][..]] {
        let out = run_env(&["sign", "--unknown", "exclude", s(&card)], None, env);
        let line = expect_error(&out, 2, "usage", "<command line>");
        assert!(line.contains("A2A_CARD_SIGNING_KEY"), "{line}");
    }
}

#[test]
fn card_and_key_on_stdin() {
    let (_dir, card, pem, jwks) = card_and_key("stdin", "EdDSA", &[]);

    // The card on stdin, as `-` and as nothing.
    for args in [
        &["sign", "--unknown", "exclude", "-", "--key", s(&pem)][..],
        &["sign", "--unknown", "exclude", "--key", s(&pem)][..],
    ] {
        let out = run(args, Some(CARD.as_bytes()));
        expect_code(&out, 0, "card on stdin");
        let out = run(&["verify", "-", "--jwks", s(&jwks)], Some(&out.stdout));
        expect_code(&out, 0, "verify from stdin");
        assert!(stdout(&out).contains("card: <stdin>"));
    }
    // The key on stdin, the card from a file: Ed25519 is deterministic, so the same bytes.
    let from_file = run(
        &["sign", "--unknown", "exclude", s(&card), "--key", s(&pem)],
        None,
    );
    let pem_bytes = std::fs::read(&pem).unwrap();
    let from_stdin = run(
        &["sign", "--unknown", "exclude", s(&card), "--key", "-"],
        Some(&pem_bytes),
    );
    expect_code(&from_stdin, 0, "key on stdin");
    assert_eq!(from_stdin.stdout, from_file.stdout);
    // Both on stdin cannot work.
    for args in [
        &["sign", "--unknown", "exclude", "-", "--key", "-"][..],
        &["sign", "--unknown", "exclude", "--key", "-"][..],
    ] {
        let out = run(args, Some(&pem_bytes));
        expect_error(&out, 2, "usage", "<command line>");
    }
}

#[cfg(unix)]
fn mode_of(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn in_place_success_keeps_the_file_and_its_mode() {
    let dir = scratch("in-place-ok");
    let keys = scratch("in-place-ok-keys");
    let (pem, jwks) = keygen(&keys, "k", "EdDSA", &[]);
    let card = write(&dir, "card.json", CARD);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&card, std::fs::Permissions::from_mode(0o640)).unwrap();
    }
    let expected = run(
        &["sign", "--unknown", "exclude", s(&card), "--key", s(&pem)],
        None,
    );
    expect_code(&expected, 0, "sign to stdout");

    let out = sign(&card, &pem, &["--in-place"]);
    expect_code(&out, 0, "sign --in-place");
    assert!(out.stdout.is_empty(), "--in-place printed the card");
    assert_eq!(std::fs::read(&card).unwrap(), expected.stdout);
    assert_eq!(listing(&dir), ["card.json"], "a temporary file was left behind");
    #[cfg(unix)]
    assert_eq!(mode_of(&card), 0o640);
    expect_code(&verify(&card, &jwks, &[]), 0, "verify in place");

    // A relative path in the working directory works the same way.
    let out = run_in(
        Some(&dir),
        &[
            "sign",
            "--unknown",
            "exclude",
            "card.json",
            "--key",
            s(&pem),
            "--in-place",
            "--replace",
        ],
        None,
        &[],
    );
    expect_code(&out, 0, "relative --in-place");
    assert_eq!(stderr_field(&out, "replaced"), "1");
    assert_eq!(
        std::fs::read(&card).unwrap(),
        expected.stdout,
        "replacing our own signature"
    );
    assert_eq!(listing(&dir), ["card.json"]);

    // --out writes a new file and nothing to stdout (a second signature of the kid, asked for).
    let out_path = dir.join("out.json");
    let out = sign(&card, &pem, &["--out", s(&out_path), "--append"]);
    expect_code(&out, 0, "--out");
    assert!(out.stdout.is_empty());
    assert_eq!(signatures(&out_path).len(), 2);
    assert_eq!(listing(&dir), ["card.json", "out.json"]);
}

#[test]
fn in_place_failure_leaves_the_input_byte_identical() {
    let dir = scratch("in-place-fail");
    let keys = scratch("in-place-fail-keys");
    let (pem, _) = keygen(&keys, "k", "EdDSA", &[]);
    let garbage = write(
        &keys,
        "garbage.pem",
        "-----BEGIN PRIVATE KEY-----\nnot base64\n-----END PRIVATE KEY-----\n",
    );
    // (name, card bytes, extra options, exit code, error code)
    type Case<'a> = (&'a str, &'a [u8], &'a [&'a str], i32, &'a str);
    let cases: &[Case] = &[
        (
            "malformed",
            br#"{"name":"a","skills":[1,]}"#,
            &[],
            2,
            "invalid-json",
        ),
        (
            "alg-mismatch",
            CARD.as_bytes(),
            &["--alg", "ES256"],
            2,
            "key-algorithm-mismatch",
        ),
        (
            "signatures-object",
            br#"{"name":"a","signatures":{}}"#,
            &[],
            2,
            "malformed-card",
        ),
        (
            "bad-header",
            CARD.as_bytes(),
            &["--header", "kid=\"x\""],
            2,
            "header-conflict",
        ),
        (
            "bad-header-json",
            CARD.as_bytes(),
            &["--header", "x-note=nope"],
            2,
            "invalid-json",
        ),
    ];
    for (name, bytes, extra, code, error_code) in cases {
        let card = write(&dir, "card.json", bytes);
        let before = listing(&dir);
        let mut args = vec![
            "sign",
            "--unknown",
            "exclude",
            s(&card),
            "--key",
            s(&pem),
            "--in-place",
            // These cards fail in signing itself, which lint would otherwise pre-empt.
            "--lint",
            "off",
        ];
        args.extend_from_slice(extra);
        let out = run(&args, None);
        expect_code(&out, *code, name);
        assert!(
            error_line(&out).starts_with(&format!("error[{error_code}]: ")),
            "{name}: {}",
            stderr(&out)
        );
        assert_eq!(std::fs::read(&card).unwrap(), *bytes, "{name}: the input changed");
        assert_eq!(listing(&dir), before, "{name}: files left behind");
    }
    // A key that cannot be read: exit 3, card untouched.
    let card = write(&dir, "card.json", CARD);
    let out = sign(&card, &garbage, &["--in-place"]);
    expect_error(&out, 3, "invalid-key", s(&garbage));
    assert_eq!(std::fs::read(&card).unwrap(), CARD.as_bytes());
    assert_eq!(listing(&dir), ["card.json"]);
    // --in-place needs a file; --out and --in-place exclude each other.
    let out = run(
        &[
            "sign",
            "--unknown",
            "exclude",
            "-",
            "--key",
            s(&pem),
            "--in-place",
        ],
        Some(CARD.as_bytes()),
    );
    expect_error(&out, 2, "usage", "<command line>");
    let out = sign(&card, &pem, &["--in-place", "--out", "x.json"]);
    expect_code(&out, 2, "--in-place --out");
    assert_eq!(std::fs::read(&card).unwrap(), CARD.as_bytes());
}

#[test]
fn replace_swaps_only_signatures_with_the_same_kid() {
    let dir = scratch("replace");
    let card = write(&dir, "card.json", CARD);
    let (a, a_jwks) = keygen(&dir, "a", "ES256", &[]);
    let (b, b_jwks) = keygen(&dir, "b", "EdDSA", &[]);
    let a_kid = only_jwk(&a_jwks)["kid"].as_str().unwrap().to_string();
    let b_kid = only_jwk(&b_jwks)["kid"].as_str().unwrap().to_string();

    let mut kids = Vec::new();
    for (key, extra) in [
        (&a, &[][..]),
        (&a, &["--append"][..]),
        (&b, &[][..]),
        (&a, &["--replace"][..]),
    ] {
        let mut args = vec![
            "sign",
            "--unknown",
            "exclude",
            s(&card),
            "--key",
            s(key),
            "--in-place",
        ];
        args.extend_from_slice(extra);
        let out = run(&args, None);
        expect_code(&out, 0, "sign");
        if extra != ["--replace"] {
            assert!(stderr(&out).lines().all(|l| !l.starts_with("replaced:")));
        } else {
            assert_eq!(stderr_field(&out, "replaced"), "2");
        }
        kids.push(
            signatures(&card)
                .iter()
                .map(|e| protected(e)["kid"].as_str().unwrap().to_string())
                .collect::<Vec<_>>(),
        );
    }
    assert_eq!(kids[1], [a_kid.clone(), a_kid.clone()]);
    assert_eq!(kids[2], [a_kid.clone(), a_kid.clone(), b_kid.clone()]);
    assert_eq!(kids[3], [b_kid.clone(), a_kid.clone()]);
    let out = verify(&card, &a_jwks, &["--jwks", s(&b_jwks), "--mode", "all"]);
    expect_code(&out, 0, "both verify");
}

#[test]
fn headers_jku_and_kid_options() {
    let (dir, card, pem, jwks) = card_and_key("headers", "EdDSA", &["--kid", "release-2026"]);
    assert_eq!(only_jwk(&jwks)["kid"], "release-2026");
    let signed = dir.join("signed.json");
    sign_to(
        &card,
        &pem,
        &[
            "--kid",
            "release-2026",
            "--jku",
            "https://agent.example/jwks.json",
            "--header",
            r#"x-note={"build":7}"#,
            "--protected-header",
            "x-stage=\"prod\"",
        ],
        &signed,
    );
    let entry = &signatures(&signed)[0];
    let header = protected(entry);
    assert_eq!(header["kid"], "release-2026");
    assert_eq!(header["jku"], "https://agent.example/jwks.json");
    assert_eq!(header["x-stage"], "prod");
    assert_eq!(entry["header"], serde_json::json!({"x-note": {"build": 7}}));
    let out = verify(&signed, &jwks, &["--format", "json"]);
    expect_code(&out, 0, "verify custom kid");
    assert_eq!(
        json_out(&out)["signatures"][0]["jku"],
        "https://agent.example/jwks.json"
    );

    // Without --kid the signature names the thumbprint, which the JWKS does not list.
    let unnamed = dir.join("unnamed.json");
    sign_to(&card, &pem, &[], &unnamed);
    let out = verify(&unnamed, &jwks, &["--format", "json"]);
    expect_code(&out, 1, "kid mismatch");
    assert_eq!(
        json_out(&out)["signatures"][0]["verdict"]["code"],
        "untrusted-key"
    );

    // Malformed NAME=JSON.
    let out = sign(&card, &pem, &["--header", "novalue"]);
    expect_error(&out, 2, "usage", "<command line>");
}

#[test]
fn the_signing_options_of_the_cores_table_are_refused_by_their_flags() {
    // The flags made from the core's SIGN table: each refusal names its flag and its place.
    let (dir, card, pem, _) = card_and_key("sign-table", "ES256", &[]);
    let line = expect_error(
        &sign(&card, &pem, &["--also-profile", "spex"]),
        2,
        "usage",
        "<command line>",
    );
    assert!(
        line.contains("--also-profile: profile \"spex\" is not one of"),
        "{line}"
    );
    let line = expect_error(
        &sign(&card, &pem, &["--protected-header", "p=no"]),
        2,
        "invalid-json",
        "--protected-header p",
    );
    assert!(
        line.contains("a text is quoted: --protected-header 'p=\"no\"'"),
        "{line}"
    );
    let line = expect_error(
        &sign(&card, &pem, &["--replace", "--append"]),
        2,
        "usage",
        "<command line>",
    );
    assert!(
        line.contains("--replace and --append cannot be given together"),
        "{line}"
    );
    let line = expect_error(
        &sign(
            &card,
            &pem,
            &["--also-profile", "prune-empty", "--declare", "false"],
        ),
        2,
        "usage",
        "<command line>",
    );
    assert!(
        line.contains("--also-profile cannot be given with --declare off"),
        "{line}"
    );
    let out = sign(&card, &pem, &["--declare", "no"]);
    expect_code(&out, 2, "--declare no");
    assert!(stderr(&out).contains("--declare"), "{}", stderr(&out));
    // The chain file is the place of its own errors.
    let bad = write(&dir, "chain.pem", "not a certificate");
    let line = expect_error(
        &sign(&card, &pem, &["--x5c", s(&bad)]),
        2,
        "certificate-malformed",
        s(&bad),
    );
    assert!(line.contains("no \"CERTIFICATE\" PEM block found"), "{line}");
    // A switch takes no value, and the table's bounds are clap's.
    let out = sign(&card, &pem, &["--max-chain", "9"]);
    expect_code(&out, 2, "usage");
    assert!(String::from_utf8_lossy(&out.stderr).contains("give a number from 1 to 8"));
    let out = sign(
        &card,
        &pem,
        &["--kid", "k", "--header", "x-note=\"n\"", "--max-chain", "2"],
    );
    expect_code(&out, 0, "");
    let signed = json_out(&out);
    assert_eq!(
        signed["signatures"][0]["header"],
        serde_json::json!({"x-note": "n"})
    );
}

#[test]
fn profiles_and_unknown_members_when_signing() {
    let (dir, card, pem, jwks) = card_and_key("sign-profiles", "ES256", &[]);

    // Signed as the Python and JS SDKs sign: spec does not verify it, prune-empty and auto do.
    let pruned = dir.join("pruned.json");
    let out = sign_to(&card, &pem, &["--profile", "prune-empty"], &pruned);
    assert_eq!(stderr_field(&out, "profile"), "prune-empty");
    assert_eq!(
        stderr_field(&out, "canonical sha256"),
        hex(&sha256(&canonical(&card, &["--profile", "prune-empty"])))
    );
    let out = verify(&pruned, &jwks, &["--format", "json"]);
    expect_code(&out, 1, "prune-empty card under spec");
    // The signature declares its profile: named, not called a bad signature.
    assert_eq!(
        json_out(&out)["signatures"][0]["verdict"]["code"],
        "profile-not-accepted"
    );
    for profiles in [
        &["--profile", "prune-empty"][..],
        &["--profile", "auto"][..],
        &["--profile", "spec", "--profile", "prune-empty"][..],
    ] {
        let mut args = vec!["verify", s(&pruned), "--jwks", s(&jwks), "--format", "json"];
        args.extend_from_slice(profiles);
        let out = run(&args, None);
        expect_code(&out, 0, &format!("{profiles:?}"));
        let report = json_out(&out);
        assert_eq!(report["profile"], "prune-empty");
        assert_eq!(report["signatures"][0]["profile"], "prune-empty");
    }

    // Without the declaration the header is what other signers write, and the signature is read
    // as theirs: over each profile the policy accepts.
    let quiet = dir.join("quiet.json");
    sign_to(
        &card,
        &pem,
        &["--profile", "prune-empty", "--declare", "false"],
        &quiet,
    );
    let header: serde_json::Value = serde_json::from_slice(&a2a_card_testkit::data::unb64url(
        signatures(&quiet)[0]["protected"].as_str().unwrap(),
    ))
    .unwrap();
    let names: Vec<&String> = header.as_object().unwrap().keys().collect();
    assert_eq!(names, ["alg", "kid", "typ"], "{header}");
    let out = verify(&quiet, &jwks, &["--format", "json"]);
    expect_code(&out, 1, "undeclared prune-empty card under spec");
    assert_eq!(
        json_out(&out)["signatures"][0]["verdict"]["code"],
        "signature-invalid"
    );
    expect_code(
        &verify(&quiet, &jwks, &["--profile", "auto"]),
        0,
        "undeclared prune-empty card under auto",
    );

    // Transition signing: one more signature over the prune-empty bytes, same key; its header
    // declares the bytes it covers, the spec one's is the specification's header.
    let both = dir.join("both.json");
    let out = sign_to(&card, &pem, &["--also-profile", "prune-empty"], &both);
    assert_eq!(
        stderr_field(&out, "also"),
        format!(
            "profile prune-empty canonical sha256 {}",
            hex(&sha256(&canonical(&card, &["--profile", "prune-empty"])))
        )
    );
    let entries = signatures(&both);
    assert_eq!(entries.len(), 2);
    for (entry, declared) in entries.iter().zip([
        serde_json::Value::Null,
        serde_json::json!({"profile": "prune-empty", "unknown": "exclude"}),
    ]) {
        let header: serde_json::Value = serde_json::from_slice(&a2a_card_testkit::data::unb64url(
            entry["protected"].as_str().unwrap(),
        ))
        .unwrap();
        assert_eq!(header["urn:a2a-card:canonical"], declared, "{header}");
        assert!(header.get("crit").is_none(), "{header}");
    }
    let spec_only = verify(&both, &jwks, &["--mode", "all"]);
    expect_code(&spec_only, 1, "all under spec alone");
    let text = stdout(&spec_only);
    assert!(
        text.starts_with(
            "INVALID: 1 of 2 signatures do not verify; mode all needs every one (signature 1: \
             profile-not-accepted: made over the prune-empty bytes (what a2a-sdk and @a2a-js/sdk sign)"
        ),
        "{text}"
    );
    let out = verify(
        &both,
        &jwks,
        &["--mode", "all", "--profile", "auto", "--format", "json"],
    );
    expect_code(&out, 0, "all under auto");
    let report = json_out(&out);
    assert_eq!(report["signatures"][0]["profile"], "spec");
    assert_eq!(report["signatures"][1]["profile"], "prune-empty");
    for profile in ["spec", "prune-empty"] {
        let out = verify(&both, &jwks, &["--profile", profile]);
        expect_code(&out, 0, profile);
    }

    // Unknown members retained: covered, and the signature says so, so a verifier that excludes
    // them by default checks it over the retained bytes.
    let retained = dir.join("retained.json");
    let out = sign_to(&card, &pem, &["--unknown", "retain"], &retained);
    assert_eq!(stderr_field(&out, "unsigned"), "[]");
    assert!(!stderr(&out).contains("warning:"));
    let out = verify(&retained, &jwks, &["--format", "json"]);
    expect_code(&out, 0, "retain declared, verify excludes by default");
    assert_eq!(json_out(&out)["unsigned"], serde_json::json!([]));
    let out = verify(&retained, &jwks, &["--unknown", "retain", "--format", "json"]);
    expect_code(&out, 0, "retain vs retain");
    assert_eq!(json_out(&out)["unsigned"], serde_json::json!([]));
    // Rejected: the card is refused.
    let out = run(&["sign", s(&card), "--key", s(&pem), "--unknown", "reject"], None);
    let line = expect_error(&out, 2, "unknown-member", s(&card));
    assert!(line.contains(" at /x-vendor "), "{line}");
}

/// The sample card of A2A v1.0 section 8.5 signed and verified.
#[test]
fn sample_8_5_card_signed_and_verified() {
    let dir = scratch("sample-8.5");
    let sample = repo_root().join("testvectors/cards/sample-8.5-unsigned.json");
    let (pem, jwks) = keygen(&dir, "k", "ES256", &[]);
    let signed = dir.join("signed.json");
    let out = sign_to(&sample, &pem, &[], &signed);
    assert_eq!(
        stderr_field(&out, "unsigned"),
        r#"["/capabilities/stateTransitionHistory","/security"]"#
    );
    assert!(stderr(&out).contains("warning: 2 member(s)"));

    let expected = canonical(&sample, &[]);
    let emitted = dir.join("verified.json");
    let out = verify(
        &signed,
        &jwks,
        &["--format", "json", "--emit-verified", s(&emitted)],
    );
    expect_code(&out, 0, "verify sample");
    let report = json_out(&out);
    assert_eq!(report["ok"], true);
    assert_eq!(report["profile"], "spec");
    assert_eq!(
        report["unsigned"],
        serde_json::json!(["/capabilities/stateTransitionHistory", "/security"])
    );
    assert_eq!(
        report["canonical"].as_str().unwrap().as_bytes(),
        expected.as_slice()
    );
    assert_eq!(report["canonical_sha256"], hex(&sha256(&expected)).as_str());
    assert_eq!(std::fs::read(&emitted).unwrap(), expected);

    // The text report says the same, and warns about the two members.
    let out = verify(&signed, &jwks, &[]);
    expect_code(&out, 0, "verify sample, text");
    let text = stdout(&out);
    assert!(text.starts_with("VALID: 1 of 1 signatures verify"), "{text}");
    assert!(
        text.contains(&format!("canonical sha256: {}\n", hex(&sha256(&expected)))),
        "{text}"
    );
    assert!(
        text.contains("unsigned: [\"/capabilities/stateTransitionHistory\",\"/security\"]\n"),
        "{text}"
    );
    assert!(
        text.contains("warning: 2 member(s) of the card are not covered"),
        "{text}"
    );

    // The spec's own signed sample carries a signature whose key the spec never published: with
    // ours added, require passes on ours and all fails on theirs.
    let spec_signed = repo_root().join("testvectors/cards/sample-8.5.json");
    let both = dir.join("both.json");
    sign_to(&spec_signed, &pem, &[], &both);
    let out = verify(&both, &jwks, &["--format", "json"]);
    expect_code(&out, 0, "require");
    let report = json_out(&out);
    assert_eq!(report["signatures"][0]["kid"], "key-1");
    assert_eq!(report["signatures"][0]["verdict"]["code"], "untrusted-key");
    assert_eq!(report["signatures"][1]["verdict"]["code"], "valid");
    let out = verify(&both, &jwks, &["--mode", "all"]);
    expect_code(&out, 1, "all");
    assert!(stdout(&out).starts_with("INVALID: "));
}

#[test]
fn jwks_subcommand_publishes_public_keys_only() {
    let dir = scratch("jwks");
    let (a, a_jwks) = keygen(&dir, "a", "ES256", &[]);
    let (b, _) = keygen(&dir, "b", "PS256", &[]);
    let jwk_file = write(&dir, "rfc8037.jwk", RFC8037_JWK);
    let out = run(&["jwks", s(&a), s(&b), s(&jwk_file), s(&a_jwks)], None);
    expect_code(&out, 0, "jwks");
    let text = stdout(&out);
    let v = json_out(&out);
    let keys = v["keys"].as_array().unwrap();
    assert_eq!(keys.len(), 4);
    for key in keys {
        for private in ["d", "p", "q", "dp", "dq", "qi"] {
            assert!(key.get(private).is_none(), "{private} in {key}");
        }
        assert_eq!(key["kid"].as_str().unwrap(), thumbprint(key));
    }
    assert!(!text.contains("\"d\""));
    assert_eq!(keys[0], {
        let mut k = only_jwk(&a_jwks);
        k.as_object_mut().unwrap().remove("alg"); // a PEM records no alg
        k
    });
    assert_eq!(keys[1]["kty"], "RSA");
    assert_eq!(keys[2]["kid"], RFC8037_KID);
    assert_eq!(keys[3], only_jwk(&a_jwks));

    let missing = dir.join("missing.pem");
    let out = run(&["jwks", s(&a), s(&missing)], None);
    expect_error(&out, 3, "io", s(&missing));
    let bad = write(&dir, "bad.json", r#"{"kty":"EC","crv":"Ed25519","x":"AA"}"#);
    let out = run(&["jwks", s(&bad)], None);
    expect_error(&out, 3, "jwk-inconsistent", s(&bad));
    let out = run(&["jwks"], None);
    expect_code(&out, 2, "no keys");
}
