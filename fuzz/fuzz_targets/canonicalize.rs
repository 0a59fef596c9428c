//! Fuzz target: canonicalization never panics, is deterministic, and its output is a fixed
//! point: canonicalizing the canonical bytes again (with the same options, and with
//! `served-as-is`, which applies no presence rules) returns them unchanged. Member order and
//! whitespace never change the bytes: an accepted input written out again with every object's
//! members in reverse order and whitespace between all tokens canonicalizes to the same bytes.
//! The a2a-sdk 0.3 profiles, which write Python's `json.dumps` text and not JCS and keep how
//! each number was written, are held to less: deterministic, ASCII JSON (see the loop).
#![no_main]

use serde_json::Value;
use a2a_card::{canonicalize, CanonicalizeOptions, Limits, Profile, UnknownMembers};
use libfuzzer_sys::fuzz_target;

/// `v` written with every object's members reversed and whitespace around every token.
fn reordered(v: &Value, depth: usize) -> Vec<u8> {
    let ws: &[u8] = [b" ".as_slice(), b"\n", b"\t ", b"\r\n  "][depth % 4];
    // Each element or member padded with whitespace, then joined with commas.
    let padded = |body: Vec<u8>| [ws, body.as_slice(), ws].concat();
    let (open, close, parts): (u8, u8, Vec<Vec<u8>>) = match v {
        Value::Array(items) => (b'[', b']', items.iter().map(|i| padded(reordered(i, depth + 1))).collect()),
        Value::Object(members) => (
            b'{',
            b'}',
            members
                .iter()
                .rev()
                .map(|(k, item)| {
                    let name = serde_json::to_string(k).unwrap_or_default().into_bytes();
                    padded([name.as_slice(), ws, b":", ws, &reordered(item, depth + 1)].concat())
                })
                .collect(),
        ),
        other => return other.to_string().into_bytes(),
    };
    let mut out = vec![open];
    out.extend_from_slice(&parts.join(&b','));
    out.push(close);
    out
}


fuzz_target!(|data: &[u8]| {
    // Small limits keep each run fast and exercise the limit checks too.
    let limits = Limits {
        max_input_bytes: 64 * 1024,
        max_depth: 32,
    };
    // The same document with members reversed and whitespace everywhere (when it reads).
    let reordered = a2a_card::canonical::parse_json(data, &limits)
        .ok()
        .map(|v| [b" ".as_slice(), &reordered(&v, 0), b"\n"].concat());
    for profile in Profile::ALL {
        for unknown in UnknownMembers::ALL {
            let opts = CanonicalizeOptions {
                profile,
                unknown,
                limits,
            };
            let first = canonicalize(data, &opts);
            let second = canonicalize(data, &opts);
            assert_eq!(first, second, "not deterministic under {opts:?}");
            let Ok(c) = first else { continue };
            assert_eq!(c.profile, profile);
            // The a2a-sdk 0.3 profiles keep whether a number was written as an integer (`1`)
            // or not (`1.0`, `1e5`), which the reordered text, written from the reader's value,
            // does not.
            let sdk03 = matches!(profile, Profile::A2aSdk03 | Profile::A2aSdk0321);
            if let Some(r) = reordered.as_ref().filter(|_| !sdk03) {
                // Reversed order can only change which error comes first, never the bytes.
                // (The whitespace may take it past the size limit, which is not the point here.)
                let roomy = CanonicalizeOptions {
                    limits: Limits {
                        max_input_bytes: r.len().max(limits.max_input_bytes),
                        ..limits
                    },
                    ..opts
                };
                if let Ok(again) = canonicalize(r, &roomy) {
                    assert_eq!(
                        again.bytes,
                        c.bytes,
                        "member order or whitespace changed the bytes under {opts:?}:\n{}",
                        String::from_utf8_lossy(r)
                    );
                } else {
                    panic!(
                        "accepted in one member order, refused in another under {opts:?}:\n{}",
                        String::from_utf8_lossy(r)
                    );
                }
            }

            // The a2a-sdk 0.3 profiles write what Python's json.dumps writes over the 0.3
            // model's dump (defaults dropped, empty values pruned, `\u` escapes, Python's
            // float spelling, code-point key order): not JCS, and not always a card that model
            // reads again (a required member left empty is pruned away), so their output is no
            // fixed point. It is ASCII JSON that reads.
            if sdk03 {
                assert!(c.bytes.is_ascii(), "{opts:?} wrote a byte outside ASCII");
                let roomy = Limits {
                    max_input_bytes: c.bytes.len().max(limits.max_input_bytes),
                    ..limits
                };
                if let Err(e) = a2a_card::canonical::parse_json(&c.bytes, &roomy) {
                    panic!(
                        "the bytes under {opts:?} are no JSON: {e:?}\n{}",
                        String::from_utf8_lossy(&c.bytes)
                    );
                }
                continue;
            }
            let as_is = CanonicalizeOptions {
                profile: Profile::ServedAsIs,
                ..opts
            };
            match canonicalize(&c.bytes, &as_is) {
                Ok(again) => {
                    assert_eq!(
                        again.bytes, c.bytes,
                        "served-as-is changed the canonical bytes of {opts:?}"
                    );
                    assert!(again.unsigned.is_empty(), "served-as-is left members unsigned");
                }
                Err(e) => panic!(
                    "the canonical bytes under {opts:?} are refused: {e:?}\n{}",
                    String::from_utf8_lossy(&c.bytes)
                ),
            }
            match canonicalize(&c.bytes, &opts) {
                Ok(again) => assert_eq!(again.bytes, c.bytes, "not idempotent under {opts:?}"),
                Err(e) => panic!(
                    "the canonical bytes under {opts:?} are refused: {e:?}\n{}",
                    String::from_utf8_lossy(&c.bytes)
                ),
            }
        }
    }
});
