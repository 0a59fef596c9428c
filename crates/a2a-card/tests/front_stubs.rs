//! The options of the packages' type declarations are written from the core's tables
//! (`request::CANONICALIZE`, `SIGN`, `VERIFY`, `LINT`, `MIGRATE`), not by hand: the Python
//! stubs' `TypedDict`s (`_native.pyi`: `CanonicalizeOptions`, the keywords of `canonicalize`,
//! `canonicalize_with_report` and `inspect`; `SignOptions`, of `sign`; `VerifyOptions`, of
//! `verify`, `verify_many` and `Verifier`; `LintOptions`; `MigrateOptions`) and the npm declarations' interfaces of the same
//! names (`js/types.d.ts`), each option in its package's spelling with its type, documentation,
//! default and bounds. This test writes the blocks again from the tables and fails when the
//! files differ; `A2A_CARD_REWRITE_STUBS=1` rewrites them instead (after a row of a table is
//! added or changed):
//!
//! ```text
//! A2A_CARD_REWRITE_STUBS=1 cargo test -p a2a-card --test front_stubs
//! ```

#![allow(clippy::unwrap_used, clippy::panic)] // a panic is how a test fails

use a2a_card::request::{camel_case, Kind, OptionSpec, CANONICALIZE, LINT, MIGRATE, SIGN, VERIFY};
use std::path::PathBuf;

const REWRITE: &str = "A2A_CARD_REWRITE_STUBS";

fn repo_file(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").join(path)
}

/// What the documentation adds to an option's own sentence: its bounds and default.
fn doc(spec: &OptionSpec) -> String {
    let extra = match spec.kind {
        Kind::Count { min, max, default } => format!(" {min} to {max}, default {default}."),
        Kind::Choice(names) => format!(" Default \"{}\".", names[0]),
        Kind::Flag(default) => format!(" Default {default}."),
        _ => String::new(),
    };
    format!("{}{extra}", spec.doc)
}

/// The Python type of an option, by its kind (a list of names the stubs have an alias for by
/// that alias).
fn python_type(spec: &OptionSpec) -> String {
    match spec.kind {
        Kind::Keys { list: true } => "Union[Key, Sequence[Key]]".into(),
        Kind::Keys { list: false } => "KeySet".into(),
        Kind::Pem | Kind::Texts => "Union[str, Sequence[str]]".into(),
        Kind::Text if spec.name == "alg" => "Algorithm".into(),
        Kind::Text => "str".into(),
        Kind::Choice(names) | Kind::Names(names) => {
            let names: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
            format!("Literal[{}]", names.join(", "))
        }
        Kind::List => match spec.name {
            "algorithms" => "Sequence[Algorithm]".into(),
            "profiles" => "Sequence[AcceptedProfile]".into(),
            "also_profiles" => "Sequence[Profile]".into(),
            _ => "Sequence[str]".into(),
        },
        Kind::Members => "Mapping[str, Any]".into(),
        Kind::Time => "Time".into(),
        Kind::Seconds { .. } => "float".into(),
        Kind::Path => "str".into(),
        Kind::Count { .. } => "int".into(),
        Kind::Flag(_) => "bool".into(),
    }
}

/// The TypeScript type of an option, by its kind.
fn typescript_type(spec: &OptionSpec) -> String {
    match spec.kind {
        Kind::Keys { list: true } => "Key | Key[]".into(),
        Kind::Keys { list: false } => "string | object".into(),
        Kind::Pem | Kind::Texts => "string | string[]".into(),
        Kind::Text if spec.name == "alg" => "Algorithm".into(),
        Kind::Text => "string".into(),
        Kind::Choice(names) | Kind::Names(names) => {
            let names: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
            names.join(" | ")
        }
        Kind::List => match spec.name {
            "algorithms" => "Algorithm[]".into(),
            "profiles" => "(Profile | \"auto\")[]".into(),
            "also_profiles" => "Profile[]".into(),
            _ => "string[]".into(),
        },
        Kind::Members => "Record<string, unknown>".into(),
        Kind::Time | Kind::Count { .. } | Kind::Seconds { .. } => "number".into(),
        Kind::Path => "string".into(),
        Kind::Flag(_) => "boolean".into(),
    }
}

/// An options block of the declarations: its name (the `TypedDict` and the interface), the
/// table, and the one line that says whose options they are, for Python and for npm.
struct Block {
    name: &'static str,
    table: &'static [OptionSpec],
    python: &'static str,
    npm: &'static str,
}

