#!/usr/bin/env bash
# Builds the npm package of a2a-card (crates/a2a-card-wasm) into crates/a2a-card-wasm/pkg/:
#
#   pkg/package.json     name "a2a-card", exports: Node (CommonJS) and browsers/bundlers (ES module)
#   pkg/node/            wasm-bindgen --target nodejs
#   pkg/web/             wasm-bindgen --target web (call the default export, init, once)
#   pkg/README.md        crates/a2a-card-wasm/README.md
#
# Steps: cargo build --profile wasm-release (release with fat LTO, root Cargo.toml) for
# wasm32-unknown-unknown; wasm-bindgen from target/tools, at exactly the version of the
# wasm-bindgen crate in Cargo.lock; wasm-opt -Oz (binaryen from npm under the target dir), kept
# only when its output still loads (see step 4). Safe to run again. It installs nothing: clang
# (ring's C code for wasm32), the wasm32-unknown-unknown target, wasm-bindgen-cli and binaryen
# come from scripts/setup.sh, and the script stops, saying so, when one is missing.
#
# Environment: CARGO_TARGET_DIR (default target/), A2A_CARD_WASM_PKG (output dir),
# WASM_OPT (the wasm-opt to use instead), A2A_CARD_WASM_OPT=0 to skip wasm-opt.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
crate="$root/crates/a2a-card-wasm"
pkg="${A2A_CARD_WASM_PKG:-$crate/pkg}"
start=$SECONDS

say() { echo "==> $*"; }

# shellcheck source=lib/tools.sh
. "$root/scripts/lib/tools.sh" # target_dir, the tools' places and versions, needs_setup

# 1. Tools (scripts/setup.sh installs them).
command -v clang >/dev/null 2>&1 || needs_setup "clang (ring compiles C for wasm32)"
rustup target list --installed | grep -qx wasm32-unknown-unknown ||
    needs_setup "the Rust target wasm32-unknown-unknown"
want="$(wasm_bindgen_version)"
if [ -z "$want" ]; then
    echo "error: cannot find the wasm-bindgen version in Cargo.lock" >&2
    exit 2
fi
wasm_bindgen_ready || needs_setup "wasm-bindgen-cli $want in ${tools_dir#"$root"/}"
wasm_bindgen="$tools_dir/bin/wasm-bindgen"
have="$("$wasm_bindgen" --version | awk '{ print $2 }')"
say "wasm-bindgen $have"

# 2. Build.
say "cargo build -p a2a-card-wasm --profile wasm-release --target wasm32-unknown-unknown"
cargo build -p a2a-card-wasm --profile wasm-release --target wasm32-unknown-unknown
wasm="$target_dir/wasm32-unknown-unknown/wasm-release/a2a_card_wasm.wasm"
if [ ! -f "$wasm" ]; then
    echo "error: $wasm was not built" >&2
    exit 2
fi

# 3. Bindings for Node and for browsers, into a fresh staging dir, then swapped in.
stage="$(mktemp -d "${TMPDIR:-/tmp}/a2a-card-wasm-pkg.XXXXXX")"
chmod 755 "$stage"
trap 'rm -rf "$stage"' EXIT
for t in nodejs web; do
    out="$stage/$([ "$t" = nodejs ] && echo node || echo web)"
    "$wasm_bindgen" "$wasm" --out-dir "$out" --out-name a2a_card --target "$t"
done
# The crate's JavaScript glue (crates/a2a-card-wasm/js/*.js, imported with
# #[wasm_bindgen(module = "/js/...")]) is copied by wasm-bindgen as ES module snippets, which the
# CommonJS Node build require()s: there, each `export function f` becomes `exports.f = f;
# function f` (a hoisted declaration), and nothing else may be exported or imported.
while IFS= read -r -d '' snippet; do
    perl -pi -e 's/^export function ([A-Za-z_\$][A-Za-z0-9_\$]*)/exports.$1 = $1;\nfunction $1/' "$snippet"
    if grep -nE '^[[:space:]]*(export|import)[[:space:]{*]' "$snippet" >&2; then
        echo "error: $snippet: only 'export function' can be made CommonJS for the Node build" >&2
        exit 2
    fi
