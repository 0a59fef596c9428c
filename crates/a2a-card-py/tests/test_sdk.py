"""a2a_card.sdk with the real a2a-sdk (1.3.0): an a2a-sdk server (its Starlette app, on loopback,
served by uvicorn, started here) serving a card signed through CardSigner, fetched by a2a-sdk
clients (A2ACardResolver, ClientFactory) using CardVerifier as their signature_verifier hook;
tampered and wrongly signed cards refused; the extended card over JSON-RPC, signed by
extended_card_modifier and verified by get_extended_agent_card's hook; the SDK's own verifier
accepting the transition signature (and refusing the card without it); the hooks' names and
shapes in the installed SDK."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import socket
from typing import Any, AsyncIterator, Callable, Dict, List, Optional

import httpx
import pytest
import uvicorn
from google.protobuf.json_format import MessageToDict
from starlette.applications import Starlette
from starlette.responses import Response
from starlette.routing import Route

import a2a_card
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    SecurityRequirement,
    StringList,
)
from a2a.utils.signing import (
    InvalidSignaturesError,
    NoSignatureError,
    SignatureVerificationError,
    create_signature_verifier,
)
from a2a_card.sdk import (
    SDK_VERSION,
    CardInvalidError,
    CardNotSignedError,
    CardSigner,
    CardVerifier,
    card_from_dict,
)

CARD_PATH = "/.well-known/agent-card.json"


class Executor(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        del context, event_queue

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        del context, event_queue


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def make_card(base: str, protocol_version: str = "1.0") -> AgentCard:
    """A card whose spec and SDK canonical forms differ: `capabilities {}` and a bearer
    requirement with no scopes are covered by the spec bytes and pruned from the SDK's."""
    return AgentCard(
        name="Recipe Agent",
        description="Finds recipes",
        version="1.0.0",
        supported_interfaces=[AgentInterface(url=base + "/", protocol_binding="JSONRPC", protocol_version=protocol_version)],
        capabilities=AgentCapabilities(),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        security_requirements=[SecurityRequirement(schemes={"bearer": StringList(list=[])})],
        skills=[AgentSkill(id="find", name="Find", description="By ingredient", tags=["cooking"])],
    )


