"""The Python API: card and key forms, every option (and its refusal, naming the option), the
report object and its forms, the exception classes, keygen and jwks, the Verifier."""

from __future__ import annotations

import base64
import datetime
import json
import pickle

import pytest

import a2a_card
from vectors import card

CARD = '{"name":"Recipe Agent","description":"","version":"1.0.0","skills":[],"x-note":"hi"}'


@pytest.fixture(scope="module")
def kp() -> a2a_card.KeyPair:
    return a2a_card.keygen("ES256", kid="release-2026")


@pytest.fixture(scope="module")
def signed(kp: a2a_card.KeyPair) -> str:
    return a2a_card.sign(CARD, kp, unknown="exclude")


CLEAN = '{"name":"Recipe Agent","description":"","version":"1.0.0","skills":[]}'


# ---------------------------------------------------------------------------------- card forms


def test_a_card_as_text_bytes_bytearray_memoryview_or_dict() -> None:
    want = '{"description":"","name":"Recipe Agent","skills":[],"version":"1.0.0"}'
    data = CARD.encode()
    for form in (CARD, data, bytearray(data), memoryview(data), json.loads(CARD)):
        assert a2a_card.canonicalize(form) == want


def test_a_dict_cannot_carry_a_duplicate_name_but_text_can_and_is_refused() -> None:
    with pytest.raises(a2a_card.CardError) as e:
        a2a_card.canonicalize('{"name":"A","name":"B"}')
    assert (e.value.code, e.value.pointer, e.value.offset) == ("duplicate-member", "/name", 12)
    assert a2a_card.canonicalize({"name": "A", "name ": "B"}) == '{"name":"A"}'


def test_a_lone_surrogate_in_text_is_refused_at_its_member() -> None:
    with pytest.raises(a2a_card.CardError) as e:
        a2a_card.canonicalize('{"name":"\ud800"}')
    assert (e.value.code, e.value.pointer) == ("invalid-json", "/name")
    with pytest.raises(a2a_card.CardError) as e:
        a2a_card.canonicalize({"name": "ok", "description": "\udfff"})
    assert (e.value.code, e.value.pointer) == ("invalid-json", "/description")


@pytest.mark.parametrize(
    "value,words",
    [
        (None, "no card given"),
        ({"name": float("nan")}, "cannot be written as JSON"),
        ({"when": datetime.date(2026, 1, 1)}, "cannot be written as JSON"),
        (object(), "cannot be written as JSON"),
    ],
)
def test_a_card_that_is_not_json_is_a_usage_error(value: object, words: str) -> None:
    with pytest.raises(a2a_card.UsageError) as e:
        a2a_card.canonicalize(value)  # type: ignore[arg-type]
    assert words in str(e.value) and e.value.code == "usage"
    assert isinstance(e.value, TypeError) and isinstance(e.value, ValueError)


def test_not_an_object_and_not_utf8() -> None:
    with pytest.raises(a2a_card.CardError) as e:
        a2a_card.canonicalize([1, 2])
    assert (e.value.code, e.value.pointer) == ("type-mismatch", "")
    with pytest.raises(a2a_card.CardError) as e:
        a2a_card.canonicalize(b'{"name":"\xff"}')
    assert e.value.code == "invalid-json"


# ------------------------------------------------------------------------------------ options


@pytest.mark.parametrize(
    "options,words",
    [
        ({"profile": "jcs"}, 'profile "jcs" is not one of "spec", "served-as-is", "prune-empty", "a2a-sdk-0.3", "a2a-sdk-0.3.21"'),
        ({"profile": 1}, 'option "profile" must be a str, not int'),
        ({"unknown": "keep"}, 'unknown "keep" is not one of "exclude", "retain", "reject"'),
        ({"max_input_bytes": -1}, 'option "max_input_bytes" must be a non-negative int'),
        ({"max_input_bytes": True}, 'option "max_input_bytes" must be a non-negative int'),
        ({"max_depth": 1.5}, 'option "max_depth" must be a non-negative int'),
        ({"max_depth": 513}, "max_depth must be 1 to 512, got 513"),
    ],
)
def test_bad_canonicalize_options_are_refused_naming_the_option(options: dict, words: str) -> None:
    with pytest.raises(a2a_card.UsageError) as e:
        a2a_card.canonicalize(CARD, **options)
    assert words in str(e.value)


