"""action.yml, the GitHub Action, run step by step as a runner would: the inputs and the action's path
substituted into each step, a pull-request event, and a stand-in `gh` that records the comment it is asked to post.
The install step really installs this checkout (into a fresh virtual environment)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from optional_packages import optional  # noqa: E402

yaml = optional("yaml")

from rankmeter.gate import baseline, save_baseline  # noqa: E402

ROOT = Path(__file__).resolve().parents[1].parent
QRELS = {f"q{i}": {"a": 1, "b": 0} for i in range(10)}


def _write_run(path: Path, first: str) -> str:
    path.write_text("".join(f"q{i} Q0 {d} {r + 1} {2 - r} sys\n" for i in range(10)
                            for r, d in enumerate([first, "b" if first == "a" else "a"])))
    return str(path)


def _expand(text: str, values: dict[str, str]) -> str:
    def one(match):
        key = match.group(1).strip()
        if key not in values:
            raise AssertionError(f"the test does not know the expression ${{{{ {key} }}}}")
        return values[key]
    return re.sub(r"\$\{\{(.*?)\}\}", one, text)


@pytest.fixture(scope="module")
def runner_env(tmp_path_factory):
    """A fresh virtual environment where the install step installs this checkout, and a stand-in `gh`."""
    home = tmp_path_factory.mktemp("runner")
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(home / "venv")], check=True)
    bin_dir = home / "bin"
    bin_dir.mkdir()
    (bin_dir / "gh").write_text(f"#!/bin/sh\necho \"$@\" > {home / 'gh-args'}\ncat \"$7\" > {home / 'gh-body'}\n")
    (bin_dir / "gh").chmod(0o755)
    path = f"{home / 'venv' / 'bin'}:{bin_dir}:{os.environ['PATH']}"
    return home, path


def _run_action(runner_env, tmp_path, run_file: str, base_file: str, **inputs) -> tuple[list[int], Path]:
    home, path = runner_env
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    values = {f"inputs.{name}": str(spec.get("default", "")) for name, spec in action["inputs"].items()}
    values.update({"inputs.qrels": str(tmp_path / "qrels.txt"), "inputs.run": run_file, "inputs.baseline": base_file,
                   "inputs.github-token": "token", "github.action_path": str(ROOT), "github.token": "token"})
    values.update({f"inputs.{k.replace('_', '-')}": v for k, v in inputs.items()})
    outputs = tmp_path / "outputs"
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 17}}))
    env = {**os.environ, "PATH": path, "GITHUB_OUTPUT": str(outputs), "GITHUB_STEP_SUMMARY": str(tmp_path / "summary"),
           "GITHUB_EVENT_PATH": str(event), "GITHUB_REPOSITORY": "acme/search", "RUNNER_TEMP": str(tmp_path)}
    env.pop("PYTHONPATH", None)
    statuses = []
    for step in action["runs"]["steps"]:
        if "if" in step:   # the comment step: always() on a pull_request with comment == 'true' and a report
            assert "github.event_name == 'pull_request'" in step["if"] and "inputs.comment == 'true'" in step["if"]
            step_outputs = dict(line.split("=", 1) for line in outputs.read_text().splitlines())
            values["steps.gate.outputs.report"] = step_outputs.get("report", "")
            if values["inputs.comment"] != "true" or not values["steps.gate.outputs.report"]:
                continue
        step_env = {**env, **{k: _expand(str(v), values) for k, v in step.get("env", {}).items()}}
        done = subprocess.run(["bash", "-c", _expand(step["run"], values)], env=step_env, capture_output=True,
                              text=True, timeout=600)
        statuses.append(done.returncode)
        if step.get("id") != "gate":
            assert done.returncode == 0, done.stderr
    return statuses, outputs


def test_the_action_gates_and_comments_on_the_pull_request(runner_env, tmp_path):
    home, _ = runner_env
    (tmp_path / "qrels.txt").write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in QRELS.items()
                                                for d, g in docs.items()))
    base_file = tmp_path / "base.json"
    save_baseline(baseline(str(tmp_path / "qrels.txt"), _write_run(tmp_path / "old.run", "a"), ["RR", "P@1"]),
                  base_file)
    statuses, outputs = _run_action(runner_env, tmp_path, _write_run(tmp_path / "bad.run", "b"), str(base_file))
    assert statuses == [0, 1, 0]           # installed; the gate failed the job; the comment was posted anyway
    assert "passed=false" in outputs.read_text()
    body = (home / "gh-body").read_text()
    assert body.startswith("### ❌ rankmeter gate — regression: RR (all queries), P@1 (all queries)")
    assert (home / "gh-args").read_text().split()[:5] == ["pr", "comment", "17", "--repo", "acme/search"]
    assert (tmp_path / "summary").read_text() == body
    (home / "gh-body").unlink()
    statuses, outputs = _run_action(runner_env, tmp_path, _write_run(tmp_path / "good.run", "a"), str(base_file),
                                    measures="RR", comment="false")
    assert statuses == [0, 0] and "passed=true" in outputs.read_text() and not (home / "gh-body").exists()
