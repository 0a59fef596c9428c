//! The core's tables of options (`a2a_card::request::VERIFY`, and `SIGN`, `CANONICALIZE`,
//! `LINT`, `MIGRATE`, whose declarations and flags are checked alike) against every front end:
//! the CLI's flags (clap, through the CLI's own map of options to flags,
//! `crate::options::FLAGS`), the Python stubs (`_native.pyi`) and the npm declarations (the
//! `.d.ts` text, read by [`npm_declarations`]). An option the table has and a front end lacks,
//! one a front end has and the table lacks, or a default or bounds they disagree on, fails
//! here.

use crate::options::{flag, option_of, FLAGS};
use a2a_card::request::{camel_case, option, Kind, OptionSpec, CANONICALIZE, LINT, MIGRATE, SIGN, VERIFY};
use a2a_card_fetch::{FETCH, MANY, REMOTE};
use clap::{CommandFactory, Parser};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The CLI's `verify` arguments that are not options of a verification: the card, what to
/// print and where, and batches (the fetcher's options are its tables').
const CLI_ONLY: &[&str] = &[
    "card",
    "batch",
    "threads",
    "allow_empty",
    "urls",
    "format",
    "emit_verified",
    "force",
];

/// The fetcher's tables and the subcommands that read them.
const FETCHER: &[(&[&str], &[OptionSpec])] = &[
    (&["fetch", "verify"], FETCH),
    (&["verify"], REMOTE),
    (&["verify"], MANY),
];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The npm package's TypeScript declarations: the `.d.ts` files under
/// `crates/a2a-card-wasm/js/` when there are any, else the text `typescript.rs` writes.
fn npm_declarations() -> String {
    let dir = repo().join("crates/a2a-card-wasm/js");
    let mut text = String::new();
    if let Ok(entries) = std::fs::read_dir(&dir) {
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.to_string_lossy().ends_with(".d.ts"))
            .collect();
        files.sort();
        for f in files {
            text.push_str(&std::fs::read_to_string(f).unwrap_or_default());
        }
    }
    if text.is_empty() {
        text = std::fs::read_to_string(repo().join("crates/a2a-card-wasm/src/typescript.rs"))
            .unwrap_or_default();
    }
    text
}

/// The members of a TypeScript interface, with the doc comment before each (one line).
fn interface(text: &str, name: &str) -> Vec<(String, String)> {
    let start = text
        .find(&format!("export interface {name} "))
        .unwrap_or_else(|| panic!("no interface {name}"));
    let body = &text[start..];
    let body = &body[body.find('{').unwrap_or(0) + 1..body.find("\n}").unwrap_or(body.len())];
    let mut out = Vec::new();
    let mut doc = String::new();
    for line in body.lines().map(str::trim) {
        if line.starts_with("/**") || line.starts_with('*') {
            doc.push_str(line);
            doc.push(' ');
        } else if let Some((member, _)) = line.split_once("?:") {
            out.push((member.trim().to_string(), std::mem::take(&mut doc)));
        }
    }
    out
}

/// The members of the stubs' `TypedDict` `name` (`VerifyOptions`), with the docstring after each.
fn python_options(text: &str, name: &str) -> Vec<(String, String)> {
    let start = text
        .find(&format!("class {name}(TypedDict"))
        .unwrap_or_else(|| panic!("no {name} in the stubs"));
    let mut out: Vec<(String, String)> = Vec::new();
    for line in text[start..].lines().skip(1) {
        if !line.starts_with("    ") && !line.trim().is_empty() {
            break;
        }
        let line = line.trim();
        if let Some(doc) = line.strip_prefix("\"\"\"") {
            if let Some(last) = out.last_mut() {
                last.1 = doc.trim_end_matches("\"\"\"").to_string();
            }
        } else if let Some((name, _)) = line.split_once(": ") {
            out.push((name.to_string(), String::new()));
        }
    }
    out
}

/// The default and bounds of an option of the table, as the documentation of a declaration
/// gives them: "1 to 8" and "default 4" for a count, `Default "require"` for a choice,
/// `Default true` for a flag.
fn documents_kind(doc: &str, kind: Kind) -> bool {
    match kind {
        Kind::Count { min, max, default } => documents_count(doc, min, max, default),
        Kind::Choice(names) => doc.contains(&format!("Default \"{}\"", names[0])),
        Kind::Flag(default) => doc.contains(&format!("Default {default}")),
        _ => true,
    }
}

