#!/usr/bin/env bash
# `a2a-card serve` under hostile request bodies (issue 29, "Targets"): the fuzz corpus replayed
# as request bodies to POST /v1/verify, A2A_SERVE_REPLAY_N requests (default 100,000), cycling
# over the inputs, over keep-alive connections (a new one whenever the service closes one).
# Passes when every request gets an answer whose status is 2xx or 4xx (200, 400, 413, 422, ...;
# a 5xx, a request left without an answer or a service that dies fails it), the service still
# answers GET /healthz 200 at the end, and exits 0 on SIGTERM. Prints the inputs by source, the
# answers by status, every 5xx with its input, and the service's resident memory (VmRSS) at the
# start, the middle and the end, so that a leak shows.
#
# The inputs:
# - the fuzz corpus: every file under CORPUS/<target>/ as scripts/fuzz.sh leaves it (its seeds,
#   seed-*, and libFuzzer's finds), CORPUS being $A2A_FUZZ_CORPUS or fuzz/corpus (gitignored,
#   never committed). When it holds no file, `FUZZ_SEED_ONLY=1 scripts/fuzz.sh` seeds it first
#   (no nightly toolchain needed). The verify target's inputs start with a control byte (its
#   options and shape): it is dropped, the rest is the card. The other targets' inputs (headers,
#   keys, key references, certificates) are sent as they are: hostile bodies that are no cards;
# - fuzz/regressions/*/, testvectors/cards and testvectors/canonical, and from $A2A_CARD_CORPORA
#   (default ../shared/corpora) JSONTestSuite's test_parsing and the RFC 8785 inputs;
# - a few made here (deep nesting, invalid UTF-8, 5,000 signatures, a body over the service's
#   --max-body-bytes: its 413, or the connection closed after it, counts as an answer only when
#   the body was over the limit).
#
# The binary: $A2A_CARD_BIN, or `cargo build --release -p a2a-card-cli`.
# Exit status: 0 when it passes, 1 when not, 2 when the run cannot be made.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
name=serve-fuzz-replay
n="${A2A_SERVE_REPLAY_N:-100000}"
corpora="${A2A_CARD_CORPORA:-$root/../shared/corpora}"
# shellcheck source=scripts/lib/bench.sh
. "$root/scripts/lib/bench.sh"

shopt -s nullglob
corpus="${A2A_FUZZ_CORPUS:-$root/fuzz/corpus}"
fuzzed=("$corpus"/*/*)
if [ "${#fuzzed[@]}" -eq 0 ] && [ -z "${A2A_FUZZ_CORPUS:-}" ]; then
    echo "==> fuzz/corpus is empty: seeding it (FUZZ_SEED_ONLY=1 scripts/fuzz.sh)"
    FUZZ_SEED_ONLY=1 "$root/scripts/fuzz.sh" >"$tmp/seed.log" 2>&1 || die "seeding failed: $(tail -5 "$tmp/seed.log")"
    fuzzed=("$corpus"/*/*)
