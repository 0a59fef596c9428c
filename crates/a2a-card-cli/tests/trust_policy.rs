//! The trust files and certificate options of `verify` and `sign`, through the binary: a trust
//! entry's policy binds its key when the key arrives as the leaf of an `x5c` chain; a trust
//! file that writes policy on a JWK (or a member no one defined) is refused with the place and
//! the right form; SPIFFE IDs are read as the SPIFFE specification defines them; `sign --x5c`
//! refuses the chains a default verifier refuses; and the `untrusted-key` message of a card
//! of unknown kids stays short against a large store.

#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use a2a_card_testkit::pki::{bundle, Cert, Spec};
use common::*;
use std::path::{Path, PathBuf};

const SPIFFE: &str = "spiffe://td/ns/a";

struct Signed {
    dir: PathBuf,
    card: PathBuf,
    root: PathBuf,
    /// The leaf's public key as a JWK.
    jwk: serde_json::Value,
}

/// A card signed by a leaf with `leaf`'s names, its chain [leaf, intermediate] in x5c, kid "leaf".
fn signed(name: &str, leaf: Spec) -> Signed {
    let dir = scratch(&format!("trust-policy-{name}"));
    let root = Cert::root("Policy Root");
    let int = root.issue(&Spec::ca("Policy Intermediate", Some(0)));
    let leaf = int.issue(&leaf);
    let key = write(&dir, "leaf.pem", &leaf.key_pem);
    let chain = write(&dir, "chain.pem", bundle(&[&leaf, &int]));
    let card_in = write(&dir, "card.json", CARD);
    let card = dir.join("signed.json");
    sign_to(&card_in, &key, &["--x5c", s(&chain), "--kid", "leaf"], &card);
    let out = run(&["jwks", s(&key)], None);
    expect_code(&out, 0, "jwks");
    let jwk = json_out(&out)["keys"][0].clone();
    Signed {
        root: write(&dir, "root.pem", &root.pem),
        dir,
        card,
        jwk,
    }
}

