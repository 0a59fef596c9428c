//! End-to-end tests of the `a2a-card` binary: real processes, real files, real pipes.

// Tests may unwrap and panic: a panic is how a test fails.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::*;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// The A2A v1.0 section 8.4.1 worked example, as the spec gives it.
const EXAMPLE_8_4_1: &str = r#"{
  "name": "Example Agent",
  "description": "",
  "capabilities": {
    "streaming": false,
    "pushNotifications": false,
    "extensions": []
  },
  "skills": []
}"#;

/// The canonical bytes the spec gives for it.
const EXPECTED_8_4_1: &str = r#"{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}"#;

fn write_file(name: &str, bytes: &[u8]) -> PathBuf {
    write(&scratch(name), "card.json", bytes)
}

#[test]
fn canonicalizes_the_8_4_1_worked_example_from_a_file() {
    let path = write_file("example", EXAMPLE_8_4_1.as_bytes());
    let out = run(&["canonicalize", path.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    // Exactly the bytes, no trailing newline, nothing on stderr.
    assert_eq!(String::from_utf8(out.stdout).unwrap(), EXPECTED_8_4_1);
    assert!(out.stderr.is_empty());
}

#[test]
fn reads_stdin_when_file_is_dash_or_absent() {
    for args in [&["canonicalize", "-"][..], &["canonicalize"][..]] {
        let out = run(args, Some(EXAMPLE_8_4_1.as_bytes()));
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        assert_eq!(String::from_utf8(out.stdout).unwrap(), EXPECTED_8_4_1, "{args:?}");
    }
}

/// A card where the three profiles disagree: an empty REQUIRED `description`, an `optional`
/// bool at `false`, an empty message-presence object (a security requirement with no scopes),
/// an unknown member, and a `signatures` member no profile covers.
const DIVERGENT: &str = r#"{"name":"A","description":"","version":"1",
  "capabilities":{"streaming":false},"securityRequirements":[{"schemes":{"bearer":{}}}],
  "x-vendor":{"k":[]},"signatures":[{"protected":"e30","signature":"AA"}]}"#;

#[test]
fn each_profile_gives_its_own_bytes() {
    let cases = [
        (
            "spec",
            r#"{"capabilities":{"streaming":false},"description":"","name":"A","securityRequirements":[{"schemes":{"bearer":{}}}],"version":"1"}"#,
        ),
        (
            "prune-empty",
            r#"{"capabilities":{"streaming":false},"name":"A","version":"1"}"#,
        ),
        (
            "served-as-is",
            r#"{"capabilities":{"streaming":false},"description":"","name":"A","securityRequirements":[{"schemes":{"bearer":{}}}],"version":"1","x-vendor":{"k":[]}}"#,
        ),
    ];
    for (profile, expected) in cases {
        let out = run(
            &["canonicalize", "--profile", profile],
            Some(DIVERGENT.as_bytes()),
        );
        assert_eq!(out.status.code(), Some(0), "{profile}: {}", stderr(&out));
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            expected,
            "profile {profile}"
        );
    }
}

