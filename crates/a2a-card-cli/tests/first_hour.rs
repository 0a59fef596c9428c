//! The traps a new user met in the first hour, each closed: what the build is and installs
//! (version, completions, man pages), errors in the documented one-line form, kid and key
//! mix-ups, values that were accepted and then matched nothing, an empty batch, and a command
//! waiting on a terminal without a word.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::*;
use std::path::Path;
use std::process::{Command, Stdio};

#[test]
fn version_completions_and_man_pages() {
    let out = run(&["--version"], None);
    expect_code(&out, 0, "--version");
    let line = stdout(&out);
    assert!(
        line.starts_with(&format!("a2a-card {} (commit ", env!("CARGO_PKG_VERSION"))),
        "{line}"
    );
    assert!(line.contains(std::env::consts::ARCH), "the target: {line}");

    let out = run(&["version", "--format", "json"], None);
    expect_code(&out, 0, "version");
    let v = json_out(&out);
    assert_eq!(v["version"], env!("CARGO_PKG_VERSION"));
    assert!(v["commit"].as_str().is_some_and(|c| !c.is_empty()));
    let algs: Vec<&str> = v["algorithms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    for (alg, _) in ALGORITHMS {
        assert!(algs.contains(alg), "{alg} missing from {algs:?}");
    }
    assert!(
        !algs.iter().any(|a| a.starts_with("HS")),
        "HMAC is not a card algorithm"
    );
    assert!(stdout(&run(&["version"], None)).contains("\nalgorithms: EdDSA, ES256"));

    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = run(&["completions", shell], None);
        expect_code(&out, 0, shell);
        let text = stdout(&out);
        assert!(
            text.contains("a2a-card") && text.contains("verify") && text.contains("jwks"),
            "{shell}"
        );
    }
    let out = run(&["completions", "tcsh"], None);
    expect_code(&out, 2, "unknown shell");
    assert!(stderr(&out).starts_with("error[usage]: "), "{}", stderr(&out));

    let page = stdout(&run(&["man"], None));
    assert!(
        page.contains(".TH a2a-card 1") && page.contains("verify"),
        "{page}"
    );
    let dir = scratch("man");
    let out = run(&["man", "--out-dir", s(&dir.join("man1"))], None);
    expect_code(&out, 0, "man --out-dir");
    let pages = listing(&dir.join("man1"));
    for sub in [
        "a2a-card.1",
        "a2a-card-sign.1",
        "a2a-card-verify.1",
        "a2a-card-version.1",
    ] {
        assert!(pages.iter().any(|p| p == sub), "{sub} not in {pages:?}");
    }
    let sign = std::fs::read_to_string(dir.join("man1/a2a-card-sign.1")).unwrap();
    assert!(sign.contains("\\-\\-unknown"), "the sign page lists its options");
}

#[test]
fn argument_errors_start_with_the_documented_line() {
    for args in [
        &["frobnicate"][..],
        &["sign", "--alg"],
        &["verify", "--mode", "sometimes"],
        &[],
    ] {
        let out = run(args, None);
        expect_code(&out, 2, &format!("{args:?}"));
        let err = stderr(&out);
        let first = err.lines().next().unwrap_or_default();
        assert!(first.starts_with("error[usage]: "), "{args:?}: {err}");
    }
}

