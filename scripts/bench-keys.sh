#!/usr/bin/env bash
# Whole-process time of `a2a-card sign` by key source (issue 16): a key file, a key in a SoftHSM2
# token (`--key pkcs11:...`) and a key behind the sigstore KMS test plugin (`--key test://...`,
# crates/a2a-card-testkit/plugins/sigstore-kms-test, a Python script that signs with the
# openssl command line: its time is mostly Python and openssl starting, as a real plugin's
# would be its own start and the KMS round trip).
#
# For ES256 and Ed25519: signs the A2A v1.0 section 8.5 sample card N times per source (default
# 20; A2A_BENCH_KEYS_N), the three sources interleaved run by run so that load falls on all
# alike, each exit status checked (0) and each signed card verified once at the end. Prints the
# median and the p90 of each and the ratios to the key file. Report only, no target.
#
# Needs softhsm2-util, pkcs11-tool (OpenSC), python3 and openssl. The binary: $A2A_CARD_BIN, or
# `cargo build --release -p a2a-card-cli` in ${CARGO_TARGET_DIR:-target}.
# Exit status: 0 when every run signed, 2 when the run cannot be made.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
n="${A2A_BENCH_KEYS_N:-20}"
name=bench-keys
# shellcheck source=scripts/lib/bench.sh
. "$root/scripts/lib/bench.sh"

for c in softhsm2-util pkcs11-tool python3 openssl; do
    command -v "$c" >/dev/null || die "$c is missing (scripts/setup.sh installs it)"
done
module=""
for m in "${SOFTHSM2_MODULE:-}" /usr/lib/softhsm/libsofthsm2.so /usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so \
    /usr/lib/aarch64-linux-gnu/softhsm/libsofthsm2.so; do
    if [ -n "$m" ] && [ -f "$m" ]; then module="$m" && break; fi
done
[ -n "$module" ] || die "the SoftHSM2 module is missing"

pin=1234
mkdir -p "$tmp/tokens"
printf 'directories.tokendir = %s/tokens\nobjectstore.backend = file\nlog.level = ERROR\n' "$tmp" >"$tmp/softhsm2.conf"
export SOFTHSM2_CONF="$tmp/softhsm2.conf"
softhsm2-util --init-token --free --label bench --pin "$pin" --so-pin 5678 >/dev/null || die "softhsm2-util --init-token failed"
export PATH="$root/crates/a2a-card-testkit/plugins:$PATH"
card="$root/testvectors/cards/sample-8.5-unsigned.json"

id=0
for alg in ES256 EdDSA; do
    id=$((id + 1))
    "$bin" keygen --alg "$alg" --out "$tmp/$alg.pem" 2>/dev/null || die "keygen $alg failed"
    # The same key in the token, imported with the token's own tool.
    softhsm2-util --import "$tmp/$alg.pem" --token bench --label "$alg" --id "0$id" --pin "$pin" >/dev/null ||
        die "softhsm2-util --import $alg failed"
done

python3 - "$n" "$bin" "$card" "$tmp" "$module" "$pin" <<'PY'
import os, statistics, subprocess, sys, time
n, binary, card, tmp, module, pin = int(sys.argv[1]), *sys.argv[2:]
devnull = os.open(os.devnull, os.O_WRONLY)
actions = [(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]

def once(argv):
    t = time.perf_counter()
    pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=actions)
    _, status = os.waitpid(pid, 0)
    took = time.perf_counter() - t
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f'bench-keys: {argv[:4]} exited with {os.waitstatus_to_exitcode(status)}')
    return took

def stats(xs):
    xs = sorted(xs)
    return statistics.median(xs), xs[int(0.9 * (len(xs) - 1))]

print(f'a2a-card sign of the 8.5 sample card ({os.path.getsize(card)} bytes), whole process, median of {n} '
      f'(interleaved), {os.cpu_count()} CPUs:')
for alg in ['ES256', 'EdDSA']:
    pem = f'{tmp}/{alg}.pem'
    sources = {
        'key file': pem,
        'SoftHSM2 (pkcs11:)': f'pkcs11:token=bench;object={alg}?pin-value={pin}&module-path={module}',
        'KMS plugin (test://)': f'test://{pem}',
    }
    argv = {name: [binary, 'sign', card, '--key', ref, '--unknown', 'exclude', '--out', f'{tmp}/{alg}-{i}.json', '--force']
            for i, (name, ref) in enumerate(sources.items())}
    for a in argv.values():  # warm caches, check each signs
        once(a)
    times = {name: [] for name in argv}
    for _ in range(n):
        for name, a in argv.items():
            times[name].append(once(a))
    jwks = subprocess.run([binary, 'jwks', pem], capture_output=True, check=True).stdout
    with open(f'{tmp}/{alg}.jwks.json', 'wb') as f:
        f.write(jwks)
    for i in range(len(argv)):
        subprocess.run([binary, 'verify', f'{tmp}/{alg}-{i}.json', '--jwks', f'{tmp}/{alg}.jwks.json'],
                       stdout=subprocess.DEVNULL, check=True)
    base = stats(times['key file'])[0]
    print(f'  {alg}:')
    for name, xs in times.items():
        m, p90 = stats(xs)
        print(f'    {name:22} median {m * 1e3:7.2f} ms  p90 {p90 * 1e3:7.2f} ms  {m / base:5.1f}x the key file')
print('  every signed card verifies with the key\'s JWKS')
PY
