"""The GitHub Action (action.yml), run by the harness as a runner runs it (inputs through
INPUT_* variables, outputs through GITHUB_OUTPUT), against the local dist/ as its release."""

import json
import os
import shutil

import pytest

from action_harness import run_action
from conftest import card_without_skills, ROOT, TESTVECTORS, VERSION, X86, run

QUICKSTART = os.path.join(TESTVECTORS, "quickstart")


@pytest.fixture
def workspace(tmp_path):
    ws = tmp_path / "ws"
    os.makedirs(ws)
    for name in ("signed.json", "jwks.json"):
        shutil.copy(os.path.join(QUICKSTART, name), ws / name)
    with open(os.path.join(QUICKSTART, "signed.json"), encoding="utf-8") as f:
        card = json.load(f)
    card["name"] = card["name"] + " (changed)"
    with open(ws / "tampered.json", "w", encoding="utf-8") as f:
        json.dump(card, f)
    shutil.copy(os.path.join(TESTVECTORS, "cards", "sample-8.5-unsigned.json"), ws / "agent-card.json")
    with open(ws / "bad.json", "w", encoding="utf-8") as f:
        f.write(card_without_skills())
    return str(ws)


def action(dist, workspace, **inputs):
    inputs = {k.replace("_", "-"): v for k, v in inputs.items()}
    inputs.setdefault("version", VERSION)
    inputs.setdefault("release-url", "file://" + dist)
    return run_action(ROOT, inputs, workspace)


def test_verify_installs_the_binary_checks_its_sum_and_reports_valid(dist, workspace):
    r = action(dist, workspace, card="signed.json", jwks="jwks.json")
    assert r.ok, r.log
    assert r.outputs["verdict"] == "valid"
    assert f"{X86}.tar.gz: SHA-256" in r.log and "matches SHA256SUMS" in r.log
    report = json.load(open(r.outputs["report"], encoding="utf-8"))
    assert report["ok"] is True
    assert r.outputs["binary"].endswith("/a2a-card") and os.access(r.outputs["binary"], os.X_OK)
    assert r.path_added == [os.path.dirname(r.outputs["binary"])]


def test_an_invalid_card_fails_the_step_unless_told_not_to(dist, workspace):
    r = action(dist, workspace, card="tampered.json", jwks="jwks.json")
    assert not r.ok and r.failed_step == "run"
    assert "::error title=a2a-card::tampered.json: the card is not valid" in r.log
    r = action(dist, workspace, card="tampered.json", jwks="jwks.json", fail_on_invalid="false")
    assert r.ok, r.log
    assert r.outputs["verdict"] == "invalid"
    assert json.load(open(r.outputs["report"], encoding="utf-8"))["ok"] is False


def test_verify_takes_profile_mode_and_args(dist, workspace):
    r = action(dist, workspace, card="agent-card.json", jwks="jwks.json", mode="if-present", profile="spec, prune-empty")
    assert r.ok, r.log
    assert r.outputs["verdict"] == "valid"
    r = action(dist, workspace, card="agent-card.json", jwks="jwks.json", args="--mode all --profile spec")
    assert not r.ok and r.outputs == {}


def test_lint_reports_clean_and_findings(dist, workspace):
    r = action(dist, workspace, command="lint", card="agent-card.json")
    assert r.ok, r.log
    assert r.outputs["verdict"] == "clean"
    r = action(dist, workspace, command="lint", card="bad.json", fail_on_invalid="false")
    assert r.ok, r.log
    assert r.outputs["verdict"] == "findings"
    findings = json.load(open(r.outputs["report"], encoding="utf-8"))["findings"]
    assert any(f["rule"] == "required-empty" and f["pointer"] == "/skills" for f in findings), findings
    r = action(dist, workspace, command="lint", card="bad.json")
    assert not r.ok and "lint found errors" in r.log


def test_sign_then_verify(dist, workspace):
    bin_dir = os.path.join(workspace, "bin")
    run(f"mkdir -p {bin_dir} && tar -xzf {dist}/{X86}.tar.gz -C {bin_dir} --strip-components=1")
    a2a = os.path.join(bin_dir, "a2a-card")
    run([a2a, "keygen", "--alg", "ES256", "--kid", "ci-2026", "--out", "ci.pem", "--jwks", "ci-jwks.json"], cwd=workspace)
    r = action(dist, workspace, command="sign", card="agent-card.json", key="ci.pem", kid="ci-2026",
               args="--unknown exclude")
    assert r.ok, r.log
    assert r.outputs["verdict"] == "signed"
    assert r.outputs["report"] == "agent-card.signed.json"
    r = action(dist, workspace, card="agent-card.signed.json", jwks="ci-jwks.json")
    assert r.ok, r.log
    assert r.outputs["verdict"] == "valid"
    # The key never appears in what the action prints.
    key = open(os.path.join(workspace, "ci.pem"), encoding="utf-8").read()
    body = "".join(key.strip().splitlines()[1:-1])
    assert body[:40] not in r.log.replace("\n", "")


