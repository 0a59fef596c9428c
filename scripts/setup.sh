#!/usr/bin/env bash
# Installs what building and testing a2a-card needs and a fresh Debian machine lacks, and
# nothing that is already there (safe to run again; scripts/test.sh runs it first). It is the
# only script that installs anything: the others check for what they use and, when something
# is missing, stop and say to run this one. It lists what it will install before installing.
#
#   scripts/setup.sh            everything scripts/test.sh uses
#   scripts/setup.sh --quick    only what the Rust suites need (scripts/test.sh --quick)
#   scripts/setup.sh --release  everything, and what scripts/release.sh's full run adds: the
#                               aarch64 cross-build (cargo-zigbuild from PyPI, the
#                               aarch64-unknown-linux-musl and -gnu Rust targets) and
#                               qemu-user-static to run what it builds
#   scripts/setup.sh --check    install nothing: list what is missing, exit 1 if anything is
#                               (with --quick: of the Rust suites' needs only)
#
# System packages (apt-get, with sudo when not root): a C compiler, pkg-config and the OpenSSL
# headers (josekit links OpenSSL for ES512, ES256K and Ed448), clang (ring's C code for
# wasm32), jose (an independent JOSE implementation the tests cross-check), openssl (the
# command line, for keys and certificates made outside the library), jq; for the full run also
# Node.js and npm, python3 (3.9 or later) and python3-venv, softhsm2 and opensc (a real PKCS#11
# token), chromium (browser tests), tinyproxy (a real HTTPS proxy), musl-tools, perl and make
# (the static binary and the Python wheel build OpenSSL from source), podman and runc (the
# container image: built and run by the release suite).
# Rust (rustup): the wasm32-unknown-unknown target, clippy and rustfmt; for the full run the
# x86_64-unknown-linux-musl target and the nightly toolchain (fuzzing).
# Into the project (target/, node_modules/; full run only):
#   target/tools             cargo-fuzz, and wasm-bindgen-cli at the version Cargo.lock pins
#                            (cargo install --root target/tools)
#   target/binaryen-*        binaryen from npm, pinned (wasm-opt for scripts/build-wasm.sh)
#   node_modules             npm ci in crates/a2a-card-wasm/test, test/runtimes (Deno, Bun) and
#                            playground (esbuild), from their package-lock.json
#   target/py-venv           maturin from PyPI and crates/a2a-card-py/tests/requirements.txt
#                            (A2A_CARD_PY_VENV: another virtualenv; PYTHON: its interpreter);
#                            the release tools ziglang, auditwheel and pre-commit (pinned in
#                            scripts/lib/tools.sh), and with --release cargo-zigbuild
#   target/sdk/              the A2A SDKs for scripts/interop-sdks.sh and scripts/bench-peers.sh:
#                            a2a-sdk[signing]==1.3.0 (PyPI, a virtualenv), a2a-sdk[signing]==0.3.26
#                            and ==0.3.21 (one virtualenv each) and @a2a-js/sdk@1.3.0
#                            with jose@6.2.18 (npm); A2A_INTEROP_PY_REQ, A2A_INTEROP_PY03_REQS and
#                            A2A_INTEROP_JS_PKGS
#                            prepare other versions, which those scripts then take with the same
#                            variables
#   target/interop-rust-peer the Rust peer of those scripts (scripts/interop/rust-peer:
#                            a2a-protocol-types 0.15 from crates.io): cargo fetch --locked of its
#                            Cargo.lock, so that the scripts build it offline into this folder
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# shellcheck source=lib/tools.sh
. "$root/scripts/lib/tools.sh"

mode=full
check=0
for arg in "$@"; do
    case "$arg" in
        --quick) mode=quick ;;
        --release) mode=release ;;
        --check) check=1 ;;
        -h | --help)
            sed -n '2,45p' "$0" | sed 's/^# \{0,1\}//'
            exit 0
            ;;
        *)
            echo "error[usage]: unknown option ${arg} (use --quick, --release, --check or nothing)" >&2
            exit 2
            ;;
    esac
done

say() { echo "==> $*"; }

has_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
has_cmd() { command -v "$1" >/dev/null 2>&1; }

# ------------------------------------------------------------------------- what is missing
missing=() # system packages
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
    # CPython 3.9 or later with venv and ensurepip (the extension is abi3: no headers needed).
    python3 -c 'import sys; sys.exit(sys.version_info < (3, 9))' >/dev/null 2>&1 || missing+=(python3)
    python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || missing+=(python3-venv)
    need_cmd softhsm2-util softhsm2
    need_cmd pkcs11-tool opensc
    need_cmd chromium chromium
    need_cmd tinyproxy tinyproxy
    need_cmd musl-gcc musl-tools
    # perl with its standard modules (OpenSSL's Configure uses FindBin and IPC::Cmd, which
    # Debian ships in perl-modules, not in the essential perl-base that provides the command).
    perl -MFindBin -MIPC::Cmd -e 1 >/dev/null 2>&1 || missing+=(perl)
    need_cmd make make
    need_cmd podman podman
    need_cmd runc runc
