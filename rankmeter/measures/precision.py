"""Precision: ``P@k`` (trec_eval ``P_k``) and ``P`` without cutoff (trec_eval ``set_P``).

P@k divides by k even when fewer than k docs were retrieved (trec_eval).
"""
from __future__ import annotations

import numpy as np

from .base import Family, level_of, register


def precision(batch, m) -> np.ndarray:
    is_rel = batch.is_rel(level_of(batch, m))
    if m.cutoff is None:
        hits = batch.per_query_count(is_rel)
        out = np.zeros(batch.nq)
        np.divide(hits, batch.num_ret, out=out, where=batch.num_ret > 0)
        return out
    return batch.count_upto(is_rel, m.cutoff) / m.cutoff


register(Family("P", "precision: relevant in the top k / k (no k: relevant retrieved / retrieved)", precision))
