#!/usr/bin/env bash
# Service throughput (issue 29, "Targets"): `a2a-card serve` on loopback beside the in-process
# `a2a-card verify --batch` on the same cores and the same cards.
#
# Signs A2A_BENCH_SERVE_CARDS copies (default 2,000) of the A2A v1.0 section 8.5 sample card
# (ES256, one fresh key; each copy its own signature, one `a2a-card sign` each), then:
# - batch: the release `verify --batch` over a JSON Lines file of A2A_BENCH_SERVE_BATCH lines
#   (default 200,000: the copies repeated), RAYON_NUM_THREADS=2, timed: cards/s, once before
#   and once after the service (the service is held to their mean);
# - service: the release `a2a-card serve` (policy: the key's JWK Set, mode require) on
#   127.0.0.1, and the load client (crates/a2a-card-serve/examples/bench_serve.rs: 64
#   keep-alive HTTP/1.1 connections on one tokio thread, A2A_BENCH_SERVE_CONNECTIONS) sending
#   the copies round robin to POST /v1/verify until A2A_BENCH_SERVE_N requests (default
#   1,000,000) are answered: req/s, p50/p90/p99/max latency, answers that were not 200, and the
#   server's resident memory at the start, the middle and the end.
# The client runs on the same cores as the server (loopback), as a registry's client would.
# Prints the service/batch ratio and the target: at least 70%, no answer other than 200.
#
# The binary: $A2A_CARD_BIN, or `cargo build --release -p a2a-card-cli` in ${CARGO_TARGET_DIR:-target}.
# Exit status: 0 when the targets are met, 1 when one is not, 2 when the run cannot be made.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cards="${A2A_BENCH_SERVE_CARDS:-2000}"
batch_n="${A2A_BENCH_SERVE_BATCH:-200000}"
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

# The batch runs before and after the service, and the service is held to their mean: the
# machine's other load (shared cores) changes between runs.
echo "==> batch: verify --batch, $batch_n cards, 2 threads (before the service)"
batch_before=$(batch)
echo "batch: $batch_before cards/s ($(tail -1 "$tmp/summary.txt"))"

echo "==> service: a2a-card serve, $n requests over $connections keep-alive connections"
echo '{"verify": {"jwks": ["jwks.json"], "mode": "require"}}' >"$tmp/policy.json"
"$bin" serve --policy "$tmp/policy.json" --listen 127.0.0.1:0 --max-in-flight 1024 --threads 2 2>"$tmp/serve.log" &
server=$!
for _ in $(seq 100); do grep -q '^listening on' "$tmp/serve.log" && break; sleep 0.05; done
addr=$(sed -n 's|^listening on http://\([^ ]*\) .*|\1|p' "$tmp/serve.log")
[ -n "$addr" ] || { kill "$server" 2>/dev/null; die "the service did not start: $(cat "$tmp/serve.log")"; }
"$client" "$addr" "$tmp/cards.jsonl" "$n" "$connections" "$server" | tee "$tmp/client.txt"
kill -TERM "$server"
wait "$server" || die "the service did not exit 0"
echo "==> batch: verify --batch, $batch_n cards, 2 threads (after the service)"
batch_after=$(batch)
echo "batch: $batch_after cards/s ($(tail -1 "$tmp/summary.txt"))"
batch_rate=$(( (batch_before + batch_after) / 2 ))
serve_rate=$(sed -n 's/.*: \([0-9]*\) req\/s/\1/p' "$tmp/client.txt")
not_ok=$(sed -n 's/^answers not 200: //p' "$tmp/client.txt")
ratio=$(python3 -c "print(f'{$serve_rate / $batch_rate * 100:.0f}')")
echo "==> service $serve_rate req/s = $ratio% of batch $batch_rate cards/s (the mean of $batch_before and $batch_after; target: at least 70%, no answer other than 200)"
[ "$ratio" -ge 70 ] && [ "$not_ok" = 0 ] && exit 0
exit 1