def test_the_release_signature_is_checked_when_a_key_is_given(dist, workspace, tmp_path):
    r = action(dist, workspace, card="signed.json", jwks="jwks.json",
               release_public_key=os.path.join(dist, "a2a-card-release.pub.pem"))
    assert r.ok, r.log
    assert "SHA256SUMS: signature verified" in r.log
    other = tmp_path / "other.pem"
    run(f"openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 | openssl pkey -pubout > {other}")
    r = action(dist, workspace, card="signed.json", jwks="jwks.json", release_public_key=str(other))
    assert not r.ok and r.failed_step == "install"
    assert "SHA256SUMS.sig: not a valid signature of SHA256SUMS" in r.log


def test_a_binary_that_does_not_match_its_sum_is_not_installed(dist, workspace, tmp_path):
    bad = tmp_path / "bad-dist"
    shutil.copytree(dist, bad)
    with open(bad / f"{X86}.tar.gz", "ab") as f:
        f.write(b"\0")
    r = action(str(bad), workspace, card="signed.json", jwks="jwks.json")
    assert not r.ok and r.failed_step == "install"
    assert f"{X86}.tar.gz: SHA-256" in r.log and "but SHA256SUMS says" in r.log


def test_inputs_that_cannot_work_are_refused_by_name(dist, workspace):
    cases = [
        (dict(command="publish", card="signed.json"), 'input command: "publish" is not sign, verify or lint'),
        (dict(command="lint", card="signed.json", jwks="jwks.json"), "input jwks: not used by lint"),
        (dict(command="sign", card="signed.json"), "input key: sign needs a key reference"),
        (dict(card="signed.json", jwks="jwks.json", fail_on_invalid="maybe"), 'input fail-on-invalid: "maybe"'),
        (dict(card="signed.json", version="latest"), 'input version: "latest" is not a release version'),
        (dict(card="signed.json", release_url="http://example.com/x"), 'input release-url: "http://example.com/x"'),
    ]
    for inputs, message in cases:
        r = action(dist, workspace, **inputs)
        assert not r.ok, inputs
        assert message in r.log, (inputs, r.log)


def test_the_version_comes_from_the_action_ref(dist, workspace):
    inputs = {"card": "signed.json", "jwks": "jwks.json", "release-url": "file://" + dist}
    r = run_action(ROOT, inputs, workspace, github={"action_ref": f"v{VERSION}"})
    assert r.ok, r.log
    r = run_action(ROOT, inputs, workspace, github={"action_ref": "main"})
    assert not r.ok
    assert 'the action\'s ref "main" is not a release tag' in r.log


def test_runners_without_a_release_binary_are_told_so(dist, workspace):
    r = run_action(ROOT, {"card": "signed.json", "version": VERSION, "release-url": "file://" + dist},
                   workspace, runner_os="macOS", runner_arch="ARM64")
    assert not r.ok
    assert "no a2a-card release binary for runner macOS/ARM64" in r.log
    arm = os.path.join(dist, f"a2a-card-{VERSION}-aarch64-unknown-linux-musl.tar.gz")
    r = run_action(ROOT, {"card": "signed.json", "version": VERSION, "release-url": "file://" + dist},
                   workspace, runner_arch="ARM64")
    if os.path.exists(arm):
        # The aarch64 binary installs (and says its version under qemu-user's binfmt only if the
        # machine has one registered; the harness runs it as a runner would, natively).
        assert "aarch64-unknown-linux-musl.tar.gz: SHA-256" in r.log
    else:
        assert not r.ok and "cannot download" in r.log


def test_the_harness_refuses_undeclared_inputs(dist, workspace):
    with pytest.raises(KeyError, match="not declared"):
        action(dist, workspace, card="signed.json", jwks_file="jwks.json")


def test_the_release_is_found_from_the_action_folder_when_the_runner_leaves_the_ref_empty(dist, workspace, tmp_path):
    # A runner checks an action out at .../_actions/OWNER/REPO/REF; in composite actions it may
    # leave github.action_repository and github.action_ref empty (actions/runner#2473).
    folder = tmp_path / "_actions" / "someone" / "a2a-card" / f"v{VERSION}"
    os.makedirs(folder.parent)
    os.symlink(ROOT, folder)
    r = run_action(str(folder), {"card": "signed.json", "jwks": "jwks.json"}, workspace)
    assert not r.ok and r.failed_step == "install"
    url = f"https://github.com/someone/a2a-card/releases/download/v{VERSION}/{X86}.tar.gz"
    assert f"cannot download {url}" in r.log, r.log
