"""The measures the peers compute (issue 11, parts 3 and 4) against the peers themselves, per query.

Random qrels and runs from hypothesis; every oracle is the peer's own code:
ir_measures' judged, compat and accuracy providers, ranx's hits and
hit_rate, scikit-learn's dcg_score / ndcg_score, TorchMetrics' retrieval
metrics; and the plain reference implementations of tests/reference.

Runs get distinct scores in (0, 1), so every tool orders them the same way
(tools break score ties differently; TorchMetrics' AUROC reads scores outside
[0, 1] as logits and squashes them with a float32 sigmoid, which can tie them).
TorchMetrics does not threshold scores: a non-positive score is just a low one.
"""
from __future__ import annotations

import math
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter.errors import MeasureError
from rankmeter.measures import parse_measure
from rankmeter.recsys.pooled_auc import pooled_auc

sys.path.insert(0, str(Path(__file__).parents[1]))
import reference  # noqa: E402

DOCS = [f"d{i}" for i in range(14)]
QUERIES = ["1", "2", "3", "10"]
SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def datasets(draw, grades=st.integers(min_value=-1, max_value=3), full=False):
    """(qrels, run): run scores distinct and positive; ``full``: every judged doc ranked and every ranked doc judged."""
    qrels, run = {}, {}
    for q in draw(st.lists(st.sampled_from(QUERIES), min_size=1, max_size=4, unique=True)):
        judged = draw(st.dictionaries(st.sampled_from(DOCS), grades, min_size=1, max_size=10))
        docs = list(judged) if full else draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=12, unique=True))
        if full:
            docs = draw(st.permutations(docs))
        scores = draw(st.lists(st.integers(1, 1000), min_size=len(docs), max_size=len(docs), unique=True))
        qrels[q], run[q] = judged, {d: s / 1001.0 for d, s in zip(docs, scores)}  # in (0, 1): TorchMetrics reads others as logits
    return qrels, run


def _ours(qrels, run, names, **options) -> dict[str, dict[str, float]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rankmeter.evaluate(qrels, run, names, **options)
    return {n: dict(zip(res.queries, res.values(n).tolist())) for n in names}


def _close(a: float, b: float, tol: float = 1e-9) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)


def _check(got: dict, want: dict, label: str, tol: float = 1e-9):
    wrong = [f"{label} query {q}: rankmeter {got.get(q)!r}, oracle {v!r}" for q, v in want.items()
             if q not in got or not _close(got[q], v, tol)]
    assert not wrong, "\n".join(wrong)


# ------------------------------------------------------------------------------ ir_measures
IRM_SPECS = [("Judged@1", "Judged@1"), ("Judged@3", "Judged@3"), ("Judged@10", "Judged@10"), ("Judged", "Judged"),
             ("Compat", "Compat"), ("Compat(p=0.8)", "Compat(p=0.8)"),
             ("Compat(p=0.5,normalize=False)", "Compat(p=0.5, normalize=false)"),
             ("Accuracy", "Accuracy"), ("Accuracy@3", "Accuracy@3"), ("Accuracy(rel=2)@5", "Accuracy(rel=2)@5")]


@pytest.mark.parametrize("irm_name,name", IRM_SPECS)
@SETTINGS
@given(data=datasets())
def test_ir_measures_judged_compat_accuracy(irm_name, name, data):
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = data
    measure = ir_measures.parse_measure(irm_name)
    want = {}
    for q in set(qrels) & set(run):
        try:
            for metric in ir_measures.iter_calc([measure], {q: qrels[q]}, {q: run[q]}):
                want[q] = metric.value
        except ZeroDivisionError:  # ir_measures' Accuracy with no non-relevant doc in the top k
            want[q] = math.nan
        if q not in want:  # ir_measures leaves the query out: undefined
            want[q] = math.nan
    got = _ours(qrels, run, [name])[name]
    assert str(parse_measure(irm_name)) == name  # ir_measures' spelling reads as the same measure
    _check(got, want, name)


# ------------------------------------------------------------------------------ ranx
@pytest.mark.parametrize("ranx_name,name", [("hits", "Hits"), ("hits@3", "Hits@3"), ("hit_rate", "HitRate"),
                                             ("hit_rate@1", "HitRate@1"), ("hit_rate@5", "HitRate@5")])
@SETTINGS
@given(data=datasets(grades=st.integers(0, 3)))
def test_ranx_hits(ranx_name, name, data):
    ranx = pytest.importorskip("ranx")
    qrels, run = data
    common = sorted(set(qrels) & set(run))
    assume(common)
    r = ranx.Run({q: run[q] for q in common})
    ranx.evaluate(ranx.Qrels({q: qrels[q] for q in common}), r, [ranx_name], save_results_in_run=True)
    want = dict(r.scores[ranx_name])
    _check(_ours(qrels, run, [name])[name], want, name)


