//! The options document (`a2a_card::request`): one table, one build of a verifier, errors that
//! carry the option each front end spells, and library messages that name no front end's words.

use a2a_card::lint::LintOptions;
use a2a_card::migrate::MigrateOptions;
use a2a_card::request::{
    option, Camel, CanonicalizeRequest, Input, Kind, LintRequest, MigrateRequest, OptionValue, Quotes,
    Request, Snake, Spelling, VerifyRequest, CANONICALIZE, LINT, MIGRATE, VERIFY,
};
use a2a_card::signature::{sign_card, SignOptions};
use a2a_card::{Algorithm, CanonicalizeOptions, PrivateKey, Profile, UnknownMembers, VerifyOptions};
use a2a_card_testkit::data::repo_root;

/// A front end of this test's own that spells options as a command line does: its own flag
/// for some, `--kebab-case` for the rest, never quoted, the input shown elsewhere (the CLI's
/// real map is its own, `a2a-card-cli/src/options.rs`, and its tests check its messages).
struct Dashed;

impl Spelling for Dashed {
    fn name(&self, option: &str) -> String {
        match option {
            "keys" => "--key".to_string(),
            "algorithms" => "--alg".to_string(),
            _ => format!("--{}", option.replace('_', "-")),
        }
    }
    fn quotes(&self) -> Quotes {
        Quotes::Never
    }
    fn names_input(&self) -> bool {
        false
    }
}

fn spelled(e: &a2a_card::Error) -> [String; 3] {
    let spellings: [&dyn Spelling; 3] = [&Snake, &Camel, &Dashed];
    spellings.map(|s| e.clone().spelled(s).message().to_string())
}

#[test]
fn an_error_about_an_option_is_spelled_by_each_front_end() {
    let chain = VerifyRequest {
        max_chain: Some(9),
        ..Default::default()
    }
    .options()
    .unwrap_err();
    assert_eq!(chain.option(), Some("max_chain"));
    assert_eq!(
        spelled(&chain),
        [
            "max_chain must be 1 to 8, got 9",
            "\"maxChain\" must be 1 to 8, got 9",
            "--max-chain must be 1 to 8, got 9"
        ]
    );
    let hmac = VerifyRequest {
        algorithms: Some(vec!["HS256".into()]),
        ..Default::default()
    }
    .options()
    .unwrap_err();
    let [py, npm, cli] = spelled(&hmac);
    assert!(py.starts_with("algorithms: HS256 needs a shared secret"), "{py}");
    assert!(
        npm.starts_with("\"algorithms\": HS256 needs a shared secret"),
        "{npm}"
    );
    assert!(cli.starts_with("--alg: HS256 needs a shared secret"), "{cli}");
    let both = VerifyRequest {
        profile: Some("spec".into()),
        profiles: Some(vec!["spec".into()]),
        ..Default::default()
    }
    .options()
    .unwrap_err();
    assert_eq!(both.options(), ["profile", "profiles"]);
    assert_eq!(
        spelled(&both),
        [
            "give \"profile\" or \"profiles\", not both",
            "give \"profile\" or \"profiles\", not both",
            "give --profile or --profiles, not both",
        ]
    );
    let none = VerifyRequest {
        fetched: true,
        ..Default::default()
    }
    .trust_store()
    .unwrap_err();
    assert_eq!(
        spelled(&none),
        [
            "no trust roots: give at least one of keys, jwks, trust or trust_anchors, or an allow_jku prefix",
            "no trust roots: give at least one of \"keys\", \"jwks\", \"trust\" or \"trustAnchors\", or an \"allowJku\" prefix",
            "no trust roots: give at least one of --key, --jwks, --trust or --trust-anchors, or an --allow-jku prefix",
        ]
    );
    // Spelling twice changes nothing; an error about no option is left as it is.
    let once = chain.clone().spelled(&Dashed);
    assert_eq!(once.clone().spelled(&Dashed).message(), once.message());
    assert_eq!(once.clone().spelled(&Camel).message(), once.message());
    let plain = a2a_card::jcs(b"[1,]").unwrap_err();
    assert_eq!(plain.clone().spelled(&Dashed), plain);
    assert_eq!(plain.clone().spelled(&Camel), plain);
}

