#!/usr/bin/env bash
# `verify URL` of the A2A v1.0 section 8.5 sample through the library, on this tree's HTTP stack
# (reqwest, http-cache-semantics) and on BASE's hand-written client (default: main), side by
# side in one run on a loopback HTTPS server.
#
# Builds (release) this tree's examples bench_server, bench_client and bench_pooled, and
# bench_client of BASE from `git archive BASE` in a temporary folder with a target folder of
# its own (A2A_BENCH_FETCH_BASE_TARGET keeps it between runs); also BASE with TCP_NODELAY set
# on its sockets (a one-line patch of the copy), since BASE's client waits out a Nagle /
# delayed-ACK stall of about 40 ms on every fetch and that stall would hide everything else.
# bench_client (with its module bench_support/, shared with bench_pooled) is built against both trees: it calls the blocking
# `a2a_card_fetch::verify_remote` with a client built for the call, as `a2a-card verify URL`
# does. bench_pooled keeps one async `Fetcher` for the whole run, as a long-running program
# would (this tree only), and runs a third mode, "memory": the card held by the fetcher's memory
# layer (`FetchOptions::memory_cache`, no folder), every call a conditional request answered
# `304`.
#
# Then ROUNDS rounds (A2A_BENCH_FETCH_ROUNDS, default 5); in each, every client makes N calls
# (A2A_BENCH_FETCH_N, default 200, after a warm-up) with the cache off ("full") and with the
# card in the cache and the server answering 304 ("revalidate"), the clients' order rotating
# from round to round. Per-call clients talk to an HTTP/1.1 server that closes each connection
# (what BASE speaks); bench_pooled talks to HTTP/1.1 keep-alive and HTTP/2 servers. Prints the
# median of the round medians per client and mode, and the ratios of the targets:
#   this tree / BASE, full, per-call client: at most 1.2 (against BASE as it is, and with NODELAY)
#   revalidate / full fetch: below 0.5, for each client against its own full fetch (the same
#   connection set-up on both sides), and for the kept fetchers also against the per-call full
#   fetch (the cost of `verify URL` today). Each is printed; the exit status counts the first
#   kind only.
#
# Exit status: 0 when the targets are met, 1 when not, 2 when the run cannot be made.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
name=bench-fetch
base="${A2A_BENCH_FETCH_BASE:-main}"
rounds="${A2A_BENCH_FETCH_ROUNDS:-5}"
n="${A2A_BENCH_FETCH_N:-200}"

die() {
    echo "$name: $*" >&2
    exit 2
}

tmp="$(mktemp -d "${TMPDIR:-/tmp}/a2a-$name.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

target="${CARGO_TARGET_DIR:-$root/target}"
base_target="${A2A_BENCH_FETCH_BASE_TARGET:-$tmp/base-target}"

(cd "$root" && cargo build --quiet --release -p a2a-card-fetch \
    --example bench_server --example bench_client --example bench_pooled) || die "cargo build failed"

# BASE as it is, and BASE with TCP_NODELAY: the same client source built against each.
build_base() { # folder, patch (yes/no), output binary
    local dir="$1"
    mkdir -p "$dir"
    git -C "$root" archive "$base" | tar -x -C "$dir" || die "git archive $base failed"
    [ -f "$dir/crates/a2a-card-fetch/src/http.rs" ] || die "$base has no hand-written client (crates/a2a-card-fetch/src/http.rs)"
    mkdir -p "$dir/crates/a2a-card-fetch/examples"
    cp -r "$root/crates/a2a-card-fetch/examples/bench_client.rs" "$root/crates/a2a-card-fetch/examples/bench_support" \
        "$dir/crates/a2a-card-fetch/examples/"
    if [ "$2" = yes ]; then
        python3 - "$dir/crates/a2a-card-fetch/src/http.rs" <<'PY' || die "cannot patch TCP_NODELAY into $base"
import sys
p = sys.argv[1]
s = open(p).read()
old = "                Ok(s) => return Ok((s, addr)),"
if old not in s:
    sys.exit(1)
open(p, "w").write(s.replace(old, "                Ok(s) => {\n                    let _ = s.set_nodelay(true);\n                    return Ok((s, addr));\n                }"))
PY
    fi
    (cd "$dir" && CARGO_TARGET_DIR="$base_target" cargo build --quiet --release -p a2a-card-fetch --example bench_client) ||
        die "cargo build of $base failed"
    cp "$base_target/release/examples/bench_client" "$3"
}
build_base "$tmp/base" no "$tmp/client-base"
build_base "$tmp/base-nodelay" yes "$tmp/client-base-nodelay"

