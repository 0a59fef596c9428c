#!/usr/bin/env bash
# Builds the Python package of a2a-card (crates/a2a-card-py, import name `a2a_card`) with
# maturin: one abi3 wheel for CPython 3.9 and later, written to target/wheels/ (older a2a_card
# wheels there are removed first, so the directory holds the one just built).
#
#   scripts/build-py.sh              release build (the profile the benchmarks measure)
#   scripts/build-py.sh --debug      a debug build (faster to compile, slow to run)
#
# maturin is taken from the virtualenv target/py-venv (created with python3 -m venv when
# missing; maturin $maturin_version installed into it from PyPI when it lacks that version).
# The extension links OpenSSL statically (the crate's vendored-openssl feature, which maturin
# turns on: OpenSSL is compiled from source the first time, with perl and make), so the wheel
# is a manylinux wheel that needs no OpenSSL on the machine it is installed on.
# scripts/test.sh installs the test requirements and the wheel into the same virtualenv.
#
# Environment: PYTHON (the interpreter that creates the virtualenv, default python3),
# A2A_CARD_PY_VENV (another virtualenv), CARGO_TARGET_DIR (default target/).
# Install the result with: pip install target/wheels/a2a_card-*.whl
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
maturin_version=1.16.0
target_dir="${CARGO_TARGET_DIR:-$root/target}"
case "$target_dir" in /*) ;; *) target_dir="$root/$target_dir" ;; esac
venv="${A2A_CARD_PY_VENV:-$target_dir/py-venv}"
wheels="$target_dir/wheels"
python="${PYTHON:-python3}"
start=$SECONDS

profile=(--release)
case "${1:-}" in
    "") ;;
    --debug) profile=() ;;
    -h | --help)
        sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    *)
        echo "error[usage]: unknown option $1 (use --debug or nothing)" >&2
        exit 2
        ;;
esac

say() { echo "==> $*"; }

if [ ! -x "$venv/bin/python" ]; then
    say "$python -m venv $venv"
    "$python" -m venv "$venv" || {
        echo "error[usage]: $python -m venv failed (on Debian: apt-get install python3-venv)" >&2
        exit 2
    }
fi
if [ "$("$venv/bin/python" -m maturin --version 2>/dev/null || true)" != "maturin $maturin_version" ]; then
    say "pip install maturin==$maturin_version (into $venv)"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input "maturin==$maturin_version"
fi

mkdir -p "$wheels"
rm -f "$wheels"/a2a_card-*.whl
say "maturin build ${profile[*]} -> $wheels"
# maturin turns on the crate's extension-module feature (crates/a2a-card-py/pyproject.toml).
"$venv/bin/python" -m maturin build "${profile[@]}" --strip --quiet \
    --manifest-path crates/a2a-card-py/Cargo.toml --out "$wheels" --interpreter "$venv/bin/python"
wheel="$(ls "$wheels"/a2a_card-*.whl)"
say "built $wheel ($(du -k "$wheel" | cut -f1) KB) in $((SECONDS - start))s"
