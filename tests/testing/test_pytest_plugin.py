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


def test_the_fixture_makes_its_first_baseline_only_when_asked(pytester, tmp_path):
    path = tmp_path / "baselines" / "search.json"
    path.parent.mkdir()
    (tmp_path / "data.json").write_text(json.dumps({"qrels": QRELS, "good": GOOD}))
    pytester.makepyfile(test_first=f"""
        import json
        DATA = json.load(open({str(tmp_path / 'data.json')!r}))

        def test_search(retrieval_gate):
            retrieval_gate(DATA["qrels"], DATA["good"], {str(path)!r}, ["RR"])
    """)
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([f"*AssertionError: no baseline at {path}: run `pytest --update-baselines "
                                 "test_first.py::test_search` to make it from this test's run*"])
    assert not path.exists()
    result = pytester.runpytest("--update-baselines", "test_first.py::test_search")   # the command it said
    result.assert_outcomes(passed=1)
    assert load_baseline(path).values["RR(rel=1)"].tolist() == [[1.0] * 10]
    pytester.runpytest().assert_outcomes(passed=1)


def test_the_fixture_ratchet_moves_only_up_unless_allowed(pytester, tmp_path):
    path = tmp_path / "base.json"
    save_baseline(baseline(QRELS, GOOD, ["RR"]), path)
    slightly = dict(GOOD, q0={"b": 2.0, "a": 1.0})       # RR 1.0 -> 0.95: within a margin of 0.1
    (tmp_path / "data.json").write_text(json.dumps({"qrels": QRELS, "run": slightly}))
    pytester.makepyfile(f"""
        import json
        DATA = json.load(open({str(tmp_path / 'data.json')!r}))

        def test_search(retrieval_gate):
            retrieval_gate(DATA["qrels"], DATA["run"], {str(path)!r}, margin=0.1)
    """)
    before = path.read_bytes()
    pytester.runpytest("--update-baselines").assert_outcomes(passed=1)
    assert path.read_bytes() == before                      # passed, but lower: kept
    pytester.runpytest("--update-baselines", "--allow-lower-baselines").assert_outcomes(passed=1)
    assert load_baseline(path).values["RR(rel=1)"].mean() == 0.95
    assert (tmp_path / "base.history" / "0001.json").read_bytes() == before


def test_assert_no_regression_says_how_to_make_a_missing_baseline(tmp_path):
    path = tmp_path / "none.json"
    with pytest.raises(AssertionError, match=r"no baseline at .*none.json: assert_no_regression\(\.\.\., update=True\) "
                                             r"makes it from this run \(with pytest: pytest --update-baselines\)"):
        assert_no_regression(QRELS, GOOD, path, ["RR"])
    assert_no_regression(QRELS, GOOD, path, ["RR"], update=True)
    assert load_baseline(path).measures == [{"name": "RR", "canonical": "RR(rel=1)"}]
