"""Differential sweep: every TorchMetrics 1.9 retrieval class, with every argument, against its drop-in.

For each class of ``torchmetrics.retrieval`` (the oracle), every combination of its arguments
(``empty_target_action`` x ``aggregation`` (mean, median, min, max, a callable) x ``ignore_index``
x the class's own: ``top_k``, ``adaptive_k``, ``max_fpr``, ``max_k``, ``min_precision``) runs on
seeded random inputs built to hit what differs between implementations: scores rounded to a few
values (ties, inside queries longer than 16 candidates, where torch's sort stops keeping input
order), scores <= 0, queries without a relevant or without a non-relevant candidate, one query's
candidates spread over several updates in shuffled order, 2-D inputs, float64 scores. The drop-in
must give TorchMetrics' value (1e-6) or raise the same error. ``whole_queries=True`` is swept
apart, on queries that arrive whole with distinct scores.
"""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
import torch
import torchmetrics.retrieval as tm

from rankmeter.tensor import torchmetrics as ours


def _square_mean(values, dim=None):
    return (values ** 2).mean() if dim is None else (values ** 2).mean(dim=dim)


AGGREGATIONS = ["mean", "median", "min", "max", _square_mean]
ACTIONS = ["neg", "pos", "skip", "error"]
IGNORE = 7   # a target value marked to be ignored
#: each class's own arguments and the values swept (None: the default)
OWN = {
    "RetrievalMAP": {"top_k": [None, 1, 3, 40]},
    "RetrievalMRR": {"top_k": [None, 1, 3, 40]},
    "RetrievalPrecision": {"top_k": [None, 1, 3, 40], "adaptive_k": [False, True]},
    "RetrievalRecall": {"top_k": [None, 1, 3, 40]},
    "RetrievalHitRate": {"top_k": [None, 1, 3, 40]},
    "RetrievalFallOut": {"top_k": [None, 1, 3, 40]},
    "RetrievalRPrecision": {},
    "RetrievalNormalizedDCG": {"top_k": [None, 1, 3, 40]},
    "RetrievalAUROC": {"top_k": [None, 3, 40], "max_fpr": [None, 0.3, 1.0]},
    "RetrievalPrecisionRecallCurve": {"max_k": [None, 2, 40], "adaptive_k": [False, True]},
    "RetrievalRecallAtFixedPrecision": {"max_k": [None, 2, 40], "adaptive_k": [False, True],
                                        "min_precision": [0.0, 0.4]},
}
SEEDS = range(3)


