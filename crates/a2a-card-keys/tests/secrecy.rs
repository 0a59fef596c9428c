//! No message of a key reference shows a piece of the secret it carries: a `pin-value`, a token
//! in a KMS key id's query or user information, the text of an `env://` variable.
//!
//! Property-style: many secrets of random hostile bytes (`&`, `;`, `=`, `%`, `#`, `?`, spaces,
//! controls, non-ASCII, broken percent escapes) in many surroundings (valid and invalid URIs,
//! the secret raw or percent-encoded), each secret built so that every two-character run of it
//! holds a marker character no message of the crate contains. No error (`Display`, `Debug`) and
//! no reference (`Display`, `Debug`) may contain any two-character run of the secret. A lone
//! offending character is checked apart: the message must be the same whichever character it
//! is.

#![allow(clippy::unwrap_used, clippy::panic)] // a panic is how a test fails

use a2a_card_keys::{open, KeyOptions, KeyRef};
use a2a_card_testkit::rng::Rng;

/// Characters that no fixed message contains: every other character of a secret is one.
const MARKERS: &[char] = &['Z', 'ж'];

/// What may stand between two markers.
const HOSTILE: &[char] = &[
    '&', ';', '=', ' ', '%', '?', '#', '/', ':', '+', '@', '\t', '\n', '\r', '\0', '"', '\\', '\u{7f}', 'é',
    '€', 'a', '1', '-', '.', '<', '>', '{', '|', '*', '\'', ',', '[', ']', '!', '~',
];

fn secret(rng: &mut Rng) -> String {
    let n = 1 + rng.below(12);
    let mut s = String::new();
    for _ in 0..n {
        s.push(*rng.pick(MARKERS));
        if rng.one_in(4) {
            // A piece that looks like URI syntax, a marker after each of its characters.
            let piece = *rng.pick(&["&cd=ef", ";o=k", "%2", "&pin-value=", "&module-name=x", "%zz"]);
            for c in piece.chars() {
                s.push(c);
                s.push(*rng.pick(MARKERS));
            }
        } else {
            s.push(*rng.pick(HOSTILE));
        }
    }
    s.push(*rng.pick(MARKERS));
    s
}

fn percent_all(s: &str) -> String {
    s.bytes().map(|b| format!("%{b:02X}")).collect()
}

/// Every two-character run of `secret` found in `text`.
fn leaks(text: &str, secret: &str) -> Vec<String> {
    let chars: Vec<char> = secret.chars().collect();
    chars
        .windows(2)
        .map(|w| w.iter().collect::<String>())
        .filter(|w| text.contains(w.as_str()))
        .collect()
}

#[track_caller]
fn assert_hidden(text: &str, secret: &str, what: &str) {
    for m in MARKERS {
        assert!(
            !text.contains(*m) || !secret.contains(*m),
            "{what}: shows the marker {m:?} of the secret: {text}"
        );
    }
    let found = leaks(text, secret);
    assert!(found.is_empty(), "{what}: shows {found:?} of the secret: {text}");
}

/// Parses and (when it parses) opens `reference`; checks every message and every rendering.
fn check(reference: &str, secret: &str, what: &str) -> usize {
    let mut checked = 0;
    match KeyRef::parse(reference) {
        Err(e) => {
            assert_hidden(&e.to_string(), secret, what);
            assert_hidden(&format!("{e:?}"), secret, what);
            checked += 1;
        }
        Ok(r) => {
            assert_hidden(&r.to_string(), secret, what);
            assert_hidden(&format!("{r:?}"), secret, what);
            // The modules and plugins named do not exist: opening fails, and says nothing.
            let e = open(&r, &KeyOptions::default()).unwrap_err();
            assert_hidden(&e.to_string(), secret, what);
            assert_hidden(&format!("{e:?}"), secret, what);
            checked += 1;
        }
    }
    checked
}

const PKCS11_SURROUNDINGS: &[&str] = &[
    "pkcs11:object=k?pin-value={S}",
    "pkcs11:object=k?pin-value={S}&module-path=/nonexistent/m.so",
    "pkcs11:token=t;object=k?module-name=m&pin-value={S}&module-path=/nonexistent",
    "pkcs11:object=k?pin-value={S}&pin-value={S}",
    "pkcs11:object=k;pin-value={S}",
    "pkcs11:pin-value={S}",
    "pkcs11:object=k?pin-value={S}#frag",
    "pkcs11:object=k?pin-source=/p&pin-value={S}",
    "pkcs11:object=k?pin-value={S}&pin-source=/p",
    "pkcs11:object=k?pin-value={S}&objet=1",
    "pkcs11:object=k?pin-value={S}&",
    "pkcs11:object=k?pin-value={S}&&module-path=/nonexistent/m.so",
    "PKCS11:id=%01?pin-value={S}&module-name=m",
    "pkcs11:object=%zz?pin-value={S}",
    "pkcs11:object=k?pin-value={S}=&module-path=/nonexistent/m.so",
];

