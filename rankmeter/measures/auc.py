"""Area under the ROC curve of one ranking: ``AUC``.

Per query, over the retrieved docs plus the judged docs that were not
retrieved (these tie with each other below every retrieved doc): the fraction
of (relevant, non-relevant) pairs in which the relevant doc is ranked higher,
a tie counting 1/2. Relevant means grade >= ``rel``; unjudged retrieved docs
count as non-relevant, unjudged docs that were not retrieved (docs with a
negative grade in the qrels) are left out. A query with no relevant or no
non-relevant doc scores 0. The summary is the plain mean over queries.

Examples
--------
>>> import rankmeter
>>> qrels = {"q": {"a": 1, "b": 0, "c": 1, "d": 0, "e": 0, "f": 1}}
>>> round(rankmeter.evaluate(qrels, {"q": ["a", "b", "x", "c"]}, "AUC")["AUC"], 4)
0.5833

Relevant a, c, f against non-relevant b, x (unjudged), d, e: a beats 4, c beats
d and e, f ties d and e below the ranking (2 x 1/2): 7 of 12 pairs.
"""
from __future__ import annotations

import numpy as np

from .base import Family, level_of, register


def auc(batch, m) -> np.ndarray:
    """Fraction of correctly ordered (relevant, non-relevant) pairs per query."""
    level = level_of(batch, m)
    is_rel = batch.is_rel(level)
    nonrel = ~is_rel
    nonrel_ret = batch.per_query_count(nonrel)
    rel_ret = batch.num_ret - nonrel_ret
    judged_nonrel_ret = batch.per_query_count(nonrel & (batch.rel >= 0))
    # Judged, not retrieved: they form one tied group at the bottom.
    rel_left = batch.num_rel(level) - rel_ret
    nonrel_left = batch.num_judged_nonrel(level) - judged_nonrel_ret
    # A retrieved relevant doc beats the non-relevant retrieved docs below it and every non-relevant left out.
    nonrel_above = batch.segment_cumsum(nonrel)
    below = np.repeat(nonrel_ret, batch.num_ret) - nonrel_above
    wins = batch.per_query_sum(np.where(is_rel, below, 0)) + rel_ret * nonrel_left + 0.5 * rel_left * nonrel_left
    pairs = batch.num_rel(level) * (nonrel_ret + nonrel_left)
    out = np.zeros(batch.nq)
    np.divide(wins, pairs.astype(np.float64), out=out, where=pairs > 0)
    return out


register(Family("AUC", "ROC area per query: correctly ordered (relevant, non-relevant) pairs over the retrieved "
                       "docs and the judged docs not retrieved (tied last); 0 without both kinds",
                auc, cutoff="none"))
