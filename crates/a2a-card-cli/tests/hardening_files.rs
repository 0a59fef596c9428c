//! End-to-end tests of the "Hard to fool, round two" fixes: what every output option writes to
//! (devices, FIFOs, sockets, directories, symbolic links, read-only files), and outputs that
//! are the same file as another output or an input. (What the binary reads, `verify --batch`
//! inputs and numeric bounds, is in hardening_inputs.rs.)
//!
//! Every case runs the binary under a time limit, so that the old behaviours (a FIFO opened for
//! reading, a JSON Lines file read to its end) fail the test instead of hanging it. No case
//! names a file of the system (`/dev/null`, `/dev/stdout`) as an output: a binary without these
//! fixes would replace it. They use a device node, a FIFO and a socket made in a scratch
//! directory, and symbolic links to `/dev/null` and `/proc/self/fd/1`, which an unfixed binary
//! replaces as links without touching what they lead to.

#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::hardening::*;
use common::*;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::Path;

// ---------------------------------------------------------------------------------------------
// A. Writes replace only regular files.

#[test]
fn writes_refuse_fifos_sockets_devices_and_directories() {
    let f = fixture("hard-special");
    let special = f.dir.join("special");
    std::fs::create_dir_all(&special).unwrap();
    let fifo = special.join("fifo.json");
    mkfifo(&fifo);
    let socket = special.join("socket.json");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let directory = special.join("directory.json");
    std::fs::create_dir_all(&directory).unwrap();
    let null_link = special.join("null-link.json");
    std::os::unix::fs::symlink("/dev/null", &null_link).unwrap();
    let device = special.join("null-node");
    let mut targets: Vec<(&Path, &[&str])> = vec![
        (&fifo, &["a FIFO", "not a regular file"]),
        (&socket, &["a socket", "not a regular file"]),
        (&directory, &["a directory", "not a regular file"]),
        (
            &null_link,
            &[
                "symbolic link to /dev/null",
                "a character device",
                "not a regular file",
            ],
        ),
    ];
    if mknod_null(&device) {
        targets.push((&device, &["a character device", "not a regular file"]));
    }
    for (target, words) in &targets {
        let before = file_type(target);
        for (name, args) in writers(&f, s(target), &[]) {
            let what = format!("{name} {}", target.display());
            let out = run_ok(&strs(&args), &what);
            expect_io_refusal(&out, s(target), words, &what);
            let after = file_type(target);
            assert_eq!(
                (
                    after.is_fifo(),
                    after.is_socket(),
                    after.is_dir(),
                    after.is_symlink(),
                    after.is_char_device()
                ),
                (
                    before.is_fifo(),
                    before.is_socket(),
                    before.is_dir(),
                    before.is_symlink(),
                    before.is_char_device()
                ),
                "{what}: the target changed kind"
            );
        }
        // sign --in-place: the card itself is the FIFO or device; it is refused before it is
        // opened (opening a FIFO would wait for a writer forever).
        let out = run_ok(
            &[
                "sign",
                "--unknown",
                "exclude",
                s(target),
                "--key",
                s(&f.pem),
                "--in-place",
            ],
            "sign --in-place",
        );
        expect_io_refusal(
            &out,
            s(target),
            words,
            &format!("sign --in-place {}", target.display()),
        );
        assert_eq!(file_type(target).is_file(), before.is_file());
    }
    assert_eq!(std::fs::read_link(&null_link).unwrap(), Path::new("/dev/null"));
    assert!(temp_files(&special).is_empty(), "{:?}", listing(&special));
}

#[test]
fn a_link_into_proc_like_dev_stdout_is_refused() {
    let f = fixture("hard-proc");
    // What /dev/stdout is on Linux: a link to /proc/self/fd/1. With stdout a pipe it leads to
    // a FIFO; with stdout a file it would lead to that file as another process holds it open.
    let stdout_link = f.dir.join("stdout-link");
    std::os::unix::fs::symlink("/proc/self/fd/1", &stdout_link).unwrap();
    for (name, args) in writers(&f, s(&stdout_link), &[]) {
        let what = format!("{name} -> /proc/self/fd/1");
        let out = run_ok(&strs(&args), &what);
        expect_code(&out, 2, &what);
        let line = stderr(&out)
            .lines()
            .find(|l| l.starts_with("error["))
            .unwrap_or_default()
            .to_string();
        assert!(line.starts_with("error[io]: "), "{what}: {line}");
        assert!(
            line.ends_with(&format!("({})", s(&stdout_link))),
            "{what}: {line}"
        );
        assert!(
            line.contains("/proc") || line.contains("a FIFO"),
            "{what}: {line}"
        );
        assert!(
            file_type(&stdout_link).is_symlink(),
            "{what}: the link was replaced"
        );
    }
}