/// Each option of a front end's declarations against the table: the same names, and for each
/// the table's default and bounds.
fn check_declared(front: &str, declared: &[(String, String)], table: &[(String, Kind)]) {
    let names: BTreeSet<&String> = declared.iter().map(|(n, _)| n).collect();
    let want: BTreeSet<&String> = table.iter().map(|(n, _)| n).collect();
    assert_eq!(names, want, "{front}: the options declared are the table's");
    for (name, kind) in table {
        let doc = &declared.iter().find(|(n, _)| n == name).expect("declared").1;
        assert!(
            documents_kind(doc, *kind),
            "{front}: {name} is declared with the table's default and bounds ({kind:?}): {doc}"
        );
    }
}

/// "1 to 8" and "default 4" (or the default's unit form) in a documentation text.
fn documents_count(doc: &str, min: usize, max: usize, default: usize) -> bool {
    let mib = |n: usize| format!("{} MiB", n / (1024 * 1024));
    doc.contains(&format!("{min} to {max}"))
        && (doc.contains(&format!("default {default}")) || doc.contains(&format!("default {}", mib(default))))
}

#[test]
fn the_cli_verify_flags_are_the_tables() {
    let cli = crate::Cli::command();
    let verify = cli.find_subcommand("verify").expect("a verify subcommand");
    let fetch_flags: BTreeSet<String> = FETCHER
        .iter()
        .flat_map(|(_, rows)| rows.iter())
        .map(|s| flag(s.name).trim_start_matches("--").to_string())
        .collect();
    let mut flags = BTreeSet::new();
    for arg in verify.get_arguments() {
        let id = arg.get_id().as_str();
        let Some(long) = arg.get_long() else {
            assert!(
                CLI_ONLY.contains(&id),
                "verify argument {id} is neither in the table nor CLI-only"
            );
            continue;
        };
        let flag = format!("--{long}");
        let spec = option_of(&flag).and_then(|name| option(VERIFY, name));
        if let Some(spec) = spec {
            assert!(
                spec.fronts.cli,
                "verify flag {flag} sets {}, which the table does not offer to the CLI",
                spec.name
            );
        }
        match spec {
            Some(spec) => {
                if let Kind::Count { min, max, default } = spec.kind {
                    let shown: Vec<String> = arg
                        .get_default_values()
                        .iter()
                        .map(|v| v.to_string_lossy().into())
                        .collect();
                    assert_eq!(
                        shown,
                        vec![default.to_string()],
                        "{flag}: the default is the table's"
                    );
                    let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
                    assert!(
                        help.contains(&format!("{min} to {max}")),
                        "{flag}: its help gives the table's bounds: {help}"
                    );
                    let parse = |n: usize| {
                        crate::Cli::try_parse_from([
                            "a2a-card",
                            "verify",
                            "c.json",
                            "--key",
                            "k",
                            &flag,
                            &n.to_string(),
                        ])
                        .is_ok()
                    };
                    assert!(
                        parse(min) && parse(max) && !parse(max + 1) && (min == 0 || !parse(min - 1)),
                        "{flag}: the table's bounds"
                    );
                }
                flags.insert(flag);
            }
            None => assert!(
                CLI_ONLY.contains(&id) || fetch_flags.contains(long),
                "verify flag {flag} is neither in the table nor CLI-only"
            ),
        }
    }
    // Every option the table offers the CLI has its flag: the CLI's own (`FLAGS`), or one made
    // from the row (`TableFlags`).
    for spec in VERIFY.iter().filter(|s| s.fronts.cli) {
        let want = flag(spec.name);
        assert!(
            flags.contains(&want),
            "the table's {} has no flag {want} in verify",
            spec.name
        );
    }
}

#[test]
fn the_cli_option_map_names_real_flags() {
    // Every flag of the map is one of a subcommand's, one option and one flag a line.
    let cli = crate::Cli::command();
    let longs: BTreeSet<String> = cli
        .get_subcommands()
        .flat_map(|c| c.get_arguments())
        .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
        .collect();
    let mut options = BTreeSet::new();
    let mut flags = BTreeSet::new();
    for (option, flag) in FLAGS {
        assert!(longs.contains(*flag), "{option}: no subcommand has {flag}");
        assert!(options.insert(*option), "{option} twice in the map");
        assert!(flags.insert(*flag), "{flag} twice in the map");
    }
    // An option of the table is in the map only if the table offers it to the CLI.
    for spec in VERIFY.iter().filter(|s| !s.fronts.cli) {
        assert!(
            !options.contains(spec.name),
            "{} is mapped to a flag, but the table does not offer it to the CLI",
            spec.name
        );
    }
}

