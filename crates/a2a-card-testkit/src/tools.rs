//! Independent tools the tests check the library against: the `openssl` command line, SHA-256
//! (ring's, not the library's path) and RFC 7638 thumbprints computed from a JWK's members.

use crate::data::b64url;
use std::path::Path;
use std::path::PathBuf;
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

/// The `jose` command, or None (after a note) when it is missing outside CI.
///
/// # Panics
///
/// When it is missing and `CI` is set.
pub fn jose() -> Option<PathBuf> {
    let candidates = std::iter::once(PathBuf::from("/usr/bin/jose")).chain(
        std::env::var_os("PATH")
            .map(|p| {
                std::env::split_paths(&p)
                    .map(|d| d.join("jose"))
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default(),
    );
    for c in candidates {
        if c.is_file() {
            return Some(c);
        }
    }
    if std::env::var_os("CI").is_some() {
        panic!(
            "the José command `jose` (Debian package `jose`) is not installed; CI is set, so this \
             is a failure: .ci/run must install it (apt-get install jose)"
        );
    }
    eprintln!("note: the José command `jose` (Debian package `jose`) is not installed; skipping this test");
    None
}

fn show(args: &[&std::ffi::OsStr]) -> String {
    args.iter()
        .map(|a| {
            let s = a.to_string_lossy();
            if s.contains(['{', ' ', '"']) {
                format!("'{s}'")
            } else {
                s.into_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Runs `jose ARGS...`, printing the command line and its status.
pub fn run_jose(bin: &Path, args: &[&std::ffi::OsStr]) -> Output {
    let out = Command::new(bin)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", bin.display()));
    println!(
        "$ jose {}  # exit {}{}",
        show(args),
        out.status.code().map_or("signal".into(), |c| c.to_string()),
        if out.stderr.is_empty() {
            String::new()
        } else {
            format!(", stderr: {}", String::from_utf8_lossy(&out.stderr).trim())
        }
    );
    out
}

/// The algorithms this José build lists (`jose alg`).
pub fn jose_algs(bin: &Path) -> Vec<String> {
    let out = run_jose(bin, &["alg".as_ref()]);
    assert!(out.status.success(), "jose alg failed");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.trim().to_string())
        .collect()
}

/// True when José implements `alg`; else prints a note. José 11 (Debian 12) has no EdDSA.
pub fn jose_has(bin: &Path, alg: &str) -> bool {
    if jose_algs(bin).iter().any(|a| a == alg) {
        return true;
    }
    println!("note: this José build does not implement {alg} (`jose alg` does not list it); {alg} is not cross-checked with José");
    false
}

/// Checks a card's signature entry with `jose jws ver`, its payload (`payload`, the canonical
/// bytes) detached, against the public JWK `jwk`; files go in `dir`. Returns false (after a
/// note) when José is missing outside CI or does not implement the entry's `alg`.
///
/// # Panics
///
/// When José refuses the signature.
pub fn jose_verifies_entry(
    dir: &Path,
    entry: &serde_json::Value,
    payload: &[u8],
    jwk: &serde_json::Value,
) -> bool {
    let Some(bin) = jose() else { return false };
    let alg = protected(entry)["alg"].as_str().unwrap_or_default().to_string();
    if !jose_has(&bin, &alg) {
        return false;
    }
    let entry_file = dir.join("jose-entry.json");
    let payload_file = dir.join("jose-payload.bin");
    let jwk_file = dir.join("jose-jwk.json");
    std::fs::write(&entry_file, serde_json::to_vec(entry).unwrap()).unwrap();
    std::fs::write(&payload_file, payload).unwrap();
    std::fs::write(&jwk_file, serde_json::to_vec(jwk).unwrap()).unwrap();
    let out = run_jose(
        &bin,
        &[
            "jws".as_ref(),
            "ver".as_ref(),
            "-i".as_ref(),
            entry_file.as_os_str(),
            "-I".as_ref(),
            payload_file.as_os_str(),
            "-k".as_ref(),
            jwk_file.as_os_str(),
        ],
    );
    assert!(
        out.status.success(),
        "jose refused the {alg} signature (files in {})",
        dir.display()
    );
    true
}
