"""a2a-card where a2a-sdk (1.3 and later) serves and fetches Agent Cards.

a2a-sdk signs and verifies cards its own way: it parses the card into its protobuf
``AgentCard``, which drops unknown members, then removes every empty string, list and object
before JCS (a2a-card's ``prune-empty`` profile), so REQUIRED empty members and unknown members
are outside its signed bytes. These adapters put a2a-card's rules at the SDK's own hooks:

``CardSigner`` (server)
    Signs the card an a2a-sdk server serves, the spec way, where the SDK serves it:
    ``create_agent_card_routes(card, card_modifier=signer.card_modifier)`` (the hook is
    ``card_modifier: Callable[[AgentCard], Awaitable[AgentCard]]``, called on every request;
    the signer caches). It signs exactly the JSON the SDK's route sends
    (``agent_card_to_dict`` of the card, v0.3 compatibility members included) and checks that
    the SDK serves what was signed. With ``transition=True`` it adds a second signature, same key
    and header, over the bytes the SDK's own verifier (``a2a.utils.signing.
    create_signature_verifier``) computes, so that verifier accepts the card too.
    ``signer.sign(card)`` returns the signed card as a dict, for serving it yourself.

``CardVerifier`` (client)
    A signature verifier for the SDK client's hook, ``signature_verifier: Callable[[AgentCard],
    None]``, taken by ``A2ACardResolver.get_agent_card``, ``ClientFactory.create_from_url``,
    ``a2a.client.create_client`` and ``BaseClient.get_extended_agent_card``: it refuses a card
    that a2a-card does not find validly signed by a trusted key, raising a subclass of the SDK's
    ``InvalidSignaturesError`` (or ``NoSignatureError``), which the SDK lets through to the
    caller. The hook only sees the parsed ``AgentCard``; install the verifier on the
    ``httpx.AsyncClient`` the SDK fetches with (``verifier.install(client)``, or
    ``verifier.httpx_client()``) and it verifies the bytes that were served, with every rule
    of a2a-card (duplicate names, I-JSON, REQUIRED empty members), then checks that the card the
    SDK parsed holds nothing those signatures do not cover. Without it, the verifier checks the
    card as the SDK parsed it (``MessageToDict``), which has lost the REQUIRED empty members a
    spec signature covers.

>>> import a2a_card
>>> from a2a_card.sdk import CardSigner, CardVerifier
>>> from a2a.types import AgentCard
>>> kp = a2a_card.keygen("ES256", kid="release-2026")
>>> card = AgentCard(name="Recipe Agent", description="Finds recipes", version="1.0.0")
>>> signed = CardSigner(kp).sign(card)
>>> [s["protected"][:10] for s in signed["signatures"]]
['eyJhbGciOi']
>>> CardVerifier(jwks=kp.jwks)(card_from_dict(signed))
>>> CardVerifier(jwks=a2a_card.keygen().jwks)(card_from_dict(signed))
Traceback (most recent call last):
...
a2a_card.sdk.CardInvalidError: a2a-card refused the card: none of the 1 signatures verifies with a trusted key; signature 0: untrusted-key: ...
"""

from __future__ import annotations

import contextvars
import copy
import json
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import a2a_card
from a2a_card import _native

try:
    import importlib.metadata as _metadata

    from google.protobuf.json_format import MessageToDict, ParseDict

    from a2a.client.card_resolver import parse_agent_card
    from a2a.server.request_handlers.response_helpers import agent_card_to_dict
    from a2a.types import AgentCard, AgentCardSignature
    from a2a.utils.signing import InvalidSignaturesError, NoSignatureError, SignatureVerificationError
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError(
        "a2a_card.sdk needs a2a-sdk 1.3 or later: pip install 'a2a-sdk[signing]>=1.3' "
        f"(importing it failed: {e})"
    ) from e


def _sdk_version() -> Tuple[int, int]:
    try:
        parts = _metadata.version("a2a-sdk").split(".")
        return int(parts[0]), int("".join(c for c in parts[1] if c.isdigit()) or 0)
    except (_metadata.PackageNotFoundError, ValueError, IndexError):
        return (0, 0)


