//! Fuzz target: reading a key reference never panics, and no message shows a piece of the
//! secret it carries.
//!
//! The input is `[mode][surroundings] NUL [secret]`. The secret is made into a marked secret: a
//! marker character (`Z` or `ж`, which no message of the library contains, and which are taken
//! out of the surroundings, written or percent-encoded) before and after each of its characters, so that any piece of it a
//! message shows holds a marker. The mode byte says where it goes:
//!
//! - 0, 1: a `pkcs11:` URI, `pkcs11:BEFORE?pin-value=SECRET&AFTER` (`&` for `?` when BEFORE
//!   has a query), the surroundings split at their first `\x01`, the secret as it is (0) or
//!   percent-encoded (1);
//! - 2: a KMS reference with the secret in its query, `fuzzkms://BEFORE?token=SECRETAFTER`;
//! - 3: a KMS reference with the secret as a password, `fuzzkms://u:SECRET@BEFOREAFTER`;
//! - 4: the text of an `env://` variable, opened as a key.
//!
//! Checked: the `Display` and `Debug` of the error or of the reference read, of the error of
//! opening it (a `pkcs11:` key has no PKCS#11 support in this build; a KMS key is not opened: no
//! plugin is run), of the plugin request made for it, and of `Pin::checked` of the secret. None
//! may contain a marker.
#![no_main]

use a2a_card_keys::plugin::protocol::Init;
use a2a_card_keys::{open, KeyOptions, KeyRef, Pin};
use libfuzzer_sys::fuzz_target;

const MARKERS: [char; 2] = ['Z', 'ж'];
const VAR: &str = "A2A_CARD_KEYREF_SECRET"; // no marker in it

fn marked(secret: &str) -> String {
    let mut out = String::new();
    for (i, c) in secret.chars().enumerate() {
        out.push(MARKERS[i % 2]);
        out.push(c);
    }
    out.push(MARKERS[0]);
    out
}

/// The surroundings with every marker taken out, written or percent-encoded (`%5A` is `Z`,
/// `%D0%B6` is `ж`, either case): a reference's `Display` decodes what needs no escape, so an
/// encoded marker in the surroundings would come back as a marker that is not the secret's.
fn unmarked(around: &str) -> String {
    const ENCODED: [&str; 2] = ["%5a", "%d0%b6"];
    let mut out = String::with_capacity(around.len());
    let mut rest = around;
    while let Some(c) = rest.chars().next() {
        let escape = ENCODED.iter().find(|e| {
            rest.get(..e.len())
                .is_some_and(|head| head.eq_ignore_ascii_case(e))
        });
        if let Some(e) = escape {
            out.push('_');
            rest = &rest[e.len()..];
        } else {
            out.push(if MARKERS.contains(&c) { '_' } else { c });
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

#[track_caller]
fn hidden(text: &str, what: &str) {
    assert!(
        !text.contains(MARKERS),
        "{what} shows a piece of the secret: {text}"
    );
}

fn check_error(e: &a2a_card::Error, what: &str) {
    hidden(&e.to_string(), what);
    hidden(&format!("{e:?}"), what);
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let (around, secret) = match rest.iter().position(|&b| b == 0) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    let around = unmarked(&String::from_utf8_lossy(around));
    let secret = marked(&String::from_utf8_lossy(secret));
    if let Err(e) = Pin::checked(secret.clone(), "the fuzzed PIN") {
        check_error(&e, "Pin::checked");
    }
    let (before, after) = around.split_once('\x01').unwrap_or((&around, ""));
    let reference = match mode % 5 {
        0 | 1 => {
            let written = if mode % 5 == 0 {
                secret.clone()
            } else {
                secret.bytes().map(|b| format!("%{b:02X}")).collect()
            };
            let sep = if before.contains('?') { '&' } else { '?' };
            format!("pkcs11:{before}{sep}pin-value={written}&{after}")
        }
        2 => format!("fuzzkms://{before}?token={secret}{after}"),
        3 => format!("fuzzkms://u:{secret}@{before}{after}"),
        _ => {
            // A variable cannot hold a NUL.
            std::env::set_var(VAR, secret.replace('\0', ""));
            format!("env://{VAR}")
        }
    };
    match KeyRef::parse(&reference) {
        Err(e) => check_error(&e, "KeyRef::parse"),
        Ok(r) => {
            hidden(&r.to_string(), "KeyRef's Display");
            hidden(&format!("{r:?}"), "KeyRef's Debug");
            match &r {
                KeyRef::Plugin(p) => {
                    let init = Init {
                        key_resource_id: &p.key_id,
                        hash_func: 5,
                        deadline: std::time::SystemTime::UNIX_EPOCH,
                    };
                    hidden(&format!("{init:?}"), "the plugin request's Debug");
                }
                KeyRef::Pkcs11(_) | KeyRef::Env(_) => {
                    if let Err(e) = open(&r, &KeyOptions::default()) {
                        check_error(&e, "open");
                    }
                }
                // Files and stdin are not opened.
                _ => {}
            }
        }
    }
});