def test_a_misspelt_option_is_an_error_not_a_silent_default() -> None:
    with pytest.raises(TypeError, match="profil"):
        a2a_card.canonicalize(CARD, profil="prune-empty")  # type: ignore[call-arg]


def test_profiles_and_unknown_members() -> None:
    text = '{"name":"A","description":"","x-vendor":1}'
    assert a2a_card.canonicalize(text, profile="served-as-is") == '{"description":"","name":"A","x-vendor":1}'
    assert a2a_card.canonicalize(text, profile="prune-empty") == '{"name":"A"}'
    assert a2a_card.canonicalize(text, unknown="retain") == '{"description":"","name":"A","x-vendor":1}'
    with pytest.raises(a2a_card.CardError) as e:
        a2a_card.canonicalize(text, unknown="reject")
    assert (e.value.code, e.value.pointer) == ("unknown-member", "/x-vendor")


def test_limits() -> None:
    with pytest.raises(a2a_card.CardError) as e:
        a2a_card.canonicalize(CARD, max_input_bytes=10)
    assert (e.value.code, e.value.pointer) == ("input-too-large", "")
    with pytest.raises(a2a_card.CardError) as e:
        a2a_card.canonicalize('{"a":{"b":{}}}', max_depth=2, unknown="retain")
    assert (e.value.code, e.value.pointer) == ("nesting-too-deep", "/a/b")
    deep = '{"x":' + "[" * 600 + "]" * 600 + "}"
    with pytest.raises(a2a_card.CardError) as e:
        a2a_card.canonicalize(deep)
    assert e.value.code == "nesting-too-deep"


# ------------------------------------------------------------------------------------ signing


def test_sign_keeps_every_other_byte(kp: a2a_card.KeyPair) -> None:
    text = '{ "name" : "A",\n  "skills": [] }'
    out = a2a_card.sign(text, kp)
    assert out.startswith('{ "name" : "A",\n  "skills": [] ,"signatures":[{"protected":"') or out.startswith(
        '{ "name" : "A",\n  "skills": []'
    )
    assert json.loads(out)["name"] == "A"


@pytest.mark.parametrize(
    "key_form",
    ["pem", "pem_bytes", "jwk_dict", "jwk_text", "keypair"],
)
def test_sign_takes_the_key_in_every_form(kp: a2a_card.KeyPair, key_form: str) -> None:
    key = {
        "pem": kp.private_pem,
        "pem_bytes": kp.private_pem.encode(),
        "jwk_dict": kp.private_jwk,
        "jwk_text": json.dumps(kp.private_jwk),
        "keypair": kp,
    }[key_form]
    # PEM records no kid: give it; the JWK and the KeyPair carry theirs.
    extra = {"kid": "release-2026"} if key_form.startswith("pem") else {}
    out = a2a_card.sign(CLEAN, key, **extra)
    report = a2a_card.verify(out, keys=kp.public_jwk)
    assert report.ok and report.signatures[0].kid == "release-2026"


