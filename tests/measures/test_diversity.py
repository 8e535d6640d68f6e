"""Diversity measures against ndeval (pyndeval through ir_measures), the plain reference, and by hand."""
from __future__ import annotations

import math
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankmeter

sys.path.insert(0, str(Path(__file__).parents[1]))
from reference import REFERENCE, order_run, rank  # noqa: E402

DIVERSITY = ["alpha_DCG", "alpha_nDCG", "ERR_IA", "nERR_IA", "NRBP", "nNRBP", "P_IA", "StRecall", "AP_IA"]


@st.composite
def cases(draw):
    """Subtopic qrels {q: {subtopic: {doc: grade}}} and a run with distinct scores (ndeval and trec_eval
    break score ties differently)."""
    qrels, run = {}, {}
    for q in range(draw(st.integers(1, 4))):
        docs = [f"d{j}" for j in range(draw(st.integers(1, 10)))]
        subtopics = {}
        for s in range(1, draw(st.integers(1, 4)) + 1):
            judged = draw(st.lists(st.sampled_from(docs), unique=True, max_size=len(docs)))
            if judged:
                subtopics[str(s)] = {d: draw(st.integers(0, 2)) for d in judged}
        if not subtopics:
            continue
        pool = docs + [f"x{j}" for j in range(3)]
        ranked = draw(st.lists(st.sampled_from(pool), unique=True, min_size=1, max_size=len(pool)))
        qrels[f"q{q}"] = subtopics
        run[f"q{q}"] = {d: float(len(ranked) - i) for i, d in enumerate(ranked)}
    if not qrels:
        qrels, run = {"q0": {"1": {"d0": 1}}}, {"q0": {"d0": 1.0}}
    return qrels, run


def _frame(qrels):
    pd = pytest.importorskip("pandas")
    return pd.DataFrame([(q, s, d, g) for q, subs in qrels.items() for s, docs in subs.items()
                         for d, g in docs.items()], columns=["query_id", "iteration", "doc_id", "relevance"])


def _ndeval(measure, qrels, run):
    """Per query values of one ir_measures measure (one call each: ir_measures 0.4 feeds a run iterator to
    several pyndeval invocations in turn, so mixing alpha/beta/rel settings in one call loses queries)."""
    ir_measures = pytest.importorskip("ir_measures")
    pytest.importorskip("pyndeval")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.parse_measure(measure)],
                                                                      _frame(qrels), run)}