const BLOCKS: &[Block] = &[
    Block {
        name: "CanonicalizeOptions",
        table: CANONICALIZE,
        python:
            "The keyword options of canonicalize, canonicalize_with_report and inspect (None: not given).",
        npm: "The options of `canonicalize`, `canonicalizeWithReport` and `inspect`.",
    },
    Block {
        name: "SignOptions",
        table: SIGN,
        python: "The keyword options of sign (None: not given).",
        npm: "The options of `sign`.",
    },
    Block {
        name: "VerifyOptions",
        table: VERIFY,
        python: "The keyword options of verify, verify_many and Verifier (None: not given).",
        npm: "The options of `verify`, `verifyAsync` and `Verifier`.",
    },
    Block {
        name: "LintOptions",
        table: LINT,
        python: "The keyword options of lint (None: not given).",
        npm: "The options of `lint`.",
    },
    Block {
        name: "MigrateOptions",
        table: MIGRATE,
        python: "The keyword options of migrate (None: not given).",
        npm: "The options of `migrate`.",
    },
];

/// The table a block is written from, as its first line names it.
fn source(block: &Block) -> String {
    let table = match block.name {
        "CanonicalizeOptions" => "CANONICALIZE",
        "SignOptions" => "SIGN",
        "VerifyOptions" => "VERIFY",
        "LintOptions" => "LINT",
        _ => "MIGRATE",
    };
    format!("written from a2a_card::request::{table} by crates/a2a-card/tests/front_stubs.rs")
}

fn python_block(block: &Block) -> String {
    let name = block.name;
    let mut out = format!(
        "# BEGIN {name}: {}\nclass {name}(TypedDict, total=False):\n    \"\"\"{}\"\"\"\n",
        source(block),
        block.python
    );
    for spec in block.table.iter().filter(|s| s.fronts.python) {
        out.push_str(&format!(
            "\n    {}: Optional[{}]\n    \"\"\"{}\"\"\"\n",
            spec.name,
            python_type(spec),
            doc(spec)
        ));
    }
    out.push_str(&format!("# END {name}"));
    out
}

fn typescript_block(block: &Block) -> String {
    let name = block.name;
    let mut out = format!(
        "// BEGIN {name}: {}\n/** {} */\nexport interface {name} extends ReadOptions {{\n",
        source(block),
        block.npm
    );
    for spec in block.table.iter().filter(|s| s.fronts.npm) {
        out.push_str(&format!(
            "  /** {} */\n  {}?: {};\n",
            doc(spec),
            camel_case(spec.name),
            typescript_type(spec)
        ));
    }
    out.push_str("}\n");
    out.push_str(&format!("// END {name}"));
    out
}

/// The file with the block between its markers replaced by `block` (which holds them).
fn with_block(text: &str, begin: &str, end: &str, block: &str) -> String {
    let start = text
        .find(begin)
        .unwrap_or_else(|| panic!("no {begin} in the file"));
    let stop = text[start..]
        .find(end)
        .unwrap_or_else(|| panic!("no {end} in the file"))
        + start
        + end.len();
    format!("{}{block}{}", &text[..start], &text[stop..])
}

fn check(path: &str, begin: &str, end: &str, block: &str) {
    let file = repo_file(path);
    let text = std::fs::read_to_string(&file).expect("the declarations");
    let want = with_block(&text, begin, end, block);
    if std::env::var_os(REWRITE).is_some() {
        if want != text {
            std::fs::write(&file, want).expect("rewritten");
        }
        return;
    }
    assert!(
        want == text,
        "{path}: its {begin} block is not the table's; run {REWRITE}=1 cargo test -p a2a-card --test front_stubs\n\
         --- want ---\n{block}"
    );
}

#[test]
fn the_python_stubs_options_are_written_from_the_tables() {
    for block in BLOCKS {
        let (begin, end) = (format!("# BEGIN {}", block.name), format!("# END {}", block.name));
        check(
            "crates/a2a-card-py/python/a2a_card/_native.pyi",
            &begin,
            &end,
            &python_block(block),
        );
    }
}

#[test]
fn the_npm_options_are_written_from_the_tables() {
    for block in BLOCKS {
        let (begin, end) = (
            format!("// BEGIN {}", block.name),
            format!("// END {}", block.name),
        );
        check(
            "crates/a2a-card-wasm/js/types.d.ts",
            &begin,
            &end,
            &typescript_block(block),
        );
    }
}

#[test]
fn a_block_is_replaced_between_its_markers() {
    let text = "a\n# BEGIN VerifyOptions: old\nx\n# END VerifyOptions\nb\n";
    assert_eq!(
        with_block(
            text,
            "# BEGIN VerifyOptions",
            "# END VerifyOptions",
            "# BEGIN VerifyOptions\ny\n# END VerifyOptions"
        ),
        "a\n# BEGIN VerifyOptions\ny\n# END VerifyOptions\nb\n"
    );
    // Every option the packages offer has a type and a documented default or bounds.
    for spec in BLOCKS.iter().flat_map(|b| b.table) {
        assert!(!typescript_type(spec).is_empty() && !python_type(spec).is_empty());
        if let Kind::Count { min, max, default } = spec.kind {
            assert!(doc(spec).ends_with(&format!("{min} to {max}, default {default}.")));
        }
    }
}
