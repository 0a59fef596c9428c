//! The documentation's command-line examples, run as written: every ```console block of
//! README.md, then of each guide in `docs/` (by file name), then of each crate's README (the
//! packages' pages on crates.io, PyPI and npm), with the `a2a-card` under test first on PATH. Each file runs in a fresh scratch directory, its blocks in order: later blocks of a
//! file use the files its earlier blocks made (each guide says where its files come from), and
//! no file depends on another's.
//!
//! In a console block a line `$ COMMAND` is a command (`> ` continues it on the next line, as a
//! shell shows it) and the lines after it, up to the next command, are what it prints, stdout
//! and stderr as a terminal shows them. In an output line `…` stands for any text; a line that
//! is only `…` stands for any number of lines. A command must exit 0 unless the next command
//! is `echo $?`, which then prints its status. `cargo run -q -p a2a-card-cli --` (the way to run
//! the tool from a checkout) runs the binary under test.
//!
//! Each scratch directory holds `testvectors/` (a link to the repository's), as the repository
//! root does, so `cp testvectors/cards/...` works as it does there. Examples that need the
//! network (`fetch https://agent.example.com`) stay in ```text blocks and are not run here; the
//! same behaviour is tested against a loopback server in remote.rs. The ```console https blocks
//! of docs/remote-agents.md's local HTTPS section need a server: local_https.rs runs them, with
//! this file's reader and runner (`common/doc_blocks.rs`).
//!
//! The file also checks what the guides show but do not run: the trust-store file of
//! docs/remote-agents.md is read by `verify --trust`, and every relative link and `#anchor` of
//! the README, the guides and the crates' READMEs leads somewhere.

#![allow(clippy::unwrap_used, clippy::panic)] // a panic is how a test fails

mod common;

use common::doc_blocks::*;
use common::*;
use std::path::{Path, PathBuf};

/// README.md, then every guide of `docs/` by name, then every crate's README by crate name:
/// the Markdown files whose examples run.
fn documents() -> Vec<(String, PathBuf)> {
    let mut guides: Vec<PathBuf> = std::fs::read_dir(repo_root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    guides.sort();
    let mut readmes: Vec<PathBuf> = std::fs::read_dir(repo_root().join("crates"))
        .unwrap()
        .map(|e| e.unwrap().path().join("README.md"))
        .filter(|p| p.is_file())
        .collect();
    readmes.sort();
    let mut docs = vec![("README.md".to_string(), repo_root().join("README.md"))];
    docs.extend(guides.into_iter().chain(readmes).map(|p| {
        let name = p.strip_prefix(repo_root()).unwrap().display().to_string();
        (name, p)
    }));
    docs
}

/// Runs the console blocks of one file in a fresh scratch directory; the number of commands.
fn run_file(name: &str, path: &Path) -> usize {
    let text = std::fs::read_to_string(path).unwrap();
    let blocks = console_blocks(name, &text);
    let dir = scratch(&format!("docs-{}", name.replace(['/', '.'], "-")));
    std::os::unix::fs::symlink(repo_root().join("testvectors"), dir.join("testvectors")).unwrap();
    let mut status = 0;
    blocks
        .iter()
        .map(|block| run_steps(name, &dir, block, &mut status))
        .sum()
}

#[test]
fn every_console_example_of_the_readme_and_the_guides_runs_as_written() {
    // The pages whose examples must be there, with the fewest commands each must run: the
    // README's quick start, the command-line reference, the pipeline guide's key references,
    // the remote guide's certificates and address guard, and the error line.
    let minimum = [
        ("README.md", 4),
        ("docs/cli.md", 25),
        ("docs/release-pipeline.md", 6),
        ("docs/remote-agents.md", 5),
        ("docs/errors.md", 2),
        ("crates/a2a-card-cli/README.md", 3),
    ];
    let docs = documents();
    let mut total = 0;
    for (name, path) in &docs {
        let ran = run_file(name, path);
        if let Some((_, least)) = minimum.iter().find(|(n, _)| n == name) {
            assert!(
                ran >= *least,
                "only {ran} commands of {name} ran (at least {least})"
            );
        }
        total += ran;
    }
    for (name, _) in minimum {
        assert!(docs.iter().any(|(n, _)| n == name), "{name} is missing");
    }
    assert!(total >= 45, "only {total} documented commands ran");
}

/// The ```json block under `## The trust-store file` of docs/remote-agents.md is a trust store
/// `verify --trust` reads: a card signed by none of its keys is untrusted (exit 1), not a
/// refused trust store (exit 3).
#[test]
fn the_trust_store_file_shown_is_one_the_tool_reads() {
    let text = std::fs::read_to_string(repo_root().join("docs/remote-agents.md")).unwrap();
    let section = &text[text
        .find("\n## The trust-store file\n")
        .expect("docs/remote-agents.md has no trust-store section")..];
    let body = section
        .split_once("\n```json\n")
        .and_then(|(_, rest)| rest.split_once("\n```\n"))
        .expect("no json block in the trust-store section")
        .0;
    let dir = scratch("docs-trust-store");
    write(&dir, "trust.json", body);
    let card = repo_root().join("testvectors/cards/sample-8.5.json");
    let out = run_in(
        Some(&dir),
        &["verify", card.to_str().unwrap(), "--trust", "trust.json"],
        None,
        &[],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("untrusted-key"), "{stdout}");
    assert!(stdout.contains("\"release-2026\", \"release-2025\""), "{stdout}");
}

/// GitHub's anchor of a heading: lower case, punctuation but `-` and `_` dropped, spaces as `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown text's headings (outside code blocks).
fn anchors(text: &str) -> Vec<String> {
    let mut fence = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            fence = !fence;
        } else if !fence && line.starts_with('#') {
            if let Some((hashes, heading)) = line.split_once(' ') {
                if hashes.chars().all(|c| c == '#') {
                    out.push(slug(heading));
                }
            }
        }
    }
    out
}

