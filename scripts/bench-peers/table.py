"""Joins the measurements of scripts/bench-peers.sh into one table and one figures file.

  python3 table.py CARDS_DIR FIGURES_OUT JSONL...

JSONL: the JSON lines of the sign_verify bench (A2A_BENCH_FIGURES, impl "a2a-card"),
py_bench.py (impl "python"), js_bench.mjs (impl "js") and the Rust peer's bench subcommand
(scripts/interop/rust-peer, a2a-protocol-types, impl "rust"), one per card, algorithm and
operation.
CARDS_DIR: the cards every timer read (gen.py's OUT_DIR/cards), for their sizes and order.
FIGURES_OUT: every measurement as one JSON document (with each card's size in bytes), which
scripts/bench-chart.py draws. Prints the table, then the issues' targets for verify with
met / NOT met (issue 9: ES256 against the SDKs; issue 28: a2a-card ahead of a2a-protocol-types,
ES256 and EdDSA). Exits 1 when a cell is missing.
"""

from __future__ import annotations

import json
import os
import sys

ALGS = ['ES256', 'EdDSA']
IMPLS = ['a2a-card', 'python', 'js', 'rust']
# Issue 9: ES256 verify, a2a-card at least this many times faster than the SDK.
TARGETS = {('8.5 sample', 'js'): 5, ('8.5 sample', 'python'): 20,
           ('1000 skills', 'js'): 10, ('1000 skills', 'python'): 50}
# Issue 28: verify, a2a-card ahead of a2a-protocol-types (the Rust peer) on these cards.
RUST_TARGET_CARDS = ['8.5 sample', '1000 skills']


def fmt(s: float | None) -> str:
    if s is None:
        return '-'
    return f'{s * 1e3:.2f} ms' if s >= 1e-3 else f'{s * 1e6:.1f} us'


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    cards_dir, figures_out, paths = argv[0], argv[1], argv[2:]
    sizes = {f[:-5]: os.path.getsize(os.path.join(cards_dir, f))
             for f in os.listdir(cards_dir) if f.endswith('.json')}
    cards = sorted(sizes, key=sizes.get)
    got: dict[tuple[str, str, str, str], dict] = {}
    for path in paths:
        with open(path, encoding='utf-8') as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    got[(r['impl'], r['card'], r['alg'], r['op'])] = r
    sec = lambda key: got[key]['seconds'] if key in got else None
    head = ['card', 'bytes', 'alg', 'op', 'a2a-card', 'floor', 'python SDK', 'js SDK',
            'a2a-protocol-types', 'python/a2a-card', 'js/a2a-card', 'rust/a2a-card']
    rows = []
    missing = 0
    for card in cards:
        for alg in ALGS:
            for op in ('verify', 'sign'):
                ours, py, js, rust = (sec((i, card, alg, op)) for i in IMPLS)
                floor = got.get(('a2a-card', card, alg, op), {}).get('floor_seconds')
                missing += sum(x is None for x in (ours, py, js, rust))
                ratio = lambda x: f'{x / ours:.1f}x' if x is not None and ours else '-'
                rows.append([card, str(sizes[card]), alg, op, fmt(ours), fmt(floor), fmt(py),
                             fmt(js), fmt(rust), ratio(py), ratio(js), ratio(rust)])
    widths = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
    left = {0, 2, 3}
    line = lambda r: '| ' + ' | '.join(str(c).ljust(w) if i in left else str(c).rjust(w)
                                        for i, (c, w) in enumerate(zip(r, widths))) + ' |'
    print(line(head))
    print('|' + '|'.join('-' * (w + 2) if i in left else '-' * (w + 1) + ':'
                         for i, w in enumerate(widths)) + '|')
    for r in rows:
        print(line(r))
    print()
    print('floor = ring\'s raw operation on the same signing input + serde_json parse and write of '
          'the same card bytes')
    print()
    print('targets (ES256 verify, a2a-card faster than the SDK by at least):')
    for (card, impl), want in TARGETS.items():
        ours = sec(('a2a-card', card, 'ES256', 'verify'))
        theirs = sec((impl, card, 'ES256', 'verify'))
        if ours is None or theirs is None:
            print(f'  {card:<12} vs {impl:<6} {want:>3}x: not measured')
            continue
        crypto = got[('a2a-card', card, 'ES256', 'verify')].get('crypto_seconds')
        got_x = theirs / ours
        verdict = 'met' if got_x >= want else 'NOT met'
        note = (f'; needs a2a-card <= {fmt(theirs / want)}, ring\'s raw P-256 verify alone '
                f'takes {fmt(crypto)}' if crypto else '')
        print(f'  {card:<12} vs {impl:<6} {want:>3}x: measured {got_x:.1f}x ({fmt(ours)} vs '
              f'{fmt(theirs)}): {verdict}{note}')
    print()
    print('targets (verify, a2a-card ahead of a2a-protocol-types, issue 28):')
    for card in RUST_TARGET_CARDS:
        for alg in ALGS:
            ours = sec(('a2a-card', card, alg, 'verify'))
            theirs = sec(('rust', card, alg, 'verify'))
            if ours is None or theirs is None:
                print(f'  {card:<12} {alg:<6}: not measured')
                continue
            verdict = 'met' if ours < theirs else 'NOT met'
            print(f'  {card:<12} {alg:<6}: a2a-card {fmt(ours)}, a2a-protocol-types {fmt(theirs)} '
                  f'({theirs / ours:.2f}x): {verdict}')
    figures = {
        'cards': [{'name': c, 'bytes': sizes[c]} for c in cards],
        'measurements': sorted(
            (dict(r, bytes=sizes.get(r['card'])) for r in got.values()),
            key=lambda r: (r['impl'], r['alg'], r['op'], sizes.get(r['card'], 0))),
    }
    with open(figures_out, 'w', encoding='utf-8') as f:
        json.dump(figures, f, indent=1)
        f.write('\n')
    if missing:
        print(f'table: {missing} cells missing', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
