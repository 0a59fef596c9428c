//! End-to-end tests of certificate trust through the binary: `sign --x5c`, `verify
//! --trust-anchors` with `--identity`, `--identity-prefix`, `--crl`, `--require-eku`,
//! `--max-chain`, `inspect` showing the chain, and `verify URL` against a real HTTPS server on
//! loopback where the leaf's DNS SAN must name the origin's host.

#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use a2a_card_testkit::https::{Fixture, Resp, Server, LOOPBACK_ONLY};
use a2a_card_testkit::pki::{bundle, Cert, Spec};
use common::*;
use std::path::{Path, PathBuf};

const SPIFFE: &str = "spiffe://example.org/ns/a/sa/agent";

/// A root, an intermediate and a leaf (with `leaf`'s names) as files in a scratch directory.
struct Chain {
    dir: PathBuf,
    card: PathBuf,
    root: PathBuf,
    chain: PathBuf,
    key: PathBuf,
    crl: PathBuf,
}

fn chain(name: &str, leaf: Spec) -> Chain {
    let dir = scratch(&format!("x5c-{name}"));
    let root = Cert::root("CLI Root");
    let int = root.issue(&Spec::ca("CLI Intermediate", Some(0)));
    let leaf = int.issue(&leaf.serial(77));
    Chain {
        card: write(&dir, "card.json", CARD),
        root: write(&dir, "root.pem", &root.pem),
        chain: write(&dir, "chain.pem", bundle(&[&leaf, &int])),
        key: write(&dir, "leaf.pem", &leaf.key_pem),
        crl: write(&dir, "int.crl", int.crl(&[77])),
        dir,
    }
}

fn signed(c: &Chain) -> PathBuf {
    let out = c.dir.join("signed.json");
    sign_to(&c.card, &c.key, &["--x5c", s(&c.chain)], &out);
    out
}

fn verify_x5c(card: &Path, root: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["verify", s(card), "--trust-anchors", s(root), "--format", "json"];
    args.extend_from_slice(extra);
    run(&args, None)
}

#[test]
fn sign_x5c_then_verify_with_anchors_and_a_spiffe_identity() {
    let c = chain("spiffe", Spec::leaf("agent").uri(SPIFFE));
    let card = signed(&c);
    let out = verify_x5c(&card, &c.root, &["--identity", SPIFFE]);
    expect_code(&out, 0, "verify --identity");
    let j = json_out(&out);
    assert_eq!(
        j["signatures"][0]["certificate"]["identity"],
        format!("URI SAN {SPIFFE}")
    );
    assert_eq!(j["signatures"][0]["certificate"]["chain"][0]["serial"], "4d");
    let out = verify_x5c(&card, &c.root, &["--identity-prefix", "spiffe://example.org/"]);
    expect_code(&out, 0, "verify --identity-prefix");
    let out = verify_x5c(
        &card,
        &c.root,
        &["--identity", "spiffe://example.org/ns/b/sa/agent"],
    );
    expect_code(&out, 1, "another identity");
    assert_eq!(verdict_code(&out), "certificate-identity-mismatch");
    let out = verify_x5c(&card, &c.root, &[]);
    expect_code(&out, 1, "no identity rule");
    assert_eq!(verdict_code(&out), "certificate-untrusted");
    let out = run(
        &[
            "verify",
            s(&card),
            "--trust-anchors",
            s(&c.root),
            "--identity",
            SPIFFE,
        ],
        None,
    );
    assert!(
        stdout(&out).contains("certificate chain: CN=agent"),
        "{}",
        stdout(&out)
    );
    // A prefix without its final '/' is a usage error.
    let out = verify_x5c(&card, &c.root, &["--identity-prefix", "spiffe://example.org"]);
    expect_error(&out, 2, "usage", "<command line>");
}

