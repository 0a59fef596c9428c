#!/usr/bin/env bash
# The entry of the pre-commit hooks of .pre-commit-hooks.yaml: runs `a2a-card lint` or
# `a2a-card verify` once per card that pre-commit passes, and fails when any run fails.
#
#   pre-commit-hook.sh lint [OPTIONS... --] CARD...
#   pre-commit-hook.sh verify OPTIONS... -- CARD...
#
# pre-commit puts the hook's `args` before the file names: options end with `--`, and without
# one every argument is a card. Each card's output goes through as a2a-card prints it. The
# binary is `a2a-card` on PATH, or the one A2A_CARD names.
set -uo pipefail

bin="${A2A_CARD:-a2a-card}"
if ! command -v "$bin" >/dev/null 2>&1; then
    echo "a2a-card pre-commit hook: $bin is not on PATH (install a release binary, or cargo install --locked a2a-card-cli)" >&2
    exit 2
fi
command="${1:-}"
case "$command" in
    lint | verify) shift ;;
    *)
        echo "a2a-card pre-commit hook: the first argument is lint or verify, not \"$command\"" >&2
        exit 2
        ;;
esac
options=()
cards=("$@")
for i in $(seq 1 $#); do
    if [ "${!i}" = -- ]; then
        options=("${@:1:i-1}")
        cards=("${@:i+1}")
        break
    fi
done
if [ "$command" = verify ] && [ "${#options[@]}" -eq 0 ]; then
    echo "a2a-card pre-commit hook: verify needs trusted keys in the hook's args, ended by -- (args: [--jwks, keys/jwks.json, --])" >&2
    exit 2
fi
status=0
for card in "${cards[@]}"; do
    "$bin" "$command" "$card" "${options[@]}" || status=1
done
exit "$status"
