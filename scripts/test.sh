#!/usr/bin/env bash
# The one test command. It installs what is missing (scripts/setup.sh, idempotent: the only
# script that installs anything), then runs every suite and stops at the first failure:
#
#   rust     cargo test of the workspace (unit, integration, doc examples, the Rust of the README
#            and of docs/rust.md), the wasm32 build of the core, the API docs (warnings are errors),
#            clippy with warnings as errors, the formatting check
#   install  README.md's Install commands, as written, in a scratch home (cargo install, the
#            completions and the man pages), then the installed binary is run, and runs the
#            README's quick start and the guides' console examples
#   node     the npm package (scripts/build-wasm.sh) and its Node tests against the native CLI
#   browser  the package's web build and the playground (scripts/build-playground.sh) in headless
#            Chromium, served from loopback, against the native CLI (reuses node's build)
#   runtimes the npm package's Node tests under Deno and Bun (npm packages pinned by a lock
#            file; scripts/test-runtimes.sh), with the host's crypto on and off (reuses node's build)
#   static   the portable static Linux binary (README.md's second "From source" block), run by its
#            tests
#   python   the Python package: its wheel (scripts/build-py.sh), installed into target/py-venv
#            beside the pinned test requirements (a2a-sdk 1.3.0, ...), its pytest suites (vectors,
#            CLI cross-checks, a2a-sdk on loopback, doctests, the Python examples of the README and docs/python.md), and
#            one smoke run of its benchmark script
#   release  scripts/release.sh --lite (dist/: the x86_64 static binary, the manylinux2014 wheel, the
#            npm tarball, the crates, the container image, provenance, signed SHA256SUMS; it
#            reuses the builds of the suites above), then its tests: README.md's "From a release"
#            commands as written against dist/ (binary, wheel and npm tarball each timed to a
#            verified card), the GitHub Action through its harness, the pre-commit hooks, the
#            container with podman (the full release, aarch64 and musl builds included, is
#            scripts/release.sh: too long for CI)
#   interop  signing and verifying with the Python and JavaScript A2A SDKs (pinned versions, in
#            target/sdk), a2a-sdk 0.3.26 and 0.3.21, and the Rust peer a2a-protocol-types 0.15
#            (scripts/interop/rust-peer, built offline into target/interop-rust-peer)
#   fuzz     every fuzz target for 30 s, as many at a time as there are CPUs (nightly and
#            cargo-fuzz from setup.sh; under CI=true required); the targets are built in the
#            background from the start of the node suite on
#
#   scripts/test.sh                 every suite
#   scripts/test.sh --quick         the inner loop: cargo test, clippy and fmt only
#   scripts/test.sh --only node,rust   the named suites
#
# Third-party test data is read from $A2A_CARD_CORPORA (default: ../shared/corpora next to the
# repository). Without CI set, a missing corpus is a printed note; with CI set it fails the run.
# With CI=true, a run that leaves a tracked file changed, or an untracked file that .gitignore does
# not cover, fails at the end (`git status --porcelain` must be empty).
# The last line is the count of every test run: `tests: N passed, N failed, N skipped`.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

all_suites=(rust install node browser runtimes static python release interop fuzz)
suites=("${all_suites[@]}")
quick=0
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) quick=1 ;;
        --only)
            [ $# -ge 2 ] || { echo "error[usage]: --only needs a list, e.g. --only rust,node" >&2; exit 2; }
            IFS=, read -r -a suites <<<"$2"
            for s in "${suites[@]}"; do
                [[ " ${all_suites[*]} " == *" $s "* ]] || {
                    echo "error[usage]: unknown suite \"$s\" (suites: ${all_suites[*]})" >&2
                    exit 2
                }
            done
            shift
            ;;
        -h | --help)
            sed -n '2,44p' "$0" | sed 's/^# \{0,1\}//'
            exit 0
            ;;
        *)
            echo "error[usage]: unknown option $1 (use --quick, --only SUITES or nothing)" >&2
            exit 2
            ;;
    esac
    shift
done
if [ "$quick" -eq 1 ]; then suites=(rust); fi
wants() { [[ " ${suites[*]} " == *" $1 "* ]]; }

step() {
    echo
    echo "==> $*"
    local start=$SECONDS
    "$@"
    echo "<== ok in $((SECONDS - start))s: $*"
}

# shellcheck source=lib/tools.sh
. "$root/scripts/lib/tools.sh" # py_venv, npm_ready, needs_setup
export A2A_CARD_CORPORA="${A2A_CARD_CORPORA:-$root/../shared/corpora}"
# The fetch tests dial loopback only, even if the SSRF guard regressed.
export A2A_CARD_FETCH_LOOPBACK_ONLY=1

if [ "$quick" -eq 1 ] || [ "${suites[*]}" = rust ]; then
    step scripts/setup.sh --quick
else
    step scripts/setup.sh