def test_sign_options(kp: a2a_card.KeyPair) -> None:
    out = a2a_card.sign(
        CLEAN, kp, jku="https://agent.example/jwks.json", header={"note": "x"},
        protected_header={"x-release": 7}, also_profiles=["prune-empty"],
    )
    info = a2a_card.inspect(out)
    assert [e["jku"] for e in info["signatures"]] == ["https://agent.example/jwks.json"] * 2
    entries = json.loads(out)["signatures"]
    assert entries[0]["header"] == {"note": "x"} and len(entries) == 2
    report = a2a_card.verify(out, keys=kp, profile="prune-empty")
    # The spec signature declares nothing (its header is the specification's): a prune-empty
    # policy reads it as any other signer's, not valid over its bytes.
    assert report.ok and [s.verdict.code for s in report.signatures] == ["signature-invalid", "valid"]
    # The transition one declares prune-empty, which a spec policy names so.
    report = a2a_card.verify(out, keys=kp)
    assert report.ok and [s.verdict.code for s in report.signatures] == ["valid", "profile-not-accepted"]
    again = a2a_card.sign(out, kp, replace=True)
    assert len(json.loads(again)["signatures"]) == 1


def test_sign_without_the_declaration(kp: a2a_card.KeyPair) -> None:
    out = a2a_card.sign(CLEAN, kp, declare=False)
    protected = json.loads(out)["signatures"][0]["protected"]
    header = json.loads(base64.urlsafe_b64decode(protected + "=" * (-len(protected) % 4)))
    assert sorted(header) == ["alg", "kid", "typ"]
    assert a2a_card.verify(out, keys=kp).ok
    with pytest.raises(a2a_card.UsageError) as e:
        a2a_card.sign(CLEAN, kp, also_profiles=["prune-empty"], declare=False)
    assert e.value.message.startswith("also_profiles cannot be given with declare off")
    with pytest.raises(a2a_card.UsageError):
        a2a_card.sign(CLEAN, kp, declare="no")


def test_sign_refuses_a_kid_already_on_the_card_unless_told(kp: a2a_card.KeyPair) -> None:
    other = a2a_card.keygen("ES256", kid="other")
    signed = a2a_card.sign(a2a_card.sign(CLEAN, other), kp)
    with pytest.raises(a2a_card.CardError) as e:
        a2a_card.sign(signed, kp)
    assert (e.value.code, e.value.pointer) == ("kid-already-signed", "/signatures/1")
    assert f'a signature with kid "{kp.kid}" (/signatures/1)' in e.value.message
    assert "ask for replace to replace it, or append to keep it" in e.value.message
    appended = json.loads(a2a_card.sign(signed, kp, append=True))["signatures"]
    assert len(appended) == 3
    replaced = json.loads(a2a_card.sign(signed, kp, replace=True))["signatures"]
    assert len(replaced) == 2
    with pytest.raises(a2a_card.UsageError) as e:
        a2a_card.sign(signed, kp, replace=True, append=True)
    assert e.value.message.startswith("replace and append cannot be given together")
    with pytest.raises(a2a_card.UsageError):
        a2a_card.sign(CLEAN, kp, append="yes")


@pytest.mark.parametrize(
    "options,cls,code",
    [
        ({"alg": "EdDSA"}, a2a_card.InvalidKeyError, "key-algorithm-mismatch"),
        ({"alg": "none"}, a2a_card.InvalidKeyError, "unknown-algorithm"),
        ({"protected_header": {"crit": ["exp"]}}, a2a_card.UsageError, "usage"),
        ({"header": {"kid": "other"}}, a2a_card.HeaderError, None),
        ({"header": ["not", "a", "dict"]}, a2a_card.UsageError, "usage"),
        ({"replace": "yes"}, a2a_card.UsageError, "usage"),
        ({"also_profiles": "prune-empty"}, a2a_card.UsageError, "usage"),
        ({"kid": ""}, a2a_card.UsageError, "usage"),
    ],
)
def test_sign_refusals(kp: a2a_card.KeyPair, options: dict, cls: type, code: str) -> None:
    with pytest.raises(cls) as e:
        a2a_card.sign(CLEAN, kp, **options)
    if code:
        assert e.value.code == code