SDK_VERSION = _sdk_version()
"""The (major, minor) version of the installed a2a-sdk."""
if SDK_VERSION < (1, 3):  # pragma: no cover - depends on the environment
    raise ImportError(
        f"a2a_card.sdk needs a2a-sdk 1.3 or later (the hooks it uses appeared there); "
        f"found {'.'.join(map(str, SDK_VERSION))}: pip install 'a2a-sdk>=1.3'"
    )

__all__ = [
    "CardSigner",
    "CardVerifier",
    "CardSignatureError",
    "CardInvalidError",
    "CardNotSignedError",
    "card_from_dict",
    "card_to_dict",
    "SDK_VERSION",
]

CardInput = Union["AgentCard", Mapping[str, Any], str, bytes]


def card_to_dict(card: CardInput) -> Dict[str, Any]:
    """The card as the SDK's card route serves it: ``agent_card_to_dict`` of an ``AgentCard``
    (``MessageToDict`` plus the v0.3 compatibility members the SDK adds for interfaces whose
    protocolVersion is empty or 0.3), a copy of a dict, or JSON text parsed."""
    if isinstance(card, AgentCard):
        return agent_card_to_dict(card)
    if isinstance(card, (str, bytes, bytearray)):
        value = json.loads(card)
        if not isinstance(value, dict):
            raise a2a_card.CardError(
                "the card is not a JSON object", code="type-mismatch", pointer=""
            )
        return value
    if isinstance(card, Mapping):
        return copy.deepcopy(dict(card))
    raise a2a_card.UsageError(
        f"the card must be an a2a-sdk AgentCard, a dict or JSON text, not {type(card).__name__}"
    )


def card_from_dict(card: Mapping[str, Any]) -> "AgentCard":
    """The ``AgentCard`` the SDK's client makes of a served card (``parse_agent_card`` of a
    copy: v0.3 members mapped to 1.0, unknown members dropped)."""
    return parse_agent_card(copy.deepcopy(dict(card)))


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


