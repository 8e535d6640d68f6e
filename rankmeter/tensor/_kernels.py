"""numpy rows through the families' own kernels: a :class:`~rankmeter.engine.batch.Batch` built from ``[B, N]``.

Every candidate is judged, so no join is needed: the ranking side is each
row's ranked candidates in rank order, the judged side every grade of the
row (plus the relevant docs outside the list ``num_relevant`` or
``ideal_targets`` declare), sorted best first as the Batch expects.
"""
from __future__ import annotations

import numpy as np

from rankmeter.tensor._ranked import Ranked
from rankmeter.engine.batch import Batch
from rankmeter.errors import MeasureError

__all__ = ["batch_of", "kernel_values"]


class _RowNames:
    """``Batch.queries`` without building B strings: row i is named ``row i`` (in error messages)."""

    def __init__(self, n: int):
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self.n))]
        return f"row {int(i)}".encode()


def _grades(values: np.ndarray) -> np.ndarray:
    """Whole-number grades as int64 (as the qrels readers give them), real ones as float64."""
    return values.astype(np.int64) if np.array_equal(values, np.floor(values)) else values.astype(np.float64)


def batch_of(ranked: Ranked) -> Batch:
    """The Batch of the rows of ``ranked`` (numpy arrays), ties averaged when ``ranked`` averages them."""
    from rankmeter.core.needs import top_value

    valid = ranked.valid
    counts = valid.sum(axis=1)
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    rel = _grades(ranked.g[valid])
    judged = np.where(ranked.judged_mask, ranked.judged, -np.inf)
    judged = -np.sort(-judged, axis=1)
    judged_counts = ranked.judged_mask.sum(axis=1)
    judged_rel = _grades(judged[np.arange(judged.shape[1])[None, :] < judged_counts[:, None]])
    tie = None
    if ranked.ties == "average":
        # as core/build.py's tie_groups: rows of one query with equal scores share a group number
        qidx = np.repeat(np.arange(ranked.rows), counts)
        score = ranked.sorted_scores[valid]
        new = np.ones(len(qidx), dtype=bool)
        new[1:] = (qidx[1:] != qidx[:-1]) | (score[1:] != score[:-1])
        tie = np.cumsum(new) - 1
    needs = {"qrels_max_grade": top_value(judged_rel.max(initial=0))}
    return Batch(queries=_RowNames(ranked.rows), offsets=offsets, rel=rel,
                 judged_offsets=np.concatenate(([0], np.cumsum(judged_counts))).astype(np.int64),
                 judged_rel=judged_rel, needs=needs, tie_group=tie)


def kernel_values(batch: Batch, m) -> np.ndarray:
    """Per-row values of measure ``m`` by its family's kernel (its closed form over tie orders if averaged)."""
    kernel = m.family.kernel
    if batch.tie_group is not None:
        if callable(m.family.tie_average):
            kernel = m.family.tie_average
        elif m.family.tie_average is None:
            raise MeasureError(f"{m}: no closed form over the orders of tied scores; use ties='input'")
    effective = m if m.get("rel") is not None else m.with_params(rel=1)
    return np.asarray(kernel(batch, effective), dtype=np.float64)
