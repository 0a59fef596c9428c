"""What dist/ holds: every artifact of the mode, covered by SHA256SUMS and its signature and by
the provenance statement; the wheels' platform tags as auditwheel reads them; the crates'
metadata as crates.io shows it; the npm package's manifest; the aarch64 binary under qemu."""

import hashlib
import json
import os
import shutil
import sys
import tarfile
import zipfile


from conftest import VERSION, X86, run

ARM = f"a2a-card-{VERSION}-aarch64-unknown-linux-musl"
PUBLISHED_CRATES = ["a2a-card", "a2a-card-cli", "a2a-card-fetch", "a2a-card-keys", "a2a-card-serve"]


def files(dist):
    out = []
    for base, _, names in os.walk(dist):
        for n in names:
            out.append(os.path.relpath(os.path.join(base, n), dist))
    return sorted(out)


def sums(dist):
    with open(os.path.join(dist, "SHA256SUMS"), encoding="utf-8") as f:
        return dict(reversed(line.split("  ", 1)) for line in f.read().splitlines())


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def is_full(dist):
    return os.path.exists(os.path.join(dist, ARM + ".tar.gz"))


def test_every_file_is_summed_signed_and_in_the_provenance(dist):
    listed = sums(dist)
    unsigned = {"SHA256SUMS", "SHA256SUMS.sig", "a2a-card-release.pub.pem"}
    assert sorted(listed) == [f for f in files(dist) if f not in unsigned]
    for name, digest in listed.items():
        assert sha256(os.path.join(dist, name)) == digest, name
    run(["openssl", "dgst", "-sha256", "-verify", "a2a-card-release.pub.pem", "-signature", "SHA256SUMS.sig",
         "SHA256SUMS"], cwd=dist)
    statement = json.load(open(os.path.join(dist, "provenance.intoto.json"), encoding="utf-8"))
    assert statement["_type"] == "https://in-toto.io/Statement/v1"
    assert statement["predicateType"] == "https://slsa.dev/provenance/v1"
    subjects = {s["name"]: s["digest"]["sha256"] for s in statement["subject"]}
    assert subjects == {n: d for n, d in listed.items() if n != "provenance.intoto.json"}
    dep = statement["predicate"]["buildDefinition"]["resolvedDependencies"][0]
    assert len(dep["digest"]["gitCommit"]) == 40


def test_the_artifacts_of_the_mode_are_there(dist):
    names = files(dist)
    expected = [
        f"{X86}.tar.gz",
        f"a2a-card-{VERSION}.tgz",
        f"a2a-card-{VERSION}-container-x86_64.tar",
        "provenance.intoto.json",
    ] + [f"crates/{c}-{VERSION}.crate" for c in PUBLISHED_CRATES]
    wheels = ["manylinux2014_x86_64.manylinux_2_17_x86_64"]
    if is_full(dist):
        expected += [f"{ARM}.tar.gz", f"a2a_card-{VERSION}.tar.gz"]
        wheels += ["manylinux2014_aarch64.manylinux_2_17_aarch64", "musllinux_1_2_x86_64"]
    for e in expected:
        assert e in names, (e, names)
    for w in wheels:
        assert f"a2a_card-{VERSION}-cp39-abi3-{w}.whl" in names, (w, names)
    # The unpublished crates (tests' kit, the Python and wasm glue) are not packaged.
    assert len([n for n in names if n.endswith(".crate")]) == len(PUBLISHED_CRATES)


def test_the_binary_tarball_holds_the_binary_the_license_and_the_readme(dist):
    with tarfile.open(os.path.join(dist, X86 + ".tar.gz")) as t:
        members = {m.name: m for m in t.getmembers()}
    assert sorted(members) == sorted([X86, f"{X86}/a2a-card", f"{X86}/LICENSE", f"{X86}/README.md"])
    assert members[f"{X86}/a2a-card"].mode & 0o111
    assert all(m.uid == 0 and m.gid == 0 for m in members.values())


def test_auditwheel_reads_each_wheel_as_its_tag(dist, tmp_path):
    for w in [f for f in files(dist) if f.endswith(".whl")]:
        tags = w.rsplit("-", 1)[1][: -len(".whl")].split(".")
        ld = []
        if "musllinux" in w:  # read against musl's libc (Debian's musl), as scripts/release.sh does
            ld_dir = tmp_path / "musl-ld"
            os.makedirs(ld_dir, exist_ok=True)
            if not os.path.exists(ld_dir / "libc.musl-x86_64.so.1"):
                os.symlink("/usr/lib/x86_64-linux-musl/libc.so", ld_dir / "libc.musl-x86_64.so.1")
            ld = ["--ldpaths", str(ld_dir)]
        p = run([sys.executable, "-m", "auditwheel", "show", *ld, os.path.join(dist, w)])
        text = " ".join(p.stdout.split())
        read = text.split('consistent with the following platform tag: "', 1)[1].split('"', 1)[0]
        assert read in tags, (w, p.stdout)
        assert read.startswith(("manylinux_2_17_", "musllinux_1_2_")), read
        with zipfile.ZipFile(os.path.join(dist, w)) as z:
            names = z.namelist()
        assert "a2a_card/py.typed" in names and any(n.startswith("a2a_card/_native") for n in names)


def test_the_crates_carry_what_crates_io_shows(dist):
    for c in PUBLISHED_CRATES:
        with tarfile.open(os.path.join(dist, "crates", f"{c}-{VERSION}.crate")) as t:
            manifest = t.extractfile(f"{c}-{VERSION}/Cargo.toml").read().decode()
            names = t.getnames()
        for key in ("description", "license", "repository", "readme", "keywords", "categories"):
            assert f"\n{key} = " in manifest, (c, key)
        assert "[package.metadata.docs.rs]" in manifest, c
        assert f"{c}-{VERSION}/README.md" in names, c
        if c == "a2a-card-cli":  # cargo install --locked uses the lock file the crate carries
            assert f"{c}-{VERSION}/Cargo.lock" in names


def test_the_npm_package_manifest(dist):
    with tarfile.open(os.path.join(dist, f"a2a-card-{VERSION}.tgz")) as t:
        pkg = json.load(t.extractfile("package/package.json"))
        names = t.getnames()
    assert pkg["name"] == "a2a-card" and pkg["version"] == VERSION
    assert pkg["license"] == "Apache-2.0"
    for f in ("package/node/a2a_card_bg.wasm", "package/web/a2a_card_bg.wasm", "package/README.md"):
        assert f in names, f


def test_the_aarch64_binary_runs_under_qemu_in_a_full_release(dist, tmp_path):
    if not is_full(dist):
        # A lite dist/ (scripts/release.sh --lite) has no aarch64 binary, and says so.
        statement = json.load(open(os.path.join(dist, "provenance.intoto.json"), encoding="utf-8"))
        assert statement["predicate"]["buildDefinition"]["externalParameters"]["mode"] == "lite"
        return
    qemu = shutil.which("qemu-aarch64-static")
    assert qemu, "qemu-aarch64-static is missing (scripts/setup.sh --release)"
    run(f"tar -xzf {dist}/{ARM}.tar.gz -C {tmp_path}")
    out = run([qemu, str(tmp_path / ARM / "a2a-card"), "version"]).stdout
    assert out.startswith(f"a2a-card {VERSION}") and "aarch64-unknown-linux-musl" in out, out
    head = open(tmp_path / ARM / "a2a-card", "rb").read(20)
    assert head[18] == 183  # e_machine EM_AARCH64
