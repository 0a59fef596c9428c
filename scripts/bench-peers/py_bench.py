"""Times the Python A2A SDK (a2a-sdk[signing]) signing and verifying cards, in one process.

  python py_bench.py IN_DIR ROUND_SECONDS ROUNDS

IN_DIR is what gen.py wrote. For each card of IN_DIR/cards (smallest first) and algorithm: sign = json.loads of the card text,
parse_agent_card, the create_agent_card_signer signer, agent_card_to_dict and json.dumps (the card
as served); verify = json.loads of the signed text, parse_agent_card, the
create_signature_verifier verifier (key from the JWKS, looked up by kid). Each op runs ROUNDS
rounds of N iterations, N chosen so a round lasts about ROUND_SECONDS; prints one JSON line per
measurement with the median time per op. Key lookup helpers come from scripts/interop/py_sdk.py.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'interop'))
import py_sdk  # noqa: E402  (scripts/interop/py_sdk.py: _jwk_for, _first_kid)

ALGS = ['ES256', 'EdDSA']


def cards(in_dir: str) -> list[str]:
    """The card names (file stems) of IN_DIR/cards, smallest file first."""
    d = os.path.join(in_dir, 'cards')
    files = sorted((f for f in os.listdir(d) if f.endswith('.json')),
                   key=lambda f: os.path.getsize(os.path.join(d, f)))
    return [f[:-len('.json')] for f in files]


def timed(fn, round_s: float, rounds: int) -> tuple[float, int]:
    for _ in range(3):
        fn()
    t = time.perf_counter()
    fn()
    once = max(time.perf_counter() - t, 1e-7)
    n = max(1, int(round_s / once))
    per = []
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        per.append((time.perf_counter() - t) / n)
    return statistics.median(per), n


def main(in_dir: str, round_s: float, rounds: int) -> int:
    from a2a.client.card_resolver import parse_agent_card
    from a2a.server.request_handlers.response_helpers import agent_card_to_dict
    from a2a.utils.signing import create_agent_card_signer, create_signature_verifier

    for alg in ALGS:
        jwks = os.path.join(in_dir, 'keys', f'{alg}.jwks.json')
        with open(os.path.join(in_dir, 'keys', f'{alg}.pem'), encoding='utf-8') as f:
            pem = f.read()
        signer = create_agent_card_signer(
            signing_key=pem,
            protected_header={'alg': alg, 'kid': py_sdk._first_kid(jwks), 'typ': 'JOSE'},
        )
        verifier = create_signature_verifier(lambda kid, jku: py_sdk._jwk_for(jwks, kid), [alg])
        for name in cards(in_dir):
            with open(os.path.join(in_dir, 'cards', f'{name}.json'), encoding='utf-8') as f:
                text = f.read()

            def sign() -> str:
                card = signer(parse_agent_card(json.loads(text)))
                return json.dumps(agent_card_to_dict(card), ensure_ascii=False)

            signed = sign()

            def verify() -> None:
                verifier(parse_agent_card(json.loads(signed)))  # raises when refused

            verify()
            for op, fn in (('sign', sign), ('verify', verify)):
                med, n = timed(fn, round_s, rounds)
                print(json.dumps({'impl': 'python', 'card': name, 'alg': alg, 'op': op,
                                  'seconds': med, 'n': n, 'rounds': rounds}), flush=True)
    return 0


if __name__ == '__main__':
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], float(sys.argv[2]), int(sys.argv[3])))
