//! The portable static binary (`scripts/build-static.sh`): it needs no shared library, and it
//! gives the same bytes and verdicts as the binary under test, for every algorithm (ES512,
//! ES256K and Ed448 go through the OpenSSL it carries).
//!
//! Runs on the binary named by `A2A_CARD_STATIC_BINARY` (`scripts/test.sh` sets it after
//! building). Without it the test says so and passes, unless `A2A_CARD_REQUIRE_STATIC` is set.
//! `A2A_CARD_STATIC_RUNNER` names a program that runs it (`qemu-aarch64-static` for the
//! aarch64 binary of `scripts/release.sh`).

#![allow(clippy::unwrap_used, clippy::panic)] // a panic is how a test fails

mod common;

use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

fn static_binary() -> Option<PathBuf> {
    match std::env::var_os("A2A_CARD_STATIC_BINARY") {
        Some(p) if !p.is_empty() => Some(PathBuf::from(p)),
        _ => {
            assert!(
                std::env::var_os("A2A_CARD_REQUIRE_STATIC").is_none(),
                "A2A_CARD_REQUIRE_STATIC is set but A2A_CARD_STATIC_BINARY is not"
            );
            eprintln!(
                "note: A2A_CARD_STATIC_BINARY is not set (scripts/build-static.sh builds it); skipping"
            );
            None
        }
    }
}

/// The program that runs the static binary, when it is not this machine's own kind.
fn runner() -> Option<PathBuf> {
    std::env::var_os("A2A_CARD_STATIC_RUNNER")
        .filter(|r| !r.is_empty())
        .map(PathBuf::from)
}

fn run_static(bin: &Path, args: &[&str]) -> std::process::Output {
    match runner() {
        Some(runner) => {
            let args: Vec<&str> = std::iter::once(s(bin)).chain(args.iter().copied()).collect();
            a2a_card_testkit::bin::run(&runner, None, &args, None, &[], &[KEY_ENV])
        }
        None => a2a_card_testkit::bin::run(bin, None, args, None, &[], &[KEY_ENV]),
    }
}

/// The ELF program headers of `bytes` hold no PT_INTERP: the kernel starts the program without
/// a dynamic loader, so no shared library is looked for (read from the file, with no tool).
fn is_static_elf(bytes: &[u8]) -> bool {
    let u16_at = |o: usize| u16::from_le_bytes([bytes[o], bytes[o + 1]]);
    let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
    let u64_at = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().unwrap());
    assert_eq!(&bytes[..4], b"\x7fELF", "not an ELF file");
    assert_eq!(bytes[4], 2, "not a 64-bit ELF file");
    let phoff = usize::try_from(u64_at(0x20)).unwrap();
    let phentsize = usize::from(u16_at(0x36));
    let phnum = usize::from(u16_at(0x38));
    (0..phnum).all(|i| {
        let p_type = u32_at(phoff + i * phentsize);
        p_type != 3 // PT_INTERP
    })
}

#[test]
fn the_static_binary_needs_no_shared_library_and_agrees_with_the_build() {
    let Some(bin) = static_binary() else { return };
    let bytes = std::fs::read(&bin).unwrap_or_else(|e| panic!("{}: {e}", bin.display()));
    assert!(
        is_static_elf(&bytes),
        "{} asks for a program interpreter: it is not static",
        bin.display()
    );
    // The test's own (dynamically linked) binary does ask for one: the check can fail.
    assert!(
        !is_static_elf(&std::fs::read(bin_path()).unwrap()),
        "the check cannot tell"
    );

    // It runs with an empty environment, in a directory of its own.
    let dir = scratch("static");
    let copy = dir.join("a2a-card");
    std::fs::copy(&bin, &copy).unwrap();
    let mut command = match runner() {
        Some(runner) => {
            let mut c = Command::new(runner);
            c.arg(&copy);
            c
        }
        None => Command::new(&copy),
    };
    let out = command
        .arg("--version")
        .env_clear()
        .current_dir(&dir)
        .output()
        .unwrap();
    expect_code(&out, 0, "static --version");
    // The same version and commit as the build under test; its own (musl) target.
    let theirs = stdout(&out).lines().next().unwrap_or_default().to_string();
    let ours = stdout(&run(&["--version"], None));
    let ours = ours.lines().next().unwrap_or_default();
    let upto_target = |line: &str| line.rsplit_once(", ").map(|(head, _)| head.to_string());
    assert_eq!(upto_target(&theirs), upto_target(ours), "{theirs} / {ours}");
    assert!(theirs.ends_with("-linux-musl)"), "{theirs}");

    // Same canonical bytes on the built-in sample.
    let sample = a2a_card_testkit::data::testvectors_dir().join("cards/sample-8.5-unsigned.json");
    let ours = run(&["canonicalize", s(&sample)], None);
    let theirs = run_static(&copy, &["canonicalize", s(&sample)]);
    expect_code(&theirs, 0, "static canonicalize");
    assert_eq!(ours.stdout, theirs.stdout);

    // Every algorithm: keys made by one binary, cards signed by one, verified by the other.
    for (alg, extra) in ALGORITHMS {
        let (pem, jwks) = keygen(&dir, &format!("k-{alg}-{}", extra.len()), alg, extra);
        let signed = dir.join(format!("signed-{alg}-{}.json", extra.len()));
        let args = [
            "sign",
            "--unknown",
            "exclude",
            s(&sample),
            "--key",
            s(&pem),
            "--alg",
            alg,
            "--out",
            s(&signed),
        ];
        let out = run_static(&copy, &args);
        expect_code(&out, 0, &format!("static sign {alg} {extra:?}"));
        let out = run(&["verify", s(&signed), "--jwks", s(&jwks)], None);
        expect_code(&out, 0, &format!("verify of the static binary's {alg} signature"));
        let ours = dir.join(format!("ours-{alg}-{}.json", extra.len()));
        sign_to(&sample, &pem, &["--alg", alg], &ours);
        let out = run_static(&copy, &["verify", s(&ours), "--jwks", s(&jwks)]);
        expect_code(&out, 0, &format!("static verify of a {alg} signature"));
    }
}