/// The targets of the inline links `[text](target)` of a Markdown text, outside code, with
/// the line each is on.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut fence = false;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.starts_with("```") {
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        // Code spans hold no links.
        let plain: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        let mut rest = plain.as_str();
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let Some(end) = after.find(')') else { break };
            out.push((n + 1, after[..end].to_string()));
            rest = &after[end..];
        }
    }
    out
}

#[test]
fn every_relative_link_and_anchor_of_the_docs_leads_somewhere() {
    let mut files: Vec<PathBuf> = documents().into_iter().map(|(_, p)| p).collect();
    assert!(
        files.len() >= 15,
        "the README, the guides and the crates' READMEs: {files:?}"
    );
    for extra in [
        "ARCHITECTURE.md",
        "SECURITY.md",
        "BENCHMARKS.md",
        "testvectors/README.md",
    ] {
        files.push(repo_root().join(extra));
    }
    let mut checked = 0;
    let mut broken = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let shown = file.strip_prefix(repo_root()).unwrap().display().to_string();
        for (line, target) in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            // A crate's README is its package's page on a registry, read without the
            // repository: it names the guides rather than linking to them.
            if shown.starts_with("crates/") && !target.starts_with('#') {
                broken.push(format!(
                    "{shown}:{line}: {target}: a relative link on a package page"
                ));
                continue;
            }
            let (path, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let dest = if path.is_empty() {
                file.clone()
            } else {
                file.parent().unwrap().join(path)
            };
            if !dest.exists() {
                broken.push(format!("{shown}:{line}: {target}: no such file"));
                continue;
            }
            if !anchor.is_empty() {
                let dest_text = std::fs::read_to_string(&dest).unwrap_or_default();
                if !anchors(&dest_text).iter().any(|a| a == anchor) {
                    broken.push(format!("{shown}:{line}: {target}: no heading has this anchor"));
                    continue;
                }
            }
            checked += 1;
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    assert!(checked >= 40, "only {checked} links checked");
}

#[test]
fn the_link_checker_can_fail() {
    assert_eq!(
        slug("`a2a-card verify URL --trust FILE`"),
        "a2a-card-verify-url---trust-file"
    );
    assert_eq!(slug("Key references (`--key REF`)"), "key-references---key-ref");
    assert_eq!(anchors("# A b\n```\n# not\n```\n## C: d\n"), ["a-b", "c-d"]);
    assert_eq!(
        links("[a](x.md#y) `[b](no)`\n```\n[c](no)\n```\n[d](#e)"),
        [(1, "x.md#y".to_string()), (5, "#e".to_string())]
    );
}

#[test]
fn the_matcher_can_fail() {
    assert!(line_matches("kid: …", "kid: \"x\""));
    assert!(!line_matches("kid: …", "alg: ES256"));
    assert!(line_matches("a … c … e", "a b c d e"));
    assert!(!line_matches("a … c", "a b d"));
    let lines = ["one", "two", "three"];
    assert!(lines_match(&["one".into(), "…".into()], &lines));
    assert!(!lines_match(&["one".into()], &lines));
    assert!(!lines_match(&["…".into(), "four".into()], &lines));
    let blocks = console_blocks(
        "x.md",
        "x\n```console\n$ a\nout\n$ b \\\n> c\n```\n```text\n$ no\n```\n",
    );
    assert_eq!(blocks.len(), 1);
    assert_eq!(blocks[0].len(), 2);
    assert_eq!(blocks[0][1].command, "b \\\nc");
}

/// The code spans of a Markdown text outside fenced blocks, with the line each starts on; a
/// span may wrap, so its runs of white space are collapsed to one space.
fn code_spans(text: &str) -> Vec<(usize, String)> {
    let mut fence = false;
    let mut body = String::new();
    for line in text.lines() {
        if line.starts_with("```") {
            fence = !fence;
        } else if !fence {
            body.push_str(line);
        }
        body.push('\n');
    }
    let mut out = Vec::new();
    let mut rest = body.as_str();
    let mut line = 1;
    while let Some(open) = rest.find('`') {
        line += rest[..open].matches('\n').count();
        let after = &rest[open + 1..];
        let Some(close) = after.find('`') else { break };
        let span = after[..close].split_whitespace().collect::<Vec<_>>().join(" ");
        out.push((line, span));
        line += after[..close].matches('\n').count();
        rest = &after[close + 1..];
    }
    out
}

/// The workspace's source files (`crates/`, `fuzz/`: Rust, Python, JavaScript), relative to
/// the repository root, with `/` separators.
fn source_files() -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy();
            if path.is_dir() {
                if !matches!(name.as_ref(), "target" | "node_modules" | "pkg" | "__pycache__") {
                    walk(&path, out);
                }
            } else if [".rs", ".py", ".mjs"].iter().any(|x| name.ends_with(x)) {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(&repo_root().join("crates"), &mut files);
    walk(&repo_root().join("fuzz"), &mut files);
    let root = repo_root();
    files
        .iter()
        .map(|p| p.strip_prefix(&root).unwrap().to_string_lossy().into_owned())
        .collect()
}

fn is_ident(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Does the JavaScript line hold the test name `reference`? In a reference, `{a,b}` and a word
/// `x|y` stand for any text (the name is a template), as `${...}` does in the line.
fn mjs_name_matches(reference: &str, line: &str) -> bool {
    let mut pattern = String::new();
    let mut brace = false;
    for c in reference.trim_matches('"').chars() {
        match c {
            '{' => brace = true,
            '}' => {
                brace = false;
                pattern.push('\u{1}');
            }
            _ if brace => {}
            _ => pattern.push(c),
        }
    }
    let pattern = pattern
        .split(' ')
        .map(|w| if w.contains('|') { "\u{1}" } else { w })
        .collect::<Vec<_>>()
        .join(" ");
    let line = line.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut rest = line.as_str();
    pattern
        .split('\u{1}')
        .filter(|p| !p.is_empty())
        .all(|part| match rest.find(part) {
            Some(i) => {
                rest = &rest[i + part.len()..];
                true
            }
            None => false,
        })
}

/// Does the file `rel` (or, for `tests/x.rs`, a module under `tests/x/`) hold the test `name`?
fn holds_test(rel: &str, name: &str) -> bool {
    let path = repo_root().join(rel);
    let mut texts = vec![std::fs::read_to_string(&path).unwrap()];
    if let Some(dir) = rel.strip_suffix(".rs").map(|d| repo_root().join(d)) {
        if dir.is_dir() {
            for entry in std::fs::read_dir(dir).unwrap() {
                texts.push(std::fs::read_to_string(entry.unwrap().path()).unwrap_or_default());
            }
        }
    }
    texts.iter().any(|text| {
        if rel.ends_with(".rs") {
            let last = name.rsplit("::").next().unwrap();
            if last == "tests" {
                return text.contains("mod tests");
            }
            text.contains(&format!("fn {last}(")) || text.contains(&format!("fn {last}<"))
        } else if rel.ends_with(".py") {
            text.contains(&format!("def {name}("))
        } else {
            text.lines().any(|l| mjs_name_matches(name, l))
        }
    })
}

/// SECURITY.md names the test that fails if a defence is removed: `FILE::TEST`, where FILE is a
/// path or a file name (`limits.rs`), a span `::TEST` names another test of the file named last,
/// and `MODULE::tests::TEST` a unit test. Each must be a test of that file.
#[test]
fn every_test_security_md_names_exists() {
    let text = std::fs::read_to_string(repo_root().join("SECURITY.md")).unwrap();
    let files = source_files();
    let mut last: Option<String> = None;
    let mut checked = 0;
    let mut broken = Vec::new();
    for (line, span) in code_spans(&text) {
        let (file, name) = if let Some((file, name)) = span
            .split_once("::")
            .filter(|(f, _)| [".rs", ".py", ".mjs"].iter().any(|x| f.ends_with(x)))
        {
            last = Some(file.to_string());
            (file.to_string(), name.to_string())
        } else if let (Some(name), Some(file)) = (span.strip_prefix("::"), &last) {
            if !is_ident(name) {
                continue;
            }
            (file.clone(), name.to_string())
        } else if let Some((_, name)) = span.split_once("::tests::") {
            let lower = span.starts_with(|c: char| c.is_ascii_lowercase());
            if !lower || !span.split("::").all(is_ident) {
                continue; // `MODULE::tests::TEST`, the form itself
            }
            let found = files
                .iter()
                .filter(|f| f.ends_with(".rs"))
                .any(|f| holds_test(f, name));
            if !found {
                broken.push(format!("SECURITY.md:{line}: {span}: no such test"));
            }
            checked += 1;
            continue;
        } else {
            continue;
        };
        if name.is_empty() {
            continue; // a table's heading: `limits.rs::`
        }
        let candidates: Vec<&String> = files
            .iter()
            .filter(|f| {
                if file.contains('/') {
                    **f == file || f.ends_with(&format!("/{file}"))
                } else {
                    f.rsplit('/').next() == Some(file.as_str())
                }
            })
            .collect();
        if candidates.is_empty() {
            broken.push(format!("SECURITY.md:{line}: {span}: no file {file}"));
        } else if !candidates.iter().any(|f| holds_test(f, &name)) {
            broken.push(format!(
                "SECURITY.md:{line}: {span}: no test {name} in {candidates:?}"
            ));
        }
        checked += 1;
    }
    assert!(
        broken.is_empty(),
        "tests SECURITY.md names that do not exist:\n{}",
        broken.join("\n")
    );
    assert!(checked >= 150, "only {checked} test references checked");
}

/// The pages a reader follows: the README, the guides, the crates' READMEs, the map, the threat
/// model, the figures and the release notes.
fn pages() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = documents().into_iter().map(|(_, p)| p).collect();
    for extra in ["ARCHITECTURE.md", "SECURITY.md", "BENCHMARKS.md", "CHANGELOG.md"] {
        files.push(repo_root().join(extra));
    }
    files
}

/// The module paths of the workspace's crates from each crate's root (`canonical::reader`,
/// `cmd::batch::tests`): the files under `src/` and the `mod` items they declare.
fn module_paths(files: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for f in files.iter().filter(|f| f.ends_with(".rs")) {
        let Some((_, rel)) = f.split_once("/src/") else {
            continue;
        };
        let mut segments: Vec<&str> = rel.trim_end_matches(".rs").split('/').collect();
        if matches!(segments.last(), Some(&("mod" | "lib" | "main"))) {
            segments.pop();
        }
        let here = segments.join("::");
        let text = std::fs::read_to_string(repo_root().join(f)).unwrap();
        for line in text.lines() {
            let line = line.trim_start();
            let Some(i) = line.find("mod ") else { continue };
            let before = line[..i].trim_end();
            if !(before.is_empty() || before.starts_with("pub")) || before.contains("//") {
                continue;
            }
            let name: String = line[i + 4..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.push(if here.is_empty() {
                    name
                } else {
                    format!("{here}::{name}")
                });
            }
        }
        out.push(here);
    }
    out
}

/// The runs of lower-case path segments of a code span (`a2a_card::jose::keys::Jwk` gives
/// `["a2a_card", "jose", "keys"]`), leaving out those that follow a file name (`x.rs::`), a
/// dashed crate name or a path, and IPv6 addresses (`fe80::/10`).
fn module_chains(span: &str) -> Vec<Vec<&str>> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut chains = Vec::new();
    let mut at = 0;
    while at < span.len() {
        let rest = &span[at..];
        let len = rest.find(|c: char| !ident(c)).unwrap_or(rest.len());
        let starts = len > 0
            && rest[len..].starts_with("::")
            && rest.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
            && !span[..at].ends_with(|c: char| ident(c) || ".-/:".contains(c))
            && !rest[..len].chars().all(|c| c.is_ascii_hexdigit());
        if !starts {
            at += rest.chars().next().map_or(1, char::len_utf8);
            continue;
        }
        let mut chain = Vec::new();
        let mut pos = at;
        loop {
            let rest = &span[pos..];
            let len = rest.find(|c: char| !ident(c)).unwrap_or(rest.len());
            let lower = rest.starts_with(|c: char| c.is_ascii_lowercase() || c == '_');
            if len == 0 || !lower || !rest[len..].starts_with("::") {
                break;
            }
            chain.push(&rest[..len]);
            pos += len + 2;
        }
        chains.push(chain);
        at = pos;
    }
    chains
}