#[test]
fn symbolic_links_are_written_through_and_dangling_ones_refused() {
    let f = fixture("hard-links");
    let real = f.dir.join("real");
    let links = f.dir.join("links");
    std::fs::create_dir_all(&real).unwrap();
    std::fs::create_dir_all(&links).unwrap();

    // sign --in-place through a relative link in another directory: the link stays a link,
    // the card it leads to is signed, and the temporary file was made next to that card.
    let target = write(&real, "card.json", CARD);
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).unwrap();
    let link = links.join("card.json");
    std::os::unix::fs::symlink("../real/card.json", &link).unwrap();
    let out = run_ok(
        &[
            "sign",
            "--unknown",
            "exclude",
            s(&link),
            "--key",
            s(&f.pem),
            "--in-place",
        ],
        "sign --in-place link",
    );
    expect_code(&out, 0, "sign --in-place through a link");
    assert!(file_type(&link).is_symlink(), "the link was replaced by a file");
    assert_eq!(std::fs::read_link(&link).unwrap(), Path::new("../real/card.json"));
    assert_eq!(
        signatures(&target).len(),
        1,
        "the card behind the link is not signed"
    );
    assert_eq!(mode(&target), 0o640, "the permissions of the card were not kept");
    let verified = run_ok(&["verify", s(&target), "--jwks", s(&f.jwks)], "verify");
    expect_code(&verified, 0, "the card behind the link verifies");
    assert_eq!(listing(&links), ["card.json"]);
    assert_eq!(listing(&real), ["card.json"]);

    // Every writer, through a link to an existing file and through a chain of two links.
    let chain_end = write(&real, "end.json", "old");
    let first = links.join("first.json");
    std::os::unix::fs::symlink(&chain_end, links.join("second.json")).unwrap();
    std::os::unix::fs::symlink("second.json", &first).unwrap();
    for (name, args) in writers(&f, s(&first), &[]) {
        std::fs::write(&chain_end, "old").unwrap();
        let out = run_ok(&strs(&args), &name);
        if name == "fetch --out" {
            // Not reachable: the output was accepted, the retrieval failed afterwards.
            assert_ne!(out.status.code(), Some(0), "{name}");
            assert!(!stderr(&out).starts_with("error[io]"), "{name}: {}", stderr(&out));
            assert_eq!(std::fs::read(&chain_end).unwrap(), b"old");
        } else {
            assert!(
                matches!(out.status.code(), Some(0 | 1)),
                "{name}: {}",
                stderr(&out)
            );
            assert_ne!(
                std::fs::read(&chain_end).unwrap(),
                b"old",
                "{name}: nothing written through the links"
            );
        }
        assert!(
            file_type(&first).is_symlink() && file_type(&links.join("second.json")).is_symlink(),
            "{name}"
        );
        assert!(
            temp_files(&links).is_empty() && temp_files(&real).is_empty(),
            "{name}"
        );
    }

    // A dangling link is refused by every writer, and nothing appears where it points.
    let dangling = links.join("dangling.json");
    let nowhere = real.join("nowhere.json");
    std::os::unix::fs::symlink(&nowhere, &dangling).unwrap();
    for (name, args) in writers(&f, s(&dangling), &[]) {
        let out = run_ok(&strs(&args), &name);
        expect_io_refusal(
            &out,
            s(&dangling),
            &["symbolic link", "does not exist", "dangling"],
            &name,
        );
        assert!(file_type(&dangling).is_symlink(), "{name}: the link was replaced");
        assert!(!nowhere.exists(), "{name}: the link's target was created");
    }
    let before = std::fs::read(&f.card).unwrap();
    let out = run_ok(
        &[
            "sign",
            "--unknown",
            "exclude",
            s(&dangling),
            "--key",
            s(&f.pem),
            "--in-place",
        ],
        "in-place dangling",
    );
    expect_io_refusal(
        &out,
        s(&dangling),
        &["dangling"],
        "sign --in-place on a dangling link",
    );
    assert_eq!(std::fs::read(&f.card).unwrap(), before);
}

