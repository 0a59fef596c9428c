//! End-to-end tests of `verify`'s failure paths and policy, `inspect`, `keygen`'s file handling,
//! and the help texts: each outcome with its exit code and its error line or verdict.

#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::*;
use std::path::{Path, PathBuf};

/// A scratch directory with the small card signed by a fresh ES256 key: (dir, signed card, PEM,
/// JWKS).
fn signed_card(name: &str) -> (PathBuf, PathBuf, PathBuf, PathBuf) {
    let (dir, card, pem, jwks) = card_and_key(name, "ES256", &[]);
    let signed = dir.join("signed.json");
    sign_to(&card, &pem, &[], &signed);
    (dir, signed, pem, jwks)
}

/// Runs verify with `--format json` and returns (exit code, report).
fn verify_json(card: &Path, args: &[&str]) -> (i32, serde_json::Value) {
    let mut all = vec!["verify", s(card), "--format", "json"];
    all.extend_from_slice(args);
    let out = run(&all, None);
    assert!(out.stderr.is_empty(), "stderr: {}", stderr(&out));
    (out.status.code().unwrap(), json_out(&out))
}

#[test]
fn unknown_kid_is_untrusted_key_in_text_and_json() {
    let (dir, signed, _, _) = signed_card("unknown-kid");
    let (_, other) = keygen(&dir, "other", "ES256", &[]);
    let (code, report) = verify_json(&signed, &["--jwks", s(&other)]);
    assert_eq!(code, 1);
    assert_eq!(report["ok"], false);
    assert_eq!(report["signatures"][0]["verdict"]["code"], "untrusted-key");
    assert!(report["signatures"][0]["key"].is_null());
    let out = verify(&signed, &other, &[]);
    expect_code(&out, 1, "text");
    let text = stdout(&out);
    assert!(
        text.starts_with("INVALID: none of the 1 signatures verifies"),
        "{text}"
    );
    assert!(text.contains("signature 0: kid \""), "{text}");
    assert!(text.contains(": untrusted-key: "), "{text}");
    assert!(out.stderr.is_empty());
}

#[test]
fn tampered_card_is_signature_invalid() {
    let (dir, signed, _, jwks) = signed_card("tampered");
    let text = std::fs::read_to_string(&signed).unwrap();
    for (name, from, to) in [
        ("covered member", "\"1.0.0\"", "\"1.0.1\""),
        (
            "empty REQUIRED member",
            "\"description\": \"\"",
            "\"description\": \" \"",
        ),
        ("optional bool", "\"streaming\": true", "\"streaming\": false"),
    ] {
        assert!(text.contains(from), "{name}");
        let tampered = write(&dir, "tampered.json", text.replace(from, to));
        let (code, report) = verify_json(&tampered, &["--jwks", s(&jwks)]);
        assert_eq!(code, 1, "{name}");
        assert_eq!(
            report["signatures"][0]["verdict"]["code"], "signature-invalid",
            "{name}"
        );
    }
    // Members the signature does not cover can change, and the report names them.
    let edited = write(&dir, "edited.json", text.replace("\"build\": 7", "\"build\": 8"));
    let (code, report) = verify_json(&edited, &["--jwks", s(&jwks)]);
    assert_eq!(code, 0);
    assert_eq!(report["unsigned"], serde_json::json!(["/x-vendor"]));
}

