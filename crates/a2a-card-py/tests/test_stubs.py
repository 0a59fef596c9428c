"""The installed package ships its type stubs and py.typed, and the stubs say what the extension
has: every public function and class of a2a_card._native is in _native.pyi with the same
parameters (names, defaults given or not, positional or keyword-only), and every class with the
same methods and properties. The extension's side is read from the compiled module itself
(PyO3's text signatures), the stub's side from the .pyi file's syntax tree.
"""

from __future__ import annotations

import ast
import inspect
import os
from typing import Dict, List, Tuple

import a2a_card
import a2a_card._native as native

PACKAGE = os.path.dirname(os.path.abspath(a2a_card.__file__))
STUB = os.path.join(PACKAGE, "_native.pyi")

Param = Tuple[str, str, bool]  # name, kind, has a default


def _stub_tree() -> ast.Module:
    with open(STUB, encoding="utf-8") as f:
        return ast.parse(f.read(), STUB)


def _stub_params(fn: ast.FunctionDef) -> List[Param]:
    a = fn.args
    out: List[Param] = []
    positional = [*a.posonlyargs, *a.args]
    first_default = len(positional) - len(a.defaults)
    for i, arg in enumerate(positional):
        kind = "POSITIONAL_ONLY" if arg in a.posonlyargs else "POSITIONAL_OR_KEYWORD"
        out.append((arg.arg, kind, i >= first_default))
    if a.vararg is not None:
        out.append((a.vararg.arg, "VAR_POSITIONAL", False))
    for arg, default in zip(a.kwonlyargs, a.kw_defaults):
        out.append((arg.arg, "KEYWORD_ONLY", default is not None))
    if a.kwarg is not None:
        out.append((a.kwarg.arg, "VAR_KEYWORD", False))
    return [p for p in out if p[0] != "self"]


def _runtime_params(obj: object) -> List[Param]:
    sig = inspect.signature(obj)  # type: ignore[arg-type]
    return [
        (p.name, p.kind.name, p.default is not inspect.Parameter.empty)
        for p in sig.parameters.values()
        if p.name != "self"
    ]


def _public(names: List[str]) -> List[str]:
    return sorted(n for n in names if not n.startswith("_"))


def test_the_wheel_ships_the_stubs_and_py_typed() -> None:
    assert os.path.isfile(os.path.join(PACKAGE, "py.typed")), PACKAGE
    assert os.path.isfile(STUB), PACKAGE
    # The installed package, not the source tree (scripts/test.sh installs the wheel).
    assert "site-packages" in PACKAGE or "dist-packages" in PACKAGE, PACKAGE


def test_every_function_has_its_stub_with_the_same_parameters() -> None:
    stubs: Dict[str, ast.FunctionDef] = {
        n.name: n for n in _stub_tree().body if isinstance(n, ast.FunctionDef)
    }
    functions = [n for n in dir(native) if inspect.isbuiltin(getattr(native, n))]
    assert {"canonicalize", "sign", "verify", "verify_many", "keygen", "jwks"} <= set(functions)
    for name in functions:
        assert name in stubs, f"{name} has no stub in _native.pyi"
        assert _stub_params(stubs[name]) == _runtime_params(getattr(native, name)), name
    for name in stubs:
        assert name in functions, f"_native.pyi has a stub for {name}, which the extension lacks"


def test_every_class_has_its_stub_with_the_same_members() -> None:
    classes = {n.name: n for n in _stub_tree().body if isinstance(n, ast.ClassDef)}
    runtime = [n for n in dir(native) if inspect.isclass(getattr(native, n))]
    assert {"Verifier", "Report", "KeyPair"} <= set(runtime)
    for name in runtime:
        cls = getattr(native, name)
        assert name in classes, f"class {name} has no stub in _native.pyi"
        stub = classes[name]
        methods = {n.name: n for n in stub.body if isinstance(n, ast.FunctionDef)}
        properties = {
            n
            for n, fn in methods.items()
            if any(isinstance(d, ast.Name) and d.id == "property" for d in fn.decorator_list)
        }
        members = _public(list(vars(cls)))
        assert sorted(n for n in methods if not n.startswith("_")) == members, name
        for member in members:
            value = vars(cls)[member]
            is_property = inspect.isgetsetdescriptor(value) or isinstance(value, property)
            assert (member in properties) == is_property, f"{name}.{member}: property or method"
            if not is_property:
                assert _stub_params(methods[member]) == _runtime_params(value), f"{name}.{member}"
        if "__init__" in methods:
            assert _stub_params(methods["__init__"]) == _runtime_params(cls), f"{name}()"
    for name, stub in classes.items():
        if not any(
            isinstance(b, ast.Name) and b.id == "TypedDict" for b in stub.bases
        ):
            assert name in runtime, f"_native.pyi has a class {name}, which the extension lacks"


def test_the_module_constants_are_in_the_stub() -> None:
    annotated = {
        n.target.id
        for n in _stub_tree().body
        if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
    }
    for name in dir(native):
        value = getattr(native, name)
        if not (callable(value) or inspect.ismodule(value)) and (
            not name.startswith("__") or name == "__version__"
        ):
            assert name in annotated, f"{name} is not declared in _native.pyi"
