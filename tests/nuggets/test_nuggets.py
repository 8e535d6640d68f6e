"""RAG nugget scores (rankmeter.nuggets.assignments, `rankmeter nuggets`) against nuggetizer's own metrics."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from rankmeter import compare_scores
from rankmeter.nuggets.assignments import compare_nuggets, nugget_scores, read_assignments
from rankmeter.errors import InputError, ParameterError

FIXTURES = Path(__file__).parents[1] / "fixtures" / "llm_judges"
SYSTEMS = ("sys0", "sys1", "sys2")
KEYS = {"strict_vital": "strict_vital_score", "strict_all": "strict_all_score", "vital": "vital_score",
        "all": "all_score"}


@pytest.mark.parametrize("system", SYSTEMS)
def test_equal_nuggetizer_per_record_and_mean(system):
    """castorini/nuggetizer d00dc3e calculate_nugget_scores / calculate_global_metrics, run by
    tools/regen_llm_judge_fixtures.py on 40 random records per system (empty, vital-free and 'failed' included)."""
    want = json.loads((FIXTURES / "nuggetizer.json").read_text())["cases"][system]
    got = nugget_scores(str(FIXTURES / f"nuggetizer_{system}.jsonl"))
    assert got.system == system and len(got.per_query) == len(want["per_record"]) == 40
    for row, ref in zip(got.per_query, want["per_record"]):
        assert row["query"] == ref["qid"]
        for ours, theirs in KEYS.items():
            assert row[ours] == ref[theirs]  # same operations in the same order: exactly equal
    for ours, theirs in KEYS.items():
        assert got.mean[ours] == pytest.approx(want["global"][theirs], abs=1e-15)


def test_fixtures_cover_the_edge_cases():
    records = [r for s in SYSTEMS for r in read_assignments(FIXTURES / f"nuggetizer_{s}.jsonl")]
    assert any(not r["nuggets"] for r in records)
    assert any(r["nuggets"] and not any(n["importance"] == "vital" for n in r["nuggets"]) for r in records)
    assert any(n["assignment"] == "failed" for r in records for n in r["nuggets"])


def test_weighted_and_partial_by_hand():
    record = {"qid": "q", "nuggets": [{"importance": "vital", "assignment": "partial_support"},
                                      {"importance": "okay", "assignment": "support"},
                                      {"importance": "okay", "assignment": "not_support"}]}
    s = nugget_scores([record], partial=0.25, weights={"vital": 1.0, "okay": 0.5})
    row = s.per_query[0]
    assert (row["strict_vital"], row["vital"], row["strict_all"]) == (0.0, 0.25, 1 / 3)
    assert row["all"] == pytest.approx((1 + 0.25) / 3)
    assert row["weighted_strict"] == pytest.approx(0.5 / 2) and row["weighted"] == pytest.approx((0.25 + 0.5) / 2)
    with pytest.raises(ParameterError, match="partial"):
        nugget_scores([record], partial=2)


def test_bad_files_are_named_with_the_line(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text('{"qid": "q1", "nuggets": []}\n{"qid": "q2", "nuggets": [{"text": "x", "importance": "vital"}]}\n')
    with pytest.raises(InputError, match=r"a.jsonl:2: .*assignment"):
        read_assignments(path)
    path.write_text("not json\n")
    with pytest.raises(InputError, match=r"a.jsonl:1: not valid JSON"):
        read_assignments(path)


def test_several_systems_compare_through_compare_scores():
    files = [str(FIXTURES / f"nuggetizer_{s}.jsonl") for s in SYSTEMS]
    scored, cmp = compare_nuggets(files, baseline="sys1", test="t")
    direct = compare_scores({s.system: s.scores() for s in scored}, baseline="sys1", test="t")
    assert json.dumps(cmp.table_records()) == json.dumps(direct.table_records())  # NaN-aware: the baseline row
    row = next(r for r in cmp.table_records() if r["system"] == "sys0" and r["measure"] == "all")
    assert row["mean"] == pytest.approx(scored[0].mean["all"]) and row["baseline"] == "sys1"
    from scipy import stats
    a = [r["all"] for r in scored[0].per_query]
    b = [r["all"] for r in scored[1].per_query]
    assert row["p_value"] == pytest.approx(stats.ttest_rel(a, b).pvalue, abs=1e-12)


def _cli(argv):
    import sys

    from cli_runner import run_cli_in_process
    result = run_cli_in_process(*argv)
    sys.stdout.write(result.stdout)
    return result.returncode


def test_cli_json_shape_and_comparison(capsys):
    one = str(FIXTURES / "nuggetizer_sys0.jsonl")
    assert _cli(["nuggets", one, "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert set(got) == {"per_query", "mean"} and set(got["mean"]) == {"strict_vital", "strict_all", "vital", "all"}
    assert set(got["per_query"][0]) == {"query", "strict_vital", "strict_all", "vital", "all"}
    assert _cli(["nuggets", one, str(FIXTURES / "nuggetizer_sys1.jsonl"), "--baseline", "sys1", "--test",
                 "randomization", "--permutations", "200", "--importance-weights", "vital=1,okay=0.5"]) == 0
    text = capsys.readouterr().out
    assert "sys0: 40 answer records" in text and "weighted" in text and "sys1" in text
    assert np.isfinite(nugget_scores(one).mean["all"])


def test_nugget_scores_feed_the_report_and_meta_evaluation(tmp_path):
    """The per-query nugget scores that compare uses are the ones the HTML report and the meta-evaluation
    read: the same matrix, the same comparison."""
    import numpy as np

    from cli_runner import run_cli_in_process
    from rankmeter.meta import discriminative_power
    from rankmeter.nuggets.assignments import nugget_scores, score_matrix

    files = [str(FIXTURES / "nuggetizer_sys0.jsonl"), str(FIXTURES / "nuggetizer_sys1.jsonl")]
    scored = [nugget_scores(f, system=n) for n, f in zip(("sys0", "sys1"), files)]
    x, queries, systems = score_matrix(scored, "vital")
    assert systems == ["sys0", "sys1"] and x.shape == (len(queries), 2)
    for j, s in enumerate(scored):
        want = s.scores()["vital"]
        assert {q: v for q, v in zip(queries, x[:, j]) if not np.isnan(v)} == pytest.approx(want)
    answered = ~np.isnan(x).any(axis=1)  # the queries both systems have, as compare and every meta command keep
    dp = discriminative_power(x[answered], test="t", names=systems)
    result = run_cli_in_process("meta", "discriminative-power", "--nuggets", *files, "-m", "vital", "--test", "t",
                                "--format", "json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["results"][0]["pairs"][0]["asl"] == pytest.approx(dp.pairs[0][1], abs=1e-12)
    page = tmp_path / "nuggets.html"
    result = run_cli_in_process("nuggets", *files, "--report", str(page), "--permutations", "100")
    assert result.returncode == 0, result.stderr
    html = page.read_text()
    assert html.count("<svg") >= 4 and "strict_vital" in html and "Per query" in html
    assert run_cli_in_process("nuggets", *files, "--report", files[0]).returncode == 2  # never over an input