#[test]
fn key_files_that_cannot_be_read_exit_3() {
    let (dir, signed, _, _) = signed_card("bad-keys");
    let missing = dir.join("missing.json");
    for flag in ["--key", "--jwks", "--trust"] {
        let out = run(&["verify", s(&signed), flag, s(&missing)], None);
        let line = expect_error(&out, 3, "io", s(&missing));
        assert!(line.contains("cannot open"), "{line}");
    }
    let cases: &[(&str, &str, &[u8], &str)] = &[
        ("--key", "garbage.pem", b"hello", "invalid-key"),
        ("--key", "binary.pem", &[0xff, 0xfe, 0x00], "invalid-key"),
        ("--key", "two.json", br#"{"keys":[]}"#, "invalid-key"),
        (
            "--jwks",
            "bad.jwks.json",
            br#"{"keys":[{"kty":"EC","crv":"Ed25519","x":"AA"}]}"#,
            "jwk-inconsistent",
        ),
        ("--jwks", "notjson.jwks.json", b"{\"keys\":[", "invalid-json"),
        (
            "--trust",
            "bad.trust.json",
            br#"{"keys":[{"pem":"x","revokd":true}]}"#,
            "invalid-key",
        ),
        (
            "--trust",
            "typo.trust.json",
            br#"{"keys":[],"extra":1}"#,
            "invalid-trust-store",
        ),
    ];
    for (flag, name, bytes, code) in cases {
        let file = write(&dir, name, bytes);
        let out = run(&["verify", s(&signed), flag, s(&file)], None);
        expect_error(&out, 3, code, s(&file));
    }
    // A JWKS with a bad entry names the entry.
    let line = {
        let file = dir.join("bad.jwks.json");
        let out = verify(&signed, &file, &[]);
        error_line(&out)
    };
    assert!(line.contains(" at /keys/0/crv "), "{line}");
    // The same holds for sign's --key.
    let out = run(
        &["sign", "--unknown", "exclude", s(&signed), "--key", s(&missing)],
        None,
    );
    expect_error(&out, 3, "io", s(&missing));
}

#[test]
fn malformed_cards_and_usage_errors_exit_2() {
    let (dir, _, _, jwks) = signed_card("malformed");
    let bad = write(&dir, "bad.json", br#"{"name":"x","skills":[1,]}"#);
    let out = verify(&bad, &jwks, &[]);
    let line = expect_error(&out, 2, "invalid-json", s(&bad));
    assert!(line.contains(" at /skills/1"), "{line}");
    let dup = write(
        &dir,
        "dup.json",
        br#"{"name":"x","capabilities":{"streaming":true,"streaming":false}}"#,
    );
    let out = verify(&dup, &jwks, &[]);
    let line = expect_error(&out, 2, "duplicate-member", s(&dup));
    assert!(line.contains(" at /capabilities/streaming"), "{line}");
    let sigs = write(&dir, "sigs.json", br#"{"name":"x","signatures":"none"}"#);
    let out = verify(&sigs, &jwks, &[]);
    let line = expect_error(&out, 2, "malformed-card", s(&sigs));
    assert!(line.contains(" at /signatures "), "{line}");
    let missing = dir.join("missing.json");
    let out = verify(&missing, &jwks, &[]);
    expect_error(&out, 2, "io", s(&missing));

    // No trust roots at all, or files that hold none.
    let out = run(&["verify", s(&bad)], None);
    let line = expect_error(&out, 2, "usage", "<command line>");
    assert!(line.contains("no trust roots"), "{line}");
    // The card and a key cannot both come from stdin; one of them can.
    let out = run(&["verify", "-", "--key", "-"], Some(b"{}"));
    expect_error(&out, 2, "usage", "<command line>");
    let out = run(&["verify", s(&bad), "--jwks", "-", "--trust", "-"], Some(b"{}"));
    expect_error(&out, 2, "usage", "<command line>");
    let jwks_text = std::fs::read(&jwks).unwrap();
    let out = run(&["verify", s(&bad), "--jwks", "-"], Some(&jwks_text));
    expect_error(&out, 2, "invalid-json", s(&bad));
    let empty = write(&dir, "empty.jwks.json", br#"{"keys":[]}"#);
    let out = verify(&bad, &empty, &[]);
    expect_error(&out, 2, "usage", "<command line>");

    for args in [
        &["verify", "x.json", "--jwks", "k.json", "--mode", "any"][..],
        &["verify", "x.json", "--jwks", "k.json", "--alg", "none"][..],
        &["verify", "x.json", "--jwks", "k.json", "--alg", "es256"][..],
        &["verify", "x.json", "--jwks", "k.json", "--profile", "strict"][..],
        &["verify", "x.json", "--jwks", "k.json", "--format", "yaml"][..],
        &["inspect", "x.json", "--format", "yaml"][..],
        &["keygen", "--alg", "ES256"][..],
        &["keygen", "--out", "k.pem"][..],
    ] {
        let out = run(args, None);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn algorithm_policy() {
    let (_, signed, _, jwks) = signed_card("alg-policy");
    let (code, report) = verify_json(&signed, &["--jwks", s(&jwks), "--alg", "EdDSA"]);
    assert_eq!(code, 1);
    assert_eq!(
        report["signatures"][0]["verdict"]["code"],
        "algorithm-not-allowed"
    );
    for allowed in [
        &["--alg", "ES256"][..],
        &["--alg", "EdDSA,ES256"][..],
        &["--alg", "EdDSA", "--alg", "ES256"][..],
    ] {
        let mut args = vec!["--jwks", s(&jwks)];
        args.extend_from_slice(allowed);
        assert_eq!(verify_json(&signed, &args).0, 0, "{allowed:?}");
    }
}

#[test]
fn trust_store_policy_expiry_revocation_origins_algorithms() {
    let (dir, signed, _, jwks) = signed_card("trust-policy");
    let jwk = only_jwk(&jwks);
    let trust = |name: &str, entry: serde_json::Value| {
        let mut e = entry;
        e["jwk"] = jwk.clone();
        write(&dir, name, serde_json::json!({ "keys": [e] }).to_string())
    };
    let cases: Vec<(&str, serde_json::Value, &[&str], i32, &str)> = vec![
        (
            "expired",
            serde_json::json!({"notAfter": "2001-01-01T00:00:00Z"}),
            &[],
            1,
            "key-expired",
        ),
        (
            "not-yet",
            serde_json::json!({"notBefore": "2999-01-01T00:00:00Z"}),
            &[],
            1,
            "key-expired",
        ),
        (
            "window",
            serde_json::json!({"notBefore": 0, "notAfter": "2999-01-01T00:00:00Z"}),
            &[],
            0,
            "valid",
        ),
        (
            "revoked",
            serde_json::json!({"revoked": true}),
            &[],
            1,
            "key-revoked",
        ),
        (
            "origin-none",
            serde_json::json!({"origins": ["https://agent.example"]}),
            &[],
            1,
            "untrusted-key",
        ),
        (
            "origin-ok",
            serde_json::json!({"origins": ["https://agent.example"]}),
            &["--origin", "https://Agent.example:443"],
            0,
            "valid",
        ),
        (
            "origin-other",
            serde_json::json!({"origins": ["https://agent.example"]}),
            &["--origin", "https://evil.example"],
            1,
            "untrusted-key",
        ),
    ];
    for (name, entry, extra, code, verdict) in cases {
        let file = trust(&format!("{name}.json"), entry);
        let mut args = vec!["--trust", s(&file)];
        args.extend_from_slice(extra);
        let (got, report) = verify_json(&signed, &args);
        assert_eq!(got, code, "{name}: {report}");
        assert_eq!(report["signatures"][0]["verdict"]["code"], verdict, "{name}");
    }
    // A trust entry limited to other algorithms: an RSA key allowed PS256 only, used with RS256.
    let (rsa, rsa_jwks) = keygen(&dir, "rsa", "RS256", &[]);
    let mut rsa_jwk = only_jwk(&rsa_jwks);
    rsa_jwk.as_object_mut().unwrap().remove("alg");
    let file = write(
        &dir,
        "ps-only.json",
        serde_json::json!({"keys":[{"jwk": rsa_jwk, "algorithms": ["PS256"]}]}).to_string(),
    );
    let rs = dir.join("rs.json");
    sign_to(&write(&dir, "card2.json", CARD), &rsa, &[], &rs);
    let (code, report) = verify_json(&rs, &["--trust", s(&file)]);
    assert_eq!(code, 1);
    assert_eq!(
        report["signatures"][0]["verdict"]["code"],
        "algorithm-not-allowed"
    );
    // A JWK declaring alg RS256 refuses a PS256 signature by that key.
    let ps = dir.join("ps.json");
    sign_to(&write(&dir, "card3.json", CARD), &rsa, &["--alg", "PS256"], &ps);
    let (code, report) = verify_json(&ps, &["--jwks", s(&rsa_jwks)]);
    assert_eq!(code, 1);
    assert_eq!(
        report["signatures"][0]["verdict"]["code"],
        "key-algorithm-mismatch"
    );
}

#[test]
fn modes_and_signature_limits() {
    let (dir, signed, pem, jwks) = signed_card("modes");
    let unsigned = write(&dir, "unsigned.json", CARD);
    let (code, report) = verify_json(&unsigned, &["--jwks", s(&jwks)]);
    assert_eq!(code, 1, "require on an unsigned card");
    assert_eq!(report["signatures"], serde_json::json!([]));
    assert_eq!(
        verify_json(&unsigned, &["--jwks", s(&jwks), "--mode", "if-present"]).0,
        0
    );
    assert_eq!(
        verify_json(&unsigned, &["--jwks", s(&jwks), "--mode", "all"]).0,
        1
    );
    assert_eq!(
        verify_json(&signed, &["--jwks", s(&jwks), "--mode", "if-present"]).0,
        0
    );

    // A second signature by an untrusted key: require passes, all and if-present do not.
    let (other, _) = keygen(&dir, "other", "EdDSA", &[]);
    let two = dir.join("two.json");
    sign_to(&signed, &other, &[], &two);
    assert_eq!(verify_json(&two, &["--jwks", s(&jwks)]).0, 0);
    assert_eq!(verify_json(&two, &["--jwks", s(&jwks), "--mode", "all"]).0, 1);
    assert_eq!(
        verify_json(&two, &["--jwks", s(&jwks), "--mode", "if-present"]).0,
        1
    );
    let out = verify(&two, &jwks, &["--max-signatures", "1"]);
    let line = expect_error(&out, 2, "too-many-signatures", s(&two));
    assert!(line.contains(" at /signatures "), "{line}");
    let _ = pem;
}

#[test]
fn emit_verified_only_when_valid() {
    let (dir, signed, _, jwks) = signed_card("emit");
    let emitted = dir.join("verified.json");
    let out = verify(&signed, &jwks, &["--emit-verified", s(&emitted)]);
    expect_code(&out, 0, "valid");
    // Exactly the canonical bytes the signature covers, as `canonicalize` computes them.
    assert_eq!(std::fs::read(&emitted).unwrap(), canonical(&signed, &[]));
    assert!(stdout(&out).starts_with("VALID: "), "the report is still printed");

    let tampered = write(
        &dir,
        "tampered.json",
        std::fs::read_to_string(&signed).unwrap().replace("Ship", "Sink"),
    );
    let not_written = dir.join("not-written.json");
    let out = verify(&tampered, &jwks, &["--emit-verified", s(&not_written)]);
    expect_code(&out, 1, "invalid");
    assert!(
        !not_written.exists(),
        "verified content written for an invalid card"
    );
    assert!(stdout(&out).starts_with("INVALID: "));
}

#[test]
fn inspect_reports_headers_digest_and_unsigned_members() {
    let (dir, signed, _, jwks) = signed_card("inspect");
    let kid = only_jwk(&jwks)["kid"].as_str().unwrap().to_string();
    let out = run(&["inspect", s(&signed), "--format", "json"], None);
    expect_code(&out, 0, "inspect json");
    let i = json_out(&out);
    let expected = canonical(&signed, &[]);
    assert_eq!(i["profile"], "spec");
    assert_eq!(i["canonical_sha256"], hex(&sha256(&expected)).as_str());
    assert_eq!(i["canonical_bytes"], expected.len());
    assert_eq!(i["unsigned"], serde_json::json!(["/x-vendor"]));
    assert_eq!(i["signatures"][0]["kid"], kid.as_str());
    assert_eq!(i["signatures"][0]["alg"], "ES256");
    assert_eq!(i["signatures"][0]["signature_bytes"], 64);
    assert!(i["signatures"][0]["problem"].is_null());

    let out = run(&["inspect", s(&signed)], None);
    expect_code(&out, 0, "inspect text");
    let text = stdout(&out);
    assert!(text.contains(&format!("kid \"{kid}\"")), "{text}");
    assert!(
        text.contains(&format!(
            "canonical sha256: {} ({} bytes)",
            hex(&sha256(&expected)),
            expected.len()
        )),
        "{text}"
    );
    assert!(text.contains("unsigned: [\"/x-vendor\"]"), "{text}");

    // Under another profile the digest is that profile's.
    let out = run(
        &[
            "inspect",
            s(&signed),
            "--format",
            "json",
            "--profile",
            "served-as-is",
        ],
        None,
    );
    let i = json_out(&out);
    assert_eq!(i["profile"], "served-as-is");
    assert_eq!(
        i["canonical_sha256"],
        hex(&sha256(&canonical(&signed, &["--profile", "served-as-is"]))).as_str()
    );

    // Malformed signature entries are reported, not fatal.
    let card = write(
        &dir,
        "malformed-sigs.json",
        br#"{"name":"A","signatures":[{"protected":"e30","signature":"AA"},{"protected":"!!","signature":"AA"},{"signature":"AA"}]}"#,
    );
    let out = run(&["inspect", s(&card), "--format", "json"], None);
    expect_code(&out, 0, "malformed entries");
    let i = json_out(&out);
    let sigs = i["signatures"].as_array().unwrap();
    assert_eq!(sigs.len(), 3);
    assert_eq!(sigs[0]["protected"], "{}");
    for sig in sigs {
        assert!(sig["problem"].is_string(), "{sig}");
    }
    let out = run(&["inspect", s(&card)], None);
    expect_code(&out, 0, "malformed entries, text");
    assert_eq!(stdout(&out).matches("  problem: ").count(), 3, "{}", stdout(&out));
    // Verifying the same card is a verdict per entry, not an error.
    let (code, report) = verify_json(&card, &["--jwks", s(&jwks), "--mode", "if-present"]);
    assert_eq!(code, 1);
    assert_eq!(report["signatures"][0]["verdict"]["code"], "malformed-header");

    // A card that cannot be read: exit 2.
    let missing = dir.join("missing.json");
    expect_error(&run(&["inspect", s(&missing)], None), 2, "io", s(&missing));
    let out = run(&["inspect", "-"], Some(b"{\"name\":"));
    expect_error(&out, 2, "invalid-json", "<stdin>");
}

#[test]
fn keygen_refuses_to_overwrite_and_writes_mode_0600() {
    let dir = scratch("keygen-files");
    let pem = write(&dir, "k.pem", "precious");
    let jwks = dir.join("k.jwks.json");
    let out = run(
        &["keygen", "--alg", "EdDSA", "--out", s(&pem), "--jwks", s(&jwks)],
        None,
    );
    let line = expect_error(&out, 2, "io", s(&pem));
    assert!(line.contains("already exists"), "{line}");
    assert_eq!(std::fs::read(&pem).unwrap(), b"precious");
    assert!(
        !jwks.exists(),
        "the JWKS was written although the key was refused"
    );

    // An existing JWKS is refused too, before the key is written.
    let fresh = dir.join("fresh.pem");
    let out = run(
        &["keygen", "--alg", "EdDSA", "--out", s(&fresh), "--jwks", s(&pem)],
        None,
    );
    expect_error(&out, 2, "io", s(&pem));
    assert!(!fresh.exists());
    assert_eq!(std::fs::read(&pem).unwrap(), b"precious");

    // --force replaces, and the replaced key is 0600 whatever the old file's mode.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&pem, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    let out = run(
        &[
            "keygen",
            "--alg",
            "EdDSA",
            "--out",
            s(&pem),
            "--jwks",
            s(&jwks),
            "--force",
        ],
        None,
    );
    expect_code(&out, 0, "--force");
    let text = std::fs::read_to_string(&pem).unwrap();
    assert!(text.starts_with("-----BEGIN PRIVATE KEY-----\n"), "{text}");
    assert_eq!(stderr_field(&out, "alg"), "EdDSA");
    assert_eq!(
        stderr_field(&out, "kid"),
        format!("\"{}\"", only_jwk(&jwks)["kid"].as_str().unwrap())
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&pem).unwrap().permissions().mode() & 0o777,
            0o600
        );
        let out = run(&["keygen", "--alg", "ES256", "--out", s(&fresh)], None);
        expect_code(&out, 0, "fresh");
        assert_eq!(
            std::fs::metadata(&fresh).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
    let mut names = listing(&dir);
    names.sort();
    assert_eq!(
        names,
        ["fresh.pem", "k.jwks.json", "k.pem"],
        "temporary files left behind"
    );

    // Options that do not fit the algorithm.
    for (args, code) in [
        (
            &["keygen", "--alg", "ES256", "--rsa-bits", "3072", "--out", "x.pem"][..],
            "usage",
        ),
        (
            &["keygen", "--alg", "ES256", "--curve", "Ed448", "--out", "x.pem"][..],
            "usage",
        ),
        (
            &["keygen", "--alg", "HS256", "--out", "x.pem"][..],
            "key-algorithm-mismatch",
        ),
        (
            &["keygen", "--alg", "EdDSA", "--out", "x.pem", "--jwks", "x.pem"][..],
            "usage",
        ),
    ] {
        let out = run_in(Some(&dir), args, None, &[]);
        expect_code(&out, 2, &format!("{args:?}"));
        assert!(
            error_line(&out).starts_with(&format!("error[{code}]: ")),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    assert!(!dir.join("x.pem").exists());
    let out = run(
        &["keygen", "--alg", "RS256", "--rsa-bits", "1024", "--out", "x.pem"],
        None,
    );
    expect_code(&out, 2, "1024 bits");

    // A custom kid: the note says to pass it to sign.
    let custom = dir.join("custom.pem");
    let out = run(
        &["keygen", "--alg", "PS384", "--kid", "rel-1", "--out", s(&custom)],
        None,
    );
    expect_code(&out, 0, "custom kid");
    assert_eq!(stderr_field(&out, "kid"), "\"rel-1\"");
    let note = stderr_field(&out, "note");
    assert!(
        note.contains("--kid \"rel-1\"") && note.contains("--alg PS384"),
        "{note}"
    );
}

#[test]
fn every_subcommand_help_has_an_example() {
    for sub in [
        "canonicalize",
        "sign",
        "verify",
        "fetch",
        "inspect",
        "keygen",
        "jwks",
        "lint",
        "migrate",
        "schema",
        "version",
        "completions",
        "man",
    ] {
        let text = help(&[sub]);
        assert!(text.contains("Example"), "{sub}: {text}");
        assert!(text.contains(&format!("a2a-card {sub} ")), "{sub}: {text}");
        if sub != "canonicalize" {
            assert!(text.contains("Exit codes:"), "{sub}: {text}");
        }
    }
    let text = help(&[]);
    for sub in ["sign", "verify", "fetch", "inspect", "keygen", "jwks"] {
        assert!(
            text.contains(&format!("\n  {sub} ")),
            "--help lacks {sub}: {text}"
        );
    }
}
