//! The documentation's command-line examples, run as written: every ```console block of
//! README.md, then of each guide in `docs/` (by file name), with the `a2a-card` under test first
//! on PATH. Each file runs in a fresh scratch directory, its blocks in order: later blocks of a
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

/// README.md, then every guide of `docs/` by name: the Markdown files whose examples run.
fn documents() -> Vec<(String, PathBuf)> {
    let mut guides: Vec<PathBuf> = std::fs::read_dir(repo_root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    guides.sort();
    let mut docs = vec![("README.md".to_string(), repo_root().join("README.md"))];
    docs.extend(guides.into_iter().map(|p| {
        let name = format!("docs/{}", p.file_name().unwrap().to_str().unwrap());
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
    for entry in std::fs::read_dir(repo_root().join("crates")).unwrap() {
        let readme = entry.unwrap().path().join("README.md");
        if readme.is_file() {
            files.push(readme);
        }
    }
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