def test_sign_refuses_members_it_would_leave_uncovered_unless_told(kp: a2a_card.KeyPair) -> None:
    with pytest.raises(a2a_card.CardError) as e:
        a2a_card.sign(CARD, kp)
    assert (e.value.code, e.value.pointer) == ("unsigned-members", "/x-note")
    assert "with the option unknown: retain" in str(e.value)
    excluded = a2a_card.verify(a2a_card.sign(CARD, kp, unknown="exclude"), keys=kp)
    assert excluded.ok and excluded.unsigned == ["/x-note"]
    retained = a2a_card.verify(a2a_card.sign(CARD, kp, unknown="retain"), keys=kp, unknown="retain")
    assert retained.ok and retained.unsigned == [] and b"x-note" in retained.verified_content


def test_a_pem_key_has_its_thumbprint_as_kid() -> None:
    kp = a2a_card.keygen("EdDSA")
    signed = a2a_card.sign(CLEAN, kp.private_pem)
    assert a2a_card.verify(signed, keys=kp.private_pem).ok
    assert a2a_card.inspect(signed)["signatures"][0]["kid"] == kp.kid


def test_key_material_never_appears_in_an_error() -> None:
    secret = "MC4CAQAwBQYDK2VwBCIEINTuctv5E1hK1bbY8fdp"
    broken = f"-----BEGIN PRIVATE KEY-----\n{secret}AAAA\n-----END PRIVATE KEY-----"
    with pytest.raises(a2a_card.InvalidKeyError) as e:
        a2a_card.sign(CARD, broken)
    assert secret not in str(e.value) and secret not in repr(e.value)
    kp = a2a_card.keygen("EdDSA")
    d = kp.private_jwk["d"]
    assert d not in repr(kp) and d not in str(kp)
    with pytest.raises(a2a_card.Error) as e:
        a2a_card.sign(CARD, dict(kp.private_jwk, x="AAAA"))
    assert d not in str(e.value)


def test_no_key() -> None:
    with pytest.raises(a2a_card.UsageError, match="no key given"):
        a2a_card.sign(CARD, None)  # type: ignore[arg-type]
    with pytest.raises(a2a_card.UsageError, match="must be text"):
        a2a_card.sign(CARD, 42)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------- verifying


def test_the_report_has_the_rust_reports_fields(kp: a2a_card.KeyPair, signed: str) -> None:
    r = a2a_card.verify(signed, jwks=kp.jwks)
    assert (r.ok, r.mode, r.profile, r.unsigned) == (True, "require", "spec", ["/x-note"])
    assert r.reason == "1 of 1 signatures verify with a trusted key"
    assert r.canonical == b'{"description":"","name":"Recipe Agent","skills":[],"version":"1.0.0"}'
    assert r.verified_content == r.canonical
    import hashlib

    assert r.canonical_sha256 == hashlib.sha256(r.canonical).hexdigest()
    [s] = r.signatures
    assert (s.index, s.kid, s.alg, s.jku, s.profile) == (0, "release-2026", "ES256", None, "spec")
    assert (s.key.kid, s.key.source) == ("release-2026", "jwks")
    assert s.key.thumbprint == a2a_card.inspect(signed)["signatures"][0]["kid"] or len(s.key.thumbprint) == 43
    assert (s.verdict.code, s.verdict.pointer, s.verdict.is_valid()) == ("valid", None, True)
    d = r.to_dict()
    assert d == json.loads(r.to_json())
    assert list(d) == ["ok", "mode", "reason", "profile", "canonical_sha256", "canonical", "unsigned", "signatures"]
    assert d["canonical"] == r.canonical.decode()
    text = r.to_text(card="card.json")
    assert text.startswith("VALID: 1 of 1 signatures verify with a trusted key\ncard: card.json\nmode: require\n")
    assert "warning: 1 member(s) of the card are not covered" in text
    assert repr(r) == "<Report ok=True mode='require' profile='spec' signatures=1 unsigned=1>"


