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
    rows, flat = ours.RetrievalMAP(whole_queries=True), ours.RetrievalMAP(whole_queries=True)
    rows.update(preds, target)
    flat.update(preds.flatten(), target.flatten(), indexes=ids)
    assert torch.equal(rows.sums, flat.sums) and torch.equal(rows.counts, flat.counts)
    assert float(rows.compute()) == pytest.approx(float(tm.RetrievalMAP()(preds.flatten(), target.flatten(),
                                                                            indexes=ids)), abs=1e-6)


def test_padded_rows_take_a_mask():
    preds, target = torch.tensor([[0.9, 0.5, 0.1], [0.3, 0.2, 0.7]]), torch.tensor([[0, 1, 0], [1, 0, 1]])
    mask = torch.tensor([[True, True, True], [True, True, False]])    # the second query has 2 candidates
    ids = torch.tensor([0, 0, 0, 1, 1])
    want = tm.RetrievalMAP()(preds[mask], target[mask], indexes=ids)
    got = ours.RetrievalMAP(whole_queries=True)
    got.update(preds, target, mask=mask)
    assert float(got.compute()) == pytest.approx(float(want)) == pytest.approx((1 / 2 + 1) / 2)
    with pytest.raises(ParameterError, match="whole_queries"):
        ours.RetrievalMAP().update(preds.flatten(), target.flatten(), indexes=ids, mask=mask.flatten())


def test_bounded_state_does_not_grow_and_resets():
    metric = ours.RetrievalNormalizedDCG(top_k=5, whole_queries=True)
    sizes = []
    for seed in range(5):
        g = torch.Generator().manual_seed(seed)
        metric.update(torch.rand(64, 20, generator=g), torch.randint(0, 3, (64, 20), generator=g))
        sizes.append(sum(s.numel() for s in (metric.sums, metric.counts)))
    assert sizes == [2] * 5 and float(metric.counts) == 5 * 64
    metric.reset()
    assert float(metric.counts) == 0.0


def test_ties_are_broken_as_torchmetrics_breaks_them():
    # the issue's example: TorchMetrics' topk puts the relevant one of four equal scores first (MRR 1.0)
    preds, target, ids = torch.tensor([.5, .5, .5, .5]), torch.tensor([0, 0, 1, 0]), torch.zeros(4, dtype=torch.long)
    for name in ("RetrievalMRR", "RetrievalMAP"):
        want = getattr(tm, name)()(preds, target, indexes=ids)
        assert float(getattr(ours, name)()(preds, target, indexes=ids)) == float(want)
    # rankmeter's policies on request: input order (1/3), the expected value over the orders (MRR 0.5208)
    assert float(ours.RetrievalMRR(ties="input")(preds, target, indexes=ids)) == pytest.approx(1 / 3)
    assert float(ours.RetrievalMRR(ties="average")(preds, target, indexes=ids)) == pytest.approx(
        (1 + 1 / 2 + 1 / 3 + 1 / 4) / 4)
    with pytest.raises(ParameterError, match="average"):
        ours.RetrievalMAP(ties="average")


def test_an_epoch_of_rounded_scores_gives_torchmetrics_mrr():
    # the epoch: scores rounded to 0.1, queries of 30-60 candidates (past 16, torch's sort is unstable)
    g = torch.Generator().manual_seed(3)
    lengths = torch.randint(30, 60, (200,), generator=g)
    ids = torch.repeat_interleave(torch.arange(200), lengths)
    preds = torch.round(torch.rand(len(ids), generator=g) * 10) / 10
    target = (torch.rand(len(ids), generator=g) < 0.05).long()
    for name in ("RetrievalMRR", "RetrievalMAP", "RetrievalRecall", "RetrievalPrecision", "RetrievalHitRate"):
        want, got = getattr(tm, name)(top_k=10), getattr(ours, name)(top_k=10)
        for part in torch.arange(len(ids)).chunk(7):
            want.update(preds[part], target[part], indexes=ids[part])
            got.update(preds[part], target[part], indexes=ids[part])
        assert float(got.compute()) == pytest.approx(float(want.compute()), abs=1e-6), name


def test_a_query_spread_over_updates_is_one_query():
    rng = np.random.default_rng(2)
    ids = torch.from_numpy(rng.integers(0, 20, 400))      # every update holds a part of every query
    preds, target = torch.from_numpy(rng.random(400)).float(), torch.from_numpy(rng.integers(0, 3, 400))
    want, got = tm.RetrievalNormalizedDCG(), ours.RetrievalNormalizedDCG()
    for part in torch.arange(400).chunk(8):
        want.update(preds[part], target[part], indexes=ids[part])
        got.update(preds[part], target[part], indexes=ids[part])
    assert float(got.compute()) == pytest.approx(float(want.compute()), abs=1e-6)


