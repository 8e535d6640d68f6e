"""Measures the peers compute, against the peers themselves on random data (per query)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import rankmeter


def _case(seed):
    rng = np.random.default_rng(seed)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(-1, 3)) for j in rng.choice(25, 10, replace=False)}
             for i in range(12)}
    run = {f"q{i}": {f"d{j}": float(rng.integers(0, 50)) / 3 + j * 1e-6 for j in rng.choice(25, int(rng.integers(1, 20)),
                                                                                            replace=False)}
           for i in range(12)}
    return qrels, run


@pytest.mark.parametrize("seed", range(5))
def test_judged_equals_ir_measures(seed):
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = _case(seed)
    measures = [ir_measures.Judged @ 3, ir_measures.Judged @ 10, ir_measures.Judged @ 100]
    want = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(measures, qrels, run)}
    got = rankmeter.evaluate(qrels, run, [str(m) for m in measures])
    for name in got.names:
        for q, value in zip(got.queries, got.values(name)):
            assert value == pytest.approx(want[(q, name)], abs=1e-12), (q, name)


@pytest.mark.parametrize("seed", range(3))
def test_hits_and_hit_rate_equal_ranx(seed):
    ranx = pytest.importorskip("ranx")
    qrels, run = _case(seed)
    positive = {q: {d: g for d, g in docs.items() if g > 0} for q, docs in qrels.items()}
    positive = {q: docs for q, docs in positive.items() if docs}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = ranx.evaluate(ranx.Qrels(positive), ranx.Run({q: run[q] for q in positive}),
                             ["hits@5", "hit_rate@5", "hits@10"], return_mean=False)
        got = rankmeter.evaluate(positive, {q: run[q] for q in positive}, ["hits@5", "hit_rate@5", "hits@10"])
    for name in got.names:
        assert got.values(name, order="bytes").tolist() == pytest.approx(list(want[name]), abs=1e-12), name  # ranx: ids sorted
