"""Joins the measurements of scripts/bench-peers.sh into one table.

  python3 table.py BENCH_OUTPUT... -- SDK_JSONL...

BENCH_OUTPUT: the text printed by `cargo bench -p a2a-card --bench sign_verify -- FILTER`, whose
closing table has one row per `ALG/card` with verify, floor, ratio, sign, floor, ratio.
SDK_JSONL: the JSON lines of py_bench.py and js_bench.mjs. Exits 1 when a cell is missing.
"""

from __future__ import annotations

import json
import re
import sys

CARDS = ['8.5 sample', '100 skills', '1000 skills']
ALGS = ['ES256', 'EdDSA']
DUR = r'([\d.]+) (us|ms)'
ROW = re.compile(rf'^(ES256|EdDSA)/(.+?)\s{{2,}}{DUR}\s+{DUR}\s+[\d.]+x\s+{DUR}\s+{DUR}\s+[\d.]+x\s*$')


def secs(v: str, unit: str) -> float:
    return float(v) * (1e-6 if unit == 'us' else 1e-3)


def fmt(s: float | None) -> str:
    if s is None:
        return '-'
    return f'{s * 1e3:.2f} ms' if s >= 1e-3 else f'{s * 1e6:.1f} us'


def main(argv: list[str]) -> int:
    if '--' not in argv:
        print(__doc__, file=sys.stderr)
        return 2
    cut = argv.index('--')
    got: dict[tuple[str, str, str, str], float] = {}
    for path in argv[:cut]:
        with open(path, encoding='utf-8') as f:
            for line in f:
                m = ROW.match(line.rstrip('\n'))
                if m:
                    alg, card = m.group(1), m.group(2).strip()
                    got[('a2a-card', card, alg, 'verify')] = secs(m.group(3), m.group(4))
                    got[('a2a-card', card, alg, 'sign')] = secs(m.group(7), m.group(8))
    for path in argv[cut + 1:]:
        with open(path, encoding='utf-8') as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    got[(r['impl'], r['card'], r['alg'], r['op'])] = float(r['seconds'])
    head = ['card', 'alg', 'op', 'a2a-card', 'python SDK', 'js SDK', 'python/a2a-card', 'js/a2a-card']
    rows = []
    missing = 0
    for card in CARDS:
        for alg in ALGS:
            for op in ('verify', 'sign'):
                ours, py, js = (got.get((i, card, alg, op)) for i in ('a2a-card', 'python', 'js'))
                missing += sum(x is None for x in (ours, py, js))
                ratio = lambda x: f'{x / ours:.1f}x' if x is not None and ours else '-'
                rows.append([card, alg, op, fmt(ours), fmt(py), fmt(js), ratio(py), ratio(js)])
    widths = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
    line = lambda r: '| ' + ' | '.join(str(c).ljust(w) if i < 3 else str(c).rjust(w)
                                        for i, (c, w) in enumerate(zip(r, widths))) + ' |'
    print(line(head))
    print('|' + '|'.join('-' * (w + 2) if i < 3 else '-' * (w + 1) + ':' for i, w in enumerate(widths)) + '|')
    for r in rows:
        print(line(r))
    if missing:
        print(f'table: {missing} cells missing', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
