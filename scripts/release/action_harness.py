"""Runs the composite GitHub Action of action.yml the way a runner does, for tests.

The runner's part that matters to a composite action's shell steps, and no more:

- the inputs: each given value must name an input action.yml declares; the others take their
  defaults; a required input without a value is refused;
- the expressions `${{ inputs.NAME }}`, `${{ steps.ID.outputs.NAME }}`, `${{ github.NAME }}`
  and `${{ runner.NAME }}` in a step's `env` and `run` and in the action's outputs (anything
  else in `${{ }}` is an error here, so that action.yml cannot use what this harness does not
  model);
- each step run as `bash --noprofile --norc -eo pipefail FILE` (the runner's `shell: bash`),
  in the workspace, with GITHUB_ACTION_PATH, GITHUB_OUTPUT, GITHUB_PATH, GITHUB_ENV,
  GITHUB_WORKSPACE, RUNNER_OS, RUNNER_ARCH and RUNNER_TEMP set, and the step's `env`;
- the `name=value` and `name<<DELIMITER` lines a step writes to GITHUB_OUTPUT become its
  outputs; the folders written to GITHUB_PATH go before PATH for the later steps;
- the first step that fails stops the run, as it stops a job.
"""

import os
import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from typing import Dict, List, Optional

import yaml

EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


@dataclass
class Run:
    """What the action did: its outputs, whether every step passed, and what it printed."""

    ok: bool
    outputs: Dict[str, str]
    log: str
    failed_step: Optional[str] = None
    path_added: List[str] = field(default_factory=list)


def _parse_outputs(text: str) -> Dict[str, str]:
    out: Dict[str, str] = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            value = []
            while i < len(lines) and lines[i] != delim:
                value.append(lines[i])
                i += 1
            if i >= len(lines):
                raise ValueError(f"GITHUB_OUTPUT: {name}<<{delim} is not closed")
            i += 1
            out[name] = "\n".join(value)
        elif "=" in line:
            name, value = line.split("=", 1)
            out[name] = value
        else:
            raise ValueError(f"GITHUB_OUTPUT: a line that is neither name=value nor name<<EOF: {line!r}")
    return out


def run_action(
    action_dir: str,
    inputs: Dict[str, str],
    workspace: str,
    runner_os: str = "Linux",
    runner_arch: str = "X64",
    github: Optional[Dict[str, str]] = None,
    extra_env: Optional[Dict[str, str]] = None,
    timeout: float = 300,
) -> Run:
    with open(os.path.join(action_dir, "action.yml"), encoding="utf-8") as f:
        action = yaml.safe_load(f)
    assert action["runs"]["using"] == "composite", "the harness runs composite actions"
    declared = action.get("inputs") or {}
    for name in inputs:
        if name not in declared:
            raise KeyError(f"input {name!r} is not declared by action.yml")
    values: Dict[str, str] = {}
    for name, spec in declared.items():
        if name in inputs:
            values[name] = inputs[name]
        else:
            values[name] = str(spec.get("default", ""))
            if spec.get("required") and values[name] == "":
                raise KeyError(f"required input {name!r} has no value")

    temp = tempfile.mkdtemp(prefix="runner-temp-")
    files = {n: os.path.join(temp, f"_{n}") for n in ("output", "path", "env")}
    ctx_github = {
        "action_path": action_dir,
        "action_repository": "",
        "action_ref": "",
        "server_url": "https://github.com",
        "workspace": workspace,
    }
    ctx_github.update(github or {})
    ctx_runner = {"os": runner_os, "arch": runner_arch, "temp": temp}
    step_outputs: Dict[str, Dict[str, str]] = {}

    def evaluate(text: str) -> str:
        def one(m: "re.Match[str]") -> str:
            expr = m.group(1)
            parts = expr.split(".")
            if len(parts) == 2 and parts[0] == "inputs" and parts[1] in values:
                return values[parts[1]]
            if len(parts) == 2 and parts[0] == "github" and parts[1] in ctx_github:
                return ctx_github[parts[1]]
            if len(parts) == 2 and parts[0] == "runner" and parts[1] in ctx_runner:
                return ctx_runner[parts[1]]
            if len(parts) == 4 and parts[0] == "steps" and parts[2] == "outputs":
                return step_outputs.get(parts[1], {}).get(parts[3], "")
            raise ValueError(f"the harness cannot evaluate ${{{{ {expr} }}}}")

        return EXPR.sub(one, str(text))

    path_added: List[str] = []
    log: List[str] = []
    for n, step in enumerate(action["runs"]["steps"]):
        sid = step.get("id", f"step{n}")
        assert step.get("shell") == "bash", f"step {sid}: the harness runs shell: bash steps"
        for f in files.values():
            open(f, "w").close()
        env = dict(os.environ)
        env.update(extra_env or {})
        env["PATH"] = os.pathsep.join(list(reversed(path_added)) + [env.get("PATH", "")])
        env.update(
            {
                "GITHUB_ACTION_PATH": action_dir,
                "GITHUB_OUTPUT": files["output"],
                "GITHUB_PATH": files["path"],
                "GITHUB_ENV": files["env"],
                "GITHUB_WORKSPACE": workspace,
                "RUNNER_OS": runner_os,
                "RUNNER_ARCH": runner_arch,
                "RUNNER_TEMP": temp,
                "CI": "true",
                "GITHUB_ACTIONS": "true",
            }
        )
        for k, v in (step.get("env") or {}).items():
            env[k] = evaluate(v)
        script = os.path.join(temp, f"_step_{sid}.sh")
        with open(script, "w", encoding="utf-8") as f:
            f.write(evaluate(step["run"]))
        p = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", script],
            cwd=workspace,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            timeout=timeout,
        )
        log.append(p.stdout.decode("utf-8", "replace"))
        with open(files["output"], encoding="utf-8") as f:
            step_outputs[sid] = _parse_outputs(f.read())
        with open(files["path"], encoding="utf-8") as f:
            path_added += [line for line in f.read().split("\n") if line]
        if p.returncode != 0:
            return Run(False, {}, "".join(log), failed_step=sid, path_added=path_added)

    outputs = {
        name: evaluate(spec.get("value", "")) for name, spec in (action.get("outputs") or {}).items()
    }
    return Run(True, outputs, "".join(log), path_added=path_added)