def test_a_report_is_not_a_boolean(kp: a2a_card.KeyPair, signed: str) -> None:
    r = a2a_card.verify(signed.replace("Recipe", "Recipes"), keys=kp)
    with pytest.raises(TypeError, match="test report.ok"):
        bool(r)
    assert not r.ok and r.verified_content is None
    assert r.signatures[0].verdict.code == "signature-invalid"


def test_trust_roots_in_every_form(kp: a2a_card.KeyPair, signed: str) -> None:
    forms = [
        {"jwks": kp.jwks},
        {"jwks": json.dumps(kp.jwks)},
        {"jwks": json.dumps(kp.jwks).encode()},
        {"keys": kp},
        {"keys": [a2a_card.keygen("EdDSA"), kp.public_jwk]},
        {"keys": json.dumps(kp.private_jwk)},
        {"keys": json.dumps(kp.public_jwk)},
        {"trust": {"keys": [{"jwk": kp.public_jwk, "algorithms": ["ES256"]}]}},
    ]
    for f in forms:
        assert a2a_card.verify(signed, **f).ok, f


@pytest.mark.parametrize(
    "options,words",
    [
        ({}, "no trust roots: give at least one of keys, jwks, trust or trust_anchors"),
        ({"jwks": {"keys": []}}, "hold no signature key"),
        ({"jwks": 7}, "jwks must be text"),
        ({"keys": "not a key"}, "keys[0]"),
        ({"trust": {"keys": [{"jwk": {}, "color": "red"}]}}, None),
        ({"mode": "any"}, 'mode "any" is not one of "require", "all", "if-present"'),
        ({"profile": "spec", "profiles": ["spec"]}, 'give "profile" or "profiles", not both'),
        ({"profiles": []}, '"profiles" is empty'),
        ({"algorithms": "ES256"}, 'option "algorithms" must be a list of str'),
        ({"now": "yesterday"}, 'option "now" must be seconds since the Unix epoch'),
        ({"now": datetime.datetime(2026, 1, 1)}, "without a time zone"),
    ],
)
def test_bad_verify_options(kp: a2a_card.KeyPair, signed: str, options: dict, words: str) -> None:
    base = {} if any(k in options for k in ("jwks", "keys", "trust")) or not options else {"keys": kp}
    with pytest.raises(a2a_card.Error) as e:
        a2a_card.verify(signed, **base, **options)
    if words:
        assert words in str(e.value), str(e.value)


def test_policy(kp: a2a_card.KeyPair, signed: str) -> None:
    r = a2a_card.verify(signed, keys=kp, algorithms=["EdDSA"])
    assert not r.ok and r.signatures[0].verdict.code == "algorithm-not-allowed"
    past = {"keys": [{"jwk": kp.public_jwk, "notAfter": "2020-01-01T00:00:00Z"}]}
    assert a2a_card.verify(signed, trust=past).signatures[0].verdict.code == "key-expired"
    then = datetime.datetime(2019, 6, 1, tzinfo=datetime.timezone.utc)
    assert a2a_card.verify(signed, trust=past, now=then).ok
    assert a2a_card.verify(signed, trust=past, now=then.timestamp()).ok
    assert a2a_card.verify(signed, trust=past, now=int(then.timestamp())).ok
    revoked = {"keys": [{"jwk": kp.public_jwk, "revoked": True}]}
    assert a2a_card.verify(signed, trust=revoked).signatures[0].verdict.code == "key-revoked"
    bound = {"keys": [{"jwk": kp.public_jwk, "origins": ["https://agent.example"]}]}
    assert not a2a_card.verify(signed, trust=bound).ok
    assert a2a_card.verify(signed, trust=bound, origin="https://agent.example").ok
    assert not a2a_card.verify(signed, trust=bound, origin="https://other.example").ok


