//! What the end-to-end tests of the `a2a-card` binary add to the shared test support
//! (`a2a-card-testkit`, re-exported here): the binary itself, the test card and algorithms, and
//! commands run through it (keygen, sign, verify, canonicalize, --help).

#![allow(dead_code, unused_imports, clippy::unwrap_used, clippy::panic)]

pub mod doc_blocks;
#[cfg(unix)]
pub mod hardening;

pub use a2a_card_testkit::bin::{
    error_line, expect_code, expect_error, json_out, stderr, stderr_field, stdout,
};
pub use a2a_card_testkit::data::{
    b64url, corpus_dir, file_name, hex, json_files, listing, read_json, repo_root, s, scratch, strings,
    testvectors_dir, unb64url, unhex, write,
};
pub use a2a_card_testkit::tools::{
    have_openssl, only_jwk, openssl, protected, sha256, signatures, thumbprint,
};
use std::path::{Path, PathBuf};
use std::process::Output;

/// The environment variable the binary reads a signing key from.
pub const KEY_ENV: &str = "A2A_CARD_SIGNING_KEY";

/// A small card with every REQUIRED member, an empty REQUIRED string and an unknown member; it
/// lints without errors, so that `sign` (which lints first, `--lint error`) signs it.
pub const CARD: &str = r#"{
  "name": "Release Agent",
  "description": "",
  "version": "1.0.0",
  "supportedInterfaces": [{"url": "https://release.example/a2a/v1", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
  "capabilities": {"streaming": true, "extensions": []},
  "defaultInputModes": ["text/plain"],
  "defaultOutputModes": ["text/plain"],
  "skills": [{"id": "s1", "name": "Ship", "description": "ships", "tags": ["release"]}],
  "x-vendor": {"build": 7}
}
"#;

/// Every algorithm the default build signs with, and the `keygen` options for it.
pub const ALGORITHMS: &[(&str, &[&str])] = &[
    ("EdDSA", &[]),
    ("EdDSA", &["--curve", "Ed448"]),
    ("ES256", &[]),
    ("ES384", &[]),
    ("ES512", &[]),
    ("ES256K", &[]),
    ("RS256", &[]),
    ("RS384", &[]),
    ("RS512", &[]),
    ("PS256", &[]),
    ("PS384", &[]),
    ("PS512", &["--rsa-bits", "3072"]),
];

/// The code of the first signature's verdict in the JSON report on `out`'s stdout.
pub fn verdict_code(out: &Output) -> String {
    json_out(out)["signatures"][0]["verdict"]["code"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The binary under test.
pub fn bin_path() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_a2a-card"))
}

/// The binary as a command to finish building (for tests that drive the child themselves), with
/// the signing-key variable removed.
pub fn bin() -> std::process::Command {
    let mut cmd = std::process::Command::new(bin_path());
    cmd.env_remove(KEY_ENV);
    cmd
}

/// Runs the binary with `args`, feeding `stdin` when given.
pub fn run(args: &[&str], stdin: Option<&[u8]>) -> Output {
    run_env(args, stdin, &[])
}

/// [`run`] with extra environment variables.
pub fn run_env(args: &[&str], stdin: Option<&[u8]>, env: &[(&str, &str)]) -> Output {
    run_in(None, args, stdin, env)
}

/// [`run_env`] in a working directory. The signing-key variable is removed, so that the
/// caller's environment never leaks into a test.
pub fn run_in(dir: Option<&Path>, args: &[&str], stdin: Option<&[u8]>, env: &[(&str, &str)]) -> Output {
    a2a_card_testkit::bin::run(bin_path(), dir, args, stdin, env, &[KEY_ENV])
}

/// Runs `keygen --alg ALG` into `dir`, returning the PEM and JWKS paths.
#[track_caller]
pub fn keygen(dir: &Path, name: &str, alg: &str, extra: &[&str]) -> (PathBuf, PathBuf) {
    let pem = dir.join(format!("{name}.pem"));
    let jwks = dir.join(format!("{name}.jwks.json"));
    let mut args = vec!["keygen", "--alg", alg, "--out", s(&pem), "--jwks", s(&jwks)];
    args.extend_from_slice(extra);
    let out = run(&args, None);
    expect_code(&out, 0, &format!("keygen {alg} {extra:?}"));
    (pem, jwks)
}

/// A fresh scratch directory `name` holding [`CARD`] as `card.json` and a fresh key made by
/// `keygen --alg ALG` plus `extra` (`k.pem`, `k.jwks.json`): (dir, card, PEM, JWKS).
#[track_caller]
pub fn card_and_key(name: &str, alg: &str, extra: &[&str]) -> (PathBuf, PathBuf, PathBuf, PathBuf) {
    let dir = scratch(name);
    let card = write(&dir, "card.json", CARD);
    let (pem, jwks) = keygen(&dir, "k", alg, extra);
    (dir, card, pem, jwks)
}

/// Signs `card` with `--key key` plus `extra`, writing the result to `out_path`; with
/// `--unknown exclude` unless `extra` names `--unknown` (the test cards carry unknown members).
#[track_caller]
pub fn sign_to(card: &Path, key: &Path, extra: &[&str], out_path: &Path) -> Output {
    let mut args = vec!["sign", s(card), "--key", s(key), "--out", s(out_path)];
    args.extend_from_slice(extra);
    // The test cards carry unknown members on purpose; sign refuses them unless told.
    if !extra.contains(&"--unknown") {
        args.extend(["--unknown", "exclude"]);
    }
    let out = run(&args, None);
    expect_code(&out, 0, &format!("sign {extra:?}"));
    out
}

/// Runs `sign CARD --key KEY` plus `extra` (and `--unknown exclude` unless `extra` chooses).
pub fn sign(card: &Path, key: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["sign", s(card), "--key", s(key)];
    args.extend_from_slice(extra);
    if !extra.contains(&"--unknown") {
        args.extend(["--unknown", "exclude"]);
    }
    run(&args, None)
}

/// Runs `verify CARD --jwks JWKS` plus `extra`.
pub fn verify(card: &Path, jwks: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["verify", s(card), "--jwks", s(jwks)];
    args.extend_from_slice(extra);
    run(&args, None)
}

/// The `--help` text of the binary (`command` empty) or of a subcommand; it must exit 0.
#[track_caller]
pub fn help(command: &[&str]) -> String {
    let mut args = command.to_vec();
    args.push("--help");
    let out = run(&args, None);
    expect_code(&out, 0, &format!("{command:?} --help"));
    stdout(&out)
}

/// Asserts that `text` contains every one of `needles`.
#[track_caller]
pub fn assert_mentions(text: &str, needles: &[&str]) {
    for needle in needles {
        assert!(text.contains(needle), "lacks {needle:?}:\n{text}");
    }
}

/// The canonical bytes of a card through `a2a-card canonicalize` with `extra` options.
#[track_caller]
pub fn canonical(card: &Path, extra: &[&str]) -> Vec<u8> {
    let mut args = vec!["canonicalize", s(card)];
    args.extend_from_slice(extra);
    let out = run(&args, None);
    expect_code(&out, 0, "canonicalize");
    out.stdout
}
