//! The first hour's remaining traps (issue 27, item 6), each closed through the command line:
//! re-signing with a kid already on the card, a URL given where a file is read, options named
//! with their `--` in every message, `sign --format json`.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::*;

#[test]
fn re_signing_with_a_kid_already_on_the_card_needs_replace_or_append() {
    let (dir, card, pem, jwks) = card_and_key("traps-resign", "ES256", &["--kid", "release-2026"]);
    let kid = ["--kid", "release-2026"];
    let once = dir.join("once.json");
    sign_to(&card, &pem, &kid, &once);
    let before = std::fs::read(&once).unwrap();

    // Again with the same kid: refused, naming the kid, the entry and both ways out; nothing
    // written, the card untouched.
    let out = sign(&once, &pem, &[&kid[..], &["--in-place"]].concat());
    let line = expect_error(&out, 2, "kid-already-signed", s(&once));
    assert_eq!(
        line,
        format!(
            "error[kid-already-signed]: the card already carries a signature with kid \"release-2026\" \
             (/signatures/0); signing again would stack another signature of that kid: ask for \
             --replace to replace it, or --append to keep it and add the new one beside it at \
             /signatures/0 ({})",
            s(&once)
        )
    );
    assert_eq!(std::fs::read(&once).unwrap(), before);

    // --append: both kept, both verify.
    let twice = dir.join("twice.json");
    let out = sign(
        &once,
        &pem,
        &[&kid[..], &["--append", "--out", s(&twice)]].concat(),
    );
    expect_code(&out, 0, "--append");
    assert_eq!(signatures(&twice).len(), 2);
    assert!(!stderr(&out).contains("replaced:"));
    expect_code(&verify(&twice, &jwks, &["--mode", "all"]), 0, "both verify");

    // --replace: every signature of that kid goes, one new one stays.
    let again = dir.join("again.json");
    let out = sign(
        &twice,
        &pem,
        &[&kid[..], &["--replace", "--out", s(&again)]].concat(),
    );
    expect_code(&out, 0, "--replace");
    assert_eq!(stderr_field(&out, "replaced"), "2");
    assert_eq!(signatures(&again).len(), 1);

    // Both: a usage error from the command line, before the card is read.
    let out = sign(&once, &pem, &[&kid[..], &["--replace", "--append"]].concat());
    let line = expect_error(&out, 2, "usage", "<command line>");
    assert!(
        line.starts_with("error[usage]: --replace and --append cannot be given together"),
        "{line}"
    );

    // Another kid is added beside it as before.
    let out = sign(&once, &pem, &["--kid", "release-2027"]);
    expect_code(&out, 0, "another kid");
}

#[test]
fn a_url_given_where_a_key_file_is_read_points_at_allow_jku_and_trust() {
    let (dir, card, pem, jwks) = card_and_key("traps-url-file", "ES256", &[]);
    let signed = dir.join("signed.json");
    sign_to(&card, &pem, &[], &signed);
    for flag in ["--jwks", "--trust", "--key"] {
        for url in [
            "https://agent.example/.well-known/jwks.json",
            "http://agent.example/jwks.json",
            "HTTPS://agent.example/jwks.json",
        ] {
            let out = run(&["verify", s(&signed), flag, url], None);
            let line = expect_error(&out, 2, "usage", "<command line>");
            assert!(
                line.starts_with(&format!(
                    "error[usage]: {flag} {url}: {flag} takes a local file (no such file exists); keys \
                     are not fetched from a URL given there."
                )),
                "{line}"
            );
            assert!(
                line.contains("with --allow-jku and a prefix of the JWK Set's URL"),
                "{line}"
            );
            assert!(line.contains("a trust store with --trust FILE"), "{line}");
        }
    }
    // The same for a card given by URL (the jku flags apply there), and for certificates and CRLs.
    for (flag, url) in [
        ("--trust-anchors", "https://ca.example/root.pem"),
        ("--crl", "http://ca.example/crl.der"),
    ] {
        let out = run(&["verify", s(&signed), flag, url], None);
        let line = expect_error(&out, 2, "usage", "<command line>");
        assert!(
            line.contains(&format!(
                "{flag} {url}: {flag} takes a local file (no such file exists); nothing is fetched \
                 from a URL given there: download it and give the local file"
            )),
            "{line}"
        );
    }
    let out = run(
        &[
            "verify",
            "https://agent.example/.well-known/agent-card.json",
            "--jwks",
            "https://agent.example/jwks.json",
        ],
        None,
    );
    let line = expect_error(&out, 2, "usage", "<command line>");
    assert!(line.contains("--allow-jku"), "{line}");

    // A file that is named like a URL is still a file; a missing file is still an io error.
    let odd = dir.join("https:");
    std::fs::create_dir_all(odd.join("agent.example")).unwrap();
    std::fs::copy(&jwks, odd.join("agent.example/jwks.json")).unwrap();
    let out = run_in(
        Some(&dir),
        &["verify", s(&signed), "--jwks", "https://agent.example/jwks.json"],
        None,
        &[],
    );
    expect_code(&out, 0, "a file named like a URL");
    let out = run(&["verify", s(&signed), "--jwks", "missing.json"], None);
    expect_error(&out, 3, "io", "missing.json");
}