/// Every module path a page names in a code span (`canonical::reader`, `a2a_card::jose::keys`)
/// is one of the workspace's, from a crate's root or below (`keys::jwk` for `jose::keys::jwk`),
/// or starts with a crate of Cargo.lock; and every path of the repository it names
/// (`crates/a2a-card/src/lib.rs`, `scripts/test.sh`) exists, but for the places the build and
/// the tools make (.gitignore, the npm package's `pkg/`).
#[test]
fn every_module_and_repository_path_the_pages_name_exists() {
    let files = source_files();
    let modules = module_paths(&files);
    let ours = [
        "a2a_card",
        "a2a_card_fetch",
        "a2a_card_keys",
        "a2a_card_testkit",
        "crate",
    ];
    let mut external: Vec<String> = ["std", "core", "alloc", "self", "super"]
        .map(String::from)
        .to_vec();
    let lock = std::fs::read_to_string(repo_root().join("Cargo.lock")).unwrap();
    for line in lock.lines() {
        if let Some(name) = line.strip_prefix("name = \"").and_then(|l| l.strip_suffix('"')) {
            let name = name.replace('-', "_");
            if !ours.contains(&name.as_str()) {
                external.push(name);
            }
        }
    }
    let gitignore = std::fs::read_to_string(repo_root().join(".gitignore")).unwrap();
    let made: Vec<&str> = gitignore.lines().filter_map(|l| l.strip_prefix('/')).collect();
    let mut checked = 0;
    let mut broken = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let shown = page.strip_prefix(repo_root()).unwrap().display().to_string();
        for (line, span) in code_spans(&text) {
            for chain in module_chains(&span) {
                let chain = match chain.split_first() {
                    Some((first, rest)) if ours.contains(first) => rest,
                    _ => &chain[..],
                };
                let Some(first) = chain.first() else { continue };
                let path = chain.join("::");
                let known = external.iter().any(|e| e == first)
                    || modules
                        .iter()
                        .any(|m| *m == path || m.ends_with(&format!("::{path}")));
                if !known {
                    broken.push(format!("{shown}:{line}: `{span}`: no module {path}"));
                }
                checked += 1;
            }
            // Repository paths.
            for word in span.split(|c: char| !(c.is_ascii_alphanumeric() || "_./-*".contains(c))) {
                let roots = ["crates/", "scripts/", "fuzz/", "testvectors/", "docs/", ".ci/"];
                if !roots.iter().any(|r| word.starts_with(r)) || word.contains('*') {
                    continue;
                }
                let path = word.trim_end_matches(['.', '/']);
                if made.iter().any(|m| path.starts_with(m))
                    || path.contains("/pkg")
                    || path.contains("node_modules")
                {
                    continue;
                }
                if !repo_root().join(path).exists() {
                    broken.push(format!("{shown}:{line}: `{span}`: no file or folder {path}"));
                }
                checked += 1;
            }
        }
    }
    assert!(
        broken.is_empty(),
        "the pages name what does not exist:\n{}",
        broken.join("\n")
    );
    assert!(checked >= 200, "only {checked} names checked");
}

