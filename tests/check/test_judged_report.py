"""rankmeter.judged / `rankmeter judged`: hand-worked values, pytrec_eval and ir_measures agreement, formats."""
from __future__ import annotations

import csv
import functools
import io
import json
from pathlib import Path

import pytest

import rankmeter
from rankmeter.errors import ParameterError
from cli_runner import run_cli_in_process  # noqa: E402  (tests/ is on sys.path: tests/conftest.py)

ROOT = Path(__file__).resolve().parents[1].parent
GOLDEN = ROOT / "tests" / "golden"
EXAMPLES = ROOT / "examples"


cli = functools.partial(run_cli_in_process, cwd=ROOT)


def test_hand_worked_values():
    # R = 3 (a, c, d), N = 1 (b); the run ranks a, x, b, c; x is unjudged
    qrels = {"q": {"a": 1, "b": 0, "c": 1, "d": 1}}
    run = {"q": {"a": 4.0, "x": 3.0, "b": 2.0, "c": 1.0}}
    row = rankmeter.judged(qrels, run, ["AP", "P@2"], cutoffs=(2, 10), rbp_p=0.5).rows[0]
    assert row.judged == {2: 0.5, 10: 0.75}
    assert row.full["AP"] == pytest.approx((1 + 2 / 4) / 3)       # relevant at ranks 1 and 4
    assert row.condensed["AP"] == pytest.approx((1 + 2 / 3) / 3)  # a, b, c: relevant at 1 and 3
    assert row.full["P@2"] == 0.5 and row.condensed["P@2"] == 0.5
    # bpref: a has no judged non-relevant above it (1); c has b above it: 1 - min(1, R) / min(R, N) = 0
    assert row.bpref == pytest.approx(1 / 3)
    # RBP(0.5): gains 1, 0, 0, 1 -> 0.5 * (1 + 0.5^3); the residual adds 0.5 * 0.5 (x at rank 2) and 0.5^4
    assert row.rbp == pytest.approx((0.5625, 0.5625 + 0.25 + 0.0625))
    assert row.queries == 1 and row.missing == 0


@pytest.mark.parametrize("qrels,runs", [
    (GOLDEN / "qrels.test", [GOLDEN / "results.test"]),
    (EXAMPLES / "qrels.txt", [EXAMPLES / "run.txt", EXAMPLES / "run2.txt"]),
], ids=["trec_eval-test", "example"])
def test_equal_to_pytrec_eval_full_and_judged_only(qrels, runs):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    report = rankmeter.judged(qrels, runs, ["AP", "nDCG@10", "P@5"])
    q = rankmeter.read_qrels(qrels)
    qrels_dict: dict = {}
    for query, doc, rel in zip(*(q.table.column(c).to_pylist() for c in ("query", "doc", "rel"))):
        qrels_dict.setdefault(query.decode(), {})[doc.decode()] = rel
    names = {"AP": "map", "nDCG@10": "ndcg_cut_10", "P@5": "P_5"}
    for row, path in zip(report.rows, runs):
        r = rankmeter.read_run(path)
        run_dict: dict = {}
        for query, doc, score in zip(*(r.table.column(c).to_pylist() for c in ("query", "doc", "score"))):
            run_dict.setdefault(query.decode(), {})[doc.decode()] = score
        run_dict = {k: v for k, v in run_dict.items() if k in qrels_dict}
        for only, values in ((False, row.full), (True, row.condensed)):
            ev = pytrec_eval.RelevanceEvaluator(qrels_dict, {"map", "ndcg_cut", "P", "bpref", "infAP"},
                                                judged_docs_only_flag=only)
            per_query = ev.evaluate(run_dict)

            def mean(measure):
                return sum(v[measure] for v in per_query.values()) / len(per_query)

            for ours, theirs in names.items():
                assert values[ours] == pytest.approx(mean(theirs), abs=1e-12), (path.name, ours, only)
            if not only:
                assert row.bpref == pytest.approx(mean("bpref"), abs=1e-12)
                assert row.infAP == pytest.approx(mean("infAP"), abs=1e-12)


