"""Shared fixtures of the Python tests: where the repository, the corpora and the native CLI are,
and how a missing resource is handled (a failure when CI is set, a skip with a note otherwise).

The tests run against the installed package (the wheel scripts/build-py.sh builds, installed into
the virtualenv by scripts/test.sh), never against the source tree.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Callable, List, NamedTuple, Optional

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from vectors import REPO  # noqa: E402

CORPORA = os.path.abspath(os.environ.get("A2A_CARD_CORPORA") or os.path.join(REPO, "..", "shared", "corpora"))


def _cli_path() -> str:
    if os.environ.get("A2A_CARD_CLI"):
        return os.path.abspath(os.environ["A2A_CARD_CLI"])
    target = os.environ.get("CARGO_TARGET_DIR") or os.path.join(REPO, "target")
    if not os.path.isabs(target):
        target = os.path.join(REPO, target)
    return os.path.join(target, "debug", "a2a-card")


CLI = _cli_path()


def missing(what: str) -> None:
    """A resource the test needs is missing: a failure under CI, else a skip with a note."""
    if os.environ.get("CI"):
        pytest.fail(f"{what} is missing (CI is set, so this is a failure)")
    pytest.skip(f"{what} is missing")


class Run(NamedTuple):
    code: int
    stdout: bytes
    stderr: str


@pytest.fixture(scope="session")
def cli() -> Callable[..., Run]:
    """Runs the native CLI: cli(args, input=b"...", cwd=None)."""
    if not os.path.exists(CLI):
        missing(f"the native CLI at {CLI} (cargo build -p a2a-card-cli)")

    def run(args: List[str], input: Optional[bytes] = None, cwd: Optional[str] = None) -> Run:
        out = subprocess.run(
            [CLI, *args], input=input or b"", capture_output=True, timeout=120, cwd=cwd
        )
        return Run(out.returncode, out.stdout, out.stderr.decode("utf-8", "replace"))

    return run
