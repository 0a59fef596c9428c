//! docs/release-pipeline.md's release jobs and key rotation, run as written: every `run:` step
//! of the GitHub Actions job (but the install step) with `CARD_KEY` a key of the sigstore-protocol test
//! plugin, every `script:` line of the GitLab CI job with its `variables:` against a real
//! SoftHSM2 token whose key `keygen --key pkcs11:` made, and the key rotation steps. Each
//! command must exit 0; the card published must verify against the JWKS published.

#![allow(clippy::unwrap_used, clippy::panic)] // a panic is how a test fails

mod common;

use a2a_card_testkit::softhsm::{self, plugins_dir, Token};
use common::*;
use std::path::Path;
use std::process::Command;

/// The fenced blocks of docs/release-pipeline.md's "The release jobs" and "Rotating keys"
/// sections: (info string, text).
fn pipeline_blocks() -> Vec<(String, String)> {
    let guide = std::fs::read_to_string(repo_root().join("docs/release-pipeline.md")).unwrap();
    let start = guide
        .find("\n## The release jobs\n")
        .expect("docs/release-pipeline.md has no \"The release jobs\" section");
    let section = &guide[start + 1..];
    let end = section
        .find("\n## Rotating keys\n")
        .expect("docs/release-pipeline.md has no \"Rotating keys\" section after the jobs");
    let after = &section[end + 1..];
    let section = &section[..end + 1 + after[3..].find("\n## ").map_or(after.len(), |e| e + 3)];
    let mut blocks = Vec::new();
    let mut lines = section.lines();
    while let Some(line) = lines.next() {
        if let Some(info) = line.strip_prefix("```") {
            let body: Vec<&str> = lines.by_ref().take_while(|l| *l != "```").collect();
            blocks.push((info.to_string(), body.join("\n")));
        }
    }
    blocks
}

/// The `run:` commands of a GitHub Actions job, one string per step.
fn github_runs(yaml: &str) -> Vec<String> {
    let mut runs = Vec::new();
    let lines: Vec<&str> = yaml.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let indent = line.len() - line.trim_start().len();
        let body = line.trim_start().trim_start_matches("- ");
        if let Some(rest) = body.strip_prefix("run: ") {
            if rest == "|" {
                let mut block = Vec::new();
                i += 1;
                while i < lines.len() && (lines[i].len() - lines[i].trim_start().len() > indent) {
                    block.push(lines[i].trim_start());
                    i += 1;
                }
                runs.push(block.join("\n"));
                continue;
            }
            runs.push(rest.to_string());
        }
        i += 1;
    }
    runs
}

/// The names under the first `KEY:` mapping (`env:` or `variables:`) and their values.
fn mapping(yaml: &str, key: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut inside: Option<usize> = None;
    for line in yaml.lines() {
        let indent = line.len() - line.trim_start().len();
        match inside {
            None if line.trim_start() == format!("{key}:") => inside = Some(indent),
            Some(at) if indent > at => {
                let (name, value) = line.trim().split_once(": ").unwrap();
                out.push((name.to_string(), value.trim_matches('"').to_string()));
            }
            Some(_) => break,
            None => {}
        }
    }
    out
}

/// The `script:` lines of a GitLab CI job.
fn gitlab_script(yaml: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in yaml.lines() {
        if line.trim() == "script:" {
            inside = true;
        } else if inside {
            match line.trim_start().strip_prefix("- ") {
                Some(cmd) if line.starts_with("    ") => out.push(cmd.to_string()),
                _ => break,
            }
        }
    }
    out
}

/// Runs `script` with bash in `dir`, the binary under test and the test plugins first on PATH.
#[track_caller]
fn sh(dir: &Path, script: &str, env: &[(&str, String)]) -> String {
    let path = format!(
        "{}:{}:{}",
        bin_path().parent().unwrap().display(),
        plugins_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .args(["-euo", "pipefail", "-c", script])
        .current_dir(dir)
        .env("PATH", path)
        .env_remove(KEY_ENV)
        .env_remove("A2A_CARD_PKCS11_MODULE")
        .env_remove("A2A_CARD_PKCS11_PIN")
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "docs/release-pipeline.md step failed:\n{script}\n{text}"
    );
    text
}

/// A scratch directory holding the card of a release (`agent-card.json`, a clean v1.0 card).
fn release_dir(name: &str) -> std::path::PathBuf {
    let dir = scratch(name);
    write(
        &dir,
        "agent-card.json",
        std::fs::read(repo_root().join("scripts/interop/card-v1.json")).unwrap(),
    );
    dir
}

