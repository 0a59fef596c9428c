//! The A2A canonicalization corpora, read in place from `$A2A_CARD_CORPORA/a2a` (see
//! `a2a/PROVENANCE.md` there):
//!
//! - `a2a-jcs-v01`: Layer A (RFC 8785 plus the `signatures` exclusion), 47 MUST-ACCEPT vectors
//!   byte for byte and 10 MUST-REJECT vectors refused for the reason their rationale gives;
//! - `a2a-jcs-rule1-v01`: Layer B (field presence), one vector per candidate reading of rule 1;
//! - `a2a-card-sign-v01`: signed cards with the readings under which each signature must verify
//!   or must not, mapped onto our profiles and unknown-member settings;
//! - the TCK canonicalization cases of a2a-tck PR #194/#204;
//! - `jcs_depth_vectors.json`: the nesting bound (128 open containers).
//!
//! Vector metadata is read with serde_json; each card or input is handed to the library as
//! bytes (`input_raw` as is, otherwise the vector's JSON value re-serialized in its own member
//! order).

#![allow(clippy::unwrap_used, clippy::panic)]

use a2a_card_testkit::data;

use a2a_card::jose::crypto as alg;
use a2a_card::jose::keys::{self, PublicKey};
use a2a_card::Algorithm;
use a2a_card::{
    canonicalize, jcs, sha256_hex, CanonicalizeOptions, ErrorCode, Limits, Profile, UnknownMembers,
};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

fn options(profile: Profile, unknown: UnknownMembers) -> CanonicalizeOptions {
    CanonicalizeOptions {
        profile,
        unknown,
        ..Default::default()
    }
}

fn show(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("missing string member {key:?} in {v}"))
}

fn list_of<'a>(v: &'a Value, key: &str) -> Vec<&'a str> {
    match v.get(key) {
        None => Vec::new(),
        Some(Value::Array(a)) => a.iter().map(|x| x.as_str().unwrap()).collect(),
        Some(other) => panic!("{key} is not a list: {other}"),
    }
}

/// The bytes a vector feeds to the library: `input_raw` verbatim, else the JSON value of
/// `key` serialized compactly in its own member order.
fn input_bytes(vector: &Value, key: &str) -> Vec<u8> {
    if let Some(raw) = vector.get("input_raw") {
        return raw.as_str().unwrap().as_bytes().to_vec();
    }
    serde_json::to_vec(vector.get(key).unwrap_or_else(|| panic!("no {key} in vector"))).unwrap()
}

/// Reads a corpus MANIFEST.json, checks the sha256 of every vector file it lists, and returns
/// the manifest with the vectors in its order.
fn manifest_and_vectors(dir: &Path) -> (Value, Vec<Value>) {
    let manifest = data::read_json(dir.join("MANIFEST.json"));
    let mut vectors = Vec::new();
    for entry in manifest["vectors"].as_array().unwrap() {
        let path = dir.join(str_of(entry, "path"));
        let bytes = fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(
            sha256_hex(&bytes),
            str_of(entry, "sha256"),
            "{}: sha256 differs from MANIFEST.json",
            path.display()
        );
        vectors.push(serde_json::from_slice(&bytes).unwrap());
    }
    (manifest, vectors)
}

// ---------------------------------------------------------------------------------------------
// a2a-jcs-v01 (Layer A)
// ---------------------------------------------------------------------------------------------

/// What a MUST-REJECT vector of a2a-jcs-v01 must get, decided from its rationale.
enum Refusal {
    /// The input is refused with this code.
    Code(ErrorCode),
    /// The input is a claimed canonical form that still carries `signatures` (rule 3 of 8.4.1).
    /// It parses, so nothing is refused with a code; what the rule forbids is that such bytes
    /// be the canonical form. Asserted: our canonical bytes of it differ from it and carry no
    /// top-level `signatures`.
    NotCanonical,
}

