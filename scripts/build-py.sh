#!/usr/bin/env bash
# Builds the Python package of a2a-card (crates/a2a-card-py, import name `a2a_card`) with
# maturin: one abi3 wheel for CPython 3.9 and later, written to target/wheels/ (older a2a_card
# wheels there are removed first, so the directory holds the one just built).
#
#   scripts/build-py.sh              release build (the profile the benchmarks measure)
#   scripts/build-py.sh --debug      a debug build (faster to compile, slow to run)
#
# maturin is taken from the virtualenv target/py-venv, which scripts/setup.sh creates with the
# pinned maturin in it (this script installs nothing; it stops, saying so, when maturin is
# missing).
# The extension links OpenSSL statically (the crate's vendored-openssl feature, which maturin
# turns on: OpenSSL is compiled from source the first time, with perl and make), so the wheel
# needs no OpenSSL on the machine it is installed on. It is linked by zig (the ziglang package
# from PyPI, in the same virtualenv) against glibc 2.17, and tagged manylinux2014: it installs
# on every glibc Linux of the last ten years (Debian 11, Ubuntu 20.04, RHEL 8, Amazon Linux 2
# included), not only on one as new as the build machine's.
# scripts/setup.sh installs the test requirements, scripts/test.sh the wheel, into the same
# virtualenv.
#
# Environment: A2A_CARD_PY_VENV (another virtualenv) and PYTHON (the interpreter that creates
# it), both for scripts/setup.sh first, CARGO_TARGET_DIR (default target/).
# Install the result with: pip install target/wheels/a2a_card-*.whl
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# shellcheck source=lib/tools.sh
. "$root/scripts/lib/tools.sh" # target_dir, py_venv, maturin_version, needs_setup
venv="$py_venv"
wheels="$target_dir/wheels"
start=$SECONDS

profile=(--release)
case "${1:-}" in
    "") ;;
    --debug) profile=() ;;
    -h | --help)
        sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    *)
        echo "error[usage]: unknown option $1 (use --debug or nothing)" >&2
        exit 2
        ;;
esac

say() { echo "==> $*"; }

if [ "$("$venv/bin/python" -m maturin --version 2>/dev/null || true)" != "maturin $maturin_version" ]; then
    needs_setup "maturin $maturin_version in ${venv#"$root"/}"
fi
"$venv/bin/python" -m ziglang version >/dev/null 2>&1 || needs_setup "zig (the ziglang package) in ${venv#"$root"/}"

mkdir -p "$wheels"
rm -f "$wheels"/a2a_card-*.whl
say "maturin build ${profile[*]} --zig --compatibility manylinux2014 -> $wheels (OpenSSL is compiled the first time: minutes)"
# maturin turns on the crate's extension-module feature (crates/a2a-card-py/pyproject.toml).
# Cargo's progress shows on stderr; zig is found as the virtualenv's `python -m ziglang`. The
# build has a target folder of its own (target/py-build): the flags zig's linking gives cargo
# differ from the static binary's build, and sharing one folder made each rebuild the other.
PATH="$venv/bin:$PATH" "$venv/bin/python" -m maturin build "${profile[@]}" --strip --zig \
    --compatibility manylinux2014 --manifest-path crates/a2a-card-py/Cargo.toml --out "$wheels" \
    --interpreter "$venv/bin/python" --target-dir "$target_dir/py-build"
wheel="$(ls "$wheels"/a2a_card-*.whl)"
say "built $wheel ($(du -k "$wheel" | cut -f1) KB) in $((SECONDS - start))s"
