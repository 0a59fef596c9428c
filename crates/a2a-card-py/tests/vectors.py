"""The one reader of testvectors/ for the Python tests (the Rust tests read the same files through
crates/a2a-card-testkit, the Node tests through crates/a2a-card-wasm/test/helpers.mjs).

Each reader is strict, as the others are: an unknown key, a missing input or expectation, or an
id that is not the file name is a format error, so that a broken file never passes.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

TESTS = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(TESTS, "..", "..", ".."))
VECTORS = os.path.join(REPO, "testvectors")


def _load(path: str) -> Any:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def compact(value: Any) -> bytes:
    """A JSON value written compactly, member order kept (how the vectors' `input` is read)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _json_files(folder: str) -> List[str]:
    return sorted(
        os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".json")
    )


def _input_of(path: str, v: Dict[str, Any]) -> Tuple[bytes, Optional[Any]]:
    """The exact input bytes of a vector, and its JSON value when it gives one (`input`)."""
    forms = [k for k in ("input", "input_raw", "input_hex") if k in v]
    if len(forms) != 1:
        raise ValueError(f"{path}: exactly one of input, input_raw, input_hex is needed, found {forms}")
    if "input" in v:
        return compact(v["input"]), v["input"]
    if "input_raw" in v:
        return v["input_raw"].encode("utf-8", "surrogatepass"), None
    return bytes.fromhex(v["input_hex"]), None


CANONICAL_KEYS = {
    "id", "description", "provenance", "profile", "unknown", "limits", "input", "input_raw", "input_hex",
    "expected_hex", "expected_unsigned", "expected_error", "card", "spec_commit",
}

HEX40 = set("0123456789abcdef")


def sample_cards() -> Dict[str, Any]:
    """The specification's sample cards of testvectors/cards, by file name, as JSON values."""
    folder = os.path.join(VECTORS, "cards")
    return {os.path.basename(p): _load(p) for p in _json_files(folder)}


def _check_card(path: str, v: Dict[str, Any], cards: Dict[str, Any]) -> None:
    """`card` and `spec_commit` go together (the commit 40 lower-case hex digits, the card a file
    of testvectors/cards equal to the input), and an input that is one of the cards names it."""
    same = [name for name, card in cards.items() if "input" in v and v["input"] == card]
    if ("card" in v) != ("spec_commit" in v):
        raise ValueError(f"{path}: `card` and `spec_commit` go together")
    if "card" not in v:
        if same:
            raise ValueError(f"{path}: the input is the card {same[0]} of testvectors/cards: name it with `card` and `spec_commit`")
        return
    commit = v["spec_commit"]
    if not (isinstance(commit, str) and len(commit) == 40 and set(commit) <= HEX40):
        raise ValueError(f"{path}: `spec_commit` must be 40 lower-case hexadecimal digits, found {commit!r}")
    if v["card"] not in cards:
        raise ValueError(f"{path}: `card` names {v['card']!r}, which is not a file of testvectors/cards")
    if v["card"] not in same:
        raise ValueError(f"{path}: the input is not the card {v['card']!r} of testvectors/cards")


@dataclass
class CanonicalVector:
    """One vector of testvectors/canonical (format: testvectors/README.md)."""

    id: str
    profile: str
    unknown: Optional[str]
    max_input_bytes: Optional[int]
    max_depth: Optional[int]
    input: bytes
    input_value: Optional[Any]
    input_raw: Optional[str]
    expected_bytes: Optional[bytes]
    expected_unsigned: Optional[List[str]]
    expected_error: Optional[Dict[str, str]]

    def options(self) -> Dict[str, Any]:
        """The keyword options of canonicalize for this vector."""
        o: Dict[str, Any] = {"profile": self.profile}
        if self.unknown is not None:
            o["unknown"] = self.unknown
        if self.max_input_bytes is not None:
            o["max_input_bytes"] = self.max_input_bytes
        if self.max_depth is not None:
            o["max_depth"] = self.max_depth
        return o


def canonical_vectors() -> List[CanonicalVector]:
    out = []
    cards = sample_cards()
    commits: Dict[str, set] = {name: set() for name in cards}
    for path in _json_files(os.path.join(VECTORS, "canonical")):
        v = _load(path)
        extra = set(v) - CANONICAL_KEYS
        if extra:
            raise ValueError(f"{path}: unknown keys {sorted(extra)}")
        _check_card(path, v, cards)
        if "card" in v:
            commits[v["card"]].add(v["spec_commit"])
        if f"{v['id']}.json" != os.path.basename(path):
            raise ValueError(f"{path}: id {v['id']!r} is not the file name")
        if ("expected_hex" in v) == ("expected_error" in v):
            raise ValueError(f"{path}: exactly one of expected_hex and expected_error is needed")
        if "expected_hex" in v and "expected_unsigned" not in v:
            raise ValueError(f"{path}: expected_hex needs expected_unsigned")
        data, value = _input_of(path, v)
        limits = v.get("limits", {})
        extra = set(limits) - {"max_input_bytes", "max_depth"}
        if extra:
            raise ValueError(f"{path}: unknown limits {sorted(extra)}")
        out.append(
            CanonicalVector(
                id=v["id"],
                profile=v["profile"],
                unknown=v.get("unknown"),
                max_input_bytes=limits.get("max_input_bytes"),
                max_depth=limits.get("max_depth"),
                input=data,
                input_value=value,
                input_raw=v.get("input_raw"),
                expected_bytes=bytes.fromhex(v["expected_hex"]) if "expected_hex" in v else None,
                expected_unsigned=v.get("expected_unsigned"),
                expected_error=v.get("expected_error"),
            )
        )
    for name, found in commits.items():
        if len(found) != 1:
            raise ValueError(f"testvectors/cards/{name}: named by vectors with {len(found)} spec_commit values (one is needed)")
    return out


