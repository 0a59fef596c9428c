#!/usr/bin/env python3
"""Draws time per verification against card size from scripts/bench-peers.sh's figures.

  python3 scripts/bench-chart.py [FIGURES.json [OUT.svg]]

FIGURES.json defaults to docs/bench-peers.json (written by bench-peers.sh), OUT.svg to
docs/bench-verify.svg. Both axes are logarithmic: card size in bytes (x) and median time per
verification (y). One line per implementation (a2a-card, @a2a-js/sdk, a2a-sdk, a2a-protocol-types) and algorithm
(ES256 solid, EdDSA dashed); a2a-card's floor (ring's raw verify plus serde_json parse and write
of the same bytes) is drawn thin and grey. Python standard library only; the SVG is written by
hand, and the same figures always give the same file.
"""

from __future__ import annotations

import json
import math
import os
import sys
from xml.sax.saxutils import escape

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..'))
W, H = 760, 480
LEFT, RIGHT, TOP, BOTTOM = 78, 200, 40, 58
COLOURS = {'a2a-card': '#1f6feb', 'js': '#d29922', 'python': '#8250df', 'rust': '#1a7f37',
           'floor': '#8c959f'}
LABELS = {'a2a-card': 'a2a-card', 'js': '@a2a-js/sdk', 'python': 'a2a-sdk (Python)',
          'rust': 'a2a-protocol-types',
          'floor': 'a2a-card floor'}


def fmt_time(s: float) -> str:
    if s >= 1:
        return f'{s:g} s'
    if s >= 1e-3:
        return f'{s * 1e3:g} ms'
    return f'{s * 1e6:g} us'


def fmt_bytes(b: float) -> str:
    if b >= 1e6:
        return f'{b / 1e6:g} MB'
    if b >= 1e3:
        return f'{b / 1e3:g} KB'
    return f'{b:g} B'


def decades(lo: float, hi: float) -> list[float]:
    return [10.0 ** e for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)]


def main(argv: list[str]) -> int:
    src = argv[0] if argv else os.path.join(ROOT, 'docs', 'bench-peers.json')
    dst = argv[1] if len(argv) > 1 else os.path.join(ROOT, 'docs', 'bench-verify.svg')
    with open(src, encoding='utf-8') as f:
        figures = json.load(f)
    series: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for m in figures['measurements']:
        if m['op'] != 'verify' or not m.get('bytes'):
            continue
        series.setdefault((m['impl'], m['alg']), []).append((m['bytes'], m['seconds']))
        if m['impl'] == 'a2a-card' and m.get('floor_seconds'):
            series.setdefault(('floor', m['alg']), []).append((m['bytes'], m['floor_seconds']))
    if not series:
        print(f'bench-chart: no verify measurements in {src}', file=sys.stderr)
        return 1
    xs = [x for pts in series.values() for x, _ in pts]
    ys = [y for pts in series.values() for _, y in pts]
    xt, yt = decades(min(xs), max(xs)), decades(min(ys), max(ys))
    x0, x1, y0, y1 = map(math.log10, (xt[0], xt[-1], yt[0], yt[-1]))
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM
    px = lambda x: LEFT + (math.log10(x) - x0) / (x1 - x0) * pw
    py = lambda y: TOP + ph - (math.log10(y) - y0) / (y1 - y0) * ph

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
           f'viewBox="0 0 {W} {H}" font-family="Helvetica, Arial, sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="#ffffff"/>',
           f'<text x="{LEFT}" y="22" font-size="15" font-weight="bold">Time per Agent Card '
           'verification against card size (log-log)</text>']
    for t in xt:
        for k in range(1, 10):
            v = t * k
            if v > xt[-1]:
                break
            x = px(v)
            out.append(f'<line x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{TOP + ph}" '
                       f'stroke="#eaeef2" stroke-width="{1 if k == 1 else 0.5}"/>')
        out.append(f'<text x="{px(t):.1f}" y="{TOP + ph + 18}" text-anchor="middle">'
                   f'{fmt_bytes(t)}</text>')
    for t in yt:
        y = py(t)
        out.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + pw}" y2="{y:.1f}" stroke="#d0d7de"/>')
        out.append(f'<text x="{LEFT - 8}" y="{y + 4:.1f}" text-anchor="end">{fmt_time(t)}</text>')
    out.append(f'<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="#57606a"/>')
    out.append(f'<text x="{LEFT + pw / 2}" y="{H - 16}" text-anchor="middle">card size (bytes of '
               'the served JSON)</text>')
    out.append(f'<text transform="translate(18 {TOP + ph / 2}) rotate(-90)" text-anchor="middle">'
               'median time per verification</text>')

    order = ['python', 'js', 'rust', 'a2a-card', 'floor']
    legend_y = TOP + 8
    for impl in order:
        for alg in ('ES256', 'EdDSA'):
            pts = sorted(series.get((impl, alg), []))
            if not pts:
                continue
            colour = COLOURS.get(impl, '#000000')
            width = 1.2 if impl == 'floor' else 2.2
            dash = ' stroke-dasharray="6 4"' if alg == 'EdDSA' else ''
            path = ' '.join(f'{"M" if i == 0 else "L"}{px(x):.1f},{py(y):.1f}'
                            for i, (x, y) in enumerate(pts))
            out.append(f'<path d="{path}" fill="none" stroke="{colour}" stroke-width="{width}"{dash}/>')
            for x, y in pts:
                out.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="2.6" fill="{colour}">'
                           f'<title>{escape(LABELS[impl])} {alg}: {fmt_time(y)} at '
                           f'{x} bytes</title></circle>')
            lx = LEFT + pw + 14
            out.append(f'<line x1="{lx}" y1="{legend_y}" x2="{lx + 26}" y2="{legend_y}" '
                       f'stroke="{colour}" stroke-width="{width}"{dash}/>')
            out.append(f'<text x="{lx + 32}" y="{legend_y + 4}">{escape(LABELS[impl])} {alg}</text>')
            legend_y += 20
    versions = figures.get('versions', {})
    notes = []
    if versions.get('python'):
        notes.append('a2a-sdk ' + str(versions['python'].get('a2a-sdk', '?')))
    if versions.get('js'):
        notes.append('@a2a-js/sdk ' + str(versions['js'].get('@a2a-js/sdk', '?')))
    if versions.get('rust'):
        notes.append('a2a-protocol-types ' + str(versions['rust'].get('a2a-protocol-types', '?')))
    if versions.get('a2a-card'):
        notes.append('a2a-card ' + str(versions['a2a-card']).split(',')[0])
    for i, note in enumerate(notes):
        out.append(f'<text x="{LEFT + pw + 14}" y="{legend_y + 14 + 16 * i}" fill="#57606a" '
                   f'font-size="11">{escape(note)}</text>')
    out.append('</svg>')
    os.makedirs(os.path.dirname(os.path.abspath(dst)), exist_ok=True)
    with open(dst, 'w', encoding='utf-8') as f:
        f.write('\n'.join(out) + '\n')
    print(f'bench-chart: wrote {dst} ({len(series)} lines)')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