/// Each MUST-REJECT vector and its refusal, from the rationale in the vector file.
fn jcs_v01_refusal(id: &str) -> Refusal {
    match id {
        // "still carrying its own `signatures` array ... refused ONLY because it retains the
        // excluded key": valid JSON; our canonical form never contains the key.
        "A2-REJECT-003" | "A2-REJECT-004" => Refusal::NotCanonical,
        // Lone high / low surrogate in a member name: "not valid Unicode text and has no
        // well-formed UTF-8 encoding" -> the reader refuses it as not (I-)JSON text.
        "A3-REJECT-011" | "A3-REJECT-012" => Refusal::Code(ErrorCode::InvalidJson),
        // Lone surrogates in string values, three constructions.
        "A4-REJECT-013" | "A4-REJECT-014" | "A4-REJECT-015" => Refusal::Code(ErrorCode::InvalidJson),
        // NaN, Infinity, -Infinity: "not a valid RFC 8259 JSON number" -> a syntax error, not
        // a number out of range.
        "A5-REJECT-016" | "A5-REJECT-017" | "A5-REJECT-018" => Refusal::Code(ErrorCode::InvalidJson),
        other => panic!("{other}: a MUST-REJECT vector this test has no decision for"),
    }
}

#[test]
fn a2a_jcs_v01_layer_a() {
    let Some(root) = data::corpus_dir() else { return };
    let (manifest, vectors) = manifest_and_vectors(&root.join("a2a/a2a-jcs-v01"));
    assert_eq!(manifest["counts"]["total"], 57);
    assert_eq!(vectors.len(), 57);
    let served = options(Profile::ServedAsIs, UnknownMembers::Exclude);
    let (mut accepted, mut refused) = (0, 0);
    let mut problems = Vec::new();
    for v in &vectors {
        let id = str_of(v, "id");
        let input = input_bytes(v, "input");
        match str_of(v, "disposition") {
            "MUST-ACCEPT" => {
                let expected = data::unhex(str_of(&v["expected"], "canonical_utf8_hex"));
                // Cards (objects) through the card path with only `signatures` removed; any
                // other JSON through plain RFC 8785.
                let is_object = input.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
                let got = if is_object {
                    canonicalize(&input, &served).map(|c| c.bytes)
                } else {
                    jcs(&input)
                };
                match got {
                    Ok(got) if got == expected => accepted += 1,
                    Ok(got) => problems.push(format!(
                        "{id}: expected {}\n      got {}",
                        show(&expected),
                        show(&got)
                    )),
                    Err(e) => problems.push(format!("{id}: refused {}: {e}", e.code())),
                }
            }
            "MUST-REJECT" => {
                match jcs_v01_refusal(id) {
                    Refusal::Code(code) => match jcs(&input) {
                        Err(e) if e.code() == code => {
                            // The card path refuses it the same way.
                            let e2 = canonicalize(&input, &served).unwrap_err();
                            assert_eq!(e2.code(), code, "{id}: card path");
                            refused += 1;
                        }
                        Err(e) => problems.push(format!("{id}: expected {code}, got {}: {e}", e.code())),
                        Ok(out) => problems.push(format!("{id}: expected {code}, accepted {}", show(&out))),
                    },
                    Refusal::NotCanonical => {
                        for profile in [Profile::ServedAsIs, Profile::Spec] {
                            let out = canonicalize(&input, &options(profile, UnknownMembers::Exclude))
                                .unwrap_or_else(|e| panic!("{id}: {e}"))
                                .bytes;
                            let top: Value = serde_json::from_slice(&out).unwrap();
                            assert!(
                                top.get("signatures").is_none(),
                                "{id}: {} kept signatures",
                                profile.as_str()
                            );
                            assert_ne!(
                                out,
                                input,
                                "{id}: {} takes the claimed form as canonical",
                                profile.as_str()
                            );
                        }
                        refused += 1;
                    }
                }
            }
            other => panic!("{id}: unknown disposition {other}"),
        }
    }
    println!("a2a-jcs-v01: {accepted} of 47 MUST-ACCEPT byte for byte, {refused} of 10 MUST-REJECT refused");
    assert!(problems.is_empty(), "a2a-jcs-v01:\n{}", problems.join("\n"));
    assert_eq!((accepted, refused), (47, 10));
}

// ---------------------------------------------------------------------------------------------
// a2a-jcs-rule1-v01 (Layer B)
// ---------------------------------------------------------------------------------------------

/// JSON names of the REQUIRED fields of AgentCard, transcribed from the corpus MANIFEST
/// (`spec_provenance.required_set`, proto names there).
const CARD_REQUIRED: &[&str] = &[
    "name",
    "description",
    "supportedInterfaces",
    "version",
    "capabilities",
    "defaultInputModes",
    "defaultOutputModes",
    "skills",
];

