"""From the release's files to a verified card, as a new user types it: the README's Install
commands ("From a release") run as written in a folder holding the downloads, then the README's
quick start verifies the quick start's signed card with the installed binary, Python package
and npm package. Each is timed from nothing (the figures go to target/release-install-times.txt;
the target is under one minute each)."""

import os
import shutil

from conftest import (
    ROOT,
    TESTVECTORS,
    X86,
    Stopwatch,
    readme_blocks,
    record_time,
    run,
)

QUICKSTART = os.path.join(TESTVECTORS, "quickstart")


def release_block(word: str) -> str:
    """The README's "From a release" sh block that mentions WORD."""
    blocks = [b for b in readme_blocks("From a release") if word in b]
    assert len(blocks) == 1, f"README.md's From a release section has {len(blocks)} sh blocks naming {word}"
    return blocks[0]


def quickstart_code(lang: str) -> str:
    blocks = readme_blocks("Quick start", lang)
    assert blocks, f"README.md's quick start has no {lang} block"
    return blocks[0]


def user_env(home):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("A2A_CARD", "VIRTUAL_ENV", "PYTHON"))}
    env["HOME"] = str(home)
    env["npm_config_cache"] = os.path.join(str(home), ".npm")
    env["npm_config_update_notifier"] = "false"
    env["npm_config_fund"] = "false"
    env["npm_config_audit"] = "false"
    return env


def with_quickstart_files(folder):
    for name in ("signed.json", "jwks.json"):
        shutil.copy(os.path.join(QUICKSTART, name), os.path.join(folder, name))


def test_the_binary_goes_from_the_download_to_a_verified_card(downloads, tmp_path):
    env = user_env(tmp_path / "home")
    os.makedirs(env["HOME"])
    with_quickstart_files(downloads)
    with Stopwatch() as t:
        run(release_block(X86 + ".tar.gz"), cwd=downloads, env=env)
        out = run(
            [os.path.join(env["HOME"], ".local", "bin", "a2a-card"), "verify", "signed.json", "--jwks", "jwks.json"],
            cwd=downloads,
            env=env,
        )
    assert out.stdout.startswith("VALID"), out.stdout
    record_time("x86_64 binary, download folder to verified card", t.seconds)
    assert t.seconds < 60, t.seconds


def test_a_tampered_download_is_refused_by_the_readme_commands(downloads, tmp_path):
    env = user_env(tmp_path / "home")
    os.makedirs(env["HOME"])
    tarball = os.path.join(downloads, X86 + ".tar.gz")
    with open(tarball, "r+b") as f:
        f.seek(100)
        byte = f.read(1)
        f.seek(100)
        f.write(bytes([byte[0] ^ 1]))
    p = run(release_block(X86 + ".tar.gz"), cwd=downloads, env=env, check=False)
    assert p.returncode != 0
    assert "FAILED" in p.stdout + p.stderr, p.stdout + p.stderr
    assert not os.path.exists(os.path.join(env["HOME"], ".local", "bin", "a2a-card"))

    # A SHA256SUMS changed after signing fails the signature check, the first command.
    shutil.copy(os.path.join(QUICKSTART, "jwks.json"), os.path.join(downloads, "SHA256SUMS"))
    p = run(release_block(X86 + ".tar.gz"), cwd=downloads, env=env, check=False)
    assert p.returncode != 0
    assert "Verification failure" in p.stdout + p.stderr, p.stdout + p.stderr


def test_the_wheel_goes_from_the_download_to_a_verified_card(downloads, tmp_path):
    env = user_env(tmp_path / "home")
    os.makedirs(env["HOME"])
    with_quickstart_files(downloads)
    with open(os.path.join(downloads, "quickstart.py"), "w", encoding="utf-8") as f:
        f.write(quickstart_code("python") + '\nprint("ok", report.ok)\n')
    with Stopwatch() as t:
        run(release_block(".whl"), cwd=downloads, env=env)
        out = run([os.path.join(downloads, ".venv", "bin", "python"), "quickstart.py"], cwd=downloads, env=env)
    assert out.stdout.strip() == "ok True", out.stdout
    record_time("x86_64 manylinux2014 wheel, download folder to verified card", t.seconds)
    assert t.seconds < 60, t.seconds


def test_the_npm_tarball_goes_from_the_download_to_a_verified_card(downloads, tmp_path):
    env = user_env(tmp_path / "home")
    os.makedirs(env["HOME"])
    with_quickstart_files(downloads)
    with open(os.path.join(downloads, "quickstart.mjs"), "w", encoding="utf-8") as f:
        f.write(quickstart_code("js"))
    with Stopwatch() as t:
        run(release_block(".tgz"), cwd=downloads, env=env)
        out = run(["node", "quickstart.mjs"], cwd=downloads, env=env)
    assert out.stdout.startswith("true"), out.stdout
    assert "/security" in out.stdout, out.stdout
    record_time("npm tarball, download folder to verified card", t.seconds)
    assert t.seconds < 60, t.seconds
    # Installed from the tarball, not linked to the repository's build.
    installed = os.path.join(downloads, "node_modules", "a2a-card")
    assert os.path.isdir(installed) and not os.path.islink(installed)
    assert os.path.isfile(os.path.join(installed, "node", "a2a_card_bg.wasm"))
    assert os.path.isfile(os.path.join(installed, "web", "a2a_card_bg.wasm"))
    assert not os.path.realpath(installed).startswith(ROOT)
