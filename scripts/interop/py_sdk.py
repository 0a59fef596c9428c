"""Drives the Python A2A SDK (`a2a-sdk[signing]`) for scripts/interop-sdks.sh.

Run with the interpreter of the virtualenv the SDK is installed in. Every command uses the
SDK's own code; nothing here signs, canonicalizes or verifies by itself.

  versions                        JSON: the installed a2a-sdk, PyJWT, cryptography, protobuf
  model CARD OUT                  the card as the SDK's reader keeps it: parse_agent_card (the
                                  client resolver's reader), then MessageToDict, written to OUT;
                                  prints JSON saying whether the strict protobuf reader
                                  (ParseDict without ignore_unknown_fields) refuses the card
  canon CARD OUT                  the bytes the SDK's verifier computes for CARD, written to OUT
  sign CARD KEY.pem JWKS ALG OUT  create_agent_card_signer over the card as parse_agent_card
                                  reads it, then the served form (agent_card_to_dict, what the
                                  SDK's card route sends), written to OUT
  verify CARD JWKS ALG            A2ACardResolver.get_agent_card with create_signature_verifier
                                  (the card served from memory through httpx.MockTransport),
                                  once for the whole card and once per signature entry alone;
                                  prints JSON {"accepted": bool, "error": str, "entries": [...]}

Exit status: 0 when the command ran (a refused signature is a result, not an error), 2 when
it could not run.
"""

from __future__ import annotations

import asyncio
import copy
import importlib.metadata
import json
import sys

from typing import Any


def _load(path: str) -> Any:
    with open(path, encoding='utf-8') as f:
        return json.load(f)


def _write_json(path: str, value: Any) -> None:
    with open(path, 'w', encoding='utf-8') as f:
        json.dump(value, f, ensure_ascii=False, indent=2)
        f.write('\n')


def _jwk_for(jwks_path: str, kid: str | None) -> Any:
    from jwt.api_jwk import PyJWKSet

    keys = PyJWKSet.from_dict(_load(jwks_path)).keys
    for key in keys:
        if key.key_id == kid:
            return key
    raise KeyError(f'no key with kid {kid!r} in {jwks_path}')


def _first_kid(jwks_path: str) -> str:
    return str(_load(jwks_path)['keys'][0]['kid'])


def cmd_versions() -> int:
    names = ['a2a-sdk', 'PyJWT', 'cryptography', 'protobuf']
    print(json.dumps({n: importlib.metadata.version(n) for n in names}))
    return 0


def cmd_model(card_path: str, out: str) -> int:
    from google.protobuf.json_format import MessageToDict, ParseDict, ParseError

    from a2a.client.card_resolver import parse_agent_card
    from a2a.types.a2a_pb2 import AgentCard

    data = _load(card_path)
    strict: dict[str, Any] = {'refused': False, 'error': ''}
    try:
        ParseDict(copy.deepcopy(data), AgentCard())
    except ParseError as e:
        strict = {'refused': True, 'error': str(e).splitlines()[0]}
    card = parse_agent_card(copy.deepcopy(data))
    _write_json(out, MessageToDict(card))
    print(json.dumps({'strict_parse': strict}))
    return 0


def cmd_canon(card_path: str, out: str) -> int:
    from a2a.client.card_resolver import parse_agent_card

    # The verifier's own canonicalization (private in the SDK, so reached by name); the
    # signer and the verifier both call it.
    from a2a.utils.signing import _canonicalize_agent_card

    card = parse_agent_card(_load(card_path))
    with open(out, 'wb') as f:
        f.write(_canonicalize_agent_card(card).encode('utf-8'))
    return 0


def cmd_sign(card_path: str, key_path: str, jwks_path: str, alg: str, out: str) -> int:
    from a2a.client.card_resolver import parse_agent_card
    from a2a.server.request_handlers.response_helpers import agent_card_to_dict
    from a2a.utils.signing import create_agent_card_signer

    with open(key_path, encoding='utf-8') as f:
        pem = f.read()
    signer = create_agent_card_signer(
        signing_key=pem,
        protected_header={
            'alg': alg,
            'kid': _first_kid(jwks_path),
            'typ': 'JOSE',
        },
    )
    card = signer(parse_agent_card(_load(card_path)))
    _write_json(out, agent_card_to_dict(card))
    return 0


async def _resolve_and_verify(text: bytes, jwks_path: str, alg: str) -> str:
    """'' when the SDK's resolver returns the card verified, else the error it raised."""
    import httpx

    from a2a.client.card_resolver import A2ACardResolver
    from a2a.utils.signing import (
        SignatureVerificationError,
        create_signature_verifier,
    )

    def key_provider(kid: str | None, jku: str | None) -> Any:
        del jku  # never fetched: the trusted keys are the JWKS file
        return _jwk_for(jwks_path, kid)

    def serve(request: httpx.Request) -> httpx.Response:
        del request
        return httpx.Response(
            200, content=text, headers={'content-type': 'application/json'}
        )

    verifier = create_signature_verifier(key_provider, [alg])
    async with httpx.AsyncClient(transport=httpx.MockTransport(serve)) as client:
        resolver = A2ACardResolver(client, 'https://agent.example')
        try:
            await resolver.get_agent_card(signature_verifier=verifier)
        except SignatureVerificationError as e:
            return f'{type(e).__name__}: {e}'
    return ''


def cmd_verify(card_path: str, jwks_path: str, alg: str) -> int:
    data = _load(card_path)
    whole = asyncio.run(
        _resolve_and_verify(
            json.dumps(data, ensure_ascii=False).encode('utf-8'), jwks_path, alg
        )
    )
    entries = []
    for entry in data.get('signatures') or []:
        alone = dict(data)
        alone['signatures'] = [entry]
        error = asyncio.run(
            _resolve_and_verify(
                json.dumps(alone, ensure_ascii=False).encode('utf-8'),
                jwks_path,
                alg,
            )
        )
        entries.append(error == '')
    print(json.dumps({'accepted': whole == '', 'error': whole, 'entries': entries}))
    return 0


def main(argv: list[str]) -> int:
    commands = {
        'versions': (cmd_versions, 0),
        'model': (cmd_model, 2),
        'canon': (cmd_canon, 2),
        'sign': (cmd_sign, 5),
        'verify': (cmd_verify, 3),
    }
    if not argv or argv[0] not in commands or len(argv) - 1 != commands[argv[0]][1]:
        print(__doc__, file=sys.stderr)
        return 2
    func, _ = commands[argv[0]]
    return func(*argv[1:])


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
