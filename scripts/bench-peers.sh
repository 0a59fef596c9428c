#!/usr/bin/env bash
# a2a-card beside the A2A SDKs: time to sign and to verify the same cards (issue 9, item 2).
#
# Installs the Python SDK (a2a-sdk[signing], into a temporary virtualenv) and the JavaScript SDK
# (@a2a-js/sdk and jose, into a temporary folder), the same way scripts/interop-sdks.sh does, and
# times in-process, for ES256 and EdDSA, signing and verifying three cards: the A2A v1.0 section
# 8.5 sample (testvectors/cards/sample-8.5-unsigned.json) and v1.0 cards with 100 and 1,000
# skills (written by scripts/bench-peers/gen.py into the temporary folder).
#
#   a2a-card:   `cargo bench -p a2a-card --bench sign_verify -- ALG/` (release build, criterion,
#               then its own interleaved medians table), parsed from the printed table. Note:
#               that bench builds its 100- and 1,000-skill cards itself
#               (crates/a2a-card/benches/support), so for those two sizes the bytes differ from
#               the SDKs' cards; the script prints both sizes.
#   Python SDK: scripts/bench-peers/py_bench.py, one process.
#   JS SDK:     scripts/bench-peers/js_bench.mjs, one process.
#
# Each SDK measurement is the median of A2A_BENCH_ROUNDS (default 5) rounds of N iterations, N
# chosen so a round lasts about A2A_BENCH_ROUND_SECONDS (default 0.3). A2A_INTEROP_PY_REQ and
# A2A_INTEROP_JS_PKGS choose other SDK versions, as for interop-sdks.sh.
#
# Exit status: 0 when every cell was measured, 1 when one is missing, 2 when the run cannot start.
# Writes nothing outside its temporary folder, which it removes on exit.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
here="$root/scripts/bench-peers"
py_req="${A2A_INTEROP_PY_REQ:-a2a-sdk[signing]}"
read -r -a js_pkgs <<<"${A2A_INTEROP_JS_PKGS:-@a2a-js/sdk jose}"
round_s="${A2A_BENCH_ROUND_SECONDS:-0.3}"
rounds="${A2A_BENCH_ROUNDS:-5}"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/a2a-bench-peers.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

die() {
    echo "bench-peers: $*" >&2
    exit 2
}

echo "==> Python SDK: python3 -m venv, pip install $py_req"
python3 -m venv "$tmp/venv" || die "python3 -m venv failed"
"$tmp/venv/bin/python" -m pip install --quiet --no-compile --disable-pip-version-check --no-input \
    "$py_req" >"$tmp/pip.log" 2>&1 || { cat "$tmp/pip.log" >&2; die "pip install $py_req failed"; }
echo "==> JavaScript SDK: npm install --prefix <tmp> ${js_pkgs[*]}"
mkdir -p "$tmp/js"
npm install --prefix "$tmp/js" --no-audit --no-fund --no-save --loglevel=error "${js_pkgs[@]}" \
    >"$tmp/npm.log" 2>&1 || { cat "$tmp/npm.log" >&2; die "npm install ${js_pkgs[*]} failed"; }
cp "$root/scripts/interop/js_sdk.mjs" "$here/js_bench.mjs" "$tmp/js/"
pyx="$tmp/venv/bin/python"

"$pyx" "$here/gen.py" "$tmp/in" || die "gen.py failed"

echo "==> a2a-card: cargo bench -p a2a-card --bench sign_verify (ES256/, EdDSA/)"
for alg in ES256 EdDSA; do
    (cd "$root" && cargo bench -p a2a-card --bench sign_verify -- "$alg/") >"$tmp/bench-$alg.txt" 2>&1 ||
        { tail -n 20 "$tmp/bench-$alg.txt" >&2; die "cargo bench ($alg/) failed"; }
done
echo "==> Python SDK: timing"
"$pyx" "$here/py_bench.py" "$tmp/in" "$round_s" "$rounds" >"$tmp/python.jsonl" || die "py_bench.py failed"
echo "==> JavaScript SDK: timing"
(cd "$tmp/js" && node js_bench.mjs "$tmp/in" "$round_s" "$rounds") >"$tmp/js.jsonl" 2>"$tmp/js.err" ||
    { cat "$tmp/js.err" >&2; die "js_bench.mjs failed"; }

echo
echo "versions measured:"
echo "  python SDK: $("$pyx" "$root/scripts/interop/py_sdk.py" versions)"
echo "  js SDK:     $(cd "$tmp/js" && node js_sdk.mjs versions)"
echo "  a2a-card:   $(sed -n 's/^version *= *"\(.*\)"/\1/p' "$root/Cargo.toml" | head -n 1) (commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)), $(rustc --version)"
echo "  python $("$pyx" -c 'import platform; print(platform.python_version())'), node $(node --version)"
echo
echo "card sizes (bytes): SDK inputs: $(for f in "$tmp/in/cards/"*.json; do printf '%s=%s ' "$(basename "$f" .json)" "$(wc -c <"$f")"; done)"
echo "SDK timing: median of $rounds rounds of ~${round_s}s each; a2a-card: medians from the sign_verify bench table"
echo
"$pyx" "$here/table.py" "$tmp/bench-ES256.txt" "$tmp/bench-EdDSA.txt" -- "$tmp/python.jsonl" "$tmp/js.jsonl"
