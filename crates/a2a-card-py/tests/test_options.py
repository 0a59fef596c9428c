"""The Python package reads its options by the core's rules, as the CLI's flags and the npm
package's options are: every bound (the CLI's clap bounds are the same core constants), the
refusal of HMAC in an algorithm allowlist, the one reading of an origin. And no exception of the
package (its message, repr, args, attributes, cause or traceback) holds a piece of a private
key, whatever shape the key was given in."""

from __future__ import annotations

import base64
import json
import re
import traceback
from typing import Any, Iterator, List, Set

import pytest

import a2a_card
from a2a_card.sdk import CardSigner, CardVerifier

CLEAN = '{"name":"Recipe Agent","description":"","version":"1.0.0","skills":[]}'

# The core's bounds (a2a_card::signature::MAX_*_LIMIT, a2a_card::canonical::MAX_*_LIMIT).
BOUNDS = [
    ("max_signatures", 256),
    ("max_keys_per_kid", 256),
    ("max_signature_checks", 4096),
    ("max_input_bytes", 1 << 30),
    ("max_depth", 512),
]


@pytest.fixture(scope="module")
def kp() -> a2a_card.KeyPair:
    return a2a_card.keygen("ES256", kid="release-2026")


@pytest.fixture(scope="module")
def signed(kp: a2a_card.KeyPair) -> str:
    return a2a_card.sign(CLEAN, kp)


# ----------------------------------------------------------------------------------- bounds


@pytest.mark.parametrize("name,limit", BOUNDS)
def test_every_limit_has_the_cores_bounds(kp: a2a_card.KeyPair, signed: str, name: str, limit: int) -> None:
    for bad in (0, limit + 1, 10**9, 10**12, 2**40):
        if bad <= limit and bad != 0:
            continue
        calls = [
            lambda: a2a_card.verify(signed, jwks=kp.jwks, **{name: bad}),
            lambda: a2a_card.Verifier(jwks=kp.jwks, **{name: bad}),
            lambda: a2a_card.verify_many([signed], jwks=kp.jwks, **{name: bad}),
            lambda: CardVerifier(jwks=kp.jwks, **{name: bad}),
        ]
        for call in calls:
            with pytest.raises(a2a_card.UsageError) as e:
                call()
            assert e.value.code == "usage"
            assert e.value.message == f"{name} must be 1 to {limit}, got {bad}"
            assert "--" not in str(e.value)
    assert a2a_card.verify(signed, jwks=kp.jwks, **{name: limit}).ok
    assert a2a_card.Verifier(jwks=kp.jwks, **{name: limit}).verify(signed).ok


def test_the_reader_limits_are_bounded_for_every_function(kp: a2a_card.KeyPair) -> None:
    for name, limit in BOUNDS[3:]:
        for bad in (0, limit + 1):
            for call in (
                lambda: a2a_card.canonicalize(CLEAN, **{name: bad}),
                lambda: a2a_card.inspect(CLEAN, **{name: bad}),
                lambda: a2a_card.lint(CLEAN, **{name: bad}),
                lambda: a2a_card.migrate(CLEAN, **{name: bad}),
                lambda: a2a_card.sign(CLEAN, kp, **{name: bad}),
            ):
                with pytest.raises(a2a_card.UsageError) as e:
                    call()
                assert e.value.message == f"{name} must be 1 to {limit}, got {bad}"


@pytest.mark.parametrize("algorithms", [["HS256"], ["ES256", "HS384"], ["HS512", "EdDSA"], []])
def test_an_algorithm_allowlist_with_hmac_or_nothing_is_refused(
    kp: a2a_card.KeyPair, signed: str, algorithms: List[str]
) -> None:
    for call in (
        lambda: a2a_card.verify(signed, jwks=kp.jwks, algorithms=algorithms),
        lambda: a2a_card.Verifier(jwks=kp.jwks, algorithms=algorithms),
        lambda: CardVerifier(jwks=kp.jwks, algorithms=algorithms),
    ):
        with pytest.raises(a2a_card.UsageError) as e:
            call()
        assert e.value.message.startswith("algorithms"), e.value.message
        assert "--alg" not in str(e.value)
    assert a2a_card.verify(signed, jwks=kp.jwks, algorithms=["ES256"]).ok


