"""Trust-store policy in the Python package: an entry's policy binds its key when the key
arrives as the leaf of an x5c chain to a trust anchor (testvectors/x5c/), and policy written on
a JWK (instead of beside it, in the entry) is refused with its code and place, never ignored.
"""

from __future__ import annotations

import base64
import copy
import json
from typing import Any, Dict

import pytest

import a2a_card
from vectors import x5c_file

SPIFFE = "spiffe://example.org/ns/agents/sa/travel"
ORIGIN = "https://agent.example.com"
NOW = 1900000000


def leaf_jwk() -> Dict[str, Any]:
    """The public JWK of the vectors' leaf certificate key."""
    return a2a_card.jwks(x5c_file("leaf.key.pem"))["keys"][0]


def options(trust: Dict[str, Any]) -> Dict[str, Any]:
    return {
        "trust": trust,
        "trust_anchors": x5c_file("root.pem"),
        "identity": SPIFFE,
        "now": NOW,
        "origin": ORIGIN,
    }


def test_an_entry_without_policy_narrows_nothing() -> None:
    card = x5c_file("sample-8.5-x5c.json")
    r = a2a_card.verify(card, **options({"keys": [{"jwk": leaf_jwk()}]}))
    assert r.ok, r.reason
    assert r.signatures[0].certificate is not None


@pytest.mark.parametrize(
    "member,value,code",
    [
        ("revoked", True, "key-revoked"),
        ("notAfter", "2020-01-01T00:00:00Z", "key-expired"),
        ("notBefore", "2099-01-01T00:00:00Z", "key-expired"),
        ("origins", ["https://other.example"], "untrusted-key"),
        ("algorithms", [], "algorithm-not-allowed"),
    ],
)
def test_a_trust_entry_binds_its_key_through_an_x5c_leaf(member: str, value: Any, code: str) -> None:
    card = x5c_file("sample-8.5-x5c.json")
    trust = {"keys": [{"jwk": leaf_jwk(), "kid": "release", member: value}]}
    opts = options(trust)
    reports = [a2a_card.verify(card, **opts)]
    now, origin = opts.pop("now"), opts.pop("origin")
    reports.append(a2a_card.Verifier(**opts).verify(card, now=now, origin=origin))
    reports.append(a2a_card.verify_many([card], now=now, origin=origin, **opts)[0])
    for r in reports:
        s = r.signatures[0]
        assert not r.ok, f"{member}: the anchor lifted the entry's {member}"
        assert s.verdict.code == code, s.verdict.message
        assert "trust" in s.verdict.message
        assert s.certificate is None


@pytest.mark.parametrize("member,value", [("revoked", True), ("exp", 1600000000), ("origins", ["https://a.example"])])
def test_policy_on_a_bare_jwk_of_a_trust_store_is_refused(member: str, value: Any) -> None:
    card = x5c_file("sample-8.5-x5c.json")
    jwk = leaf_jwk()
    jwk[member] = value
    for trust in ({"keys": [jwk]}, {"keys": [{"jwk": jwk}]}):
        with pytest.raises(a2a_card.InvalidKeyError) as e:
            a2a_card.verify(card, **options(trust))
        assert e.value.code == "invalid-trust-store", repr(e.value)
        place = "/keys/0/jwk/" if "jwk" in trust["keys"][0] else "/keys/0/"
        assert e.value.pointer == place + member, repr(e.value)
        assert '{"jwk": {...}, ' in e.value.message, e.value.message
        assert jwk["x"] not in str(e.value)
    # The same mistake in a JWK Set of pinned keys.
    with pytest.raises(a2a_card.InvalidKeyError) as e:
        a2a_card.verify(card, jwks={"keys": [jwk]}, now=NOW)
    assert (e.value.code, e.value.pointer) == ("invalid-key", f"/keys/0/{member}")


def test_the_entry_form_means_what_it_says() -> None:
    card = x5c_file("sample-8.5-x5c.json")
    entry = {"jwk": leaf_jwk(), "revoked": True}
    r = a2a_card.verify(card, **options({"keys": [copy.deepcopy(entry)]}))
    assert r.signatures[0].verdict.code == "key-revoked"
    # Without anchors, the same entry and card: the kid names no trusted key but the chain is
    # not a root, so the card is not valid either way.
    assert not a2a_card.verify(card, trust={"keys": [entry]}, now=NOW).ok


