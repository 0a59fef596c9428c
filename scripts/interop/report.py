"""Small JSON helpers for scripts/interop-sdks.sh (standard library only).

  ours VERIFY.json        one tab-separated line from an `a2a-card verify --format json` report:
                          ok, profile, per-signature "#index verdict under profile" (separated
                          by "; "), unsigned pointers (comma-separated, "-" when none)
  sdk RESULT.json         one tab-separated line from a helper's `verify` result: accepted,
                          entries ("1,0" ...), resolver accepted ("-" when not reported), error
  count CARD.json         the number of entries in the card's `signatures`
  diff A.json B.json      JSON Pointers where B differs from A, one per line: "-/p" only in A,
                          "+/p" only in B, "~/p" a different value; nothing when they are equal
  table ROWS.tsv KIND     the rows as an aligned table; KIND "results" (7 columns, with the
                          profile matched) or "notes" (6 columns, without it)
"""

from __future__ import annotations

import json
import sys

from typing import Any


def _load(path: str) -> Any:
    with open(path, encoding='utf-8') as f:
        return json.load(f)


def _escape(token: str) -> str:
    return token.replace('~', '~0').replace('/', '~1')


def _diff(a: Any, b: Any, pointer: str, out: list[str]) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in a:
            if key not in b:
                out.append(f'-{pointer}/{_escape(key)}')
        for key in b:
            child = f'{pointer}/{_escape(key)}'
            if key not in a:
                out.append(f'+{child}')
            else:
                _diff(a[key], b[key], child, out)
    elif isinstance(a, list) and isinstance(b, list):
        for i in range(max(len(a), len(b))):
            child = f'{pointer}/{i}'
            if i >= len(b):
                out.append(f'-{child}')
            elif i >= len(a):
                out.append(f'+{child}')
            else:
                _diff(a[i], b[i], child, out)
    elif type(a) is not type(b) or a != b:
        out.append(f'~{pointer}')


def cmd_ours(path: str) -> None:
    report = _load(path)
    sigs = '; '.join(
        f'#{s.get("index")} {(s.get("verdict") or {}).get("code")}'
        + (f' under {s["profile"]}' if s.get('profile') else '')
        for s in report.get('signatures') or []
    )
    unsigned = ','.join(report.get('unsigned') or []) or '-'
    print('\t'.join([str(bool(report.get('ok'))).lower(), str(report.get('profile')), sigs or '-', unsigned]))


def cmd_sdk(path: str) -> None:
    result = _load(path)
    entries = ','.join('1' if e else '0' for e in result.get('entries') or [])
    resolver = result.get('resolver')
    via = '-' if resolver is None else str(bool(resolver.get('accepted'))).lower()
    error = ' '.join(str(result.get('error') or '-').split())
    print('\t'.join([str(bool(result.get('accepted'))).lower(), entries or '-', via, error]))


def cmd_count(path: str) -> None:
    print(len(_load(path).get('signatures') or []))


def cmd_diff(a: str, b: str) -> None:
    out: list[str] = []
    _diff(_load(a), _load(b), '', out)
    for line in out:
        print(line)


def cmd_table(path: str, kind: str) -> None:
    with open(path, encoding='utf-8') as f:
        rows = [line.rstrip('\n').split('\t') for line in f if line.strip()]
    header = ['direction', 'card', 'SDK', 'alg', 'result', 'profile matched', 'detail']
    if kind == 'notes':
        header.remove('profile matched')
    rows = [header] + rows
    # Every column but the last is padded; the detail column runs on.
    widths = [max(len(r[i]) for r in rows if len(r) > i) for i in range(len(header) - 1)]
    for n, row in enumerate(rows):
        cells = [c.ljust(widths[i]) if i < len(widths) else c for i, c in enumerate(row)]
        print('  '.join(cells).rstrip())
        if n == 0:
            print('  '.join('-' * w for w in widths) + '  ------')


def main(argv: list[str]) -> int:
    commands = {'ours': (cmd_ours, 1), 'sdk': (cmd_sdk, 1), 'count': (cmd_count, 1), 'diff': (cmd_diff, 2), 'table': (cmd_table, 2)}
    if not argv or argv[0] not in commands or len(argv) - 1 != commands[argv[0]][1]:
        print(__doc__, file=sys.stderr)
        return 2
    commands[argv[0]][0](*argv[1:])
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
