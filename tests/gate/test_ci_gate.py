"""The test machinery of tests/conftest.py on a tiny suite of its own: the CI skip gate, optional(),
the oracle marker and the CLI runner."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from optional_packages import Missing, optional  # noqa: E402  (tests/ is on sys.path: tests/conftest.py)

HERE = Path(__file__).resolve().parents[1]

TINY_SUITE = '''
import pytest
from optional_packages import optional

surely_missing = optional("surely_missing_package_for_the_gate")
json = optional("json")


def test_needs_the_missing_package():
    assert surely_missing.anything


def test_does_not_need_it():
    assert json.loads("1") == 1


def test_skips_without_an_allowed_reason():
    pytest.skip("needs something CI installs")


def test_skips_for_an_allowed_reason():
    pytest.skip("majority has a cycle or a tie here: sort-dependent")
'''


def _run_tiny_suite(tmp_path, ci: bool):
    for name in ("conftest.py", "optional_packages.py", "cli_runner.py"):
        shutil.copy(HERE / name, tmp_path / name)
    (tmp_path / "test_tiny.py").write_text(TINY_SUITE)
    env = {k: v for k, v in os.environ.items() if k != "CI"} | ({"CI": "true"} if ci else {})
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", "test_tiny.py"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)


def test_under_ci_a_skip_outside_the_allow_list_fails_the_run_and_is_named(tmp_path):
    done = _run_tiny_suite(tmp_path, ci=True)
    assert done.returncode == 1, done.stdout + done.stderr
    refused = [line for line in done.stdout.splitlines() if line.startswith("SKIP NOT ALLOWED")]
    assert len(refused) == 2, done.stdout
    assert any("test_needs_the_missing_package" in line and "surely_missing_package_for_the_gate" in line
               for line in refused)
    assert any("test_skips_without_an_allowed_reason" in line for line in refused)
    assert "allowed skips (tests/ALLOWED_SKIPS.md): majority-cycle 1" in done.stdout
    assert "1 passed, 3 skipped" in done.stdout


def test_outside_ci_the_same_skips_are_reported_and_pass(tmp_path):
    done = _run_tiny_suite(tmp_path, ci=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 skip(s) not in tests/ALLOWED_SKIPS.md (a failure under CI)" in done.stdout


def test_optional_gives_the_module_or_a_stand_in_that_skips():
    assert optional("json").loads("[]") == []
    missing = optional("surely_missing_package_for_the_gate")
    assert isinstance(missing, Missing) and not missing
    with pytest.raises(pytest.skip.Exception, match="needs surely_missing_package_for_the_gate"):
        missing.anything()


def test_oracle_tests_carry_the_marker(request):
    """This module uses no oracle; the live pytrec_eval comparison does (the hook reads what a test uses)."""
    assert request.node.get_closest_marker("oracle") is None
    items = request.session.items
    live = [item for item in items
            if item.nodeid == "tests/compat/test_pytrec_eval.py::test_all_measures_in_one_call_match_pytrec_eval"]
    if live:  # collected in this session (not when this file runs alone); pytrec_eval is used through helpers
        assert live[0].get_closest_marker("oracle").args == ("pytrec_eval",)


def test_cli_fixture_runs_in_process_and_restores_the_interpreter(cli, cli_subprocess, tmp_path):
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("q1 0 a 1\nq1 0 b 0\n")
    run.write_text("q1 Q0 b 1 2.0 t\nq1 Q0 a 2 1.0 t\n")
    import rankmeter.cli.app  # noqa: F401  (importing rankmeter installs its own finder, for old module paths)

    meta_path, stdout, showwarning = list(sys.meta_path), sys.stdout, __import__("warnings").showwarning
    inside = cli("eval", qrels, run, "-m", "AP", "--format", "csv")
    assert (list(sys.meta_path), sys.stdout, __import__("warnings").showwarning) == (meta_path, stdout, showwarning)
    assert inside.code == 0 and inside.out.splitlines()[1].split(",")[-1] == "0.5"  # a at rank 2: AP 1/2
    outside = cli_subprocess("eval", qrels, run, "-m", "AP", "--format", "csv")
    assert (outside.code, outside.out) == (inside.code, inside.out)
    bad = cli("eval", qrels, tmp_path / "none.txt", "-m", "AP")
    assert bad.code == 2 and bad.err.startswith("rankmeter: error: ") and bad.err.count("\n") == 1
    assert cli("eval", "--no-such-flag").code == 2
