#!/usr/bin/env bash
# a2a-card beside the A2A SDKs: time to sign and to verify the same cards (issue 9, item 2; the
# Rust peer, issue 28).
#
# Takes the Python SDK (a2a-sdk[signing]) and the JavaScript SDK (@a2a-js/sdk and jose) that
# scripts/setup.sh prepares under target/sdk/, as scripts/interop-sdks.sh does, and the Rust peer
# (scripts/interop/rust-peer: a2a-protocol-types 0.15, feature signing, whose crates setup.sh
# fetches; built here with --release --offline --locked into target/interop-rust-peer), and times
# in-process, for ES256 and EdDSA, signing and verifying the same card files with each peer and
# with a2a-card: the A2A v1.0 section 8.5 sample (testvectors/cards/sample-8.5-unsigned.json) and
# v1.0 cards with 10, 100, 1,000 and 10,000 skills (written by scripts/bench-peers/gen.py into the
# temporary folder, with fresh ES256 and EdDSA keys that all three use).
#
#   a2a-card:   `cargo bench -p a2a-card --bench sign_verify` (release build) with A2A_BENCH_CARDS
#               and A2A_BENCH_KEYS pointing at gen.py's cards and keys: its interleaved medians of
#               verify_card and sign_card, written as JSON lines (A2A_BENCH_FIGURES).
#   Python SDK: scripts/bench-peers/py_bench.py, one process.
#   JS SDK:     scripts/bench-peers/js_bench.mjs, one process.
#   Rust peer:  `a2a-rust-peer bench` (scripts/interop/rust-peer), one process: sign = the card
#               text read into its AgentCard, sign_card_es256 / sign_card_ed25519, the card
#               written as JSON; verify = the signed text read as JSON and
#               verify_card_json_with_jwks (the card as received, every member covered).
#
# Each peer measurement is the median of A2A_BENCH_ROUNDS (default 5) rounds of N iterations, N
# chosen so a round lasts about A2A_BENCH_ROUND_SECONDS (default 0.3). A2A_INTEROP_PY_REQ and
# A2A_INTEROP_JS_PKGS choose other SDK versions, as for interop-sdks.sh (scripts/setup.sh with
# the same variables prepares them first); A2A_BENCH_SKILLS
# (e.g. "100,1000") other skill counts.
#
# Prints the versions measured, the table with the ratios and the issue's ES256 verify targets,
# and writes every figure (with the versions) to A2A_BENCH_OUT (default docs/bench-peers.json),
# which scripts/bench-chart.py draws.
#
# Exit status: 0 when every cell was measured, 1 when one is missing, 2 when the run cannot start.
# Writes nothing else outside its temporary folder, which it removes on exit.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
here="$root/scripts/bench-peers"
# shellcheck source=lib/tools.sh
. "$root/scripts/lib/tools.sh" # sdk_py_dir, sdk_js_dir (from A2A_INTEROP_PY_REQ, A2A_INTEROP_JS_PKGS)
round_s="${A2A_BENCH_ROUND_SECONDS:-0.3}"
rounds="${A2A_BENCH_ROUNDS:-5}"
out="${A2A_BENCH_OUT:-$root/docs/bench-peers.json}"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/a2a-bench-peers.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

die() {
    echo "bench-peers: $*" >&2
    exit 2
}

sdk_py_ready || needs_setup "the Python SDK $sdk_py_req (${sdk_py_dir#"$root"/})"
sdk_js_ready || needs_setup "the JavaScript SDK $sdk_js_pkgs (${sdk_js_dir#"$root"/})"
rust_peer_ready || needs_setup "the Rust peer's crates (${rust_peer_dir#"$root"/}/Cargo.lock)"
echo "==> Python SDK: $sdk_py_req; JavaScript SDK: $sdk_js_pkgs (${sdk_py_dir%/*})"
# Run beside the SDK's node_modules so that the scripts' imports resolve to those packages.
mkdir -p "$tmp/js"
ln -s "$sdk_js_dir/node_modules" "$tmp/js/node_modules"
cp "$root/scripts/interop/js_sdk.mjs" "$here/js_bench.mjs" "$tmp/js/"
pyx="$sdk_py_dir/bin/python"

