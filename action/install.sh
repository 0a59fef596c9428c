#!/usr/bin/env bash
# The GitHub Action's first step (action.yml): installs the a2a-card release binary for the
# runner's platform into $RUNNER_TEMP, after checking its SHA-256 against the release's
# SHA256SUMS (and, when INPUT_RELEASE_PUBLIC_KEY names a PEM public key, SHA256SUMS's detached
# signature SHA256SUMS.sig with openssl). Writes the `binary` output and adds its folder to
# GITHUB_PATH. Inputs come as INPUT_* variables, as the runner gives them.
set -euo pipefail

fail() {
    echo "::error title=a2a-card::$*"
    exit 1
}

case "${RUNNER_OS:-}/${RUNNER_ARCH:-}" in
    Linux/X64) target=x86_64-unknown-linux-musl ;;
    Linux/ARM64) target=aarch64-unknown-linux-musl ;;
    *) fail "no a2a-card release binary for runner ${RUNNER_OS:-?}/${RUNNER_ARCH:-?} (there are Linux X64 and Linux ARM64 binaries; elsewhere, use the container image or cargo install --locked a2a-card-cli)" ;;
esac

# The runner leaves github.action_repository and github.action_ref empty in some composite
# actions' steps (actions/runner#2473); the action's folder, .../_actions/OWNER/REPO/REF, says
# the same.
if [ -z "${A2A_CARD_ACTION_REPOSITORY:-}" ] || [ -z "${A2A_CARD_ACTION_REF:-}" ]; then
    case "${GITHUB_ACTION_PATH:-}" in
        */_actions/*/*/*)
            rest="${GITHUB_ACTION_PATH##*/_actions/}"
            IFS=/ read -r owner repo ref _ <<<"$rest"
            A2A_CARD_ACTION_REPOSITORY="${A2A_CARD_ACTION_REPOSITORY:-$owner/$repo}"
            A2A_CARD_ACTION_REF="${A2A_CARD_ACTION_REF:-$ref}"
            ;;
    esac
fi

version="${INPUT_VERSION:-}"
if [ -z "$version" ]; then
    ref="${A2A_CARD_ACTION_REF:-}"
    version="${ref#v}"
    if ! [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]]; then
        fail "input version: not given, and the action's ref \"$ref\" is not a release tag such as v0.1.0; set version"
    fi
elif ! [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]]; then
    fail "input version: \"$version\" is not a release version such as 0.1.0"
fi

base="${INPUT_RELEASE_URL:-}"
if [ -z "$base" ]; then
    [ -n "${A2A_CARD_ACTION_REPOSITORY:-}" ] || fail "input release-url: not given, and the action's repository is unknown"
    base="${A2A_CARD_SERVER_URL:-https://github.com}/${A2A_CARD_ACTION_REPOSITORY}/releases/download/v$version"
fi
case "$base" in
    https://* | file://*) ;;
    *) fail "input release-url: \"$base\" is neither https:// nor file://" ;;
esac
base="${base%/}"

asset="a2a-card-$version-$target.tar.gz"
dir="${RUNNER_TEMP:?RUNNER_TEMP is not set}/a2a-card-$version-$target"
rm -rf "$dir" "$dir.download"
mkdir -p "$dir.download"
get() { # NAME: the release file NAME into the download folder
    curl --fail --silent --show-error --location --proto '=https,file' --retry 3 \
        -o "$dir.download/$1" "$base/$1" || fail "cannot download $base/$1"
}
get "$asset"
get SHA256SUMS

if [ -n "${INPUT_RELEASE_PUBLIC_KEY:-}" ]; then
    [ -f "$INPUT_RELEASE_PUBLIC_KEY" ] || fail "input release-public-key: $INPUT_RELEASE_PUBLIC_KEY is not a file"
    get SHA256SUMS.sig
    openssl dgst -sha256 -verify "$INPUT_RELEASE_PUBLIC_KEY" -signature "$dir.download/SHA256SUMS.sig" \
        "$dir.download/SHA256SUMS" >/dev/null 2>&1 ||
        fail "SHA256SUMS.sig: not a valid signature of SHA256SUMS by the key in $INPUT_RELEASE_PUBLIC_KEY"
    echo "SHA256SUMS: signature verified with $INPUT_RELEASE_PUBLIC_KEY"
fi

want="$(awk -v f="$asset" '$2 == f || $2 == "*" f { print $1 }' "$dir.download/SHA256SUMS")"
[ -n "$want" ] || fail "SHA256SUMS: no line for $asset"
have="$(sha256sum "$dir.download/$asset" | cut -d' ' -f1)"
[ "$want" = "$have" ] || fail "$asset: SHA-256 $have, but SHA256SUMS says $want"
echo "$asset: SHA-256 $have matches SHA256SUMS"

mkdir -p "$dir"
tar -xzf "$dir.download/$asset" -C "$dir" --strip-components=1 --no-same-owner
rm -rf "$dir.download"
[ -x "$dir/a2a-card" ] || fail "$asset: holds no a2a-card executable"
"$dir/a2a-card" version
echo "$dir" >>"${GITHUB_PATH:?GITHUB_PATH is not set}"
echo "binary=$dir/a2a-card" >>"${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set}"