def _inputs(seed: int, *, graded: bool, ignore: bool):
    """Flat preds, target, indexes and the updates to feed them in (each a tuple of tensors)."""
    rng = np.random.default_rng(seed)
    queries = int(rng.integers(2, 7))
    lengths = rng.integers(1, 40, queries)
    ids = np.repeat(rng.choice(1000, queries, replace=False), lengths)
    n = len(ids)
    preds = np.round(rng.normal(size=n) * 1.5) / 2          # ties (a few values), negative and zero scores
    kind = rng.integers(0, 4, queries)                      # 0: random, 1: none relevant, 2: all relevant
    per = np.repeat(kind, lengths)
    target = rng.integers(-1 if graded else 0, 4 if graded else 2, n)
    target = np.where(per == 1, 0, np.where(per == 2, 1, target))
    if ignore:
        target = np.where(rng.random(n) < 0.2, IGNORE, target)
    order = rng.permutation(n) if seed % 2 else np.arange(n)   # a query's candidates over several updates
    preds, target, ids = (torch.from_numpy(a[order]) for a in (preds, target, ids))
    if seed % 3 == 1:
        preds = preds.float()
    bounds = sorted({0, n, *rng.integers(1, n, 2).tolist()})
    updates = [(preds[a:b], target[a:b], ids[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
    if seed % 3 == 2 and n % 2 == 0:   # 2-D inputs, flattened by both
        updates = [tuple(x.reshape(2, -1) for x in (preds, target, ids))]
    return updates


def _run(cls, kwargs, updates):
    metric = cls(**kwargs)
    try:
        for preds, target, ids in updates:
            metric.update(preds, target, indexes=ids)
        return metric.compute()
    except ValueError as error:
        return ("ValueError", str(error))


def _same(ours_value, want) -> bool:
    if isinstance(want, tuple) and want and want[0] == "ValueError":
        return ours_value == want
    if isinstance(want, tuple):
        return isinstance(ours_value, tuple) and len(ours_value) == len(want) and all(
            _same(a, b) for a, b in zip(ours_value, want))
    return (isinstance(ours_value, torch.Tensor) and ours_value.shape == want.shape
            and ours_value.dtype == want.dtype
            and torch.allclose(ours_value.double(), want.double(), atol=1e-6, rtol=1e-6, equal_nan=True))


def _combinations(name: str):
    """(arguments, seeds): every combination; the mean on every seed, the other aggregations (which read
    the same per-query values) on one seed each, in turn (CI's time)."""
    own = OWN[name]
    combos = itertools.product(ACTIONS, AGGREGATIONS, [None, IGNORE], itertools.product(*own.values()))
    for number, (action, aggregation, ignore, values) in enumerate(combos):
        kwargs = dict(zip(own, values), empty_target_action=action, ignore_index=ignore, aggregation=aggregation)
        yield kwargs, SEEDS if aggregation == "mean" else [SEEDS[number % len(SEEDS)]]


@pytest.mark.parametrize("name", sorted(OWN))
def test_every_argument_gives_torchmetrics_value(name):
    assert sorted(OWN) == sorted(tm.__all__)   # every class TorchMetrics has
    graded = name == "RetrievalNormalizedDCG"
    cases = {(seed, ignore): _inputs(seed, graded=graded, ignore=ignore) for seed in SEEDS for ignore in (False, True)}
    checked, wrong = 0, []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for kwargs, seeds in _combinations(name):
            for seed in seeds:
                updates = cases[seed, kwargs["ignore_index"] is not None]
                want = _run(getattr(tm, name), kwargs, updates)
                got = _run(getattr(ours, name), kwargs, updates)
                checked += 1
                if not _same(got, want):
                    wrong.append((kwargs, seed, got, want))
    assert checked >= 40 and not wrong, f"{len(wrong)} of {checked} differ, e.g. {wrong[:3]}"


@pytest.mark.parametrize("name", sorted(OWN))
def test_whole_queries_give_torchmetrics_value(name):
    """``whole_queries=True`` (bounded state), queries arriving whole, distinct scores: TorchMetrics' values."""
    rng = np.random.default_rng(11)
    graded = name == "RetrievalNormalizedDCG"
    lengths = rng.integers(1, 30, 12)
    ids = torch.from_numpy(np.repeat(rng.choice(10 ** 6, 12, replace=False), lengths))
    preds = torch.from_numpy(rng.normal(size=len(ids))).float()
    target = torch.from_numpy(rng.integers(0, 4 if graded else 2, len(ids)))
    starts = np.r_[0, np.cumsum(lengths)]
    updates = [(preds[a:b], target[a:b], ids[a:b]) for a, b in zip(starts[:-1:4], list(starts[4::4]) + [len(ids)])]
    own = {k: v[-1] for k, v in OWN[name].items()}
    if "max_k" in own:
        own["max_k"] = 40
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for aggregation, action in itertools.product(["mean", "median", _square_mean], ["neg", "pos", "skip"]):
            kwargs = dict(own, empty_target_action=action, aggregation=aggregation)
            want = _run(getattr(tm, name), kwargs, updates)
            got = _run(getattr(ours, name), dict(kwargs, whole_queries=True), updates)
            assert _same(got, want), (kwargs, got, want)
