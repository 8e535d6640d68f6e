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

from .base import ExplainParts, Family, level_of, register
from .undefined import EMPTY_TARGET, MEAN_DEFINED, with_empty_target
from .explaining import relevant_in_top


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
                explain=_explain_rr))
register(Family("Success", "1 if a relevant doc is in the top k, else 0 (trec_eval success_k)", success,
                explain=_explain_success))