#[test]
fn the_name_checkers_can_fail() {
    assert_eq!(
        code_spans("a `b` c\n```\n`no`\n```\n`d\n  e` `f::g`"),
        [
            (1, "b".to_string()),
            (5, "d e".to_string()),
            (6, "f::g".to_string())
        ]
    );
    assert!(is_ident("max_chain") && !is_ident("a b") && !is_ident(""));
    assert_eq!(
        module_chains("a2a_card::jose::keys::Jwk, x.rs::t, a-b::c, fe80::/10, Pool::new, m::n::<T>"),
        [vec!["a2a_card", "jose", "keys"], vec!["m", "n"]]
    );
    let modules = module_paths(&source_files());
    assert!(modules.iter().any(|m| m == "canonical"));
    assert!(modules.iter().any(|m| m == "cmd::batch::tests"));
    assert!(mjs_name_matches(
        "a trust entry's {revoked,notAfter} binds its key",
        "test(`${label}: a trust entry's ${member} binds its key (${code})`"
    ));
    assert!(mjs_name_matches(
        "\"node|web: maxInputBytes refuses\"",
        "  t(`${b}: maxInputBytes refuses`)"
    ));
    assert!(!mjs_name_matches("binds its key", "test(\"binds a key\""));
    assert!(holds_test(
        "crates/a2a-card-cli/tests/readme.rs",
        "the_name_checkers_can_fail"
    ));
    assert!(!holds_test("crates/a2a-card-cli/tests/readme.rs", "no_such_test"));
}
