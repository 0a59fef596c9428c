//! The README's command-line examples, run as written: every ```console block of README.md, in
//! order, in one directory, with the `a2a-card` under test first on PATH.
//!
//! In a console block a line `$ COMMAND` is a command (`> ` continues it on the next line, as a
//! shell shows it) and the lines after it, up to the next command, are what it prints, stdout
//! and stderr as a terminal shows them. In an output line `…` stands for any text; a line that
//! is only `…` stands for any number of lines. A command must exit 0 unless the next command
//! is `echo $?`, which then prints its status. `cargo run -q -p a2a-card-cli --` (the Quick
//! start's way to run the tool from a checkout) runs the binary under test.
//!
//! The directory holds `testvectors/` (a link to the repository's), as the repository root
//! does, so `cp testvectors/cards/...` works as it does there. Examples that need the network
//! (`fetch https://agent.example.com`) stay in ```text blocks and are not run here; the same
//! behaviour is tested against a loopback server in remote.rs.

#![allow(clippy::unwrap_used, clippy::panic)] // a panic is how a test fails

mod common;

use common::*;
use std::path::Path;
use std::process::{Command, Stdio};

/// One command of a console block and what it prints.
struct Step {
    command: String,
    expected: Vec<String>,
    line: usize,
}

/// The console blocks of `text`, each a list of steps.
fn console_blocks(text: &str) -> Vec<Vec<Step>> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<Step>> = None;
    for (n, line) in text.lines().enumerate() {
        match (&mut current, line) {
            (None, "```console") => current = Some(Vec::new()),
            (None, _) => {}
            (Some(_), "```") => blocks.push(current.take().unwrap()),
            (Some(steps), l) => {
                if let Some(cmd) = l.strip_prefix("$ ") {
                    steps.push(Step {
                        command: cmd.to_string(),
                        expected: Vec::new(),
                        line: n + 1,
                    });
                } else if let Some(more) = l.strip_prefix("> ") {
                    let step = steps
                        .last_mut()
                        .unwrap_or_else(|| panic!("README.md:{}: `> ` before any `$ `", n + 1));
                    assert!(step.expected.is_empty(), "README.md:{}: `> ` after output", n + 1);
                    step.command.push('\n');
                    step.command.push_str(more);
                } else {
                    let step = steps
                        .last_mut()
                        .unwrap_or_else(|| panic!("README.md:{}: output before any `$ ` command", n + 1));
                    step.expected.push(l.to_string());
                }
            }
        }
    }
    assert!(current.is_none(), "README.md: a console block is not closed");
    blocks
}

/// Does `actual` match the pattern line `expected` (`…` is any text)?
fn line_matches(expected: &str, actual: &str) -> bool {
    let parts: Vec<&str> = expected.split('…').collect();
    if parts.len() == 1 {
        return expected == actual;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !actual.starts_with(first)
        || !actual[first.len()..].ends_with(last)
        || actual.len() < first.len() + last.len()
    {
        return false;
    }
    let mut rest = &actual[first.len()..actual.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    true
}

/// Do the `actual` lines match the `expected` pattern lines (a line `…` is any lines)?
fn lines_match(expected: &[String], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((e, rest)) if e == "…" => (0..=actual.len()).any(|skip| lines_match(rest, &actual[skip..])),
        Some((e, rest)) => actual
            .split_first()
            .is_some_and(|(a, more)| line_matches(e, a) && lines_match(rest, more)),
    }
}

fn run_step(dir: &Path, step: &Step, previous_status: i32) -> (i32, String) {
    let command = step
        .command
        .replace("cargo run -q -p a2a-card-cli --", "a2a-card");
    let bin_dir = bin_path().parent().unwrap().to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let script = format!("exec 2>&1\n(exit {previous_status})\n{command}");
    let out = Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .env("PATH", path)
        .env("HOME", dir)
        // A net under the SSRF guard, as in every test: nothing but loopback is dialled.
        .env(
            a2a_card_testkit::https::LOOPBACK_ONLY.0,
            a2a_card_testkit::https::LOOPBACK_ONLY.1,
        )
        .env_remove(KEY_ENV)
        .env_remove("A2A_CARD_PKCS11_MODULE")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn every_console_example_of_the_readme_runs_as_written() {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    let blocks = console_blocks(&readme);
    assert!(
        blocks.len() >= 5,
        "only {} console blocks in README.md",
        blocks.len()
    );
    let dir = scratch("readme-tour");
    std::os::unix::fs::symlink(repo_root().join("testvectors"), dir.join("testvectors")).unwrap();
    let mut ran = 0;
    let mut status = 0;
    for block in &blocks {
        for (i, step) in block.iter().enumerate() {
            let (code, output) = run_step(&dir, step, status);
            let actual: Vec<&str> = output.lines().collect();
            assert!(
                lines_match(&step.expected, &actual),
                "README.md:{}: `{}` printed\n{output}\nwhich does not match\n{}",
                step.line,
                step.command,
                step.expected.join("\n")
            );
            let status_shown = block
                .get(i + 1)
                .is_some_and(|next| next.command.trim() == "echo $?");
            assert!(
                code == 0 || status_shown,
                "README.md:{}: `{}` exited {code} and the README does not show it",
                step.line,
                step.command
            );
            status = code;
            ran += 1;
        }
    }
    assert!(ran >= 20, "only {ran} README commands ran");
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
    let blocks = console_blocks("x\n```console\n$ a\nout\n$ b \\\n> c\n```\n```text\n$ no\n```\n");
    assert_eq!(blocks.len(), 1);
    assert_eq!(blocks[0].len(), 2);
    assert_eq!(blocks[0][1].command, "b \\\nc");
}
