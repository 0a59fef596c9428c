#!/usr/bin/env bash
# Service throughput (issue 29, "Targets"): `a2a-card serve` on loopback beside the in-process
# `a2a-card verify --batch` on the same cores and the same cards.
#
# Signs A2A_BENCH_SERVE_CARDS copies (default 2,000) of the A2A v1.0 section 8.5 sample card
# (ES256, one fresh key; each copy its own signature, one `a2a-card sign` each), starts the
# release `a2a-card serve` once (policy: the key's JWK Set, mode require; on 127.0.0.1), then
# runs A2A_BENCH_SERVE_ROUNDS rounds (default 5), each:
# - batch: the release `verify --batch` over a JSON Lines file of A2A_BENCH_SERVE_BATCH lines
#   (default 100,000: the copies repeated), RAYON_NUM_THREADS=2, timed: cards/s;
# - service: the load client (crates/a2a-card-serve/examples/bench_serve.rs: 64 keep-alive
#   HTTP/1.1 connections on one tokio thread, A2A_BENCH_SERVE_CONNECTIONS) sending the copies
#   round robin to POST /v1/verify until its share of A2A_BENCH_SERVE_N requests (default
#   1,000,000 in all) are answered: req/s, p50/p90/p99/max latency, answers that were not 200,
#   and the server's resident memory;
# and one more batch after the last round. Each round's service rate is held to the mean of
# the batches on either side of it: the machine's other load (shared cores) changes between
# runs, and short interleaved runs see the same load side by side. Prints every round, the
# median of the rounds' ratios (the figure held to the target), the worst p99, and the
# server's resident memory at the start, the middle and the end of the 1,000,000 requests.
# The client runs on the same cores as the server (loopback), as a registry's client would.
# Target: a median ratio of at least 70%, no answer other than 200.
#
# The binary: $A2A_CARD_BIN, or `cargo build --release -p a2a-card-cli` in ${CARGO_TARGET_DIR:-target}.
# Exit status: 0 when the targets are met, 1 when one is not, 2 when the run cannot be made.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cards="${A2A_BENCH_SERVE_CARDS:-2000}"
batch_n="${A2A_BENCH_SERVE_BATCH:-100000}"
rounds="${A2A_BENCH_SERVE_ROUNDS:-5}"
n="${A2A_BENCH_SERVE_N:-1000000}"
connections="${A2A_BENCH_SERVE_CONNECTIONS:-64}"
name=bench-serve
# shellcheck source=scripts/lib/bench.sh
. "$root/scripts/lib/bench.sh"
(cd "$root" && cargo build --quiet --release -p a2a-card-serve --example bench_serve) || die "cannot build the load client"
client="${CARGO_TARGET_DIR:-$root/target}/release/examples/bench_serve"

python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1], encoding="utf-8")), ensure_ascii=False, separators=(",", ":")))' \
    "$root/testvectors/cards/sample-8.5-unsigned.json" >"$tmp/sample.json" || die "cannot compact the sample card"
"$bin" keygen --alg ES256 --out "$tmp/key.pem" --jwks "$tmp/jwks.json" 2>/dev/null || die "keygen failed"
echo "==> signing $cards copies of the 8.5 sample card ($(nproc) in parallel)"
mkdir "$tmp/signed"
# shellcheck disable=SC2016 # the inner shell expands its own positional parameters
seq -w 1 "$cards" | xargs -P "$(nproc)" -I{} sh -c '"$1" sign "$2" --key "$3" --unknown exclude >"$4/$5.json" 2>/dev/null' _ \
    "$bin" "$tmp/sample.json" "$tmp/key.pem" "$tmp/signed" {} || die "signing failed"
