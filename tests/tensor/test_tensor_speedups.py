"""The shortcuts of the tensor path's dense form give the values of the long way, bit for bit.

* a batch scored in blocks of rows (the numpy route, ``_xp.BLOCK_ELEMENTS``)
  equals the batch in one piece, batch-wide quantities (ERR's highest grade)
  and ``empty_target_action="error"``'s row numbers included;
* under ``ties="average"`` a cutoff measure sorts the top k+1 ranks only, and
  every rank when a tied group crosses rank k;
* the first relevant rank (RR, Success) without a sort, with and without a
  tie at the best relevant score;
* TorchMetrics' flat form read as a reshape only when the ids allow it;
* the numpy adapter's branch-free operations equal ``np.where``.
"""
from __future__ import annotations

import sys
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankmeter.tensor import SUPPORTED, _xp, evaluate
from rankmeter.tensor._evaluate import evaluate_planned
from rankmeter.tensor._inputs import plan_measures, prepare
from rankmeter.tensor._ranked import Ranked
from rankmeter.errors import MeasureError
from rankmeter.measures import REGISTRY

sys.path.insert(0, str(Path(__file__).parents[1]))
from tests.tensor.test_tensor_forms import batches, variants  # noqa: E402


def _identical(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and np.array_equal(a, b, equal_nan=True)


def blocks_of(elements: int):
    return mock.patch.object(_xp, "BLOCK_ELEMENTS", elements)


def _dense(scores, targets, planned, ties, **extra):
    """The dense form on torch CPU tensors (the numpy route), as numpy arrays."""
    tensors = {k: torch.from_numpy(v) if isinstance(v, np.ndarray) else v for k, v in extra.items()}
    out = evaluate_planned(prepare(torch.from_numpy(scores), torch.from_numpy(targets), **tensors), planned, ties)
    return {label: v.numpy() for label, v in out.items()}


@pytest.mark.parametrize("ties", ["input", "average"])
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=batches(), positive_only=st.booleans(), float32=st.booleans())
def test_blocks_of_rows_equal_one_piece(ties, data, positive_only, float32):
    scores, targets, mask, _ = data
    scores = np.concatenate([scores] * 3)   # more rows than a block
    targets, mask = np.concatenate([targets] * 3), np.concatenate([mask] * 3)
    if float32:
        scores = scores.astype(np.float32)
    names = [n for n in sorted(SUPPORTED) if ties == "input" or REGISTRY[n].tie_average is not None]
    planned = [(str(m), m) for n in names for m in variants(n, average=ties == "average")]
    whole = _dense(scores, targets, planned, ties, mask=mask, positive_scores_only=positive_only)
    with blocks_of(2 * scores.shape[1]):   # blocks of 2 rows
        blocked = _dense(scores, targets, planned, ties, mask=mask, positive_scores_only=positive_only)
    for label, _ in planned:
        assert _identical(whole[label], blocked[label]), label


def test_blocks_report_the_batch_rows_an_error_refuses():
    scores = torch.tensor([[0.3, 0.2]] * 6)
    targets = torch.tensor([[1, 0], [1, 0], [1, 0], [0, 0], [1, 1], [0, 0]])
    with blocks_of(4), pytest.raises(MeasureError, match=r"2 queries have no relevant doc \(e\.g\. row 3, row 5\)"):
        evaluate(scores, targets, "AP", empty_target_action="error")


def test_blocks_share_the_batch_highest_grade():
    scores = torch.tensor([[0.9, 0.1], [0.8, 0.2]])
    targets = torch.tensor([[1, 0], [4, 0]])   # ERR's g_max: 4, from the second row
    whole = evaluate(scores, targets, ["ERR", "RBP(gain=graded,max_grade=qrels)"])
    with blocks_of(2):
        blocked = evaluate(scores, targets, ["ERR", "RBP(gain=graded,max_grade=qrels)"])
    for label in whole:
        assert torch.equal(whole[label], blocked[label]), label
    assert float(blocked["ERR"][0]) == pytest.approx((2 ** 1 - 1) / 2 ** 4)


def _sorted_ranks(scores, targets, label, ties="average"):
    planned = plan_measures(label, ties=ties)
    inputs = prepare(torch.from_numpy(scores).float(), torch.from_numpy(targets))
    ranked = Ranked(inputs, ties, planned[0][1].cutoff)
    values = evaluate_planned(inputs, planned, ties)[label].numpy()
    kernels = evaluate_planned(prepare(scores.astype(np.float32), targets), planned, ties, form="kernels")[label]
    assert np.allclose(values, kernels, atol=1e-6, rtol=0)
    return ranked.width