ORACLE_MEASURES = ["alpha_nDCG@20", "alpha_nDCG@1", "alpha_nDCG(alpha=0.3)@5", "alpha_DCG@10", "alpha_DCG@1",
                   "ERR_IA@5", "ERR_IA@1", "nERR_IA@20", "NRBP", "NRBP(beta=0.8)", "nNRBP", "nNRBP(alpha=0.9)",
                   "P_IA@5", "P_IA@20", "StRecall@3", "AP_IA", "AP_IA(rel=2)", "alpha_nDCG(rel=2)@10"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_equals_ndeval_per_query(case):
    qrels, run = case
    got = rankmeter.evaluate(qrels, run, ORACLE_MEASURES)
    for name in ORACLE_MEASURES:
        want = _ndeval(name, qrels, run)
        assert sorted(want) == got.queries, name
        for q, value in zip(got.queries, got.values(name)):
            expected = want[q]
            if math.isnan(expected):  # ndeval's nNRBP is 0/0 where no doc covers a subtopic; 0 here
                assert value == 0.0 and name.startswith("nNRBP"), (name, q)
            else:
                assert value == pytest.approx(expected, abs=1e-9), (name, q)


@settings(max_examples=40, deadline=None)
@given(cases(), st.sampled_from([0, 1, 2]), st.sampled_from([1, 2, 3, 7, 25]), st.booleans())
def test_equals_plain_reference(case, rel, k, judged_only):
    qrels, run = case
    per_doc = {q: {} for q in qrels}
    for q, subs in qrels.items():
        for s, docs in subs.items():
            for d, g in docs.items():
                per_doc[q].setdefault(d, {})[s] = g
    measures = [rankmeter.parse_measure(f"{name}(judged_only={judged_only}, rel={rel})"
                                        + ("" if name in ("NRBP", "nNRBP") else f"@{k}")) for name in DIVERSITY]
    got = rankmeter.evaluate(qrels, run, measures)
    for m in measures:
        params = {p.name: m.get(p.name) for p in m.family.all_params}
        params.update(k=m.cutoff, rel=rel)
        for q, value in zip(got.queries, got.values(m)):
            want = REFERENCE[m.name](per_doc[q], rank(per_doc[q], order_run(run[q])), params)
            assert value == pytest.approx(want, rel=1e-12, abs=1e-15), (str(m), q)


# --------------------------------------------------------------- by hand
QRELS_FILE = """\
1 1 a 1
1 2 a 2
1 1 b 1
1 2 c 1
1 3 d 0
"""
RUN_FILE = """\
1 Q0 b 1 3.0 r
1 Q0 a 2 2.0 r
1 Q0 x 3 1.0 r
"""


def test_worked_example_from_a_trec_diversity_file(tmp_path, cli):
    """Subtopics 1 {a, b} and 2 {a, c}; subtopic 3 has no relevant doc, so S = 2.

    Run b, a, x. Gains: b covers 1 -> 1; a covers 1 (seen once) and 2 -> 0.5 + 1 = 1.5; x -> 0.
    alpha-DCG raw @3 = 1 + 1.5 / log2(3) = 1.946395; ideal ideal = 2 (1 + 0.5 / log2(3) + 0.25 / 2)
    = 2.880930; alpha_DCG@3 = 0.675613. The greedy ideal: a (gain 2), then b and c tie at 0.5 and the
    larger docno c goes first, then b (0.5): 2 + 0.5 / log2(3) + 0.5 / 2 = 2.565465;
    alpha_nDCG@3 = 0.758691. P_IA@2 = 3 pairs / (2 * 2) = 0.75; StRecall@1 = 1/2.
    AP_IA: subtopic 1: (1/1 + 2/2) / 2 = 1; subtopic 2: (1/2) / 2 = 0.25; mean 0.625.
    The ordinary families read each doc's highest grade: a=2, b=1, c=1, d=0.
    """
    (tmp_path / "web.div.qrels").write_text(QRELS_FILE)
    (tmp_path / "run.txt").write_text(RUN_FILE)
    measures = ["alpha_DCG@3", "alpha_nDCG@3", "P_IA@2", "StRecall@1", "AP_IA", "P@2", "nDCG(gain=exp)@3"]
    r = rankmeter.evaluate(str(tmp_path / "web.div.qrels"), str(tmp_path / "run.txt"), measures)
    values = {k: round(v, 6) for k, v in r.mean.items()}
    ideal_dcg = 3 + 1 / math.log2(3) + 1 / 2
    assert values == {"alpha_DCG@3": 0.675613, "alpha_nDCG@3": 0.758691, "P_IA@2": 0.75, "StRecall@1": 0.5,
                      "AP_IA": 0.625, "P@2": 1.0, "nDCG(gain=exp)@3": round((1 + 3 / math.log2(3)) / ideal_dcg, 6)}
    done = cli("eval", tmp_path / "web.div.qrels", tmp_path / "run.txt", "-m", "alpha_nDCG@3", "-m", "P@2",
               "--format", "csv")
    assert done.code == 0, done.err
    out = done.stdout
    assert out.splitlines()[1].split(",")[2:] == ["0.7586908119341802", "1.0"]


def test_a_subtopic_judged_twice_is_an_error(tmp_path):
    (tmp_path / "q").write_text(QRELS_FILE + "1 2 c 0\n")
    with pytest.raises(rankmeter.InputError, match=r"q:4 and 6: doc c is judged twice for query 1 and subtopic 2"):
        rankmeter.evaluate(str(tmp_path / "q"), {"1": ["a"]}, "alpha_nDCG@5")


def test_ordinary_qrels_give_one_subtopic_and_the_same_ordinary_values():
    qrels = {"q": {"a": 1, "b": 0, "c": 2}}
    r = rankmeter.evaluate(qrels, {"q": ["b", "c", "a"]}, ["StRecall@1", "StRecall@2", "P_IA@2", "AP_IA", "AP"])
    assert r.mean == {"StRecall@1": 0.0, "StRecall@2": 1.0, "P_IA@2": 0.5, "AP_IA": pytest.approx(7 / 12),
                      "AP": pytest.approx(7 / 12)}


def test_frames_and_dicts_read_subtopics_the_same():
    pd = pytest.importorskip("pandas")
    qrels = {"1": {"1": {"a": 1, "b": 1}, "2": {"a": 2, "c": 1}, "3": {"d": 0}}}
    frame = pd.DataFrame([("1", "1", "a", 1), ("1", "1", "b", 1), ("1", "2", "a", 2), ("1", "2", "c", 1),
                          ("1", "3", "d", 0)], columns=["query_id", "iteration", "doc_id", "relevance"])
    run = {"1": {"b": 3.0, "a": 2.0, "x": 1.0}}
    from_dict = rankmeter.evaluate(qrels, run, ["alpha_nDCG@3", "nNRBP", "P@2"]).mean
    from_frame = rankmeter.evaluate(frame, run, ["alpha_nDCG@3", "nNRBP", "P@2"]).mean
    assert from_dict == from_frame and round(from_dict["alpha_nDCG@3"], 6) == 0.758691


def test_ir_measures_spellings():
    r = rankmeter.evaluate({"q": {"a": 1}}, {"q": ["a"]}, ["MAP_IA", "\u03b1_nDCG@5", "alpha_nDCG@5"])
    assert r["MAP_IA"] == 1.0 and r["\u03b1_nDCG@5"] == r["alpha_nDCG@5"] == 1.0
    assert str(rankmeter.parse_measure("alpha_nDCG(alpha=0.3)@20")) == "alpha_nDCG(alpha=0.3)@20"


def test_greedy_ideal_is_vectorised_over_queries_and_matches_per_query():
    rng = np.random.default_rng(3)
    qrels = {f"q{i}": {str(s): {f"d{j}": int(rng.integers(0, 2)) for j in rng.choice(30, 12, replace=False)}
                       for s in range(1, 5)} for i in range(20)}
    run = {q: {f"d{j}": float(rng.random()) for j in range(30)} for q in qrels}
    together = rankmeter.evaluate(qrels, run, ["alpha_nDCG@20", "nNRBP", "nERR_IA@10"])
    for q in ["q0", "q7", "q19"]:
        alone = rankmeter.evaluate({q: qrels[q]}, {q: run[q]}, ["alpha_nDCG@20", "nNRBP", "nERR_IA@10"])
        i = together.queries.index(q)
        for name in alone.names:
            assert together.values(name)[i] == alone.values(name)[0]


def test_greedy_ideal_breaks_ties_by_larger_docno_and_can_be_beaten():
    """a {1,2}, b {3,4}, c {1,3}, d {2} all start at gain 2: ndeval takes c (the larger docno), then b
    and a tie at 1.5 and b goes first: ideal gains 2, 1.5. The run a, b gains 2, 2, so
    alpha_nDCG@2 = (2 + 2/log2 3) / (2 + 1.5/log2 3) = 1.1071 > 1 (ndeval prints the same)."""
    qrels = {"q": {"1": {"a": 1, "c": 1}, "2": {"a": 1, "d": 1}, "3": {"b": 1, "c": 1}, "4": {"b": 1}}}
    got = rankmeter.evaluate(qrels, {"q": ["a", "b"]}, "alpha_nDCG@2")["alpha_nDCG@2"]
    assert got == pytest.approx((2 + 2 / math.log2(3)) / (2 + 1.5 / math.log2(3)), rel=1e-15)
    assert got == pytest.approx(_ndeval("alpha_nDCG@2", qrels, {"q": {"a": 2.0, "b": 1.0}})["q"], rel=1e-15)


def test_many_subtopics_equal_the_reference():
    """Past 62 subtopics a query's docs are not grouped by subtopic set; the values stay the same."""
    rng = np.random.default_rng(5)
    qrels = {"q": {str(s): {f"d{j}": 1 for j in rng.choice(40, 3, replace=False)} for s in range(70)},
             "r": {str(s): {f"d{j}": 1 for j in rng.choice(40, 3, replace=False)} for s in range(4)}}
    run = {q: {f"d{j}": float(40 - j) for j in range(0, 40, 3)} for q in qrels}
    names = ["alpha_nDCG@10", "nERR_IA@5", "nNRBP"]
    got = rankmeter.evaluate(qrels, run, names)
    for q, subs in qrels.items():
        per_doc = {}
        for s, docs in subs.items():
            for d, g in docs.items():
                per_doc.setdefault(d, {})[s] = g
        for name in names:
            m = rankmeter.parse_measure(name)
            params = {p.name: m.get(p.name) for p in m.family.all_params}
            params.update(k=m.cutoff, rel=1)
            want = REFERENCE[m.name](per_doc, rank(per_doc, order_run(run[q])), params)
            assert got.values(name)[got.queries.index(q)] == pytest.approx(want, rel=1e-12), (name, q)


def test_spark_reads_subtopic_qrels_for_diversity_measures():
    """The worked example's shape on Spark: doc a covers subtopics 1 and 2 of query 1."""
    pytest.importorskip("pyspark")
    import shutil
    if not shutil.which("java"):
        pytest.skip("Spark needs java")
    pd = pytest.importorskip("pandas")
    from pyspark.sql import SparkSession
    spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
    qrels = spark.createDataFrame(pd.DataFrame({"query": ["1", "1", "1"], "subtopic": ["1", "2", "2"],
                                                "doc": ["a", "a", "b"], "rel": [1, 1, 1]}))
    run = spark.createDataFrame(pd.DataFrame({"query": ["1", "1"], "doc": ["a", "b"], "score": [2.0, 1.0]}))
    # StRecall@1 = subtopics covered by the top doc / subtopics = 2/2; P_IA@1 = mean over subtopics of P@1 = 1
    result = rankmeter.evaluate(qrels, run, ["StRecall@1", "P_IA@1", "P@2"])
    assert result["StRecall@1"] == 1.0 and result["P_IA@1"] == 1.0 and result["P@2"] == 1.0


@st.composite
def weighted_cases(draw):
    qrels, run = draw(cases())
    intents = {}
    for q, subs in qrels.items():
        if draw(st.booleans()):  # a query left out weighs its subtopics equally
            intents[q] = {s: draw(st.sampled_from([0.0, 0.1, 0.25, 1.0, 3.0])) for s in subs if draw(st.booleans())}
    return qrels, run, intents


@settings(max_examples=40, deadline=None)
@given(weighted_cases(), st.sampled_from([1, 2]))
def test_intent_probabilities_equal_the_plain_reference(case, rel):
    qrels, run, intents = case
    per_doc = {q: {} for q in qrels}
    for q, subs in qrels.items():
        for s, docs in subs.items():
            for d, g in docs.items():
                per_doc[q].setdefault(d, {})[s] = g
    measures = [rankmeter.parse_measure(f"{name}(rel={rel})" + ("" if name in ("NRBP", "nNRBP") else "@3"))
                for name in DIVERSITY]
    got = rankmeter.evaluate(qrels, run, measures, intents=intents)
    # one subtopic in the whole qrels: no subtopic column, nothing to weigh
    distinct = {s for subs in qrels.values() for s in subs}
    for m in measures:
        params = {p.name: m.get(p.name) for p in m.family.all_params}
        params.update(k=m.cutoff, rel=rel)
        for q, value in zip(got.queries, got.values(m)):
            weights = intents.get(q) if len(distinct) > 1 else None
            want = REFERENCE[m.name](per_doc[q], rank(per_doc[q], order_run(run[q])),
                                     {**params, "intents": weights})
            assert value == pytest.approx(want, rel=1e-12, abs=1e-15), (str(m), q)


def test_equal_intents_change_nothing_and_bad_intents_are_refused():
    qrels = {"1": {"1": {"a": 1, "b": 1}, "2": {"a": 2, "c": 1}, "3": {"d": 0}}}
    run = {"1": ["b", "a", "x"]}
    names = ["alpha_nDCG@3", "nNRBP", "P_IA@2", "StRecall@1", "AP_IA"]
    plain = rankmeter.evaluate(qrels, run, names).mean
    assert rankmeter.evaluate(qrels, run, names, intents={"1": {"1": 0.3, "2": 0.3, "3": 0.4}}).mean == plain
    # all the weight on subtopic 2 (S = 2, so it counts 2, subtopic 1 counts 0): b gains 0, a gains 2.
    # The greedy ideal: a and c tie at 2, c goes first, then a (2 * 0.5): gains 2, 1, 0.
    only_2 = rankmeter.evaluate(qrels, run, names, intents={"1": {"2": 1.0}}).mean
    assert only_2 == {"alpha_nDCG@3": pytest.approx((2 / math.log2(3)) / (2 + 1 / math.log2(3))),
                      "nNRBP": pytest.approx(1 / 2.5),
                      "P_IA@2": pytest.approx(0.5), "StRecall@1": 0.0, "AP_IA": pytest.approx(0.25)}
    with pytest.raises(rankmeter.ParameterError, match="intents="):
        rankmeter.evaluate(qrels, run, names, intents={"1": {"1": -1}})


def test_a_missing_cutoff_is_named_and_check_notes_diversity_qrels(tmp_path, cli):
    with pytest.raises(rankmeter.MeasureError, match=r"alpha_nDCG needs a cutoff, e.g. alpha_nDCG@10"):
        rankmeter.evaluate({"q": {"a": 1}}, {"q": ["a"]}, "alpha_nDCG")
    (tmp_path / "web.div.qrels").write_text(QRELS_FILE)
    (tmp_path / "run.txt").write_text(RUN_FILE)
    out = cli("check", str(tmp_path / "web.div.qrels"), str(tmp_path / "run.txt"))
    assert "diversity qrels: 3 (query, subtopic) pairs" in out.stdout + out.stderr
    assert "judged twice for a query" not in out.stdout + out.stderr
