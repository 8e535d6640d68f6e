"""Property tests: rankmeter's vectorised kernels against the plain reference implementations.

Hypothesis draws small qrels and runs with tied scores, graded and negative
grades, unjudged docs, empty rankings (``queries="qrels"``), queries with no
relevant doc and queries on one side only; every measure variant is computed
with :func:`rankmeter.evaluate` and compared per query with the slow
functions of ``tests/reference`` (to 1e-9).
"""
from __future__ import annotations

import math
import sys
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter.measures import Measure

sys.path.insert(0, str(Path(__file__).parent.parent))
import reference  # noqa: E402

DOCS = ["a", "b", "c", "d", "e", "f", "g", "B", "a1", "d10", "d9", "z"]
QUERIES = ["q1", "q2", "q3", "10", "9"]
SCORES = [-1.0, 0.0, 0.5, 1.0, 1.5, 2.0]

#: (family, params, cutoff): every measure and variant under test
SPECS: list[tuple[str, dict, int | None]] = [
    ("P", {}, None), ("P", {}, 1), ("P", {}, 3), ("P", {}, 10), ("P", {"rel": 2}, 3),
    ("P", {"judged_only": True}, 3),
    ("R", {}, None), ("R", {}, 3), ("R", {}, 10), ("R", {"rel": 2}, 5),
    ("F", {}, None), ("F", {}, 3), ("F", {"beta": 2.0}, 5), ("F", {"beta": 0.5}, None), ("F", {"rel": 2}, 4),
    ("AP", {}, None), ("AP", {}, 3), ("AP", {"denom": "min"}, 3), ("AP", {"denom": "hits"}, 3),
    ("AP", {"denom": "min"}, None), ("AP", {"denom": "hits"}, None), ("AP", {"rel": 2}, None),
    ("AP", {"judged_only": True}, None),
    ("RR", {}, None), ("RR", {}, 2), ("RR", {"rel": 2}, None), ("RR", {"judged_only": True}, None),
    ("Success", {}, 1), ("Success", {}, 5), ("Success", {}, None),
    ("CG", {}, 5), ("CG", {"gain": "exp"}, 5), ("CG", {}, None),
    ("DCG", {}, 5), ("DCG", {}, None), ("DCG", {"gain": "exp"}, 5), ("DCG", {"discount": "jk"}, 5),
    ("DCG", {"gain": "exp", "discount": "jk"}, None), ("DCG", {"gain": {1: 1.0, 2: 3.0, 3: 7.0}}, 4),
    ("nDCG", {}, None), ("nDCG", {}, 3), ("nDCG", {}, 10), ("nDCG", {"gain": "exp"}, 5),
    ("nDCG", {"discount": "jk"}, 5), ("nDCG", {"ideal": "run"}, 3), ("nDCG", {"ideal": "run"}, None),
    ("nDCG", {"ideal": "topk"}, 3), ("nDCG", {"ideal": "topk", "gain": "exp", "discount": "jk"}, 4),
    ("nDCG", {"gain": {1: 1.0, 2: 3.0, 3: 9.0}}, None), ("nDCG", {"gain": {2: 0.5}}, 5),
    ("nDCG", {"judged_only": True}, 5),
    ("ERR", {}, 5), ("ERR", {}, None), ("ERR", {"p": 0.5}, 5), ("ERR", {"max_grade": 4}, 5),
    ("ERR", {"max_grade": 1}, None), ("ERR", {"rel": 2}, 5), ("ERR", {"p": 0.0}, None),
    ("nERR", {}, 3), ("nERR", {}, None), ("nERR", {"p": 0.7}, 5), ("nERR", {"max_grade": 4, "p": 0.9}, 2),
    ("nERR", {"judged_only": True}, 4),
    ("RBP", {}, None), ("RBP", {"p": 0.9}, None), ("RBP", {"rel": 2}, None), ("RBP", {"gain": "graded"}, None),
    ("RBP", {"gain": "graded", "p": 0.5}, None), ("RBP", {"judged_only": True}, None),
    ("RBP_resid", {}, None), ("RBP_resid", {"p": 0.5}, None), ("RBP_resid", {"gain": "trec_eval", "p": 0.9}, None),
    ("AUC", {}, None), ("AUC", {"rel": 2}, None), ("AUC", {"judged_only": True}, None),
    ("Inversions", {}, None), ("Inversions", {}, 3), ("Inversions", {"rel": 2}, None),
    ("Inversions", {"judged_only": True}, 4),
    ("KendallTau", {}, None), ("KendallTau", {}, 3), ("KendallTau", {"rel": 2}, 6),
    ("KendallTau", {"judged_only": True}, None),
    ("Rprec", {}, None), ("Rprec", {"rel": 2}, None), ("Rprec", {"judged_only": True}, None),
    ("Bpref", {}, None), ("Bpref", {"rel": 2}, None), ("Bpref", {"judged_only": True}, None),
]


