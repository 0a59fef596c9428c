#!/usr/bin/env bash
# Builds the playground (crates/a2a-card-wasm/playground/) into one HTML file that works
# offline, from file:// too: crates/a2a-card-wasm/pkg/playground/index.html (or
# $A2A_CARD_WASM_PKG/playground/index.html). The page holds the package's web build and its .wasm
# inline; open it in a browser, or serve it from anywhere.
#
# Steps: the npm package when it is not built yet (scripts/build-wasm.sh); esbuild at the version
# playground/package-lock.json pins (npm ci); playground/build.mjs. Safe to run again.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
crate="$root/crates/a2a-card-wasm"
pkg="${A2A_CARD_WASM_PKG:-$crate/pkg}"

if [ ! -f "$pkg/web/a2a_card_bg.wasm" ]; then
    echo "==> the package is not built: scripts/build-wasm.sh"
    "$root/scripts/build-wasm.sh"
fi
if ! command -v npm >/dev/null 2>&1; then
    echo "error: npm is missing (scripts/setup.sh installs it)" >&2
    exit 2
fi
cd "$crate/playground"
npm ci --no-audit --no-fund --silent
node build.mjs "$pkg/playground/index.html"
