"""Writes the in-toto Statement (SLSA provenance v1) of a release's files to stdout.

    provenance.py --version V --commit SHA --lite 0|1 --started TIME FILE...

Each FILE (relative to the working directory, the dist/ folder) becomes a subject with its
SHA-256. The build is described by what made it: scripts/release.sh at the commit, with its
mode; the builder is the GitHub workflow run when GITHUB_* variables say so, else this host.
The statement itself is covered by SHA256SUMS and its signature (see scripts/release.sh).
"""

import argparse
import datetime
import hashlib
import json
import os
import sys


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--version", required=True)
    ap.add_argument("--commit", required=True)
    ap.add_argument("--lite", choices=["0", "1"], required=True)
    ap.add_argument("--started", required=True)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()

    subjects = []
    for f in a.files:
        name = f[2:] if f.startswith("./") else f
        subjects.append({"name": name, "digest": {"sha256": sha256(f)}})

    server = os.environ.get("GITHUB_SERVER_URL")
    repo = os.environ.get("GITHUB_REPOSITORY")
    run = os.environ.get("GITHUB_RUN_ID")
    if server and repo and run:
        builder = f"{server}/{repo}/.github/workflows/release.yml"
        invocation = f"{server}/{repo}/actions/runs/{run}/attempts/{os.environ.get('GITHUB_RUN_ATTEMPT', '1')}"
        source = f"git+{server}/{repo}@{os.environ.get('GITHUB_REF', a.commit)}"
    else:
        builder = "local:scripts/release.sh"
        invocation = None
        source = "git+local"

    statement = {
        "_type": "https://in-toto.io/Statement/v1",
        "subject": subjects,
        "predicateType": "https://slsa.dev/provenance/v1",
        "predicate": {
            "buildDefinition": {
                "buildType": "urn:a2a-card:release.sh:v1",
                "externalParameters": {
                    "version": a.version,
                    "mode": "lite" if a.lite == "1" else "full",
                    "source": source,
                },
                "internalParameters": {
                    "SOURCE_DATE_EPOCH": os.environ.get("SOURCE_DATE_EPOCH", ""),
                },
                "resolvedDependencies": [
                    {"uri": source, "digest": {"gitCommit": a.commit}},
                ],
            },
            "runDetails": {
                "builder": {"id": builder},
                "metadata": {
                    **({"invocationId": invocation} if invocation else {}),
                    "startedOn": a.started,
                    "finishedOn": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                },
            },
        },
    }
    json.dump(statement, sys.stdout, indent=2, sort_keys=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