/// Each options block of the declarations and the table it is read by.
const BLOCKS: &[(&str, &[OptionSpec])] = &[
    ("CanonicalizeOptions", CANONICALIZE),
    ("SignOptions", SIGN),
    ("VerifyOptions", VERIFY),
    ("LintOptions", LINT),
    ("MigrateOptions", MIGRATE),
];

#[test]
fn the_python_stubs_are_the_tables() {
    let stubs = std::fs::read_to_string(repo().join("crates/a2a-card-py/python/a2a_card/_native.pyi"))
        .expect("the stubs");
    for (block, rows) in BLOCKS {
        let table: Vec<(String, Kind)> = rows
            .iter()
            .filter(|s| s.fronts.python)
            .map(|s| (s.name.to_string(), s.kind))
            .collect();
        check_declared(block, &python_options(&stubs, block), &table);
    }
    // verify, verify_many and Verifier take them all; canonicalize, canonicalize_with_report
    // and inspect theirs.
    assert_eq!(stubs.matches("**options: Unpack[VerifyOptions]").count(), 3);
    assert_eq!(stubs.matches("**options: Unpack[CanonicalizeOptions]").count(), 3);
    assert_eq!(stubs.matches("**options: Unpack[SignOptions]").count(), 1);
    assert_eq!(stubs.matches("**options: Unpack[LintOptions]").count(), 1);
    assert_eq!(stubs.matches("**options: Unpack[MigrateOptions]").count(), 1);
}

#[test]
fn the_npm_declarations_are_the_tables() {
    let text = npm_declarations();
    for (block, rows) in BLOCKS {
        let members: Vec<(String, String)> = interface(&text, block);
        let table: Vec<(String, Kind)> = rows
            .iter()
            .filter(|s| s.fronts.npm)
            .map(|s| (camel_case(s.name), s.kind))
            .collect();
        check_declared(block, &members, &table);
    }
}

#[test]
fn the_cli_flags_of_the_other_operations_are_the_tables() {
    // Every row a table offers the CLI is a flag of each subcommand that reads that table,
    // with the table's default and bounds.
    let cli = crate::Cli::command();
    let fetcher = FETCHER
        .iter()
        .flat_map(|(names, rows)| names.iter().map(move |n| (*n, *rows)));
    for (name, rows) in [
        ("sign", SIGN),
        ("canonicalize", CANONICALIZE),
        ("inspect", CANONICALIZE),
        ("lint", LINT),
        ("migrate", MIGRATE),
    ]
    .into_iter()
    .chain(fetcher)
    {
        let sub = cli.find_subcommand(name).expect("the subcommand");
        for spec in rows.iter().filter(|s| s.fronts.cli) {
            let long = flag(spec.name);
            let arg = sub
                .get_arguments()
                .find(|a| a.get_long().map(|l| format!("--{l}")) == Some(long.clone()))
                .unwrap_or_else(|| panic!("{name}: the table's {} has no flag {long}", spec.name));
            let shown: Vec<String> = arg
                .get_default_values()
                .iter()
                .map(|v| v.to_string_lossy().into())
                .collect();
            match spec.kind {
                Kind::Count { min, max, default } => {
                    assert_eq!(shown, vec![default.to_string()], "{name} {long}: the default");
                    let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
                    assert!(help.contains(&format!("{min} to {max}")), "{name} {long}: {help}");
                    let parse = |n: usize| {
                        let mut args = vec!["a2a-card", name, "c.json"];
                        if rows == MANY {
                            args.extend(["--urls", "u.txt"]);
                        }
                        crate::Cli::try_parse_from([&args[..], &[&long, &n.to_string()]].concat()).is_ok()
                    };
                    assert!(
                        parse(min) && parse(max) && !parse(max + 1) && (min == 0 || !parse(min - 1)),
                        "{name} {long}: the table's bounds"
                    );
                }
                Kind::Choice(names) => {
                    let values: Vec<String> = arg
                        .get_possible_values()
                        .iter()
                        .map(|v| v.get_name().to_string())
                        .collect();
                    let mut want: Vec<&str> = names.to_vec();
                    let mut got: Vec<&str> = values.iter().map(String::as_str).collect();
                    want.sort_unstable();
                    got.sort_unstable();
                    assert_eq!(got, want, "{name} {long}: the table's names");
                    assert!(
                        shown.is_empty() || shown == vec![names[0].to_string()],
                        "{name} {long}"
                    );
                }
                Kind::Seconds { min, max, default } => {
                    assert_eq!(
                        shown,
                        vec![default.as_secs_f64().to_string()],
                        "{name} {long}: the default"
                    );
                    let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
                    let bounds = format!("{} to {}", min.as_secs_f64(), max.as_secs_f64());
                    assert!(help.contains(&bounds), "{name} {long}: {help}");
                }
                Kind::Names(names) => {
                    let mut got: Vec<String> = arg
                        .get_possible_values()
                        .iter()
                        .map(|v| v.get_name().to_string())
                        .collect();
                    got.sort_unstable();
                    let mut want: Vec<&str> = names.to_vec();
                    want.sort_unstable();
                    assert_eq!(got, want, "{name} {long}: the table's names");
                    assert!(shown.is_empty(), "{name} {long}: no default");
                }
                _ => {}
            }
        }
    }
}