BAD_ORIGINS = [
    "https://agent.example\0",
    "https://agent\0.example",
    "https://agent.example\0.evil.example",
    "https://agent.example/\0",
    "https://agent.exa\x7fmple",
    "https://agent .example",
    "https://agent%2eexample",
    "https://agent.example/path",
    "https://agent.example?q",
    "https://user@agent.example",
    "http://agent.example",
    "agent.example",
    "https://agent.example:65536",
]


@pytest.mark.parametrize("origin", BAD_ORIGINS)
def test_an_origin_that_is_not_one_is_refused(kp: a2a_card.KeyPair, signed: str, origin: str) -> None:
    bound = {"keys": [{"jwk": kp.public_jwk, "origins": ["https://agent.example"]}]}
    verifier = a2a_card.Verifier(trust=bound)
    for call in (
        lambda: a2a_card.verify(signed, trust=bound, origin=origin),
        lambda: a2a_card.Verifier(trust=bound, origin=origin),
        lambda: verifier.verify(signed, origin=origin),
        lambda: verifier.verify_many([signed], origin=origin, return_exceptions=True),
        lambda: CardVerifier(trust=bound, origin=origin),
    ):
        with pytest.raises(a2a_card.UsageError) as e:
            call()
        assert e.value.message.startswith("origin: "), e.value.message
        assert e.value.option == "origin", e.value.message
        assert "\0" not in str(e.value) and "\x7f" not in str(e.value)
    assert verifier.verify(signed, origin="https://Agent.example:443").ok


# ---------------------------------------------------------------------- no key material


def _texts(exc: BaseException) -> Iterator[str]:
    """Every text an exception shows: str, repr, args, attributes, the traceback, and the same
    of its cause and context."""
    seen: Set[int] = set()
    todo: List[Any] = [exc]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        yield str(e)
        yield repr(e)
        yield "".join(traceback.format_exception(type(e), e, e.__traceback__))
        for a in e.args:
            yield repr(a)
        for name in dir(e):
            if name.startswith("__"):
                continue
            try:
                yield repr(getattr(e, name))
            except Exception:  # noqa: BLE001 - an attribute that cannot be read shows nothing
                pass
        todo += [e.__cause__, e.__context__]


def _pieces(secret: str, n: int = 8) -> Set[str]:
    """Every run of n characters of the base64 text of a secret (newlines dropped)."""
    flat = re.sub(r"\s", "", secret)
    return {flat[i : i + n] for i in range(len(flat) - n + 1)}