done < <(find "$stage/node" -path '*/snippets/*' -name '*.js' -print0)

# The Node build is ready as soon as it is loaded, but code written for the web build (server-side
# rendering, Vitest, isomorphic libraries) calls init() or initSync() first: both are given here,
# resolving at once, in the CommonJS entry and in an ES module entry (node/a2a_card.mjs, which
# Node's `import` picks) whose default export is init, as the web build's is.
cat >>"$stage/node/a2a_card.js" <<'EOF_INIT'

// Added by scripts/build-wasm.sh: the module is ready when loaded. init() and initSync() let code
// written for the web build run unchanged in Node (server-side rendering, Vitest).
function init() { return Promise.resolve(module.exports); }
function initSync() { return module.exports; }
exports.init = init;
exports.initSync = initSync;
EOF_INIT
cat >"$stage/node/a2a_card.mjs" <<'EOF_MJS'
// The ES module entry of the Node build (scripts/build-wasm.sh): the CommonJS build's exports,
// and init as the default export, as in the web build, so `import init, { verifyAsync } from
// "a2a-card"` runs unchanged in a browser and in Node.
import lib from "./a2a_card.js";
export * from "./a2a_card.js";
export default lib.init;
EOF_MJS
cat >>"$stage/node/a2a_card.d.ts" <<'EOF_DTS'

/**
 * The Node build is ready when loaded: `init` resolves at once (with the module), so code
 * written for the web build (`await init()` first) runs unchanged in Node, under server-side
 * rendering or Vitest.
 */
export function init(moduleOrPath?: unknown): Promise<unknown>;
/** The Node build is ready when loaded: `initSync` returns at once (with the module). */
export function initSync(module?: unknown): unknown;
EOF_DTS
cat >"$stage/node/a2a_card.d.mts" <<'EOF_DMTS'
// The declarations of the Node build's ES module entry (a2a_card.mjs): the CommonJS build's,
// with init as the default export, as in the web build.
export * from "./a2a_card.js";
export { init as default } from "./a2a_card.js";
EOF_DMTS

# 4. wasm-opt -Oz --converge, the producers and target-features sections stripped (size, as the
# wasm-release profile's opt-level "z": 2.9 KB gzip less than -O3). The result is kept only when
# the Node build still loads and answers: the binaryen of Debian 12 (version 108) writes wasm-bindgen's externref table with the wrong type,
# and a module that does not load is worse than a larger one. So a current binaryen, pinned, is
# taken from npm (its package ships wasm-opt compiled to WebAssembly, run by node; about 20 s
# here) into the target dir by scripts/setup.sh, unless WASM_OPT names one.
wasm_opt="${WASM_OPT:-}"
if [ -z "$wasm_opt" ] && [ "${A2A_CARD_WASM_OPT:-1}" != 0 ]; then
    binaryen_ready || needs_setup "binaryen $binaryen_version in ${binaryen_dir#"$root"/} (or set A2A_CARD_WASM_OPT=0 to skip wasm-opt)"
    wasm_opt="$binaryen_wasm_opt"
fi
if [ "${A2A_CARD_WASM_OPT:-1}" = 0 ]; then
    say "wasm-opt skipped (A2A_CARD_WASM_OPT=0)"
elif ! command -v "$wasm_opt" >/dev/null 2>&1; then
    say "wasm-opt not found (binaryen): the .wasm is not optimized further"
elif ! command -v node >/dev/null 2>&1; then
    say "wasm-opt found but node is missing to check its output: the .wasm is not optimized further"
