//! Third-party signing vectors through the binary: the a2a-tck CARD-SIGN EdDSA cases byte for
//! byte, and every verdict of the a2a-card-sign-v01 corpus that a command-line option expresses.

#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::*;
use std::collections::BTreeMap;

/// The a2a-tck CARD-SIGN signing cases (PR #194/#204): the published Ed25519 test key signs the
/// card through `a2a-card sign --key FILE --kid key-1`, and the protected header and signature
/// come out exactly as published. EdDSA is deterministic, so equality is the check.
#[test]
fn tck_signing_cases_byte_for_byte() {
    let Some(root) = corpus_dir() else { return };
    let file = root.join("a2a/a2a-tck-card-sign-pr194-204/card_signing_vectors.json");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let dir = scratch("tck");
    let key = write(&dir, "private.jwk", v["private_jwk"].to_string());
    let public = write(&dir, "public.jwk", v["public_jwk"].to_string());
    let mut seen = Vec::new();
    for case in v["signing_cases"].as_array().unwrap() {
        let id = case["id"].as_str().unwrap();
        // cardsign-sign-001 is a v1.0 card (spec). cardsign-sign-002 carries 0.3-era members
        // (`url`, `{"type": ...}` schemes) that v1.0 does not define; the TCK signs plain JCS of
        // the card without `signatures`, which is the served-as-is profile.
        let profile = match id {
            "cardsign-sign-001" => "spec",
            "cardsign-sign-002" => "served-as-is",
            other => panic!("unexpected case {other}"),
        };
        let card = write(
            &dir,
            &format!("{id}.json"),
            serde_json::to_vec(&case["agent_card"]).unwrap(),
        );
        let signed = dir.join(format!("{id}.signed.json"));
        let out = sign_to(
            &card,
            &key,
            // The TCK's cards test signatures, not lint.
            &[
                "--kid",
                case["kid"].as_str().unwrap(),
                "--profile",
                profile,
                "--lint",
                "off",
                // The TCK's signer declares nothing; a2a-card declares served-as-is bytes
                // unless told not to (its spec signature declares nothing either way).
                "--declare",
                "false",
            ],
            &signed,
        );
        assert_eq!(stderr_field(&out, "alg"), case["alg"].as_str().unwrap(), "{id}");
        let payload = case["expected_jcs_payload"].as_str().unwrap().as_bytes();
        assert_eq!(
            stderr_field(&out, "canonical sha256"),
            hex(&sha256(payload)),
            "{id}"
        );
        let entries = signatures(&signed);
        assert_eq!(entries.len(), 1, "{id}");
        assert_eq!(
            entries[0]["protected"], case["expected_protected_b64"],
            "{id}: protected"
        );
        assert_eq!(entries[0]["signature"], case["signature"], "{id}: signature");
        // The published signing input is the protected header, a dot, and the payload.
        assert_eq!(
            format!(
                "{}.{}",
                entries[0]["protected"].as_str().unwrap(),
                b64url(payload)
            ),
            case["expected_signing_input"].as_str().unwrap(),
            "{id}: signing input"
        );
        // And it verifies with the published public key, under the same profile.
        let out = run(
            &["verify", s(&signed), "--key", s(&public), "--profile", profile],
            None,
        );
        expect_code(&out, 0, id);
        seen.push(id.to_string());
    }
    assert!(seen.contains(&"cardsign-sign-001".to_string()), "{seen:?}");
}

/// The `verify` options of a reading named in a2a-card-sign-v01, and, where refusing the card is
/// the reading's answer, the error code. `None` for a reading no option expresses.
fn reading(name: &str) -> Option<(&'static [&'static str], Option<&'static str>)> {
    Some(match name {
        // Rule 1 on the served card (spec); unknown members excluded; dual names refused.
        "rule-1-as-written" | "rule-1-served-scope" | "unknown-exclude" => (&[], None),
        "dual-name-refuse" => (&[], Some("dual-name")),
        "unknown-retain" => (&["--unknown", "retain"], None),
        "unknown-reject" => (&["--unknown", "reject"], Some("unknown-member")),
        "prune-empty" => (&["--profile", "prune-empty"], None),
        "served-as-is" | "dual-name-tolerate" => (&["--profile", "served-as-is"], None),
        // Emitting absent REQUIRED fields at their defaults: this toolkit never invents fields.
        "rule-1-descriptor-scope" => return None,
        other => panic!("reading {other:?} is not mapped"),
    })
}