const KMS_SURROUNDINGS: &[&str] = &[
    "nosuchkms://key?token={S}",
    "nosuchkms://key?a=b&token={S}&c=d",
    "nosuchkms://ops:{S}@vault.example/transit/card",
    "nosuchkms://vault.example/key#{S}",
    "nosuchkms:///arn:aws:kms:key?secret={S}",
    "hashivault://transit/card?token={S}",
];

#[test]
fn no_message_shows_a_piece_of_a_pin_value_or_a_kms_secret() {
    let mut rng = Rng::new(0x25_0003);
    let mut checked = 0;
    for round in 0..300 {
        let s = secret(&mut rng);
        for template in PKCS11_SURROUNDINGS {
            for written in [s.clone(), percent_all(&s)] {
                let reference = template.replace("{S}", &written);
                checked += check(&reference, &s, &format!("round {round}: {reference:?}"));
            }
        }
        for template in KMS_SURROUNDINGS {
            let reference = template.replace("{S}", &s);
            checked += check(&reference, &s, &format!("round {round}: {reference:?}"));
            // The request's Debug too.
            let key_id = reference.split_once("://").unwrap().1;
            let init = a2a_card_keys::plugin::protocol::Init {
                key_resource_id: key_id,
                hash_func: 5,
                deadline: std::time::SystemTime::UNIX_EPOCH,
            };
            assert_hidden(&format!("{init:?}"), &s, &format!("Init of {reference:?}"));
        }
    }
    assert!(checked > 300 * 30, "{checked}");
}

#[test]
fn the_issues_examples_show_nothing_after_the_pin_value_began() {
    for (reference, secret) in [
        ("pkcs11:token=ci;object=k?pin-value=4711&SECRET", "SECRET"),
        ("pkcs11:token=ci;object=k?pin-value=ab&cd=ef", "cd"),
        ("pkcs11:token=ci;object=k?pin-value=ab&module-path=/m&cd", "cd"),
        ("pkcs11:token=ci;object=k?pin-value=ab&pin-value=cd", "=cd"),
    ] {
        let e = KeyRef::parse(reference).unwrap_err();
        assert_eq!(e.code().as_str(), "usage");
        assert!(!e.message().contains(secret), "{reference}: {e}");
        assert!(e.message().contains("pin-value (not shown)"), "{reference}: {e}");
    }
}

#[test]
fn a_part_that_is_not_name_value_is_not_shown() {
    // A PIN whose pin-value= was left out is such a part.
    for reference in [
        "pkcs11:token=ci;object=k?4711-secret",
        "pkcs11:token=ci;object=k?module-name=m&4711-secret",
        "pkcs11:token=ci;4711-secret",
    ] {
        let e = KeyRef::parse(reference).unwrap_err();
        assert_eq!(e.code().as_str(), "usage");
        assert!(!e.message().contains("4711"), "{reference}: {e}");
        assert!(e.message().contains("NAME=VALUE"), "{reference}: {e}");
    }
}

#[test]
fn a_lone_offending_character_of_a_pin_value_is_not_named() {
    // The same message whichever character it is: the message shows none.
    let mut messages = std::collections::BTreeMap::new();
    for c in [
        ' ', '"', '<', '>', '\\', '^', '`', '{', '}', ';', 'é', '\t', '\u{7f}',
    ] {
        let reference = format!("pkcs11:object=k?pin-value=48{c}11");
        let e = KeyRef::parse(&reference).unwrap_err();
        assert_eq!(e.code().as_str(), "usage", "{reference:?}");
        messages
            .entry(e.message().to_string())
            .or_insert_with(Vec::new)
            .push(c);
    }
    assert_eq!(messages.len(), 1, "{messages:#?}");
    let reference = "pkcs11:object=k?pin-value=48%zz11";
    let e = KeyRef::parse(reference).unwrap_err();
    assert!(!e.message().contains("zz"), "{e}");
}