fi
[ "${#fuzzed[@]}" -gt 0 ] || die "no fuzz corpus in $corpus"
for d in "$corpus"/*/; do
    t="$(basename "$d")"
    f=("$d"*)
    s=("$d"seed-*)
    echo "corpus $t: ${#f[@]} inputs (${#s[@]} seeds, $((${#f[@]} - ${#s[@]})) found by the fuzzer)"
done
inputs=("${fuzzed[@]}" "$root"/fuzz/regressions/*/* "$root"/testvectors/cards/*.json
    "$root"/testvectors/canonical/*.json "$corpora"/jsontestsuite/test_parsing/*.json "$corpora"/jcs/input/*.json)
# A few made here: an empty body, deep nesting, invalid UTF-8, a lone surrogate, a huge number,
# and a body over the service's limit.
mkdir "$tmp/made"
: >"$tmp/made/empty"
python3 - "$tmp/made" <<'PY' || die "cannot write the made inputs"
import sys
d = sys.argv[1]
open(f"{d}/deep", "w").write("[" * 100000 + "]" * 100000)
open(f"{d}/deep-object", "w").write('{"a":' * 20000 + "1" + "}" * 20000)
open(f"{d}/utf8", "wb").write(b'{"name":"\xff\xfe"}')
open(f"{d}/surrogate", "w").write('{"name":"\\ud800"}')
open(f"{d}/number", "w").write('{"name":1' + "0" * 5000 + "}")
open(f"{d}/signatures", "w").write('{"name":"A","signatures":[' + ",".join(['{"protected":"e30","signature":"AA"}'] * 5000) + "]}")
open(f"{d}/over-limit", "w").write('{"name":"' + "a" * (2 * 1024 * 1024) + '"}')
PY
inputs+=("$tmp"/made/*)
[ "${#inputs[@]}" -gt 0 ] || die "no inputs found"
printf '%s\n' "${inputs[@]}" >"$tmp/inputs.txt"

"$bin" keygen --alg ES256 --out "$tmp/key.pem" --jwks "$tmp/jwks.json" 2>/dev/null || die "keygen failed"
echo '{"verify": {"jwks": ["jwks.json"], "mode": "require"}}' >"$tmp/policy.json"
"$bin" serve --policy "$tmp/policy.json" --listen 127.0.0.1:0 --max-body-bytes 1048576 2>"$tmp/serve.log" &
server=$!
for _ in $(seq 200); do grep -qs '^listening on' "$tmp/serve.log" && break; sleep 0.05; done
addr=$(sed -n 's|^listening on http://\([^ ]*\) .*|\1|p' "$tmp/serve.log")
[ -n "$addr" ] || { kill "$server" 2>/dev/null; die "the service did not start: $(cat "$tmp/serve.log")"; }
echo "==> replaying ${#inputs[@]} inputs as $n request bodies to http://$addr/v1/verify (service pid $server)"

status=0
python3 - "$addr" "$tmp/inputs.txt" "$n" "$server" 1048576 "$corpus" <<'PY' || status=$?
import collections, http.client, os, sys, time

addr, listing, n, pid, limit, corpus = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5]), sys.argv[6]
host, port = addr.rsplit(":", 1)
bodies = []
names = []
verify_dir = os.path.join(os.path.realpath(corpus), "verify")
for path in open(listing, encoding="utf-8").read().splitlines():
    try:
        body = open(path, "rb").read()
    except OSError:
        continue
    # The verify target's first byte chooses its options and shape; the rest is the card.
    if os.path.dirname(os.path.realpath(path)) == verify_dir:
        body = body[1:]
    bodies.append(body)
    names.append(path)

def rss_kb():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0

def alive():
    try:
        return open(f"/proc/{pid}/status").read().find("State:\tZ") < 0
    except OSError:
        return False

statuses = collections.Counter()
unanswered = []
failed = []
rss = [rss_kb()]
conn = None
t0 = time.time()
for i in range(n):
    body = bodies[i % len(bodies)]
    if i == n // 2:
        rss.append(rss_kb())
    for attempt in range(2):
        if conn is None:
            conn = http.client.HTTPConnection(host, int(port), timeout=30)
        try:
            conn.request("POST", "/v1/verify", body=body, headers={"Content-Type": "application/json"})
            resp = conn.getresponse()
            resp.read()
            statuses[resp.status] += 1
            if not (200 <= resp.status < 300 or 400 <= resp.status < 500):
                failed.append((i, resp.status, names[i % len(bodies)]))
            if resp.getheader("Connection", "").lower() == "close":
                conn.close()
                conn = None
            break
        except (ConnectionError, http.client.HTTPException, OSError) as e:
            conn.close()
            conn = None
            if len(body) > limit:
                statuses["closed (body over the limit)"] += 1
                break
            # A kept connection the service closed as idle between two requests: once more.
            if attempt == 1:
                unanswered.append((i, len(body), repr(e)))
    if not alive():
        print(f"the service is gone after {i + 1} requests", file=sys.stderr)
        sys.exit(1)
elapsed = time.time() - t0
rss.append(rss_kb())
health = http.client.HTTPConnection(host, int(port), timeout=10)
health.request("GET", "/healthz")
healthz = health.getresponse().status
print(f"requests: {n} in {elapsed:.1f} s ({n / elapsed:.0f} req/s), {len(bodies)} inputs")
print("answers: " + ", ".join(f"{k}: {v}" for k, v in sorted(statuses.items(), key=lambda kv: str(kv[0]))))
print(f"unanswered: {len(unanswered)}" + (f" (first: {unanswered[:3]})" if unanswered else ""))
print(f"answers other than 2xx or 4xx: {len(failed)}" + (f" (first: {failed[:5]})" if failed else ""))
print(f"service RSS KiB: start {rss[0]} middle {rss[1]} end {rss[2]}")
print(f"GET /healthz after: {healthz}")
sys.exit(0 if not unanswered and not failed and healthz == 200 else 1)
PY
kill -TERM "$server" 2>/dev/null || true
if wait "$server"; then
    echo "service exited 0 on SIGTERM"
else
    echo "service exited $? on SIGTERM" >&2
    status=1
fi
[ "$status" -eq 0 ] && echo "==> passed: no crash, every request answered 2xx or 4xx" || echo "==> FAILED" >&2
exit "$status"
