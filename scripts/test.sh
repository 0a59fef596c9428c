#!/usr/bin/env bash
# The one test command: every test of the workspace, the doc examples, the wasm32 build of the
# core library, the API documentation (warnings are errors), clippy with warnings as errors, and the formatting check. Stops at the first
# failure.
#
# Third-party test data is read from $A2A_CARD_CORPORA (default: ../shared/corpora next to the
# repository). Without CI set, a missing corpus is a printed note; with CI set it fails the run.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

step() {
    echo
    echo "==> $*"
    local start=$SECONDS
    "$@"
    echo "<== ok in $((SECONDS - start))s: $*"
}

# The fetch tests dial loopback only, even if the SSRF guard regressed.
export A2A_CARD_FETCH_LOOPBACK_ONLY=1
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
step bash -c "set -o pipefail; cargo test --workspace --all-targets 2>&1 | tee -a '$log'"
step bash -c "set -o pipefail; cargo test --workspace --doc 2>&1 | tee -a '$log'"
step cargo build -p a2a-card --no-default-features --target wasm32-unknown-unknown
# The API documentation builds without a warning (broken links, missing docs).
step env RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps
step cargo clippy --workspace --all-targets -- -D warnings
step cargo fmt --all -- --check
echo
echo "all checks passed in ${SECONDS}s"
# One closing line over every test binary and the doc tests.
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i; if ($(i+1) ~ /^ignored/) s += $i } }
     END { printf "tests: %d passed, %d failed, %d skipped\n", p, f, s }' "$log" | tee "$root/target/test-summary.txt"
