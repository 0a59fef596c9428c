"""The pre-commit hooks (.pre-commit-hooks.yaml), run by the pre-commit package on a scratch
repository, with the release's x86_64 binary on PATH."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import card_without_skills, ROOT, TESTVECTORS, X86, run

QUICKSTART = os.path.join(TESTVECTORS, "quickstart")


@pytest.fixture
def hook_repo(tmp_path):
    """The hooks as this checkout has them (committed or not), as a repository of their own."""
    repo = tmp_path / "hooks"
    for rel in (".pre-commit-hooks.yaml", "scripts/pre-commit-hook.sh"):
        os.makedirs(os.path.dirname(repo / rel), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, rel), repo / rel)
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "hooks")
    return str(repo), git(repo, "rev-parse", "HEAD").strip()


def git(cwd, *args):
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com")
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, stdout=subprocess.PIPE, text=True).stdout


@pytest.fixture
def project(tmp_path, dist, hook_repo):
    """A repository with Agent Cards, and an environment whose PATH has the release binary."""
    bin_dir = tmp_path / "bin"
    os.makedirs(bin_dir)
    run(f"tar -xzf {dist}/{X86}.tar.gz -C {bin_dir} --strip-components=1")
    proj = tmp_path / "project"
    os.makedirs(proj / ".well-known")
    os.makedirs(proj / "keys")
    os.makedirs(proj / "drafts")
    shutil.copy(os.path.join(QUICKSTART, "signed.json"), proj / ".well-known" / "agent-card.json")
    shutil.copy(os.path.join(QUICKSTART, "jwks.json"), proj / "keys" / "jwks.json")
    git(proj, "init", "-q")
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
               PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"))
    return str(proj), env, hook_repo


def configure(proj, hook_repo, hooks):
    repo, rev = hook_repo
    lines = [f"repos:\n  - repo: {repo}\n    rev: {rev}\n    hooks:\n"]
    for hook in hooks:
        lines.append(f"      - id: {hook['id']}\n")
        if "args" in hook:
            lines.append(f"        args: {json.dumps(hook['args'])}\n")
    with open(os.path.join(proj, ".pre-commit-config.yaml"), "w", encoding="utf-8") as f:
        f.write("".join(lines))


def pre_commit(proj, env):
    git(proj, "add", "-A")
    return subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files"], cwd=proj, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)


def test_lint_passes_a_good_card_and_fails_a_bad_one(project):
    proj, env, hook_repo = project
    configure(proj, hook_repo, [{"id": "a2a-card-lint"}])
    p = pre_commit(proj, env)
    assert p.returncode == 0, p.stdout
    assert "lint A2A Agent Cards" in p.stdout and "Passed" in p.stdout
    with open(os.path.join(proj, "drafts", "agent-card.json"), "w", encoding="utf-8") as f:
        f.write(card_without_skills())
    p = pre_commit(proj, env)
    assert p.returncode == 1, p.stdout
    assert "Failed" in p.stdout and "error[required-empty] /skills" in p.stdout, p.stdout


def test_verify_checks_signed_cards_against_the_jwks_in_args(project):
    proj, env, hook_repo = project
    configure(proj, hook_repo, [{"id": "a2a-card-verify", "args": ["--jwks", "keys/jwks.json", "--"]}])
    p = pre_commit(proj, env)
    assert p.returncode == 0, p.stdout
    assert "VALID" in p.stdout or "Passed" in p.stdout
    card_path = os.path.join(proj, ".well-known", "agent-card.json")
    card = json.load(open(card_path, encoding="utf-8"))
    card["description"] = "changed after signing"
    json.dump(card, open(card_path, "w", encoding="utf-8"))
    p = pre_commit(proj, env)
    assert p.returncode == 1, p.stdout
    assert "INVALID" in p.stdout, p.stdout


def test_verify_without_keys_says_what_to_add(project):
    proj, env, hook_repo = project
    configure(proj, hook_repo, [{"id": "a2a-card-verify"}])
    p = pre_commit(proj, env)
    assert p.returncode != 0
    assert "verify needs trusted keys in the hook's args, ended by --" in p.stdout, p.stdout


def test_a_missing_binary_is_named(project):
    proj, env, hook_repo = project
    configure(proj, hook_repo, [{"id": "a2a-card-lint"}])
    env = dict(env, PATH="/usr/bin:/bin")
    p = pre_commit(proj, env)
    assert p.returncode != 0
    assert "a2a-card is not on PATH" in p.stdout, p.stdout