for f in "$tmp"/signed/*.json; do tr -d '\n' <"$f"; echo; done >"$tmp/cards.jsonl"
rm -rf "$tmp/signed"
python3 - "$tmp/cards.jsonl" "$tmp/batch.jsonl" "$batch_n" <<'PY' || die "cannot write the batch file"
import sys
lines = open(sys.argv[1], encoding='utf-8').read().splitlines()
n = int(sys.argv[3])
with open(sys.argv[2], 'w', encoding='utf-8') as out:
    for i in range(n):
        out.write(lines[i % len(lines)] + '\n')
PY

# One timed batch run: prints its cards/s.
batch() {
    local t0 t1
    t0=$(date +%s.%N)
    RAYON_NUM_THREADS=2 "$bin" verify --batch "$tmp/batch.jsonl" --jwks "$tmp/jwks.json" >/dev/null 2>"$tmp/summary.txt" ||
        die "the batch did not verify: $(tail -1 "$tmp/summary.txt")"
    t1=$(date +%s.%N)
    python3 -c "print(f'{$batch_n / ($t1 - $t0):.0f}')"
}

echo "==> service: a2a-card serve, $n requests over $connections keep-alive connections, in $rounds rounds between batches of $batch_n cards (2 threads)"
echo '{"verify": {"jwks": ["jwks.json"], "mode": "require"}}' >"$tmp/policy.json"
"$bin" serve --policy "$tmp/policy.json" --listen 127.0.0.1:0 --max-in-flight 1024 --threads 2 2>"$tmp/serve.log" &
server=$!
trap 'kill "$server" 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 100); do grep -q '^listening on' "$tmp/serve.log" && break; sleep 0.05; done
addr=$(sed -n 's|^listening on http://\([^ ]*\) .*|\1|p' "$tmp/serve.log")
[ -n "$addr" ] || die "the service did not start: $(cat "$tmp/serve.log")"

per_round=$(( n / rounds ))
b=$(batch)
echo "batch: $b cards/s"
echo "$b" >"$tmp/batches"
: >"$tmp/rounds"
for r in $(seq "$rounds"); do
    "$client" "$addr" "$tmp/cards.jsonl" "$per_round" "$connections" "$server" >"$tmp/client.txt" || die "the load client failed"
    b=$(batch)
    echo "$b" >>"$tmp/batches"
    sed "s/^/round $r: /" "$tmp/client.txt"
    echo "batch: $b cards/s"
    # One line per round: req/s p99 not-200 rss-start rss-middle rss-end
    python3 - "$tmp/client.txt" >>"$tmp/rounds" <<'PY'
import re, sys
t = open(sys.argv[1], encoding='utf-8').read()
rate = re.search(r': (\d+) req/s', t).group(1)
p99 = re.search(r'p99 ([0-9.]+)', t).group(1)
bad = re.search(r'answers not 200: (\d+)', t).group(1)
rss = re.search(r'start (\d+) middle (\d+) end (\d+)', t).groups()
print(rate, p99, bad, *rss)
PY
done
kill -TERM "$server"
wait "$server" || die "the service did not exit 0"
trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp/rounds" "$tmp/batches" "$n" <<'PY'
import statistics, sys
rounds = [l.split() for l in open(sys.argv[1], encoding='utf-8').read().splitlines()]
batches = [int(l) for l in open(sys.argv[2], encoding='utf-8').read().split()]
n = int(sys.argv[3])
ratios = []
for i, r in enumerate(rounds):
    around = (batches[i] + batches[i + 1]) / 2
    ratios.append(int(r[0]) / around * 100)
    print(f"round {i + 1}: service {r[0]} req/s / batch {around:.0f} cards/s = {ratios[-1]:.1f}%")
median = statistics.median(ratios)
bad = sum(int(r[2]) for r in rounds)
p99 = max(float(r[1]) for r in rounds)
mid = rounds[len(rounds) // 2]
middle = mid[4] if len(rounds) % 2 else rounds[len(rounds) // 2 - 1][5]
print(f"server RSS KiB over {n} requests: start {rounds[0][3]} middle {middle} end {rounds[-1][5]}")
print(f"==> service/batch: median {median:.1f}% (rounds {', '.join(f'{x:.1f}' for x in ratios)}); "
      f"worst p99 {p99:.2f} ms; answers not 200: {bad} (target: a median of at least 70%, none other than 200)")
sys.exit(0 if median >= 70 and bad == 0 else 1)
PY