#[test]
fn an_error_about_one_input_names_the_input() {
    let bad = VerifyRequest {
        keys: Some(vec![Input::new("not a key", "keys[0]")]),
        ..Default::default()
    }
    .build()
    .unwrap_err();
    assert_eq!(bad.option(), Some("keys"));
    assert_eq!(bad.input(), Some(("keys[0]", false)));
    assert!(bad.clone().spelled(&Snake).message().starts_with("keys[0]: "));
    // A front end that shows the input elsewhere (the CLI: as the place) leaves the message.
    assert_eq!(bad.clone().spelled(&Dashed).message(), bad.message());
}

#[test]
fn the_table_is_the_libraries_defaults_and_bounds() {
    let d = VerifyOptions::default();
    let count = |n: &str| option(VERIFY, n).and_then(|o| o.count_default()).unwrap();
    assert_eq!(count("max_chain"), d.max_chain_len);
    assert_eq!(count("max_signatures"), d.max_signatures);
    assert_eq!(count("max_keys_per_kid"), d.max_keys_per_kid);
    assert_eq!(count("max_signature_checks"), d.max_signature_checks);
    assert_eq!(count("max_input_bytes"), d.limits.max_input_bytes);
    assert_eq!(count("max_depth"), d.limits.max_depth);
    // A request with nothing but a key is the library's default policy.
    let key = PrivateKey::generate(Algorithm::EdDSA).unwrap();
    let jwk = key.public().to_jwk().to_string();
    let ready = VerifyRequest {
        keys: Some(vec![Input::new(jwk.clone(), "k")]),
        ..Default::default()
    }
    .build()
    .unwrap();
    assert_eq!(format!("{:?}", ready.options), format!("{d:?}"));
    let card = sign_card(br#"{"name":"A","skills":[]}"#, &key, &SignOptions::default())
        .unwrap()
        .card;
    assert!(ready.verify(&card).unwrap().ok);
    // Every bound refused past either end, accepted at both.
    for spec in VERIFY {
        let Some((min, max)) = spec.bounds() else { continue };
        for (n, ok) in [
            (min, true),
            (max, true),
            (max + 1, false),
            (min.wrapping_sub(1), min == 0),
        ] {
            let mut r = VerifyRequest::default();
            r.set(spec.name, a2a_card::request::OptionValue::Count(n))
                .unwrap();
            assert_eq!(r.options().is_ok(), ok, "{} {n}", spec.name);
        }
    }
}

/// A value of each kind the tables of canonicalize, lint and migrate use, and one of another.
fn value_of(kind: Kind) -> (OptionValue, OptionValue) {
    match kind {
        Kind::Count { default, .. } => (OptionValue::Count(default), OptionValue::Text("1".into())),
        Kind::Choice(names) => (OptionValue::Text(names[0].into()), OptionValue::Count(1)),
        _ => (OptionValue::Text("1.0".into()), OptionValue::Count(1)),
    }
}

/// Every row of a request's table is set by its kind and refused by another; a name the table
/// lacks is refused; with nothing set the request is the library's defaults; every bound is
/// refused past either end and accepted at both.
#[allow(clippy::unwrap_used)] // a panic is how a test fails
fn check_request<R: Request>(defaults: &R::Built)
where
    R::Built: std::fmt::Debug,
{
    assert_eq!(
        format!("{:?}", R::default().build().unwrap()),
        format!("{defaults:?}")
    );
    for spec in R::TABLE {
        let (good, bad) = value_of(spec.kind);
        let mut r = R::default();
        r.set(spec.name, good).unwrap();
        assert!(r.build().is_ok(), "{}", spec.name);
        let e = r.set(spec.name, bad).unwrap_err();
        assert_eq!(e.option(), Some(spec.name));
        if let Some((min, max)) = spec.bounds() {
            for (n, ok) in [
                (min, true),
                (max, true),
                (max + 1, false),
                (min.wrapping_sub(1), min == 0),
            ] {
                let mut r = R::default();
                r.set(spec.name, OptionValue::Count(n)).unwrap();
                let built = r.build();
                assert_eq!(built.is_ok(), ok, "{} {n}", spec.name);
                if let Err(e) = built {
                    assert_eq!(e.option(), Some(spec.name));
                }
            }
        }
    }
    assert!(R::default().set("no_such_option", OptionValue::Count(1)).is_err());
}

#[test]
fn the_tables_of_canonicalize_lint_and_migrate_are_their_requests() {
    check_request::<CanonicalizeRequest>(&CanonicalizeOptions::default());
    check_request::<LintRequest>(&LintOptions::default());
    check_request::<MigrateRequest>(&MigrateOptions::default());
    // The names read as the library's types; a wrong one is an error about its option whose
    // message names it already (so every front end shows it as it is).
    let r = CanonicalizeRequest {
        profile: Some("prune-empty".into()),
        unknown: Some("reject".into()),
        ..Default::default()
    };
    let built = r.build().unwrap();
    assert_eq!(
        (built.profile, built.unknown),
        (Profile::PruneEmpty, UnknownMembers::Reject)
    );
    let e = CanonicalizeRequest {
        profile: Some("jcs".into()),
        ..Default::default()
    }
    .build()
    .unwrap_err();
    assert_eq!(e.option(), Some("profile"));
    let words =
        r#""jcs" is not one of "spec", "served-as-is", "prune-empty", "a2a-sdk-0.3", "a2a-sdk-0.3.21""#;
    assert_eq!(
        spelled(&e),
        [
            format!("profile {words}"),
            format!("profile {words}"),
            format!("--profile {words}")
        ]
    );
    // The profiles canonicalize takes are the library's (no `auto`).
    let names = match option(CANONICALIZE, "profile").unwrap().kind {
        Kind::Choice(names) => names,
        other => panic!("{other:?}"),
    };
    let mut all: Vec<&str> = Profile::ALL.iter().map(|p| p.as_str()).collect();
    let mut listed = names.to_vec();
    all.sort_unstable();
    listed.sort_unstable();
    assert_eq!(listed, all);
    // Migrate's rule, about its option.
    let e = MigrateRequest {
        protocol_version: Some(String::new()),
        ..Default::default()
    }
    .build()
    .unwrap_err();
    assert_eq!(
        spelled(&e),
        [
            "protocol_version: the protocolVersion must not be empty",
            "\"protocolVersion\": the protocolVersion must not be empty",
            "--protocol-version: the protocolVersion must not be empty",
        ]
        .map(String::from)
    );
    let v = MigrateRequest {
        protocol_version: Some("1.0".into()),
        ..Default::default()
    };
    assert_eq!(v.build().unwrap().protocol_version.as_deref(), Some("1.0"));
    // The reader limits are one row, shared by every table that reads a card.
    for name in ["max_input_bytes", "max_depth"] {
        let row = option(VERIFY, name).unwrap();
        for table in [CANONICALIZE, LINT, MIGRATE] {
            assert_eq!(option(table, name), Some(row));
        }
    }
}

/// Flag-shaped words (`--name`, or `--{` of a flag made by `format!`) in any string literal of
/// the library crates' sources: messages, the options table's rows, anything. A library names
/// options by their canonical names; each front end spells them (the CLI's flags are its own).
#[test]
fn library_sources_name_no_flag() {
    let mut found = Vec::new();
    // The service's `cli.rs` is its command line (its flags and their help), as the CLI's own.
    let front = repo_root().join("crates/a2a-card-serve/src/cli.rs");
    for krate in ["a2a-card", "a2a-card-fetch", "a2a-card-keys", "a2a-card-serve"] {
        let mut stack = vec![repo_root().join("crates").join(krate).join("src")];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                if path.extension().is_none_or(|e| e != "rs") || path == front {
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap();
                for line in flags_in_strings(&text) {
                    found.push(format!("{}:{line}", path.display()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "string literals of a library crate that hold a flag:\n{}",
        found.join("\n")
    );
}

/// The lines where `--` and a lower-case letter (or `{`) stand inside a string literal of Rust
/// source: plain, byte and raw (`r#"..."#`) literals, which may span lines; comments and
/// character literals skipped.
fn flags_in_strings(text: &str) -> Vec<usize> {
    let b = text.as_bytes();
    let (mut i, mut line) = (0, 1);
    // Inside a literal: `None` for a plain one (escapes apply), else a raw one's count of `#`.
    let mut inside: Option<Option<usize>> = None;
    let mut out = Vec::new();
    let flag_at = |i: usize| {
        b[i] == b'-'
            && b.get(i + 1) == Some(&b'-')
            && b.get(i + 2).is_some_and(|c| c.is_ascii_lowercase() || *c == b'{')
    };
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line += 1;
        }
        match inside {
            Some(raw) => {
                if flag_at(i) && out.last() != Some(&line) {
                    out.push(line);
                }
                match (c, raw) {
                    (b'\\', None) => {
                        if b.get(i + 1) == Some(&b'\n') {
                            line += 1;
                        }
                        i += 1;
                    }
                    (b'"', None) => inside = None,
                    (b'"', Some(hashes))
                        if b[i + 1..].iter().take_while(|&&h| h == b'#').count() >= hashes =>
                    {
                        inside = None;
                        i += hashes;
                    }
                    _ => {}
                }
            }
            None if c == b'/' && b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            None if c == b'\'' && b.get(i + 2) == Some(&b'\'') => {
                i += 3;
                continue;
            }
            None if c == b'\'' && b.get(i + 1) == Some(&b'\\') && b.get(i + 3) == Some(&b'\'') => {
                i += 4;
                continue;
            }
            None if c == b'"' => inside = Some(None),
            None if c == b'r' => {
                // A raw literal (`br`, `cr` too): `r`, any number of `#`, then `"` (a raw
                // identifier, `r#type`, has no `"`).
                let hashes = b[i + 1..].iter().take_while(|&&h| h == b'#').count();
                if b.get(i + 1 + hashes) == Some(&b'"') {
                    inside = Some(Some(hashes));
                    i += hashes + 2;
                    continue;
                }
            }
            None => {}
        }
        i += 1;
    }
    out
}

#[test]
fn the_flag_finder_finds_flags_in_strings_only() {
    assert_eq!(flags_in_strings("let a = \"x (--profile auto)\";"), [1]);
    assert_eq!(flags_in_strings("format!(\"a \\\n   b --origin\")"), [2]);
    assert!(flags_in_strings("// --origin\nlet c = '\"'; x -- y; \"ok\"").is_empty());
    // Anywhere a literal stands: a table row, a raw or byte literal, a flag made by format!.
    assert_eq!(flags_in_strings("Row {\n    cli: Some(\"--key\"),\n}"), [2]);
    assert_eq!(
        flags_in_strings("let a = r#\"a \"b\" c\"#;\nlet b = r#\"x\"y --z\"#;"),
        [2]
    );
    assert_eq!(flags_in_strings("let a = br\"--key\"; let b = b\"x\";"), [1]);
    assert_eq!(flags_in_strings("format!(\"--{}\", name)"), [1]);
    // A raw literal's backslash escapes nothing; PEM dashes are no flag.
    assert!(flags_in_strings("let a = r\"\\\"; let b = \"-----BEGIN\"; // \"--x\"").is_empty());
}
