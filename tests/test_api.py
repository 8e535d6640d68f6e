"""The public Python API: evaluate, Results, and the query/tie/depth policies."""
from __future__ import annotations

import copy
import math
import re
import warnings

import numpy as np
import pytest

import rankmeter
from rankmeter import InputError, MeasureError, ParameterError, evaluate

QRELS = {
    "q1": {"a": 2, "b": 0, "c": 1, "d": 1, "z": -1},
    "q2": {"x": 1, "y": 0},
    "q3": {"m": 1},               # not in the run
}
RUN = {
    "q1": {"a": 0.9, "b": 0.8, "e": 0.8, "c": 0.5, "z": 0.4},
    "q2": {"y": 2.0, "x": 1.0},
    "q9": {"a": 1.0},             # not in the qrels: ignored
}


#: The curated public surface: a new public name is a decision, made here on purpose.
PUBLIC = {"evaluate", "evaluate_runs", "Evaluator", "Results", "RunsResults", "explain", "Explanation", "read_qrels", "read_run", "parse_measure",
          "Measure", "Qrels", "Run", "compare", "compare_scores", "Comparison", "RankmeterError", "InputError", "MeasureError",
          "ParameterError", "__version__", "fuse", "judged", "tie_report", "TieReport", "baseline", "gate", "profile", "leaderboard",
          "Leaderboard"}


def test_public_surface_is_curated():
    assert set(rankmeter.__all__) == PUBLIC
    for name in rankmeter.__all__:
        assert hasattr(rankmeter, name)


def test_means_per_query_and_any_spelling():
    with pytest.warns(UserWarning, match="q3"):
        r = evaluate(QRELS, RUN, ["AP", "P@2", "nDCG@10", "ndcg_cut.10"])
    assert r.queries == ["q1", "q2"]
    # q1 order: a(0.9) then b/e tie at 0.8 -> docno descending: e, b; then c, z.
    # relevant: a, c, d -> R=3; a at 1, c at 4 -> AP = (1/1 + 2/4) / 3 = 0.5
    # q2: y, x -> x relevant at 2, R=1 -> 0.5
    ap = r.values("AP")
    assert ap.tolist() == pytest.approx([0.5, 0.5])
    assert r["AP"] == pytest.approx(0.5)
    assert r["map"] == r["AP"] == r["AP(denom=R)"]
    assert r["nDCG@10"] == r["ndcg_cut.10"]
    assert r["P@2"] == pytest.approx((0.5 + 0.5) / 2)
    with pytest.raises(KeyError, match="was not computed"):
        r["RR"]


def test_queries_policy_qrels_scores_missing_queries_as_empty():
    r = evaluate(QRELS, RUN, ["AP", "NumRel", "NumRet"], queries="qrels")
    assert r.queries == ["q1", "q2", "q3"]
    assert r.values("AP").tolist() == pytest.approx([0.5, 0.5, 0.0])
    assert r["AP"] == pytest.approx(1.0 / 3)
    assert r["NumRel"] == 3 + 1 + 1 and isinstance(r["NumRel"], int)
    assert r["NumRet"] == 5 + 2


def test_both_policy_warns_and_lists_missing_queries():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        evaluate(QRELS, RUN, "AP")
    assert any("q3" in str(w.message) and "queries='qrels'" in str(w.message) for w in caught)


def test_rel_threshold_and_per_measure_rel():
    with pytest.warns(UserWarning):
        r = evaluate(QRELS, RUN, ["AP", "AP(rel=1)", "NumRel"], rel=2)
    # rel=2: only a relevant in q1 (AP 1.0); q2 has no grade-2 doc (AP 0)
    assert r.values("AP").tolist() == [1.0, 0.0]
    assert r.values("AP(rel=1)").tolist() == pytest.approx([0.5, 0.5])
    assert r.values("NumRel").tolist() == [1, 0]


def test_judged_only_closes_the_gaps():
    # q1 judged-only ranking: a, b, c, z(judged -1 counts as unjudged) -> a, b, c ; c at rank 3
    with pytest.warns(UserWarning):
        r = evaluate(QRELS, RUN, ["AP", "P(judged_only=true)@3"], judged_only=True)
    assert r.values("AP")[0] == pytest.approx((1 / 1 + 2 / 3) / 3)
    with pytest.warns(UserWarning):
        r2 = evaluate(QRELS, RUN, ["P@3", "P(judged_only=true)@3"])
    assert r2.values("P@3")[0] == pytest.approx(1 / 3)
    assert r2.values("P(judged_only=true)@3")[0] == pytest.approx(2 / 3)


