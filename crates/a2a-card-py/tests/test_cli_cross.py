"""Signing in Python and verifying with the native CLI, and the reverse, for every algorithm of the
native build: the same verdicts, the same canonical bytes and the same JSON report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import a2a_card
from vectors import card

ALGS = a2a_card.algorithms()


def _cli_report(cli, folder: Path, *args: str) -> dict:  # type: ignore[no-untyped-def]
    out = cli(["verify", "card.json", "--format", "json", *args], cwd=str(folder))
    assert out.code in (0, 1), out.stderr
    report = json.loads(out.stdout)
    assert (out.code == 0) == report["ok"]
    return report


def _same_but_source(ours: dict, theirs: dict, source: str) -> None:
    for s in theirs["signatures"]:
        if s.get("key"):
            assert s["key"]["source"] == source
            s["key"]["source"] = "jwks"
    assert ours == theirs


@pytest.mark.parametrize("alg", ALGS)
def test_signed_in_python_verified_by_the_cli(cli, tmp_path: Path, alg: str) -> None:  # type: ignore[no-untyped-def]
    kp = a2a_card.keygen(alg, kid=f"py-{alg}")
    # The sample carries two A2A 0.3 members, which the signature leaves out by choice.
    signed = a2a_card.sign(card("sample-8.5-unsigned.json"), kp, unknown="exclude")
    (tmp_path / "jwks.json").write_text(json.dumps(kp.jwks))
    for text, ok in ((signed, True), (signed.replace("GeoSpatial", "Geospatial"), False)):
        (tmp_path / "card.json").write_text(text)
        theirs = _cli_report(cli, tmp_path, "--jwks", "jwks.json")
        assert theirs["ok"] is ok
        ours = a2a_card.verify(text, jwks=kp.jwks).to_dict()
        _same_but_source(ours, theirs, "jwks.json")


@pytest.mark.parametrize("alg", ALGS)
def test_signed_by_the_cli_verified_in_python(cli, tmp_path: Path, alg: str) -> None:  # type: ignore[no-untyped-def]
    out = cli(["keygen", "--alg", alg, "--out", "key.pem", "--jwks", "jwks.json", "--kid", f"cli-{alg}"], cwd=str(tmp_path))
    assert out.code == 0, out.stderr
    (tmp_path / "card.json").write_bytes(card("sample-8.5-unsigned.json"))
    out = cli(["sign", "card.json", "--key", "key.pem", "--kid", f"cli-{alg}", "--alg", alg,
               "--also-profile", "prune-empty", "--unknown", "exclude", "--in-place"], cwd=str(tmp_path))
    assert out.code == 0, out.stderr
    signed = (tmp_path / "card.json").read_bytes()
    jwks = (tmp_path / "jwks.json").read_text()
    report = a2a_card.verify(signed, jwks=jwks)
    assert report.ok and report.signatures[0].kid == f"cli-{alg}"
    assert report.unsigned == ["/capabilities/stateTransitionHistory", "/security"]
    _same_but_source(report.to_dict(), _cli_report(cli, tmp_path, "--jwks", "jwks.json"), "jwks.json")
    auto = a2a_card.verify(signed, jwks=jwks, profile="prune-empty")
    assert auto.ok and auto.profile == "prune-empty"
    # The CLI's key file is a key Python reads too.
    resigned = a2a_card.sign(signed, (tmp_path / "key.pem").read_text(), kid=f"cli-{alg}", alg=alg, replace=True, unknown="exclude")
    assert len(json.loads(resigned)["signatures"]) == 1
    assert a2a_card.verify(resigned, jwks=jwks).ok


def test_the_same_canonical_bytes_and_inspection(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    kp = a2a_card.keygen("ES256")
    signed = a2a_card.sign(card("sample-8.5-unsigned.json"), kp, also_profiles=["prune-empty", "served-as-is"], unknown="exclude")
    for profile in a2a_card.PROFILES:
        out = cli(["canonicalize", "-", "--profile", profile], input=signed.encode())
        try:
            want = a2a_card.canonicalize(signed, profile=profile)
        except a2a_card.Error as e:
            # The a2a-sdk 0.3 model refuses this v1.0 card: both refuse it alike.
            assert profile.startswith("a2a-sdk-0.3") and out.code == 2 and e.message in out.stderr
            continue
        assert out.code == 0 and out.stdout.decode() == want
    out = cli(["inspect", "-", "--format", "json"], input=signed.encode())
    assert json.loads(out.stdout) == a2a_card.inspect(signed)
    out = cli(["lint", "-", "--format", "json"], input=signed.encode())
    assert json.loads(out.stdout) == a2a_card.lint(signed)
    out = cli(["schema"])
    assert json.loads(out.stdout) == a2a_card.schema()
    (tmp_path / "k.pem").write_text(kp.private_pem)
    out = cli(["jwks", "k.pem"], cwd=str(tmp_path))
    assert json.loads(out.stdout) == a2a_card.jwks(kp.private_pem)


@pytest.mark.parametrize(
    "option,flag,limit",
    [
        ("max_signatures", "--max-signatures", 256),
        ("max_keys_per_kid", "--max-keys-per-kid", 256),
        ("max_signature_checks", "--max-signature-checks", 4096),
        ("max_input_bytes", "--max-input-bytes", 1 << 30),
        ("max_depth", "--max-depth", 512),
    ],
)
def test_the_cli_and_python_bound_each_limit_alike(cli, tmp_path: Path, option: str, flag: str, limit: int) -> None:  # type: ignore[no-untyped-def]
    kp = a2a_card.keygen("ES256", kid="bounds")
    (tmp_path / "card.json").write_text(a2a_card.sign(card("sample-8.5-unsigned.json"), kp, unknown="exclude"))
    (tmp_path / "jwks.json").write_text(json.dumps(kp.jwks))
    for value in (limit, limit + 1, 0):
        out = cli(["verify", "card.json", "--jwks", "jwks.json", flag, str(value)], cwd=str(tmp_path))
        try:
            ok = a2a_card.verify((tmp_path / "card.json").read_bytes(), jwks=kp.jwks, **{option: value}).ok
        except a2a_card.UsageError as e:
            assert e.message == f"{option} must be 1 to {limit}, got {value}"
            assert out.code == 2 and f"from 1 to {limit}" in out.stderr, out.stderr
        else:
            assert ok and out.code == 0, (value, out.stderr)
            assert value == limit
    for algs in ("HS256", "ES256,HS384"):
        out = cli(["verify", "card.json", "--jwks", "jwks.json", "--alg", algs], cwd=str(tmp_path))
        assert out.code == 2 and "shared secret" in out.stderr
        with pytest.raises(a2a_card.UsageError, match="shared secret"):
            a2a_card.verify((tmp_path / "card.json").read_bytes(), jwks=kp.jwks, algorithms=algs.split(","))
