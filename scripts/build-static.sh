#!/usr/bin/env bash
# Builds a portable, statically linked `a2a-card` for Linux x86_64: no libc, libssl or any other
# shared library needed on the machine that runs it.
#
#   scripts/build-static.sh          writes target/static/a2a-card (and prints its size)
#
# Route: the x86_64-unknown-linux-musl target (musl libc, linked statically by Rust's default
# for that target) and the CLI's `vendored-openssl` feature, which builds OpenSSL from source
# (the `openssl` crate's `vendored` feature, through openssl-src) and links it statically for
# josekit (ES512, ES256K, Ed448). Everything else is Rust or ring's own C and assembly. Needs
# musl-gcc (Debian musl-tools), perl and make (OpenSSL's build) and the musl Rust target:
# scripts/setup.sh installs them (this script installs nothing; it stops, saying so, when one
# is missing).
#
# Environment: CARGO_TARGET_DIR (default target/), A2A_CARD_STATIC_OUT (default
# target/static/a2a-card).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
target=x86_64-unknown-linux-musl
target_dir="${CARGO_TARGET_DIR:-$root/target}"
case "$target_dir" in /*) ;; *) target_dir="$root/$target_dir" ;; esac
out="${A2A_CARD_STATIC_OUT:-$target_dir/static/a2a-card}"
start=$SECONDS

if [ "$(uname -m)" != x86_64 ] || [ "$(uname -s)" != Linux ]; then
    echo "error[usage]: this script builds for Linux x86_64 on Linux x86_64; this machine is $(uname -sm)" >&2
    exit 2
fi
for tool in musl-gcc perl make; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "error[usage]: $tool is missing: run scripts/setup.sh (it installs what is missing and nothing else)" >&2
        exit 2
    fi
done
if ! rustup target list --installed | grep -qx "$target"; then
    echo "error[usage]: the Rust target $target is missing: run scripts/setup.sh (it installs what is missing and nothing else)" >&2
    exit 2
fi

echo "==> cargo build --release --target $target --features vendored-openssl (OpenSSL is compiled the first time)"
CC_x86_64_unknown_linux_musl=musl-gcc \
    cargo build --release --locked -p a2a-card-cli --features vendored-openssl --target "$target"

mkdir -p "$(dirname "$out")"
cp "$target_dir/$target/release/a2a-card" "$out.tmp"
mv "$out.tmp" "$out"
# A static executable has no program interpreter and no NEEDED entries.
if command -v readelf >/dev/null 2>&1; then
    if readelf -l "$out" | grep -q 'Requesting program interpreter' || readelf -d "$out" | grep -q NEEDED; then
        echo "error: $out is not statically linked:" >&2
        readelf -d "$out" | grep NEEDED >&2 || true
        exit 1
    fi
fi
echo "==> $out: $(wc -c <"$out") bytes, static; built in $((SECONDS - start))s"
