"""The examples of the package's docstrings (the extension's functions and classes, written in its
Rust source; a2a_card, a2a_card.sdk and a2a_card._errors) run as doctests, one test per
docstring, and the Python examples of README.md and docs/python.md run as written, beside the
files the documentation's commands make, and those of the package's own page
(crates/a2a-card-py/README.md, its PyPI page), which read no file: a reader there has no
repository.
"""

from __future__ import annotations

import doctest
import inspect
import io
import os
import re
import shlex
from typing import Any, Iterator, List, Tuple

import pytest

import a2a_card
import a2a_card._errors
import a2a_card.sdk
from vectors import REPO, card

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _docstrings() -> Iterator[Tuple[str, str, Any]]:
    """(name, docstring, module globals) of every documented object of the package."""
    seen = set()
    for module in (a2a_card, a2a_card._errors, a2a_card.sdk):
        yield module.__name__, module.__doc__ or "", vars(module)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if id(obj) in seen or not (inspect.isclass(obj) or callable(obj)):
                continue
            seen.add(id(obj))
            yield f"{module.__name__}.{name}", obj.__doc__ or "", vars(module)
            if inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    doc = getattr(member, "__doc__", None)
                    if doc and not attr.startswith("__"):
                        yield f"{module.__name__}.{name}.{attr}", doc, vars(module)


PARSER = doctest.DocTestParser()
DOCTESTS = [
    (name, doc, globs) for name, doc, globs in _docstrings() if PARSER.get_examples(doc)
]


def test_the_public_api_has_examples() -> None:
    names = {name for name, _, _ in DOCTESTS}
    for fn in ("canonicalize", "canonicalize_with_report", "sign", "verify", "verify_many",
               "Verifier", "Report", "inspect", "lint", "migrate", "schema", "keygen", "jwks"):
        assert f"a2a_card.{fn}" in names, f"a2a_card.{fn} has no example"
    assert "a2a_card.sdk.CardSigner" in names and "a2a_card.sdk" in names


@pytest.mark.parametrize("name,doc,globs", DOCTESTS, ids=[d[0] for d in DOCTESTS])
def test_docstring_examples(name: str, doc: str, globs: Any) -> None:
    test = PARSER.get_doctest(doc, dict(globs), name, None, 0)
    out = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    runner.run(test, out=out.write)
    assert runner.failures == 0, out.getvalue()
    assert runner.tries > 0


PACKAGE_PAGE = "crates/a2a-card-py/README.md"
DOCS = ("README.md", "docs/python.md", PACKAGE_PAGE)


def _python_blocks() -> List[Tuple[str, str]]:
    """(where, code) of every python block of the pages whose examples run here."""
    blocks = []
    for page in DOCS:
        with open(os.path.join(REPO, page), encoding="utf-8") as f:
            text = f.read()
        for m in re.finditer(r"^```python\n(.*?)^```$", text, re.S | re.M):
            blocks.append((f"{page}:{text[: m.start()].count(chr(10)) + 1}", m.group(1)))
    return blocks


BLOCKS = _python_blocks()

# The commands of the CLI tour (docs/cli.md) and of the README's quick start that make the files
# the examples read, each as the documentation writes it (checked), run in this order after
# `cp testvectors/cards/sample-8.5-unsigned.json card.json`.
TOUR = [
    "a2a-card keygen --alg ES256 --kid release-2026 --out release.pem",
    "a2a-card jwks release.pem --kid release-2026 --alg ES256 -o jwks.json",
    "a2a-card sign card.json --key release.pem --kid release-2026"
    " --jku https://agent.example.com/.well-known/jwks.json --unknown exclude --out signed.json",
]


def test_the_files_are_made_by_the_documented_commands() -> None:
    lines = set()
    for page in ("README.md", "docs/cli.md"):
        with open(os.path.join(REPO, page), encoding="utf-8") as f:
            lines.update(f.read().splitlines())
    for command in ["cp testvectors/cards/sample-8.5-unsigned.json card.json", *TOUR]:
        assert f"$ {command}" in lines, f"no documented line $ {command}"


@pytest.fixture()
def docs_dir(tmp_path, monkeypatch, cli):  # type: ignore[no-untyped-def]
    """A folder with the files the examples name, made as the documentation makes them:
    card.json (the section 8.5 sample, unsigned), release.pem and jwks.json (an ES256 key of kid
    release-2026) and signed.json (the card signed with it, its two A2A 0.3 members left out)."""
    (tmp_path / "card.json").write_bytes(card("sample-8.5-unsigned.json"))
    for command in TOUR:
        args = shlex.split(command)
        assert args[0] == "a2a-card"
        run = cli(args[1:], cwd=str(tmp_path))
        assert run.code == 0, f"{command}: {run.stderr}"
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_docs_have_python_examples() -> None:
    assert len(BLOCKS) >= 5
    assert any(where.startswith("README.md:") for where, _ in BLOCKS)
    assert sum(where.startswith(f"{PACKAGE_PAGE}:") for where, _ in BLOCKS) >= 3


def test_the_package_page_stands_alone() -> None:
    """The PyPI page's examples make their own keys and cards: they open no file."""
    for where, code in BLOCKS:
        if where.startswith(f"{PACKAGE_PAGE}:"):
            assert "open(" not in code, f"{where}: the package page's examples read no file"


@pytest.mark.parametrize("where,code", BLOCKS, ids=[b[0] for b in BLOCKS])
def test_python_example(where: str, code: str, docs_dir) -> None:  # type: ignore[no-untyped-def]
    if code.lstrip().startswith("$") or code.lstrip().startswith("pip "):
        pytest.fail(f"{where}: a shell command in a python block")
    exec(compile(code, where, "exec"), {"__name__": "readme_example"})
