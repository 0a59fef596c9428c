#!/usr/bin/env bash
# Installs what building and testing a2a-card needs and a fresh Debian machine lacks, and
# nothing that is already there (safe to run again; scripts/test.sh runs it first).
#
#   scripts/setup.sh            everything scripts/test.sh uses
#   scripts/setup.sh --quick    only what the Rust suites need (scripts/test.sh --quick)
#   scripts/setup.sh --check    install nothing: list what is missing, exit 1 if anything is
#
# System packages (apt-get, with sudo when not root): a C compiler, pkg-config and the OpenSSL
# headers (josekit links OpenSSL for ES512, ES256K and Ed448), clang (ring's C code for
# wasm32), jose (an independent JOSE implementation the tests cross-check), openssl (the
# command line, for keys and certificates made outside the library), jq; for the full run also
# Node.js and npm (the npm package's tests), python3 (3.9 or later) and python3-venv (the SDK
# interop and the Python package), softhsm2 and opensc (a real PKCS#11 token), chromium
# (browser tests), tinyproxy (a real HTTPS proxy), musl-tools (the static binary).
# Rust: the wasm32-unknown-unknown target, clippy and rustfmt; for the full run the
# x86_64-unknown-linux-musl target. wasm-bindgen-cli is installed by scripts/build-wasm.sh at
# the version Cargo.lock pins; the nightly toolchain and cargo-fuzz (full mode) by this script;
# maturin (from PyPI, into target/py-venv) by scripts/build-py.sh.
set -euo pipefail

mode=full
case "${1:-}" in
    "") ;;
    --quick) mode=quick ;;
    --check) mode=check ;;
    -h | --help)
        sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    *)
        echo "error[usage]: unknown option ${1} (use --quick, --check or nothing)" >&2
        exit 2
        ;;
esac

say() { echo "==> $*"; }

has_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
has_cmd() { command -v "$1" >/dev/null 2>&1; }

# Each need: the package that provides it and how to tell it is there.
missing=()
need_pkg() { # PACKAGE: installed as a package
    has_pkg "$1" || missing+=("$1")
}
need_cmd() { # COMMAND PACKAGE: the command on PATH, else the package
    has_cmd "$1" || missing+=("$2")
}

need_cmd cc gcc
need_cmd clang clang
need_cmd pkg-config pkg-config
if ! { has_cmd pkg-config && pkg-config --exists openssl; }; then missing+=(libssl-dev); fi
need_cmd openssl openssl
need_cmd jose jose
need_cmd jq jq
if [ "$mode" != quick ]; then
    need_cmd node nodejs
    need_cmd npm npm
    # The SDK interop and the Python package: CPython 3.9 or later with venv and ensurepip (the
    # Python suite pip-installs maturin, a2a-sdk and pytest from PyPI into
    # target/py-venv; the extension is abi3, so no Python headers are needed).
    python3 -c 'import sys; sys.exit(sys.version_info < (3, 9))' >/dev/null 2>&1 || missing+=(python3)
    python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || missing+=(python3-venv)
    need_cmd softhsm2-util softhsm2
    need_cmd pkcs11-tool opensc
    need_cmd chromium chromium
    need_cmd tinyproxy tinyproxy
    need_cmd musl-gcc musl-tools
    # perl with its standard modules (OpenSSL's Configure uses FindBin and IPC::Cmd, which
    # Debian ships in perl-modules, not in the essential perl-base that provides the command),
    # make: the static binary and the Python wheel build OpenSSL from source.
    perl -MFindBin -MIPC::Cmd -e 1 >/dev/null 2>&1 || missing+=(perl)
    need_cmd make make
fi

targets=(wasm32-unknown-unknown)
if [ "$mode" != quick ]; then targets+=(x86_64-unknown-linux-musl); fi
missing_targets=()
for t in "${targets[@]}"; do
    rustup target list --installed 2>/dev/null | grep -qx "$t" || missing_targets+=("$t")
done
missing_components=()
cargo clippy --version >/dev/null 2>&1 || missing_components+=(clippy)
cargo fmt --version >/dev/null 2>&1 || missing_components+=(rustfmt)

if [ "$mode" = check ]; then
    all=("${missing[@]}" "${missing_targets[@]}" "${missing_components[@]}")
    if [ "${#all[@]}" -eq 0 ]; then
        say "nothing missing"
        exit 0
    fi
    echo "missing: ${all[*]}"
    exit 1
fi

if [ "${#missing[@]}" -gt 0 ]; then
    # Deduplicated, in order.
    mapfile -t missing < <(printf '%s\n' "${missing[@]}" | awk '!seen[$0]++')
    sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        if ! has_cmd sudo; then
            echo "error[usage]: missing packages ${missing[*]}, and not root and no sudo to install them" >&2
            exit 2
        fi
        sudo=(sudo)
    fi
    if ! has_cmd apt-get; then
        echo "error[usage]: missing ${missing[*]}; install them with your package manager (this script knows apt-get)" >&2
        exit 2
    fi
    say "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get update -qq
    "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
    say "system packages present"
fi

for t in "${missing_targets[@]}"; do
    say "adding Rust target $t"
    rustup target add "$t"
done
for c in "${missing_components[@]}"; do
    say "adding Rust component $c"
    rustup component add "$c"
done
# The fuzz suite: a nightly toolchain and cargo-fuzz (full mode only; idempotent).
if [ "$mode" != quick ]; then
    if ! rustup toolchain list | grep -q '^nightly'; then
        say "installing the nightly toolchain (fuzzing)"
        rustup toolchain install nightly --profile minimal
    fi
    if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
        say "installing cargo-fuzz"
        cargo install cargo-fuzz
    fi
fi
say "setup done ($mode)"