# ------------------------------------------------------------------------------ scikit-learn
@pytest.mark.parametrize("base", [2.0, 10.0, math.e, 1.5])
@pytest.mark.parametrize("k", [None, 1, 3])
@SETTINGS
@given(data=datasets(grades=st.integers(0, 3)))
def test_sklearn_dcg_log_base(base, k, data):
    metrics = pytest.importorskip("sklearn.metrics")
    qrels, run = data
    cut = "" if k is None else f"@{k}"
    names = [f"DCG(log_base={base!r}){cut}", f"nDCG(ideal=run, log_base={base!r}){cut}"]
    got = _ours(qrels, run, names)
    for q in set(qrels) & set(run):
        docs = list(run[q])
        if len(docs) < 2:
            continue  # scikit-learn refuses a single document
        y_true = [[max(qrels[q].get(d, 0), 0) for d in docs]]
        y_score = [[run[q][d] for d in docs]]
        assert _close(got[names[0]][q], metrics.dcg_score(y_true, y_score, k=k, log_base=base))
        assert _close(got[names[1]][q], metrics.ndcg_score(y_true, y_score, k=k))  # nDCG does not depend on the base


# ------------------------------------------------------------------------------ TorchMetrics
def _torch_metric(cls_name: str, qrels, run, queries, **kwargs):
    torch = pytest.importorskip("torch")
    retrieval = pytest.importorskip("torchmetrics.retrieval")
    preds, target, index = [], [], []
    for i, q in enumerate(queries):
        for d, s in run[q].items():
            preds.append(s)
            grade = qrels[q].get(d, 0)
            target.append(grade if cls_name == "RetrievalNormalizedDCG" else int(grade >= 1))
            index.append(i)
    metric = getattr(retrieval, cls_name)(**kwargs)
    return metric(torch.tensor(preds, dtype=torch.float64), torch.tensor(target), indexes=torch.tensor(index))


TORCH_SPECS = [
    ("RetrievalPrecision", {"top_k": 3}, "P@3"), ("RetrievalPrecision", {}, "P"),
    ("RetrievalRecall", {"top_k": 2}, "R@2"), ("RetrievalMAP", {}, "AP"),
    ("RetrievalMAP", {"top_k": 3}, "AP(denom=hits)@3"), ("RetrievalMRR", {}, "RR"),
    ("RetrievalNormalizedDCG", {"top_k": 4}, "nDCG@4"), ("RetrievalNormalizedDCG", {}, "nDCG"),
    ("RetrievalHitRate", {"top_k": 2}, "HitRate@2"), ("RetrievalFallOut", {"top_k": 3}, "FallOut@3"),
    ("RetrievalRPrecision", {}, "Rprec"), ("RetrievalAUROC", {}, "AUC"),
]


@pytest.mark.parametrize("action", ["neg", "pos", "skip"])
@pytest.mark.parametrize("cls_name,kwargs,name", TORCH_SPECS)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=datasets(grades=st.integers(0, 2), full=True))
def test_torchmetrics_conventions(cls_name, kwargs, name, action, data):
    """Every ranked doc judged and every judged doc ranked (TorchMetrics sees only the scored candidates)."""
    qrels, run = data
    queries = sorted(qrels)
    if cls_name == "RetrievalFallOut" or action != "neg":
        base = parse_measure(name)
        measure = str(base.with_params(empty_target_action=action)) if action != "neg" else name
        kwargs = dict(kwargs, empty_target_action=action)
    else:
        measure = name
    value = float(_torch_metric(cls_name, qrels, run, queries, **kwargs))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = rankmeter.evaluate(qrels, run, [measure]).mean[measure]
    assert math.isclose(ours, value, rel_tol=1e-6, abs_tol=1e-6), (measure, ours, value)


@pytest.mark.parametrize("min_precision", [0.0, 0.25, 0.5, 0.6, 1.0])
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=datasets(grades=st.integers(0, 2), full=True))
def test_torchmetrics_recall_at_fixed_precision_one_query(min_precision, data):
    """On one query TorchMetrics' curve-level maximum is the per-query value."""
    qrels, run = data
    q = sorted(qrels)[0]
    assume(any(g >= 1 for g in qrels[q].values()))
    recall, _ = _torch_metric("RetrievalRecallAtFixedPrecision", qrels, run, [q], min_precision=min_precision)
    name = f"RecallAtFixedPrecision(min_precision={min_precision})"
    got = rankmeter.evaluate({q: qrels[q]}, {q: run[q]}, [name]).mean[name]
    assert math.isclose(got, float(recall), rel_tol=1e-6, abs_tol=1e-6)


