"""rankmeter.tie_report and ``rankmeter ties``: the four values per measure and the tied groups."""
from __future__ import annotations

import json

import pytest

import rankmeter


def _case(tmp_path):
    # query 1: a, b, c tied at 2.0 (a, c relevant), d below; query 2: ranks 9-11 tied (straddle 10)
    lines = ["1 Q0 a 1 2.0 t", "1 Q0 b 2 2.0 t", "1 Q0 c 3 2.0 t", "1 Q0 d 4 1.0 t"]
    lines += [f"2 Q0 e{i} {i} {20 - i if i < 9 else 5.0} t" for i in range(1, 13)]
    run = tmp_path / "t.run"
    run.write_text("\n".join(lines) + "\n")
    qrels = tmp_path / "t.qrels"
    qrels.write_text("1 0 a 1\n1 0 c 1\n1 0 d 0\n2 0 e10 1\n2 0 e3 1\n")
    return qrels, run


def test_values_are_evaluate_under_each_policy_and_groups_are_counted(tmp_path):
    qrels, run = _case(tmp_path)
    measures = ["AP", "P@10", "Bpref"]
    report = rankmeter.tie_report(qrels, run, measures)
    for row in report.overall:
        m = row["measure"]
        assert row["trec_eval"] == pytest.approx(rankmeter.evaluate(qrels, run, [m]).mean[m])
        assert row["worst"] == pytest.approx(rankmeter.evaluate(qrels, run, [m], ties="worst").mean[m])
        assert row["best"] == pytest.approx(rankmeter.evaluate(qrels, run, [m], ties="best").mean[m])
        if m == "Bpref":
            assert row["average"] is None  # no closed form: not sampled
        else:
            assert row["average"] == pytest.approx(rankmeter.evaluate(qrels, run, [m], ties="average").mean[m])
    # query 2: e9..e12 tied at 5.0, e10 relevant: P@10 holds 2 of the 4 tied ranks -> 1 + 2 * 1/4 relevant
    p10 = {r["query"]: r for r in report.per_query if r["measure"] == "P@10"}
    assert p10["2"]["average"] == pytest.approx((1 + 0.5) / 10)
    assert (p10["2"]["worst"], p10["2"]["best"]) == (pytest.approx(0.1), pytest.approx(0.2))
    groups = {g["query"]: g for g in report.groups}
    assert groups["1"] == {"query": "1", "tied_groups": 1, "largest": 3, "tied_docs": 3, "straddles": []}
    assert groups["2"]["tied_groups"] == 1 and groups["2"]["largest"] == 4 and groups["2"]["straddles"] == [10]


def test_command_line_text_and_json(tmp_path, cli):
    qrels, run = _case(tmp_path)
    done = cli("ties", str(qrels), str(run), "-m", "AP", "-m", "P@10", "--format", "json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert [r["measure"] for r in data["overall"]] == ["AP", "P@10"]
    ap = rankmeter.evaluate(qrels, run, ["AP"], ties="average").mean["AP"]
    assert data["overall"][0]["average"] == pytest.approx(ap)
    text = cli("ties", str(qrels), str(run), "-m", "AP")
    assert text.returncode == 0
    assert "2 of 2 queries hold tied docs" in text.stdout and "10: 1" in text.stdout
    assert f"{ap:.4f}" in text.stdout
    bad = cli("ties", str(qrels), str(run), "-m", "nope")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