FAMILIES = list(dict.fromkeys(family for family, _, _ in SPECS))


@st.composite
def datasets(draw):
    """(qrels, run, as_lists, queries policy); run values are score dicts or, if as_lists, ranked lists."""
    grades = st.integers(min_value=-1, max_value=3)
    qrels = draw(st.dictionaries(st.sampled_from(QUERIES), st.dictionaries(st.sampled_from(DOCS), grades,
                                                                           min_size=1, max_size=9),
                                 min_size=1, max_size=4))
    run = draw(st.dictionaries(st.sampled_from(QUERIES),
                               st.dictionaries(st.sampled_from(DOCS), st.sampled_from(SCORES), min_size=1, max_size=10),
                               min_size=1, max_size=4))
    as_lists = draw(st.booleans())
    policy = draw(st.sampled_from(["both", "qrels"]))
    assume(set(qrels) & set(run))  # no query in common is an error (tests/test_evaluator.py)
    return qrels, run, as_lists, policy


def _expected(spec, qrels, run, as_lists, policy) -> dict[str, float]:
    family, params, cutoff = spec
    if policy == "both":
        queries = [q for q in qrels if q in run]
    else:
        queries = list(qrels)
    ref_params = dict(params)
    ref_params["k"] = cutoff
    if family in ("ERR", "nERR") and "max_grade" not in params:
        # MEASURES.md: the highest grade in the whole qrels, including queries left out of the mean
        ref_params["max_grade"] = max([max(g, 0) for judged in qrels.values() for g in judged.values()], default=0)
    if family == "RBP_resid" and params.get("gain") == "trec_eval":
        ref_params["trec_eval"] = True
    fn = reference.REFERENCE[family]
    out = {}
    for q in queries:
        scores = run.get(q, {})
        docs = list(scores) if as_lists else reference.order_run(scores)
        out[q] = fn(qrels[q], reference.rank(qrels[q], docs), ref_params)
    return out


def _evaluate(measures, qrels, run, as_lists, policy) -> dict:
    """{measure: {query: value}} from one rankmeter.evaluate call."""
    given_run = {q: list(s) for q, s in run.items()} if as_lists else run
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rankmeter.evaluate(qrels, given_run, measures, queries=policy)
    return {m: dict(zip(res.queries, res.values(m).tolist())) for m in measures}


@pytest.mark.parametrize("family", FAMILIES)
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=datasets())
def test_matches_reference(family, data):
    """Every variant of ``family`` (one evaluate call), per query, against the reference."""
    qrels, run, as_lists, policy = data
    specs = [spec for spec in SPECS if spec[0] == family]
    measures = [Measure.of(*spec) for spec in specs]
    got = _evaluate(measures, qrels, run, as_lists, policy)
    wrong = []
    for spec, measure in zip(specs, measures):
        want = _expected(spec, qrels, run, as_lists, policy)
        assert sorted(got[measure]) == sorted(want)
        wrong += [f"{measure} query {q}: rankmeter {got[measure][q]!r}, reference {value!r}"
                  for q, value in want.items()
                  if not math.isclose(got[measure][q], value, rel_tol=1e-9, abs_tol=1e-9)]
    assert not wrong, "\n".join(wrong)


