//! Independent tools the tests check the library against: the `openssl` command line, SHA-256
//! (ring's, not the library's path) and RFC 7638 thumbprints computed from a JWK's members.

use crate::data::b64url;
use std::path::Path;
use std::process::{Command, Output};

/// True when an `openssl` command runs; outside CI a missing one is a note, under CI a failure.
pub fn have_openssl() -> bool {
    let ok = Command::new("openssl")
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "openssl is missing and CI is set"
        );
        eprintln!("note: no openssl command; skipping the OpenSSL part of this test");
    }
    ok
}

/// Runs `openssl` with `args` and asserts success.
#[track_caller]
pub fn openssl(args: &[&str]) -> Output {
    let out = Command::new("openssl").args(args).output().unwrap();
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// SHA-256 by ring's digest.
pub fn sha256(bytes: &[u8]) -> Vec<u8> {
    ring::digest::digest(&ring::digest::SHA256, bytes)
        .as_ref()
        .to_vec()
}

/// The RFC 7638 thumbprint of a public JWK, computed here from its required members.
pub fn thumbprint(jwk: &serde_json::Value) -> String {
    let members: &[&str] = match jwk["kty"].as_str().unwrap() {
        "EC" => &["crv", "kty", "x", "y"],
        "OKP" => &["crv", "kty", "x"],
        "RSA" => &["e", "kty", "n"],
        other => panic!("kty {other}"),
    };
    let body: Vec<String> = members
        .iter()
        .map(|m| format!("\"{m}\":\"{}\"", jwk[*m].as_str().unwrap()))
        .collect();
    b64url(sha256(format!("{{{}}}", body.join(",")).as_bytes()))
}

/// The only key of a JWKS file.
pub fn only_jwk(path: &Path) -> serde_json::Value {
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let keys = v["keys"].as_array().unwrap();
    assert_eq!(keys.len(), 1, "{}", path.display());
    keys[0].clone()
}

/// The signature entries of a card file.
pub fn signatures(path: &Path) -> Vec<serde_json::Value> {
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    v["signatures"].as_array().cloned().unwrap_or_default()
}

/// The decoded protected header of a signature entry.
pub fn protected(entry: &serde_json::Value) -> serde_json::Value {
    serde_json::from_slice(&crate::data::unb64url(entry["protected"].as_str().unwrap())).unwrap()
}
