"""rankmeter.tensor against TorchMetrics' retrieval metrics (the oracle), on random ragged batches.

Each case feeds the same flat ``preds, target, indexes`` to a torchmetrics.retrieval
class and to its drop-in from rankmeter.tensor.torchmetrics (over several
updates, each holding whole queries), and to rankmeter.tensor.evaluate /
Metric with the equivalent measure name; all must agree. TorchMetrics
computes in float32, hence the 1e-6 tolerance.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torchmetrics.retrieval as tm
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankmeter.tensor import Metric, evaluate
from rankmeter.tensor import torchmetrics as ours
from rankmeter.errors import MeasureError, ParameterError

CLASSES = {  # TorchMetrics class -> rankmeter measure (top_k appended as @k)
    "RetrievalNormalizedDCG": "nDCG", "RetrievalMAP": "AP", "RetrievalMRR": "RR",
    "RetrievalPrecision": "P", "RetrievalRecall": "R", "RetrievalHitRate": "HitRate",
}


#: TorchMetrics 1.9's MAP, MRR, precision and recall count a relevant doc only when its score is > 0
POSITIVE_ONLY = {"RetrievalMAP", "RetrievalMRR", "RetrievalPrecision", "RetrievalRecall"}


def _measure(cls_name: str, top_k):
    name = "AP(denom=hits)" if cls_name == "RetrievalMAP" else CLASSES[cls_name]
    return name if top_k is None else f"{name}@{top_k}"


@st.composite
def flat_batches(draw, *, graded: bool, tied: bool):
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    queries = draw(st.integers(1, 12))
    sizes = rng.integers(1, 10, queries)
    ids = np.repeat(rng.choice(10 ** 9, queries, replace=False), sizes)
    preds = rng.integers(0, 3, len(ids)).astype(np.float32) if tied else rng.normal(size=len(ids)).astype(np.float32)
    target = rng.integers(0, 4 if graded else 2, len(ids))
    cut = sorted(rng.choice(np.arange(1, queries), min(queries - 1, 2), replace=False)) if queries > 1 else []
    return torch.from_numpy(preds), torch.from_numpy(target), torch.from_numpy(ids), cut


def _updates(metric, preds, target, ids, cut):
    """Feed whole queries, in len(cut) + 1 updates (query boundaries at the ``cut`` query positions)."""
    starts = np.flatnonzero(np.r_[True, ids.numpy()[1:] != ids.numpy()[:-1]])
    bounds = [0] + [int(starts[c]) for c in cut] + [len(ids)]
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        metric.update(preds[lo:hi], target[lo:hi], indexes=ids[lo:hi])
    return metric.compute()


@pytest.mark.parametrize("action", ["neg", "pos", "skip"])
@pytest.mark.parametrize("top_k", [None, 1, 3])
@pytest.mark.parametrize("cls_name", sorted(CLASSES))
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_agrees_with_torchmetrics(cls_name, top_k, action, data):
    graded = cls_name == "RetrievalNormalizedDCG"
    preds, target, ids, cut = data.draw(flat_batches(graded=graded, tied=graded and data.draw(st.booleans())))
    want = float(getattr(tm, cls_name)(top_k=top_k, empty_target_action=action)(preds, target, indexes=ids))
    dropin = float(_updates(getattr(ours, cls_name)(top_k=top_k, empty_target_action=action), preds, target, ids, cut))
    assert math.isclose(dropin, want, rel_tol=1e-6, abs_tol=1e-6), (dropin, want)
    if cls_name == "RetrievalPrecision" and top_k is None:
        return  # relevant / every candidate of the query: no grammar name (P divides by those ranked)
    # the same through rankmeter.tensor's own API and the grammar's name
    ties = "average" if graded else "input"
    options = dict(empty_target_action=action, ties=ties, positive_scores_only=cls_name in POSITIVE_ONLY)
    metric = Metric(_measure(cls_name, None), top_k=top_k, **options)
    value = float(_updates(metric, preds, target, ids, cut)[_measure(cls_name, None)])
    assert math.isclose(value, want, rel_tol=1e-6, abs_tol=1e-6), (value, want)
    per_row = evaluate(preds, target, _measure(cls_name, top_k), indexes=ids, **options)[_measure(cls_name, top_k)]
    defined = per_row[~torch.isnan(per_row)]
    mean = float(defined.double().mean()) if len(defined) else 0.0
    assert math.isclose(mean, want, rel_tol=1e-6, abs_tol=1e-6)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=flat_batches(graded=False, tied=False), ignore=st.sampled_from([-1, 2]))
def test_ignore_index_agrees_with_torchmetrics(data, ignore):
    preds, target, ids, _ = data
    marked = torch.where(torch.rand(len(target), generator=torch.Generator().manual_seed(0)) < 0.3,
                         torch.tensor(ignore), target)
    for cls_name in ("RetrievalMAP", "RetrievalMRR", "RetrievalRecall"):
        want = getattr(tm, cls_name)(ignore_index=ignore)(preds, marked, indexes=ids)
        got = getattr(ours, cls_name)(ignore_index=ignore)(preds, marked, indexes=ids)
        assert math.isclose(float(got), float(want), rel_tol=1e-6, abs_tol=1e-6), cls_name


def test_rows_and_flat_form_give_the_same_state():
    rng = np.random.default_rng(5)
    preds, target = torch.from_numpy(rng.normal(size=(40, 7))), torch.from_numpy(rng.integers(0, 2, (40, 7)))
    ids = torch.arange(40).repeat_interleave(7)
    rows, flat = ours.RetrievalMAP(), ours.RetrievalMAP()
    rows.update(preds, target)
    flat.update(preds.flatten(), target.flatten(), indexes=ids)
    assert torch.equal(rows.sums, flat.sums) and torch.equal(rows.counts, flat.counts)
    assert float(rows.compute()) == pytest.approx(float(tm.RetrievalMAP()(preds.flatten(), target.flatten(),
                                                                            indexes=ids)), abs=1e-6)


def test_state_does_not_grow_and_resets():
    metric = ours.RetrievalNormalizedDCG(top_k=5)
    sizes = []
    for seed in range(5):
        g = torch.Generator().manual_seed(seed)
        metric.update(torch.rand(64, 20, generator=g), torch.randint(0, 3, (64, 20), generator=g))
        sizes.append(sum(s.numel() for s in (metric.sums, metric.counts)))
    assert sizes == [2] * 5 and float(metric.counts[0]) == 5 * 64
    metric.reset()
    assert float(metric.counts[0]) == 0.0


def test_constructor_conventions_are_validated():
    with pytest.raises(ParameterError, match="top_k"):
        ours.RetrievalMRR(top_k=0)
    with pytest.raises(ParameterError, match="empty_target_action"):
        ours.RetrievalMAP(empty_target_action="drop")
    with pytest.raises(ParameterError, match="adaptive_k"):
        ours.RetrievalPrecision(top_k=3, adaptive_k=True)
    with pytest.raises(ParameterError, match="aggregation"):
        ours.RetrievalMAP(aggregation="median")
    with pytest.raises(ParameterError, match="indexes"):
        ours.RetrievalMAP().update(torch.rand(5), torch.ones(5, dtype=torch.long))
    with pytest.raises(MeasureError, match="max_grade"):
        ours.RankmeterMetric("ERR@10")
    assert set(ours.RankmeterMetric(["ERR(max_grade=3)@10", "AP"]).labels) == {"ERR(max_grade=3)@10", "AP"}
