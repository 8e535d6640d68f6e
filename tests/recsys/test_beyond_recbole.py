"""Beyond-accuracy measures under RecBole's definitions, against RecBole's own metric code.

RecBole (installed without its dependencies: torch, ray, tensorboard ... are not needed for these) keeps
ItemCoverage, AveragePopularity, ShannonEntropy, GiniIndex and TailPercentage in
``recbole/evaluator/metrics.py``, whose ``get_*`` methods are plain numpy. That file is loaded here as
it is, with stand-ins for the three torch-bound modules it imports names from, and its methods are
called on random top-k matrices (RecBole's item ids are integers; here item ``i`` is ``"%04d" % i`` for
rankmeter, so both order items the same way).
"""
from __future__ import annotations

import importlib.util
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from rankmeter.recsys.beyond import beyond_accuracy


def _recbole_metrics():
    spec = importlib.util.find_spec("recbole")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("recbole is not installed (pip install --no-deps recbole==1.2.1)")
    path = Path(list(spec.submodule_search_locations)[0]) / "evaluator" / "metrics.py"

    class AbstractMetric:
        smaller = False

        def __init__(self, config):
            self.decimal_place = config["metric_decimal_place"]

    stubs = {
        "recbole.evaluator.base_metric": {"AbstractMetric": AbstractMetric, "TopkMetric": AbstractMetric,
                                          "LossMetric": AbstractMetric},
        "recbole.evaluator.utils": {"_binary_clf_curve": None},
        "recbole.utils": {"EvaluatorType": types.SimpleNamespace(RANKING=1, VALUE=2)},
    }
    saved = {name: sys.modules.get(name) for name in stubs}
    try:
        for name, attrs in stubs.items():
            module = types.ModuleType(name)
            module.__dict__.update(attrs)
            sys.modules[name] = module
        loaded = importlib.util.spec_from_file_location("recbole_metrics_under_test", path)
        metrics = importlib.util.module_from_spec(loaded)
        loaded.loader.exec_module(metrics)
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
    return metrics


def _case(seed: int, k: int):
    rng = np.random.default_rng(seed)
    n_items, n_users = 60, 40
    # popularity skewed so the tail rules pick real subsets; every user keeps 1..15 distinct items
    weights = rng.pareto(1.2, n_items) + 0.05
    train = {u: rng.choice(n_items, int(rng.integers(1, 16)), replace=False, p=weights / weights.sum())
             for u in range(n_users)}
    recs = np.stack([rng.choice(n_items, k, replace=False) for _ in range(n_users)])   # RecBole: users x k
    count = {}
    for items in train.values():
        for i in items:
            count[int(i)] = count.get(int(i), 0) + 1
    name = "{:04d}".format
    ours_train = {f"u{u}": [name(i) for i in items] for u, items in train.items()}
    ours_recs = {f"u{u}": [name(i) for i in row] for u, row in enumerate(recs)}
    return ours_train, ours_recs, recs, count, n_items


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("tail_ratio", [0.1, 0.3, 1, 3])
def test_recbole_metrics_equal_rankmeter(seed, tail_ratio):
    metrics = _recbole_metrics()
    k = 5
    train, recs, matrix, count, n_items = _case(seed, k)
    config = {"topk": [k], "metric_decimal_place": 12, "tail_ratio": tail_ratio}
    got = beyond_accuracy(train, recs, k=k, catalog=n_items, entropy="recbole", tail_ratio=tail_ratio)
    per_user = {m: np.array([got.per_user[m][f"u{u}"] for u in range(len(matrix))]) for m in ("arp", "aplt")}

    assert got.overall["catalog_coverage"] == pytest.approx(
        metrics.ItemCoverage(config).get_coverage(matrix, n_items), rel=1e-12)
    assert got.overall["distributional_coverage"] == pytest.approx(
        metrics.ShannonEntropy(config).get_entropy(matrix), rel=1e-12)
    assert got.overall["gini_index"] == pytest.approx(
        metrics.GiniIndex(config).get_gini(matrix, n_items), rel=1e-12)
    popularity = metrics.AveragePopularity(config)
    arp = popularity.metric_info(popularity.get_pop(matrix.astype(np.float64), count))[:, k - 1]
    assert per_user["arp"] == pytest.approx(arp, rel=1e-12)
    tail = metrics.TailPercentage(config)
    share = tail.metric_info(tail.get_tail(matrix.astype(np.float64), count))[:, k - 1]
    assert per_user["aplt"] == pytest.approx(share, rel=1e-12)