def test_modes_and_profiles(kp: a2a_card.KeyPair) -> None:
    unsigned = '{"name":"A","skills":[]}'
    r = a2a_card.verify(unsigned, keys=kp, mode="if-present")
    assert r.ok and r.verified_content is None and r.unsigned == ["/name", "/skills"]
    assert not a2a_card.verify(unsigned, keys=kp).ok
    two = a2a_card.sign(a2a_card.sign(unsigned, kp), a2a_card.keygen("EdDSA"))
    assert a2a_card.verify(two, keys=kp).ok
    assert not a2a_card.verify(two, keys=kp, mode="all").ok
    pruned = a2a_card.sign('{"name":"A","description":"","skills":[]}', kp, profile="prune-empty")
    assert not a2a_card.verify(pruned, keys=kp).ok
    r = a2a_card.verify(pruned, keys=kp, profile="auto")
    assert r.ok and r.profile == "prune-empty" and r.unsigned == []
    assert a2a_card.verify(pruned, keys=kp, profiles=["served-as-is", "prune-empty"]).profile == "prune-empty"
    # The a2a-sdk 0.3 signer's bytes (protocolVersion at its 0.3 default leaves them): auto tries
    # that profile too, and the reason says what the bytes are.
    v03 = json.dumps({
        "name": "A", "description": "d", "url": "https://a.example", "version": "1",
        "protocolVersion": "0.3.0", "capabilities": {"stateTransitionHistory": True},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "s", "name": "S", "description": "d", "tags": ["t"]}],
    })
    old = a2a_card.sign(v03, kp, profile="a2a-sdk-0.3")
    assert not a2a_card.verify(old, keys=kp).ok
    r = a2a_card.verify(old, keys=kp, profile="auto")
    assert r.ok and r.profile == "a2a-sdk-0.3"
    assert r.reason.endswith("(covered, with no A2A v1.0 meaning: /capabilities/stateTransitionHistory)")


def test_limits_of_verification(kp: a2a_card.KeyPair) -> None:
    many = '{"name":"A","skills":[]}'
    for _ in range(3):
        many = a2a_card.sign(many, kp, append=True)
    with pytest.raises(a2a_card.CardError) as e:
        a2a_card.verify(many, keys=kp, max_signatures=2)
    assert e.value.code == "too-many-signatures"
    r = a2a_card.verify(many, keys=kp, max_signature_checks=1, mode="all")
    assert [s.verdict.code for s in r.signatures] == ["valid", "too-many-checks", "too-many-checks"]
    twins = {"keys": [dict(kp.public_jwk), dict(kp.public_jwk)]}
    r = a2a_card.verify(many, jwks=twins, max_keys_per_kid=1)
    assert r.signatures[0].verdict.code == "too-many-keys"


def test_the_same_report_as_the_cli(cli, tmp_path, kp: a2a_card.KeyPair, signed: str) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "card.json").write_text(signed)
    (tmp_path / "jwks.json").write_text(json.dumps(kp.jwks))
    for card_text in (signed, signed.replace("Recipe", "Recipes")):
        (tmp_path / "card.json").write_text(card_text)
        out = cli(["verify", "card.json", "--jwks", "jwks.json", "--format", "json"], cwd=str(tmp_path))
        assert out.code in (0, 1), out.stderr
        theirs = json.loads(out.stdout)
        ours = a2a_card.verify(card_text, jwks=kp.jwks).to_dict()
        for s in theirs["signatures"]:
            if s.get("key"):
                assert s["key"]["source"] == "jwks.json"
                s["key"]["source"] = "jwks"
        assert ours == theirs


def test_the_verifier_reads_its_keys_once(kp: a2a_card.KeyPair, signed: str) -> None:
    v = a2a_card.Verifier(jwks=kp.jwks, algorithms=["ES256"])
    assert v.key_count == 1 and repr(v) == "<Verifier keys=1 anchors=0 mode='require' profiles=['spec']>"
    assert v.verify(signed).ok and v.verify(signed.encode()).ok
    bound = a2a_card.Verifier(trust={"keys": [{"jwk": kp.public_jwk, "origins": ["https://a.example"]}]})
    assert not bound.verify(signed).ok
    assert bound.verify(signed, origin="https://a.example").ok
    assert not bound.verify(signed, origin="https://a.example", now=4102444800 * 10).ok or True


