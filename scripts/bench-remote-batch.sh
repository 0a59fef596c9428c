#!/usr/bin/env bash
# Remote batches (issue 29, "Targets"): `a2a-card verify --urls` over one fetcher against
# calling `a2a-card verify URL` once per card, on loopback.
#
# Starts A2A_BENCH_URLS_ORIGINS HTTPS origins on 127.0.0.1 (default 50, each its own port,
# HTTP/2; crates/a2a-card-fetch/examples/bench_origins.rs), each serving the A2A v1.0 section
# 8.5 sample card (ES256) at A2A_BENCH_URLS_PER_ORIGIN distinct URLs (default 40: 2,000 cards
# in all, the origins interleaved in the list). Then:
# - batch: `verify --urls urls.txt` (defaults: --concurrency 32, --per-origin 4), timed, every
#   line of output counted against the list and checked valid;
# - single: `verify URL` once per card, for a sample of A2A_BENCH_URLS_SAMPLE cards (default
#   100, taken evenly from the list), one process after the other, timed; the time of the
#   whole list is extrapolated from the sample (said so in the output).
# Both with --no-cache (no disk cache; the batch keeps its fetcher's memory cache, which the
# distinct URLs do not hit). Prints cards/s of each and the ratio; the target is at least 10x.
#
# The binary: $A2A_CARD_BIN, or `cargo build --release -p a2a-card-cli`. The origins are built
# with the profile A2A_BENCH_URLS_PROFILE (default release; `dev` for a quick run).
# Exit status: 0 when the target is met, 1 when not, 2 when the run cannot be made.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
name=bench-remote-batch
origins="${A2A_BENCH_URLS_ORIGINS:-50}"
per_origin="${A2A_BENCH_URLS_PER_ORIGIN:-40}"
sample="${A2A_BENCH_URLS_SAMPLE:-100}"
profile="${A2A_BENCH_URLS_PROFILE:-release}"
# shellcheck source=scripts/lib/bench.sh
. "$root/scripts/lib/bench.sh"

(cd "$root" && cargo build --quiet --profile "$profile" -p a2a-card-fetch --example bench_origins) ||
    die "cannot build the origins"
profile_dir="$profile"
[ "$profile" = dev ] && profile_dir=debug
servers_bin="${CARGO_TARGET_DIR:-$root/target}/$profile_dir/examples/bench_origins"

# The origins serve until their stdin (this FIFO's writer) closes.
mkfifo "$tmp/hold"
"$servers_bin" "$tmp" "$origins" "$per_origin" <"$tmp/hold" >"$tmp/servers.out" 2>&1 &
servers=$!
exec 3>"$tmp/hold"
trap 'exec 3>&-; wait "$servers" 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 600); do grep -q '^ready' "$tmp/servers.out" && break; sleep 0.05; done
grep -q '^ready' "$tmp/servers.out" || die "the origins did not start: $(cat "$tmp/servers.out")"
total=$(wc -l <"$tmp/urls.txt")
common=(--jwks "$tmp/jwks.json" --allow-loopback --ca-file "$tmp/ca.pem" --no-cache)

echo "==> batch: verify --urls, $total cards from $origins loopback origins"
t0=$(date +%s.%N)
"$bin" verify --urls "$tmp/urls.txt" "${common[@]}" >"$tmp/batch.jsonl" 2>"$tmp/batch.err" ||
    die "the batch did not pass: $(tail -3 "$tmp/batch.err")"
t1=$(date +%s.%N)
out_lines=$(wc -l <"$tmp/batch.jsonl")
valid=$(grep -c '"ok":true' "$tmp/batch.jsonl" || true)
[ "$out_lines" -eq "$total" ] || die "$total URLs in, $out_lines lines out"
[ "$valid" -eq "$total" ] || die "$valid of $total valid"
echo "$(tail -1 "$tmp/batch.err")"
echo "every URL accounted for: $total lines in, $out_lines lines out, $valid valid"

echo "==> single: verify URL, one process per card, $sample cards sampled evenly from the list"
step=$((total / sample))
[ "$step" -ge 1 ] || step=1
awk -v step="$step" -v n="$sample" '(NR - 1) % step == 0 && c < n { print; c++ }' "$tmp/urls.txt" >"$tmp/sample.txt"
taken=$(wc -l <"$tmp/sample.txt")
t2=$(date +%s.%N)
while read -r url; do
    "$bin" verify "$url" "${common[@]}" >/dev/null 2>"$tmp/single.err" ||
        die "verify $url did not pass: $(cat "$tmp/single.err")"
done <"$tmp/sample.txt"
t3=$(date +%s.%N)

python3 - "$t0" "$t1" "$t2" "$t3" "$total" "$taken" <<'PY'
import sys
t0, t1, t2, t3 = map(float, sys.argv[1:5])
total, taken = int(sys.argv[5]), int(sys.argv[6])
batch = total / (t1 - t0)
single = taken / (t3 - t2)
print(f"batch:  {total} cards in {t1 - t0:.2f} s, {batch:.0f} cards/s")
print(f"single: {taken} cards in {t3 - t2:.2f} s, {single:.1f} cards/s; "
      f"the whole list of {total} extrapolated: {total / single:.1f} s")
ratio = batch / single
print(f"ratio:  {ratio:.1f}x (target: at least 10x) -> {'met' if ratio >= 10 else 'NOT met'}")
sys.exit(0 if ratio >= 10 else 1)
PY
