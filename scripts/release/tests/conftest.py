"""Shared fixtures of the release tests (scripts/test.sh's release suite).

They check a dist/ made by scripts/release.sh (A2A_CARD_DIST, default dist/ at the root): the
artifacts, the README's Install commands run as written against it, the GitHub Action run by
the harness, the pre-commit hooks and the container image. Without a dist/ they fail under CI
(or with A2A_CARD_REQUIRE_DIST set) and are skipped otherwise.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import time

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts", "release"))
TESTVECTORS = os.path.join(ROOT, "testvectors")
TARGET = os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target")
if not os.path.isabs(TARGET):
    TARGET = os.path.join(ROOT, TARGET)


def version() -> str:
    with open(os.path.join(ROOT, "Cargo.toml"), encoding="utf-8") as f:
        text = f.read()
    m = re.search(r'\[workspace\.package\][^\[]*?\nversion = "([^"]+)"', text)
    assert m, "no workspace version in Cargo.toml"
    return m.group(1)


VERSION = version()
X86 = f"a2a-card-{VERSION}-x86_64-unknown-linux-musl"


@pytest.fixture(scope="session")
def dist() -> str:
    path = os.environ.get("A2A_CARD_DIST") or os.path.join(ROOT, "dist")
    if not os.path.isfile(os.path.join(path, "SHA256SUMS")):
        if os.environ.get("CI") == "true" or os.environ.get("A2A_CARD_REQUIRE_DIST"):
            pytest.fail(f"{path} holds no release (run scripts/release.sh --lite)")
        pytest.skip(f"{path} holds no release (scripts/release.sh writes it)")
    return path


def run(cmd, cwd=None, env=None, check=True, timeout=300, input=None):
    """Runs CMD (a list, or a string for bash), returning the CompletedProcess with text output."""
    shell = isinstance(cmd, str)
    p = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", cmd] if shell else cmd,
        cwd=cwd,
        env=env,
        input=input,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        timeout=timeout,
    )
    if check and p.returncode != 0:
        raise AssertionError(f"{cmd!r} exited {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return p


def readme_blocks(section: str, lang: str = "sh"):
    """The ```LANG blocks of README.md under the heading SECTION (any level), in order."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^(#+) " + re.escape(section) + r"\n", text, re.M)
    assert m, f"README.md has no section {section!r}"
    level = len(m.group(1))
    rest = text[m.end():]
    end = re.search(r"^#{1,%d} " % level, rest, re.M)
    body = rest[: end.start()] if end else rest
    return re.findall(r"^```" + lang + r"\n(.*?)^```$", body, re.M | re.S)


@pytest.fixture
def downloads(dist, tmp_path):
    """A folder holding the release's files as a user downloads them (a copy of dist/)."""
    d = tmp_path / "downloads"
    shutil.copytree(dist, d)
    return str(d)


def card_without_skills() -> str:
    """The section 8.5 sample card with `skills: []`: lint's error required-empty at /skills."""
    with open(os.path.join(TESTVECTORS, "cards", "sample-8.5-unsigned.json"), encoding="utf-8") as f:
        card = json.load(f)
    card["skills"] = []
    return json.dumps(card, indent=2)


TIMINGS = os.path.join(TARGET, "release-install-times.txt")


def record_time(what: str, seconds: float) -> None:
    os.makedirs(TARGET, exist_ok=True)
    with open(TIMINGS, "a", encoding="utf-8") as f:
        f.write(f"{what}: {seconds:.1f} s\n")


class Stopwatch:
    def __enter__(self):
        self.start = time.monotonic()
        return self

    def __exit__(self, *exc):
        self.seconds = time.monotonic() - self.start