fi

log="$(mktemp)"
node_log="$(mktemp)"
browser_log="$(mktemp)"
runtimes_log="$(mktemp)"
py_log="$(mktemp)"
release_log="$(mktemp)"
fuzz_build_log="$(mktemp)"
fuzz_build_pid=""
trap 'if [ -n "$fuzz_build_pid" ]; then kill -- "-$fuzz_build_pid" 2>/dev/null || true; fi
      rm -f "$log" "$node_log" "$browser_log" "$runtimes_log" "$py_log" "$release_log" "$fuzz_build_log"' EXIT
mkdir -p "$root/target"

has_nightly() { rustup toolchain list | grep -q '^nightly'; }

# The fuzz targets' build (nightly, in fuzz/target) starts in the background when the suites that
# mostly run one process at a time begin (the Node, browser and runtime tests), so that the fuzz
# suite finds it done. Its output is kept; the fuzz suite's own build (then nothing to do) reports
# any error.
start_fuzz_build() {
    if wants fuzz && [ -z "$fuzz_build_pid" ] && has_nightly; then
        echo
        echo "==> building the fuzz targets in the background (FUZZ_BUILD_ONLY=1 scripts/fuzz.sh)"
        # In a process group of its own (setsid), so that leaving early stops all of it.
        setsid env FUZZ_BUILD_ONLY=1 scripts/fuzz.sh >"$fuzz_build_log" 2>&1 &
        fuzz_build_pid=$!
    fi
}

if wants rust; then
    step bash -c "set -o pipefail; cargo test --workspace --all-targets 2>&1 | tee -a '$log'"
    if [ "$quick" -eq 0 ]; then
        step bash -c "set -o pipefail; cargo test --workspace --doc 2>&1 | tee -a '$log'"
        step cargo build -p a2a-card --no-default-features --target wasm32-unknown-unknown
        # The API documentation builds without a warning (broken links, missing docs).
        step env RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps
    fi
    step cargo clippy --workspace --all-targets -- -D warnings
    step cargo fmt --all -- --check
fi

# The Nth ```sh block of README.md's "### From source" section (1 the cargo install commands, 2
# the static binary); without one, a script that fails, so that a lost block cannot pass.
readme_block() {
    local block
    block="$(awk -v n="$1" '/^#+ / { in_section = ($0 == "### From source") }
        in_section && /^```sh$/ { i++; if (i == n) { on = 1; next } } /^```$/ { on = 0 } on' "$root/README.md")"
    if [ -n "$block" ]; then printf '%s\n' "$block"; else echo "echo 'README.md has no sh block $1 under From source' >&2; exit 1"; fi
}

if wants install; then
    home="$(mktemp -d)"
    # The commands as README.md writes them, with HOME and cargo's install root in a scratch
    # directory (the build reuses target/).
    step env HOME="$home" CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}" RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}" \
        CARGO_INSTALL_ROOT="$home/.cargo" \
        CARGO_TARGET_DIR="$root/target" PATH="$home/.cargo/bin:$PATH" \
        bash -euxo pipefail -c "$(readme_block 1)"
    step test -x "$home/.cargo/bin/a2a-card"
    step "$home/.cargo/bin/a2a-card" version
    step grep -q a2a-card "$home/.local/share/bash-completion/completions/a2a-card"
    step test -s "$home/.local/share/man/man1/a2a-card-sign.1"
    # The README's quick start and every guide's console examples, as written, with the binary
    # just installed first on PATH (a new user's session after the Install commands).
    step env A2A_CARD_DOCS_BIN_DIR="$home/.cargo/bin" \
        cargo test -p a2a-card-cli --test readme every_console_example_of_the_readme_and_the_guides_runs_as_written
    rm -rf "$home"
fi

if wants node; then
    start_fuzz_build
    step scripts/build-wasm.sh
    step cargo build -p a2a-card-cli
    npm_ready crates/a2a-card-wasm/test || needs_setup "the Node tests' packages (npm ci in crates/a2a-card-wasm/test)"
    (
        cd crates/a2a-card-wasm/test
        step bash -c "set -o pipefail; node --test --test-reporter=tap --test-timeout=300000 ./*.test.mjs 2>&1 | tee '$node_log'"
    )
fi

if wants browser; then
    # The package and the CLI as the node suite built them; built here when it did not run.
    if ! wants node || [ ! -f crates/a2a-card-wasm/pkg/web/a2a_card_bg.wasm ]; then
        step scripts/build-wasm.sh
        step cargo build -p a2a-card-cli
    fi
    step scripts/build-playground.sh
    npm_ready crates/a2a-card-wasm/test || needs_setup "the browser tests' packages (npm ci in crates/a2a-card-wasm/test)"
    (
        cd crates/a2a-card-wasm/test
        step bash -c "set -o pipefail; node --test --test-reporter=tap --test-timeout=300000 ./browser/*.test.mjs 2>&1 | tee '$browser_log'"
    )