#[test]
fn jwks_publishes_the_kid_and_alg_the_card_is_signed_with() {
    let dir = scratch("jwks-kid");
    let card = write(&dir, "card.json", CARD);
    let (pem, _) = keygen(&dir, "release", "ES256", &["--kid", "rel-2026"]);
    let jwks = dir.join("published.json");
    expect_code(
        &run(
            &[
                "jwks",
                s(&pem),
                "--kid",
                "rel-2026",
                "--alg",
                "ES256",
                "-o",
                s(&jwks),
            ],
            None,
        ),
        0,
        "jwks",
    );
    let set = read_json(&jwks);
    assert_eq!(set["keys"][0]["kid"], "rel-2026");
    assert_eq!(set["keys"][0]["alg"], "ES256");
    let signed = dir.join("signed.json");
    sign_to(&card, &pem, &["--kid", "rel-2026"], &signed);
    expect_code(
        &verify(&signed, &jwks, &[]),
        0,
        "signed and published under one kid",
    );

    // Without --kid, the PEM's thumbprint: the card's kid matches nothing, and the message says
    // which kids are trusted.
    let thumb = dir.join("thumb.json");
    expect_code(&run(&["jwks", s(&pem), "-o", s(&thumb)], None), 0, "jwks");
    let out = verify(&signed, &thumb, &[]);
    expect_code(&out, 1, "kid mismatch");
    let text = stdout(&out);
    assert!(text.contains("untrusted-key"), "{text}");
    assert!(text.contains("the trusted kids are \""), "{text}");

    // --kid names one key; --alg must fit the key.
    let (other, _) = keygen(&dir, "other", "ES256", &[]);
    let out = run(&["jwks", s(&pem), s(&other), "--kid", "x"], None);
    expect_error(&out, 2, "usage", "<command line>");
    // An empty --kid: the core's rule, named by the flag.
    let out = run(&["jwks", s(&pem), "--kid", ""], None);
    expect_error(&out, 2, "usage", "<command line>");
    assert!(
        error_line(&out).contains("--kid: the kid must not be empty"),
        "{}",
        error_line(&out)
    );
    let out = run(&["jwks", s(&pem), "--alg", "ES384"], None);
    let line = error_line(&out);
    assert!(
        line.starts_with("error[key-algorithm-mismatch]") && line.ends_with(&format!("({})", s(&pem))),
        "{line}"
    );
}

#[test]
fn every_command_that_writes_a_document_takes_dash_o() {
    let dir = scratch("dash-o");
    let card = write(&dir, "card.json", CARD);
    let (pem, _) = keygen(&dir, "k", "ES256", &[]);
    let cases: Vec<(&str, Vec<String>)> = vec![
        ("canonicalize", vec!["canonicalize".into(), s(&card).into()]),
        ("jwks", vec!["jwks".into(), s(&pem).into()]),
        ("schema", vec!["schema".into()]),
        (
            "sign",
            vec![
                "sign".into(),
                s(&card).into(),
                "--key".into(),
                s(&pem).into(),
                "--unknown".into(),
                "exclude".into(),
            ],
        ),
        ("keygen", vec!["keygen".into(), "--alg".into(), "EdDSA".into()]),
    ];
    for (name, mut args) in cases {
        let target = dir.join(format!("{name}.out"));
        args.extend(["-o".into(), s(&target).into()]);
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = run(&refs, None);
        expect_code(&out, 0, name);
        assert!(
            std::fs::metadata(&target).unwrap().len() > 0,
            "{name} -o wrote nothing"
        );
        if name != "keygen" {
            assert!(out.stdout.is_empty(), "{name} -o: stdout has {:?}", stdout(&out));
        }
    }
}

