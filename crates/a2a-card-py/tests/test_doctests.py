"""The examples of the package's docstrings (the extension's functions and classes, written in its
Rust source; a2a_card, a2a_card.sdk and a2a_card._errors) run as doctests, one test per
docstring, and the README's Python examples run as written.
"""

from __future__ import annotations

import doctest
import inspect
import io
import os
import re
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


def _readme_python_blocks() -> List[Tuple[int, str]]:
    with open(os.path.join(REPO, "README.md"), encoding="utf-8") as f:
        text = f.read()
    blocks = []
    for m in re.finditer(r"^```python\n(.*?)^```$", text, re.S | re.M):
        blocks.append((text[: m.start()].count("\n") + 1, m.group(1)))
    return blocks


README_BLOCKS = _readme_python_blocks()


@pytest.fixture()
def readme_dir(tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    """A folder with the files the README's examples name: card.json (the section 8.5 sample,
    unsigned), release.pem and jwks.json (a fresh ES256 key pair), as the CLI tour makes them."""
    kp = a2a_card.keygen("ES256")
    (tmp_path / "card.json").write_bytes(card("sample-8.5-unsigned.json"))
    (tmp_path / "release.pem").write_text(kp.private_pem)
    import json

    (tmp_path / "jwks.json").write_text(json.dumps(kp.jwks))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_readme_has_python_examples() -> None:
    assert len(README_BLOCKS) >= 3


@pytest.mark.parametrize("line,code", README_BLOCKS, ids=[f"README.md:{b[0]}" for b in README_BLOCKS])
def test_readme_python_example(line: int, code: str, readme_dir) -> None:  # type: ignore[no-untyped-def]
    if code.lstrip().startswith("$") or code.lstrip().startswith("pip "):
        pytest.fail(f"README.md:{line}: a shell command in a python block")
    exec(compile(code, f"README.md:{line}", "exec"), {"__name__": "readme_example"})