def test_max_docs_truncates_after_ordering():
    with pytest.warns(UserWarning):
        r = evaluate(QRELS, RUN, ["NumRet", "AP"], max_docs=2)
    assert r.values("NumRet").tolist() == [2, 2]
    assert r.values("AP")[0] == pytest.approx(1 / 3)


def test_ties_input_keeps_given_order():
    qrels = {"q": {"b": 1}}
    run = {"q": {"a": 1.0, "b": 1.0}}
    # trec_eval order: docno descending among ties -> b first
    assert evaluate(qrels, run, "RR")["RR"] == 1.0
    # input order: a then b
    assert evaluate(qrels, run, "RR", ties="input")["RR"] == 0.5
    # ranked lists imply input order
    assert evaluate(qrels, {"q": ["a", "b"]}, "RR")["RR"] == 0.5


def test_inputs_are_not_modified():
    q, r = copy.deepcopy(QRELS), copy.deepcopy(RUN)
    with pytest.warns(UserWarning):
        evaluate(QRELS, RUN, ["AP", "nDCG@5"], judged_only=True, max_docs=3)
    assert q == QRELS and r == RUN


def test_read_once_score_many_runs(tmp_path):
    qrels_path = tmp_path / "qrels.txt"
    qrels_path.write_text("1 0 a 1\n1 0 b 0\n")
    qrels = rankmeter.read_qrels(qrels_path)
    for score_a in (1.0, 0.0):
        run = {"1": {"a": score_a, "b": 0.5}}
        assert evaluate(qrels, run, "RR")["RR"] == (1.0 if score_a else 0.5)


def test_per_query_frames_and_dict():
    pd = pytest.importorskip("pandas")
    with pytest.warns(UserWarning):
        r = evaluate(QRELS, RUN, ["AP", "P.5,10"])
    frame = r.per_query
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.columns) == ["query", "AP", "P_5", "P_10"]
    assert frame["query"].tolist() == ["q1", "q2"]
    d = r.to_dict(per_query=True)
    assert set(d) == {"run", "mean", "per_query"}
    assert d["per_query"][0]["query"] == "q1"
    assert math.isclose(d["mean"]["AP"], 0.5)


def test_parameter_errors_name_the_parameter():
    with pytest.raises(ParameterError, match="queries='all'"):
        evaluate(QRELS, RUN, "AP", queries="all")
    with pytest.raises(ParameterError, match="ties="):
        evaluate(QRELS, RUN, "AP", ties="random")
    with pytest.raises(ParameterError, match="rel="):
        evaluate(QRELS, RUN, "AP", rel="2")
    with pytest.raises(MeasureError, match="unknown measure"):
        evaluate(QRELS, RUN, "MAPP")
    with pytest.raises(InputError, match="argument order"):
        evaluate(rankmeter.io.as_run(RUN), RUN, "AP")


def test_many_queries_at_once_equal_each_query_alone():
    """The kernels run over all queries at once; each query's value is the one it gets scored alone."""
    rng = np.random.default_rng(3)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 3)) for j in range(20)} for i in range(200)}
    run = {f"q{i}": {f"d{j}": float(rng.integers(0, 5)) for j in range(30)} for i in range(200)}
    names = ["AP", "nDCG@10", "RR", "P@5", "R@10", "Bpref"]
    r = evaluate(qrels, run, names)
    assert len(r.queries) == 200
    for i in rng.choice(200, size=12, replace=False):
        alone = evaluate({f"q{i}": qrels[f"q{i}"]}, {f"q{i}": run[f"q{i}"]}, names)
        for name in names:
            assert r.values(name)[r.queries.index(f"q{i}")] == alone.values(name)[0]


def test_frames_with_other_column_names():
    pd = pytest.importorskip("pandas")
    qrels = pd.DataFrame({"user": ["u1", "u1", "u2"], "item": ["a", "b", "c"], "rel": [1, 0, 1]})
    run = pd.DataFrame({"user": ["u1", "u1", "u2"], "item": ["b", "a", "c"], "prediction": [0.9, 0.5, 0.1]})
    r = evaluate(qrels, run, ["RR", "P@1"], columns={"query": "user", "doc": "item", "score": "prediction"})
    assert r.queries == ["u1", "u2"]
    assert r.values("RR").tolist() == [0.5, 1.0]
    assert r["P@1"] == 0.5


