# Shared by the benchmark scripts (source it after setting `root` and `name`): `die MESSAGE`,
# the release binary to measure in `bin` (A2A_CARD_BIN, else a release build of the CLI), and a
# temporary folder in `tmp`, removed on exit.

die() {
    echo "$name: $*" >&2
    exit 2
}

if [ -n "${A2A_CARD_BIN:-}" ]; then
    bin="$A2A_CARD_BIN"
else
    (cd "$root" && cargo build --quiet --release -p a2a-card-cli) || die "cargo build --release failed"
    bin="${CARGO_TARGET_DIR:-$root/target}/release/a2a-card"
fi
[ -x "$bin" ] || die "no binary at $bin"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/a2a-$name.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
