"""Trust through certificates in the Python package: every vector of testvectors/x5c/ (format:
testvectors/x5c/README.md) through verify, Verifier and verify_many with the verdicts the Rust
and Node tests get; anchors given in a trust store; sign with x5c and its refusals.
"""

from __future__ import annotations

import json

import pytest

import a2a_card
from vectors import x5c_file, x5c_vectors

VECTORS = x5c_vectors()
ROOT = "CN=a2a-card Vector Root, O=a2a-card test vectors"
SPIFFE = "spiffe://example.org/ns/agents/sa/travel"


def check(v, report: a2a_card.Report) -> None:  # type: ignore[no-untyped-def]
    s = report.signatures[0]
    assert s.verdict.code == v.raw["expected"]["code"], f"{v.id}: {s.verdict.message}"
    assert report.ok == (v.raw["expected"]["code"] == "valid"), v.id
    if "pointer" in v.raw["expected"]:
        assert s.verdict.pointer == v.raw["expected"]["pointer"], v.id
    if report.ok:
        assert s.certificate is not None
        assert s.certificate["anchor"] == ROOT
        assert len(s.certificate["chain"]) == 2
        assert s.certificate["anchor_source"] == "trust_anchors[0]"
    else:
        assert s.certificate is None


def test_there_are_vectors() -> None:
    assert len(VECTORS) >= 12


@pytest.mark.parametrize("v", VECTORS, ids=[v.id for v in VECTORS])
def test_x5c_vector(v) -> None:  # type: ignore[no-untyped-def]
    if not v.anchors:
        # No anchors and no key: verifying against nothing is refused.
        with pytest.raises(a2a_card.UsageError):
            a2a_card.verify(v.card, **v.options())
        return
    check(v, a2a_card.verify(v.card, **v.options()))
    options = v.options()
    now, origin = options.pop("now"), options.pop("origin", None)
    verifier = a2a_card.Verifier(**options)
    assert (verifier.key_count, verifier.anchor_count) == (0, len(v.anchors))
    assert repr(verifier).startswith(f"<Verifier keys=0 anchors={len(v.anchors)} ")
    check(v, verifier.verify(v.card, now=now, origin=origin))
    check(v, a2a_card.verify_many([v.card], now=now, origin=origin, **options)[0])


def test_anchors_in_a_trust_store_are_kept() -> None:
    card = x5c_file("sample-8.5-x5c.json")
    trust = json.dumps({"keys": [{"certificate": x5c_file("root.pem"), "identities": [SPIFFE]}]})
    r = a2a_card.verify(card, trust=trust, now=1900000000)
    assert r.ok, r.reason
    assert r.signatures[0].certificate["identity"] == f"URI SAN {SPIFFE}"
    # The entry's identities bind the anchor: another identity is refused.
    other = json.dumps({"keys": [{"certificate": x5c_file("root.pem"), "identities": ["spiffe://example.org/x"]}]})
    r = a2a_card.verify(card, trust=other, now=1900000000)
    assert r.signatures[0].verdict.code == "certificate-identity-mismatch"


def test_sign_with_x5c_and_its_refusals() -> None:
    card = '{"name":"Travel","description":"d","skills":[]}'
    signed = a2a_card.sign(card, x5c_file("leaf.key.pem"), x5c=x5c_file("chain.pem"))
    assert len(json.loads(signed)["signatures"]) == 1
    r = a2a_card.verify(signed, trust_anchors=x5c_file("root.pem"), identity=SPIFFE)
    assert r.ok, r.reason
    with pytest.raises(a2a_card.Error) as e:
        a2a_card.sign(card, a2a_card.keygen("ES256"), x5c=x5c_file("chain.pem"))
    assert e.value.code == "certificate-key-mismatch"
    with pytest.raises(a2a_card.Error) as e:
        a2a_card.sign(card, x5c_file("leaf.key.pem"), x5c="not a certificate")
    assert e.value.code in ("certificate-malformed", "usage")
    assert "x5c" in e.value.message


@pytest.mark.parametrize(
    "options, code, words",
    [
        ({"identity_prefix": "spiffe://example.org"}, "usage", "identity_prefix"),
        ({"identity": 7}, "usage", "identity"),
        ({"require_eku": "fastSigning"}, "usage", "require_eku"),
        ({"trust_anchors": "not a PEM bundle"}, None, "trust_anchors"),
        ({"max_chain": -1}, "usage", "max_chain"),
        ({"max_chain": 0}, "usage", "max_chain must be 1 to 8, got 0"),
        ({"max_chain": 9}, "usage", "max_chain"),
    ],
)
def test_bad_certificate_options_are_refused_naming_the_option(options: dict, code: str, words: str) -> None:
    anchors = {"trust_anchors": x5c_file("root.pem")}
    anchors.update(options)
    with pytest.raises(a2a_card.Error) as e:
        a2a_card.verify(x5c_file("sample-8.5-x5c.json"), **anchors)
    if code:
        assert e.value.code == code
    assert words in str(e.value), str(e.value)
