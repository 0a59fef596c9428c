//! The reader and runner of the documentation's ```console blocks, shared by readme.rs (every
//! console block of the README and the guides) and local_https.rs (the blocks of the local
//! HTTPS section, run against a server). The format of a block is described in readme.rs.

use super::*;
use std::path::Path;
use std::process::{Command, Stdio};

/// One command of a console block and what it prints.
pub struct Step {
    /// The command (lines after a `> ` joined with `\n`).
    pub command: String,
    /// The output lines it must print (patterns).
    pub expected: Vec<String>,
    /// Its line in the file.
    pub line: usize,
}

/// The console blocks of `text` (fenced ```console), each a list of steps.
pub fn console_blocks(file: &str, text: &str) -> Vec<Vec<Step>> {
    blocks_fenced(file, text, "```console")
}

/// The blocks of `text` whose opening fence line is exactly `fence` (as ```console), each a
/// list of steps.
pub fn blocks_fenced(file: &str, text: &str, fence: &str) -> Vec<Vec<Step>> {
    fenced(file, text, fence)
        .into_iter()
        .map(|(first, lines)| steps(file, first, &lines))
        .collect()
}

/// The bodies of the blocks of `text` whose opening fence line is exactly `fence` (as ```sh),
/// each with the line number of its first body line.
pub fn fenced<'a>(file: &str, text: &'a str, fence: &str) -> Vec<(usize, Vec<&'a str>)> {
    let mut blocks = Vec::new();
    let mut current: Option<(usize, Vec<&str>)> = None;
    for (n, line) in text.lines().enumerate() {
        match (&mut current, line) {
            (None, l) if l == fence => current = Some((n + 2, Vec::new())),
            (None, _) => {}
            (Some(_), "```") => blocks.push(current.take().unwrap()),
            (Some((_, lines)), l) => lines.push(l),
        }
    }
    assert!(current.is_none(), "{file}: a {fence} block is not closed");
    blocks
}

/// The steps of a console block whose body, from line `first`, is `lines`.
fn steps(file: &str, first: usize, lines: &[&str]) -> Vec<Step> {
    let mut steps: Vec<Step> = Vec::new();
    for (n, l) in lines.iter().enumerate() {
        let n = first + n;
        if let Some(cmd) = l.strip_prefix("$ ") {
            steps.push(Step {
                command: cmd.to_string(),
                expected: Vec::new(),
                line: n,
            });
        } else if let Some(more) = l.strip_prefix("> ") {
            let step = steps
                .last_mut()
                .unwrap_or_else(|| panic!("{file}:{n}: `> ` before any `$ `"));
            assert!(step.expected.is_empty(), "{file}:{n}: `> ` after output");
            step.command.push('\n');
            step.command.push_str(more);
        } else {
            let step = steps
                .last_mut()
                .unwrap_or_else(|| panic!("{file}:{n}: output before any `$ ` command"));
            step.expected.push(l.to_string());
        }
    }
    steps
}

/// Does `actual` match the pattern line `expected` (`…` is any text)?
pub fn line_matches(expected: &str, actual: &str) -> bool {
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
pub fn lines_match(expected: &[String], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((e, rest)) if e == "…" => (0..=actual.len()).any(|skip| lines_match(rest, &actual[skip..])),
        Some((e, rest)) => actual
            .split_first()
            .is_some_and(|(a, more)| line_matches(e, a) && lines_match(rest, more)),
    }
}

/// Runs one step with bash in `dir`, the binary under test first on PATH, `$?` set to
/// `previous_status`; its status and what it printed (stdout and stderr, interleaved). The
/// binary under test is this build's, or the one in `$A2A_CARD_DOCS_BIN_DIR` when it is set
/// (the `install` suite of `scripts/test.sh` runs the documentation with the binary the
/// README's Install commands installed).
pub fn run_step(dir: &Path, step: &Step, previous_status: i32) -> (i32, String) {
    let command = step
        .command
        .replace("cargo run -q -p a2a-card-cli --", "a2a-card");
    let bin_dir = match std::env::var_os("A2A_CARD_DOCS_BIN_DIR") {
        Some(dir) => {
            let dir = std::path::PathBuf::from(dir);
            assert!(
                dir.join("a2a-card").is_file(),
                "A2A_CARD_DOCS_BIN_DIR has no a2a-card: {}",
                dir.display()
            );
            dir
        }
        None => bin_path().parent().unwrap().to_path_buf(),
    };
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

/// Runs the steps of one block in `dir` and checks each prints what the page shows and exits 0
/// unless the next step is `echo $?`; `status` carries `$?` from block to block. The number of
/// commands run.
pub fn run_steps(name: &str, dir: &Path, block: &[Step], status: &mut i32) -> usize {
    for (i, step) in block.iter().enumerate() {
        let (code, output) = run_step(dir, step, *status);
        let actual: Vec<&str> = output.lines().collect();
        assert!(
            lines_match(&step.expected, &actual),
            "{name}:{}: `{}` printed\n{output}\nwhich does not match\n{}",
            step.line,
            step.command,
            step.expected.join("\n")
        );
        let status_shown = block
            .get(i + 1)
            .is_some_and(|next| next.command.trim() == "echo $?");
        assert!(
            code == 0 || status_shown,
            "{name}:{}: `{}` exited {code} and the page does not show it",
            step.line,
            step.command
        );
        *status = code;
    }
    block.len()
}