LINT_KEYS = {"description", "input", "input_raw", "expected"}


@dataclass
class LintVector:
    """One card of testvectors/lint/<rule>/ (format: testvectors/lint/README.md)."""

    rule: str
    name: str
    trigger: bool
    input: bytes
    expected: List[Tuple[str, str, str]] = field(default_factory=list)


def lint_vectors() -> List[LintVector]:
    root = os.path.join(VECTORS, "lint")
    out = []
    for rule in sorted(os.listdir(root)):
        folder = os.path.join(root, rule)
        if not os.path.isdir(folder) or rule == "schema-invalid":
            continue
        for path in _json_files(folder):
            v = _load(path)
            extra = set(v) - LINT_KEYS
            if extra:
                raise ValueError(f"{path}: unknown keys {sorted(extra)}")
            name = os.path.basename(path)
            if not (name.startswith("trigger") or name.startswith("clean")):
                raise ValueError(f"{path}: a lint vector is named trigger*.json or clean*.json")
            data, _ = _input_of(path, v)
            expected = [(f["rule"], f["severity"], f["pointer"]) for f in v["expected"]]
            out.append(LintVector(rule, name, name.startswith("trigger"), data, expected))
    return out


def schema_invalid_cards() -> List[Tuple[str, Any]]:
    folder = os.path.join(VECTORS, "lint", "schema-invalid")
    return [(os.path.basename(p), _load(p)) for p in _json_files(folder)]


MIGRATE_KEYS = {
    "id", "description", "options", "lints_clean", "already_v1", "input", "input_raw",
    "expected_card", "expected_notes", "expected_lost", "expected_error",
}


@dataclass
class MigrateVector:
    """One vector of testvectors/migrate (format: testvectors/migrate/README.md)."""

    id: str
    input: bytes
    protocol_version: Optional[str]
    raw: Dict[str, Any]


def migrate_vectors() -> List[MigrateVector]:
    out = []
    for path in _json_files(os.path.join(VECTORS, "migrate")):
        v = _load(path)
        extra = set(v) - MIGRATE_KEYS
        if extra:
            raise ValueError(f"{path}: unknown keys {sorted(extra)}")
        if f"{v['id']}.json" != os.path.basename(path):
            raise ValueError(f"{path}: id {v['id']!r} is not the file name")
        options = v.get("options", {})
        if set(options) - {"protocol_version"}:
            raise ValueError(f"{path}: unknown options {sorted(options)}")
        data, _ = _input_of(path, v)
        out.append(MigrateVector(v["id"], data, options.get("protocol_version"), v))
    return out


def card(name: str) -> bytes:
    """A card of testvectors/cards, as its file's bytes."""
    with open(os.path.join(VECTORS, "cards", name), "rb") as f:
        return f.read()


X5C = os.path.join(VECTORS, "x5c")
X5C_KEYS = {
    "id", "description", "card", "anchors", "now", "origin", "identities", "identity_prefixes",
    "required_eku", "max_chain", "expected",
}


@dataclass
class X5cVector:
    """One vector of testvectors/x5c/vectors.json (format: testvectors/x5c/README.md), its card
    and anchors read."""

    id: str
    card: bytes
    anchors: List[str]
    raw: Dict[str, Any]

    def options(self) -> Dict[str, Any]:
        """The keyword options of verify for this vector."""
        v = self.raw
        o: Dict[str, Any] = {"trust_anchors": self.anchors, "now": v["now"]}
        for key, option in [("origin", "origin"), ("identities", "identity"),
                            ("identity_prefixes", "identity_prefix"), ("required_eku", "require_eku"),
                            ("max_chain", "max_chain")]:
            if key in v:
                o[option] = v[key]
        return o


def x5c_file(name: str) -> str:
    """A file of testvectors/x5c, as text."""
    with open(os.path.join(X5C, name), encoding="utf-8") as f:
        return f.read()


def x5c_vectors() -> List[X5cVector]:
    path = os.path.join(X5C, "vectors.json")
    out = []
    for v in _load(path)["vectors"]:
        extra = set(v) - X5C_KEYS
        missing = {"id", "description", "card", "anchors", "now", "expected"} - set(v)
        if extra or missing:
            raise ValueError(f"{path}: {v.get('id')}: unknown keys {sorted(extra)}, missing {sorted(missing)}")
        if set(v["expected"]) - {"code", "pointer"} or "code" not in v["expected"]:
            raise ValueError(f"{path}: {v['id']}: expected needs a code (and may have a pointer)")
        with open(os.path.join(X5C, v["card"]), "rb") as f:
            data = f.read()
        out.append(X5cVector(v["id"], data, [x5c_file(a) for a in v["anchors"]], v))
    return out
