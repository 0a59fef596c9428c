#!/usr/bin/env bash
# Runs every cargo-fuzz target in fuzz/fuzz_targets for SECONDS seconds each (default 60) and
# fails on the first crash, timeout or leak. Needs the nightly toolchain and cargo-fuzz
# (`rustup toolchain install nightly && cargo install cargo-fuzz`).
#
#   scripts/fuzz.sh [SECONDS]
#
# Seeds: testvectors/cards and testvectors/canonical (read, never written); new inputs go to
# fuzz/corpus/<target>, crashes to fuzz/artifacts/<target>. FUZZ_SANITIZER=address selects
# ASan (default none: the project forbids unsafe code, so the sanitizer buys little and costs
# most of the speed).
set -euo pipefail

seconds="${1:-60}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ "$seconds" -eq 0 ]; then
    echo "usage: $0 [SECONDS]  (a positive whole number, default 60)" >&2
    exit 2
fi
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
sanitizer="${FUZZ_SANITIZER:-none}"

if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    echo "cargo-fuzz with a nightly toolchain is required: rustup toolchain install nightly && cargo install cargo-fuzz" >&2
    exit 2
fi

shopt -s nullglob
targets=()
for f in fuzz/fuzz_targets/*.rs; do
    targets+=("$(basename "$f" .rs)")
done
if [ "${#targets[@]}" -eq 0 ]; then
    echo "no fuzz targets in fuzz/fuzz_targets" >&2
    exit 2
fi

seeds=()
for d in testvectors/cards testvectors/canonical; do
    if [ -d "$d" ]; then seeds+=("$d"); fi
done

summary=()
for t in "${targets[@]}"; do
    corpus="fuzz/corpus/$t"
    mkdir -p "$corpus"
    dict=()
    if [ -f "fuzz/$t.dict" ]; then dict=("-dict=fuzz/$t.dict"); fi
    log="$(mktemp)"
    echo "== fuzzing $t for ${seconds}s (sanitizer: $sanitizer)"
    status=0
    cargo +nightly fuzz run --sanitizer "$sanitizer" --debug-assertions "$t" "$corpus" "${seeds[@]}" -- \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 "${dict[@]}" 2>&1 | tee "$log" || status=$?
    runs="$(grep -Eo 'Done [0-9]+ runs in [0-9]+ second' "$log" | tail -n 1 || true)"
    rm -f "$log"
    if [ "$status" -ne 0 ]; then
        echo "FAILED: fuzz target $t (exit $status); the input is in fuzz/artifacts/$t/" >&2
        exit 1
    fi
    summary+=("$t: ${runs:-finished}")
done
echo "== fuzz summary"
printf '  %s\n' "${summary[@]}"
