#!/usr/bin/env bash
# Whole-process time of `a2a-card verify` on the A2A v1.0 section 8.5 sample card (issue 9).
#
# Signs testvectors/cards/sample-8.5-unsigned.json with a fresh ES256 key (a2a-card keygen and
# sign), then starts the release `a2a-card verify CARD --jwks JWKS` N times (default 200;
# A2A_BENCH_PROCESS_N), each with its exit status checked (0 = valid), timing each start to exit
# from Python (os.posix_spawn, os.waitpid). For scale it times /bin/true the same way (the cost
# of starting any process here). Prints median and p90; target: median under 10 ms.
#
# The binary: $A2A_CARD_BIN, or `cargo build --release -p a2a-card-cli` in ${CARGO_TARGET_DIR:-target}.
# Exit status: 0 when the target is met, 1 when not, 2 when the run cannot be made.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
n="${A2A_BENCH_PROCESS_N:-200}"
name=bench-process
# shellcheck source=scripts/lib/bench.sh
. "$root/scripts/lib/bench.sh"

"$bin" keygen --alg ES256 --out "$tmp/key.pem" --jwks "$tmp/jwks.json" 2>/dev/null || die "keygen failed"
"$bin" sign "$root/testvectors/cards/sample-8.5-unsigned.json" --key "$tmp/key.pem" --unknown exclude --out "$tmp/card.json" 2>/dev/null ||
    die "sign failed"
"$bin" verify "$tmp/card.json" --jwks "$tmp/jwks.json" >/dev/null || die "the signed card does not verify"

python3 - "$n" "$bin" "$tmp/card.json" "$tmp/jwks.json" <<'PY'
import os, statistics, sys, time
n, binary, card, jwks = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
devnull = os.open(os.devnull, os.O_WRONLY)
actions = [(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]

def once(argv):
    t = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=actions)
    _, status = os.waitpid(pid, 0)
    took = time.perf_counter() - t
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f'bench-process: {argv} exited with {os.waitstatus_to_exitcode(status)}')
    return took

verify = [binary, 'verify', card, '--jwks', jwks]
true = ['/bin/true']
for _ in range(10):  # warm the page cache
    once(verify)
v, t = [], []
for _ in range(n):  # interleaved, so load falls on both alike
    v.append(once(verify))
    t.append(once(true))

def stats(xs):
    xs = sorted(xs)
    return statistics.median(xs), xs[int(0.9 * (len(xs) - 1))]

vm, v90 = stats(v)
tm, t90 = stats(t)
print(f'a2a-card verify of the 8.5 sample card ({os.path.getsize(card)} bytes, ES256), whole process, {n} runs:')
print(f'  median {vm * 1e3:.2f} ms, p90 {v90 * 1e3:.2f} ms, min {min(v) * 1e3:.2f} ms')
print(f'  /bin/true the same way: median {tm * 1e3:.2f} ms, p90 {t90 * 1e3:.2f} ms (process start alone)')
ok = vm < 0.010
print(f'  target: median under 10 ms: {"met" if ok else "NOT met"}')
sys.exit(0 if ok else 1)
PY