#[test]
fn verify_options_of_certificates_refuse_with_their_codes() {
    let c = chain(
        "refusals",
        Spec::leaf("agent").dns("agent.example").eku(&["server"]),
    );
    let card = signed(&c);
    let at = ["--origin", "https://agent.example"];
    expect_code(&verify_x5c(&card, &c.root, &at), 0, "valid at the origin");
    let with = |more: &[&str]| {
        let mut args = at.to_vec();
        args.extend_from_slice(more);
        verify_x5c(&card, &c.root, &args)
    };
    assert_eq!(verdict_code(&with(&["--crl", s(&c.crl)])), "certificate-revoked");
    assert_eq!(
        verdict_code(&with(&["--require-eku", "codeSigning"])),
        "certificate-untrusted"
    );
    expect_code(&with(&["--require-eku", "serverAuth"]), 0, "serverAuth listed");
    assert_eq!(
        verdict_code(&with(&["--max-chain", "1"])),
        "certificate-untrusted"
    );
    let out = run(
        &[
            "verify",
            s(&card),
            "--origin",
            "https://other.example",
            "--trust-anchors",
            s(&c.root),
            "--format",
            "json",
        ],
        None,
    );
    assert_eq!(verdict_code(&out), "certificate-identity-mismatch");
    // Without anchors, the chain in the card is not a root.
    let (_, jwks) = keygen(&c.dir, "other", "ES256", &[]);
    let out = run(
        &["verify", s(&card), "--jwks", s(&jwks), "--format", "json"],
        None,
    );
    assert_eq!(verdict_code(&out), "certificate-untrusted");
    // A bad bundle or CRL names its file.
    let bad = write(
        &c.dir,
        "bad.pem",
        "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
    );
    let out = verify_x5c(&card, &bad, &at);
    expect_error(&out, 3, "certificate-malformed", s(&bad));
    let out = with(&["--crl", s(&c.chain)]);
    expect_error(&out, 3, "certificate-malformed", s(&c.chain));
    let out = with(&["--require-eku", "nope"]);
    expect_error(&out, 2, "usage", "<command line>");
}

#[test]
fn sign_refuses_a_chain_whose_leaf_is_not_the_signing_key() {
    let c = chain("mismatch", Spec::leaf("agent").dns("agent.example"));
    let (other, _) = keygen(&c.dir, "other", "ES256", &[]);
    let out = run(
        &[
            "sign",
            s(&c.card),
            "--key",
            s(&other),
            "--x5c",
            s(&c.chain),
            "--unknown",
            "exclude",
        ],
        None,
    );
    expect_error(&out, 2, "certificate-key-mismatch", s(&c.chain));
    assert!(out.stdout.is_empty());
    let out = run(
        &[
            "sign",
            s(&c.card),
            "--key",
            s(&c.key),
            "--x5c",
            s(&c.key),
            "--unknown",
            "exclude",
        ],
        None,
    );
    expect_error(&out, 2, "certificate-malformed", s(&c.key));
}

#[test]
fn inspect_shows_the_chain() {
    let c = chain("inspect", Spec::leaf("agent").dns("agent.example"));
    let card = signed(&c);
    let out = run(&["inspect", s(&card)], None);
    expect_code(&out, 0, "inspect");
    let text = stdout(&out);
    assert!(
        text.contains("x5c [0]: subject \"CN=agent, O=a2a-card tests\""),
        "{text}"
    );
    assert!(text.contains("x5c [1]: subject \"CN=CLI Intermediate"), "{text}");
    assert!(text.contains("names DNS:agent.example"), "{text}");
}

#[test]
fn verify_url_needs_a_leaf_for_the_origins_host() {
    let fx = Fixture::new();
    for (name, host, code) in [("good", "localhost", 0), ("other", "agent.example", 1)] {
        let c = chain(&format!("url-{name}"), Spec::leaf("agent").dns(host));
        let card = std::fs::read(signed(&c)).unwrap();
        let server = Server::start(&fx.leaf, move |_| Resp::json(&card));
        let ca = fx.write_ca(&c.dir);
        let url = server.url("localhost", "");
        let out = run_env(
            &[
                "verify",
                &url,
                "--trust-anchors",
                s(&c.root),
                "--allow-loopback",
                "--ca-file",
                s(&ca),
                "--no-cache",
                "--format",
                "json",
            ],
            None,
            &[LOOPBACK_ONLY],
        );
        expect_code(&out, code, &format!("verify URL with a leaf for {host}"));
        let j = json_out(&out);
        let sig = &j["signatures"][0];
        if code == 0 {
            assert!(
                sig["certificate"]["identity"]
                    .as_str()
                    .unwrap()
                    .contains("localhost"),
                "{j}"
            );
        } else {
            assert_eq!(sig["verdict"]["code"], "certificate-identity-mismatch", "{j}");
        }
    }
}