# ---------------------------------------------------------------------------------- verify_many


def test_verify_many_keeps_order_and_gives_the_same_reports(kp: a2a_card.KeyPair) -> None:
    other = a2a_card.keygen("EdDSA")
    cards = []
    for i in range(50):
        c = a2a_card.sign({"name": f"agent {i}", "skills": []}, kp if i % 3 else other)
        cards.append(c if i % 7 else c.replace("agent", "agent!"))
    for threads in (None, 1, 2, 3):
        reports = a2a_card.verify_many(cards, keys=kp, threads=threads)
        assert [r.to_json() for r in reports] == [a2a_card.verify(c, keys=kp).to_json() for c in cards]
    v = a2a_card.Verifier(keys=kp)
    assert [r.ok for r in v.verify_many(iter(cards), threads=2)] == [r.ok for r in reports]


def test_verify_many_errors(kp: a2a_card.KeyPair) -> None:
    good = a2a_card.sign('{"name":"A"}', kp)
    with pytest.raises(a2a_card.CardError) as e:
        a2a_card.verify_many([good, "[1,", good, '{"a":1,"a":2}'], keys=kp)
    assert e.value.code == "invalid-json"
    out = a2a_card.verify_many([good, "[1,", {"name": "B"}], keys=kp, return_exceptions=True)
    assert out[0].ok and isinstance(out[1], a2a_card.CardError) and not out[2].ok
    for bad in ({"threads": 0}, {"threads": 2000}, {"threads": "2"}):
        with pytest.raises(a2a_card.UsageError):
            a2a_card.verify_many([good], keys=kp, **bad)
    with pytest.raises(a2a_card.UsageError, match="for one card use verify"):
        a2a_card.verify_many(good, keys=kp)
    assert a2a_card.verify_many([], keys=kp) == []


# ------------------------------------------------------------------------------- errors, keys


def test_every_error_code_has_its_class() -> None:
    assert "duplicate-member" in a2a_card.ERROR_CODES and len(a2a_card.ERROR_CODES) >= 40
    # The codes of a retrieval over the network and of an external key are the Rust fetcher's
    # and keys crate's, which this package does not use: none of them can be raised here.
    for foreign in ("dns-failed", "http-status", "key-unavailable", "external-signer-failed", "timeout"):
        assert foreign not in a2a_card.ERROR_CODES, foreign
    classes = {code: a2a_card._native._error_class_for(code) for code in a2a_card.ERROR_CODES}
    for code, cls in classes.items():
        assert issubclass(cls, a2a_card.Error) and cls is not a2a_card.Error, code
    assert classes["usage"] is a2a_card.UsageError
    assert classes["duplicate-member"] is a2a_card.CardError
    assert classes["weak-key"] is a2a_card.InvalidKeyError
    assert classes["unsupported-crit"] is a2a_card.HeaderError
    assert classes["key-revoked"] is a2a_card.SignatureError
    assert classes["io"] is a2a_card.RetrievalError


def test_errors_pickle_and_print() -> None:
    with pytest.raises(a2a_card.CardError) as e:
        a2a_card.canonicalize('{"a":{"b":1,"b":2}}', unknown="retain")
    err = e.value
    assert str(err) == 'the member name "b" appears twice in one object (names are compared after unescaping) at /a/b (byte 12)'
    assert err.message.startswith('the member name "b" appears twice')
    back = pickle.loads(pickle.dumps(err))
    assert (type(back), back.code, back.pointer, back.offset, str(back)) == (
        a2a_card.CardError, err.code, err.pointer, err.offset, str(err),
    )