/// The CLI's `sign` arguments that are not options of signing: the card, the key and where it
/// comes from (the keys library's options), linting, and what is written where.
const SIGN_CLI_ONLY: &[&str] = &[
    "card",
    "key",
    "pkcs11-module",
    "key-timeout",
    "lint",
    "out",
    "in-place",
    "force",
    "format",
    "help",
];

#[test]
fn the_cli_sign_flags_are_the_tables() {
    // Every flag of sign sets a row of the table, or is the CLI's own.
    let cli = crate::Cli::command();
    let sign = cli.find_subcommand("sign").expect("a sign subcommand");
    for arg in sign.get_arguments() {
        let id = arg.get_id().as_str();
        let long = arg.get_long().unwrap_or(id);
        let row = SIGN.iter().find(|s| flag(s.name) == format!("--{long}"));
        assert!(
            row.is_some() || SIGN_CLI_ONLY.contains(&long),
            "sign flag --{long} is neither in the table nor the CLI's own"
        );
    }
}

#[test]
fn a_declaration_that_disagrees_with_the_table_fails() {
    let chain = option(VERIFY, "max_chain").expect("max_chain").kind;
    let mode = option(VERIFY, "mode").expect("mode").kind;
    let table = vec![("max_chain".to_string(), chain), ("mode".to_string(), mode)];
    let stub = |chain: &str, mode: &str| {
        format!("class VerifyOptions(TypedDict, total=False):\n    max_chain: Optional[int]\n    \"\"\"{chain}\"\"\"\n\n    mode: Optional[str]\n    \"\"\"{mode}\"\"\"\n# END\n")
    };
    let run = |text: String| {
        std::panic::catch_unwind(|| check_declared("test", &python_options(&text, "VerifyOptions"), &table))
            .is_ok()
    };
    assert!(run(stub("1 to 8, default 4.", "Default \"require\".")));
    assert!(!run(stub("1 to 9, default 4.", "Default \"require\".")), "bounds");
    assert!(
        !run(stub("1 to 8, default 5.", "Default \"require\".")),
        "a count's default"
    );
    assert!(
        !run(stub("1 to 8, default 4.", "Default \"all\".")),
        "a choice's default"
    );
    assert!(
        !run(format!(
            "{}    origin: Optional[str]\n",
            stub("1 to 8, default 4.", "Default \"require\".").replace("# END\n", "")
        )),
        "a name the table lacks"
    );
}

#[test]
fn the_cli_fetch_flags_are_the_fetchers_tables() {
    // Every flag of fetch sets a row of the fetcher's table, or is the subcommand's own.
    let cli = crate::Cli::command();
    let fetch = cli.find_subcommand("fetch").expect("a fetch subcommand");
    for arg in fetch.get_arguments() {
        let long = arg.get_long().unwrap_or(arg.get_id().as_str());
        let row = FETCH.iter().find(|s| flag(s.name) == format!("--{long}"));
        assert!(
            row.is_some() || ["url", "out", "force", "help"].contains(&long),
            "fetch flag --{long} is neither in the table nor the CLI's own"
        );
    }
}