#[test]
fn env_values_are_never_shown() {
    let mut rng = Rng::new(0x25_e57);
    for i in 0..100 {
        let s = secret(&mut rng).replace('\0', "");
        let var = format!("A2A_KEYS_SECRECY_{i}");
        for (shape, text) in [
            ("bare", s.clone()),
            (
                "PEM",
                format!("-----BEGIN PRIVATE KEY-----\n{s}\n-----END PRIVATE KEY-----\n"),
            ),
            (
                "JWK",
                format!("{{\"kty\":\"EC\",\"crv\":\"P-256\",\"d\":\"{s}\"}}"),
            ),
        ] {
            if s.trim().is_empty() {
                continue;
            }
            std::env::set_var(&var, &text);
            let r = KeyRef::parse(&format!("env://{var}")).unwrap();
            let e = open(&r, &KeyOptions::default()).unwrap_err();
            assert_hidden(&e.to_string(), &s, &format!("env {shape} {s:?}"));
            assert_hidden(&format!("{e:?}"), &s, &format!("env {shape} {s:?}"));
        }
    }
}

/// Opens `pkcs11:object=k?pin-source=SOURCE&module-path=/nonexistent/m.so` on a thread and
/// returns its error, or panics when it has not returned within 10 s (a blocking open).
fn pin_source_error(source: &std::path::Path) -> a2a_card::Error {
    let reference = KeyRef::parse(&format!(
        "pkcs11:object=k?pin-source=file:{}&module-path=/nonexistent/m.so",
        source.display()
    ))
    .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(open(&reference, &KeyOptions::default()).unwrap_err());
    });
    rx.recv_timeout(std::time::Duration::from_secs(10))
        .unwrap_or_else(|_| panic!("opening the pin-source {} hangs", source.display()))
}

#[test]
fn a_pin_source_that_is_not_a_regular_file_holding_a_pin_is_refused_unshown() {
    let dir = a2a_card_testkit::data::scratch("pin-source-shapes");
    let fifo = dir.join("pin.fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let e = pin_source_error(&fifo);
    assert_eq!(e.code().as_str(), "usage", "{e}");
    assert!(
        e.message().contains("a FIFO") && e.message().contains("regular file"),
        "{e}"
    );
    let e = pin_source_error(&dir);
    assert!(e.message().contains("a directory"), "{e}");
    let e = pin_source_error(std::path::Path::new("/dev/null"));
    assert!(e.message().contains("a device"), "{e}");

    let pem = a2a_card::PrivateKey::generate(a2a_card::Algorithm::ES256)
        .unwrap()
        .to_pkcs8_pem();
    let long = "7".repeat(300);
    let cases: &[(&str, &[u8], &str)] = &[
        ("PEM", pem.as_bytes(), "a PEM block"),
        ("two lines", b"1234\n5678\n", "more than one line"),
        ("CR inside", b"12\r34", "more than one line"),
        ("NUL", b"12\x0034", "a NUL byte"),
        ("tab", b"12\t34", "a control character"),
        ("long", long.as_bytes(), "longer than 256 bytes"),
        ("empty", b"", "is empty"),
        ("only a line end", b"\n", "is empty"),
        ("not UTF-8", b"12\xff34", "not UTF-8"),
    ];
    for (shape, content, words) in cases {
        let file = dir.join("pin.txt");
        std::fs::write(&file, content).unwrap();
        let e = pin_source_error(&file);
        assert_eq!(e.code().as_str(), "usage", "{shape}: {e}");
        assert!(e.message().contains(words), "{shape}: {e}");
        assert!(e.message().contains("not sent to the token"), "{shape}: {e}");
        let text = String::from_utf8_lossy(content);
        // The file's path is named; its digits (the process id) are not the file's content.
        let shown = e.to_string().replace(&file.display().to_string(), "<file>");
        for piece in ["1234", "5678", "12", "34", "777", "MIG"] {
            assert!(
                !text.contains(piece) || !shown.contains(piece),
                "{shape}: shows {piece}: {e}"
            );
        }
    }
    // A PIN with one line end, as echo writes it, gets as far as the module.
    for content in [&b"4711\n"[..], b"4711\r\n", b"4711"] {
        let file = dir.join("pin.txt");
        std::fs::write(&file, content).unwrap();
        let e = pin_source_error(&file);
        assert!(e.message().contains("/nonexistent/m.so"), "{e}");
    }
}