def test_empty_target_action_error_names_the_query():
    qrels = {"q1": {"a": 1}, "q2": {"b": 0}}
    run = {"q1": {"a": 1.0}, "q2": {"b": 1.0}}
    with pytest.raises(MeasureError, match=r"q2.*empty_target_action=error"):
        rankmeter.evaluate(qrels, run, ["P(empty_target_action=error)@1"])
    assert rankmeter.evaluate({"q1": {"a": 1}}, {"q1": {"a": 1.0}}, "P(empty_target_action=error)@1").mean == \
        {"P(empty_target_action=error)@1": 1.0}
    r = rankmeter.evaluate(qrels, run, ["P(empty_target_action=skip)@1", "P(empty_target_action=pos)@1", "P@1"])
    assert r.mean == {"P(empty_target_action=skip)@1": 1.0, "P(empty_target_action=pos)@1": 1.0, "P@1": 0.5}
    assert np.isnan(r.values("P(empty_target_action=skip)@1")[1])


# ------------------------------------------------------------------------------ reference implementations
REF_SPECS = [
    ("Judged", {}, None), ("Judged", {}, 3), ("Judged", {"judged_only": True}, 2),
    ("NCG", {}, None), ("NCG", {}, 3), ("NCG", {"gain": "exp"}, 5), ("NCG", {"ideal": "run"}, 3),
    ("Compat", {}, None), ("Compat", {"p": 0.7, "rel": 2}, None), ("Compat", {"normalize": False}, None),
    ("Compat", {"judged_only": True}, None),
    ("Accuracy", {}, None), ("Accuracy", {}, 4), ("Accuracy", {"rel": 2}, None),
    ("Hits", {}, None), ("Hits", {}, 3), ("HitRate", {}, 2), ("HitRate", {"rel": 3}, None),
    ("FallOut", {}, None), ("FallOut", {}, 3), ("FallOut", {"rel": 2}, 5),
    ("RecallAtFixedPrecision", {}, None), ("RecallAtFixedPrecision", {"min_precision": 0.5}, None),
    ("RecallAtFixedPrecision", {"min_precision": 0.34}, 4),
    ("DCG", {"log_base": 10.0}, 5), ("DCG", {"log_base": 3.0, "discount": "jk"}, None),
    ("nDCG", {"log_base": 1.5, "discount": "jk"}, 4),
]


@pytest.mark.parametrize("family,params,cutoff", REF_SPECS)
@SETTINGS
@given(data=datasets(), policy=st.sampled_from(["both", "qrels"]), ties=st.booleans())
def test_matches_reference(family, params, cutoff, data, policy, ties):
    """Against tests/reference (any tie order: the run is given as ranked lists when ``ties``)."""
    qrels, run = data
    if ties:
        run = {q: list(docs) for q, docs in run.items()}
    measure = rankmeter.measures.Measure.of(family, params, cutoff)
    got = _ours(qrels, run, [str(measure)], queries=policy)[str(measure)]
    fn = reference.REFERENCE[family]
    queries = list(qrels) if policy == "qrels" else [q for q in qrels if q in run]
    ref_params = dict(params, k=cutoff)
    for q in queries:
        docs = list(run.get(q, {})) if ties else reference.order_run(run.get(q, {}))
        want = fn(qrels[q], reference.rank(qrels[q], docs), ref_params)
        assert _close(got[q], want), (str(measure), q, got[q], want)


# ------------------------------------------------------------------------------ pooled AUC
@pytest.mark.parametrize("rel", [1, 2])
@SETTINGS
@given(data=datasets(), tied=st.booleans())
def test_pooled_auc_equals_sklearn_on_the_flattened_run(rel, data, tied):
    metrics = pytest.importorskip("sklearn.metrics")
    qrels, run = data
    if tied:  # few distinct scores: ties across and within queries
        run = {q: {d: round(s * 3) / 3 for d, s in docs.items()} for q, docs in run.items()}
    labels = [int(qrels[q].get(d, -1) >= rel) for q in run for d in run[q]]
    scores = [s for q in run for s in run[q].values()]
    if len(set(labels)) < 2:
        with pytest.raises(rankmeter.ParameterError, match="undefined"):
            pooled_auc(qrels, run, rel=rel)
        return
    assert _close(pooled_auc(qrels, run, rel=rel), metrics.roc_auc_score(labels, scores), 1e-12)


def test_pooled_auc_compares_scores_across_queries_per_query_auc_does_not():
    """Each query ranks its relevant doc first (per-query AUC 1), but q2's scores all sit below q1's."""
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1, "d": 0}}
    run = {"q1": {"a": 0.9, "b": 0.8}, "q2": {"c": 0.2, "d": 0.1}}
    assert rankmeter.evaluate(qrels, run, "AUC").mean["AUC"] == 1.0
    # pairs (a,b) (a,d) (c,d) in order, (c,b) not: 3/4
    assert pooled_auc(qrels, run) == 0.75
