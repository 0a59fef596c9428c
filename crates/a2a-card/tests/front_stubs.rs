//! The verify options of the packages' type declarations are written from the core's table
//! (`request::VERIFY`), not by hand: the Python stubs' `VerifyOptions` (`_native.pyi`, the
//! keywords of `verify`, `verify_many` and `Verifier`) and the npm declarations' `VerifyOptions`
//! (`js/types.d.ts`), each option in its package's spelling with its type, documentation,
//! default and bounds. This test writes both blocks again from the table and fails when the
//! files differ; `A2A_CARD_REWRITE_STUBS=1` rewrites them instead (after a row of the table is
//! added or changed):
//!
//! ```text
//! A2A_CARD_REWRITE_STUBS=1 cargo test -p a2a-card --test front_stubs
//! ```

#![allow(clippy::unwrap_used, clippy::panic)] // a panic is how a test fails

use a2a_card::request::{camel_case, Kind, OptionSpec, VERIFY};
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
        Kind::Text => "str".into(),
        Kind::Choice(names) => {
            let names: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
            format!("Literal[{}]", names.join(", "))
        }
        Kind::List => match spec.name {
            "algorithms" => "Sequence[Algorithm]".into(),
            "profiles" => "Sequence[AcceptedProfile]".into(),
            _ => "Sequence[str]".into(),
        },
        Kind::Time => "Time".into(),
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
        Kind::Text => "string".into(),
        Kind::Choice(names) => {
            let names: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
            names.join(" | ")
        }
        Kind::List => match spec.name {
            "algorithms" => "Algorithm[]".into(),
            "profiles" => "(Profile | \"auto\")[]".into(),
            _ => "string[]".into(),
        },
        Kind::Time | Kind::Count { .. } => "number".into(),
        Kind::Flag(_) => "boolean".into(),
    }
}

const PY_BEGIN: &str = "# BEGIN VerifyOptions";
const PY_END: &str = "# END VerifyOptions";
const TS_BEGIN: &str = "// BEGIN VerifyOptions";
const TS_END: &str = "// END VerifyOptions";

fn python_block() -> String {
    let mut out = format!(
        "{PY_BEGIN}: written from a2a_card::request::VERIFY by crates/a2a-card/tests/front_stubs.rs\n\
         class VerifyOptions(TypedDict, total=False):\n    \
         \"\"\"The keyword options of verify, verify_many and Verifier (None: not given).\"\"\"\n"
    );
    for spec in VERIFY.iter().filter(|s| s.fronts.python) {
        out.push_str(&format!(
            "\n    {}: Optional[{}]\n    \"\"\"{}\"\"\"\n",
            spec.name,
            python_type(spec),
            doc(spec)
        ));
    }
    out.push_str(PY_END);
    out
}

fn typescript_block() -> String {
    let mut out = format!(
        "{TS_BEGIN}: written from a2a_card::request::VERIFY by crates/a2a-card/tests/front_stubs.rs\n\
         /** The options of `verify`, `verifyAsync` and `Verifier`. */\n\
         export interface VerifyOptions extends ReadOptions {{\n"
    );
    for spec in VERIFY.iter().filter(|s| s.fronts.npm) {
        out.push_str(&format!(
            "  /** {} */\n  {}?: {};\n",
            doc(spec),
            camel_case(spec.name),
            typescript_type(spec)
        ));
    }
    out.push_str("}\n");
    out.push_str(TS_END);
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
        "{path}: its VerifyOptions are not the table's; run {REWRITE}=1 cargo test -p a2a-card --test front_stubs\n\
         --- want ---\n{block}"
    );
}

#[test]
fn the_python_stubs_verify_options_are_written_from_the_table() {
    check(
        "crates/a2a-card-py/python/a2a_card/_native.pyi",
        PY_BEGIN,
        PY_END,
        &python_block(),
    );
}

#[test]
fn the_npm_verify_options_are_written_from_the_table() {
    check(
        "crates/a2a-card-wasm/js/types.d.ts",
        TS_BEGIN,
        TS_END,
        &typescript_block(),
    );
}

#[test]
fn a_block_is_replaced_between_its_markers() {
    let text = "a\n# BEGIN VerifyOptions: old\nx\n# END VerifyOptions\nb\n";
    assert_eq!(
        with_block(
            text,
            PY_BEGIN,
            PY_END,
            "# BEGIN VerifyOptions\ny\n# END VerifyOptions"
        ),
        "a\n# BEGIN VerifyOptions\ny\n# END VerifyOptions\nb\n"
    );
    // Every option the packages offer has a type and a documented default or bounds.
    for spec in VERIFY {
        assert!(!typescript_type(spec).is_empty() && !python_type(spec).is_empty());
        if let Kind::Count { min, max, default } = spec.kind {
            assert!(doc(spec).ends_with(&format!("{min} to {max}, default {default}.")));
        }
    }
}