#[test]
fn read_only_targets_are_replaced_only_with_force() {
    let f = fixture("hard-read-only");
    let target = f.dir.join("read-only.json");
    for (name, args) in writers(&f, s(&target), &[]) {
        if name.starts_with("keygen") {
            continue; // keygen replaces only with --force: below.
        }
        std::fs::write(&target, "old").unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o444)).unwrap();
        let out = run_ok(&strs(&args), &name);
        expect_io_refusal(&out, s(&target), &["read-only", "0444", "--force"], &name);
        assert_eq!(std::fs::read(&target).unwrap(), b"old", "{name}");
        assert_eq!(mode(&target), 0o444, "{name}");
    }
    for (name, args) in writers(&f, s(&target), &["--force"]) {
        std::fs::write(&target, "old").unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o444)).unwrap();
        let out = run_ok(&strs(&args), &name);
        if name == "fetch --out" {
            // Accepted; the retrieval then fails (no network here) and nothing is written.
            assert!(!stderr(&out).starts_with("error[io]"), "{name}: {}", stderr(&out));
            assert_eq!(std::fs::read(&target).unwrap(), b"old");
            continue;
        }
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{name} --force: {}",
            stderr(&out)
        );
        assert_ne!(std::fs::read(&target).unwrap(), b"old", "{name} --force");
        let want = if name == "keygen --out --force" {
            0o600
        } else {
            0o444
        };
        assert_eq!(mode(&target), want, "{name} --force: permissions");
    }
    // sign --in-place on a read-only card, and through a link to one.
    let card = write(&f.dir, "ro-card.json", CARD);
    std::fs::set_permissions(&card, std::fs::Permissions::from_mode(0o444)).unwrap();
    let link = f.dir.join("ro-link.json");
    std::os::unix::fs::symlink(&card, &link).unwrap();
    let out = run_ok(
        &[
            "sign",
            "--unknown",
            "exclude",
            s(&card),
            "--key",
            s(&f.pem),
            "--in-place",
        ],
        "in-place ro",
    );
    expect_io_refusal(
        &out,
        s(&card),
        &["read-only", "--force"],
        "sign --in-place read-only",
    );
    let out = run_ok(
        &[
            "sign",
            "--unknown",
            "exclude",
            s(&link),
            "--key",
            s(&f.pem),
            "--in-place",
        ],
        "in-place ro link",
    );
    expect_io_refusal(
        &out,
        s(&link),
        &["symbolic link", "read-only", "--force"],
        "through a link",
    );
    assert_eq!(std::fs::read(&card).unwrap(), CARD.as_bytes());
    let out = run_ok(
        &[
            "sign",
            "--unknown",
            "exclude",
            s(&link),
            "--key",
            s(&f.pem),
            "--in-place",
            "--force",
        ],
        "forced",
    );
    expect_code(&out, 0, "sign --in-place --force");
    assert_eq!(signatures(&card).len(), 1);
    assert_eq!(mode(&card), 0o444);
    assert!(file_type(&link).is_symlink());
    assert!(temp_files(&f.dir).is_empty(), "{:?}", listing(&f.dir));
}

