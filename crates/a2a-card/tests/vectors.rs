//! Runs the project's language-neutral canonicalization vectors (`testvectors/canonical/*.json`,
//! format in `testvectors/README.md`, read by the shared loader of `a2a-card-testkit`) through
//! [`a2a_card::canonicalize`].
//!
//! Every vector is checked (bytes, unsigned pointers in order, or error code and pointer); the
//! test fails once at the end, listing every vector that did not match. It also checks that the
//! set is large enough and that every canonicalization error code and profile is exercised.

#![allow(clippy::unwrap_used, clippy::panic)] // a test reports by panicking

use a2a_card::{canonicalize, CanonicalizeOptions, ErrorCode, Limits, Profile, UnknownMembers};
use a2a_card_testkit::vectors::{canonical_vectors, Expected, Vector};
use std::collections::BTreeSet;

/// The codes the canonicalization layer can produce, each of which some vector must expect:
/// the first group of the library's own list, [`ErrorCode::ALL`] (declaration order), from
/// `invalid-json` to `unknown-member`.
fn canonicalization_codes() -> &'static [ErrorCode] {
    let last = ErrorCode::ALL
        .iter()
        .position(|c| *c == ErrorCode::UnknownMember)
        .unwrap();
    &ErrorCode::ALL[..=last]
}

const MIN_VECTORS: usize = 60;

/// The library's options for a vector.
fn options(v: &Vector) -> Result<CanonicalizeOptions, String> {
    let profile = v
        .profile
        .parse::<Profile>()
        .map_err(|_| format!("unknown profile `{}`", v.profile))?;
    let unknown = match &v.unknown {
        None => UnknownMembers::Exclude,
        Some(n) => n
            .parse::<UnknownMembers>()
            .map_err(|_| format!("unknown `unknown` value `{n}`"))?,
    };
    let d = Limits::default();
    Ok(CanonicalizeOptions {
        profile,
        unknown,
        limits: Limits {
            max_input_bytes: v.max_input_bytes.unwrap_or(d.max_input_bytes),
            max_depth: v.max_depth.unwrap_or(d.max_depth),
        },
    })
}

fn show(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => format!("(not UTF-8) hex {}", a2a_card_testkit::data::hex(bytes)),
    }
}

/// Runs one vector; `Err` describes the mismatch.
fn run(v: &Vector, opts: &CanonicalizeOptions) -> Result<(), String> {
    match (&v.expected, canonicalize(&v.input, opts)) {
        (Expected::Bytes { bytes, unsigned }, Ok(c)) => {
            let mut problems = Vec::new();
            if &c.bytes != bytes {
                problems.push(format!(
                    "bytes differ\n      expected: {}\n      got:      {}",
                    show(bytes),
                    show(&c.bytes)
                ));
            }
            if &c.unsigned != unsigned {
                problems.push(format!(
                    "unsigned pointers differ\n      expected: {unsigned:?}\n      got:      {:?}",
                    c.unsigned
                ));
            }
            if c.profile != opts.profile {
                problems.push(format!("profile reported as {}", c.profile.as_str()));
            }
            if problems.is_empty() {
                Ok(())
            } else {
                Err(problems.join("\n    "))
            }
        }
        (Expected::Bytes { bytes, .. }, Err(e)) => Err(format!(
            "expected bytes {}\n      got error {} at {:?}: {}",
            show(bytes),
            e.code(),
            e.pointer(),
            e.message()
        )),
        (Expected::Error { code, pointer }, Ok(c)) => Err(format!(
            "expected error {code} at {pointer:?}\n      got bytes {} (unsigned {:?})",
            show(&c.bytes),
            c.unsigned
        )),
        (Expected::Error { code, pointer }, Err(e)) => {
            let code_ok = e.code().as_str() == code;
            let ptr_ok = pointer.as_deref().is_none_or(|p| e.pointer() == Some(p));
            if code_ok && ptr_ok {
                Ok(())
            } else {
                Err(format!(
                    "expected error {code} at {pointer:?}\n      got error {} at {:?}: {}",
                    e.code(),
                    e.pointer(),
                    e.message()
                ))
            }
        }
    }
}

#[test]
fn canonicalization_vectors() {
    let mut failures: Vec<String> = Vec::new();
    let mut ids = BTreeSet::new();
    let mut codes_covered = BTreeSet::new();
    let mut profiles_covered = BTreeSet::new();
    let mut ran = 0usize;

    for (path, v) in canonical_vectors() {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("?")
            .to_string();
        let (v, opts) = match v.and_then(|v| options(&v).map(|o| (v, o))) {
            Ok(x) => x,
            Err(e) => {
                failures.push(format!("{name}: malformed vector: {e}"));
                continue;
            }
        };
        if !ids.insert(v.id.clone()) {
            failures.push(format!("{}: duplicate id", v.id));
        }
        if let Expected::Error { code, .. } = &v.expected {
            if ErrorCode::from_name(code).is_none() {
                failures.push(format!("{}: `{code}` is not an error code of this crate", v.id));
            }
            codes_covered.insert(code.clone());
        }
        profiles_covered.insert(opts.profile.as_str());
        ran += 1;
        if let Err(why) = run(&v, &opts) {
            failures.push(format!("{}:\n    {why}", v.id));
        }
    }

    let mut summary = Vec::new();
    if ran < MIN_VECTORS {
        summary.push(format!(
            "only {ran} vectors ran, at least {MIN_VECTORS} are required"
        ));
    }
    for code in canonicalization_codes() {
        if !codes_covered.contains(code.as_str()) {
            summary.push(format!("no vector expects the error code `{code}`"));
        }
    }
    for p in Profile::ALL {
        if !profiles_covered.contains(p.as_str()) {
            summary.push(format!("no vector uses the profile `{}`", p.as_str()));
        }
    }
    if !failures.is_empty() || !summary.is_empty() {
        let ids: Vec<&str> = failures
            .iter()
            .map(|f| f.split(':').next().unwrap_or(""))
            .collect();
        panic!(
            "{} of {ran} vectors failed: {}\n\n{}\n{}",
            failures.len(),
            ids.join(", "),
            failures.join("\n"),
            summary.join("\n")
        );
    }
    println!("{ran} canonicalization vectors passed");
}
