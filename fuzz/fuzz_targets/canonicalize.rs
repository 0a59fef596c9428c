//! Fuzz target: canonicalization never panics, is deterministic, and its output is a fixed
//! point: canonicalizing the canonical bytes again (with the same options, and with
//! `served-as-is`, which applies no presence rules) returns them unchanged.
#![no_main]

use a2a_card::{canonicalize, CanonicalizeOptions, Limits, Profile, UnknownMembers};
use libfuzzer_sys::fuzz_target;

const UNKNOWN: [UnknownMembers; 3] = [
    UnknownMembers::Exclude,
    UnknownMembers::Retain,
    UnknownMembers::Reject,
];

fuzz_target!(|data: &[u8]| {
    // Small limits keep each run fast and exercise the limit checks too.
    let limits = Limits {
        max_input_bytes: 64 * 1024,
        max_depth: 32,
    };
    for profile in Profile::ALL {
        for unknown in UNKNOWN {
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
