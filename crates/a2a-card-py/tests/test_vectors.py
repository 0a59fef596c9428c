"""Every vector of testvectors/ through the Python package, with the results the native tests
expect: the canonical vectors (every form a caller may pass: text, bytes, dict), the lint
vectors, the cards the JSON Schema must reject, the migration vectors and the sample cards; and,
with the native CLI built, the same answer as the CLI for the same input, error messages included.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Tuple

import pytest

import a2a_card
from conftest import missing
from vectors import (
    CanonicalVector,
    canonical_vectors,
    card,
    compact,
    lint_vectors,
    migrate_vectors,
    schema_invalid_cards,
)

CANONICAL = canonical_vectors()
ERROR_CODES = {
    "invalid-json", "duplicate-member", "number-out-of-range", "nesting-too-deep", "input-too-large",
    "dual-name", "type-mismatch", "oneof-conflict", "unknown-member",
}


def test_the_vectors_cover_every_code_and_profile() -> None:
    assert len(CANONICAL) >= 60
    assert {v.expected_error["code"] for v in CANONICAL if v.expected_error} >= ERROR_CODES
    assert {v.profile for v in CANONICAL} == {
        "spec", "prune-empty", "served-as-is", "a2a-sdk-0.3", "a2a-sdk-0.3.21"
    }


def _forms(v: CanonicalVector) -> List[Tuple[str, Any]]:
    """The inputs to feed for one vector: the exact bytes, and the other forms of the same input."""
    forms: List[Tuple[str, Any]] = [("bytes", v.input)]
    if v.input_value is not None:
        forms.append(("text", v.input.decode("utf-8")))
        if isinstance(v.input_value, dict):
            forms.append(("dict", v.input_value))
    elif v.input_raw is not None:
        forms.append(("text", v.input_raw))
    return forms


def _answer(card_input: Any, options: Dict[str, Any]) -> Dict[str, Any]:
    try:
        r = a2a_card.canonicalize_with_report(card_input, **options)
    except a2a_card.Error as e:
        assert isinstance(e, a2a_card.CardError), f"{type(e).__name__} for a card error: {e}"
        return {"ok": False, "code": e.code, "pointer": e.pointer, "message": str(e)}
    assert a2a_card.canonicalize(card_input, **options) == r["canonical"]
    return {"ok": True, "bytes": r["canonical"].encode("utf-8"), "unsigned": r["unsigned"], "report": r}


@pytest.mark.parametrize("v", CANONICAL, ids=[v.id for v in CANONICAL])
def test_canonical_vector(v: CanonicalVector) -> None:
    for form, card_input in _forms(v):
        got = _answer(card_input, v.options())
        if v.expected_bytes is not None:
            assert got["ok"], f"{form}: refused {got.get('code')} at {got.get('pointer')!r}: {got.get('message')}"
            assert got["bytes"] == v.expected_bytes, f"{form}: bytes differ"
            assert got["unsigned"] == v.expected_unsigned, f"{form}: unsigned differ"
            assert got["report"]["bytes"] == len(v.expected_bytes)
        else:
            want = v.expected_error
            assert want is not None
            assert not got["ok"], f"{form}: accepted {got.get('bytes')!r}; expected {want['code']}"
            assert got["code"] == want["code"], f"{form}: {got['message']}"
            if "pointer" in want:
                assert got["pointer"] == want["pointer"], f"{form}: {got['message']}"


def test_the_cli_gives_the_same_answer_on_every_vector(cli) -> None:  # type: ignore[no-untyped-def]
    problems = []
    for v in CANONICAL:
        args = ["canonicalize", "-", "--report", "--profile", v.profile]
        if v.unknown:
            args += ["--unknown", v.unknown]
        if v.max_input_bytes is not None:
            args += ["--max-input-bytes", str(v.max_input_bytes)]
        if v.max_depth is not None:
            args += ["--max-depth", str(v.max_depth)]
        out = cli(args, input=v.input)
        got = _answer(v.input, v.options())
        if got["ok"]:
            if out.code != 0:
                problems.append(f"{v.id}: CLI exit {out.code} ({out.stderr.strip()}), Python accepted")
                continue
            report = json.loads(out.stderr.strip().splitlines()[-1])
            if out.stdout != got["bytes"] or report["unsigned"] != got["unsigned"]:
                problems.append(f"{v.id}: bytes or unsigned differ")
            if report["sha256"] != got["report"]["sha256"] or report["bytes"] != got["report"]["bytes"]:
                problems.append(f"{v.id}: sha256 or length differ")
        else:
            line = out.stderr.strip()
            want = f"error[{got['code']}]: {got['message']} (<stdin>)"
            if not v.input:
                # The CLI refuses an empty input itself ("the card is empty"), before the
                # library reads it; the code must still agree.
                line = line.split("]", 1)[0]
                want = want.split("]", 1)[0]
            elif got["code"] == "input-too-large":
                # The CLI stops reading at the limit plus one byte, so it cannot say the input's
                # size as the library does; the code and the place must still agree.
                line = line.split(": ", 1)[0] + ": ... at " + line.rsplit(" at ", 1)[-1]
                want = want.split(": ", 1)[0] + ": ... at " + want.rsplit(" at ", 1)[-1]
            if out.code != 2 or line != want:
                problems.append(f"{v.id}: CLI exit {out.code}\n  CLI    {line}\n  Python {want}")
    assert problems == [], "\n".join(problems)


LINT = lint_vectors()


@pytest.mark.parametrize("v", LINT, ids=[f"{v.rule}/{v.name}" for v in LINT])
def test_lint_vector(v) -> None:  # type: ignore[no-untyped-def]
    found = a2a_card.lint(v.input)["findings"]
    triples = [(f["rule"], f["severity"], f["pointer"]) for f in found]
    assert triples == v.expected
    for f in found:
        assert set(f) == {"rule", "severity", "pointer", "message"} and f["message"]
    rules = {t[0] for t in triples}
    if v.trigger:
        assert v.rule in rules, f"a trigger file without a {v.rule} finding"
    else:
        assert v.rule not in rules, f"a clean file with a {v.rule} finding"


def test_every_lint_rule_has_a_trigger_and_a_clean_vector() -> None:
    rules = {v.rule for v in LINT}
    assert len(rules) >= 15
    for rule in rules:
        assert any(v.rule == rule and v.trigger for v in LINT), rule
        assert any(v.rule == rule and not v.trigger for v in LINT), rule


def test_the_sample_card_lints_with_two_warnings_and_no_error() -> None:
    found = a2a_card.lint(card("sample-8.5.json"))["findings"]
    assert [f["severity"] for f in found] == ["warning", "warning"]
    assert {f["rule"] for f in found} == {"legacy-member"}


def test_the_schema_rejects_every_schema_invalid_card() -> None:
    try:
        import jsonschema
    except ImportError:
        missing("jsonschema (crates/a2a-card-py/tests/requirements.txt)")
    for draft, cls in (("2020-12", jsonschema.Draft202012Validator), ("07", jsonschema.Draft7Validator)):
        validator = cls(a2a_card.schema(draft))
        cards = schema_invalid_cards()
        assert len(cards) >= 20
        for name, value in cards:
            assert not validator.is_valid(value), f"{draft}: {name} passes the schema"
    valid = json.loads(card("sample-8.5-unsigned.json"))
    assert jsonschema.Draft202012Validator(a2a_card.schema()).is_valid(valid)



MIGRATE = migrate_vectors()


def _ordered(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _has_pointer(doc: Any, pointer: str) -> bool:
    if pointer == "":
        return True
    node = doc
    for raw in pointer.split("/")[1:]:
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        elif isinstance(node, list) and token == "*" and node:
            node = node[0]
        else:
            return False
    return True


@pytest.mark.parametrize("v", MIGRATE, ids=[v.id for v in MIGRATE])
def test_migrate_vector(v) -> None:  # type: ignore[no-untyped-def]
    raw = v.raw
    options = {"protocol_version": v.protocol_version} if v.protocol_version else {}
    if "expected_error" in raw:
        with pytest.raises(a2a_card.Error) as e:
            a2a_card.migrate(v.input, **options)
        assert e.value.code == raw["expected_error"]["code"]
        assert e.value.pointer == raw["expected_error"].get("pointer", e.value.pointer)
        return
    m = a2a_card.migrate(v.input, **options)
    assert set(m) == {"card", "notes", "alreadyV1", "lost"}
    migrated = json.loads(m["card"])
    assert _ordered(migrated) == _ordered(raw["expected_card"])
    got = {(n["pointer"], n["kind"], n.get("target")) for n in m["notes"]}
    want = {(n["pointer"], n["kind"], n.get("target")) for n in raw["expected_notes"]}
    assert got == want
    assert m["lost"] == raw["expected_lost"]
    assert m["alreadyV1"] == raw.get("already_v1", False)
    if raw.get("already_v1"):
        assert m["card"].encode("utf-8") == v.input
    source = json.loads(v.input)
    for n in m["notes"]:
        if n["kind"] not in ("defaulted", "missing"):
            assert _has_pointer(source, n["pointer"]), n
        if n.get("target") is not None:
            assert _has_pointer(migrated, n["target"]), n
    if raw.get("lints_clean"):
        assert a2a_card.lint(m["card"])["findings"] == []
    # A migrated card signs and verifies (what has no 1.0 home was dropped: nothing is left
    # that the signature would not cover).
    kp = a2a_card.keygen("EdDSA")
    assert a2a_card.verify(a2a_card.sign(m["card"], kp), keys=kp).ok


def test_the_cli_migrates_every_vector_to_the_same_card(cli) -> None:  # type: ignore[no-untyped-def]
    for v in MIGRATE:
        if "expected_error" in v.raw:
            continue
        args = ["migrate", "-"] + (["--protocol-version", v.protocol_version] if v.protocol_version else [])
        out = cli(args, input=v.input)
        assert out.code in (0, 1), out.stderr
        assert out.stdout.decode("utf-8") == a2a_card.migrate(v.input, **({"protocol_version": v.protocol_version} if v.protocol_version else {}))["card"]


def test_the_sample_cards() -> None:
    signed = card("sample-8.5.json")
    unsigned = card("sample-8.5-unsigned.json")
    assert a2a_card.canonicalize(signed) == a2a_card.canonicalize(unsigned)
    info = a2a_card.inspect(signed)
    assert info["unsigned"] == ["/capabilities/stateTransitionHistory", "/security"]
    [entry] = info["signatures"]
    assert (entry["alg"], entry["kid"], entry["typ"], entry["jku"]) == (
        "ES256", "key-1", "JOSE", "https://example.com/agent/jwks.json",
    )
    # No key is published for it: with any trusted key it does not verify.
    report = a2a_card.verify(signed, keys=a2a_card.keygen("ES256"))
    assert not report.ok and report.signatures[0].verdict.code == "untrusted-key"