def _pem_body(pem: str) -> str:
    return "".join(line for line in pem.strip().splitlines() if not line.startswith("-----"))


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _bad_keys() -> Iterator[Any]:
    """(label, key as given, the secret texts it holds) for keys in bad shapes."""
    for alg in ("ES256", "EdDSA", "RS256"):
        kp = a2a_card.keygen(alg, kid="k")
        pem, body = kp.private_pem, _pem_body(kp.private_pem)
        head, foot = pem.strip().splitlines()[0], pem.strip().splitlines()[-1]
        cut = len(body) // 2
        yield f"{alg} PEM truncated", f"{head}\n{body[:cut]}\n{foot}\n", [body]
        yield f"{alg} PEM one character changed", f"{head}\n{body[:cut]}{'A' if body[cut] != 'A' else 'B'}{body[cut + 1:]}\n{foot}\n", [body]
        yield f"{alg} PEM foreign character", f"{head}\n{body[:cut]}*{body[cut:]}\n{foot}\n", [body]
        yield f"{alg} PEM wrong label", pem.replace("PRIVATE KEY", "RSA PRIVATE KEY" if alg != "RS256" else "EC PRIVATE KEY"), [body]
        yield f"{alg} PEM as a public key", pem.replace("PRIVATE KEY", "PUBLIC KEY"), [body]
        yield f"{alg} PEM without its end", f"{head}\n{body}\n", [body]
        yield f"{alg} PEM with trailing garbage", pem + "garbage" + body[:40], [body]
        yield f"{alg} PEM in bytes not UTF-8", (pem.replace(body[10:20], body[10:20] + "\udcff")).encode("utf-8", "surrogateescape"), [body]
        jwk = dict(kp.private_jwk)
        secrets = [v for k, v in jwk.items() if k in ("d", "p", "q", "dp", "dq", "qi")]
        d = jwk["d"]
        yield f"{alg} JWK d truncated", {**jwk, "d": d[: len(d) // 2]}, secrets
        yield f"{alg} JWK d padded", {**jwk, "d": d + "="}, secrets
        yield f"{alg} JWK d foreign character", {**jwk, "d": d[:10] + "+" + d[11:]}, secrets
        yield f"{alg} JWK d a number", {**jwk, "d": 12345678901234567890}, secrets
        yield f"{alg} JWK wrong kty", {**jwk, "kty": "oct"}, secrets
        yield f"{alg} JWK unknown member", {**jwk, "extra": d}, secrets
        text = json.dumps(jwk)
        yield f"{alg} JWK text cut", text[: text.index(d) + len(d) // 2], secrets
        yield f"{alg} JWK text with a control character in d", text.replace(d, d[:12] + "\n" + d[12:]), secrets
        yield f"{alg} JWK text with d twice", text[:-1] + f', "d": "{d}"}}', secrets
    # An EC private key whose d is not below the group order, and one whose public part is
    # another key's.
    kp, other = a2a_card.keygen("ES256"), a2a_card.keygen("ES256")
    big = _b64url(b"\xff" * 32)
    yield "ES256 JWK d past the order", {**kp.private_jwk, "d": big}, [big, kp.private_jwk["d"]]
    mixed = {**kp.private_jwk, "x": other.public_jwk["x"], "y": other.public_jwk["y"]}
    yield "ES256 JWK d of another key", mixed, [kp.private_jwk["d"]]
    # An RSA key under 2048 bits (weak-key), when cryptography can make one.
    try:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import rsa

        small = rsa.generate_private_key(public_exponent=65537, key_size=1024)
        pem = small.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption()
        ).decode()
        yield "RS256 PKCS#1 PEM of 1024 bits", pem, [_pem_body(pem)]
    except ImportError:
        pass


def test_no_exception_holds_key_material() -> None:
    tried = 0
    for label, key, secrets in _bad_keys():
        pieces: Set[str] = set()
        for s in secrets:
            pieces |= _pieces(s)
        for call in (
            lambda: a2a_card.sign(CLEAN, key),
            lambda: CardSigner(key).sign(json.loads(CLEAN)),
            lambda: a2a_card.verify(CLEAN, keys=[key]),
            lambda: a2a_card.Verifier(keys=key),
            lambda: a2a_card.jwks(key),
            lambda: a2a_card.Verifier(jwks={"keys": [key]}),
            lambda: a2a_card.Verifier(trust={"keys": [{"jwk": key}]}),
            lambda: a2a_card.Verifier(trust={"keys": [{"pem": key}]}),
        ):
            try:
                call()
            except Exception as e:  # noqa: BLE001 - every exception is looked at
                tried += 1
                for text in _texts(e):
                    found = [p for p in pieces if p in text]
                    assert not found, f"{label}: {type(e).__name__} shows key material {found[:3]}: {text[:300]!r}"
            else:
                # A public half read from a private key is fine for keys=; a signing key must
                # not be accepted in a bad shape.
                pass
    assert tried > 100


@pytest.mark.parametrize(
    "options, option, message",
    [
        # A bound (the core's), a value of the wrong type (the package's reader), a name (the core's).
        ({"max_chain": 9}, "max_chain", "max_chain must be 1 to 8, got 9"),
        ({"max_header_bytes": 0}, "max_header_bytes", "max_header_bytes must be 1 to 1048576, got 0"),
        ({"max_signatures": "16"}, "max_signatures", None),
        ({"mode": "any"}, "mode", None),
        ({"algorithms": ["HS256"]}, "algorithms", None),
        ({"require_eku": ""}, "require_eku", None),
    ],
)
def test_an_error_about_an_option_carries_it_in_snake_case(options: dict, option: str, message: Any) -> None:
    kp = a2a_card.keygen("EdDSA")
    calls = [
        lambda: a2a_card.verify(CLEAN, jwks=kp.jwks, **options),
        lambda: a2a_card.verify_many([CLEAN], jwks=kp.jwks, **options),
        lambda: a2a_card.Verifier(jwks=kp.jwks, **options),
    ]
    for call in calls:
        with pytest.raises(a2a_card.UsageError) as e:
            call()
        assert (e.value.code, e.value.option) == ("usage", option), e.value
        if message is not None:
            assert e.value.message == message
        # Kept by pickling, as every attribute is.
        import pickle

        assert pickle.loads(pickle.dumps(e.value)).option == option


def test_an_error_about_no_option_has_none_and_other_calls_name_theirs() -> None:
    with pytest.raises(a2a_card.CardError) as e:
        a2a_card.canonicalize('{"a":1,"a":2}')
    assert e.value.option is None
    with pytest.raises(a2a_card.UsageError) as e:
        a2a_card.canonicalize(CLEAN, max_depth=0)
    assert e.value.option == "max_depth"
    with pytest.raises(a2a_card.UsageError) as e:
        a2a_card.verify_many([CLEAN], threads=0, keys=a2a_card.keygen("EdDSA"))
    assert e.value.option == "threads"


def test_a_keyword_the_tables_lack_is_the_type_error_python_raises_in_every_function() -> None:
    # canonicalize, inspect, lint and migrate read their keywords by the core's tables too.
    for f in (a2a_card.canonicalize, a2a_card.canonicalize_with_report, a2a_card.inspect, a2a_card.lint, a2a_card.migrate):
        with pytest.raises(TypeError) as e:
            f(CLEAN, max_depths=2)  # type: ignore[call-arg]
        assert not isinstance(e.value, a2a_card.Error)
        assert str(e.value) == f"{f.__name__}() got an unexpected keyword argument 'max_depths'"
        # None is an option not given, as before.
        assert f(CLEAN, max_depth=None) is not None
    # Each function takes its own table's options alone.
    with pytest.raises(TypeError, match="lint\\(\\) got an unexpected keyword argument 'profile'"):
        a2a_card.lint(CLEAN, profile="spec")  # type: ignore[call-arg]
    with pytest.raises(a2a_card.UsageError) as e:
        a2a_card.canonicalize(CLEAN, profile="jcs")
    assert (e.value.option, e.value.message) == ("profile", 'profile "jcs" is not one of "spec", "served-as-is", "prune-empty", "a2a-sdk-0.3", "a2a-sdk-0.3.21"')


def test_a_verify_keyword_the_table_lacks_is_the_type_error_python_raises() -> None:
    kp = a2a_card.keygen("EdDSA")
    for call, name in [
        (lambda: a2a_card.verify(CLEAN, jwks=kp.jwks, max_chains=2), "verify"),
        (lambda: a2a_card.verify_many([CLEAN], jwks=kp.jwks, max_chains=2), "verify_many"),
        (lambda: a2a_card.Verifier(jwks=kp.jwks, max_chains=2), "Verifier.__new__"),
    ]:
        with pytest.raises(TypeError) as e:
            call()
        assert not isinstance(e.value, a2a_card.Error)
        assert str(e.value) == f"{name}() got an unexpected keyword argument 'max_chains'"
    # None is an option not given, as before.
    assert a2a_card.verify(a2a_card.sign(CLEAN, kp), jwks=kp.jwks, max_chain=None).ok


def test_sign_reads_its_options_by_the_cores_table() -> None:
    kp = a2a_card.keygen("ES256")
    # A keyword the table lacks is Python's own TypeError; None is an option not given.
    with pytest.raises(TypeError) as e:
        a2a_card.sign(CLEAN, kp, kidd="x")  # type: ignore[call-arg]
    assert not isinstance(e.value, a2a_card.Error)
    assert str(e.value) == "sign() got an unexpected keyword argument 'kidd'"
    assert json.loads(a2a_card.sign(CLEAN, kp, kid=None, replace=None))["signatures"][0]
    # Each refusal carries the option it is about, spelled in snake_case.
    for options, option, message in [
        ({"max_chain": 9}, "max_chain", "max_chain must be 1 to 8, got 9"),
        ({"also_profiles": ["spex"]}, "also_profiles", None),
        ({"x5c": "not a certificate"}, "x5c", 'x5c[0]: no "CERTIFICATE" PEM block found'),
        ({"alg": "none"}, "alg", None),
        ({"unknown": "keep"}, "unknown", None),
        ({"header": {"kid": "x"}, "replace": True, "append": True}, None, None),
    ]:
        with pytest.raises(a2a_card.Error) as e:
            a2a_card.sign(CLEAN, kp, **options)
        if option:
            assert e.value.option == option, repr(e.value)
        else:
            assert "replace" in e.value.message and "append" in e.value.message, repr(e.value)
        if message:
            assert e.value.message == message
