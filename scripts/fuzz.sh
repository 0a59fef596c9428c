#!/usr/bin/env bash
# Runs every cargo-fuzz target in fuzz/fuzz_targets for SECONDS seconds each (default 60) and
# fails if any of them crashed, timed out or ran out of memory. Needs the nightly toolchain and
# cargo-fuzz, which scripts/setup.sh installs (cargo-fuzz into target/tools, taken from there or
# from PATH).
#
#   scripts/fuzz.sh [SECONDS]
#
# Seeding: before fuzzing, seed inputs are copied into fuzz/corpus/<target>/ (gitignored, never
# committed) from the project's testvectors/ and test keys and from the third-party corpora in
# $A2A_CARD_CORPORA (default ../shared/corpora), which are only read. With jq installed the
# cards, protected headers, signatures and keys inside the vector files are extracted; without
# jq whole files are copied. Seed files are named seed-*; libFuzzer adds its own finds beside
# them. Crashes go to fuzz/artifacts/<target>/. Inputs once found to fail are committed in
# fuzz/regressions/<target>/ and replayed before any fuzzing.
#
# FUZZ_SANITIZER=address selects ASan (default none: the project forbids unsafe code, so the
# sanitizer buys little and costs most of the speed). FUZZ_TARGETS="verify keys" runs a subset;
# FUZZ_SEED_ONLY=1 seeds and stops (no nightly toolchain needed for that); FUZZ_BUILD_ONLY=1
# builds the targets and stops (scripts/test.sh builds them so ahead of the fuzz suite, while
# other suites leave a core idle). FUZZ_JOBS=N fuzzes N targets at a time (default: the number
# of CPUs); the script fails if any of them crashed.
set -euo pipefail

seconds="${1:-60}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ "$seconds" -eq 0 ]; then
    echo "usage: $0 [SECONDS]  (a positive whole number, default 60)" >&2
    exit 2
fi
jobs="${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}"
if ! [[ "$jobs" =~ ^[0-9]+$ ]] || [ "$jobs" -eq 0 ]; then
    echo "FUZZ_JOBS must be a positive whole number, not '$jobs'" >&2
    exit 2
fi
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
sanitizer="${FUZZ_SANITIZER:-none}"
corpora="${A2A_CARD_CORPORA:-$root/../shared/corpora}"

# shellcheck source=lib/tools.sh
. "$root/scripts/lib/tools.sh" # tools_dir, needs_setup
export PATH="$tools_dir/bin:$PATH"
# Seeding alone (FUZZ_SEED_ONLY=1) needs no nightly toolchain: scripts/serve-fuzz-replay.sh
# seeds a missing corpus so.
if [ -z "${FUZZ_SEED_ONLY:-}" ] && ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    needs_setup "cargo-fuzz with a nightly toolchain"
fi

shopt -s nullglob
targets=()
if [ -n "${FUZZ_TARGETS:-}" ]; then
    read -r -a targets <<<"$FUZZ_TARGETS"