class CardSigner:
    """Signs the cards an a2a-sdk server serves, the spec way (A2A v1.0 section 8.4).

    ``key`` is the private key (PEM text, a JWK as text or dict, or an ``a2a_card.KeyPair``);
    ``alg``, ``kid``, ``jku``, ``header``, ``protected_header``, ``unknown``, ``replace`` and
    ``append`` are those of ``a2a_card.sign``. ``transition=True`` adds, when its bytes differ from the
    spec signature's, a second signature (same protected header) over the bytes a2a-sdk's own
    verifier computes for the served card, so that clients still on the SDK's verifier accept
    the card while a2a-card (and any spec-exact verifier) checks the first.

    >>> import a2a_card
    >>> from a2a.types import AgentCard, AgentCapabilities
    >>> kp = a2a_card.keygen("EdDSA", kid="k1")
    >>> card = AgentCard(name="A", description="d", version="1", capabilities=AgentCapabilities())
    >>> signed = CardSigner(kp, transition=True).sign(card)
    >>> len(signed["signatures"])  # capabilities {} is covered by the spec bytes, not the SDK's
    2
    """

    def __init__(
        self,
        key: Any,
        *,
        alg: Optional[str] = None,
        kid: Optional[str] = None,
        jku: Optional[str] = None,
        header: Optional[Mapping[str, Any]] = None,
        protected_header: Optional[Mapping[str, Any]] = None,
        unknown: Optional[str] = None,
        replace: bool = False,
        append: bool = False,
        transition: bool = False,
    ) -> None:
        if isinstance(key, (bytes, bytearray)):
            # Kept as bytes: the native reader refuses bytes that are not UTF-8 with a message
            # that holds none of them (a UnicodeDecodeError here would carry the whole key).
            key = bytes(key)
        self._key = key
        self._options: Dict[str, Any] = {
            "alg": alg,
            "kid": kid,
            "jku": jku,
            "header": dict(header) if header is not None else None,
            "protected_header": dict(protected_header) if protected_header is not None else None,
            "replace": replace,
            "append": append,
        }
        self._unknown = unknown
        self.transition = transition
        self._cache: Optional[Tuple["AgentCard", "AgentCard"]] = None
        # Refuse a key or option that cannot sign now, not on the first request.
        _native.sign("{}", key, unknown=unknown, **self._options)

    def sign_text(self, card: CardInput) -> str:
        """The signed card as JSON text (a served-card ``AgentCard`` is first written as the SDK's
        card route writes it); serve these bytes as they are."""
        return _dumps(self.sign(card))

    def sign(self, card: CardInput) -> Dict[str, Any]:
        """The card the server should serve, signed: a dict with the new entries appended to
        ``signatures`` and every other member as it was (an ``AgentCard`` is taken as the SDK's
        card route serves it, ``card_to_dict``).

        A dict or JSON text with members the signature would not cover (unknown or A2A 0.3
        members) is refused with ``unsigned-members`` unless ``unknown`` was given, as
        ``a2a_card.sign`` refuses it. For an ``AgentCard`` the only such members are the v0.3
        compatibility members the SDK's route adds itself (``url``, ``preferredTransport``, ...,
        when an interface's protocolVersion is empty or 0.3): they stay unsigned
        (``unknown="exclude"``) unless ``unknown`` says otherwise."""
        unknown = self._unknown
        if isinstance(card, AgentCard) and unknown is None:
            unknown = "exclude"
        return self._sign_dict(card_to_dict(card), unknown)

    def _sign_dict(self, served: Dict[str, Any], unknown: Optional[str]) -> Dict[str, Any]:
        text = _dumps(served)
        signed = json.loads(_native.sign(text, self._key, unknown=unknown, **self._options))
        if self.transition:
            entry = self._transition_entry(served, text, unknown)
            if entry is not None:
                signed["signatures"].append(entry)
        return signed

    def _transition_entry(self, served: Dict[str, Any], text: str, unknown: Optional[str]) -> Optional[Dict[str, Any]]:
        """A signature over the bytes a2a-sdk's verifier computes for ``served`` (its
        ``parse_agent_card``, then ``MessageToDict``, then prune-empty and JCS), or None when those
        are the spec signature's bytes already. What those bytes leave out (every empty value,
        which the spec signature covers) is what the transition signature is for, so it is
        signed with ``unknown="exclude"``."""
        view = parse_agent_card(copy.deepcopy(served))
        del view.signatures[:]
        view_text = _dumps(MessageToDict(view))
        sdk_bytes = _native.canonicalize(view_text, profile="prune-empty")
        if sdk_bytes == _native.canonicalize(text, unknown=unknown):
            return None
        options = dict(self._options, replace=False)
        signed_view = json.loads(
            _native.sign(view_text, self._key, profile="prune-empty", unknown="exclude", **options)
        )
        entry: Dict[str, Any] = signed_view["signatures"][-1]
        return entry

    def sign_card(self, card: "AgentCard", *, served_as: Callable[["AgentCard"], Dict[str, Any]] = agent_card_to_dict) -> "AgentCard":
        """A copy of ``card`` carrying the new signatures, such that ``served_as(copy)`` (by
        default the SDK card route's ``agent_card_to_dict``) is the signed card: the form for
        the SDK's hooks, which take and return ``AgentCard``. Raises ``a2a_card.CardError`` if
        the SDK would serve something else than what was signed."""
        served = served_as(card)
        signed = self._sign_dict(served, self._unknown if self._unknown is not None else "exclude")
        out = AgentCard()
        out.CopyFrom(card)
        del out.signatures[:]
        for entry in signed.get("signatures", []):
            out.signatures.append(ParseDict(entry, AgentCardSignature()))
        again = served_as(out)
        if json.loads(_dumps(again)) != json.loads(_dumps(signed)):
            raise a2a_card.CardError(
                "a2a-sdk would not serve the card that was signed (its JSON form of the signed "
                "AgentCard differs); sign the dict with CardSigner.sign and serve that JSON yourself",
                code="malformed-card",
            )
        return out

    async def card_modifier(self, card: "AgentCard") -> "AgentCard":
        """The hook of ``a2a.server.routes.create_agent_card_routes(card, card_modifier=...)``:
        the card to serve, signed. The signed card is kept and served again while the card is
        unchanged (compared field by field), so every request gets the same signature."""
        cached = self._cache
        if cached is not None and cached[0] == card:
            return cached[1]
        snapshot = AgentCard()
        snapshot.CopyFrom(card)
        signed = self.sign_card(card)
        self._cache = (snapshot, signed)
        return signed

    async def extended_card_modifier(self, card: "AgentCard", context: Any = None) -> "AgentCard":
        """The hook of ``DefaultRequestHandler(..., extended_card_modifier=...)``: the extended
        card, signed over its protobuf JSON form (``MessageToDict``), which is how the SDK sends
        it over JSON-RPC and REST."""
        del context
        return self.sign_card(card, served_as=MessageToDict)

    def __repr__(self) -> str:
        return f"<CardSigner kid={self._options['kid']!r} transition={self.transition}>"


