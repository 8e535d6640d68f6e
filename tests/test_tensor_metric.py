"""rankmeter.tensor.Metric: any split into batches and merges equals one call; state is two numbers per measure;
torch.distributed reduces the states of every process (two CPU processes on gloo)."""
from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankmeter.tensor import Metric, evaluate
from rankmeter.errors import MeasureError, ParameterError

sys.path.insert(0, str(Path(__file__).parent))
from test_tensor_forms import batches  # noqa: E402

NAMES = ["AP", "nDCG@3", "RR", "P@2", "R", "AUC", "ERR(max_grade=3)@5", "RBP", "AP(empty_target_action=skip)",
         "nDCG(empty_target_action=skip)"]


def _one_call(scores, targets, mask):
    """Means over the rows, NaN left out (the mean of rankmeter.evaluate's MEAN_DEFINED), from per-row values."""
    values = evaluate(scores, targets, NAMES, mask=mask)
    out = {}
    for name in NAMES:
        v = np.asarray(values[name], dtype=np.float64)
        v = v[~np.isnan(v)]
        out[name] = float(v.mean()) if len(v) else 0.0
    return out


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=batches(), splits=st.lists(st.integers(0, 7), max_size=4), library=st.sampled_from(["numpy", "torch"]))
def test_any_split_and_merge_equals_one_call(data, splits, library):
    scores, targets, mask, _ = data
    want = _one_call(scores, targets, mask)
    conv = (lambda a: a) if library == "numpy" else torch.from_numpy
    bounds = sorted({0, len(scores), *[min(s, len(scores)) for s in splits]})
    parts = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        part = Metric(NAMES)
        part.update(conv(scores[lo:hi]), conv(targets[lo:hi]), conv(mask[lo:hi]))
        parts.append(part)
    merged = Metric(NAMES)
    for part in parts:
        merged.merge(part)
    sequential = Metric(NAMES)
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        sequential.update(conv(scores[lo:hi]), conv(targets[lo:hi]), conv(mask[lo:hi]))
    for metric in (merged, sequential):
        got = metric.compute()
        for name in NAMES:
            assert math.isclose(float(got[name]), want[name], rel_tol=0, abs_tol=1e-12), (name, got[name], want[name])
            assert type(got[name]).__module__.split(".")[0] == library


def test_state_is_two_numbers_per_measure_whatever_the_batches():
    metric = Metric(["AP", "nDCG@10"])
    rng = np.random.default_rng(0)
    for _ in range(20):
        metric.update(torch.from_numpy(rng.normal(size=(50, 30))), torch.from_numpy(rng.integers(0, 3, (50, 30))))
        assert metric.sums.shape == metric.counts.shape == (2,)
    assert metric.counts.tolist() == [1000.0, 1000.0]
    metric.reset()
    with pytest.raises(ParameterError, match="before any update"):
        metric.compute()


def test_refusals():
    with pytest.raises(MeasureError, match="max_grade=4"):
        Metric("ERR@10")
    with pytest.raises(MeasureError, match="max_grade=qrels"):
        Metric("RBP(gain=graded, max_grade=qrels)")
    metric = Metric("AP")
    metric.update(np.ones((1, 2)), np.ones((1, 2)))
    with pytest.raises(ParameterError, match="numpy state"):
        metric.update(torch.ones(1, 2), torch.ones(1, 2))
    with pytest.raises(ParameterError, match="same measures"):
        metric.merge(Metric("RR"))
    with pytest.raises(MeasureError, match="row 0.*empty_target_action=error"):
        Metric("AP", empty_target_action="error").update(np.ones((1, 2)), np.zeros((1, 2)))


# ------------------------------------------------------------------ torch.distributed, two CPU processes
def _worker(rank: int, world: int, store: str, out: str):
    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=world)
    try:
        from rankmeter.tensor.torchmetrics import RetrievalMAP
        g = torch.Generator().manual_seed(0)
        scores = torch.rand(30, 12, generator=g, dtype=torch.float64)
        targets = torch.randint(0, 2, (30, 12), generator=g)
        mine = slice(0, 11) if rank == 0 else slice(11, 30)   # unequal shares: a mean of means would differ
        metric = Metric(["AP", "RR", "nDCG@5"])
        metric.update(scores[mine], targets[mine])
        reduced = {k: float(v) for k, v in metric.compute().items()}
        local = {k: float(v) for k, v in Metric(["AP", "RR", "nDCG@5"], sync_on_compute=False).merge(metric)
                 .compute().items()}
        dropin = RetrievalMAP()   # TorchMetrics' state: every prediction, gathered from every process
        ids = torch.arange(30)[:, None].expand(30, 12)
        dropin.update(scores[mine].flatten(), targets[mine].flatten(), indexes=ids[mine].flatten())
        bounded = RetrievalMAP(whole_queries=True)   # a sum and a count, all-reduced
        bounded.update(scores[mine], targets[mine])
        torch.save({"reduced": reduced, "local": local, "dropin": float(dropin.compute()),
                    "bounded": float(bounded.compute())}, f"{out}.{rank}")
    finally:
        dist.destroy_process_group()


def test_distributed_reduce_on_gloo(tmp_path):
    context = mp.spawn(_worker, args=(2, str(tmp_path / "store"), str(tmp_path / "out")), nprocs=2, join=False)
    deadline = time.monotonic() + 240
    while not context.join(timeout=5):
        if time.monotonic() > deadline:
            for process in context.processes:
                process.kill()
            pytest.fail("the two gloo processes did not finish within 240 s")
    g = torch.Generator().manual_seed(0)
    scores, targets = torch.rand(30, 12, generator=g, dtype=torch.float64), torch.randint(0, 2, (30, 12), generator=g)
    whole = Metric(["AP", "RR", "nDCG@5"])
    whole.update(scores, targets)
    want = {k: float(v) for k, v in whole.compute().items()}
    positive_map = Metric("AP(denom=hits)", positive_scores_only=True)
    positive_map.update(scores, targets)
    results = [torch.load(tmp_path / f"out.{rank}") for rank in range(2)]
    for result in results:
        for name, value in want.items():
            assert math.isclose(result["reduced"][name], value, abs_tol=1e-12)
        for state in ("dropin", "bounded"):   # TorchMetrics' float32
            assert math.isclose(result[state], float(positive_map.compute()["AP(denom=hits)"]), abs_tol=1e-6)
    assert results[0]["local"] != results[1]["local"]   # each process alone sees only its share
    assert not dist.is_initialized()   # the test process itself never joined the group
