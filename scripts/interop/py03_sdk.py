"""Drives the a2a-sdk 0.3 signer (`a2a-sdk[signing]` 0.3.21 to 0.3.26) for scripts/interop-sdks.sh
and for the a2a-sdk-0.3 canonicalization vectors (testvectors/canonical/sdk03-*.json).

Run with the interpreter of the virtualenv that release is installed in. Every command uses the
SDK's own code; nothing here signs or canonicalizes by itself. A card is read as an a2a-sdk 0.3
client reads a served card: `json.loads`, then `AgentCard.model_validate`.

  versions                        JSON: the installed a2a-sdk, PyJWT, pydantic
  canon CARD OUT                  canonicalize_agent_card (a2a/utils/helpers.py) of CARD, the
                                  bytes its signer signs and its verifier checks, written to OUT
  sign CARD KEY.pem JWKS ALG OUT  create_agent_card_signer (a2a/utils/signing.py) over CARD, then
                                  the served form (model_dump(mode='json', by_alias=True,
                                  exclude_none=True), what the 0.3 SDK's card route sends)
  verify CARD JWKS ALG            create_signature_verifier over CARD; prints JSON
                                  {"accepted": bool, "error": str}
  vectors DIR                     rewrites expected_hex and provenance of every vector
                                  DIR/sdk03*.json of this release's profile (a2a-sdk-0.3 for
                                  0.3.24 and later, a2a-sdk-0.3.21 before) that expects bytes:
                                  canonicalize_agent_card of its input_raw

Exit status: 0 when the command ran (a refused signature is a result), 2 when it could not run.
"""

from __future__ import annotations

import importlib.metadata
import json
import sys

from typing import Any


def _card(text: str) -> Any:
    from a2a.types import AgentCard

    return AgentCard.model_validate(json.loads(text))


def _read(path: str) -> str:
    with open(path, encoding='utf-8') as f:
        return f.read()


def _jwk_for(jwks_path: str, kid: str | None) -> Any:
    from jwt.api_jwk import PyJWKSet

    for key in PyJWKSet.from_dict(json.loads(_read(jwks_path))).keys:
        if key.key_id == kid:
            return key
    raise KeyError(f'no key with kid {kid!r} in {jwks_path}')


def cmd_versions() -> int:
    names = ('a2a-sdk', 'PyJWT', 'pydantic')
    print(json.dumps({n: importlib.metadata.version(n) for n in names}))
    return 0


def cmd_canon(card_path: str, out: str) -> int:
    from a2a.utils.helpers import canonicalize_agent_card

    with open(out, 'wb') as f:
        f.write(canonicalize_agent_card(_card(_read(card_path))).encode('utf-8'))
    return 0


def cmd_sign(card_path: str, key_path: str, jwks_path: str, alg: str, out: str) -> int:
    from a2a.utils.signing import create_agent_card_signer

    kid = str(json.loads(_read(jwks_path))['keys'][0]['kid'])
    signer = create_agent_card_signer(
        signing_key=_read(key_path),
        protected_header={'alg': alg, 'kid': kid, 'typ': 'JOSE'},
    )
    card = signer(_card(_read(card_path)))
    served = card.model_dump(mode='json', by_alias=True, exclude_none=True)
    with open(out, 'w', encoding='utf-8') as f:
        json.dump(served, f, ensure_ascii=False, indent=2)
        f.write('\n')
    return 0


def cmd_verify(card_path: str, jwks_path: str, alg: str) -> int:
    from a2a.utils.signing import (
        SignatureVerificationError,
        create_signature_verifier,
    )

    def key_provider(kid: str | None, jku: str | None) -> Any:
        del jku  # never fetched: the trusted keys are the JWKS file
        return _jwk_for(jwks_path, kid)

    verifier = create_signature_verifier(key_provider, [alg])
    try:
        verifier(_card(_read(card_path)))
        print(json.dumps({'accepted': True, 'error': ''}))
    except SignatureVerificationError as e:
        print(json.dumps({'accepted': False, 'error': str(e)}))
    return 0


def cmd_vectors(out_dir: str) -> int:
    import pathlib

    from a2a.utils.helpers import canonicalize_agent_card

    version = importlib.metadata.version('a2a-sdk')
    late = tuple(int(x) for x in version.split('.')[:3]) >= (0, 3, 24)
    profile = 'a2a-sdk-0.3' if late else 'a2a-sdk-0.3.21'
    for path in sorted(pathlib.Path(out_dir).glob('sdk03*.json')):
        vector = json.loads(path.read_text(encoding='utf-8'))
        if vector['profile'] != profile or 'expected_hex' not in vector:
            continue
        canonical = canonicalize_agent_card(_card(vector['input_raw']))
        vector['provenance'] = (
            'expected_hex is canonicalize_agent_card(AgentCard.model_validate('
            f'json.loads(input_raw))) of a2a-sdk {version} (a2a/utils/helpers.py), '
            'written by scripts/interop/py03_sdk.py vectors testvectors/canonical'
        )
        vector['expected_hex'] = canonical.encode('utf-8').hex()
        path.write_text(
            json.dumps(vector, ensure_ascii=False, indent=2) + '\n', encoding='utf-8'
        )
    return 0


COMMANDS = {
    'versions': (cmd_versions, 0),
    'canon': (cmd_canon, 2),
    'sign': (cmd_sign, 5),
    'verify': (cmd_verify, 3),
    'vectors': (cmd_vectors, 1),
}


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in COMMANDS or len(argv) - 1 != COMMANDS[argv[0]][1]:
        print(__doc__, file=sys.stderr)
        return 2
    fn, _ = COMMANDS[argv[0]]
    return fn(*argv[1:])


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
