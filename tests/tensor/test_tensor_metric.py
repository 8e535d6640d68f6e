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

sys.path.insert(0, str(Path(__file__).parents[1]))
from tests.tensor.test_tensor_forms import batches  # noqa: E402

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


def _state(library="numpy"):
    metric = Metric(["AP", "nDCG@3", "DCG@3"])
    rng = np.random.default_rng(3)
    scores, targets = rng.normal(size=(6, 5)), rng.integers(0, 3, (6, 5))
    if library == "torch":
        scores, targets = torch.from_numpy(scores), torch.from_numpy(targets)
    metric.update(scores, targets)
    return metric, metric.state_dict()


@pytest.mark.parametrize("library", ["numpy", "torch"])
def test_load_state_dict_round_trips_and_refuses_a_state_no_updates_make(library):
    metric, state = _state(library)
    want = {k: float(v) for k, v in metric.compute().items()}
    restored = Metric(["AP", "nDCG@3", "DCG@3"])
    restored.load_state_dict(state)
    assert {k: float(v) for k, v in restored.compute().items()} == want
    array = (lambda x: torch.tensor(x, dtype=torch.float64)) if library == "torch" else np.array
    six = [6.0, 6.0, 6.0]
    bad = [  # (key replaced, value, what the refusal names)
        ("sums", array([[1.0, 2.0, 3.0]] * 2),
         r"'sums' has shape \(2, 3\); .* shape \(3,\) \(one number per measure: AP, nDCG@3, DCG@3\)"),
        ("sums", array([1.0, 2.0]), r"'sums' has shape \(2,\)"),
        ("counts", array([6.0, 6.0]), r"'counts' has shape \(2,\)"),
        ("counts", array([0.5, 0.5, 0.5]), r"'counts' of AP is 0.5; a count is a whole number"),
        ("counts", array([6.0, -6.0, 6.0]), r"'counts' of nDCG@3 is -6"),
        ("counts", array([6.0, 6.0, np.inf]), r"'counts' of DCG@3 is inf"),
        ("sums", array([np.nan, 1.0, 1.0]), r"'sums' of AP is nan; a sum of values is a finite number"),
        ("sums", array([1.0, 8.034, 1.0]),
         r"'sums' of nDCG@3 is 8.034 over 6 queries; nDCG@3 lies in \[0, 1\]"),
        ("sums", array([-0.5, 1.0, 1.0]), r"'sums' of AP is -0.5 over 6"),
        ("sums", array(["a", "b", "c"]) if library == "numpy" else None, r"'sums' (holds <U1 values|is NoneType)"),
    ]
    for key, value, message in bad:
        fresh = Metric(["AP", "nDCG@3", "DCG@3"])
        with pytest.raises(ParameterError, match=message):
            fresh.load_state_dict({**state, "counts": array(six), key: value})
        assert fresh.sums is None   # nothing taken from a refused state
    zero = Metric(["AP", "nDCG@3", "DCG@3"])
    with pytest.raises(ParameterError, match=r"'sums' of AP is 1 over 0 queries"):
        zero.load_state_dict({**state, "counts": array([0.0, 6.0, 6.0]), "sums": array([1.0, 1.0, 1.0])})
    with pytest.raises(ParameterError, match="the state has no 'counts'"):
        zero.load_state_dict({"labels": state["labels"], "sums": state["sums"]})
    with pytest.raises(ParameterError, match="the state is of"):
        zero.load_state_dict({**state, "labels": ["RR"]})
    big = Metric(["AP", "nDCG@3", "DCG@3"])   # DCG is not bounded by 1: a large sum of DCG is a valid state
    big.load_state_dict({**state, "counts": array(six), "sums": array([6.0, 6.0, 30.0])})
    assert float(big.compute()["DCG@3"]) == 5.0 and float(big.compute()["nDCG@3"]) == 1.0


def test_torchmetrics_classes_check_a_loaded_state():
    pytest.importorskip("torchmetrics")
    from rankmeter.tensor.torchmetrics import RankmeterMetric, RetrievalMAP

    generic = RankmeterMetric(["AP", "nDCG@3"])
    generic.update(torch.rand(4, 6), torch.randint(0, 2, (4, 6)))
    generic.persistent(True)
    state = generic.state_dict()
    with pytest.raises(ParameterError, match="'counts' of AP is 0.5"):
        RankmeterMetric(["AP", "nDCG@3"]).load_state_dict({**state, "counts": torch.full((2,), 0.5,
                                                                                         dtype=torch.float64)})
    with pytest.raises(ParameterError, match=r"'sums' has shape \(2, 2\)"):
        RankmeterMetric(["AP", "nDCG@3"]).load_state_dict({**state, "sums": torch.ones(2, 2, dtype=torch.float64)})
    bounded = RetrievalMAP(whole_queries=True)
    bounded.update(torch.rand(4, 6), torch.randint(0, 2, (4, 6)))
    bounded.persistent(True)
    state = bounded.state_dict()
    with pytest.raises(ParameterError, match="'sums' of RetrievalMAP is 9 over 4 queries"):
        RetrievalMAP(whole_queries=True).load_state_dict({**state, "sums": torch.tensor(9.0, dtype=torch.float64)})
    restored = RetrievalMAP(whole_queries=True)
    restored.load_state_dict(state)
    restored._update_count = 1   # torchmetrics counts updates outside the state dict
    assert float(restored.compute()) == float(bounded.compute())


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