#[test]
fn the_guide_pipelines_and_key_rotation_run_as_written() {
    let blocks = pipeline_blocks();
    let yaml: Vec<&String> = blocks
        .iter()
        .filter(|(i, _)| i == "yaml")
        .map(|(_, b)| b)
        .collect();
    let shell: Vec<&String> = blocks.iter().filter(|(i, _)| i == "sh").map(|(_, b)| b).collect();
    assert_eq!(shell.len(), 1, "one rotation block");
    let rotation = shell[0];
    assert_eq!(yaml.len(), 2, "a GitHub Actions job and a GitLab CI job");

    // GitHub Actions, through the sigstore-protocol test plugin.
    let dir = release_dir("pipeline-github");
    let (pem, _) = keygen(&dir, "kms-2026", "ES256", &[]);
    let (next, _) = keygen(&dir, "kms-2027", "ES256", &[]);
    let env = vec![
        ("CARD_KEY", format!("test://{}", pem.display())),
        ("CARD_KID", "card-2026".to_string()),
        ("NEXT_CARD_KEY", format!("test://{}", next.display())),
    ];
    for (name, value) in mapping(yaml[0], "env") {
        assert!(
            env.iter().any(|(k, _)| *k == name),
            "the workflow uses {name}, which this test does not set"
        );
        assert!(value.starts_with("${{ vars."), "{name}: {value}");
    }
    sh(
        &dir,
        r#"a2a-card jwks "$CARD_KEY" --kid card-2026 -o jwks.json"#,
        &env,
    );
    let runs = github_runs(yaml[0]);
    assert!(runs.len() >= 4, "{runs:?}");
    let mut ran = 0;
    for run in &runs {
        if run.contains("cargo install") {
            continue;
        }
        let out = sh(&dir, run, &env);
        if run.contains("a2a-card verify") {
            assert!(
                out.contains("VALID: 1 of 1 signatures verify with a trusted key"),
                "{out}"
            );
        }
        ran += 1;
    }
    assert!(ran >= 3);
    let published = dir.join("public/.well-known/agent-card.json");
    assert_eq!(protected(&signatures(&published)[0])["kid"], "card-2026");

    // Key rotation, continuing from the published card.
    let mut stage = 0;
    for line in rotation.lines().filter(|l| !l.trim().is_empty()) {
        if let Some(comment) = line.strip_prefix("# ") {
            stage = comment[..1].parse().unwrap_or(stage);
            continue;
        }
        let out = sh(&dir, line, &env);
        let kids: Vec<String> = signatures(&published)
            .iter()
            .map(|e| protected(e)["kid"].as_str().unwrap().to_string())
            .collect();
        let jwks_kids: Vec<String> = read_json(dir.join("jwks.json"))["keys"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k["kid"].as_str().unwrap().to_string())
            .collect();
        match stage {
            1 if line.contains("mv ") => assert_eq!(jwks_kids, ["card-2026", "card-2027"]),
            1 => {}
            2 => {
                assert_eq!(kids, ["card-2026", "card-2027"], "{line}");
                if line.contains("verify") {
                    assert!(out.contains("VALID: 2 of 2 signatures"), "{out}");
                }
            }
            3 => assert_eq!(jwks_kids, ["card-2027"]),
            _ => panic!("a rotation command before step 1: {line}"),
        }
    }
    assert_eq!(stage, 3, "the rotation has three steps");
    let kids: Vec<_> = signatures(&published)
        .iter()
        .map(|e| protected(e)["kid"].clone())
        .collect();
    assert_eq!(kids, ["card-2027"]);

    // GitLab CI, through a SoftHSM2 token.
    if !softhsm::available() {
        return;
    }
    let dir = release_dir("pipeline-gitlab");
    let variables = mapping(yaml[1], "variables");
    let value = |name: &str| variables.iter().find(|(k, _)| k == name).unwrap().1.clone();
    let pin = "246810-card";
    let token = Token::new(&dir, "release", pin);
    let module = if Path::new(&value("A2A_CARD_PKCS11_MODULE")).is_file() {
        value("A2A_CARD_PKCS11_MODULE")
    } else {
        token.module.display().to_string()
    };
    let mut env: Vec<(&str, String)> = vec![
        ("SOFTHSM2_CONF", token.conf.display().to_string()),
        ("A2A_CARD_PKCS11_PIN", pin.to_string()),
    ];
    for (name, v) in &variables {
        let v = if name == "A2A_CARD_PKCS11_MODULE" {
            module.clone()
        } else {
            v.clone()
        };
        env.push((Box::leak(name.clone().into_boxed_str()), v));
    }
    // The key made in the token, its JWKS committed beside the card.
    sh(
        &dir,
        r#"a2a-card keygen --alg ES256 --key "$CARD_KEY" --kid "$CARD_KID" --jwks jwks.json"#,
        &env,
    );
    let script = gitlab_script(yaml[1]);
    assert!(script.len() >= 4, "{script:?}");
    for line in &script {
        let out = sh(&dir, line, &env);
        assert!(!out.contains(pin), "the PIN is in the output of {line}");
        if line.contains("a2a-card verify") {
            assert!(
                out.contains("VALID: 1 of 1 signatures verify with a trusted key"),
                "{out}"
            );
        }
    }
    let published = dir.join("public/.well-known/agent-card.json");
    assert_eq!(
        protected(&signatures(&published)[0])["kid"],
        value("CARD_KID").as_str()
    );
}

#[test]
fn the_pipeline_parsers_can_fail() {
    let yaml = "jobs:\n  j:\n    env:\n      A: x\n    steps:\n      - run: one\n      - name: two\n        run: |\n          a\n          b\n      - uses: x\n";
    assert_eq!(github_runs(yaml), ["one", "a\nb"]);
    assert_eq!(mapping(yaml, "env"), [("A".to_string(), "x".to_string())]);
    let gitlab = "job:\n  script:\n    - a\n    - b\n  artifacts:\n    paths:\n      - public\n";
    assert_eq!(gitlab_script(gitlab), ["a", "b"]);
}
