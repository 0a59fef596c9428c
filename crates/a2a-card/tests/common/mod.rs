//! Helpers shared by the integration tests that read third-party corpora and our own test
//! vectors.
//!
//! Third-party corpora live outside the repository (they are never copied in). They are found
//! through the environment variable `A2A_CARD_CORPORA`, or by default at `shared/corpora` next to
//! the repository root. A missing corpus is a test failure when `CI` is set, and a note on stderr
//! (the test then returns early) otherwise.

#![allow(dead_code, clippy::panic)]

use std::path::{Path, PathBuf};

/// Environment variable naming the directory that holds the third-party corpora.
pub const CORPORA_ENV: &str = "A2A_CARD_CORPORA";

/// Directory holding the third-party corpora, or `None` (after a note on stderr) when it is
/// missing outside CI.
///
/// # Panics
///
/// When the directory is missing and the environment variable `CI` is set.
pub fn corpus_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os(CORPORA_ENV) {
        Some(v) if !v.is_empty() => PathBuf::from(v),
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpora"),
    };
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var_os("CI").is_some() {
        panic!(
            "third-party corpora not found at {} (set {CORPORA_ENV} to their location); \
             CI is set, so a missing corpus is a failure",
            dir.display()
        );
    }
    eprintln!(
        "note: third-party corpora not found at {} (set {CORPORA_ENV}); skipping this test",
        dir.display()
    );
    None
}

/// Directory holding the project's own language-neutral test vectors (`testvectors/`).
pub fn testvectors_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testvectors")
}

/// Decodes a hexadecimal string (either case, no separators).
///
/// # Panics
///
/// On odd length or a non-hex digit (test data is trusted to be well formed).
pub fn hex_decode(s: &str) -> Vec<u8> {
    let s = s.trim();
    assert!(s.len() % 2 == 0, "odd-length hex string: {s:?}");
    (0..s.len())
        .step_by(2)
        .map(|i| {
            u8::from_str_radix(&s[i..i + 2], 16)
                .unwrap_or_else(|_| panic!("bad hex digits {:?} in {s:?}", &s[i..i + 2]))
        })
        .collect()
}

/// Encodes bytes as lowercase hexadecimal.
pub fn hex_encode(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 0x0f)] as char);
    }
    out
}

/// Reads and parses a JSON file with `serde_json` (for test metadata, not for inputs under test).
///
/// # Panics
///
/// When the file cannot be read or is not JSON.
pub fn read_json(path: impl AsRef<Path>) -> serde_json::Value {
    let path = path.as_ref();
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// The 42 vector files of the a2a-card-sign-v01 corpus, group by group, each group sorted.
#[allow(dead_code)]
pub fn card_sign_vector_files(corpus: &Path) -> Vec<PathBuf> {
    let dir = corpus.join("a2a/a2a-card-sign-v01");
    let mut out = Vec::new();
    for group in [
        "s0-control",
        "s1-default-valued",
        "s2-absent-required",
        "s3-unknown-fields",
        "s4-dual-name",
    ] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join(group))
            .unwrap_or_else(|e| panic!("{}: {e}", dir.join(group).display()))
            .map(|e| e.expect("directory entry").path())
            .collect();
        files.sort();
        out.extend(files);
    }
    out
}