fi
if [ "$mode" = release ]; then
    need_cmd qemu-aarch64-static qemu-user-static
fi
if [ "${#missing[@]}" -gt 0 ]; then
    mapfile -t missing < <(printf '%s\n' "${missing[@]}" | awk '!seen[$0]++')
fi

targets=(wasm32-unknown-unknown)
if [ "$mode" != quick ]; then targets+=(x86_64-unknown-linux-musl); fi
if [ "$mode" = release ]; then targets+=(aarch64-unknown-linux-musl aarch64-unknown-linux-gnu); fi
missing_targets=()
for t in "${targets[@]}"; do
    rustup target list --installed 2>/dev/null | grep -qx "$t" || missing_targets+=("$t")
done
missing_components=()
cargo clippy --version >/dev/null 2>&1 || missing_components+=(clippy)
cargo fmt --version >/dev/null 2>&1 || missing_components+=(rustfmt)

# The project's own tools (full run): one line each, "KEY description".
local_missing=()
if [ "$mode" != quick ]; then
    rustup toolchain list 2>/dev/null | grep -q '^nightly' ||
        local_missing+=("nightly the nightly Rust toolchain (rustup, profile minimal; fuzzing)")
    PATH="$tools_dir/bin:$PATH" cargo +nightly fuzz --version >/dev/null 2>&1 ||
        local_missing+=("cargo-fuzz cargo-fuzz (crates.io, into ${tools_dir#"$root"/})")
    wasm_bindgen_ready ||
        local_missing+=("wasm-bindgen wasm-bindgen-cli $(wasm_bindgen_version) (crates.io, into ${tools_dir#"$root"/}; the version Cargo.lock pins)")
    binaryen_ready ||
        local_missing+=("binaryen binaryen $binaryen_version (npm, into ${binaryen_dir#"$root"/})")
    for d in "${npm_dirs[@]}"; do
        npm_ready "$d" || local_missing+=("npm:$d npm ci in $d (its package-lock.json)")
    done
    py_venv_ready ||
        local_missing+=("py-venv maturin==$maturin_version and the Python tests' requirements (PyPI, into ${py_venv#"$root"/})")
    release_tools_ready ||
        local_missing+=("release-py $release_py_reqs (PyPI, into ${py_venv#"$root"/})")
    if [ "$mode" = release ]; then
        stamp_matches "$py_venv/.a2a-card-release-full" "$release_full_py_reqs" ||
            local_missing+=("release-full-py $release_full_py_reqs (PyPI, into ${py_venv#"$root"/})")
    fi
    sdk_py_ready ||
        local_missing+=("sdk-py $sdk_py_req (PyPI, a virtualenv in ${sdk_py_dir#"$root"/})")
    for req in $sdk_py03_reqs; do
        sdk_py03_ready "$req" ||
            local_missing+=("sdk-py03:$req $req (PyPI, a virtualenv in $(sdk_py03_dir "$req" | sed "s|^$root/||"))")
    done
    sdk_js_ready ||
        local_missing+=("sdk-js $sdk_js_pkgs (npm, into ${sdk_js_dir#"$root"/})")
    rust_peer_ready ||
        local_missing+=("rust-peer the Rust peer's crates, a2a-protocol-types 0.15 (crates.io, cargo fetch --locked of ${rust_peer_dir#"$root"/}/Cargo.lock)")
fi

plan=()
if [ "${#missing[@]}" -gt 0 ]; then plan+=("system packages (apt-get): ${missing[*]}"); fi
for t in "${missing_targets[@]}"; do plan+=("Rust target $t (rustup)"); done
for c in "${missing_components[@]}"; do plan+=("Rust component $c (rustup)"); done
for l in "${local_missing[@]}"; do plan+=("${l#* }"); done

if [ "${#plan[@]}" -eq 0 ]; then
    say "nothing missing ($mode)"
    exit 0
fi
if [ "$check" -eq 1 ]; then
    echo "missing ($mode):"
    printf '  %s\n' "${plan[@]}"
    exit 1
fi
say "will install:"
printf '  %s\n' "${plan[@]}"

# ------------------------------------------------------------------------------ installing
if [ "${#missing[@]}" -gt 0 ]; then
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
fi
for t in "${missing_targets[@]}"; do
    say "adding Rust target $t"
    rustup target add "$t"
done
for c in "${missing_components[@]}"; do
    say "adding Rust component $c"
    rustup component add "$c"
done

pip_install() { # PYTHON ARGS...: quiet, no prompt
    local py="$1"
    shift
    "$py" -m pip install --quiet --disable-pip-version-check --no-input "$@"
}