/// Every long flag of the subcommands whose name is more than one word (`allow-loopback`), in
/// both spellings a message might use by mistake (`allow-loopback`, `allow_loopback`).
fn multiword_flags() -> Vec<String> {
    let mut names = std::collections::BTreeSet::new();
    for sub in [
        "sign",
        "verify",
        "fetch",
        "keygen",
        "jwks",
        "canonicalize",
        "inspect",
        "lint",
        "migrate",
    ] {
        for word in help(&[sub]).split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')) {
            if let Some(flag) = word.strip_prefix("--").filter(|f| f.contains('-')) {
                names.insert(flag.to_string());
                names.insert(flag.replace('-', "_"));
            }
        }
    }
    names.into_iter().collect()
}

/// The names of `flags` that `line` writes without their `--`.
fn bare_names<'a>(line: &str, flags: &'a [String]) -> Vec<&'a str> {
    flags
        .iter()
        .filter(|f| {
            line.match_indices(f.as_str()).any(|(i, _)| {
                let before = &line[..i];
                let after = &line[i + f.len()..];
                // A longer flag that holds this one (--max-chain-len, --trust-anchors) is its own.
                let whole = !before.ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
                    && !after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-');
                whole && !before.ends_with("--")
            })
        })
        .map(String::as_str)
        .collect()
}

#[test]
fn every_refusal_that_names_an_option_names_it_with_its_dashes() {
    let flags = multiword_flags();
    assert!(flags.iter().any(|f| f == "allow-loopback"), "{flags:?}");
    assert_eq!(
        bare_names("only with allow-loopback, for", &flags),
        ["allow-loopback"]
    );
    assert!(bare_names("only with --allow-loopback, or --max-chain-len", &flags).is_empty());

    let (dir, card, pem, jwks) = card_and_key("traps-dashes", "ES256", &["--kid", "k1"]);
    let signed = dir.join("signed.json");
    sign_to(&card, &pem, &["--kid", "k1"], &signed);
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let loopback = "https://127.0.0.1:9/.well-known/agent-card.json";
    // (arguments, the flags the refusal must name)
    let cases: &[(&[&str], &[&str])] = &[
        (&["fetch", loopback], &["--allow-loopback"]),
        (&["verify", loopback, "--jwks", s(&jwks)], &["--allow-loopback"]),
        (
            &["verify", s(&signed)],
            &["--key", "--jwks", "--trust", "--trust-anchors"],
        ),
        (
            &[
                "verify",
                s(&signed),
                "--jwks",
                s(&jwks),
                "--allow-jku",
                "https://a.example/",
            ],
            &["--allow-jku"],
        ),
        (
            &["verify", s(&signed), "--jwks", "https://a.example/jwks.json"],
            &["--jwks", "--allow-jku", "--trust"],
        ),
        (
            &["verify", s(&signed), "--jwks", s(&jwks), "--alg", "HS256"],
            &["--alg"],
        ),
        (
            &[
                "verify",
                s(&signed),
                "--jwks",
                s(&jwks),
                "--origin",
                "http://a.example",
            ],
            &["--origin"],
        ),
        (
            &["verify", s(&signed), "--jwks", s(&jwks), "--require-eku", "nope"],
            &["--require-eku"],
        ),
        (
            &["verify", "--batch", s(&empty), "--jwks", s(&jwks)],
            &["--allow-empty"],
        ),
        (
            &["sign", s(&card), "--key", s(&pem), "--lint", "off"],
            &["--unknown"],
        ),
        (
            &[
                "sign",
                s(&signed),
                "--key",
                s(&pem),
                "--kid",
                "k1",
                "--unknown",
                "exclude",
            ],
            &["--replace", "--append"],
        ),
        (
            &[
                "sign",
                s(&signed),
                "--key",
                s(&pem),
                "--unknown",
                "exclude",
                "--replace",
                "--append",
            ],
            &["--replace", "--append"],
        ),
        (
            &["sign", s(&card), "--key", s(&pem), "--force"],
            &["--force", "--out", "--in-place"],
        ),
        (&["sign", "-", "--key", s(&pem), "--in-place"], &["--in-place"]),
    ];
    for (args, named) in cases {
        let out = run(args, Some(b"{}"));
        assert_ne!(out.status.code(), Some(0), "{args:?}");
        let err = stderr(&out);
        let line = err
            .lines()
            .find(|l| l.starts_with("error["))
            .unwrap_or_else(|| panic!("{args:?}: no error line: {err}"));
        for flag in *named {
            assert!(line.contains(flag), "{args:?} does not name {flag}: {line}");
        }
        assert!(
            bare_names(line, &flags).is_empty(),
            "{args:?}: {:?} without --: {line}",
            bare_names(line, &flags)
        );
    }
}