#[test]
fn force_is_only_for_commands_that_write() {
    let f = fixture("hard-force-usage");
    let sign = f.sign_args(&["--force"]);
    let cases: [(&str, &[&str]); 5] = [
        ("sign", &sign),
        (
            "verify",
            &["verify", s(&f.signed), "--jwks", s(&f.jwks), "--force"],
        ),
        ("fetch", &["fetch", "https://a2a-card-test.invalid/", "--force"]),
        ("migrate", &["migrate", s(&f.v03), "--force"]),
        ("schema", &["schema", "--force"]),
    ];
    for (name, args) in cases {
        let out = run_ok(args, name);
        expect_code(&out, 2, name);
        assert!(out.stdout.is_empty(), "{name}");
        let err = stderr(&out);
        assert!(err.contains("--force"), "{name}: {err}");
        assert!(
            err.contains("--out") || err.contains("--emit-verified") || err.contains("--in-place"),
            "{name}: the output option is not named: {err}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// B. Outputs that are the same file as another output or an input.

#[test]
fn keygen_out_and_jwks_are_compared_as_files() {
    let f = fixture("hard-keygen-same");
    let keys = f.dir.join("keys");
    let sub = keys.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    let pem_text = std::fs::read(&f.pem).unwrap();
    let link = keys.join("k-link.pem");
    std::os::unix::fs::symlink("k.pem", &link).unwrap();
    let spellings = [
        "./k.pem".to_string(),
        "sub/../k.pem".to_string(),
        s(&f.pem).to_string(),
        "k-link.pem".to_string(),
    ];
    for jwks in &spellings {
        let out = run_in(
            Some(&keys),
            &[
                "keygen", "--alg", "ES256", "--out", "k.pem", "--jwks", jwks, "--force",
            ],
            None,
            &[],
        );
        expect_usage(
            &out,
            &["--out", "--jwks", "k.pem", jwks, "same file"],
            &format!("--jwks {jwks}"),
        );
        assert_eq!(
            std::fs::read(&f.pem).unwrap(),
            pem_text,
            "--jwks {jwks}: the private key changed"
        );
    }
    // Neither exists yet: still the same file, and nothing is written.
    let dangling = keys.join("new-link.pem");
    std::os::unix::fs::symlink("new.pem", &dangling).unwrap();
    for jwks in ["./new.pem", "sub/../new.pem", "new-link.pem"] {
        let out = run_in(
            Some(&keys),
            &[
                "keygen", "--alg", "ES256", "--out", "new.pem", "--jwks", jwks, "--force",
            ],
            None,
            &[],
        );
        expect_usage(
            &out,
            &["--out", "--jwks", "same file"],
            &format!("new, --jwks {jwks}"),
        );
        assert!(!keys.join("new.pem").exists(), "--jwks {jwks}: a key was written");
    }
    // Different files are fine.
    let out = run_in(
        Some(&keys),
        &[
            "keygen",
            "--alg",
            "ES256",
            "--out",
            "sub/../other.pem",
            "--jwks",
            "./other.jwks.json",
        ],
        None,
        &[],
    );
    expect_code(&out, 0, "different files");
}

#[test]
fn sign_out_may_be_neither_the_key_nor_the_card() {
    let f = fixture("hard-sign-same");
    let pem_text = std::fs::read(&f.pem).unwrap();
    let key_link = f.dir.join("key-link.pem");
    std::os::unix::fs::symlink(&f.pem, &key_link).unwrap();
    let dotted = f.dir.join("keys").join("..").join("keys").join("k.pem");
    for out_path in [&key_link, &dotted, &f.pem] {
        let out = run_ok(
            &[
                "sign",
                "--unknown",
                "exclude",
                s(&f.card),
                "--key",
                s(&f.pem),
                "--out",
                s(out_path),
            ],
            "sign --out key",
        );
        expect_usage(
            &out,
            &["--out", "--key", "same file"],
            &format!("--out {}", out_path.display()),
        );
        assert_eq!(
            std::fs::read(&f.pem).unwrap(),
            pem_text,
            "the key was overwritten"
        );
    }
    let card_text = std::fs::read(&f.card).unwrap();
    let card_link = f.dir.join("card-link.json");
    std::os::unix::fs::symlink("card.json", &card_link).unwrap();
    let out = run_in(
        Some(&f.dir),
        &[
            "sign",
            "--unknown",
            "exclude",
            "card.json",
            "--key",
            s(&f.pem),
            "--out",
            "./card-link.json",
        ],
        None,
        &[],
    );
    expect_usage(
        &out,
        &["--out", "card file itself", "--in-place"],
        "--out the card",
    );
    assert_eq!(std::fs::read(&f.card).unwrap(), card_text);
    // --in-place on the key file itself.
    let out = run_ok(
        &[
            "sign",
            "--unknown",
            "exclude",
            s(&dotted),
            "--key",
            s(&f.pem),
            "--in-place",
        ],
        "sign --in-place the key",
    );
    expect_usage(&out, &["--in-place", "--key", "same file"], "--in-place the key");
    assert_eq!(std::fs::read(&f.pem).unwrap(), pem_text);
}

#[test]
fn verify_emit_verified_may_not_be_an_input() {
    let f = fixture("hard-verify-same");
    let trust = write(
        &f.dir,
        "trust.json",
        format!(r#"{{"keys":[{{"jwk":{}}}]}}"#, only_jwk(&f.jwks)),
    );
    let ca = write(&f.dir, "ca.pem", "not a certificate");
    let inputs: [(&str, &Path); 5] = [
        ("the card", &f.signed),
        ("--key", &f.pem),
        ("--jwks", &f.jwks),
        ("--trust", &trust),
        ("--ca-file", &ca),
    ];
    let link = f.dir.join("emit-link");
    for (flag, input) in inputs {
        let before = std::fs::read(input).unwrap();
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(input, &link).unwrap();
        // The same file spelt another way (DIR/../DIR/NAME), and through a link.
        let dir = input.parent().unwrap();
        let dotted = dir
            .join("..")
            .join(dir.file_name().unwrap())
            .join(input.file_name().unwrap());
        for output in [&dotted, &link] {
            let card = if flag == "--ca-file" {
                "https://a2a-card-test.invalid/".to_string()
            } else {
                s(&f.signed).to_string()
            };
            let mut args = vec!["verify", card.as_str(), "--emit-verified", s(output)];
            match flag {
                "--key" => args.extend(["--key", s(&f.pem)]),
                "--trust" => args.extend(["--trust", s(&trust)]),
                "--ca-file" => args.extend(["--jwks", s(&f.jwks), "--ca-file", s(&ca), "--no-cache"]),
                _ => args.extend(["--jwks", s(&f.jwks)]),
            }
            let what = format!("--emit-verified {} vs {flag}", output.display());
            let out = run_ok(&args, &what);
            expect_usage(&out, &["--emit-verified", flag, "same file"], &what);
            assert_eq!(std::fs::read(input).unwrap(), before, "{what}: overwritten");
        }
    }
}

#[test]
fn fetch_out_may_not_be_the_ca_file_and_migrate_out_not_the_card() {
    let f = fixture("hard-fetch-migrate-same");
    let ca = write(&f.dir, "ca.pem", "not a certificate");
    let out = run_in(
        Some(&f.dir),
        &[
            "fetch",
            "https://a2a-card-test.invalid/",
            "--ca-file",
            "ca.pem",
            "--out",
            "./ca.pem",
            "--no-cache",
        ],
        None,
        &[],
    );
    expect_usage(
        &out,
        &["--out", "--ca-file", "same file"],
        "fetch --out the CA file",
    );
    assert_eq!(std::fs::read(&ca).unwrap(), b"not a certificate");

    let before = std::fs::read(&f.v03).unwrap();
    let out = run_in(
        Some(&f.dir),
        &["migrate", "v03.json", "-o", "./v03.json"],
        None,
        &[],
    );
    expect_usage(&out, &["-o", "the card", "same file"], "migrate -o the card");
    assert_eq!(std::fs::read(&f.v03).unwrap(), before);
}

/// `man --out-dir` writes every page or none: a read-only page, or a page path that is a
/// directory, is refused before anything is written (no page replaced, no temporary file
/// left), and the refusal says what works instead of naming an option `man` does not have.
#[test]
fn man_out_dir_writes_all_pages_or_none() {
    let dir = scratch("man-all-or-none");
    let man1 = dir.join("man1");
    std::fs::create_dir(&man1).unwrap();
    let main = write(&man1, "a2a-card.1", "old main page\n");
    let verify = write(&man1, "a2a-card-verify.1", "old verify page\n");
    std::fs::set_permissions(&verify, std::fs::Permissions::from_mode(0o444)).unwrap();
    let before = listing(&man1);
    let out = run(&["man", "--out-dir", s(&man1)], None);
    let line = expect_error(&out, 2, "io", s(&verify));
    assert!(!line.contains("--force"), "man has no --force: {line}");
    assert!(
        line.contains("read-only") && line.contains("chmod u+w") && line.contains("no page was written"),
        "{line}"
    );
    assert_eq!(std::fs::read_to_string(&main).unwrap(), "old main page\n");
    assert_eq!(std::fs::read_to_string(&verify).unwrap(), "old verify page\n");
    assert_eq!(listing(&man1), before, "nothing added, no temporary file left");

    // A page's path taken by a directory: the same, nothing written.
    std::fs::set_permissions(&verify, std::fs::Permissions::from_mode(0o644)).unwrap();
    let sign = man1.join("a2a-card-sign.1");
    std::fs::create_dir(&sign).unwrap();
    let before = listing(&man1);
    let out = run(&["man", "--out-dir", s(&man1)], None);
    expect_error(&out, 2, "io", s(&sign));
    assert_eq!(std::fs::read_to_string(&main).unwrap(), "old main page\n");
    assert_eq!(listing(&man1), before, "nothing added, no temporary file left");

    // Once the way is clear, every page is written, and nothing else.
    std::fs::remove_dir(&sign).unwrap();
    let out = run(&["man", "--out-dir", s(&man1)], None);
    expect_code(&out, 0, "man --out-dir");
    let pages = listing(&man1);
    assert!(
        pages.iter().all(|p| p.ends_with(".1") && !p.starts_with('.')),
        "{pages:?}"
    );
    assert!(pages.contains(&"a2a-card-sign.1".to_string()), "{pages:?}");
    assert!(std::fs::read_to_string(&main).unwrap().contains(".TH a2a-card 1"));
    assert!(std::fs::read_to_string(&verify)
        .unwrap()
        .contains(".TH a2a-card-verify 1"));
}

/// `keygen --out K --jwks J` writes both files or neither. Both paths pass the output checks,
/// but J cannot be created: a new name in sysfs, which no one may create (root included; EACCES,
/// or EROFS where /sys is mounted read-only). The key used to be written first, in full, and
/// stay behind when the JWKS failed; now both are staged as temporary files and renamed into
/// place only when both are written.
#[test]
fn keygen_writes_the_key_and_its_jwks_or_neither() {
    let jwks = Path::new("/sys/a2a-card-keygen-test.jwks.json");
    let pem = Path::new("/sys/a2a-card-keygen-test.pem");
    if !Path::new("/sys/kernel").is_dir() || jwks.exists() || pem.exists() {
        eprintln!("note: no sysfs at /sys; test skipped");
        return;
    }
    // keygen --alg ALG --out KEY --jwks JWKS, and `extra`.
    let keygen = |alg: &str, key: &Path, jwks: &Path, extra: &[&str]| {
        let mut args = vec!["keygen", "--alg", alg, "--out", s(key), "--jwks", s(jwks)];
        args.extend_from_slice(extra);
        run(&args, None)
    };
    let dir = scratch("keygen-all-or-none");
    let key = dir.join("k.pem");
    for alg in ["EdDSA", "ES256"] {
        let out = keygen(alg, &key, jwks, &[]);
        expect_error(&out, 2, "io", s(jwks));
        assert!(!key.exists(), "{alg}: the key was written without its JWKS");
        assert!(
            listing(&dir).is_empty(),
            "{alg}: left behind: {:?}",
            listing(&dir)
        );
    }

    // With --force, an existing key is not replaced by one whose JWKS could not be written.
    let old = write(&dir, "k.pem", "old key\n");
    std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o600)).unwrap();
    let out = keygen("EdDSA", &key, jwks, &["--force"]);
    expect_error(&out, 2, "io", s(jwks));
    assert_eq!(std::fs::read_to_string(&old).unwrap(), "old key\n");
    assert_eq!(listing(&dir), vec!["k.pem".to_string()], "no temporary file left");

    // The other way round: the key cannot be written, so neither is the JWKS.
    let public = dir.join("k.jwks.json");
    let out = keygen("EdDSA", pem, &public, &[]);
    expect_error(&out, 2, "io", s(pem));
    assert!(!public.exists(), "the JWKS was written without its key");

    // Both writable: both written, the key with mode 0600, and no temporary file left.
    std::fs::remove_file(&old).unwrap();
    let out = keygen("EdDSA", &key, &public, &[]);
    expect_code(&out, 0, "keygen");
    assert_eq!(
        listing(&dir),
        vec!["k.jwks.json".to_string(), "k.pem".to_string()]
    );
    let mode = std::fs::metadata(&key).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the key's mode");
    assert!(std::fs::read_to_string(&public).unwrap().contains("\"keys\""));
    // A file name near the limit of 255 bytes: its temporary file's name must still fit.
    let long = format!("{}.json", "j".repeat(250));
    let out = keygen("EdDSA", &dir.join("long.pem"), &dir.join(&long), &[]);
    expect_code(&out, 0, "keygen with a 255-byte JWKS name");
    assert!(dir.join(&long).exists());
    for name in [long.as_str(), "long.pem"] {
        std::fs::remove_file(dir.join(name)).unwrap();
    }
    // Without --force, an existing file is still refused, and not replaced.
    let before = std::fs::read(&key).unwrap();
    let out = keygen("EdDSA", &key, &dir.join("new.json"), &[]);
    expect_error(&out, 2, "io", s(&key));
    assert_eq!(std::fs::read(&key).unwrap(), before);
    assert!(!dir.join("new.json").exists());
}