fi

if wants runtimes; then
    if ! wants node && ! wants browser || [ ! -f crates/a2a-card-wasm/pkg/package.json ]; then
        step scripts/build-wasm.sh
        step cargo build -p a2a-card-cli
    fi
    step bash -c "set -o pipefail; scripts/test-runtimes.sh 2>&1 | tee '$runtimes_log'"
fi

if wants static; then
    step bash -euxo pipefail -c "$(readme_block 2)"
    step bash -c "set -o pipefail; A2A_CARD_STATIC_BINARY='$root/target/static/a2a-card' \
        cargo test -p a2a-card-cli --test static_binary 2>&1 | tee -a '$log'"
fi

if wants python; then
    # The virtualenv holds maturin and the test requirements (scripts/setup.sh); the wheel just
    # built goes into it from the file, nothing from an index.
    py="$py_venv/bin/python"
    py_venv_ready || needs_setup "the Python tests' virtualenv (${py_venv#"$root"/})"
    step scripts/build-py.sh
    step cargo build -p a2a-card-cli
    step bash -c "'$py' -m pip install --quiet --disable-pip-version-check --no-input --no-index \
        --force-reinstall --no-deps '$target_dir'/wheels/a2a_card-*.whl"
    (
        cd crates/a2a-card-py/tests
        step bash -c "set -o pipefail; '$py' -m pytest -p no:cacheprovider -q -rs 2>&1 | tee '$py_log'"
    )
    step "$py" crates/a2a-card-py/bench/verify_vs_sdk.py --smoke
fi

if wants release; then
    py="$py_venv/bin/python"
    release_tools_ready || needs_setup "the release tools (ziglang, auditwheel, pre-commit) in ${py_venv#"$root"/}"
    rm -f "$target_dir/release-install-times.txt"
    step scripts/release.sh --lite
    step bash -c "set -o pipefail; '$py' -m pytest -p no:cacheprovider -q -rs scripts/release/tests 2>&1 | tee '$release_log'"
    echo "install times (target: under 60 s each):"
    sed 's/^/  /' "$target_dir/release-install-times.txt"
fi

if wants interop; then
    # The SDKs at the versions scripts/lib/tools.sh pins (A2A_INTEROP_PY_REQ and
    # A2A_INTEROP_JS_PKGS choose others, which scripts/setup.sh above prepared).
    step cargo build -p a2a-card-cli
    step env A2A_CARD="$target_dir/debug/a2a-card" scripts/interop-sdks.sh
fi

if wants fuzz; then
    if [ -n "$fuzz_build_pid" ]; then
        build_status=0
        wait "$fuzz_build_pid" || build_status=$?
        fuzz_build_pid=""
        echo
        echo "==> the fuzz targets' background build finished (status $build_status): $(tail -n 1 "$fuzz_build_log")"
    fi
    if has_nightly; then
        step scripts/fuzz.sh "${A2A_CARD_FUZZ_SECONDS:-30}"
    elif [ "${CI:-}" = true ]; then
        echo "error[usage]: the fuzz suite needs a nightly toolchain (scripts/setup.sh installs it)" >&2
        exit 1
    else
        echo
        echo "==> fuzzing skipped: no nightly toolchain (rustup toolchain install nightly, then scripts/test.sh --only fuzz)"
    fi
fi

# Under CI, the build and the tests leave the clone as it was: no tracked file rewritten (a lock
# file resolved afresh, a generated file out of date), nothing new that .gitignore misses.
if [ "${CI:-}" = true ] && git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
    changed="$(git -C "$root" status --porcelain)"
    if [ -n "$changed" ]; then
        echo
        echo "error: the run changed the clone (git status --porcelain):" >&2
        echo "$changed" >&2
        git -C "$root" --no-pager diff --stat >&2
        exit 1
    fi
fi

echo
echo "all checks passed in ${SECONDS}s (suites: ${suites[*]}$([ "$quick" -eq 1 ] && echo ', quick'))"
# One closing line over every test binary, the doc tests, the Node and browser tests and pytest
# (its summary line: "N passed, N failed, N skipped, N errors in 1.23s").
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i; if ($(i+1) ~ /^ignored/) s += $i } }
     /^# pass / { p += $3 } /^# fail / { f += $3 } /^# skipped / { s += $3 }
     (FILENAME == pyf || FILENAME == relf) && / in [0-9.]+s/ && /(passed|failed|error)/ { for (i = 1; i < NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^(failed|error)/) f += $i; if ($(i+1) ~ /^skipped/) s += $i } }
     END { printf "tests: %d passed, %d failed, %d skipped\n", p, f, s }' pyf="$py_log" relf="$release_log" "$log" "$node_log" "$browser_log" "$runtimes_log" "$py_log" "$release_log" | tee "$root/target/test-summary.txt"