else
    for f in fuzz/fuzz_targets/*.rs; do
        targets+=("$(basename "$f" .rs)")
    done
fi
if [ "${#targets[@]}" -eq 0 ]; then
    echo "no fuzz targets in fuzz/fuzz_targets" >&2
    exit 2
fi

# ------------------------------------------------------------------------------------------
# Seeding
# ------------------------------------------------------------------------------------------

seq_no=0

# put TARGET KIND PREFIX: stdin, after the byte PREFIX (two hex digits, or empty), becomes the
# seed file fuzz/corpus/TARGET/seed-KIND-N, N the current seq_no (callers count it up: put often
# runs in a pipeline's subshell). Old seed files are removed first (see `seed`), so seeding twice
# gives the same files.
put() {
    local file="fuzz/corpus/$1/seed-$2-$seq_no"
    {
        if [ -n "$3" ]; then printf "\\x$3"; fi
        cat
    } >"$file"
    if [ ! -s "$file" ]; then rm -f "$file"; fi
}

b64url_decode() {
    local s="${1//-/+}"
    s="${s//_//}"
    while [ $((${#s} % 4)) -ne 0 ]; do s+="="; done
    printf '%s' "$s" | base64 -d 2>/dev/null || true
}

hex_decode() {
    # Hex digits only, so the escapes are the whole format string.
    local esc
    esc="$(printf '%s' "$1" | tr -cd '0-9a-fA-F' | sed 's/../\\x&/g')"
    # shellcheck disable=SC2059
    printf "$esc"
}

wants() {
    local t
    for t in "${targets[@]}"; do [ "$t" = "$1" ] && return 0; done
    return 1
}

# A card (bytes on stdin) goes to canonicalize as it is, and to verify twice: verified as it is
# (control byte 00) and with the target's genuine signatures spliced in (01).
seed_card() {
    local card="fuzz/corpus/.card"
    cat >"$card"
    if wants canonicalize; then put canonicalize card "" <"$card"; fi
    if wants verify; then
        put verify card 00 <"$card"
        put verify card-genuine 01 <"$card"
    fi
    rm -f "$card"
}

# What to take from the vector files, one record per line: KIND<TAB>VALUE, with VALUE in
# standard base64 (card, header, unprotected, signatures, key), base64url (protected, signature)
# or hex (cardhex), as the files hold it.
extract='
  ( .. | objects | (.agent_card?, .served_card?, .input?, .input_raw?) | select(. != null)
      | if type == "string" then . else tojson end | "card\t" + @base64 ),
  ( .. | objects | .input_hex? | strings | "cardhex\t" + . ),
  ( .. | objects | (.protected?, .protected_b64u?, .expected_protected_b64?) | strings | "protected\t" + . ),
  ( .. | objects | .protected_header? | strings | "header\t" + @base64 ),
  ( .. | objects | select(has("protected")) | .header? | objects | tojson | "unprotected\t" + @base64 ),
  ( .. | objects | select(has("protected")) | .signature? | strings | "signature\t" + . ),
  ( .. | objects | .signatures? | arrays | tojson | "signatures\t" + @base64 ),
  ( .. | objects | select(has("kty")) | tojson | "key\t" + @base64 ),
  ( .. | objects | select(.keys? | type == "array") | tojson | "key\t" + @base64 )
'

seed_from_json() {
    local kind value raw
    while IFS=$'\t' read -r kind value; do
        seq_no=$((seq_no + 1))
        case "$kind" in
            card) printf '%s' "$value" | base64 -d | seed_card ;;
            cardhex) hex_decode "$value" | seed_card ;;
            protected)
                raw="$(b64url_decode "$value")"
                if wants header; then printf '%s' "$raw" | put header protected ""; fi
                if wants verify; then
                    printf '%s' "$raw" | put verify protected 02
                    printf '%s' "$value" | put verify protected-text 06
                fi
                ;;
            header)
                raw="$(printf '%s' "$value" | base64 -d)"
                if wants header; then printf '%s' "$raw" | put header protected ""; fi
                if wants verify; then printf '%s' "$raw" | put verify protected 02; fi
                ;;
            unprotected)
                raw="$(printf '%s' "$value" | base64 -d)"
                if wants header; then printf '{"alg":"ES256","kid":"k"}\0%s' "$raw" | put header both ""; fi
                if wants verify; then printf '%s' "$raw" | put verify unprotected 04; fi
                ;;
            signature)
                if wants verify; then b64url_decode "$value" | put verify signature 03; fi
                ;;
            signatures)
                if wants verify; then printf '%s' "$value" | base64 -d | put verify signatures 05; fi
                ;;
            key)
                if wants keys; then printf '%s' "$value" | base64 -d | put keys jwk ""; fi
                ;;
        esac
    done < <(jq -nr "[inputs | $extract] | unique | .[]" "$@" 2>/dev/null || true)
}

seed() {
    local t f
    for t in "${targets[@]}"; do
        mkdir -p "fuzz/corpus/$t"
        rm -f "fuzz/corpus/$t"/seed-*
    done
    local json_files=(testvectors/cards/*.json testvectors/canonical/*.json)
    if [ -d "$corpora" ]; then
        json_files+=("$corpora"/a2a/*/*.json "$corpora"/a2a/*/*/*.json)
        json_files+=("$corpora"/jws/*.json "$corpora"/jws/cookbook/*/*.json "$corpora"/jws/detached/*/*.json)
    else
        echo "note: third-party corpora not found at $corpora; seeding from testvectors/ only" >&2
    fi
    if command -v jq >/dev/null 2>&1; then
        seed_from_json "${json_files[@]}"
    else
        echo "note: jq not found; copying whole vector files as seeds" >&2
        for f in "${json_files[@]}"; do
            seq_no=$((seq_no + 1))
            seed_card <"$f"
        done
        if wants keys; then
            for f in "$corpora"/jws/cookbook/jwk/*.json "$corpora"/jws/detached/*/jwk.json \
                "$corpora"/a2a/a2a-card-sign-v01/testkey_jwks.json; do
                seq_no=$((seq_no + 1))
                if [ -f "$f" ]; then put keys jwk "" <"$f"; fi
            done
        fi
    fi
    # Raw JSON documents: RFC 8785 inputs and JSONTestSuite, for the reader behind everything.
    if wants canonicalize && [ -d "$corpora" ]; then
        for f in "$corpora"/jcs/input/*.json "$corpora"/jsontestsuite/test_parsing/*.json; do
            seq_no=$((seq_no + 1))
            put canonicalize json "" <"$f"
        done
    fi
    if wants verify && [ -d "$corpora" ]; then
        for f in "$corpora"/jcs/input/*.json; do
            seq_no=$((seq_no + 1))
            put verify json 00 <"$f"
        done
    fi
    # Keys: the project's PEM test keys, as PEM text and as DER, and a trust store with policy.
    if wants keys; then
        for f in crates/a2a-card/tests/data/keys/*.pem; do
            seq_no=$((seq_no + 1))
            put keys pem "" <"$f"
            sed '/^-----/d; /^Proc-Type/d; /^DEK-Info/d; /^$/d' "$f" | base64 -d 2>/dev/null | put keys der ""
        done
        if command -v jq >/dev/null 2>&1 && [ -f "$corpora/a2a/a2a-card-sign-v01/testkey_jwks.json" ]; then
            jq -c '{keys: [.keys[0] | {jwk: ., kid: "release-2026", algorithms: ["ES256"],
                    origins: ["https://agent.example.com:443"], notBefore: "2026-01-01T00:00:00Z",
                    notAfter: 1900000000, revoked: false}]}' \
                "$corpora/a2a/a2a-card-sign-v01/testkey_jwks.json" | put keys trust-store ""
            # Policy outside its place (on a bare JWK, inside "jwk", exp on a JWK Set's key) and
            # unknown members, so that the refusals of TrustStore::from_json and parse_jwks run.
            local filter
            for filter in '{keys: [.keys[0] + {revoked: true}]}' \
                '{keys: [{jwk: (.keys[0] + {notAfter: "2020-01-01T00:00:00Z"}), kid: "k"}]}' \
                '{keys: [.keys[0] + {exp: 1600000000, nbf: 1500000000}]}' \
                '{keys: [{jwk: .keys[0], revokd: true}, (.keys[0] + {issuer: "x", iat: 1})]}' \
                '{keys: [{jwk: (.keys[0] + {origins: ["https://a.example"], algorithms: ["ES256"]})}]}'; do
                seq_no=$((seq_no + 1))
                jq -c "$filter" "$corpora/a2a/a2a-card-sign-v01/testkey_jwks.json" | put keys trust-policy ""
            done
        fi
    fi
    # The same bytes under two names: keep one.
    for t in "${targets[@]}"; do
        local files=(fuzz/corpus/"$t"/seed-*)
        if [ "${#files[@]}" -gt 0 ]; then
            sha1sum "${files[@]}" | sort | awk 'seen[$1]++ { print $2 }' | xargs -r rm -f
        fi
    done
    for t in "${targets[@]}"; do
        local n=(fuzz/corpus/"$t"/seed-*)
        echo "seeded fuzz/corpus/$t: ${#n[@]} seed files"
    done
}

build_targets() {
    echo "== building the fuzz targets (sanitizer: $sanitizer)"
    local build_start=$SECONDS
    cargo +nightly fuzz build --sanitizer "$sanitizer" --debug-assertions
    echo "built in $((SECONDS - build_start))s"
}
if [ -n "${FUZZ_BUILD_ONLY:-}" ]; then
    build_targets
    exit 0
fi

echo "== seeding"
seed
if [ -n "${FUZZ_SEED_ONLY:-}" ]; then exit 0; fi

# ------------------------------------------------------------------------------------------
# Fuzzing
# ------------------------------------------------------------------------------------------

build_targets

# Every input once found to fail (fuzz/regressions/<target>/, committed) runs first: a finding
# fixed stays fixed whatever the random fuzzing below reaches.
for t in "${targets[@]}"; do
    found=(fuzz/regressions/"$t"/*)
    if [ "${#found[@]}" -eq 0 ]; then continue; fi
    echo "== replaying ${#found[@]} regression input(s) of $t"
    if ! cargo +nightly fuzz run --sanitizer "$sanitizer" --debug-assertions "$t" "${found[@]}" -- \
        -timeout=10 -rss_limit_mb=2048; then
        echo "FAILED: fuzz target $t on a regression input in fuzz/regressions/$t/" >&2
        exit 1
    fi
done

# The targets run side by side, $jobs at a time (FUZZ_JOBS, default: the number of CPUs), each
# on one core as libFuzzer runs it, so every target still gets its SECONDS of one core. Each
# one's output is kept in a file and printed whole once all are done, in the targets' order.
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT

# fuzz_one TARGET: fuzzes it for SECONDS, its output into $logs/TARGET.log and its exit status
# into $logs/TARGET.status.
fuzz_one() {
    local t="$1" status=0
    local dict=()
    if [ -f "fuzz/$t.dict" ]; then dict=("-dict=fuzz/$t.dict"); fi
    cargo +nightly fuzz run --sanitizer "$sanitizer" --debug-assertions "$t" "fuzz/corpus/$t" -- \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "${dict[@]}" \
        >"$logs/$t.log" 2>&1 || status=$?
    echo "$status" >"$logs/$t.status"
}

echo "== fuzzing ${#targets[@]} targets for ${seconds}s each, $jobs at a time (sanitizer: $sanitizer)"
running=0
for t in "${targets[@]}"; do
    if [ "$running" -ge "$jobs" ]; then
        wait -n || true
        running=$((running - 1))
    fi
    fuzz_one "$t" &
    running=$((running + 1))
done
wait || true

summary=()
failed=()
for t in "${targets[@]}"; do
    log="$logs/$t.log"
    echo "== fuzzing $t for ${seconds}s (sanitizer: $sanitizer)"
    cat "$log" 2>/dev/null || true
    status="$(cat "$logs/$t.status" 2>/dev/null || echo "no status")"
    runs="$(grep -Eo 'Done [0-9]+ runs in [0-9]+ second' "$log" | tail -n 1 || true)"
    units="$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' | tail -n 1 || true)"
    cov="$(grep -Eo 'DONE[[:space:]]+cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$log" | tail -n 1 | sed 's/^DONE[[:space:]]*//' || true)"
    if [ "$status" != 0 ]; then
        failed+=("FAILED: fuzz target $t (exit $status); the input is in fuzz/artifacts/$t/")
    else
        summary+=("$t: ${units:-?} executions (${runs:-finished}) ${cov}")
    fi
done
if [ "${#failed[@]}" -gt 0 ]; then
    printf '%s\n' "${failed[@]}" >&2
    exit 1
fi
echo "== fuzz summary (${seconds}s per target, $jobs at a time, no crash)"
printf '  %s\n' "${summary[@]}"
