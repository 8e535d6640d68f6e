"""Unjudged docs in the ranking: ``Unjudged@k`` (trec_eval ``unj_k``).

The fraction of the top k ranks holding a doc that has no usable judgment:
absent from the qrels, or listed with a negative grade. A ranking shorter
than k is padded with judged docs, so the count is divided by k (trec_eval's
``unj``). Without a cutoff, the fraction of the retrieved docs (0 when none).
A high value at a small k is a red flag: the judgments barely cover the run.

Examples
--------
Grades a = 2, b = 0, u = -1; the run ranks a, x, b, u and x is not in the
qrels, so x and u are unjudged: 1 of the top 2, 2 of the top 5 (the 4-doc
ranking still divides by 5), 2 of the 4 retrieved.

>>> import rankmeter
>>> qrels = {"q": {"a": 2, "b": 0, "u": -1}}
>>> rankmeter.evaluate(qrels, {"q": ["a", "x", "b", "u"]}, ["Unjudged@2", "Unjudged@5", "Unjudged"]).mean
{'Unjudged@2': 0.5, 'Unjudged@5': 0.4, 'Unjudged': 0.5}
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
                            "trec_eval unj_k)", unjudged))
