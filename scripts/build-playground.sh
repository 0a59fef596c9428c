#!/usr/bin/env bash
# Builds the playground (crates/a2a-card-wasm/playground/) into one HTML file that works
# offline, from file:// too: crates/a2a-card-wasm/pkg/playground/index.html (or
# $A2A_CARD_WASM_PKG/playground/index.html). The page holds the package's web build and its .wasm
# inline; open it in a browser, or serve it from anywhere.
#
# Steps: the npm package when it is not built yet (scripts/build-wasm.sh); esbuild at the version
# playground/package-lock.json pins (npm ci by scripts/setup.sh; this script installs nothing);
# playground/build.mjs. Safe to run again.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
crate="$root/crates/a2a-card-wasm"
pkg="${A2A_CARD_WASM_PKG:-$crate/pkg}"

if [ ! -f "$pkg/web/a2a_card_bg.wasm" ]; then
    echo "==> the package is not built: scripts/build-wasm.sh"
    "$root/scripts/build-wasm.sh"
fi
# shellcheck source=lib/tools.sh
. "$root/scripts/lib/tools.sh" # npm_ready, needs_setup
command -v node >/dev/null 2>&1 || needs_setup "node"
npm_ready crates/a2a-card-wasm/playground || needs_setup "esbuild (npm ci in crates/a2a-card-wasm/playground)"
cd "$crate/playground"
node build.mjs "$pkg/playground/index.html"