#[test]
fn a2a_jcs_rule1_v01_layer_b() {
    let Some(root) = data::corpus_dir() else { return };
    let (manifest, vectors) = manifest_and_vectors(&root.join("a2a/a2a-jcs-rule1-v01"));
    assert_eq!(manifest["counts"]["total"], 5);
    let spec = CanonicalizeOptions::default();
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for v in &vectors {
        let id = str_of(v, "id");
        let resolution = str_of(v, "resolution");
        *seen.entry(resolution).or_default() += 1;
        let input = input_bytes(v, "input");
        let ours = canonicalize(&input, &spec)
            .unwrap_or_else(|e| panic!("{id}: {e}"))
            .bytes;
        let card: Value = serde_json::from_slice(&input).unwrap();
        let absent: Vec<&str> = CARD_REQUIRED
            .iter()
            .copied()
            .filter(|f| card.get(f).is_none())
            .collect();
        match resolution {
            // Our `spec` profile is this reading: what the card carries is kept, nothing absent
            // is invented.
            "presence-preserving" => {
                let expected = data::unhex(str_of(&v["expected"], "canonical_utf8_hex"));
                assert_eq!(show(&ours), show(&expected), "{id}");
            }
            // The competing reading materializes absent REQUIRED fields at their defaults.
            // DESIGN.md: "An absent REQUIRED field is not invented; lint reports it." So where
            // the input lacks REQUIRED fields our bytes must differ, and differ by exactly the
            // invented members.
            "inject-required-defaults" => {
                let expected = data::unhex(str_of(&v["expected"], "canonical_utf8_hex"));
                assert!(
                    !absent.is_empty(),
                    "{id}: the vector's input lacks no REQUIRED field"
                );
                assert_ne!(ours, expected, "{id}: spec must not inject {absent:?}");
                let mut injected: Value = serde_json::from_slice(&expected).unwrap();
                for f in &absent {
                    assert!(injected.get(f).is_some(), "{id}: {f} was not injected");
                    injected.as_object_mut().unwrap().remove(*f);
                }
                let without = jcs(&serde_json::to_vec(&injected).unwrap()).unwrap();
                assert_eq!(
                    show(&ours),
                    show(&without),
                    "{id}: differs by more than {absent:?}"
                );
            }
            // Refusing a card that lacks REQUIRED fields is a validation step, which in this
            // toolkit belongs to `lint`; canonicalization under `spec` keeps what is there. The
            // input is R1-003's, so the bytes are R1-003's.
            "strict-presence-validation" => {
                assert_eq!(str_of(v, "disposition"), "MUST-REJECT");
                assert!(
                    !absent.is_empty(),
                    "{id}: the vector's input lacks no REQUIRED field"
                );
                let r1_003 = vectors.iter().find(|x| x["id"] == "R1-003").unwrap();
                assert_eq!(input, input_bytes(r1_003, "input"), "{id}: not R1-003's input");
                let expected = data::unhex(str_of(&r1_003["expected"], "canonical_utf8_hex"));
                assert_eq!(show(&ours), show(&expected), "{id}");
            }
            other => panic!("{id}: unknown resolution {other}"),
        }
    }
    println!("a2a-jcs-rule1-v01: {seen:?}");
    assert_eq!(seen.values().sum::<usize>(), 5);
}

// ---------------------------------------------------------------------------------------------
// a2a-card-sign-v01 (Layer C)
// ---------------------------------------------------------------------------------------------

/// Our settings for a reading named in a2a-card-sign-v01, or `None` for a reading we do not
/// implement.
fn reading_options(reading: &str) -> Option<CanonicalizeOptions> {
    use Profile::*;
    use UnknownMembers::*;
    Some(match reading {
        // Rule 1 on the served card; on s3 cards unknown members are dropped at every depth; on
        // s4 cards both spellings of one field are refused. All of that is `spec` by default.
        "rule-1-as-written" | "rule-1-served-scope" | "unknown-exclude" | "dual-name-refuse" => {
            options(Spec, Exclude)
        }
        "unknown-retain" => options(Spec, Retain),
        "unknown-reject" => options(Spec, Reject),
        "prune-empty" => options(PruneEmpty, Exclude),
        // The served JSON minus `signatures`: dual spellings kept as served.
        "served-as-is" | "dual-name-tolerate" => options(ServedAsIs, Exclude),
        // Rule 1 by walking the descriptor, emitting absent REQUIRED fields at their defaults
        // (a2a-python#1287, later reverted). We never invent absent fields (DESIGN.md), so this
        // reading has no counterpart here.
        "rule-1-descriptor-scope" => return None,
        other => panic!("reading {other:?} is not mapped"),
    })
}

