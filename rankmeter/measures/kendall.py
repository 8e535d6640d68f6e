"""Rank correlation with the grades: ``Inversions@k`` and ``KendallTau@k``.

Over the top k retrieved docs of a query (all retrieved without a cutoff),
with unjudged docs, negative grades and grades below ``rel`` read as 0:

* ``Inversions@k``: pairs (a ranked above b) with grade_a < grade_b, the
  Kendall tau distance of seed 002 (lower is better);
* ``KendallTau@k``: Kendall's tau-b between the rank order and the grades,
  (C - D) / sqrt(n0 * (n0 - T)) with C, D the concordant and discordant
  (inverted) pairs, n0 = n(n-1)/2 and T the pairs of equal grade (ranks never
  tie); 0 when every grade is equal or fewer than two docs are retrieved.

Examples
--------
>>> import rankmeter
>>> qrels = {"q": dict(zip("abcde", [5, 3, 2, 1, 2]))}
>>> r = rankmeter.evaluate(qrels, {"q": list("abcde")}, ["Inversions@5", "KendallTau@5"])
>>> r["Inversions@5"], round(r["KendallTau@5"], 4)
(1.0, 0.7379)

Grades 5, 3, 2, 1, 2 hold one inverted pair (1 above 2); tau-b = 7 / sqrt(10 * 9).
"""
from __future__ import annotations

import numpy as np

from rankmeter.engine.segments import distinct_sorted
from rankmeter.measures.base import Family, level_of, register


def _pair_counts(batch, m) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per query: discordant pairs, concordant pairs, pairs of equal grade, docs considered.

    Grades are small integers, so for each grade level (ascending) one
    segmented cumulative count of that level gives, for every doc of the
    level, how many docs above it have the same grade; the running total over
    lower levels gives how many above it have a lower grade.
    """
    level = max(level_of(batch, m), 1)
    grades = np.where(batch.rel >= level, batch.rel, 0)
    inside = np.ones(len(grades), dtype=bool) if m.cutoff is None else batch.rank <= m.cutoff
    lower_above = np.zeros(len(grades), dtype=np.int64)   # docs above with a grade below the current level
    discordant = np.zeros(batch.nq)
    concordant = np.zeros(batch.nq)
    ties = np.zeros(batch.nq)
    for g in distinct_sorted(grades[inside]).tolist():
        is_g = grades == g
        same_upto = batch.segment_cumsum(is_g)
        sel = inside & is_g
        higher_above = batch.rank - 1 - lower_above - (same_upto - 1)
        discordant += batch.per_query_sum(np.where(sel, lower_above, 0))
        concordant += batch.per_query_sum(np.where(sel, higher_above, 0))
        count = batch.per_query_count(sel)
        ties += count * (count - 1) / 2
        # for every later (higher) level, docs of this one are lower; a doc of a later level is never
        # of this one, so counting "at or above" equals "strictly above" for it
        lower_above += same_upto
    n = batch.num_ret if m.cutoff is None else np.minimum(batch.num_ret, m.cutoff)
    return discordant, concordant, ties, n


def inversions(batch, m) -> np.ndarray:
    """Pairs in the top k ranked in the wrong order of grade (float64 counts)."""
    return _pair_counts(batch, m)[0]


def kendall_tau(batch, m) -> np.ndarray:
    """Kendall's tau-b of rank order against grades in the top k; 0 when the grades are all equal."""
    discordant, concordant, ties, n = _pair_counts(batch, m)
    pairs = n * (n - 1) / 2.0
    denom = np.sqrt(pairs * (pairs - ties))
    out = np.zeros(batch.nq)
    np.divide(concordant - discordant, denom, out=out, where=denom > 0)
    return out


register(Family("Inversions", "pairs in the top k with a lower grade ranked above a higher one "
                              "(Kendall tau distance; lower is better)", inversions))
register(Family("KendallTau", "Kendall tau-b between rank order and grades over the top k", kendall_tau))