#[test]
fn a_self_signed_ca_served_as_the_servers_certificate_is_explained_with_the_fix() {
    use a2a_card_testkit::https::{Ca, Fixture, Resp, Server, LOOPBACK_ONLY};
    let dir = scratch("traps-tls");
    let net = |args: &[&str]| run_env(args, None, &[LOOPBACK_ONLY]);
    // The usual one-liner's certificate: a CA naming localhost, served as the server's own.
    let (ca_pem, itself) = Ca::self_signed_server(&["localhost", "127.0.0.1"]);
    let ca = write(&dir, "self-signed.pem", &ca_pem);
    let server = Server::start(&itself, |_| Resp::json(b"{}"));
    let url = server.url("localhost", "/.well-known/agent-card.json");
    let out = net(&[
        "fetch",
        &url,
        "--allow-loopback",
        "--ca-file",
        s(&ca),
        "--no-cache",
    ]);
    let line = expect_error(&out, 3, "certificate-invalid", &url);
    assert!(
        line.starts_with(
            "error[certificate-invalid]: the server presents a CA certificate as its own certificate"
        ),
        "{line}"
    );
    assert!(
        line.contains("give the CA's certificate as a TLS root (--ca-file)"),
        "{line}"
    );
    assert!(
        !line.contains("Other(") && !line.contains("CaUsedAsEndEntity"),
        "{line}"
    );

    // The fix it names: a leaf issued by that CA, the CA given with --ca-file.
    let fx = Fixture::new();
    let ca = fx.write_ca(&dir);
    let good = Server::start(&fx.leaf, |_| Resp::json(b"{\"name\":\"A\"}"));
    let url = good.url("localhost", "/.well-known/agent-card.json");
    let out = net(&[
        "fetch",
        &url,
        "--allow-loopback",
        "--ca-file",
        s(&ca),
        "--no-cache",
    ]);
    expect_code(&out, 0, "a leaf of the CA");

    // Without the CA: unknown issuer, pointing at --ca-file too.
    let out = net(&["fetch", &url, "--allow-loopback", "--no-cache"]);
    let line = expect_error(&out, 3, "certificate-invalid", &url);
    assert!(
        line.contains("does not lead to a trusted root (unknown issuer)"),
        "{line}"
    );
    assert!(
        line.contains("give its certificate as a TLS root (--ca-file)"),
        "{line}"
    );
}

#[test]
fn sign_format_json_reports_what_was_signed_on_stderr_and_leaves_the_card_as_it_was() {
    // EdDSA signs deterministically: the card bytes of the two formats can be compared.
    let (dir, card, pem, _) = card_and_key("traps-sign-json", "EdDSA", &["--kid", "k1"]);
    let args = ["--kid", "k1", "--also-profile", "prune-empty"];
    let text = sign(&card, &pem, &args);
    expect_code(&text, 0, "text");
    let json = sign(&card, &pem, &[&args[..], &["--format", "json"]].concat());
    expect_code(&json, 0, "json");
    assert_eq!(json.stdout, text.stdout, "the card is written as with text");
    let err = stderr(&json);
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    let report: serde_json::Value = serde_json::from_str(&err).unwrap();
    assert_eq!(report["input"], s(&card));
    assert_eq!(report["output"], "<stdout>");
    assert_eq!(report["kid"], "k1");
    assert_eq!(report["alg"], "EdDSA");
    assert_eq!(report["profile"], "spec");
    assert_eq!(report["replaced"], 0);
    assert_eq!(report["unsigned"], serde_json::json!(["/x-vendor"]));
    let spec = hex(&sha256(&canonical(&card, &["--unknown", "exclude"])));
    assert_eq!(report["canonical_sha256"], spec);
    assert_eq!(stderr_field(&text, "canonical sha256"), spec);
    assert!(report["canonical_encoding"]
        .as_str()
        .unwrap()
        .contains("RFC 8785"));
    let entries = report["signatures"].as_array().unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0]["pointer"], "/signatures/0");
    assert_eq!(entries[1]["pointer"], "/signatures/1");
    assert_eq!(entries[1]["profile"], "prune-empty");
    assert_eq!(
        entries[1]["canonical_sha256"],
        hex(&sha256(&canonical(
            &card,
            &["--unknown", "exclude", "--profile", "prune-empty"]
        )))
    );

    // To a file, replacing: the same report, the output named, nothing on stdout.
    let out_path = dir.join("signed.json");
    let out = sign(
        &card,
        &pem,
        &["--kid", "k1", "--format", "json", "--out", s(&out_path)],
    );
    expect_code(&out, 0, "--out");
    assert!(out.stdout.is_empty());
    let out = sign(
        &out_path,
        &pem,
        &["--kid", "k1", "--format", "json", "--replace", "--in-place"],
    );
    expect_code(&out, 0, "--in-place");
    let report: serde_json::Value = serde_json::from_str(&stderr(&out)).unwrap();
    assert_eq!(report["output"], s(&out_path));
    assert_eq!(report["replaced"], 1);
    assert_eq!(report["signatures"][0]["pointer"], "/signatures/0");

    // Refusals are the error line, whatever the format.
    let out = sign(&out_path, &pem, &["--kid", "k1", "--format", "json"]);
    expect_error(&out, 2, "kid-already-signed", s(&out_path));
    let out = sign(&card, &pem, &["--format", "yaml"]);
    expect_code(&out, 2, "--format yaml");
}