def test_sign_refuses_a_chain_a_verifier_refuses_unless_told_its_limit() -> None:
    card = '{"name":"Travel","description":"d","skills":[]}'
    key, chain = x5c_file("leaf.key.pem"), x5c_file("chain.pem")
    # The vectors' chain is two certificates: a limit of one refuses it, as verify does.
    with pytest.raises(a2a_card.Error) as e:
        a2a_card.sign(card, key, x5c=chain, max_chain=1)
    assert e.value.code == "certificate-untrusted", repr(e.value)
    assert "more than the limit of 1" in e.value.message
    signed = a2a_card.sign(card, key, x5c=chain, max_chain=2)
    r = a2a_card.verify(signed, trust_anchors=x5c_file("root.pem"), identity=SPIFFE, max_chain=2)
    assert r.ok, r.reason
    assert not a2a_card.verify(signed, trust_anchors=x5c_file("root.pem"), identity=SPIFFE, max_chain=1).ok
    with pytest.raises(a2a_card.UsageError):
        a2a_card.sign(card, key, x5c=chain, max_chain=9)


# The Ed25519 identity point (y = 1): under it R = identity, S = 0 is a signature of every card.
WEAK = {"kty": "OKP", "crv": "Ed25519", "x": "AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "kid": "weak"}


def forged_card() -> str:
    """The vectors' card "signed" under WEAK: a protected header with its kid, R = identity, S = 0."""
    def b64u(b: bytes) -> str:
        return base64.urlsafe_b64encode(b).rstrip(b"=").decode()

    card = json.loads(x5c_file("sample-8.5-x5c.json"))
    signature = bytes([1]) + bytes(31) + bytes(32)
    card["signatures"] = [{"protected": b64u(b'{"alg":"EdDSA","kid":"weak","typ":"JOSE"}'), "signature": b64u(signature)}]
    return json.dumps(card)


@pytest.mark.parametrize(
    "how",
    ["verify keys", "verify keys (text)", "verify jwks", "Verifier jwks", "Verifier keys", "verify trust", "Verifier trust", "verify_many trust"],
)
def test_a_small_order_key_is_a_weak_key_and_the_forgery_never_verifies(how: str) -> None:
    # Before the fix the identity point was an ordinary Ed25519 key, and ring accepts the forged
    # signature under it: the card was VALID. Now it is refused where it is read, as weak-key.
    card = forged_card()
    calls = {
        "verify keys": lambda: a2a_card.verify(card, keys=[WEAK], now=NOW),
        "verify keys (text)": lambda: a2a_card.verify(card, keys=json.dumps(WEAK), now=NOW),
        "verify jwks": lambda: a2a_card.verify(card, jwks={"keys": [leaf_jwk(), WEAK]}, now=NOW),
        "Verifier jwks": lambda: a2a_card.Verifier(jwks={"keys": [WEAK]}).verify(card, now=NOW),
        "Verifier keys": lambda: a2a_card.Verifier(keys=WEAK).verify(card, now=NOW),
        "verify trust": lambda: a2a_card.verify(card, trust={"keys": [{"jwk": WEAK, "origins": [ORIGIN]}]}, now=NOW),
        "Verifier trust": lambda: a2a_card.Verifier(trust={"keys": [{"jwk": WEAK}]}).verify(card, now=NOW),
        "verify_many trust": lambda: a2a_card.verify_many([card], trust={"keys": [WEAK]}, now=NOW),
    }
    with pytest.raises(a2a_card.InvalidKeyError) as e:
        calls[how]()
    assert e.value.code == "weak-key", repr(e.value)
    assert "small order" in e.value.message, e.value.message
    assert WEAK["x"] not in str(e.value)


def test_the_forgery_is_not_valid_under_a_real_key() -> None:
    card = forged_card()
    r = a2a_card.verify(card, keys=[dict(leaf_jwk(), kid="weak")], now=NOW)
    assert not r.ok
    assert r.signatures[0].verdict.code != "valid"
