"""The one evaluator core: options once, qrels keyed once, parts put together exactly."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import rankmeter
from rankmeter import InputError, ParameterError
from rankmeter.core import Evaluator, judgments, validate_options
from rankmeter.core.options import OPTIONS
from rankmeter.io.canonical import Run

QRELS = {"q1": {"a": 2, "b": 0, "c": 1}, "q2": {"d": 1, "e": 3}, "q3": {"f": 1}}
RUN = {"q1": {"a": 0.9, "x": 0.8, "c": 0.8}, "q2": {"e": 1.0, "d": 0.5}, "q9": {"a": 1.0}}


def test_options_are_validated_once_with_one_message_shape():
    for given, message in [({"rel": "1"}, "rel='1': expected a relevance threshold: a number in"),
                           ({"rel": float("nan")}, "rel=nan: expected a relevance threshold"),
                           ({"grades": "float"}, "grades='float': expected one of 'integer', 'truncate', 'real'"),
                           ({"grades": "real", "truncate_grades": True}, "pass one of the two"),
                           ({"queries": "all"}, "queries='all': expected one of 'both', 'qrels'"),
                           ({"max_docs": -1}, "max_docs=-1: expected an integer in [0, inf) or None"),
                           ({"ties": "random"}, "ties='random': expected one of"),
                           ({"judged_only": "yes"}, "judged_only='yes': expected True or False"),
                           ({"columns": {"query": 3.5}}, "columns={'query': 3.5}: expected role=name pairs"),
                           ({"relevance": 2}, "unknown option relevance; did you mean rel?")]:
        with pytest.raises(ParameterError) as err:
            validate_options(**given)
        assert message in str(err.value)
        with pytest.raises(ParameterError):  # every entry point uses the same table
            rankmeter.evaluate(QRELS, RUN, "AP", **given)
        with pytest.raises(ParameterError):
            rankmeter.explain(QRELS, RUN, "AP", "q1", **given)


def test_every_entry_point_takes_every_option():
    import inspect
    from rankmeter.report.html import render_report
    from rankmeter.recsys import feedback as recsys
    shared = {"queries": "qrels", "rel": 2, "judged_only": True, "max_docs": 2, "ties": "trec_eval"}
    want = rankmeter.evaluate(QRELS, RUN, ["AP", "P@2"], **shared)
    for call in (lambda: Evaluator(QRELS, ["AP", "P@2"], **shared).evaluate(RUN),
                 lambda: recsys.evaluate(QRELS, RUN, ["AP", "P@2"], **shared)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = call()
        assert got.queries == want.queries and got.values("AP").tolist() == want.values("AP").tolist()
    cmp = rankmeter.compare(QRELS, {"a": RUN, "b": RUN}, "AP", **shared)
    assert cmp.table["mean"].tolist() == pytest.approx([want["AP"]] * 2)
    ex = rankmeter.explain(QRELS, RUN, "AP", "q2", **shared)
    assert ex.value == want.values("AP")[want.queries.index("q2")]
    assert set(OPTIONS) <= set(inspect.signature(render_report).parameters)  # each a keyword of its own
    assert set(OPTIONS) >= {"queries", "rel", "judged_only", "max_docs", "ties", "columns", "truncate_grades"}


def test_qrels_are_keyed_once_for_many_runs(monkeypatch):
    made = []
    real = judgments.Judgments.__init__

    def counting(self, qrels, **options):
        made.append(qrels)
        real(self, qrels, **options)

    monkeypatch.setattr(judgments.Judgments, "__init__", counting)
    evaluator = Evaluator(QRELS, ["AP", "ERR@3"])
    results = [evaluator.evaluate(RUN) for _ in range(3)]
    assert len(made) == 1 and results[0].values("AP").tolist() == results[2].values("AP").tolist()
    made.clear()
    rankmeter.compare(QRELS, {"a": RUN, "b": RUN, "c": RUN}, "AP")
    assert len(made) == 1


def test_parts_put_together_equal_the_whole():
    evaluator = Evaluator(QRELS, ["AP", "nDCG@3", "NumRet"], queries="qrels")
    whole = evaluator.evaluate(RUN)
    run = rankmeter.io.as_run(RUN)
    first = Run(run.table.slice(0, 3), run.source)
    second = Run(run.table.slice(3), run.source)
    parts = [evaluator.score(second), evaluator.score(first)]
    joined = evaluator.finish(parts)
    assert joined.queries == whole.queries == ["q1", "q2", "q3"]   # q3: judged, not ranked (queries="qrels")
    for m in evaluator.measures:
        assert joined.values(m).tolist() == whole.values(m).tolist()
    assert joined["NumRet"] == 5


def test_a_query_in_two_parts_is_refused():
    evaluator = Evaluator(QRELS, "AP")
    run = rankmeter.io.as_run(RUN)
    with pytest.raises(InputError, match="not together"):
        evaluator.finish([evaluator.score(Run(run.table.slice(0, 1), run.source)),
                          evaluator.score(Run(run.table.slice(1), run.source))])


def test_no_query_in_common_names_both_sides():
    with pytest.raises(InputError, match=r"the run has 1, 2; the qrels have q1, q2, q3"):
        rankmeter.evaluate(QRELS, {"1": {"a": 1.0}, "2": {"b": 1.0}}, "AP")
    with pytest.raises(InputError, match="no query of the run is judged"):
        rankmeter.evaluate(QRELS, {"1": {"a": 1.0}}, "AP", queries="qrels")


def test_needs_are_computed_once_from_the_whole_qrels():
    evaluator = Evaluator(QRELS, ["ERR@2", "AP"])
    assert evaluator.needs == {"qrels_max_grade": 3}
    assert Evaluator(QRELS, ["AP"]).needs == {}
    # q2 holds the only grade 3: scoring q1 alone still uses g_max = 3
    alone = evaluator.evaluate({"q1": RUN["q1"]})
    assert alone.values("ERR@2")[0] == pytest.approx((2 ** 2 - 1) / 2 ** 3)


def test_missing_queries_are_named_once():
    with pytest.warns(UserWarning, match=r"1 judged queries have no results in the run and are left out.*q3"):
        r = rankmeter.evaluate(QRELS, RUN, "AP")
    assert r.missing == (b"q3",) and r.only_in_run == (b"q9",)


def test_large_runs_are_scored_in_parts_on_threads(monkeypatch):
    from rankmeter.core import in_memory as memory
    rng = np.random.default_rng(0)
    qrels = {f"q{i:03d}": {f"d{j}": int(rng.integers(0, 3)) for j in range(10)} for i in range(60)}
    run = {q: {f"d{j}": float(rng.integers(0, 4)) for j in range(15)} for q in qrels}
    whole = rankmeter.evaluate(qrels, run, ["AP", "nDCG@5"])
    monkeypatch.setattr(memory, "PARALLEL_ROWS", 10)
    calls = []
    real = Evaluator.score
    monkeypatch.setattr(Evaluator, "score", lambda self, part: calls.append(len(part)) or real(self, part))
    parts = rankmeter.evaluate(qrels, run, ["AP", "nDCG@5"], threads=2)
    assert len(calls) == 4 and sum(calls) == 900
    assert parts.values("AP").tolist() == whole.values("AP").tolist()
    assert parts.values("nDCG@5").tolist() == whole.values("nDCG@5").tolist()


def test_a_chunked_run_is_cut_into_whole_queries_and_an_ungrouped_one_is_not_cut():
    """query_aligned_slices reads the first id of every query block chunk by chunk (a take on the whole
    chunked column would copy every id first); a query spanning two chunks stays whole."""
    import pyarrow as pa

    from rankmeter.core.in_memory import query_aligned_slices

    def run_of(chunks):
        query = pa.chunked_array([pa.array(c, pa.binary()) for c in chunks])
        n = len(query)
        return Run(pa.table({"query": query, "doc": pa.array([b"d%d" % i for i in range(n)]),
                             "score": pa.array(np.arange(n, 0, -1), pa.float64())}), "run")

    grouped = run_of([[b"q1", b"q1", b"q2"], [b"q2", b"q2", b"q3"], [b"q3", b"q4", b"q4", b"q4"]])
    pieces = query_aligned_slices(grouped, 3)
    ids = [p.table.column("query").to_pylist() for p in pieces]
    assert sum(ids, []) == grouped.table.column("query").to_pylist()
    assert all(set(a).isdisjoint(b) for i, a in enumerate(ids) for b in ids[i + 1:])  # no query in two pieces
    assert query_aligned_slices(run_of([[b"q1", b"q2"], [b"q1"]]), 2) is None  # q1 in two blocks


def test_positive_scores_only_ranks_the_docs_scored_above_zero():
    """TorchMetrics' retrieval fix (PR 3104): zero and negative predictions are no prediction. The same
    values as the run with those rows removed by hand, for every kind of measure."""
    import warnings

    import numpy as np

    import rankmeter
    rng = np.random.default_rng(2)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 3)) for j in range(15)} for i in range(20)}
    run = {q: {f"d{j}": float(rng.choice([-1.0, 0.0, rng.random()])) for j in range(15) if rng.random() < 0.8}
           for q in qrels}
    kept = {q: {d: s for d, s in docs.items() if s > 0} for q, docs in run.items()}
    measures = ["AP", "P@5", "nDCG@10", "RR", "R@10", "Bpref", "ERR@5", "NumRet"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = rankmeter.evaluate(qrels, run, measures, positive_scores_only=True, queries="qrels")
        want = rankmeter.evaluate(qrels, kept, measures, queries="qrels")
    for m in measures:
        np.testing.assert_array_equal(got.values(m), want.values(m), err_msg=m)
    # by hand: q has a relevant doc at score 0 and a non-relevant one at 0.5: RR 0 with the option, 1/2 without
    one = rankmeter.evaluate({"q": {"a": 1, "b": 0}}, {"q": {"b": 0.5, "a": 0.0}}, ["RR"], positive_scores_only=True)
    assert one["RR"] == 0.0
    assert rankmeter.evaluate({"q": {"a": 1, "b": 0}}, {"q": {"b": 0.5, "a": 0.0}}, ["RR"])["RR"] == 0.5