class CardSignatureError(SignatureVerificationError):
    """a2a-card refused an Agent Card: ``report`` is its ``a2a_card.Report`` (None when the card
    could not be read at all; then ``error`` is the ``a2a_card.Error``)."""

    def __init__(self, message: str, report: Optional[a2a_card.Report] = None, error: Optional[a2a_card.Error] = None) -> None:
        super().__init__(message)
        self.report = report
        self.error = error


class CardNotSignedError(CardSignatureError, NoSignatureError):
    """The card carries no signature (and the mode requires one)."""


class CardInvalidError(CardSignatureError, InvalidSignaturesError):
    """No signature of the card verifies with a trusted key under the policy, the card cannot be
    read, or the SDK reads members of it that no valid signature covers."""


_CAPTURED: "contextvars.ContextVar[Optional[Tuple[str, bytes]]]" = contextvars.ContextVar(
    "a2a_card_sdk_captured", default=None
)
# The redirect chain of the current task's fetch: (the URL first requested, the URL the last
# redirect points to). httpx runs response hooks before it records a response's history, so the
# hook keeps the URL that was requested itself, across every redirect it sees.
_REDIRECTED: "contextvars.ContextVar[Optional[Tuple[str, str]]]" = contextvars.ContextVar(
    "a2a_card_sdk_redirected", default=None
)
_LAST_REPORT: "contextvars.ContextVar[Optional[a2a_card.Report]]" = contextvars.ContextVar(
    "a2a_card_sdk_last_report", default=None
)


def _is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


def _without_fragment(url: str) -> str:
    return url.split("#", 1)[0]


def _https_origin(url: str) -> Optional[str]:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        return None
    if parts.scheme != "https" or not parts.hostname:
        return None
    host = parts.hostname
    if ":" in host:
        host = f"[{host}]"
    return f"https://{host}" + (f":{port}" if port and port != 443 else "")