else
    say "$("$wasm_opt" --version) -Oz --converge --low-memory-unused --zero-filled-memory"
    # --zero-filled-memory: the module defines its memory (wasm-bindgen exports it, nothing
    # imports one), so it starts zeroed and the zero bytes of the data need not be written;
    # --low-memory-unused: no address below 1024 is reached by wrapping around (what that flag
    # assumes: constant offsets then fold into loads and stores). 1.6 KB gzip between them.
    # The features the module uses (wasm-bindgen's and rustc's defaults, and simd128 from
    # .cargo/config.toml), one list for both runs below.
    opt_flags=(--low-memory-unused --zero-filled-memory -Oz --converge --strip-producers --strip-target-features
        --enable-bulk-memory --enable-sign-ext --enable-mutable-globals --enable-nontrapping-float-to-int
        --enable-reference-types --enable-multivalue --enable-simd)
    node_wasm="$stage/node/a2a_card_bg.wasm"
    web_wasm="$stage/web/a2a_card_bg.wasm"
    cp "$node_wasm" "$stage/unoptimized.wasm"
    "$wasm_opt" "${opt_flags[@]}" "$stage/unoptimized.wasm" -o "$node_wasm"
    if node -e '
        const lib = require(process.argv[1]);
        if (lib.canonicalize({ name: "a", skills: [] }) !== "{\"name\":\"a\",\"skills\":[]}") process.exit(1);
    ' "$stage/node/a2a_card.js" >/dev/null 2>&1; then
        say "wasm-opt: $(wc -c <"$stage/unoptimized.wasm") -> $(wc -c <"$node_wasm") bytes"
        # wasm-bindgen writes the same module for both targets; optimize the web one only if not.
        if cmp -s "$stage/unoptimized.wasm" "$web_wasm"; then
            cp "$node_wasm" "$web_wasm"
        else
            "$wasm_opt" "${opt_flags[@]}" "$web_wasm" -o "$web_wasm.opt"
            mv "$web_wasm.opt" "$web_wasm"
        fi
    else
        cp "$stage/unoptimized.wasm" "$node_wasm"
        say "warning: the module optimized by $("$wasm_opt" --version) does not load; keeping the unoptimized one"
    fi
    rm -f "$stage/unoptimized.wasm"
fi

# 5. package.json and README.
version="$(awk -F'"' '/^\[workspace.package\]/ { p = 1 } p && /^version/ { print $2; exit }' Cargo.toml)"
cat >"$stage/package.json" <<EOF
{
  "name": "a2a-card",
  "version": "$version",
  "description": "Canonicalize, sign and verify A2A Agent Cards exactly as A2A v1.0 section 8.4 says (the Rust a2a-card library, compiled to WebAssembly)",
  "license": "Apache-2.0",
  "main": "./node/a2a_card.js",
  "module": "./web/a2a_card.js",
  "types": "./node/a2a_card.d.ts",
  "exports": {
    ".": {
      "node": {
        "import": {
          "types": "./node/a2a_card.d.mts",
          "default": "./node/a2a_card.mjs"
        },
        "types": "./node/a2a_card.d.ts",
        "default": "./node/a2a_card.js"
      },
      "types": "./web/a2a_card.d.ts",
      "default": "./web/a2a_card.js"
    },
    "./web": {
      "types": "./web/a2a_card.d.ts",
      "default": "./web/a2a_card.js"
    },
    "./package.json": "./package.json"
  },
  "files": ["node/", "web/", "README.md"],
  "sideEffects": ["./web/a2a_card.js"],
  "engines": { "node": ">=18" },
  "keywords": ["a2a", "agent-card", "jws", "jcs", "rfc8785", "signature", "wasm"]
}
EOF
cp "$crate/README.md" "$stage/README.md"
rm -f "$stage"/node/.gitignore "$stage"/web/.gitignore
# Node reads the module type from the nearest package.json: CommonJS for node/, ES for web/.
echo '{ "type": "commonjs" }' >"$stage/node/package.json"
echo '{ "type": "module" }' >"$stage/web/package.json"

rm -rf "$pkg.old"
if [ -d "$pkg" ]; then mv "$pkg" "$pkg.old"; fi
mkdir -p "$(dirname "$pkg")"
cp -R "$stage" "$pkg"
rm -rf "$pkg.old"

raw=$(wc -c <"$pkg/node/a2a_card_bg.wasm")
gz=$(gzip -9 -c "$pkg/node/a2a_card_bg.wasm" | wc -c)
say "package: $pkg"
say "a2a_card_bg.wasm: $raw bytes raw, $gz bytes gzip -9"
say "build-wasm.sh finished in $((SECONDS - start))s"