/// Where refusing the card is itself the reading's answer, the code we refuse it with.
fn reading_refusal(reading: &str) -> Option<ErrorCode> {
    match reading {
        "dual-name-refuse" => Some(ErrorCode::DualName),
        "unknown-reject" => Some(ErrorCode::UnknownMember),
        _ => None,
    }
}

/// The published ES256 test key of the corpus.
fn test_key(dir: &Path) -> PublicKey {
    let keys = keys::parse_jwks(&fs::read_to_string(dir.join("testkey_jwks.json")).unwrap()).unwrap();
    assert_eq!(keys.len(), 1);
    keys.into_iter().next().unwrap()
}

/// How many signatures of `card` verify over `payload` with `key` (real ES256 checks).
fn verifying(card: &Value, payload: &[u8], key: &PublicKey) -> usize {
    let Some(Value::Array(entries)) = card.get("signatures") else {
        return 0;
    };
    entries
        .iter()
        .filter(|entry| {
            let protected = str_of(entry, "protected");
            let header: Value = serde_json::from_slice(&data::unb64url(protected)).unwrap();
            let alg = Algorithm::from_name(str_of(&header, "alg")).unwrap();
            let sig = data::unb64url(str_of(entry, "signature"));
            alg::verify(
                alg,
                key,
                &a2a_card::jose::header::signing_input(protected, payload),
                &sig,
            )
            .is_ok()
        })
        .count()
}

#[derive(Default, Debug)]
struct Tally {
    accept: usize,
    reject_bytes: usize,
    reject_code: usize,
}

#[test]
fn a2a_card_sign_v01_per_reading() {
    let Some(root) = data::corpus_dir() else { return };
    let dir = root.join("a2a/a2a-card-sign-v01");
    let (manifest, vectors) = manifest_and_vectors(&dir);
    assert_eq!(manifest["counts"]["total"], 42);
    assert_eq!(vectors.len(), 42);
    let key = test_key(&dir);
    let mut tally: BTreeMap<String, Tally> = BTreeMap::new();
    let mut skipped: BTreeMap<String, usize> = BTreeMap::new();
    let mut problems = Vec::new();
    for v in &vectors {
        let id = str_of(v, "id");
        let card = &v["served_card"];
        let bytes = serde_json::to_vec(card).unwrap();
        let accept = list_of(v, "accept_under");
        // The forms some signature of the card covers, as the vector states them: one per
        // signature when it lists them, else its canonical form when some reading accepts it.
        // (A vector no reading accepts states the canonical form of the served, edited card.)
        let signed: Vec<Vec<u8>> = match v.get("canonical_utf8_hex_per_signature") {
            Some(Value::Array(hexes)) => hexes.iter().map(|h| data::unhex(h.as_str().unwrap())).collect(),
            _ if !accept.is_empty() => vec![data::unhex(str_of(v, "canonical_utf8_hex"))],
            _ => Vec::new(),
        };
        for form in &signed {
            assert!(
                verifying(card, form, &key) > 0,
                "{id}: a stated signed form does not verify"
            );
        }
        for reading in &accept {
            let Some(opts) = reading_options(reading) else {
                *skipped.entry(reading.to_string()).or_default() += 1;
                continue;
            };
            match canonicalize(&bytes, &opts) {
                Ok(c) if signed.contains(&c.bytes) => {
                    tally.entry(reading.to_string()).or_default().accept += 1;
                }
                Ok(c) => problems.push(format!(
                    "{id} under {reading}: bytes are no signed form\n      got {}\n expected {}",
                    show(&c.bytes),
                    signed
                        .iter()
                        .map(|s| show(s))
                        .collect::<Vec<_>>()
                        .join("\n       or ")
                )),
                Err(e) => problems.push(format!("{id} under {reading}: refused {}: {e}", e.code())),
            }
        }
        for reading in list_of(v, "reject_under") {
            let Some(opts) = reading_options(reading) else {
                *skipped.entry(reading.to_string()).or_default() += 1;
                continue;
            };
            let result = canonicalize(&bytes, &opts);
            match (reading_refusal(reading), result) {
                (Some(code), Err(e)) if e.code() == code => {
                    tally.entry(reading.to_string()).or_default().reject_code += 1;
                }
                (Some(code), other) => problems.push(format!(
                    "{id} under {reading}: expected refusal {code}, got {:?}",
                    other.map(|c| show(&c.bytes)).map_err(|e| e.code())
                )),
                (None, Ok(c)) => {
                    if signed.contains(&c.bytes) || verifying(card, &c.bytes, &key) > 0 {
                        problems.push(format!(
                            "{id} under {reading}: bytes are a signed form: {}",
                            show(&c.bytes)
                        ));
                    } else {
                        tally.entry(reading.to_string()).or_default().reject_bytes += 1;
                    }
                }
                (None, Err(e)) => problems.push(format!("{id} under {reading}: refused {}: {e}", e.code())),
            }
        }
    }
    for (reading, t) in &tally {
        println!(
            "a2a-card-sign-v01 {reading}: {} accepted with the signed bytes, {} rejected (bytes differ from every signed form), {} refused with its code",
            t.accept, t.reject_bytes, t.reject_code
        );
    }
    for (reading, n) in &skipped {
        println!("a2a-card-sign-v01 {reading}: {n} verdicts skipped (reading not implemented)");
    }
    assert!(problems.is_empty(), "a2a-card-sign-v01:\n{}", problems.join("\n"));
    let checked: usize = tally
        .values()
        .map(|t| t.accept + t.reject_bytes + t.reject_code)
        .sum();
    assert!(checked >= 80, "only {checked} verdicts checked");
}

