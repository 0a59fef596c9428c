"""Inputs for scripts/bench-peers.sh: cards and keys, written into a folder.

  python3 gen.py OUT_DIR

Writes OUT_DIR/cards/{8.5 sample,10 skills,100 skills,1000 skills,10000 skills}.json: the 8.5
sample card (copied from testvectors/cards/sample-8.5-unsigned.json) and A2A v1.0 cards built from
scripts/interop/card-v1.json with 10 to 10,000 generated skills (id, name, description, tags;
every value derived from the skill's index, so every run writes the same bytes). SKILLS (below)
or the environment variable A2A_BENCH_SKILLS (comma-separated) chooses the skill counts. Every
timer (the SDKs' and a2a-card's sign_verify bench) reads these same files.
Writes OUT_DIR/keys/{ES256,EdDSA}.pem (PKCS #8) and OUT_DIR/keys/{ES256,EdDSA}.jwks.json (fresh
keys; needs `cryptography`, which a2a-sdk[signing] installs).
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
WORDS = ['route', 'weather', 'invoice', 'menu', 'ticket', 'forecast', 'ledger', 'summary',
         'schedule', 'translate', 'search', 'report', 'itinerary', 'budget', 'inventory']
SKILLS = (10, 100, 1000, 10000)


def skill(i: int) -> dict:
    a, b = WORDS[i % len(WORDS)], WORDS[(i * 7 + 3) % len(WORDS)]
    return {
        'id': f'skill-{i:04d}-{a}-{b}',
        'name': f'{a.title()} {b} helper #{i}',
        'description': f'Handles {a} and {b} requests (variant {i}): reads the input, checks it '
                       f'against the rules for {b}, and answers with a short {a} summary.',
        'tags': [a, b, f'group-{i % 10}'],
    }


def b64u(b: bytes) -> str:
    return base64.urlsafe_b64encode(b).rstrip(b'=').decode('ascii')


def keys(out: str) -> None:
    from cryptography.hazmat.primitives import serialization as s
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519

    for alg in ('ES256', 'EdDSA'):
        if alg == 'ES256':
            priv = ec.generate_private_key(ec.SECP256R1())
            n = priv.public_key().public_numbers()
            jwk = {'kty': 'EC', 'crv': 'P-256', 'x': b64u(n.x.to_bytes(32, 'big')),
                   'y': b64u(n.y.to_bytes(32, 'big'))}
        else:
            priv = ed25519.Ed25519PrivateKey.generate()
            raw = priv.public_key().public_bytes(s.Encoding.Raw, s.PublicFormat.Raw)
            jwk = {'kty': 'OKP', 'crv': 'Ed25519', 'x': b64u(raw)}
        jwk.update({'kid': f'bench-{alg.lower()}', 'alg': alg, 'use': 'sig'})
        pem = priv.private_bytes(s.Encoding.PEM, s.PrivateFormat.PKCS8, s.NoEncryption())
        with open(os.path.join(out, f'{alg}.pem'), 'wb') as f:
            f.write(pem)
        with open(os.path.join(out, f'{alg}.jwks.json'), 'w', encoding='utf-8') as f:
            json.dump({'keys': [jwk]}, f)


def main(out: str) -> int:
    os.makedirs(os.path.join(out, 'cards'), exist_ok=True)
    os.makedirs(os.path.join(out, 'keys'), exist_ok=True)
    shutil.copyfile(os.path.join(ROOT, 'testvectors/cards/sample-8.5-unsigned.json'),
                    os.path.join(out, 'cards', '8.5 sample.json'))
    with open(os.path.join(ROOT, 'scripts/interop/card-v1.json'), encoding='utf-8') as f:
        base = json.load(f)
    skills = os.environ.get('A2A_BENCH_SKILLS')
    for n in ([int(x) for x in skills.split(',')] if skills else SKILLS):
        card = dict(base, skills=[skill(i) for i in range(n)])
        with open(os.path.join(out, 'cards', f'{n} skills.json'), 'w', encoding='utf-8') as f:
            json.dump(card, f, ensure_ascii=False, indent=2)
            f.write('\n')
    keys(os.path.join(out, 'keys'))
    return 0


if __name__ == '__main__':
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
