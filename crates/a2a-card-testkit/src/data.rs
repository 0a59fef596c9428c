//! Where the test data is, and the small encoders tests need to build and check inputs
//! independently of the library under test.
//!
//! Third-party corpora live outside the repository (they are never copied in). They are found
//! through the environment variable `A2A_CARD_CORPORA`, by default `../shared/corpora` next to the
//! repository. A missing corpus is a test failure when `CI` is set, and a note on stderr (the test
//! then returns early) otherwise.

use base64::Engine as _;
use std::path::{Path, PathBuf};

/// Environment variable naming the directory that holds the third-party corpora.
pub const CORPORA_ENV: &str = "A2A_CARD_CORPORA";

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The project's own language-neutral test vectors (`testvectors/`).
pub fn testvectors_dir() -> PathBuf {
    repo_root().join("testvectors")
}

/// The OpenSSL-made key files of the core's tests (`crates/a2a-card/tests/data/keys`, made by
/// its `make.sh`).
pub fn keys_dir() -> PathBuf {
    repo_root().join("crates/a2a-card/tests/data/keys")
}

/// The text of the key file `name` in [`keys_dir`].
pub fn key_file(name: &str) -> String {
    let p = keys_dir().join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The third-party corpora, or `None` (after a note on stderr) when they are missing outside CI.
/// A relative `A2A_CARD_CORPORA` is taken from the repository root.
///
/// # Panics
///
/// When the directory is missing and the environment variable `CI` is set.
pub fn corpus_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os(CORPORA_ENV) {
        Some(v) if !v.is_empty() && Path::new(&v).is_absolute() => PathBuf::from(v),
        Some(v) if !v.is_empty() => repo_root().join(v),
        _ => repo_root().join("../shared/corpora"),
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

/// The subfolder `name` of the corpora, or `None` as [`corpus_dir`] says (a missing subfolder
/// under CI is a failure too).
pub fn corpus(name: &str) -> Option<PathBuf> {
    let dir = corpus_dir()?.join(name);
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var_os("CI").is_some() {
        panic!(
            "corpus {} is missing (CI is set, so this is a failure)",
            dir.display()
        );
    }
    eprintln!("note: corpus {} is missing; skipping this test", dir.display());
    None
}

/// The JSON file `path` (relative to the corpora folder) read with [`read_json`], or `None`
/// as [`corpus_dir`] says.
pub fn corpus_json(path: &str) -> Option<serde_json::Value> {
    Some(read_json(corpus_dir()?.join(path)))
}

/// The vector files of the a2a-card-sign-v01 corpus (`a2a/a2a-card-sign-v01` under the corpora
/// folder `corpora`), group by group (`s0-control` to `s4-dual-name`), each group sorted.
pub fn card_sign_vector_files(corpora: &Path) -> Vec<PathBuf> {
    let dir = corpora.join("a2a/a2a-card-sign-v01");
    let mut out = Vec::new();
    for group in [
        "s0-control",
        "s1-default-valued",
        "s2-absent-required",
        "s3-unknown-fields",
        "s4-dual-name",
    ] {
        out.extend(files(&dir.join(group), "", ""));
    }
    out
}

/// Reads and parses a JSON file with `serde_json` (for test data, not for inputs under test).
pub fn read_json(path: impl AsRef<Path>) -> serde_json::Value {
    let path = path.as_ref();
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// The strings of a JSON array (of test data or of a report); panics, showing the value, on
/// anything else.
#[track_caller]
pub fn strings(v: &serde_json::Value) -> Vec<&str> {
    v.as_array()
        .and_then(|items| items.iter().map(serde_json::Value::as_str).collect())
        .unwrap_or_else(|| panic!("not an array of strings: {v}"))
}

/// Decodes hexadecimal (either case, no separators).
pub fn unhex(s: &str) -> Vec<u8> {
    let s = s.trim();
    assert!(s.len() % 2 == 0, "odd-length hex string: {s:?}");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap_or_else(|_| panic!("bad hex in {s:?}")))
        .collect()
}

/// Lower-case hexadecimal.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Base64url without padding (RFC 7515 section 2), by the `base64` crate.
pub fn b64url(bytes: impl AsRef<[u8]>) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes.as_ref())
}

/// Decodes base64url without padding, by the `base64` crate.
pub fn unb64url(s: &str) -> Vec<u8> {
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(s)
        .unwrap_or_else(|e| panic!("{s:?} is not base64url: {e}"))
}

/// The path as a `&str`.
pub fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Writes `bytes` to `dir/name` and returns the path.
pub fn write(dir: &Path, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// The files of `dir` whose names start with `prefix` and end with `suffix`, sorted by name.
///
/// # Panics
///
/// When `dir` cannot be listed (the message names it).
pub fn files(dir: &Path, prefix: &str, suffix: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(prefix) && n.ends_with(suffix))
        })
        .collect();
    out.sort();
    out
}

/// The `.json` files of `dir`, sorted by name.
pub fn json_files(dir: &Path) -> Vec<PathBuf> {
    files(dir, "", ".json")
}

/// The last component of `path` as text (a file's name).
pub fn file_name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

/// The file names in `dir`, sorted.
pub fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A fresh, empty directory under the system temp dir, unique to this process and call.
pub fn scratch(name: &str) -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "a2a-card-test-{name}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