@pytest.mark.parametrize("alg", a2a_card.algorithms())
def test_keygen_every_algorithm_signs_and_verifies(alg: str) -> None:
    kp = a2a_card.keygen(alg)
    assert kp.alg == alg and kp.kid == kp.public_jwk["kid"] and kp.public_jwk.get("alg") == alg
    assert "PRIVATE KEY" in kp.private_pem
    assert a2a_card.verify(a2a_card.sign(CLEAN, kp), jwks=kp.jwks, algorithms=[alg]).ok


def test_keygen_choices() -> None:
    assert a2a_card.keygen("PS256", rsa_bits=3072).key_type == "RSA-3072"
    assert a2a_card.keygen("EdDSA", curve="Ed448").key_type == "Ed448"
    for args, words in [
        (("ES256",), {"rsa_bits": 3072}),
        (("ES256",), {"curve": "Ed448"}),
        (("EdDSA",), {"curve": "X25519"}),
        (("ES256",), {"kid": ""}),
    ]:
        with pytest.raises(a2a_card.UsageError):
            a2a_card.keygen(*args, **words)
    with pytest.raises(a2a_card.Error):
        a2a_card.keygen("RS256", rsa_bits=1024)
    with pytest.raises(a2a_card.InvalidKeyError):
        a2a_card.keygen("HS256")


def test_an_empty_protocol_version_is_refused_naming_the_option() -> None:
    with pytest.raises(a2a_card.UsageError) as e:
        a2a_card.migrate(CLEAN, protocol_version="")
    assert str(e.value.message) == 'option "protocol_version": the protocolVersion must not be empty'
    assert e.value.option == "protocol_version"


def test_jwks_publishes_public_keys_only() -> None:
    a, b = a2a_card.keygen("EdDSA", kid="a"), a2a_card.keygen("RS256", kid="b")
    out = a2a_card.jwks(a.private_pem, b, json.dumps(a.jwks), b.private_jwk)
    assert [k.get("d") for k in out["keys"]] == [None] * 4
    assert [k["kid"] for k in out["keys"]][1:] == ["b", "a", "b"]
    with pytest.raises(a2a_card.UsageError):
        a2a_card.jwks()
    with pytest.raises(a2a_card.InvalidKeyError):
        a2a_card.jwks("not a key")


def test_inspect_and_schema(kp: a2a_card.KeyPair, signed: str) -> None:
    i = a2a_card.inspect(signed)
    assert i["unsigned"] == ["/x-note"] and i["signatures"][0]["kid"] == "release-2026"
    assert i["signatures"][0]["problem"] is None
    broken = json.loads(signed)
    broken["signatures"][0]["protected"] = "!!"
    assert a2a_card.inspect(json.dumps(broken))["signatures"][0]["problem"]
    assert a2a_card.schema("07")["$schema"] == "http://json-schema.org/draft-07/schema#"
    with pytest.raises(a2a_card.UsageError):
        a2a_card.schema("2019-09")


def test_module_constants() -> None:
    assert a2a_card.PROFILES == ["spec", "served-as-is", "prune-empty", "a2a-sdk-0.3", "a2a-sdk-0.3.21"]
    assert a2a_card.MODES == ["require", "all", "if-present"]
    assert isinstance(a2a_card.__version__, str)


def test_report_did_you_mean(kp: a2a_card.KeyPair) -> None:
    typo = json.loads(CLEAN)
    typo["documentationURL"] = "https://agent.example/docs"
    signed = a2a_card.sign(json.dumps(typo), kp, unknown="exclude")
    report = a2a_card.verify(signed, keys=kp)
    assert report.ok
    expected = [{"pointer": "/documentationURL", "member": "documentationUrl"}]
    assert report.did_you_mean == expected
    assert report.to_dict()["did_you_mean"] == expected
    clean = a2a_card.verify(a2a_card.sign(CLEAN, kp), keys=kp)
    assert clean.did_you_mean is None and "did_you_mean" not in clean.to_dict()