// ---------------------------------------------------------------------------------------------
// a2a-tck PR #194/#204 canonicalization cases
// ---------------------------------------------------------------------------------------------

/// TCK cases whose cards carry members of the 0.3 card (`url` at the top level, security
/// schemes as `{"type": ...}` objects) that A2A v1.0 does not define. The TCK signs plain JCS of
/// the card minus `signatures`, which is our served-as-is; under `spec` those members are not
/// covered, so only served-as-is can give these bytes.
const TCK_V03_ERA: &[&str] = &["cardsign-canon-003", "cardsign-jcs-keyorder"];

#[test]
fn tck_canonicalization_cases() {
    let Some(root) = data::corpus_dir() else { return };
    let dir = root.join("a2a/a2a-tck-card-sign-pr194-204");
    let mut cases = Vec::new();
    let a = data::read_json(dir.join("card_signing_canonicalization_vectors.json"));
    cases.extend(
        a["cases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| ("canonicalization_vectors", c.clone())),
    );
    let b = data::read_json(dir.join("card_signing_vectors.json"));
    cases.extend(
        b["canonicalization_cases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| ("card_signing_vectors", c.clone())),
    );
    assert_eq!(cases.len(), 9);
    let (mut served_n, mut spec_n) = (0, 0);
    for (file, case) in &cases {
        let id = str_of(case, "id");
        let card = serde_json::to_vec(&case["agent_card"]).unwrap();
        let expected = str_of(case, "expected_jcs_payload").as_bytes();
        let served = canonicalize(&card, &options(Profile::ServedAsIs, UnknownMembers::Exclude))
            .unwrap_or_else(|e| panic!("{file} {id}: {e}"));
        assert_eq!(show(&served.bytes), show(expected), "{file} {id}: served-as-is");
        served_n += 1;
        let strict = canonicalize(&card, &options(Profile::Spec, UnknownMembers::Reject));
        if TCK_V03_ERA.contains(&id) {
            let err = strict.expect_err(&format!("{file} {id}: holds 0.3-era members"));
            assert_eq!(err.code(), ErrorCode::UnknownMember, "{file} {id}: {err}");
            let spec = canonicalize(&card, &CanonicalizeOptions::default()).unwrap();
            assert_ne!(spec.bytes, expected, "{file} {id}: spec covers 0.3-era members");
            assert!(
                !spec.unsigned.is_empty(),
                "{file} {id}: uncovered members not reported"
            );
        } else {
            let strict = strict.unwrap_or_else(|e| panic!("{file} {id}: only v1.0 members, yet {e}"));
            assert_eq!(show(&strict.bytes), show(expected), "{file} {id}: spec");
            spec_n += 1;
        }
    }
    println!("TCK canonicalization: {served_n} served-as-is, {spec_n} spec (v1.0-only cards), byte for byte");
}

// ---------------------------------------------------------------------------------------------
// jcs_depth_v1 (nesting bound)
// ---------------------------------------------------------------------------------------------

/// Writes a preimage by the corpus's `preimage_rule_form`.
fn materialize(rule: &Value) -> Vec<u8> {
    assert_eq!(str_of(rule, "form"), "nest");
    let kinds = data::strings(&rule["containers"]);
    let count = rule["count"].as_u64().unwrap() as usize;
    let leaf = str_of(rule, "leaf");
    let mut out = Vec::with_capacity(count * 5 + leaf.len() + count);
    let kind = |i: usize| kinds[i % kinds.len()];
    for i in 0..count {
        out.extend_from_slice(if kind(i) == "object" { b"{\"a\":" } else { b"[" });
    }
    out.extend_from_slice(leaf.as_bytes());
    for i in (0..count).rev() {
        out.push(if kind(i) == "object" { b'}' } else { b']' });
    }
    out
}

#[test]
fn jcs_depth_vectors_match_our_nesting_bound() {
    use base64::Engine;
    let Some(doc) = data::corpus_json("a2a/a2a-python-tests-utils/jcs_depth_vectors.json") else {
        return;
    };
    // The corpus counts open containers with the outermost at depth 1, an empty container
    // included; Limits::max_depth is documented the same way ("the top-level value is at depth
    // 1 when it is an array or object", deeper is refused). Same bound, same counting.
    let max_depth = doc["max_depth"].as_u64().unwrap() as usize;
    assert_eq!(Limits::default().max_depth, max_depth);
    let vectors = doc["vectors"].as_array().unwrap();
    assert_eq!(vectors.len(), 8);
    for v in vectors {
        let id = str_of(v, "vector_id");
        let rule = &v["preimage_rule"];
        let pre = materialize(rule);
        assert_eq!(
            pre.len() as u64,
            v["preimage_bytes"].as_u64().unwrap(),
            "{id}: preimage length"
        );
        assert_eq!(
            sha256_hex(&pre),
            str_of(v, "preimage_sha256"),
            "{id}: preimage digest"
        );
        // The depth the vector states, counted our way: one per opener, plus the leaf when the
        // leaf is itself a container.
        let leaf = str_of(rule, "leaf");
        let ours = rule["count"].as_u64().unwrap() as usize
            + usize::from(leaf.starts_with('{') || leaf.starts_with('['));
        assert_eq!(ours as u64, v["depth"].as_u64().unwrap(), "{id}: depth count");

        let result = jcs(&pre);
        match str_of(v, "outcome") {
            "accept" => {
                let expected = base64::engine::general_purpose::STANDARD
                    .decode(str_of(v, "expected_jcs_bytes_b64"))
                    .unwrap();
                assert_eq!(sha256_hex(&expected), str_of(v, "expected_sha256"), "{id}");
                let got = result.unwrap_or_else(|e| panic!("{id}: depth {ours} refused: {} {e}", e.code()));
                assert_eq!(got, expected, "{id}");
            }
            "reject" => {
                let err = result.expect_err(&format!("{id}: depth {ours} accepted"));
                if pre.len() <= Limits::default().max_input_bytes {
                    assert_eq!(err.code(), ErrorCode::NestingTooDeep, "{id}: {err}");
                } else {
                    // Past the default size limit the size check answers first; lift it to
                    // show the nesting bound itself refuses, without exhausting the stack.
                    assert_eq!(err.code(), ErrorCode::InputTooLarge, "{id}: {err}");
                    let roomy = Limits {
                        max_input_bytes: pre.len(),
                        ..Limits::default()
                    };
                    let err = a2a_card::jcs_with(&pre, &roomy).expect_err(&format!("{id}: accepted"));
                    assert_eq!(err.code(), ErrorCode::NestingTooDeep, "{id}: {err}");
                }
            }
            other => panic!("{id}: unknown outcome {other}"),
        }
        println!("{id}: depth {ours}, {}", str_of(v, "outcome"));
    }
}