def test_averaged_ties_sort_past_rank_k_only_when_a_group_crosses_it():
    targets = np.array([[1, 0, 2, 0, 1, 0, 0, 1]])
    apart = np.array([[8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0]])
    assert _sorted_ranks(apart, targets, "nDCG@3") == 4   # ranks 1-3, and 4 to see no group crosses
    inside = np.array([[8.0, 7.0, 7.0, 5.0, 4.0, 4.0, 4.0, 1.0]])
    assert _sorted_ranks(inside, targets, "nDCG@3") == 4
    crossing = np.array([[8.0, 7.0, 5.0, 5.0, 5.0, 4.0, 2.0, 1.0]])   # ranks 3-5 tie
    assert _sorted_ranks(crossing, targets, "nDCG@3") == 8
    assert _sorted_ranks(crossing, targets, "P@4") == 8
    assert _sorted_ranks(crossing, targets, "P@5") == 6   # the group ends at rank 5
    assert _sorted_ranks(crossing, targets, "P@4", ties="input") == 4


def test_first_relevant_rank_breaks_a_tie_at_the_best_relevant_score_by_input_order():
    scores = torch.tensor([[0.5, 0.9, 0.9, 0.1], [0.5, 0.9, 0.9, 0.1], [0.9, 0.9, 0.2, 0.1]])
    targets = torch.tensor([[0, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 0]])
    out = evaluate(scores, targets, ["RR", "Success@1", "Success@2"])
    assert out["RR"].tolist() == [0.5, 1.0, 0.0]
    assert out["Success@1"].tolist() == [0.0, 1.0, 0.0]
    assert out["Success@2"].tolist() == [1.0, 1.0, 0.0]


@pytest.mark.parametrize("ids", [
    [0, 0, 1, 1, 2, 2],        # a reshape
    [1, 1, 0, 0],              # one length, ids descending: rows sorted by id
    [0, 0, 1, 1, 0, 0],        # an id twice
    [0, 1, 0, 1, 1, 1],        # rows that start and end on one id but hold another
    [3, 3, 3, 4],              # lengths differ
    [7] * 5000,                # one query longer than the first look at the ids
])
def test_flat_form_is_a_reshape_only_when_the_ids_allow(ids):
    rng = np.random.default_rng(len(ids))
    ids = np.array(ids)
    preds, target = rng.normal(size=len(ids)), rng.integers(0, 3, len(ids))
    names = ["AP", "RR", "nDCG@2", "P@1"]
    flat = evaluate(torch.from_numpy(preds), torch.from_numpy(target), names, indexes=torch.from_numpy(ids))
    for row, q in enumerate(np.unique(ids)):
        mine = ids == q
        want = evaluate(preds[mine][None, :], target[mine][None, :], names)
        for name in names:
            assert float(flat[name][row]) == pytest.approx(float(want[name][0]), abs=1e-12), (q, name)


def test_numpy_branch_free_operations_equal_where():
    ops = _xp.numpy_ops()
    rng = np.random.default_rng(5)
    for dtype in (np.float32, np.float64):
        x = rng.normal(size=(40, 7)).astype(dtype)
        x[rng.random(x.shape) < 0.1] = np.inf
        x[rng.random(x.shape) < 0.1] = -np.inf
        x[rng.random(x.shape) < 0.1] = -0.0
        keep = rng.random(x.shape) < 0.5
        keep[3] = False
        want = np.where(keep, x, dtype(0.0))
        got = ops.zero_unless(x, keep)
        assert got.dtype == x.dtype and np.array_equal(got, want) and np.array_equal(np.signbit(got), np.signbit(want))
        assert np.array_equal(ops.masked_max(x, keep), np.where(keep, x, -np.inf).max(axis=1))


@pytest.mark.parametrize("library", ["numpy", "torch"])
def test_rank_keys_order_as_a_stable_sort_of_the_scores(library):
    rng = np.random.default_rng(6)
    scores = rng.integers(-3, 4, (50, 9)).astype(np.float32)
    scores[rng.random(scores.shape) < 0.2] = -0.0
    scores[rng.random(scores.shape) < 0.1] = np.inf
    scores[rng.random(scores.shape) < 0.1] = -np.inf
    unranked = rng.random(scores.shape) < 0.2
    want = np.array([sorted(range(9), key=lambda c: (unranked[r, c], -scores[r, c], c)) for r in range(50)])
    ops = _xp.numpy_ops() if library == "numpy" else _xp.TorchOps(torch.zeros(1))
    conv = (lambda a: a) if library == "numpy" else torch.from_numpy
    keys = ops.rank_keys(conv(scores), conv(unranked), 4)
    got = np.asarray(ops.smallest_columns(keys, 9, 4))
    ranked_first = np.sort(unranked, axis=1)   # the unranked, in any order, after every ranked one
    assert np.array_equal(np.take_along_axis(unranked, got, axis=1), ranked_first)
    assert np.array_equal(np.where(ranked_first, -1, got), np.where(ranked_first, -1, want))