#[test]
fn sign_refuses_to_leave_members_uncovered_until_told() {
    let dir = scratch("sign-unsigned");
    let card = write(&dir, "card.json", CARD);
    let (pem, jwks) = keygen(&dir, "k", "ES256", &[]);
    let before = std::fs::read(&card).unwrap();
    let out = run(&["sign", s(&card), "--key", s(&pem), "--in-place"], None);
    let line = expect_error(&out, 2, "unsigned-members", s(&card));
    assert!(
        line.contains("/x-vendor") && line.contains("the option --unknown: retain"),
        "{line}"
    );
    assert_eq!(std::fs::read(&card).unwrap(), before, "the card is untouched");

    let v03 = write(
        &dir,
        "v03.json",
        r#"{"name":"A","description":"d","version":"1","skills":[],"url":"https://a.example/rpc","preferredTransport":"JSONRPC"}"#,
    );
    // An A2A 0.3 card lints with errors first (sign lints by default); the line names the
    // migration either way.
    let line = expect_error(
        &run(&["sign", s(&v03), "--key", s(&pem)], None),
        2,
        "lint-failed",
        s(&v03),
    );
    assert!(
        line.contains("migrate rewrites it for v1.0") && line.contains("/url"),
        "{line}"
    );
    let line = expect_error(
        &run(&["sign", s(&v03), "--key", s(&pem), "--lint", "off"], None),
        2,
        "unsigned-members",
        s(&v03),
    );
    assert!(line.contains("migrate the card to v1.0 first"), "{line}");

    // Chosen: excluded (reported unsigned) or retained (covered).
    for (unknown, unsigned) in [("exclude", r#"["/x-vendor"]"#), ("retain", "[]")] {
        let signed = dir.join(format!("{unknown}.json"));
        let out = sign_to(&card, &pem, &["--unknown", unknown], &signed);
        assert_eq!(stderr_field(&out, "unsigned"), unsigned);
        expect_code(&verify(&signed, &jwks, &["--unknown", unknown]), 0, unknown);
    }
}

#[test]
fn a_card_signed_the_sdk_way_names_the_profile_it_declares() {
    let (dir, card, pem, jwks) = card_and_key("sdk-hint", "ES256", &[]);
    let signed = dir.join("signed.json");
    sign_to(&card, &pem, &["--profile", "prune-empty"], &signed);
    let out = verify(&signed, &jwks, &[]);
    expect_code(&out, 1, "spec only");
    let text = stdout(&out);
    // The signature says which bytes it covers: not a bad signature, a profile not accepted.
    assert!(!text.contains("signature-invalid"), "{text}");
    assert!(
        text.contains(
            "profile-not-accepted: made over the prune-empty bytes (what a2a-sdk and @a2a-js/sdk sign), \
             as its protected header declares; not accepted by this policy"
        ),
        "{text}"
    );
    expect_code(&verify(&signed, &jwks, &["--profile", "auto"]), 0, "auto");
}

#[test]
fn values_that_would_match_nothing_are_refused_up_front() {
    let (dir, card, pem, jwks) = card_and_key("refused-values", "ES256", &[]);
    let signed = dir.join("signed.json");
    sign_to(&card, &pem, &[], &signed);
    for origin in [
        "agent.example.com",
        "https://agent.example.com/path",
        "http://agent.example.com",
        // The core's one origin rule: no control character, space or percent sign in a host.
        "https://agent.example.com\u{1}",
        "https://agent\u{7f}.example.com",
        "https://agent .example.com",
        "https://agent%2eexample.com",
    ] {
        let out = verify(&signed, &jwks, &["--origin", origin]);
        let line = expect_error(&out, 2, "usage", "<command line>");
        assert!(line.contains("--origin"), "{line}");
        assert!(!line.contains(['\u{1}', '\u{7f}']), "{line:?}");
    }
    for alg in ["HS256", "HS384", "HS512"] {
        let out = verify(&signed, &jwks, &["--alg", alg]);
        let line = expect_error(&out, 2, "usage", "<command line>");
        assert!(line.contains("shared secret"), "{line}");
    }
    for jku in ["http://agent.example.com/jwks.json", "jwks.json", "https://"] {
        let out = run(
            &[
                "sign",
                s(&card),
                "--key",
                s(&pem),
                "--jku",
                jku,
                "--unknown",
                "exclude",
            ],
            None,
        );
        let line = expect_error(&out, 2, "usage", "<command line>");
        assert!(line.contains("https"), "{line}");
    }
}

#[test]
fn diagnoses_name_the_mix_up_and_the_file() {
    let (dir, card, pem, jwks) = card_and_key("diagnoses", "ES256", &[]);
    let key_error = |args: &[&str], file: &str, words: &[&str]| {
        let out = run(args, None);
        let line = error_line(&out);
        assert!(
            line.ends_with(&format!("({file})")),
            "{args:?}: names {file}: {line}"
        );
        for w in words {
            assert!(line.contains(w), "{args:?}: {w:?} not in {line}");
        }
    };
    key_error(
        &["sign", s(&card), "--key", s(&jwks)],
        s(&jwks),
        &["JWK Set", "private key"],
    );
    key_error(
        &["verify", s(&card), "--jwks", s(&pem)],
        s(&pem),
        &["PEM", "--key"],
    );
    let trust = write(
        &dir,
        "trust.json",
        format!(
            r#"{{"keys":[{{"jwk":{},"origins":["https://a.example"]}}]}}"#,
            only_jwk(&jwks)
        ),
    );
    key_error(
        &["verify", s(&card), "--jwks", s(&trust)],
        s(&trust),
        &["trust store", "--trust"],
    );
    let empty = write(&dir, "empty.json", "");
    key_error(&["verify", s(&card), "--jwks", s(&empty)], s(&empty), &["empty"]);
    key_error(&["canonicalize", s(&empty)], s(&empty), &["empty"]);
    key_error(
        &["verify", s(&dir), "--jwks", s(&jwks)],
        s(&dir),
        &["directory", "--batch"],
    );
    key_error(
        &["verify", "agent.example.com", "--jwks", s(&jwks)],
        "agent.example.com",
        &["https://agent.example.com"],
    );
    key_error(
        &["canonicalize", s(&card), "--max-input-bytes", "10"],
        s(&card),
        &["--max-input-bytes"],
    );
    key_error(
        &["sign", s(&card), "--key", s(&pem), "--header", "note=hi"],
        "--header note",
        &["is JSON", r#"'note="hi"'"#],
    );
    key_error(
        &["sign", s(&card), "--key", s(&pem), "--alg", "ES384"],
        s(&pem),
        &["P-384"],
    );

    // A key file that starts with a UTF-8 byte order mark is read.
    let mut bom = b"\xef\xbb\xbf".to_vec();
    bom.extend(std::fs::read(&pem).unwrap());
    let bom_pem = write(&dir, "bom.pem", bom);
    let signed = dir.join("signed.json");
    sign_to(&card, &bom_pem, &[], &signed);
    expect_code(&verify(&signed, &jwks, &[]), 0, "signed with the BOM key");
}

#[test]
fn an_empty_batch_is_refused_unless_allowed() {
    let (dir, _, _, jwks) = card_and_key("empty-batch", "ES256", &[]);
    let empty_dir = dir.join("cards");
    std::fs::create_dir(&empty_dir).unwrap();
    let empty_lines = write(&dir, "cards.jsonl", "\n\n");
    // A directory batch reads *.json files, never *.jsonl: the message says so, and names no
    // *.jsonl file as something the directory could have held.
    let jsonl_dir = dir.join("lines");
    std::fs::create_dir(&jsonl_dir).unwrap();
    write(&jsonl_dir, "cards.jsonl", "{}\n");
    let expected: [(&Path, &[&str], &[&str]); 3] = [
        (&empty_dir, &["the directory has no *.json file"], &["jsonl"]),
        (
            &empty_lines,
            &["the JSON Lines file has no non-empty line"],
            &["*.json file"],
        ),
        (
            &jsonl_dir,
            &[
                "no *.json file",
                "a *.jsonl file, which a directory batch does not read",
            ],
            &[],
        ),
    ];
    for (batch, says, not) in expected {
        let out = run(&["verify", "--batch", s(batch), "--jwks", s(&jwks)], None);
        expect_code(&out, 2, "empty batch");
        let err = stderr(&out);
        assert!(err.contains("error[usage]: the batch holds no card"), "{err}");
        for needle in says {
            assert!(err.contains(needle), "{needle}: {err}");
        }
        for needle in not {
            assert!(!err.contains(needle), "{needle}: {err}");
        }
        let out = run(
            &["verify", "--batch", s(batch), "--jwks", s(&jwks), "--allow-empty"],
            None,
        );
        expect_code(&out, 0, "--allow-empty");
    }
}

#[test]
fn inspect_shows_the_unprotected_header() {
    let (dir, card, pem, _) = card_and_key("inspect-header", "ES256", &[]);
    let signed = dir.join("signed.json");
    sign_to(&card, &pem, &["--header", r#"note="release 7""#], &signed);
    let text = stdout(&run(&["inspect", s(&signed)], None));
    assert!(
        text.contains(r#"  unprotected header (not signed): {"note":"release 7"}"#),
        "{text}"
    );
    let v = json_out(&run(&["inspect", s(&signed), "--format", "json"], None));
    assert_eq!(v["signatures"][0]["header"], r#"{"note":"release 7"}"#);
}

#[test]
fn a_command_reading_a_terminal_says_so_and_a_pipe_stays_quiet() {
    // `script` gives the binary a terminal as stdin; what we type ends with Ctrl-D.
    let have_script = Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !have_script {
        assert!(std::env::var_os("CI").is_none(), "script (util-linux) is missing");
        eprintln!("note: no script(1); skipping");
        return;
    }
    let cmd = format!("{} canonicalize", bin_path().display());
    let mut child = Command::new("script")
        .args(["-q", "-e", "-c", &cmd, "/dev/null"])
        .env_remove(KEY_ENV)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(b"{\"name\":\"A\"}\n\x04").unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let shown = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        shown.contains("reading the card from stdin (the terminal)"),
        "{shown:?}"
    );
    assert!(shown.contains(r#"{"name":"A"}"#), "{shown:?}");

    // From a pipe, nothing but the output.
    let out = run(&["canonicalize"], Some(br#"{"name":"A"}"#));
    expect_code(&out, 0, "pipe");
    assert!(out.stderr.is_empty(), "{}", stderr(&out));
}