def test_precision_drops_a_query_whose_candidates_are_all_ignored():
    preds, ids = torch.tensor([0.9, 0.8, 0.7, 0.6, 0.5]), torch.tensor([0, 0, 0, 1, 1])
    target = torch.tensor([1, 0, 0, -1, -1])          # query 1: every candidate ignored
    want = tm.RetrievalPrecision(ignore_index=-1)(preds, target, indexes=ids)
    got = ours.RetrievalPrecision(ignore_index=-1)(preds, target, indexes=ids)
    assert float(got) == pytest.approx(float(want)) == pytest.approx(1 / 3)


def test_compute_before_update_raises_as_torchmetrics_does():
    for name in tm.__all__:
        with pytest.raises(ValueError) as theirs, pytest.warns(UserWarning, match="before the ``update``"):
            getattr(tm, name)().compute()
        with pytest.raises(ValueError, match=str(theirs.value)), pytest.warns(UserWarning, match="before"):
            getattr(ours, name)().compute()
    with pytest.raises(ValueError, match="No samples"), pytest.warns(UserWarning):
        ours.RetrievalMAP(whole_queries=True).compute()


def _fed(metric):
    g = torch.Generator().manual_seed(0)
    metric.update(torch.rand(30, generator=g), torch.randint(0, 2, (30,), generator=g),
                  indexes=torch.randint(0, 4, (30,), generator=g))
    return metric


def _value(result):
    return [float(x) for x in (result if isinstance(result, tuple) else (result,)) for x in x.flatten()]


@pytest.mark.parametrize("whole", [False, True])
def test_every_class_pickles_copies_and_round_trips_a_state_dict(whole):
    import copy
    import pickle
    for name in tm.__all__:
        kwargs = {"whole_queries": whole, **({"max_k": 5} if "Precision" in name and "Retrieval" in name
                                             and ("Curve" in name or "Fixed" in name) else {})}
        metric = _fed(getattr(ours, name)(**kwargs))
        want = _value(metric.compute())
        for clone in (pickle.loads(pickle.dumps(metric)), copy.deepcopy(metric), metric.clone()):
            assert _value(clone.compute()) == want, name
        metric.persistent(True)
        restored = getattr(ours, name)(**kwargs)
        restored.load_state_dict(metric.state_dict())
        restored._update_count = 1   # torchmetrics counts updates outside the state dict
        assert _value(restored.compute()) == want, name
    generic = ours.RankmeterMetric(["AP", "nDCG@3"])
    generic.update(torch.rand(4, 6), torch.randint(0, 2, (4, 6)))
    assert {k: float(v) for k, v in pickle.loads(pickle.dumps(generic)).compute().items()} == \
        {k: float(v) for k, v in generic.compute().items()}


def test_constructor_conventions_are_validated():
    with pytest.raises(ValueError, match="`top_k` has to be a positive integer or None"):
        ours.RetrievalRecall(top_k=0)
    with pytest.raises(ValueError, match="empty_target_action"):
        ours.RetrievalMAP(empty_target_action="drop")
    with pytest.raises(ValueError, match="adaptive_k"):
        ours.RetrievalPrecision(top_k=3, adaptive_k=1)
    with pytest.raises(ValueError, match="aggregation"):
        ours.RetrievalMAP(aggregation="mode")
    with pytest.raises(ValueError, match="`indexes` cannot be None"):
        ours.RetrievalMAP().update(torch.rand(5), torch.ones(5, dtype=torch.long))
    with pytest.raises(ParameterError, match="ties"):
        ours.RetrievalMRR(ties="random")
    with pytest.raises(ParameterError, match="max_k"):
        ours.RetrievalPrecisionRecallCurve(whole_queries=True)
    with pytest.raises(MeasureError, match="max_grade"):
        ours.RankmeterMetric("ERR@10")
    assert set(ours.RankmeterMetric(["ERR(max_grade=3)@10", "AP"]).labels) == {"ERR(max_grade=3)@10", "AP"}


@pytest.mark.parametrize("name", ["RetrievalMRR", "RetrievalPrecision", "RetrievalRecall", "RetrievalRPrecision",
                                  "RetrievalNormalizedDCG"])
def test_every_tie_policy_agrees_without_ties(name):
    """ties='input' and 'average' (rankmeter's measures through rankmeter.tensor.evaluate) differ from
    TorchMetrics only on equal scores: on distinct ones all three give TorchMetrics' value."""
    rng = np.random.default_rng(9)
    ids = torch.from_numpy(np.repeat(np.arange(15), rng.integers(1, 30, 15)))
    preds = torch.from_numpy(rng.normal(size=len(ids))).float()
    target = torch.from_numpy(rng.integers(0, 3 if name == "RetrievalNormalizedDCG" else 2, len(ids)))
    kwargs = {} if name == "RetrievalRPrecision" else {"top_k": 5}
    want = float(getattr(tm, name)(**kwargs)(preds, target, indexes=ids))
    for ties in ("torchmetrics", "input", "average"):
        got = float(getattr(ours, name)(ties=ties, **kwargs)(preds, target, indexes=ids))
        assert got == pytest.approx(want, abs=1e-6), ties