class CardVerifier:
    """A signature verifier for a2a-sdk clients, with a2a-card's rules.

    Takes the options of ``a2a_card.Verifier`` (trust roots ``jwks``, ``keys``, ``trust``; the
    policy ``algorithms``, ``mode``, ``profile``/``profiles``, ``unknown``, ``now``, ``origin`` and
    the limits), read once. Call it with an ``AgentCard`` (the SDK does, through its
    ``signature_verifier`` hook): it returns None when the card passes and raises
    ``CardNotSignedError`` or ``CardInvalidError`` (subclasses of the SDK's ``NoSignatureError``
    and ``InvalidSignaturesError``) when it does not. ``last_report`` is the report of the last
    card verified in this task or thread.

    Install it on the ``httpx.AsyncClient`` the SDK fetches with (``install``, ``httpx_client``)
    to verify the bytes that were served: a response hook keeps the body of each JSON ``GET``
    response of the current task, and the verifier uses it when the SDK's reading of it is the
    card it was given. For a card fetched over ``https`` without an ``origin`` option, the
    origin of the URL that was requested is the origin for origin-bound trust entries: a
    redirect, to another origin or not, never changes it.
    """

    def __init__(self, **options: Any) -> None:
        self._verifier = a2a_card.Verifier(**options)
        self._fixed_origin = options.get("origin") is not None
        self._max_input_bytes = options.get("max_input_bytes") or 8 * 1024 * 1024

    @property
    def last_report(self) -> Optional[a2a_card.Report]:
        """The report of the last card this task or thread verified with an adapter verifier."""
        return _LAST_REPORT.get()

    # -- the httpx side -------------------------------------------------------------------

    @staticmethod
    def _requested_url(response: Any) -> str:
        """The URL first requested for ``response``: a redirect never changes a card's origin.
        Kept across the redirects this hook saw in this task (httpx calls response hooks before
        it fills ``response.history``); ``history`` when it is there."""
        history = getattr(response, "history", None) or []
        if history:
            return str(history[0].request.url)
        here = _without_fragment(str(response.request.url))
        chain = _REDIRECTED.get()
        if chain is not None and chain[1] == here:
            return chain[0]
        return here

    async def _capture(self, response: Any) -> None:
        """httpx response hook: keeps the body of a JSON GET response for this task, with the
        URL that was requested (before any redirect)."""
        if response.request.method != "GET":
            return
        if response.has_redirect_location:
            try:
                target = _without_fragment(str(response.request.url.join(response.headers["location"])))
            except Exception:  # noqa: BLE001 - httpx refuses such a redirect itself
                _REDIRECTED.set(None)
                return
            _REDIRECTED.set((self._requested_url(response), target))
            return
        requested = self._requested_url(response)
        _REDIRECTED.set(None)
        if not _is_json(response.headers.get("content-type", "")):
            return
        length = response.headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > self._max_input_bytes:
            return
        await response.aread()
        _CAPTURED.set((requested, bytes(response.content)))

    @property
    def event_hooks(self) -> Dict[str, List[Callable[..., Any]]]:
        """``event_hooks`` for ``httpx.AsyncClient(event_hooks=verifier.event_hooks)``."""
        return {"response": [self._capture]}

    def install(self, client: Any) -> Any:
        """Adds the response hook to an ``httpx.AsyncClient`` (once) and returns the client."""
        hooks = client.event_hooks
        if self._capture not in hooks.get("response", []):
            hooks.setdefault("response", []).append(self._capture)
            client.event_hooks = hooks
        return client

    def httpx_client(self, **kwargs: Any) -> Any:
        """A new ``httpx.AsyncClient(**kwargs)`` with the response hook installed."""
        import httpx

        return self.install(httpx.AsyncClient(**kwargs))

    # -- verifying ------------------------------------------------------------------------

    def __call__(self, agent_card: "AgentCard") -> None:
        captured = _CAPTURED.get()
        _CAPTURED.set(None)
        raw: Optional[bytes] = None
        origin: Optional[str] = None
        if captured is not None:
            url, body = captured
            if self._served_as(body, agent_card):
                raw = body
                origin = None if self._fixed_origin else _https_origin(url)
        if raw is None:
            raw = _dumps(MessageToDict(agent_card)).encode("utf-8")
        try:
            report = self._verifier.verify(raw, origin=origin)
        except a2a_card.Error as e:
            _LAST_REPORT.set(None)
            raise CardInvalidError(f"a2a-card refused the card: {e}", error=e) from e
        _LAST_REPORT.set(report)
        if not report.ok:
            message = f"a2a-card refused the card: {report.reason}" + "".join(
                f"; signature {s.index}: {s.verdict.code}: {s.verdict.message}" for s in report.signatures
            )
            if not report.signatures:
                raise CardNotSignedError(message, report=report)
            raise CardInvalidError(message, report=report)
        content = report.verified_content
        if content is not None and not self._covers(content, agent_card, report.profile):
            raise CardInvalidError(
                "a2a-card refused the card: a2a-sdk reads members of it that no valid signature "
                f"covers (the members left unsigned: {report.unsigned})",
                report=report,
            )

    @staticmethod
    def _served_as(body: bytes, agent_card: "AgentCard") -> bool:
        """Whether the SDK's reading of ``body`` is ``agent_card``."""
        try:
            value = json.loads(body)
            return isinstance(value, dict) and parse_agent_card(value) == agent_card
        except Exception:  # noqa: BLE001 - anything the SDK's reader refuses is not this card
            return False

    @staticmethod
    def _covers(content: bytes, agent_card: "AgentCard", profile: str) -> bool:
        """Whether the card the SDK uses says no more than the verified content: both read the
        SDK's way and compared under the profile that verified."""
        used = AgentCard()
        used.CopyFrom(agent_card)
        del used.signatures[:]
        try:
            covered = parse_agent_card(json.loads(content))
        except Exception:  # noqa: BLE001 - verified content the SDK cannot read covers nothing it uses
            return False
        return _native.canonicalize(_dumps(MessageToDict(used)), profile=profile) == _native.canonicalize(
            _dumps(MessageToDict(covered)), profile=profile
        )

    def __repr__(self) -> str:
        return f"<CardVerifier {self._verifier!r}>"
