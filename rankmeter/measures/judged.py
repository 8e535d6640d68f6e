"""Unjudged docs in the ranking: ``Unjudged@k`` (trec_eval ``unj_k``).

The fraction of the top k ranks holding a doc that has no usable judgment:
absent from the qrels, or listed with a negative grade. A ranking shorter
than k is padded with judged docs, so the count is divided by k (trec_eval's
``unj``). Without a cutoff, the fraction of the retrieved docs (0 when none).
A high value at a small k is a red flag: the judgments barely cover the run.
"""
from __future__ import annotations

import numpy as np

from .base import Family, register


def unjudged(batch, m) -> np.ndarray:
    """Unjudged docs in the top k / k (/ docs retrieved without a cutoff)."""
    mask = batch.rel < 0
    if m.cutoff is None:
        out = np.zeros(batch.nq)
        np.divide(batch.per_query_count(mask), batch.num_ret, out=out, where=batch.num_ret > 0)
        return out
    return batch.count_upto(mask, m.cutoff) / m.cutoff


register(Family("Unjudged", "fraction of the top k that is unjudged (not in the qrels or a negative grade; "
                            "trec_eval unj_k)", unjudged, trec_uses_level=False))