# ----------------------------------------------------------------- the reference itself, against other oracles
@settings(max_examples=100, deadline=None)
@given(grades=st.lists(st.integers(min_value=-1, max_value=3), min_size=0, max_size=12))
def test_reference_kendall_matches_scipy(grades):
    scipy_stats = pytest.importorskip("scipy.stats")
    ranking = [(f"d{i}", g) for i, g in enumerate(grades)]
    got = reference.kendall_tau({}, ranking, {})
    clean = [max(g, 0) for g in grades]
    if len(set(clean)) < 2:
        assert got == 0.0
    else:
        tau = scipy_stats.kendalltau([-i for i in range(len(clean))], clean, variant="b").statistic
        assert math.isclose(got, tau, rel_tol=1e-12, abs_tol=1e-12)


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_reference_auc_matches_mann_whitney(data):
    """AUC = Mann-Whitney U / (n_pos * n_neg), ties counting 1/2 (scipy's U does the same)."""
    scipy_stats = pytest.importorskip("scipy.stats")
    n_ret = data.draw(st.integers(min_value=0, max_value=8))
    labels = data.draw(st.lists(st.booleans(), min_size=n_ret, max_size=n_ret))
    left = data.draw(st.lists(st.booleans(), max_size=5))
    qrels = {f"d{i}": int(r) for i, r in enumerate(labels)}
    qrels.update({f"x{i}": int(r) for i, r in enumerate(left)})
    ranking = [(f"d{i}", int(r)) for i, r in enumerate(labels)]
    got = reference.auc(qrels, ranking, {})
    y = labels + left
    score = [-i for i in range(n_ret)] + [-n_ret] * len(left)
    pos = [s for s, r in zip(score, y) if r]
    neg = [s for s, r in zip(score, y) if not r]
    if not pos or not neg:
        assert got == 0.0
    else:
        u = scipy_stats.mannwhitneyu(pos, neg, alternative="two-sided").statistic
        assert math.isclose(got, u / (len(pos) * len(neg)), rel_tol=1e-12)


# ----------------------------------------------------------------- gdeval (TREC Web track) through ir_measures
@st.composite
def numeric_datasets(draw):
    grades = st.integers(min_value=-1, max_value=4)
    qids = st.sampled_from(["1", "2", "3", "10"])
    qrels = draw(st.dictionaries(qids, st.dictionaries(st.sampled_from(DOCS), grades, min_size=1, max_size=9),
                                 min_size=1, max_size=3))
    run = draw(st.dictionaries(qids, st.dictionaries(st.sampled_from(DOCS), st.integers(0, 3).map(float),
                                                     min_size=1, max_size=10), min_size=1, max_size=3))
    assume(set(qrels) & set(run))  # no query in common is an error
    return qrels, run


@pytest.mark.parametrize("k", [1, 3, 10])
@settings(max_examples=25, deadline=None)
@given(data=numeric_datasets())
def test_err_and_ndcg_match_gdeval(k, data):
    """gdeval's ERR@k is ERR(max_grade=4)@k; its nDCG@k is nDCG(gain=exp)@k (both over queries it scores)."""
    ir_measures = pytest.importorskip("ir_measures")
    import shutil
    if not shutil.which("perl"):
        pytest.skip("gdeval needs perl")
    qrels, run = data
    expected = {}
    for metric in ir_measures.gdeval.iter_calc([ir_measures.ERR @ k, ir_measures.nDCG @ k], qrels, run):
        expected[(metric.query_id, metric.measure.NAME)] = metric.value
    if not expected:
        return
    err_m = Measure.of("ERR", {"max_grade": 4}, k)
    ndcg_m = Measure.of("nDCG", {"gain": "exp"}, k)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rankmeter.evaluate(qrels, run, [err_m, ndcg_m])
    got_err = dict(zip(res.queries, res.values(err_m).tolist()))
    got_ndcg = dict(zip(res.queries, res.values(ndcg_m).tolist()))
    for (q, name), value in expected.items():
        if q not in run:  # ir_measures reports 0 for a judged query the run lacks
            continue
        got = got_err[q] if name == "ERR" else got_ndcg[q]
        # gdeval prints 5 decimals
        assert abs(got - value) <= 5.1e-6, f"{name}@{k} query {q}: rankmeter {got}, gdeval {value}"
