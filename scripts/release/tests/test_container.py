"""The container image of the release (Containerfile, FROM scratch, saved in dist/ as an OCI
archive): loaded with podman as the README says, then run for `version`, `verify` of mounted
files, `lint` from stdin, and `serve` answering over HTTP."""

import json
import os
import shutil
import socket
import subprocess
import time
import urllib.request

import pytest

from conftest import card_without_skills, TESTVECTORS, VERSION, readme_blocks, run

IMAGE = f"a2a-card:{VERSION}"
ARCHIVE = f"a2a-card-{VERSION}-container-x86_64.tar"


@pytest.fixture(scope="module")
def podman(dist):
    if shutil.which("podman") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("podman is missing (scripts/setup.sh installs it)")
        pytest.skip("podman is missing")
    assert os.path.isfile(os.path.join(dist, ARCHIVE)), f"dist/ has no {ARCHIVE}"
    blocks = [b for b in readme_blocks("From a release") if "podman load" in b]
    assert len(blocks) == 1, "README.md's From a release section has no podman load block"
    run(blocks[0], cwd=dist)
    return run_args()


def run_args():
    """`podman ... run` as this machine allows it. Where the container runtime cannot set the
    rlimits or cgroups it asks for (a sandbox with hybrid cgroups, seen on the CI machines),
    runc with cgroupfs and the limits given explicitly; elsewhere plain podman run."""
    plain = ["podman", "run", "--rm"]
    p = subprocess.run(plain + [IMAGE, "version"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode == 0:
        return plain
    fallback = ["podman", "--runtime", "runc", "--cgroup-manager", "cgroupfs", "run", "--rm",
                "--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024"]
    q = subprocess.run(fallback + [IMAGE, "version"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert q.returncode == 0, f"podman run fails:\n{p.stderr}\nand with runc:\n{q.stderr}"
    print(f"note: plain podman run failed here ({p.stderr.strip().splitlines()[-1]}); using {' '.join(fallback[:5])}")
    return fallback


def test_the_image_is_the_static_binary_alone(podman):
    out = run(["podman", "image", "inspect", IMAGE]).stdout
    info = json.loads(out)[0]
    assert info["Config"]["Entrypoint"] == ["/usr/local/bin/a2a-card"]
    assert info["Config"]["User"] == "65532:65532"
    assert len(info["RootFS"]["Layers"]) <= 3
    assert info["Size"] < 32 * 1024 * 1024, info["Size"]
    v = run(podman + [IMAGE, "version"]).stdout
    assert v.startswith(f"a2a-card {VERSION}") and "x86_64-unknown-linux-musl" in v, v
    # Nothing else to run in it: no shell.
    p = subprocess.run(podman + ["--entrypoint", "/bin/sh", IMAGE, "-c", "true"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.returncode != 0


def test_verify_of_mounted_files_and_lint_from_stdin(podman):
    quick = os.path.join(TESTVECTORS, "quickstart")
    out = run(podman + ["-v", f"{quick}:/work:ro", IMAGE, "verify", "signed.json", "--jwks", "jwks.json"])
    assert out.stdout.startswith("VALID"), out.stdout
    bad = card_without_skills()
    p = run(podman + ["-i", IMAGE, "lint", "-"], input=bad, check=False)
    assert p.returncode == 1, p
    assert "error[required-empty] /skills" in p.stdout


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_serve_answers_over_http(podman, tmp_path):
    quick = os.path.join(TESTVECTORS, "quickstart")
    policy_dir = tmp_path / "policy"
    os.makedirs(policy_dir)
    shutil.copy(os.path.join(quick, "jwks.json"), policy_dir / "jwks.json")
    with open(policy_dir / "policy.json", "w", encoding="utf-8") as f:
        json.dump({"verify": {"jwks": ["jwks.json"], "mode": "require"}}, f)
    port = free_port()
    name = f"a2a-card-serve-test-{port}"
    args = [a for a in podman if a != "--rm"]
    run(args + ["-d", "--rm", "--name", name, "--network", "host", "-v", f"{policy_dir}:/policy:ro",
         IMAGE, "serve", "--policy", "/policy/policy.json", "--listen", f"127.0.0.1:{port}"])
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(base + "/readyz", timeout=2) as r:
                    assert r.status == 200
                    break
            except OSError:
                if time.monotonic() > deadline:
                    logs = run(["podman", "logs", name], check=False)
                    raise AssertionError(f"serve did not become ready: {logs.stdout}{logs.stderr}")
                time.sleep(0.2)
        with open(os.path.join(quick, "signed.json"), "rb") as f:
            body = f.read()
        req = urllib.request.Request(base + "/v1/verify", data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as r:
            assert r.status == 200
            assert json.load(r)["ok"] is True
    finally:
        subprocess.run(["podman", "stop", "-t", "5", name], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
