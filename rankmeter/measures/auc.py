"""Ordered pairs of one ranking: ``AUC`` and ir_measures' ``Accuracy``.

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

``Accuracy@k`` (ir_measures) reads only the top k retrieved docs (all without
a cutoff): the fraction of (relevant, non-relevant) pairs among them with the
relevant doc ranked higher, i.e. 1 - (sum over relevant docs of the
non-relevant docs above it) / (relevant * non-relevant). It is undefined (NaN,
left out of the mean, as ir_measures leaves the query out) without a relevant
or without a non-relevant doc there. Unjudged docs are non-relevant.

The ranking a, b, x, c has the pairs (a, b), (a, x) in the right order and
(c, b), (c, x) in the wrong one: 1 - (0 + 2) / (2 * 2) = 0.5. The top 2 (a, b)
is all right; the top 1 has no non-relevant doc, so Accuracy@1 is undefined:

>>> r = rankmeter.evaluate(qrels, {"q": ["a", "b", "x", "c"]}, ["Accuracy", "Accuracy@2", "Accuracy@1"])
>>> r.mean["Accuracy"], r.mean["Accuracy@2"], r.values("Accuracy@1")
(0.5, 1.0, array([nan]))
"""
from __future__ import annotations

import numpy as np

from rankmeter.measures.base import Family, level_of, register
from rankmeter.measures.undefined import EMPTY_TARGET, MEAN_DEFINED, with_empty_target


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
                with_empty_target(auc), params=(EMPTY_TARGET,),
                cutoff="none", aggregation=MEAN_DEFINED))


def accuracy(batch, m) -> np.ndarray:
    """1 - (non-relevant above each relevant doc, summed) / (relevant * non-relevant) in the top k; NaN without pairs."""
    level = level_of(batch, m)
    is_rel = batch.is_rel(level)
    inside = np.ones(len(is_rel), dtype=bool) if m.cutoff is None else batch.rank <= m.cutoff
    hit = is_rel & inside
    nonrel_above = batch.rank - batch.rel_seen(level)
    wrong = batch.per_query_sum(np.where(hit, nonrel_above, 0))
    rel = batch.per_query_count(hit)
    nonrel = batch.per_query_count(inside & ~is_rel)
    pairs = (rel * nonrel).astype(np.float64)
    out = np.full(batch.nq, np.nan)
    np.subtract(1.0, wrong / np.where(pairs > 0, pairs, 1.0), out=out, where=pairs > 0)
    return out


register(Family("Accuracy", "fraction of (relevant, non-relevant) pairs in the top k ranked in the right order; "
                            "undefined without both (ir_measures Accuracy)", accuracy, aggregation=MEAN_DEFINED))
