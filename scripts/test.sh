#!/usr/bin/env bash
# The one test command: every test of the workspace, the doc examples, the wasm32 build of the
# core library, clippy with warnings as errors, and the formatting check. Stops at the first
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

step cargo test --workspace --all-targets
step cargo test --workspace --doc
step cargo build -p a2a-card --no-default-features --target wasm32-unknown-unknown
step cargo clippy --workspace --all-targets -- -D warnings
step cargo fmt --all -- --check
echo
echo "all checks passed in ${SECONDS}s"