install_one() { # "KEY DESCRIPTION", an entry of local_missing
    local l="$1" key
    key="${l%% *}"
    say "installing ${l#* }"
    case "$key" in
        nightly)
            rustup toolchain install nightly --profile minimal
            ;;
        cargo-fuzz)
            cargo install --locked --root "$tools_dir" cargo-fuzz
            ;;
        wasm-bindgen)
            # The exact version of the crate the package links; --locked is left out (the CLI's
            # own lock file may lag the toolchain).
            cargo install --root "$tools_dir" wasm-bindgen-cli --version "$(wasm_bindgen_version)" --force
            wasm_bindgen_ready || {
                echo "error: $tools_dir/bin/wasm-bindgen is not version $(wasm_bindgen_version) after installing it" >&2
                exit 2
            }
            ;;
        binaryen)
            mkdir -p "$binaryen_dir"
            npm install --prefix "$binaryen_dir" --no-save --no-audit --no-fund --loglevel=error \
                "binaryen@$binaryen_version" >/dev/null
            ;;
        npm:*)
            d="${key#npm:}"
            (cd "$root/$d" && npm ci --no-audit --no-fund --loglevel=error)
            lock_hash "$root/$d/package-lock.json" >"$root/$d/node_modules/.a2a-card-setup"
            ;;
        py-venv)
            [ -x "$py_venv/bin/python" ] || "$py_python" -m venv "$py_venv"
            pip_install "$py_venv/bin/python" "maturin==$maturin_version" -r "$py_requirements"
            py_venv_stamp >"$py_venv/.a2a-card-setup"
            ;;
        release-py)
            [ -x "$py_venv/bin/python" ] || "$py_python" -m venv "$py_venv"
            read -r -a reqs <<<"$release_py_reqs"
            pip_install "$py_venv/bin/python" "${reqs[@]}"
            printf '%s\n' "$release_py_reqs" >"$py_venv/.a2a-card-release"
            ;;
        release-full-py)
            [ -x "$py_venv/bin/python" ] || "$py_python" -m venv "$py_venv"
            read -r -a reqs <<<"$release_full_py_reqs"
            pip_install "$py_venv/bin/python" "${reqs[@]}"
            printf '%s\n' "$release_full_py_reqs" >"$py_venv/.a2a-card-release-full"
            ;;
        sdk-py)
            rm -rf "$sdk_py_dir"
            python3 -m venv "$sdk_py_dir"
            pip_install "$sdk_py_dir/bin/python" --no-compile "$sdk_py_req"
            printf '%s\n' "$sdk_py_req" >"$sdk_py_dir/.a2a-card-setup"
            ;;
        sdk-py03:*)
            req="${key#sdk-py03:}"
            d="$(sdk_py03_dir "$req")"
            rm -rf "$d"
            python3 -m venv "$d"
            pip_install "$d/bin/python" --no-compile "$req"
            printf '%s\n' "$req" >"$d/.a2a-card-setup"
            ;;
        sdk-js)
            rm -rf "$sdk_js_dir"
            mkdir -p "$sdk_js_dir"
            read -r -a pkgs <<<"$sdk_js_pkgs"
            npm install --prefix "$sdk_js_dir" --no-audit --no-fund --no-save --loglevel=error "${pkgs[@]}" >/dev/null
            printf '%s\n' "$sdk_js_pkgs" >"$sdk_js_dir/.a2a-card-setup"
            ;;
        rust-peer)
            cargo fetch --locked --manifest-path "$rust_peer_dir/Cargo.toml"
            mkdir -p "$rust_peer_target"
            lock_hash "$rust_peer_dir/Cargo.lock" >"$rust_peer_target/.a2a-card-setup"
            ;;
    esac
}

# The crates that cargo compiles (cargo-fuzz, wasm-bindgen-cli) keep both cores busy for minutes,
# while the downloads from npm and PyPI mostly wait on the network: the downloads run in the
# background meanwhile, one after another, their output kept and printed whole when they are done.
compiled=()
downloaded=()
for l in "${local_missing[@]}"; do
    case "${l%% *}" in
        nightly | cargo-fuzz | wasm-bindgen | rust-peer) compiled+=("$l") ;;
        *) downloaded+=("$l") ;;
    esac
done
downloads_pid=""
if [ "${#downloaded[@]}" -gt 0 ]; then
    downloads_log="$(mktemp)"
    trap 'if [ -n "$downloads_pid" ]; then kill "$downloads_pid" 2>/dev/null || true; fi; rm -f "$downloads_log"' EXIT
    (
        set -e
        for l in "${downloaded[@]}"; do install_one "$l"; done
    ) >"$downloads_log" 2>&1 &
    downloads_pid=$!
fi
for l in "${compiled[@]}"; do install_one "$l"; done
if [ -n "$downloads_pid" ]; then
    status=0
    wait "$downloads_pid" || status=$?
    downloads_pid=""
    cat "$downloads_log"
    if [ "$status" -ne 0 ]; then
        echo "error: installing from npm or PyPI failed (exit $status); its output is above" >&2
        exit "$status"
    fi
fi
say "setup done ($mode)"