"$pyx" "$here/gen.py" "$tmp/in" || die "gen.py failed"

echo "==> a2a-card: cargo bench -p a2a-card --bench sign_verify on the same cards and keys"
(cd "$root" && A2A_BENCH_CARDS="$tmp/in/cards" A2A_BENCH_KEYS="$tmp/in/keys" A2A_BENCH_ALGS=ES256,EdDSA \
    A2A_BENCH_FIGURES="$tmp/a2a-card.jsonl" A2A_BENCH_NO_CRITERION=1 \
    cargo bench -p a2a-card --bench sign_verify) >"$tmp/bench.txt" 2>&1 ||
    { tail -n 20 "$tmp/bench.txt" >&2; die "cargo bench failed"; }
echo "==> Rust peer: cargo build --release --offline --locked (${rust_peer_dir#"$root"/})"
peer="$(rust_peer_build --release)" || die "the Rust peer does not build offline (scripts/setup.sh fetches its crates)"
echo "==> Python SDK: timing"
"$pyx" "$here/py_bench.py" "$tmp/in" "$round_s" "$rounds" >"$tmp/python.jsonl" || die "py_bench.py failed"
echo "==> JavaScript SDK: timing"
(cd "$tmp/js" && node js_bench.mjs "$tmp/in" "$round_s" "$rounds") >"$tmp/js.jsonl" 2>"$tmp/js.err" ||
    { cat "$tmp/js.err" >&2; die "js_bench.mjs failed"; }
echo "==> Rust peer (a2a-protocol-types): timing"
"$peer" bench "$tmp/in" "$round_s" "$rounds" >"$tmp/rust.jsonl" || die "a2a-rust-peer bench failed"

py_versions="$("$pyx" "$root/scripts/interop/py_sdk.py" versions)"
js_versions="$(cd "$tmp/js" && node js_sdk.mjs versions)"
rust_versions="$("$peer" versions)"
ours="$(sed -n 's/^version *= *"\(.*\)"/\1/p' "$root/Cargo.toml" | head -n 1) (commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)), $(rustc --version)"
runtimes="python $("$pyx" -c 'import platform; print(platform.python_version())'), node $(node --version)"
echo
echo "versions measured:"
echo "  python SDK: $py_versions"
echo "  js SDK:     $js_versions"
echo "  rust peer:  $rust_versions (release build, the workspace's release settings)"
echo "  a2a-card:   $ours"
echo "  $runtimes"
echo
echo "card sizes (bytes), the same files for all four: $(for f in "$tmp/in/cards/"*.json; do printf '%s=%s ' "$(basename "$f" .json)" "$(wc -c <"$f")"; done)"
echo "timing: a2a-card median of 21 interleaved rounds (9 for the largest cards) of ~20 ms; peers median of $rounds rounds of ~${round_s}s each"
echo
status=0
"$pyx" "$here/table.py" "$tmp/in/cards" "$tmp/figures.json" "$tmp/a2a-card.jsonl" "$tmp/python.jsonl" "$tmp/js.jsonl" "$tmp/rust.jsonl" || status=$?
mkdir -p "$(dirname "$out")"
"$pyx" - "$tmp/figures.json" "$out" "$py_versions" "$js_versions" "$rust_versions" "$ours" "$runtimes" <<'EOF'
import json, sys
src, dst, py, js, rust, ours, runtimes = sys.argv[1:]
with open(src, encoding='utf-8') as f:
    figures = json.load(f)
figures['versions'] = {'python': json.loads(py), 'js': json.loads(js), 'rust': json.loads(rust),
                       'a2a-card': ours,
                       'runtimes': runtimes}
with open(dst, 'w', encoding='utf-8') as f:
    json.dump(figures, f, indent=1)
    f.write('\n')
EOF
echo "figures written to $out"
exit "$status"
