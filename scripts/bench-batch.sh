#!/usr/bin/env bash
# Batch verification throughput for registries (issue 9, item 3).
#
# Makes N copies (default 10,000; A2A_BENCH_BATCH_N) of the A2A v1.0 section 8.5 sample card
# (testvectors/cards/sample-8.5-unsigned.json, compacted to one line), each signed afresh with
# `a2a-card sign` (ES256, a fresh key: every copy carries its own signature), writes them as one
# JSON Lines file, then times the release `a2a-card verify --batch FILE.jsonl --jwks JWKS` with
# RAYON_NUM_THREADS=1 and =2, alternating, A2A_BENCH_BATCH_RUNS times each (default 5), under
# /usr/bin/time -v. Prints the median wall time, cards/s, the 2-thread/1-thread ratio and the
# peak resident memory and the CPU share each run got, and the targets: 2 threads at least 1.8x 1 thread, peak memory under 100 MB.
# Every run's report must say N cards, N valid.
#
# The binary: $A2A_CARD_BIN, or `cargo build --release -p a2a-card-cli` in ${CARGO_TARGET_DIR:-target}.
# Exit status: 0 when both targets are met, 1 when one is not, 2 when the run cannot be made.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
n="${A2A_BENCH_BATCH_N:-10000}"
runs="${A2A_BENCH_BATCH_RUNS:-5}"
name=bench-batch
# shellcheck source=scripts/lib/bench.sh
. "$root/scripts/lib/bench.sh"
[ -x /usr/bin/time ] || die "/usr/bin/time (GNU time) is needed for the peak memory"

python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1], encoding="utf-8")), ensure_ascii=False, separators=(",", ":")))' \
    "$root/testvectors/cards/sample-8.5-unsigned.json" >"$tmp/sample.json" || die "cannot compact the sample card"
"$bin" keygen --alg ES256 --out "$tmp/key.pem" --jwks "$tmp/jwks.json" 2>/dev/null || die "keygen failed"

echo "==> signing $n copies of the 8.5 sample card, one a2a-card sign each ($(nproc) in parallel)"
mkdir "$tmp/signed"
t0=$(date +%s.%N)
# shellcheck disable=SC2016 # the inner shell expands its own positional parameters
seq -w 1 "$n" | xargs -P "$(nproc)" -I{} sh -c '"$1" sign "$2" --key "$3" --unknown exclude >"$4/$5.json" 2>/dev/null' _ \
    "$bin" "$tmp/sample.json" "$tmp/key.pem" "$tmp/signed" {} || die "signing failed"
t1=$(date +%s.%N)
# One card per line (the signed card keeps the compact input's layout; check it anyway).
python3 - "$tmp/signed" "$tmp/cards.jsonl" "$n" <<'PY' || die "cannot write the JSON Lines file"
import json, os, sys
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
names = sorted(os.listdir(src))
sigs = set()
with open(dst, 'w', encoding='utf-8') as out:
    for name in names:
        with open(os.path.join(src, name), encoding='utf-8') as f:
            text = f.read().strip()
        card = json.loads(text)
        sigs.add(card['signatures'][-1]['signature'])
        out.write(text.replace('\n', ' ') + '\n')
assert len(names) == n, f'{len(names)} cards, expected {n}'
assert len(sigs) == n, f'only {len(sigs)} distinct signatures among {n} cards'
print(f'{n} cards, {len(sigs)} distinct signatures, {os.path.getsize(dst)} bytes of JSON Lines')
PY
rm -rf "$tmp/signed"
echo "signed in $(python3 -c "print(f'{$t1 - $t0:.1f}')") s"

# One timed run: prints "wall_seconds max_rss_kb cpu_percent".
run() {
    local threads="$1"
    RAYON_NUM_THREADS="$threads" /usr/bin/time -v -o "$tmp/time.txt" \
        "$bin" verify --batch "$tmp/cards.jsonl" --jwks "$tmp/jwks.json" >"$tmp/report.jsonl" 2>"$tmp/summary.txt" ||
        { cat "$tmp/summary.txt" >&2; die "verify --batch failed with $threads thread(s)"; }
    grep -q "^batch: $n cards, $n valid, 0 invalid, 0 errors" "$tmp/summary.txt" ||
        { cat "$tmp/summary.txt" >&2; die "not every card verified"; }
    [ "$(grep -c '"ok":true' "$tmp/report.jsonl")" = "$n" ] || die "the report has not $n valid lines"
    python3 - "$tmp/time.txt" <<'PY'
import sys
wall = rss = cpu = None
for line in open(sys.argv[1], encoding='utf-8'):
    k, _, v = line.strip().rpartition(': ')
    if k == 'Elapsed (wall clock) time (h:mm:ss or m:ss)':
        parts = [float(p) for p in v.split(':')]
        wall = sum(p * 60 ** i for i, p in enumerate(reversed(parts)))
    elif k == 'Maximum resident set size (kbytes)':
        rss = int(v)
    elif k == 'Percent of CPU this job got':
        cpu = int(v.rstrip('%'))
print(wall, rss, cpu)
PY
}

echo "==> verify --batch, $runs runs each with 1 and 2 threads (alternating)"
: >"$tmp/runs.txt"
for i in $(seq 1 "$runs"); do
    for t in 1 2; do
        read -r wall rss cpu < <(run "$t")
        echo "  run $i, $t thread(s): $wall s, CPU $cpu%, peak RSS $rss kB ($(tail -n 1 "$tmp/summary.txt"))"
        echo "$t $wall $rss $cpu" >>"$tmp/runs.txt"
    done
done
python3 - "$tmp/runs.txt" "$n" <<'PY'
import statistics, sys
n = int(sys.argv[2])
by = {}
for line in open(sys.argv[1], encoding='utf-8'):
    t, wall, rss, cpu = line.split()
    by.setdefault(int(t), []).append((float(wall), int(rss), int(cpu)))
w1 = statistics.median(w for w, _, _ in by[1])
w2 = statistics.median(w for w, _, _ in by[2])
peak = max(r for runs in by.values() for _, r, _ in runs)
cpu2 = statistics.median(c for _, _, c in by[2])
best = min(w for w, _, _ in by[1]) / min(w for w, _, _ in by[2])
ratio = w1 / w2
print()
print(f'batch of {n} freshly signed 8.5 sample cards (ES256), whole process, median wall time:')
print(f'  1 thread:  {w1:.3f} s = {n / w1:,.0f} cards/s')
print(f'  2 threads: {w2:.3f} s = {n / w2:,.0f} cards/s')
print(f'  2 threads / 1 thread: {ratio:.2f}x (target >= 1.8x): {"met" if ratio >= 1.8 else "NOT met"}')
print(f'  best 1-thread run / best 2-thread run: {best:.2f}x; the 2-thread runs used a median '
      f'{cpu2}% CPU (200% = both cores busy for the whole run; less means the threads waited, '
      f'e.g. for a core that other processes held)')
print(f'  peak RSS over all runs: {peak / 1024:.1f} MB (target < 100 MB): {"met" if peak < 100 * 1024 else "NOT met"}')
sys.exit(0 if ratio >= 1.8 and peak < 100 * 1024 else 1)
PY