def test_judged_at_k_equal_to_ir_measures():
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = EXAMPLES / "qrels.txt", EXAMPLES / "run.txt"
    row = rankmeter.judged(qrels, run, "AP", cutoffs=(5, 10, 100)).rows[0]
    theirs = ir_measures.calc_aggregate([ir_measures.Judged @ 5, ir_measures.Judged @ 10, ir_measures.Judged @ 100],
                                        ir_measures.read_trec_qrels(str(qrels)), ir_measures.read_trec_run(str(run)))
    assert row.judged == pytest.approx({k: theirs[ir_measures.Judged @ k] for k in (5, 10, 100)})


def test_rbp_interval_holds_the_value_of_every_filling():
    # filling the one unjudged doc with relevance 1 reaches the interval's top minus the part past the ranking
    qrels = {"q": {"a": 1, "b": 0}}
    row = rankmeter.judged(qrels, {"q": {"a": 2.0, "x": 1.0}}, "AP", rbp_p=0.5).rows[0]
    filled = rankmeter.evaluate({"q": {"a": 1, "b": 0, "x": 1}}, {"q": {"a": 2.0, "x": 1.0}}, "RBP(p=0.5)")
    assert row.rbp[0] <= filled["RBP(p=0.5)"] <= row.rbp[1]
    assert row.rbp[1] - filled["RBP(p=0.5)"] == pytest.approx(0.5 ** 2)  # what lies past rank 2


def test_formats_and_options(tmp_path):
    out = cli("judged", EXAMPLES / "qrels.txt", EXAMPLES / "run.txt", EXAMPLES / "run2.txt", "-m", "AP",
              "-k", "5", "--format", "json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    expected = rankmeter.judged(EXAMPLES / "qrels.txt", [EXAMPLES / "run.txt", EXAMPLES / "run2.txt"], "AP",
                                cutoffs=(5,))
    assert [r["run"] for r in data["runs"]] == ["bm25", "neural"]
    assert data["runs"][0]["Judged@5"] == pytest.approx(expected.rows[0].judged[5])
    assert data["runs"][1]["measures"]["AP"]["judged_only"] == pytest.approx(expected.rows[1].condensed["AP"])
    rbp = data["runs"][0]["rbp"]
    assert rbp["high"] - rbp["low"] == pytest.approx(rbp["residual"])
    out = cli("judged", EXAMPLES / "qrels.txt", EXAMPLES / "run.txt", "-m", "AP", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    assert rows[0]["run"] == "bm25" and float(rows[0]["AP judged only"]) == pytest.approx(
        expected.rows[0].condensed["AP"])
    assert "Judged@1000" in rows[0] and "RBP(p=0.8) + residual" in rows[0]
    out = cli("judged", EXAMPLES / "qrels.txt", EXAMPLES / "run.txt", "-m", "AP")
    assert out.returncode == 0 and "bm25 (8 queries)" in out.stdout and "judged only" in out.stdout
    # --rel 2 reaches the measures
    strict = rankmeter.judged(EXAMPLES / "qrels.txt", EXAMPLES / "run.txt", "AP", rel=2).rows[0]
    assert strict.full["AP"] == pytest.approx(rankmeter.evaluate(EXAMPLES / "qrels.txt", EXAMPLES / "run.txt",
                                                                 "AP(rel=2)")["AP(rel=2)"])
    assert cli("judged", EXAMPLES / "qrels.txt", EXAMPLES / "run.txt", "-k", "0").returncode == 2


def test_missing_queries_are_counted_and_judged_only_refused():
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    row = rankmeter.judged(qrels, {"q1": {"a": 1.0}}, "AP").rows[0]
    assert (row.queries, row.missing) == (1, 1)
    assert rankmeter.judged(qrels, {"q1": {"a": 1.0}}, "AP", queries="qrels").rows[0].full["AP"] == 0.5
    with pytest.raises(ParameterError, match="judged_only"):
        rankmeter.judged(qrels, {"q1": {"a": 1.0}}, "AP", judged_only=True)
