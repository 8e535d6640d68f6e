"""Reciprocal rank and success: ``RR``, ``RR@k`` and ``Success@k``.

``RR`` is trec_eval's ``recip_rank``: 1 / rank of the first relevant doc, 0
when none is retrieved; with a cutoff (``RR@10``, MS MARCO's MRR@10) a first
relevant doc below rank k also scores 0. ``Success@k`` is trec_eval's
``success_k``: 1 when a relevant doc is in the top k, else 0; without a
cutoff, 1 when any relevant doc is retrieved.

Examples
--------
MEASURES.md S2: first relevant doc at ranks 3, 2, 1; MRR = (1/3 + 1/2 + 1) / 3.

>>> import rankmeter
>>> qrels = {"q1": {"r": 1}, "q2": {"r": 1}, "q3": {"r": 1}}
>>> run = {"q1": ["a", "b", "r"], "q2": ["a", "r", "b"], "q3": ["r", "a", "b"]}
>>> r = rankmeter.evaluate(qrels, run, ["RR", "RR@2", "Success@1", "Success@2"])
>>> for name, value in r.mean.items():
...     print(f"{name:<11}{value:.4f}")
RR         0.6111
RR@2       0.5000
Success@1  0.3333
Success@2  0.6667
"""
from __future__ import annotations

import numpy as np

from rankmeter.measures.base import ExplainParts, Family, level_of, register
from rankmeter.measures.undefined import EMPTY_TARGET, MEAN_DEFINED, with_empty_target
from rankmeter.measures.explaining import relevant_in_top


def reciprocal_rank(batch, m) -> np.ndarray:
    """1 / rank of the first relevant doc (within the cutoff), else 0."""
    first = batch.first_rank(batch.is_rel(level_of(batch, m)))
    hit = first > 0
    if m.cutoff is not None:
        hit &= first <= m.cutoff
    out = np.zeros(batch.nq)
    np.divide(1.0, first, out=out, where=hit)
    return out


def success(batch, m) -> np.ndarray:
    """1.0 when a relevant doc is in the top k (anywhere without a cutoff), else 0.0."""
    is_rel = batch.is_rel(level_of(batch, m))
    hits = batch.per_query_count(is_rel) if m.cutoff is None else batch.count_upto(is_rel, m.cutoff)
    return (hits > 0).astype(np.float64)


def _first_relevant_chances(batch, m) -> tuple[np.ndarray, np.ndarray]:
    """Over the orders of tied docs: (flat rows, chance that the first relevant doc is there).

    Only each query's first tied group holding a relevant doc matters. With t
    docs, r of them relevant, the first relevant one is past the group's
    i-th rank (0-based) with chance prod_{j <= i} (t - r - j) / (t - j)
    (McSherry and Najork 2008), so exactly at it with the difference of two
    such products.
    """
    level = level_of(batch, m)
    relevant = batch.is_rel(level).astype(np.float64)
    group, start, size = batch.tie_layout()
    r = np.bincount(group, weights=relevant)[group]
    before = batch.rel_seen(level)[start] - relevant[start]
    rows = np.flatnonzero((r > 0) & (before == 0))
    t, k, i = size[rows], r[rows], rows - start[rows]
    factor = (t - k - i) / (t - i)
    logs = np.log(np.where(factor > 0, factor, 1.0))
    total = np.cumsum(logs)
    head = i == 0
    base = np.repeat(total[head] - logs[head], np.diff(np.append(np.flatnonzero(head), len(rows))))
    past = np.where(factor > 0, np.exp(total - base), 0.0)   # chance the first relevant is past rank i
    at_or_past = np.r_[1.0, past[:-1]] if len(rows) else past
    at_or_past[head] = 1.0
    return rows, at_or_past - past


def _rr_over_tie_orders(batch, m) -> np.ndarray:
    rows, chance = _first_relevant_chances(batch, m)
    rank = batch.rank[rows]
    keep = np.ones(len(rows), bool) if m.cutoff is None else rank <= m.cutoff
    return np.bincount(batch.qidx[rows][keep], weights=(chance / rank)[keep], minlength=batch.nq)


def _success_over_tie_orders(batch, m) -> np.ndarray:
    if m.cutoff is None:
        return success(batch, m)  # any relevant doc retrieved: no order matters
    rows, chance = _first_relevant_chances(batch, m)
    keep = batch.rank[rows] <= m.cutoff
    return np.minimum(np.bincount(batch.qidx[rows][keep], weights=chance[keep], minlength=batch.nq), 1.0)


def _explain_rr(batch, m, label: str) -> ExplainParts:
    is_rel = relevant_in_top(batch, m, level_of(batch, m))
    hit = np.flatnonzero(is_rel)
    where = "" if m.cutoff is None else f" in the top {m.cutoff}"
    formula = (f"{label} = 1/{hit[0] + 1} = {1.0 / (hit[0] + 1):.4f}  (first relevant doc at rank {hit[0] + 1})"
               if len(hit) else f"{label} = 0  (no relevant doc{where})")
    return ExplainParts(["relevant"], [[bool(r)] for r in is_rel], [formula])


def _explain_success(batch, m, label: str) -> ExplainParts:
    is_rel = relevant_in_top(batch, m, level_of(batch, m))
    found = int(is_rel.sum())
    where = "retrieved" if m.cutoff is None else f"in the top {m.cutoff}"
    return ExplainParts(["relevant", "relevant so far"], [[bool(r), int(s)] for r, s in zip(is_rel, np.cumsum(is_rel))],
                        [f"{label} = {int(found > 0)}  ({found} relevant {where})"])


register(Family("RR", "reciprocal rank of the first relevant doc (within k), 0 if none (trec_eval recip_rank)",
                with_empty_target(reciprocal_rank), params=(EMPTY_TARGET,), aggregation=MEAN_DEFINED,
                explain=_explain_rr, tie_average=with_empty_target(_rr_over_tie_orders)))
register(Family("Success", "1 if a relevant doc is in the top k, else 0 (trec_eval success_k)", success,
                explain=_explain_success, tie_average=_success_over_tie_orders))