fn verify_with(c: &Signed, trust: &serde_json::Value, extra: &[&str]) -> std::process::Output {
    let file = write(&c.dir, "trust.json", trust.to_string());
    let mut args = vec![
        "verify",
        s(&c.card),
        "--trust",
        s(&file),
        "--trust-anchors",
        s(&c.root),
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    run(&args, None)
}

/// Each policy member that refuses the card's key when a trust entry sets it: (member, value,
/// the verdict's code).
fn policies() -> [(&'static str, serde_json::Value, &'static str); 5] {
    [
        ("revoked", serde_json::json!(true), "key-revoked"),
        (
            "notAfter",
            serde_json::json!("2020-01-01T00:00:00Z"),
            "key-expired",
        ),
        (
            "notBefore",
            serde_json::json!("2099-01-01T00:00:00Z"),
            "key-expired",
        ),
        (
            "origins",
            serde_json::json!(["https://other.example"]),
            "untrusted-key",
        ),
        ("algorithms", serde_json::json!([]), "algorithm-not-allowed"),
    ]
}

#[test]
fn a_trust_entry_binds_its_key_when_it_comes_as_an_x5c_leaf() {
    let c = signed("x5c-leaf", Spec::leaf("agent").uri(SPIFFE));
    let at = ["--identity", SPIFFE, "--origin", "https://agent.example"];
    // The entry without policy narrows nothing: the chain to the anchor verifies.
    let out = verify_with(&c, &serde_json::json!({ "keys": [{ "jwk": c.jwk }] }), &at);
    expect_code(&out, 0, "no policy");
    for (member, value, code) in policies() {
        let mut entry = serde_json::json!({ "jwk": c.jwk, "kid": "release" });
        entry[member] = value;
        let out = verify_with(&c, &serde_json::json!({ "keys": [entry] }), &at);
        expect_code(&out, 1, member);
        assert_eq!(verdict_code(&out), code, "{member}: {}", stdout(&out));
        let j = json_out(&out);
        assert!(j["signatures"][0]["certificate"].is_null(), "{j}");
        assert!(
            j["signatures"][0]["verdict"]["message"]
                .as_str()
                .unwrap()
                .contains("trust.json"),
            "{j}"
        );
    }
}

#[test]
fn a_trust_entry_binds_its_key_from_every_key_option() {
    let c = signed("every-source", Spec::leaf("agent").uri(SPIFFE));
    // The leaf's key under the card's kid, as each key option gives it.
    let mut pinned = c.jwk.clone();
    pinned["kid"] = serde_json::json!("leaf");
    let one = write(&c.dir, "leaf.jwk.json", pinned.to_string());
    let set = write(
        &c.dir,
        "leaf.jwks.json",
        serde_json::json!({ "keys": [pinned] }).to_string(),
    );
    let other = write(
        &c.dir,
        "other-trust.json",
        serde_json::json!({ "keys": [{ "jwk": pinned }] }).to_string(),
    );
    let sources: [(&str, &Path); 3] = [("--key", &one), ("--jwks", &set), ("--trust", &other)];
    for (member, value, code) in policies() {
        let mut entry = serde_json::json!({ "jwk": c.jwk, "kid": "release" });
        entry[member] = value;
        let policy = write(
            &c.dir,
            "policy.json",
            serde_json::json!({ "keys": [entry] }).to_string(),
        );
        for (flag, file) in sources {
            // Without anchors the key is the one the option gives; with them, the x5c leaf.
            for anchors in [false, true] {
                let mut args = vec!["verify", s(&c.card), flag, s(file), "--trust", s(&policy)];
                args.extend(["--origin", "https://agent.example", "--format", "json"]);
                if anchors {
                    args.extend(["--trust-anchors", s(&c.root), "--identity", SPIFFE]);
                }
                let out = run(&args, None);
                expect_code(&out, 1, &format!("{flag} {member} anchors={anchors}"));
                assert_eq!(
                    verdict_code(&out),
                    code,
                    "{flag} {member} anchors={anchors}: {}",
                    stdout(&out)
                );
            }
        }
    }
}

#[test]
fn policy_written_on_a_jwk_is_refused_in_every_key_file() {
    let c = signed("on-jwk", Spec::leaf("agent").uri(SPIFFE));
    let mut jwk = c.jwk.clone();
    jwk["revoked"] = serde_json::json!(true);
    // A bare JWK entry of a trust store (with and without the anchors).
    for extra in [&["--identity", SPIFFE][..], &[]] {
        let out = verify_with(&c, &serde_json::json!({ "keys": [jwk] }), extra);
        let line = expect_error(
            &out,
            3,
            "invalid-trust-store",
            &c.dir.join("trust.json").display().to_string(),
        );
        assert!(line.contains(r#"{"jwk": {...}, "revoked": true}"#), "{line}");
        assert!(line.contains(" at /keys/0/revoked "), "{line}");
    }
    // Inside the jwk member of an entry.
    let out = verify_with(&c, &serde_json::json!({ "keys": [{ "jwk": jwk }] }), &[]);
    let line = error_line(&out);
    assert!(
        line.starts_with("error[invalid-trust-store]") && line.contains(" at /keys/0/jwk/revoked "),
        "{line}"
    );
    // A JWK Set or a single JWK given as pinned keys.
    let set = write(
        &c.dir,
        "pinned.json",
        serde_json::json!({ "keys": [jwk] }).to_string(),
    );
    let one = write(&c.dir, "one.json", jwk.to_string());
    for (flag, file, at) in [("--jwks", &set, "/keys/0/revoked"), ("--key", &one, "/revoked")] {
        let out = run(&["verify", s(&c.card), flag, s(file)], None);
        let line = expect_error(&out, 3, "invalid-key", s(file));
        assert!(line.contains(&format!(" at {at} ")), "{line}");
        assert!(line.contains(r#""revoked": true}"#), "{line}");
    }
    // An exp on the JWK says notAfter; a member no registry defines is refused too.
    let mut exp = c.jwk.clone();
    exp["exp"] = serde_json::json!(1_600_000_000);
    let out = verify_with(&c, &serde_json::json!({ "keys": [exp] }), &[]);
    assert!(
        error_line(&out).contains(r#""notAfter": "#),
        "{}",
        error_line(&out)
    );
    let out = verify_with(
        &c,
        &serde_json::json!({ "keys": [{ "jwk": c.jwk, "revokd": true }] }),
        &[],
    );
    assert!(
        error_line(&out).contains(" at /keys/0/revokd "),
        "{}",
        error_line(&out)
    );
}

#[test]
fn spiffe_ids_are_read_as_the_spiffe_specification_defines_them() {
    let prefix = ["--identity-prefix", "spiffe://td/ns/"];
    // A valid ID under the prefix verifies, and the report names the SAN that matched.
    let c = signed("spiffe-ok", Spec::leaf("agent").uri(SPIFFE));
    let out = verify_with(&c, &serde_json::json!({ "keys": [] }), &prefix);
    expect_code(&out, 0, "valid SPIFFE ID");
    assert_eq!(
        json_out(&out)["signatures"][0]["certificate"]["identity"],
        format!("URI SAN {SPIFFE} (under spiffe://td/ns/)")
    );
    // Dot segments, percent-encoding, a query, an empty segment, an upper-case trust domain:
    // none of them is a SPIFFE ID, so none is under the prefix.
    for (n, san) in [
        "spiffe://td/ns/../admin",
        "spiffe://td/ns/%2e%2e/admin",
        "spiffe://td/ns/./a",
        "spiffe://td/ns//a",
        "spiffe://td/ns/a?x=1",
        "spiffe://td/ns/a#f",
    ]
    .iter()
    .enumerate()
    {
        let c = signed(&format!("spiffe-bad-{n}"), Spec::leaf("agent").uri(san));
        let out = verify_with(&c, &serde_json::json!({ "keys": [] }), &prefix);
        expect_code(&out, 1, san);
        assert_eq!(verdict_code(&out), "certificate-identity-mismatch", "{san}");
        let j = json_out(&out);
        let message = j["signatures"][0]["verdict"]["message"].as_str().unwrap();
        assert!(message.contains("no SPIFFE ID"), "{message}");
    }
    // The same rules for the options and trust entries that name identities.
    let c = signed("spiffe-options", Spec::leaf("agent").uri(SPIFFE));
    for (flag, value) in [
        ("--identity", "spiffe://td/ns/../admin"),
        ("--identity", "spiffe://TD/ns/a"),
        ("--identity", "spiffe://td"),
        ("--identity-prefix", "spiffe://td/ns/%2e%2e/"),
        ("--identity-prefix", "spiffe://td:8443/"),
    ] {
        let out = verify_with(&c, &serde_json::json!({ "keys": [] }), &[flag, value]);
        expect_error(&out, 2, "usage", "<command line>");
    }
    let root = std::fs::read_to_string(&c.root).unwrap();
    let trust =
        serde_json::json!({ "keys": [{ "certificate": root, "identityPrefixes": ["spiffe://td/ns/../"] }] });
    let out = verify_with(&c, &trust, &[]);
    let line = error_line(&out);
    assert!(
        line.starts_with("error[invalid-trust-store]") && line.contains(" at /keys/0/identityPrefixes/0 "),
        "{line}"
    );
}

/// A chain of `ints` intermediates from a root to a leaf of `leaf`: (chain file, key file, root file).
fn long_chain(dir: &Path, ints: usize, leaf: Spec) -> (PathBuf, PathBuf, PathBuf) {
    let root = Cert::root("Long Root");
    let mut issuers = vec![root.issue(&Spec::ca("Long Intermediate 1", None))];
    for i in 2..=ints {
        let next = issuers
            .last()
            .unwrap()
            .issue(&Spec::ca(&format!("Long Intermediate {i}"), None));
        issuers.push(next);
    }
    let leaf = issuers.last().unwrap().issue(&leaf);
    let mut certs = vec![&leaf];
    certs.extend(issuers.iter().rev());
    (
        write(dir, "chain.pem", bundle(&certs)),
        write(dir, "leaf.pem", &leaf.key_pem),
        write(dir, "root.pem", &root.pem),
    )
}

#[test]
fn sign_refuses_the_chains_a_default_verifier_refuses() {
    let dir = scratch("trust-policy-sign-chain");
    let card = write(&dir, "card.json", CARD);
    // Eight certificates against the limit of four.
    let (chain, key, _) = long_chain(&dir, 7, Spec::leaf("agent").uri(SPIFFE));
    let out = sign(&card, &key, &["--x5c", s(&chain)]);
    let line = expect_error(&out, 2, "certificate-untrusted", s(&chain));
    assert!(
        line.contains("8 certificates, more than the limit of 4"),
        "{line}"
    );
    // Five certificates, over the default limit too; a signer who says its verifiers accept
    // five gets a card those verifiers accept (and the default verifier refuses).
    let dir5 = scratch("trust-policy-sign-chain-5");
    let (chain, key, root) = long_chain(&dir5, 4, Spec::leaf("agent").uri(SPIFFE));
    let out = sign(&card, &key, &["--x5c", s(&chain)]);
    expect_error(&out, 2, "certificate-untrusted", s(&chain));
    let out_card = dir5.join("signed.json");
    sign_to(&card, &key, &["--x5c", s(&chain), "--max-chain", "5"], &out_card);
    let verify_anchored = |extra: &[&str]| {
        let mut args = vec![
            "verify",
            s(&out_card),
            "--trust-anchors",
            s(&root),
            "--identity",
            SPIFFE,
        ];
        args.extend_from_slice(extra);
        run(&args, None)
    };
    let ok = verify_anchored(&["--max-chain", "5"]);
    expect_code(&ok, 0, "verify --max-chain 5");
    let refused = verify_anchored(&["--format", "json"]);
    expect_code(&refused, 1, "verify with the default limit");
    assert_eq!(verdict_code(&refused), "certificate-untrusted");
    // A leaf whose key usage lacks digitalSignature, and a leaf that is a CA.
    for (name, spec) in [
        ("no-ds", Spec::leaf("agent").uri(SPIFFE).no_digital_signature()),
        ("ca", Spec::ca("agent", None)),
    ] {
        let dir = scratch(&format!("trust-policy-sign-{name}"));
        let (chain, key, _) = long_chain(&dir, 1, spec);
        let out = sign(&card, &key, &["--x5c", s(&chain)]);
        let line = expect_error(&out, 2, "certificate-untrusted", s(&chain));
        assert!(line.contains("a verifier would refuse this chain"), "{line}");
    }
}

#[test]
fn the_untrusted_key_message_names_a_few_kids_of_a_large_store() {
    let (dir, card, pem, jwks) = card_and_key("trust-policy-many-kids", "EdDSA", &[]);
    let mut signed_card = card.clone();
    for i in 0..16 {
        let next = dir.join(format!("signed-{i}.json"));
        sign_to(&signed_card, &pem, &["--kid", &format!("unknown-{i}")], &next);
        signed_card = next;
    }
    let jwk = only_jwk(&jwks);
    let keys: Vec<serde_json::Value> = (0..2000)
        .map(|i| {
            let mut k = jwk.clone();
            k["kid"] = serde_json::json!(format!("k{i}"));
            k
        })
        .collect();
    let big = write(&dir, "big.json", serde_json::json!({ "keys": keys }).to_string());
    let out = run(
        &["verify", s(&signed_card), "--jwks", s(&big), "--format", "json"],
        None,
    );
    expect_code(&out, 1, "unknown kids");
    let j = json_out(&out);
    for sig in j["signatures"].as_array().unwrap() {
        assert_eq!(sig["verdict"]["code"], "untrusted-key");
        let m = sig["verdict"]["message"].as_str().unwrap();
        assert!(m.ends_with(r#""k6", "k7" and 1992 more"#), "{m}");
    }
}
