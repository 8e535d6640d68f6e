"""Judgment coverage of the ranking: ``Unjudged@k`` (trec_eval ``unj_k``) and ``Judged@k`` (ir_measures).

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

``Judged@k`` is ir_measures' measure: the share of the top min(k, retrieved)
docs that the qrels list (any grade, negative ones included), 0 for an empty
ranking. Here a, b and u are listed: 3 of the 4 retrieved, 1 of the top 2.

>>> rankmeter.evaluate(qrels, {"q": ["a", "x", "b", "u"]}, ["Judged@2", "Judged@10"]).mean
{'Judged@2': 0.5, 'Judged@10': 0.75}
"""
from __future__ import annotations

import numpy as np

from rankmeter.measures.base import Family, register


def unjudged(batch, m) -> np.ndarray:
    """Unjudged docs in the top k / k (/ docs retrieved without a cutoff)."""
    # counted as the ranks shown less the judged ones: judged docs are few, unjudged ones many
    if m.cutoff is None:
        out = np.zeros(batch.nq)
        unjudged = batch.num_ret - batch.per_query_count(batch.judged_mask)
        np.divide(unjudged, batch.num_ret, out=out, where=batch.num_ret > 0)
        return out
    return (np.minimum(batch.num_ret, m.cutoff) - batch.count_upto(batch.judged_mask, m.cutoff)) / m.cutoff


register(Family("Unjudged", "fraction of the top k that is unjudged (not in the qrels or a negative grade; "
                            "trec_eval unj_k)", unjudged, tie_average="kernel"))


def judged(batch, m) -> np.ndarray:
    """Docs listed in the qrels among the top min(k, retrieved), over min(k, retrieved); 0 when empty."""
    listed = batch.listed_mask
    if m.cutoff is None:
        found, shown = batch.per_query_count(listed), batch.num_ret
    else:
        found, shown = batch.count_upto(listed, m.cutoff), np.minimum(batch.num_ret, m.cutoff)
    out = np.zeros(batch.nq)
    np.divide(found, shown, out=out, where=shown > 0)
    return out


register(Family("Judged", "share of the top min(k, retrieved) docs listed in the qrels, any grade (ir_measures "
                          "Judged@k)", judged, tie_average="kernel"))