python3 - "$target/release/examples" "$tmp" "$rounds" "$n" "$base" <<'PY'
import json, os, statistics, subprocess, sys

examples, tmp, rounds, n, base = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]

def server(kind):
    d = os.path.join(tmp, "server-" + kind)
    os.makedirs(d)
    p = subprocess.Popen([os.path.join(examples, "bench_server"), d, kind], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    port = int(p.stdout.readline())
    return p, f"https://localhost:{port}", os.path.join(d, "ca.pem"), os.path.join(d, "jwks.json")

servers = {k: server(k) for k in ("close", "http1", "http2")}
clients = [
    ("this tree", os.path.join(examples, "bench_client"), "close"),
    (f"{base}", os.path.join(tmp, "client-base"), "close"),
    (f"{base} + TCP_NODELAY", os.path.join(tmp, "client-base-nodelay"), "close"),
    ("this tree, one Fetcher, HTTP/1.1 keep-alive", os.path.join(examples, "bench_pooled"), "http1"),
    ("this tree, one Fetcher, HTTP/2", os.path.join(examples, "bench_pooled"), "http2"),
]
medians = {}
pooled = {label for label, binary, _ in clients if binary.endswith("bench_pooled")}
for r in range(rounds):
    order = clients[r % len(clients):] + clients[: r % len(clients)]
    for mode in ("full", "revalidate", "memory"):
        for label, binary, kind in order:
            if mode == "memory" and label not in pooled:
                continue
            _, url, ca, jwks = servers[kind]
            out = subprocess.run([binary, url, ca, jwks, mode, str(n)], capture_output=True, text=True)
            if out.returncode != 0:
                sys.exit(f"bench-fetch: {label} {mode} failed:\n{out.stderr}")
            medians.setdefault((label, mode), []).append(json.loads(out.stdout)["median_us"])
for p, *_ in servers.values():
    p.stdin.close()
    p.wait()

m = {k: statistics.median(v) for k, v in medians.items()}
print(f"verify URL, 8.5 sample, ES256, loopback; median of {rounds} round medians of {n} calls (us)")
print("(revalidate: the cache folder; memory: the kept fetcher's memory layer, no folder)")
print(f"{'client':46} {'full':>8} {'revalidate':>11} {'memory':>8} {'304/full':>9}")
for label, *_ in clients:
    f, v = m[(label, "full")], m[(label, "revalidate")]
    best = min(v, m.get((label, "memory"), v))
    mem = f"{m[(label, 'memory')]:8.0f}" if (label, "memory") in m else f"{'-':>8}"
    print(f"{label:46} {f:8.0f} {v:11.0f} {mem} {best / f:9.2f}")
new_full = m[("this tree", "full")]
ok = True
print()
for other in (base, f"{base} + TCP_NODELAY"):
    ratio = new_full / m[(other, "full")]
    ok &= ratio <= 1.2
    print(f"target: this tree / {other}, full: {ratio:.2f} (at most 1.2)")
for label, *_ in clients[:1] + clients[3:]:
    modes = ["revalidate"] + (["memory"] if label in pooled else [])
    for mode in modes:
        ratio = m[(label, mode)] / m[(label, "full")]
        ok &= ratio < 0.5
        print(f"target: {label}, {mode} / its own full fetch: {ratio:.2f} (below 0.5)")
for label in sorted(pooled):
    ratio = min(m[(label, "revalidate")], m[(label, "memory")]) / new_full
    print(f"        {label}, best 304 / the per-call full fetch: {ratio:.2f}")
sys.exit(0 if ok else 1)
PY