@contextlib.asynccontextmanager
async def serve(
    routes: List[Any], port: int, host: str = "127.0.0.1", cert: Optional[str] = None, key: Optional[str] = None
) -> AsyncIterator[str]:
    """The Starlette app of `routes`, served by uvicorn on host:port until the block ends; over
    HTTPS with the certificate and key files `cert` and `key` when they are given."""
    config = uvicorn.Config(
        Starlette(routes=routes), host=host, port=port, log_level="warning", lifespan="off",
        ssl_certfile=cert, ssl_keyfile=key,
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    for _ in range(500):
        if server.started or task.done():
            break
        await asyncio.sleep(0.01)
    if not server.started:
        task.result()  # raises what stopped it
        raise RuntimeError("uvicorn did not start")
    try:
        yield f"{'https' if cert else 'http'}://{host}:{port}"
    finally:
        server.should_exit = True
        await task


def sdk_app(card: AgentCard, modifier: Optional[Callable[..., Any]]) -> List[Any]:
    """An a2a-sdk server's routes: the card route (with the modifier) and JSON-RPC."""
    handler = DefaultRequestHandler(agent_executor=Executor(), task_store=InMemoryTaskStore(), agent_card=card)
    return [*create_agent_card_routes(card, card_modifier=modifier), *create_jsonrpc_routes(handler, rpc_url="/")]


def raw_route(path: str, body: bytes) -> Route:
    async def endpoint(request: Any) -> Response:
        del request
        return Response(body, media_type="application/json")

    return Route(path, endpoint)


def sdk_verifier(kp: a2a_card.KeyPair) -> Callable[[AgentCard], None]:
    """The SDK's own verifier (PyJWT), trusting kp."""
    from jwt.api_jwk import PyJWKSet
    from jwt.exceptions import PyJWKError

    keys = {k.key_id: k for k in PyJWKSet.from_dict(kp.jwks).keys}

    def key_provider(kid: Optional[str], jku: Optional[str]) -> Any:
        del jku
        if kid not in keys:
            raise PyJWKError(f"unknown kid {kid!r}")
        return keys[kid]

    return create_signature_verifier(key_provider, [kp.alg])


@pytest.fixture(scope="module")
def kp() -> a2a_card.KeyPair:
    return a2a_card.keygen("ES256", kid="release-2026")


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_the_sdk_is_the_pinned_one() -> None:
    import importlib.metadata
    import os
    import re

    with open(os.path.join(os.path.dirname(__file__), "requirements.txt"), encoding="utf-8") as f:
        pinned = re.search(r"^a2a-sdk\[[^\]]*\]==(\S+)$", f.read(), re.M)
    assert pinned is not None
    assert importlib.metadata.version("a2a-sdk") == pinned.group(1)
    assert SDK_VERSION >= (1, 3)


def test_the_sdk_hooks_are_the_documented_ones() -> None:
    """The names and shapes of the hooks the adapters plug into (the table of docs/python.md, a2a_card.sdk's
    docstring), read from the installed SDK: a rename there fails here, not in a user's server."""
    import inspect
    import re

    from a2a.client import create_client
    from a2a.client.base_client import BaseClient

    def params(fn: Callable[..., Any]) -> Dict[str, inspect.Parameter]:
        return dict(inspect.signature(fn).parameters)

    assert "card_modifier" in params(create_agent_card_routes)
    assert "extended_card_modifier" in params(DefaultRequestHandler.__init__)
    for fn in (A2ACardResolver.get_agent_card, ClientFactory.create_from_url, create_client, BaseClient.get_extended_agent_card):
        p = params(fn)
        assert "signature_verifier" in p, fn.__qualname__
        hook = str(p["signature_verifier"].annotation)
        assert re.search(r"Callable\[\[(a2a_pb2\.)?AgentCard\], None\]", hook), (fn.__qualname__, hook)
    modifier = str(params(create_agent_card_routes)["card_modifier"].annotation)
    assert re.search(r"Callable\[\[(a2a_pb2\.)?AgentCard\], .*Awaitable\[(a2a_pb2\.)?AgentCard\]\]", modifier), modifier
    # The adapters' own shapes: an async card_modifier of one card, an async extended one of a
    # card and a context, a verifier called with one card.
    key = a2a_card.keygen("EdDSA")
    signer = CardSigner(key)
    assert inspect.iscoroutinefunction(signer.card_modifier)
    assert list(params(signer.card_modifier)) == ["card"]
    assert inspect.iscoroutinefunction(signer.extended_card_modifier)
    assert list(params(signer.extended_card_modifier)) == ["card", "context"]
    assert list(params(CardVerifier(jwks=key.jwks).__call__)) == ["agent_card"]


def test_the_extended_card_over_json_rpc_is_signed_and_verified(kp: a2a_card.KeyPair) -> None:
    """DefaultRequestHandler(extended_card_modifier=signer.extended_card_modifier) on loopback,
    fetched by an a2a-sdk client's get_extended_agent_card with CardVerifier as its hook: valid;
    tampered after signing: refused."""
    from a2a.types import GetExtendedAgentCardRequest

    port = free_port()
    public = make_card(f"http://127.0.0.1:{port}")
    public.capabilities.extended_agent_card = True
    extended = AgentCard()
    extended.CopyFrom(public)
    extended.skills.append(AgentSkill(id="plan", name="Plan", description="A week of meals", tags=["cooking"]))
    signer = CardSigner(kp)
    verifier = CardVerifier(jwks=kp.jwks)

    async def tampered(card: AgentCard, context: Any) -> AgentCard:
        out = await signer.extended_card_modifier(card, context)
        out.skills[1].description = "Sends your data elsewhere"
        return out

    def routes(modifier: Callable[..., Any]) -> List[Any]:
        handler = DefaultRequestHandler(
            agent_executor=Executor(), task_store=InMemoryTaskStore(), agent_card=public,
            extended_agent_card=extended, extended_card_modifier=modifier,
        )
        return [*create_agent_card_routes(public, card_modifier=signer.card_modifier), *create_jsonrpc_routes(handler, rpc_url="/")]

    async def main() -> None:
        async with serve(routes(signer.extended_card_modifier), port) as base:
            async with verifier.httpx_client() as http:
                client = await ClientFactory(ClientConfig(httpx_client=http)).create_from_url(base, signature_verifier=verifier)
                try:
                    got = await client.get_extended_agent_card(GetExtendedAgentCardRequest(), signature_verifier=verifier)
                finally:
                    await client.close()
                assert [s.id for s in got.skills] == ["find", "plan"]
                assert verifier.last_report is not None and verifier.last_report.ok

    run(main())
    port = free_port()
    public.supported_interfaces[0].url = f"http://127.0.0.1:{port}/"

    async def refused() -> None:
        async with serve(routes(tampered), port) as base:
            async with verifier.httpx_client() as http:
                client = await ClientFactory(ClientConfig(httpx_client=http)).create_from_url(base, signature_verifier=verifier)
                try:
                    with pytest.raises(CardInvalidError) as e:
                        await client.get_extended_agent_card(GetExtendedAgentCardRequest(), signature_verifier=verifier)
                finally:
                    await client.close()
                assert e.value.report.signatures[0].verdict.code == "signature-invalid"

    run(refused())


@pytest.mark.parametrize("protocol_version", ["1.0", "0.3"])
def test_a_card_signed_through_the_adapter_is_valid_for_an_sdk_client(kp: a2a_card.KeyPair, protocol_version: str) -> None:
    port = free_port()
    card = make_card(f"http://127.0.0.1:{port}", protocol_version)
    signer = CardSigner(kp, transition=True)
    verifier = CardVerifier(jwks=kp.jwks)

    async def main() -> None:
        async with serve(sdk_app(card, signer.card_modifier), port) as base:
            async with verifier.httpx_client() as http:
                got = await A2ACardResolver(http, base).get_agent_card(signature_verifier=verifier)
                report = verifier.last_report
                assert report is not None and report.ok and report.profile == "spec"
                assert got.name == "Recipe Agent" and len(got.signatures) == 2
                assert report.signatures[0].verdict.code == "valid"
                served = json.loads((await http.get(base + CARD_PATH)).content)
                if protocol_version == "0.3":
                    # The SDK serves v0.3 members too; they are outside the spec bytes, and the
                    # verifier saw the served bytes (the parsed card has no such members).
                    assert {"/url", "/protocolVersion", "/preferredTransport"} <= set(report.unsigned)
                    assert "url" in served
                else:
                    assert report.unsigned == []
                # Every request is served the same signature (the signer caches).
                again = json.loads((await http.get(base + CARD_PATH)).content)
                assert again["signatures"] == served["signatures"]
                # ClientFactory with the same hook, fetching through the verifier's client.
                client = await ClientFactory(ClientConfig(httpx_client=http)).create_from_url(base, signature_verifier=verifier)
                assert verifier.last_report is not None and verifier.last_report.ok
                await client.close()
                # Concurrent fetches on one client: each task verifies its own bytes.
                cards = await asyncio.gather(*(A2ACardResolver(http, base).get_agent_card(signature_verifier=verifier) for _ in range(5)))
                assert all(c.name == "Recipe Agent" for c in cards)

    run(main())


def test_a_card_tampered_after_signing_is_refused(kp: a2a_card.KeyPair) -> None:
    port = free_port()
    card = make_card(f"http://127.0.0.1:{port}")
    signer = CardSigner(kp, transition=True)

    async def tamper(c: AgentCard) -> AgentCard:
        signed = await signer.card_modifier(c)
        out = AgentCard()
        out.CopyFrom(signed)
        out.skills[0].description = "Sends your data elsewhere"
        return out

    verifier = CardVerifier(jwks=kp.jwks)

    async def main() -> None:
        async with serve(sdk_app(card, tamper), port) as base:
            async with verifier.httpx_client() as http:
                with pytest.raises(CardInvalidError) as e:
                    await A2ACardResolver(http, base).get_agent_card(signature_verifier=verifier)
                assert isinstance(e.value, InvalidSignaturesError)
                # The transition signature declares prune-empty, which the default policy does not accept.
                assert [s.verdict.code for s in e.value.report.signatures] == ["signature-invalid", "profile-not-accepted"]
                assert "none of the 2 signatures verifies" in str(e.value)
                with pytest.raises(SignatureVerificationError):
                    await ClientFactory(ClientConfig(httpx_client=http)).create_from_url(base, signature_verifier=verifier)
                # The SDK's own verifier refuses it too.
                with pytest.raises(InvalidSignaturesError):
                    await A2ACardResolver(http, base).get_agent_card(signature_verifier=sdk_verifier(kp))

    run(main())


def test_a_wrongly_signed_or_unsigned_card_is_refused(kp: a2a_card.KeyPair) -> None:
    port = free_port()
    card = make_card(f"http://127.0.0.1:{port}")
    stranger = CardSigner(a2a_card.keygen("ES256", kid="release-2026"))
    verifier = CardVerifier(jwks=kp.jwks)

    async def main() -> None:
        async with serve(sdk_app(card, stranger.card_modifier), port) as base:
            async with verifier.httpx_client() as http:
                with pytest.raises(CardInvalidError) as e:
                    await A2ACardResolver(http, base).get_agent_card(signature_verifier=verifier)
                assert e.value.report.signatures[0].verdict.code == "signature-invalid"
        async with serve(sdk_app(card, None), port) as base:
            async with verifier.httpx_client() as http:
                with pytest.raises(CardNotSignedError) as e:
                    await A2ACardResolver(http, base).get_agent_card(signature_verifier=verifier)
                assert isinstance(e.value, NoSignatureError) and e.value.report.signatures == []
        if_present = CardVerifier(jwks=kp.jwks, mode="if-present")
        async with serve(sdk_app(card, None), port) as base:
            async with if_present.httpx_client() as http:
                await A2ACardResolver(http, base).get_agent_card(signature_verifier=if_present)
                assert if_present.last_report.ok and if_present.last_report.verified_content is None

    run(main())


def test_the_sdks_own_verifier_accepts_the_transition_signature(kp: a2a_card.KeyPair) -> None:
    port = free_port()
    card = make_card(f"http://127.0.0.1:{port}")
    with_transition = CardSigner(kp, transition=True)
    spec_only = CardSigner(kp)
    spec_only_card = AgentCard()
    spec_only_card.CopyFrom(card)
    spec_only_card.name = "Spec Only"

    async def main() -> None:
        routes = [
            *create_agent_card_routes(spec_only_card, card_modifier=spec_only.card_modifier, card_url="/spec-only.json"),
            *sdk_app(card, with_transition.card_modifier),
        ]
        async with serve(routes, port) as base:
            async with httpx.AsyncClient() as http:
                resolver = A2ACardResolver(http, base)
                got = await resolver.get_agent_card(signature_verifier=sdk_verifier(kp))
                assert len(got.signatures) == 2
                # Without the transition signature the SDK refuses the same kind of card: its
                # bytes leave out `capabilities {}` and the bearer requirement the spec bytes cover.
                with pytest.raises(InvalidSignaturesError):
                    await resolver.get_agent_card("/spec-only.json", signature_verifier=sdk_verifier(kp))
                # a2a-card accepts both, through the spec signature.
                ours = CardVerifier(jwks=kp.jwks)
                ours.install(http)
                await resolver.get_agent_card(signature_verifier=ours)
                assert ours.last_report.signatures[0].verdict.code == "valid"
                assert ours.last_report.signatures[1].verdict.code == "profile-not-accepted"
                await resolver.get_agent_card("/spec-only.json", signature_verifier=ours)

    run(main())


def test_a_stripped_security_requirement_the_sdk_accepts_is_refused(kp: a2a_card.KeyPair) -> None:
    """The attack the spec bytes stop: the bearer requirement (no scopes) is outside the SDK's
    signed bytes, so removing it from the served card keeps the SDK's signature valid."""
    port = free_port()
    card = make_card(f"http://127.0.0.1:{port}")
    signed = CardSigner(kp, transition=True).sign(card)
    stripped = copy.deepcopy(signed)
    del stripped["securityRequirements"]
    verifier = CardVerifier(jwks=kp.jwks)

    async def main() -> None:
        async with serve([raw_route(CARD_PATH, json.dumps(stripped).encode())], port) as base:
            async with verifier.httpx_client() as http:
                resolver = A2ACardResolver(http, base)
                got = await resolver.get_agent_card(signature_verifier=sdk_verifier(kp))
                assert len(got.security_requirements) == 0  # the SDK took it
                with pytest.raises(CardInvalidError):
                    await resolver.get_agent_card(signature_verifier=verifier)

    run(main())


def test_served_bytes_checks_the_sdk_cannot_make(kp: a2a_card.KeyPair) -> None:
    port = free_port()
    card = make_card(f"http://127.0.0.1:{port}")
    signed = CardSigner(kp).sign(card)
    text = json.dumps(signed)
    # A duplicate member: json.loads keeps the last one, the strict reader refuses the card.
    duplicate = text.replace('"name": "Recipe Agent"', '"name": "Recipe Agent", "name": "Evil Agent"', 1)
    # A v0.3 member the SDK maps to a 1.0 one: outside the signed bytes, but the SDK would use it.
    legacy = dict(signed, supportsAuthenticatedExtendedCard=True)
    # An unknown member: outside the signed bytes, and the SDK drops it: accepted, reported.
    unknown = dict(signed, **{"x-vendor": {"a": 1}})
    verifier = CardVerifier(jwks=kp.jwks)

    async def main() -> None:
        routes = [
            raw_route("/duplicate.json", duplicate.encode()),
            raw_route("/legacy.json", json.dumps(legacy).encode()),
            raw_route("/unknown.json", json.dumps(unknown).encode()),
        ]
        async with serve(routes, port) as base:
            async with verifier.httpx_client() as http:
                resolver = A2ACardResolver(http, base)
                with pytest.raises(CardInvalidError) as e:
                    await resolver.get_agent_card("/duplicate.json", signature_verifier=verifier)
                assert e.value.error is not None and e.value.error.code == "duplicate-member"
                assert e.value.error.pointer == "/name"
                with pytest.raises(CardInvalidError, match="no valid signature covers"):
                    await resolver.get_agent_card("/legacy.json", signature_verifier=verifier)
                got = await resolver.get_agent_card("/unknown.json", signature_verifier=verifier)
                assert got.name == "Recipe Agent" and verifier.last_report.unsigned == ["/x-vendor"]

    run(main())


def test_without_the_hook_the_parsed_card_is_verified(kp: a2a_card.KeyPair) -> None:
    """Without the response hook the verifier only has the SDK's parsed card: a card the SDK
    serves passes; a card with REQUIRED empty members (which the parser drops) does not."""
    port = free_port()
    card = make_card(f"http://127.0.0.1:{port}")
    signer = CardSigner(kp)
    with_empty = signer.sign_text(dict(MessageToDict(card), description=""))

    async def main() -> None:
        routes = [raw_route("/empty.json", with_empty.encode()), *sdk_app(card, signer.card_modifier)]
        async with serve(routes, port) as base:
            plain = CardVerifier(jwks=kp.jwks)
            async with httpx.AsyncClient() as http:
                resolver = A2ACardResolver(http, base)
                await resolver.get_agent_card(signature_verifier=plain)
                assert plain.last_report.ok
                with pytest.raises(CardInvalidError):
                    await resolver.get_agent_card("/empty.json", signature_verifier=plain)
            hooked = CardVerifier(jwks=kp.jwks)
            async with hooked.httpx_client() as http:
                await A2ACardResolver(http, base).get_agent_card("/empty.json", signature_verifier=hooked)
                assert hooked.last_report.ok

    run(main())


def test_signer_forms_and_refusals(kp: a2a_card.KeyPair) -> None:
    card = make_card("https://agent.example")
    signer = CardSigner(kp, transition=True, header={"note": "release"})
    as_dict = signer.sign(card)
    as_text = json.loads(signer.sign_text(card))
    assert list(as_text) == list(as_dict) and len(as_text["signatures"]) == 2
    assert {k: v for k, v in as_text.items() if k != "signatures"} == {k: v for k, v in as_dict.items() if k != "signatures"}
    assert [set(s) for s in as_dict["signatures"]] == [{"protected", "signature", "header"}] * 2
    # The dict, JSON text and AgentCard forms give the same signed members.
    from_dict = signer.sign(MessageToDict(card))
    assert {k: v for k, v in from_dict.items() if k != "signatures"} == {k: v for k, v in as_dict.items() if k != "signatures"}
    # The extended-card hook signs the protobuf JSON form.
    extended = run(signer.extended_card_modifier(card, None))
    CardVerifier(jwks=kp.jwks)(extended)
    # A card with nothing the SDK would prune gets no transition signature.
    plain = AgentCard(name="A", description="d", version="1")
    assert len(CardSigner(kp, transition=True).sign(plain)["signatures"]) == 1
    with pytest.raises(a2a_card.InvalidKeyError):
        CardSigner("not a key")
    with pytest.raises(a2a_card.InvalidKeyError):
        CardSigner(kp, alg="EdDSA")
    with pytest.raises(a2a_card.UsageError):
        signer.sign(42)  # type: ignore[arg-type]
    with pytest.raises(a2a_card.CardError):
        signer.sign("[1]")
    with pytest.raises(a2a_card.UsageError):
        CardVerifier()
    assert repr(signer) == "<CardSigner kid=None transition=True>"


def test_the_verifier_as_a_plain_callable(kp: a2a_card.KeyPair) -> None:
    signed = CardSigner(kp).sign(make_card("https://agent.example"))
    verifier = CardVerifier(jwks=kp.jwks, algorithms=["ES256"])
    verifier(card_from_dict(signed))
    assert verifier.last_report.ok
    with pytest.raises(CardInvalidError) as e:
        CardVerifier(jwks=kp.jwks, algorithms=["EdDSA"])(card_from_dict(signed))
    assert e.value.report.signatures[0].verdict.code == "algorithm-not-allowed"
    bound = {"keys": [{"jwk": kp.public_jwk, "origins": ["https://agent.example"]}]}
    with pytest.raises(CardInvalidError):
        CardVerifier(trust=bound)(card_from_dict(signed))
    CardVerifier(trust=bound, origin="https://agent.example")(card_from_dict(signed))