#[test]
fn unknown_members_exclude_retain_reject() {
    let card = br#"{"name":"A","x-vendor":1}"#;
    let out = run(&["canonicalize", "--unknown", "exclude"], Some(card));
    assert_eq!(out.stdout, br#"{"name":"A"}"#);
    let out = run(&["canonicalize", "--unknown", "retain"], Some(card));
    assert_eq!(out.stdout, br#"{"name":"A","x-vendor":1}"#);

    let path = write_file("reject", card);
    let out = run(
        &["canonicalize", "--unknown", "reject", path.to_str().unwrap()],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let line = error_line(&out);
    assert!(line.starts_with("error[unknown-member]: "), "{line}");
    assert!(line.contains(" at /x-vendor "), "{line}");
    assert!(line.ends_with(&format!("({})", path.display())), "{line}");
}

#[test]
fn report_names_profile_unsigned_digest_and_length() {
    let out = run(&["canonicalize", "--report"], Some(DIVERGENT.as_bytes()));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let line = error_line(&out); // the report is the one stderr line
    let report: serde_json::Value = serde_json::from_str(&line).unwrap();
    let obj = report.as_object().unwrap();
    let mut keys: Vec<&str> = obj.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["bytes", "profile", "sha256", "unsigned"]);
    assert_eq!(report["profile"], "spec");
    assert_eq!(report["unsigned"], serde_json::json!(["/x-vendor"]));
    assert_eq!(report["bytes"].as_u64(), Some(out.stdout.len() as u64));

    // The digest, computed independently of the binary: ring in this process, and the system
    // sha256sum where there is one.
    let expected = hex(ring::digest::digest(&ring::digest::SHA256, &out.stdout).as_ref());
    assert_eq!(report["sha256"], expected.as_str());
    if let Ok(mut child) = Command::new("sha256sum")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
    {
        child.stdin.take().unwrap().write_all(&out.stdout).unwrap();
        let sum = child.wait_with_output().unwrap();
        let text = String::from_utf8(sum.stdout).unwrap();
        assert_eq!(text.split_whitespace().next(), Some(expected.as_str()));
    }

    let out = run(
        &["canonicalize", "--report", "--profile", "prune-empty"],
        Some(DIVERGENT.as_bytes()),
    );
    let report: serde_json::Value = serde_json::from_str(&error_line(&out)).unwrap();
    assert_eq!(report["profile"], "prune-empty");
    let unsigned = strings(&report["unsigned"]);
    // The empty security requirement the Python and JS SDKs drop is reported as not covered.
    assert!(
        unsigned.contains(&"/securityRequirements/0/schemes/bearer"),
        "{unsigned:?}"
    );
    assert!(unsigned.contains(&"/x-vendor"), "{unsigned:?}");
    assert!(!unsigned.contains(&"/signatures"), "{unsigned:?}");
}

#[test]
fn malformed_json_gives_one_exact_error_line() {
    let path = write_file("malformed", br#"{"name":"x","skills":[1,]}"#);
    let out = run(&["canonicalize", path.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let line = error_line(&out);
    assert!(line.starts_with("error[invalid-json]: "), "{line}");
    assert!(line.contains(" at /skills/1"), "{line}");
    assert!(line.ends_with(&format!("({})", path.display())), "{line}");

    // On stdin the file is named <stdin>.
    let out = run(&["canonicalize"], Some(b"{\"name\":"));
    let line = error_line(&out);
    assert_eq!(out.status.code(), Some(2));
    assert!(line.starts_with("error[invalid-json]: "), "{line}");
    assert!(line.ends_with(" (<stdin>)"), "{line}");
}

#[test]
fn duplicate_member_names_its_pointer() {
    let out = run(
        &["canonicalize"],
        Some(br#"{"name":"a","capabilities":{"streaming":true,"streaming":false}}"#),
    );
    assert_eq!(out.status.code(), Some(2));
    let line = error_line(&out);
    assert!(line.starts_with("error[duplicate-member]: "), "{line}");
    assert!(line.contains(" at /capabilities/streaming"), "{line}");
    assert!(line.ends_with(" (<stdin>)"), "{line}");
}

#[test]
fn missing_file_is_an_io_error() {
    let path = scratch("missing").join("no-such-card.json");
    let out = run(&["canonicalize", path.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let line = error_line(&out);
    assert!(line.starts_with("error[io]: "), "{line}");
    assert!(line.ends_with(&format!("({})", path.display())), "{line}");
}

#[test]
fn input_over_the_limit_is_refused() {
    let out = run(
        &["canonicalize", "--max-input-bytes", "16"],
        Some(EXAMPLE_8_4_1.as_bytes()),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(error_line(&out).starts_with("error[input-too-large]: "));
    // At the limit exactly it passes.
    let n = EXAMPLE_8_4_1.len().to_string();
    let out = run(
        &["canonicalize", "--max-input-bytes", &n],
        Some(EXAMPLE_8_4_1.as_bytes()),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["canonicalize", "--profile", "strict"][..],
        &["canonicalize", "--unknown", "ignore"][..],
        &["canonicalize", "--max-input-bytes", "-1"][..],
        &["canonicalize", "--no-such-flag"][..],
        &["no-such-subcommand"][..],
        &[][..],
    ] {
        let out = run(args, Some(b"{}"));
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
}

#[test]
fn help_documents_exit_codes_and_examples() {
    let help = help(&[]);
    assert_mentions(
        &help,
        &[
            "Exit codes:",
            "0  ",
            "1  a signature is invalid",
            "2  bad input or usage",
            "3  key or network",
        ],
    );
    // Every subcommand's help has an example.
    let subcommands: Vec<String> = help
        .split("Commands:")
        .nth(1)
        .unwrap()
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .collect();
    assert!(
        subcommands.contains(&"canonicalize".to_string()),
        "{subcommands:?}"
    );
    for sub in &subcommands {
        let text = common::help(&[sub]);
        assert!(text.contains("Example"), "{sub} --help has no example:\n{text}");
        assert!(
            text.contains(&format!("a2a-card {sub} ")),
            "{sub} --help example does not run {sub}"
        );
    }
}

/// Every vector of testvectors/canonical through the binary, read by the one loader.
#[test]
fn canonical_test_vectors() {
    use a2a_card_testkit::vectors::{canonical_vectors_or_panic, Expected};
    let vectors = canonical_vectors_or_panic();
    let scratch = scratch("vectors");
    for (n, v) in vectors.iter().enumerate() {
        let id = &v.id;
        let input_path = write(&scratch, &format!("{n}.json"), &v.input);
        let mut args: Vec<String> = vec![
            "canonicalize".into(),
            input_path.display().to_string(),
            "--report".into(),
            "--profile".into(),
            v.profile.clone(),
        ];
        if let Some(u) = &v.unknown {
            args.extend(["--unknown".into(), u.clone()]);
        }
        if let Some(max) = v.max_input_bytes {
            args.extend(["--max-input-bytes".into(), max.to_string()]);
        }
        if let Some(max) = v.max_depth {
            args.extend(["--max-depth".into(), max.to_string()]);
        }
        let arg_refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = run(&arg_refs, None);

        match &v.expected {
            Expected::Bytes { bytes, unsigned } => {
                assert_eq!(out.status.code(), Some(0), "{id}: {}", stderr(&out));
                assert_eq!(hex(&out.stdout), hex(bytes), "{id}: canonical bytes differ");
                let report: serde_json::Value = serde_json::from_str(&error_line(&out)).unwrap();
                assert_eq!(
                    report["unsigned"],
                    serde_json::json!(unsigned),
                    "{id}: unsigned pointers differ"
                );
                assert_eq!(report["profile"], v.profile.as_str(), "{id}");
            }
            Expected::Error { code, pointer } => {
                assert_eq!(
                    out.status.code(),
                    Some(2),
                    "{id}: expected an error, got {:?}",
                    String::from_utf8_lossy(&out.stdout)
                );
                assert!(out.stdout.is_empty(), "{id}");
                let line = error_line(&out);
                assert!(
                    line.starts_with(&format!("error[{code}]: ")),
                    "{id}: expected code {code}, got {line}"
                );
                let source = format!(" ({})", input_path.display());
                assert!(line.ends_with(&source), "{id}: {line}");
                match pointer.as_deref() {
                    Some("") => assert!(
                        line.contains(" at (document root) (") || line.contains(" at byte "),
                        "{id}: expected the document root in {line}"
                    ),
                    Some(p) => assert!(
                        line.contains(&format!(" at {p} (")),
                        "{id}: expected pointer {p} in {line}"
                    ),
                    None => {}
                }
            }
        }
    }
    assert!(
        vectors.len() >= 60,
        "only {} canonical vectors; expected at least 60",
        vectors.len()
    );
}
