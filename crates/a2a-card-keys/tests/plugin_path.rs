//! A KMS plugin is looked for in the absolute directories of `PATH` only: a relative entry
//! (`.`, `..`, `bin`, the empty entry that means `.`) would make the program that runs depend on
//! the current directory, and sigstore's own client refuses what it finds through one. The
//! error says so when that is why a plugin is not found. (One test in its own binary: it sets
//! `PATH` and the current directory of the process.)

#![allow(clippy::unwrap_used, clippy::panic)] // a panic is how a test fails

mod common;

use a2a_card::Algorithm;
use a2a_card_keys::{open, KeyOptions, KeyRef};
use a2a_card_testkit::data::scratch;
use a2a_card_testkit::plugin::test_plugin;
use common::key_file;

#[test]
fn relative_path_entries_are_not_searched_for_plugins() {
    let dir = scratch("plugin-relative-path");
    let (key, _) = key_file(&dir, "k", Algorithm::ES256);
    let plugin = test_plugin();
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    std::os::unix::fs::symlink(&plugin, dir.join("bin/sigstore-kms-rel")).unwrap();
    std::os::unix::fs::symlink(&plugin, dir.join("sigstore-kms-rel")).unwrap();
    std::env::set_current_dir(&dir).unwrap();
    let system = std::env::var("PATH").unwrap();
    let reference = KeyRef::parse(&format!("rel://{}", key.display())).unwrap();
    for (path, shown) in [
        (format!("bin:{system}"), "\"bin\""),
        (format!("./bin:{system}"), "\"./bin\""),
        (format!(".:{system}"), "\".\""),
        (format!(":{system}"), "\".\""),
        (format!("{system}:"), "\".\""),
        (format!("..:{system}"), ""),
    ] {
        std::env::set_var("PATH", &path);
        let e = open(&reference, &KeyOptions::default()).unwrap_err();
        assert_eq!(e.code().as_str(), "key-unavailable", "{path}: {e}");
        if shown.is_empty() {
            // `..` holds no plugin: the usual message.
            assert!(
                e.message().contains("no executable sigstore-kms-rel"),
                "{path}: {e}"
            );
        } else {
            assert!(
                e.message().contains("relative PATH entry") && e.message().contains(shown),
                "{path}: {e}"
            );
        }
    }
    // The same plugin through an absolute entry is found and used.
    std::env::set_var("PATH", format!("{}:{system}", dir.join("bin").display()));
    let key = open(&reference, &KeyOptions::default()).unwrap();
    assert!(key.is_external());
    std::env::set_var("PATH", system);
}
