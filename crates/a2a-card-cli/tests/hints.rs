//! The hints that point at the real remedy, as the command line shows them (the core writes
//! them; the CLI prints its report): a card signed with `--unknown retain`, a `kid` that is the
//! thumbprint of a trusted key with another kid, a member one edit away from a defined one, and
//! an Agent Card given where a key is expected.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::*;

#[test]
fn a_card_signed_with_unknown_retain_verifies_as_signed() {
    // The signature declares that it covers the unknown members as they are, so a plain verify
    // checks it over those bytes: no hint is needed. (A signature that declares nothing, another
    // signer's, still gets the hint to retain them: crates/a2a-card/tests/hints.rs.)
    let (dir, card, pem, jwks) = card_and_key("hint-retain", "ES256", &[]);
    let signed = dir.join("signed.json");
    sign_to(&card, &pem, &["--unknown", "retain"], &signed);
    let out = verify(&signed, &jwks, &[]);
    expect_code(&out, 0, "default verify");
    let json = json_out(&verify(&signed, &jwks, &["--format", "json"]));
    assert_eq!(json["signatures"][0]["verdict"]["code"], "valid");
    assert_eq!(json["unsigned"], serde_json::json!([]), "{json}");
    expect_code(&verify(&signed, &jwks, &["--unknown", "retain"]), 0, "retained");
}

#[test]
fn a_kid_that_is_the_thumbprint_of_a_trusted_key_says_which() {
    let dir = scratch("hint-thumbprint");
    let card = write(&dir, "card.json", CARD);
    // The published key has a kid of its own; the PEM has none, so sign's kid is the key's
    // RFC 7638 thumbprint.
    let (pem, jwks) = keygen(&dir, "k", "ES256", &["--kid", "release-2026"]);
    let signed = dir.join("signed.json");
    let out = sign_to(&card, &pem, &[], &signed);
    let kid: String = serde_json::from_str(&stderr_field(&out, "kid")).unwrap();
    assert_ne!(kid, "release-2026");
    let out = verify(&signed, &jwks, &[]);
    expect_code(&out, 1, "kid mismatch");
    let text = stdout(&out);
    assert!(text.contains("untrusted-key"), "{text}");
    assert!(
        text.contains(&format!(
            "kid \"{kid}\" is the thumbprint (RFC 7638) of trusted key \"release-2026\""
        )),
        "{text}"
    );
}

const TYPOS: &str = r#"{
  "name": "Release Agent",
  "description": "ships",
  "version": "1.0.0",
  "documentationURL": "https://release.example/docs",
  "supportedInterfaces": [{"url": "https://release.example/a2a/v1", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
  "capabilities": {"streming": true},
  "defaultInputModes": ["text/plain"],
  "defaultOutputModes": ["text/plain"],
  "skills": [{"id": "s1", "name": "Ship", "description": "ships", "tags": ["release"]}]
}
"#;

#[test]
fn a_member_one_edit_away_gets_did_you_mean_in_lint_sign_and_verify() {
    let dir = scratch("hint-near");
    let card = write(&dir, "card.json", TYPOS);
    let (pem, jwks) = keygen(&dir, "k", "EdDSA", &[]);
    let meant = [
        ("/documentationURL", "documentationUrl"),
        ("/capabilities/streming", "streaming"),
    ];

    let out = run(&["lint", s(&card)], None);
    let text = format!("{}{}", stdout(&out), stderr(&out));
    for (_, member) in meant {
        assert!(
            text.contains(&format!("; did you mean \"{member}\"?\n")),
            "{text}"
        );
    }

    // Refused by default, the refusal says what was meant.
    let out = run(&["sign", s(&card), "--key", s(&pem)], None);
    let line = expect_error(&out, 2, "unsigned-members", s(&card));
    for (pointer, member) in meant {
        assert!(
            line.contains(&format!(
                "{pointer} is not a member A2A v1.0 defines; did you mean \"{member}\"?"
            )),
            "{line}"
        );
    }
    // Signed with them left out: a note each, on stderr and in the JSON report.
    let signed = dir.join("signed.json");
    let out = sign_to(&card, &pem, &[], &signed);
    let err = stderr(&out);
    for (pointer, member) in meant {
        assert!(
            err.contains(&format!(
                "note: {pointer} is not a member A2A v1.0 defines; did you mean \"{member}\"?\n"
            )),
            "{err}"
        );
    }
    let out = run(
        &[
            "sign",
            s(&card),
            "--key",
            s(&pem),
            "--unknown",
            "exclude",
            "--format",
            "json",
            "--out",
            s(&dir.join("again.json")),
        ],
        None,
    );
    expect_code(&out, 0, "sign --format json");
    let report: serde_json::Value = serde_json::from_slice(&out.stderr).unwrap();
    let expected: Vec<serde_json::Value> = meant
        .iter()
        .map(|(p, m)| serde_json::json!({"pointer": p, "member": m}))
        .collect();
    assert_eq!(report["did_you_mean"], serde_json::Value::from(expected.clone()));

    let out = verify(&signed, &jwks, &[]);
    expect_code(&out, 0, "verify");
    let text = stdout(&out);
    for (pointer, member) in meant {
        assert!(
            text.contains(&format!(
                "note: {pointer} is not a member A2A v1.0 defines; did you mean \"{member}\"?\n"
            )),
            "{text}"
        );
    }
    let json = json_out(&verify(&signed, &jwks, &["--format", "json"]));
    assert_eq!(json["did_you_mean"], serde_json::Value::from(expected.clone()));

    // A batch's line says the same as the full report; a card with no such member has none.
    let batch = dir.join("batch");
    std::fs::create_dir(&batch).unwrap();
    std::fs::copy(&signed, batch.join("a-typos.json")).unwrap();
    let fixed = write(
        &dir,
        "fixed.json",
        TYPOS
            .replace("documentationURL", "documentationUrl")
            .replace("streming", "streaming"),
    );
    let clean = run(&["sign", s(&fixed), "--key", s(&pem)], None);
    expect_code(&clean, 0, "sign a card without typos");
    std::fs::write(batch.join("b-clean.json"), &clean.stdout).unwrap();
    let out = run(&["verify", "--batch", s(&batch), "--jwks", s(&jwks)], None);
    expect_code(&out, 0, "verify --batch");
    let lines: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["did_you_mean"], serde_json::Value::from(expected));
    assert!(lines[1].get("did_you_mean").is_none(), "{}", lines[1]);
}

#[test]
fn a_card_given_as_a_key_says_it_looks_like_a_card() {
    let dir = scratch("hint-card-key");
    let card = write(&dir, "card.json", CARD);
    let (pem, _) = keygen(&dir, "k", "ES256", &[]);
    let signed = dir.join("signed.json");
    sign_to(&card, &pem, &[], &signed);
    for (args, code) in [
        (vec!["verify", s(&signed), "--jwks", s(&card)], "invalid-key"),
        (vec!["verify", s(&signed), "--key", s(&card)], "invalid-key"),
        (
            vec!["verify", s(&signed), "--trust", s(&card)],
            "invalid-trust-store",
        ),
        (
            vec!["sign", s(&card), "--key", s(&card), "--unknown", "exclude"],
            "invalid-key",
        ),
    ] {
        let out = run(&args, None);
        let line = stderr(&out);
        assert!(line.starts_with(&format!("error[{code}]: ")), "{args:?}: {line}");
        assert!(line.contains("this looks like an Agent Card"), "{args:?}: {line}");
        for shown in ["Release Agent", "release.example", "x-vendor"] {
            assert!(!line.contains(shown), "{args:?} repeats {shown}: {line}");
        }
    }
}