def test_several_runs_at_once_give_one_table(tmp_path):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "x"], "score": [0.1, 0.9, 1.0]})
    runs = {"bm25": RUN, "dense": frame}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        both = rankmeter.evaluate_runs(QRELS, runs, ["AP", "P@2"])
        alone = evaluate(QRELS, frame, ["AP", "P@2"])
    assert both.runs == ["bm25", "dense"]
    assert both.table.set_index("run").loc["dense", "AP"] == alone["AP"]
    tidy = both.per_query
    assert set(tidy.columns) == {"run", "query", "measure", "value"}
    assert tidy[(tidy.run == "dense") & (tidy.measure == "P@2")].value.tolist() == alone.values("P@2").tolist()
    for i, text in enumerate(["q1 Q0 a 1 2.0 same\n", "q1 Q0 b 1 2.0 same\n"]):
        (tmp_path / f"r{i}.txt").write_text(text)
    globbed = rankmeter.evaluate_runs({"q1": {"a": 1}}, str(tmp_path / "r*.txt"), "AP")
    assert globbed.runs == ["r0.txt", "r1.txt"]  # a tag shared by two runs names neither: same rule as compare
    assert globbed.table["AP"].tolist() == [1.0, 0.0]
    with pytest.raises(InputError, match="no file matches"):
        rankmeter.evaluate_runs(QRELS, str(tmp_path / "nothing*.txt"), "AP")


def test_evaluate_returns_results_and_sends_several_runs_to_evaluate_runs(tmp_path):
    """One type per function: evaluate never answers several runs with a table of another type."""
    one = {"q1": ["a", "x", "c"]}       # AP on q1 (relevant a, c, d): (1/1 + 2/3) / 3
    other = {"q1": ["d", "a"]}          # (1/1 + 2/2) / 3
    for given, what in [({"bm25": one, "dense": other}, "a dict of 2 runs ('bm25', 'dense')"),
                        ([one, other], "a list of 2 runs"), ((one,), "a tuple of 1 run;")]:
        with pytest.raises(ParameterError, match="evaluate_runs") as err:
            evaluate(QRELS, given, "AP")
        assert what in str(err.value)
    for i in range(3):
        (tmp_path / f"r{i}.txt").write_text(f"q1 Q0 a 1 1.0 t{i}\n")
    with pytest.raises(ParameterError, match=r"the pattern .*r\*\.txt', 3 file\(s\); evaluate scores one run"):
        evaluate(QRELS, str(tmp_path / "r*.txt"), "AP")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = rankmeter.evaluate_runs(QRELS, {"bm25": one, "dense": other}, "AP")
        single = evaluate(QRELS, one, "AP")
        listed = rankmeter.evaluate_runs(QRELS, [one], ["AP"], queries="qrels")
    assert isinstance(table, rankmeter.RunsResults) and isinstance(single, rankmeter.Results)
    assert table.runs == ["bm25", "dense"]
    assert table["bm25"]["AP"] == pytest.approx((1 + 2 / 3) / 3) == single["AP"]
    assert table["dense"]["AP"] == pytest.approx(2 / 3)
    # one run is a table of one row, named as compare names it; the options reach every run
    assert listed.runs == ["run1"] and listed["run1"].queries == ["q1", "q2", "q3"]
    assert listed["run1"]["AP"] == pytest.approx(((1 + 2 / 3) / 3 + 0 + 0) / 3)
    with pytest.raises(KeyError, match="no run named 'AP'"):
        table["AP"]
    with pytest.raises(ParameterError, match="evaluate_runs scores each run in memory"):
        rankmeter.evaluate_runs(QRELS, [one], "AP", executor="streamed")


def test_evaluate_options_are_explicit_typed_keywords_with_the_table_defaults():
    """evaluate and evaluate_runs declare each evaluation option, keyword-only, with the default of
    the one table of options (so a signature cannot drift from rankmeter.core.options)."""
    import inspect

    from rankmeter.core.options import OPTIONS, Options

    defaults = Options()
    for func in (rankmeter.evaluate, rankmeter.evaluate_runs):
        params = inspect.signature(func).parameters
        options = {n: p for n, p in params.items() if p.kind is inspect.Parameter.KEYWORD_ONLY}
        assert list(options) == list(OPTIONS)
        assert {n: p.default for n, p in options.items()} == {n: getattr(defaults, n) for n in OPTIONS}
        assert all(p.annotation is not inspect.Parameter.empty for p in params.values())
        documented = {n for line in func.__doc__.splitlines() if line.startswith("    ") and not line.startswith("     ")
                      for n in re.split(r",\s*", line.strip().split(" : ")[0])}
        assert set(OPTIONS) <= documented  # numpydoc: every option documented
        with pytest.raises(ParameterError, match="unknown option relevance_level; did you mean rel"):
            func(QRELS, RUN, "AP", relevance_level=2)
