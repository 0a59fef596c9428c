//! The options document (`a2a_card::request`): one table, one build of a verifier, errors that
//! carry the option each front end spells, and library messages that name no front end's words.

use a2a_card::request::{option, parsed_key, Input, Spelling, VerifyRequest, VERIFY};
use a2a_card::signature::{sign_card, SignOptions};
use a2a_card::{Algorithm, PrivateKey, VerifyOptions};
use a2a_card_testkit::data::repo_root;

fn spelled(e: &a2a_card::Error) -> [String; 3] {
    [Spelling::Snake, Spelling::Camel, Spelling::Flag].map(|s| e.clone().spelled(s).message().to_string())
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
    assert_eq!(spelled(&both)[0], "give \"profile\" or \"profiles\", not both");
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
    let once = chain.clone().spelled(Spelling::Flag);
    assert_eq!(once.clone().spelled(Spelling::Flag).message(), once.message());
    let plain = a2a_card::jcs(b"[1,]").unwrap_err();
    assert_eq!(plain.clone().spelled(Spelling::Flag), plain);
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
    assert!(bad
        .clone()
        .spelled(Spelling::Snake)
        .message()
        .starts_with("keys[0]: "));
    // The CLI prints the file as the place, not in the message.
    assert_eq!(bad.clone().spelled(Spelling::Flag).message(), bad.message());
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
    assert_eq!(parsed_key(&jwk).unwrap().to_jwk(), key.public().to_jwk());
}

/// Flag-shaped words (`--name`) in the string literals of the library crates' sources: a
/// library's messages name no CLI flag (the table's row for the CLI's spelling excepted).
#[test]
fn library_messages_name_no_flag() {
    let mut found = Vec::new();
    for krate in ["a2a-card", "a2a-card-fetch", "a2a-card-keys"] {
        let mut stack = vec![repo_root().join("crates").join(krate).join("src")];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                if path.extension().is_none_or(|e| e != "rs") || path.ends_with("request/table.rs") {
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
        "library messages that name a flag:\n{}",
        found.join("\n")
    );
}

/// The lines where `--` and a lower-case letter stand inside a string literal of Rust source
/// (comments and character literals skipped; a literal may span lines).
fn flags_in_strings(text: &str) -> Vec<usize> {
    let b = text.as_bytes();
    let (mut i, mut line, mut inside) = (0, 1, false);
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line += 1;
        }
        if inside {
            match c {
                b'\\' => {
                    if b.get(i + 1) == Some(&b'\n') {
                        line += 1;
                    }
                    i += 1;
                }
                b'"' => inside = false,
                b'-' if b.get(i + 1) == Some(&b'-')
                    && b.get(i + 2).is_some_and(u8::is_ascii_lowercase)
                    && out.last() != Some(&line) =>
                {
                    out.push(line);
                }
                _ => {}
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        } else if c == b'\'' && b.get(i + 2) == Some(&b'\'') {
            i += 3;
            continue;
        } else if c == b'\'' && b.get(i + 1) == Some(&b'\\') && b.get(i + 3) == Some(&b'\'') {
            i += 4;
            continue;
        } else if c == b'"' {
            inside = true;
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
}