/// a2a-card-sign-v01 (Layer C): each served card verified with `--jwks testkey_jwks.json` under
/// each reading it names. Accepted: exit 0. Rejected: exit 1 with no valid signature, or, for
/// the readings whose answer is a refusal, exit 2 with that error code. Every vector whose
/// accept_under lists rule-1-as-written must pass with no option at all, and every one whose
/// reject_under lists it must fail with exit 1.
#[test]
fn a2a_card_sign_v01_verdicts() {
    let Some(root) = corpus_dir() else { return };
    let corpus = root.join("a2a/a2a-card-sign-v01");
    let jwks = corpus.join("testkey_jwks.json");
    let dir = scratch("card-sign-v01");
    let mut files = Vec::new();
    for group in std::fs::read_dir(&corpus).unwrap() {
        let group = group.unwrap().path();
        if group.is_dir() {
            for f in std::fs::read_dir(&group).unwrap() {
                files.push(f.unwrap().path());
            }
        }
    }
    files.sort();
    assert_eq!(files.len(), 42, "a2a-card-sign-v01 has 42 vectors");

    let mut tally: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut rule1 = (0, 0);
    let mut problems = Vec::new();
    for file in &files {
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
        let id = v["id"].as_str().unwrap();
        let card = write(
            &dir,
            &format!("{id}.json"),
            serde_json::to_vec(&v["served_card"]).unwrap(),
        );
        let list = |key: &str| -> Vec<String> {
            v[key]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_str().unwrap().to_string())
                .collect()
        };
        for (accept, readings) in [(true, list("accept_under")), (false, list("reject_under"))] {
            for name in &readings {
                let Some((options, refusal)) = reading(name) else {
                    continue;
                };
                let mut args = vec!["verify", s(&card), "--jwks", s(&jwks), "--format", "json"];
                args.extend_from_slice(options);
                let out = run(&args, None);
                let code = out.status.code();
                let what = format!("{id} {} under {name}", if accept { "accept" } else { "reject" });
                let fine = match (accept, refusal) {
                    (true, _) => code == Some(0) && json_out(&out)["ok"] == true,
                    (false, Some(error_code)) if code == Some(2) => {
                        error_line(&out).starts_with(&format!("error[{error_code}]: "))
                    }
                    (false, _) => {
                        code == Some(1)
                            && json_out(&out)["signatures"]
                                .as_array()
                                .unwrap()
                                .iter()
                                .all(|s| s["verdict"]["code"] != "valid")
                    }
                };
                if fine {
                    let t = tally.entry(name.clone()).or_default();
                    if accept {
                        t.0 += 1;
                    } else {
                        t.1 += 1;
                    }
                    if name == "rule-1-as-written" {
                        if accept {
                            rule1.0 += 1;
                        } else {
                            rule1.1 += 1;
                        }
                    }
                } else {
                    problems.push(format!(
                        "{what}: exit {code:?}\n  stdout: {}\n  stderr: {}",
                        String::from_utf8_lossy(&out.stdout),
                        stderr(&out)
                    ));
                }
            }
        }
    }
    for (name, (a, r)) in &tally {
        println!("a2a-card-sign-v01 {name}: {a} accepted, {r} rejected as the corpus says");
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // s0 and s1 name rule-1-as-written: 8 cards it accepts, 5 it rejects.
    assert_eq!(rule1, (8, 5), "rule-1-as-written verdicts");
    let checked: usize = tally.values().map(|(a, r)| a + r).sum();
    assert!(checked >= 80, "only {checked} verdicts checked");
}
