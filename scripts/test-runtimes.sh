#!/usr/bin/env bash
# Runs the npm package's test suite (crates/a2a-card-wasm/test/*.test.mjs, the Node tests) under
# the other JavaScript runtimes whose npm packages ship their binary: Deno and Bun, at the
# versions crates/a2a-card-wasm/test/runtimes/package-lock.json pins (npm ci by scripts/setup.sh;
# this script installs nothing). Each test file
# runs in a process of its own, once with the host's crypto on and once off
# (A2A_CARD_HOST_CRYPTO=0; not hostcrypto.test.mjs and webcrypto.test.mjs, which test the crypto
# paths themselves, on and off), against the built package (scripts/build-wasm.sh) and the native
# CLI (cargo build -p a2a-card-cli).
#
#   scripts/test-runtimes.sh [deno|bun ...]     (default: both)
#
# Prints each file's result and, per runtime, TAP-style totals (`# pass N`, `# fail N`,
# `# skipped N`) that scripts/test.sh adds to its closing line. Exits 1 when a test failed.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
test_dir="$root/crates/a2a-card-wasm/test"
runtimes=("$@")
if [ "${#runtimes[@]}" -eq 0 ]; then runtimes=(deno bun); fi

if [ ! -f "$root/crates/a2a-card-wasm/pkg/package.json" ] && [ -z "${A2A_CARD_WASM_PKG:-}" ]; then
    echo "error: the package is not built: run scripts/build-wasm.sh first" >&2
    exit 2
fi
# shellcheck source=lib/tools.sh
. "$root/scripts/lib/tools.sh" # npm_ready, needs_setup
npm_ready crates/a2a-card-wasm/test/runtimes || needs_setup "Deno and Bun (npm ci in crates/a2a-card-wasm/test/runtimes)"
bin="$test_dir/runtimes/node_modules/.bin"

status=0
for rt in "${runtimes[@]}"; do
    case "$rt" in
        deno) cmd=("$bin/deno" test --allow-all) ;;
        bun) cmd=("$bin/bun" test --timeout 300000) ;;
        *)
            echo "error[usage]: unknown runtime \"$rt\" (deno or bun)" >&2
            exit 2
            ;;
    esac
    echo "==> $rt $("${cmd[0]}" --version | head -1)"
    pass=0 fail=0 skip=0
    for host in on off; do
        for file in "$test_dir"/*.test.mjs; do
            # hostcrypto and webcrypto test the crypto paths themselves, on and off.
            case "$host:$(basename "$file")" in off:hostcrypto.test.mjs | off:webcrypto.test.mjs) continue ;; esac
            out="$(mktemp)"
            rc=0
            (cd "$test_dir" && if [ "$host" = off ]; then export A2A_CARD_HOST_CRYPTO=0; fi &&
                NO_COLOR=1 "${cmd[@]}" "./$(basename "$file")") >"$out" 2>&1 || rc=$?
            # Deno: "ok | 3 passed | 0 failed | 1 ignored"; Bun: " 3 pass", " 0 fail", " 1 skip".
            p=$(sed -nE 's/.*\| ([0-9]+) passed.*/\1/p; s/^ *([0-9]+) pass$/\1/p' "$out" | tail -1)
            f=$(sed -nE 's/.*\| ([0-9]+) failed.*/\1/p; s/^ *([0-9]+) fail$/\1/p' "$out" | tail -1)
            s=$(sed -nE 's/.*\| ([0-9]+) ignored.*/\1/p; s/^ *([0-9]+) skip$/\1/p' "$out" | tail -1)
            p=${p:-0} f=${f:-0} s=${s:-0}
            if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
            echo "$rt (host crypto $host) $(basename "$file"): $p passed, $f failed, $s skipped"
            if [ "$f" -ne 0 ]; then
                status=1
                tail -60 "$out"
            fi
            pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
            rm -f "$out"
        done
    done
    echo "# $rt"
    echo "# pass $pass"
    echo "# fail $fail"
    echo "# skipped $skip"
done
exit "$status"
