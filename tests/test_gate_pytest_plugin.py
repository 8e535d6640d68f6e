"""rankmeter.testing: assert_no_regression and the retrieval_gate fixture in a real pytest run (pytester)."""
from __future__ import annotations

import json

import pytest

from rankmeter.gate import baseline, load_baseline, save_baseline
from rankmeter.testing import assert_no_regression

pytest_plugins = ["pytester"]

QRELS = {f"q{i}": {"a": 1, "b": 0} for i in range(10)}
GOOD = {f"q{i}": {"a": 2.0, "b": 1.0} for i in range(10)}
BAD = {f"q{i}": {"b": 2.0, "a": 1.0} for i in range(10)}


def test_the_failure_message_is_the_markdown_report():
    saved = baseline(QRELS, GOOD, ["RR", "P@1"])
    assert_no_regression(QRELS, GOOD, saved)
    with pytest.raises(AssertionError) as failed:
        assert_no_regression(QRELS, BAD, saved, margin=0.05)
    message = str(failed.value)
    assert message.startswith("### ❌ rankmeter gate — regression: RR (all queries), P@1 (all queries)")
    assert "| RR | all queries | 10 | 1.0000 | 0.5000 | -0.5000 |" in message


def test_the_fixture_in_a_project_test_suite(pytester, tmp_path):
    path = tmp_path / "base.json"
    save_baseline(baseline(QRELS, BAD, ["RR"]), path)
    (tmp_path / "data.json").write_text(json.dumps({"qrels": QRELS, "good": GOOD, "bad": BAD}))
    pytester.makepyfile(f"""
        import json
        DATA = json.load(open({str(tmp_path / 'data.json')!r}))

        def test_better_run(retrieval_gate):
            retrieval_gate(DATA["qrels"], DATA["good"], {str(path)!r})

        def test_worse_run(retrieval_gate):
            retrieval_gate(DATA["qrels"], DATA["bad"], {str(path)!r}, margin=0.0)
    """)
    result = pytester.runpytest()
    result.assert_outcomes(passed=2)
    assert load_baseline(path).runs[0]["digest"] == baseline(QRELS, BAD, ["RR"]).runs[0]["digest"]  # untouched
    result = pytester.runpytest("--update-baselines", "-k", "better")
    result.assert_outcomes(passed=1)
    now = load_baseline(path)      # ratcheted to the better run, the old one in its history
    assert now.values["RR(rel=1)"].tolist() == [[1.0] * 10] and len(now.history) == 1
    result = pytester.runpytest("-k", "worse")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*rankmeter gate — regression: RR (all queries)*"])
