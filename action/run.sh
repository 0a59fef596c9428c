#!/usr/bin/env bash
# The GitHub Action's second step (action.yml): runs `a2a-card sign`, `verify` or `lint` on one
# card with the action's inputs (INPUT_* variables, as the runner gives them), writes the
# `verdict` and `report` outputs to GITHUB_OUTPUT, and fails the step when the card is invalid
# (unless INPUT_FAIL_ON_INVALID is false) or the command could not run.
set -euo pipefail

fail() {
    echo "::error title=a2a-card::$*"
    exit 1
}
output() { echo "$1=$2" >>"${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set}"; }

bin="${A2A_CARD_BIN:-}"
[ -n "$bin" ] && [ -x "$bin" ] || fail "the a2a-card binary is not installed (the install step gave \"$bin\")"
card="${INPUT_CARD:-}"
[ -n "$card" ] || fail "input card: not given"
case "${INPUT_FAIL_ON_INVALID:-true}" in
    true) strict=1 ;;
    false) strict=0 ;;
    *) fail "input fail-on-invalid: \"$INPUT_FAIL_ON_INVALID\" is neither true nor false" ;;
esac

args=()
only_for() { # INPUT_NAME VALUE COMMAND...: refuse an input the command does not take
    local name="$1" value="$2"
    shift 2
    if [ -n "$value" ] && [[ " $* " != *" $command "* ]]; then
        fail "input $name: not used by $command (only by $*)"
    fi
}
command="${INPUT_COMMAND:-verify}"
case "$command" in sign | verify | lint) ;; *) fail "input command: \"$command\" is not sign, verify or lint" ;; esac
only_for key "${INPUT_KEY:-}" sign
only_for kid "${INPUT_KID:-}" sign
only_for jku "${INPUT_JKU:-}" sign
only_for out "${INPUT_OUT:-}" sign
only_for jwks "${INPUT_JWKS:-}" verify
only_for trust "${INPUT_TRUST:-}" verify
only_for trust-anchors "${INPUT_TRUST_ANCHORS:-}" verify
only_for mode "${INPUT_MODE:-}" verify
only_for profile "${INPUT_PROFILE:-}" sign verify

if [ -n "${INPUT_PROFILE:-}" ]; then
    IFS=',' read -r -a profiles <<<"$INPUT_PROFILE"
    for p in "${profiles[@]}"; do
        p="$(echo "$p" | tr -d '[:space:]')"
        [ -n "$p" ] && args+=(--profile "$p")
    done
fi
if [ -n "${INPUT_ARGS:-}" ]; then
    read -r -a extra <<<"$INPUT_ARGS"
    args+=("${extra[@]}")
fi

report_dir="${RUNNER_TEMP:?RUNNER_TEMP is not set}"
set +e
case "$command" in
    sign)
        [ -n "${INPUT_KEY:-}" ] || fail "input key: sign needs a key reference"
        out="${INPUT_OUT:-}"
        if [ -z "$out" ]; then
            case "$card" in *.json) out="${card%.json}.signed.json" ;; *) out="$card.signed.json" ;; esac
        fi
        sign=(sign "$card" --key "$INPUT_KEY" --out "$out")
        [ -n "${INPUT_KID:-}" ] && sign+=(--kid "$INPUT_KID")
        [ -n "${INPUT_JKU:-}" ] && sign+=(--jku "$INPUT_JKU")
        "$bin" "${sign[@]}" "${args[@]}"
        status=$?
        report="$out"
        ;;
    verify)
        report="$report_dir/a2a-card-verify-report.json"
        verify=(verify "$card" --format json)
        [ -n "${INPUT_JWKS:-}" ] && verify+=(--jwks "$INPUT_JWKS")
        [ -n "${INPUT_TRUST:-}" ] && verify+=(--trust "$INPUT_TRUST")
        [ -n "${INPUT_TRUST_ANCHORS:-}" ] && verify+=(--trust-anchors "$INPUT_TRUST_ANCHORS")
        [ -n "${INPUT_MODE:-}" ] && verify+=(--mode "$INPUT_MODE")
        "$bin" "${verify[@]}" "${args[@]}" >"$report"
        status=$?
        ;;
    lint)
        report="$report_dir/a2a-card-lint-report.json"
        "$bin" lint "$card" --format json "${args[@]}" >"$report"
        status=$?
        ;;
esac
set -e

case "$command/$status" in
    sign/0) verdict=signed ;;
    verify/0) verdict=valid ;;
    verify/1) verdict=invalid ;;
    lint/0) verdict=clean ;;
    lint/1) verdict=findings ;;
    *) verdict=error ;;
esac
output verdict "$verdict"
output report "$report"
if [ "$command" != sign ] && [ -s "$report" ]; then cat "$report"; echo; fi
echo "a2a-card $command: $verdict"
case "$verdict" in
    error) fail "a2a-card $command $card failed (exit $status); its error is above" ;;
    invalid) [ "$strict" -eq 0 ] || fail "$card: the card is not valid under this policy (report: $report)" ;;
    findings) [ "$strict" -eq 0 ] || fail "$card: lint found errors (report: $report)" ;;
esac
