"""Compatibility with an ideal ranking: ``Compat(p, normalize)`` (Clarke, Vtyurina and Smucker, TOIS 2021).

The ideal ranking holds every judged doc with grade >= ``rel``, best grade
first; docs of one grade keep the run's order (those the run retrieved first,
in rank order), so the ideal agrees with the run wherever the judgments allow.
Compatibility is the rank-biased overlap of the run with that ideal::

    RBO = sum_{d=1}^{D} p^(d-1) * |run top d  and  ideal top d| / d  /  sum_{d=1}^{D} p^(d-1)

with D = max(docs retrieved, ideal length), and ``normalize=True`` (the
default) divides by the RBO of the ideal with itself, so a perfect run scores
1 however short the ideal is. 0 when nothing is relevant.

ir_measures' compat provider breaks ties between ideal docs of one grade by
the run's score, giving unretrieved docs score 0; with positive scores that is
the order above.

Examples
--------
Grades a = 2, b = 1, c = 1; the run ranks c, a, x. The ideal is a, c, b
(c before b: the run retrieved c). D = 3, p = 0.5: overlaps 0, 2, 2 at
depths 1..3, so RBO = (0 + 0.5 * 2/2 + 0.25 * 2/3) / 1.75 = 0.3810; the ideal
against itself scores (1 + 0.5 + 0.25) / 1.75 = 1.

>>> import rankmeter
>>> qrels = {"q": {"a": 2, "b": 1, "c": 1}}
>>> r = rankmeter.evaluate(qrels, {"q": ["c", "a", "x"]}, ["Compat(p=0.5)", "Compat(p=0.5, normalize=false)"])
>>> {k: round(v, 4) for k, v in r.mean.items()}
{'Compat(p=0.5)': 0.381, 'Compat(p=0.5, normalize=false)': 0.381}
"""
from __future__ import annotations

import numpy as np

from rankmeter.measures.base import ExplainParts, Family, Param, level_of, register
from rankmeter.measures.explaining import fmt_number

__all__ = ["ideal_positions", "compat"]


def _rank_in_groups(keys: tuple[np.ndarray, ...]) -> np.ndarray:
    """0-based position of each entry among the entries with equal keys, in input order."""
    n = len(keys[0])
    if n == 0:
        return np.zeros(0, np.int64)
    order = np.lexsort((np.arange(n),) + tuple(reversed(keys)))
    sorted_keys = [k[order] for k in keys]
    new = np.ones(n, dtype=bool)
    new[1:] = np.logical_or.reduce([k[1:] != k[:-1] for k in sorted_keys])
    start = np.maximum.accumulate(np.where(new, np.arange(n), 0))
    out = np.empty(n, np.int64)
    out[order] = np.arange(n) - start
    return out


def ideal_positions(batch, level: int) -> tuple[np.ndarray, np.ndarray]:
    """(rows of the retrieved relevant docs, their 1-based position in the ideal ranking).

    Position = judged docs of the query with a higher grade + retrieved docs of
    the same grade ranked above + 1.
    """
    rows = np.flatnonzero(batch.is_rel(level))
    q = batch.query_of(rows)
    grade = batch.rel[rows]
    jrel = batch.judged_rel
    if len(rows) == 0:
        return rows, np.zeros(0, np.int64)
    top, low = max(jrel.max(initial=0), grade.max()), min(jrel.min(initial=0), 0)
    span = top - low + 1
    # judged_rel is descending within each query, so this key ascends over the whole array (real grades
    # too: equal grades give equal keys, the same arithmetic on the same numbers)
    keys = batch.judged_qidx.astype(np.int64) * span + (top - jrel)
    higher = np.searchsorted(keys, q * span + (top - grade), side="left") - batch.judged_offsets[q]
    same_above = _rank_in_groups((q, grade))
    return rows, higher + same_above + 1


def _weights(p: float, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """prefix sums of p^(d-1) / d and of p^(d-1), d = 1..depth (index 0 holds 0)."""
    powers = np.cumprod(np.concatenate(([1.0], np.full(max(depth - 1, 0), p))))[:depth]
    d = np.arange(1, depth + 1)
    return np.concatenate(([0.0], np.cumsum(powers / d))), np.concatenate(([0.0], np.cumsum(powers)))


def compat(batch, m) -> np.ndarray:
    """RBO of the run with the ideal ranking, over the RBO of the ideal with itself when normalize."""
    level = level_of(batch, m)
    ideal_len = batch.num_rel(level)
    depth = np.maximum(batch.num_ret, ideal_len)
    harmonic, total = _weights(m.get("p"), int(depth.max(initial=0)))
    rows, pos = ideal_positions(batch, level)
    q = batch.query_of(rows)
    # a common doc at run rank r and ideal position s is in both top-d lists for every d >= max(r, s)
    first = np.maximum(batch.rank[rows], pos)
    tail = harmonic[depth[q]] - harmonic[first - 1]
    score = np.bincount(q, weights=tail, minlength=batch.nq)
    norm = total[depth]
    out = np.zeros(batch.nq)
    np.divide(score, norm, out=out, where=norm > 0)
    if m.get("normalize"):
        # ideal against itself: position s joins at depth s, s = 1..len(ideal)
        iq = np.repeat(np.arange(batch.nq), ideal_len)
        s = np.arange(len(iq)) - np.repeat(np.cumsum(ideal_len) - ideal_len, ideal_len) + 1
        best = np.bincount(iq, weights=harmonic[depth[iq]] - harmonic[s - 1], minlength=batch.nq)
        np.divide(score, best, out=out, where=best > 0)
    return out


def _explain_compat(batch, m, label: str) -> ExplainParts:
    """Per rank: the doc's place in the ideal ranking (blank if not relevant) and the overlap at that depth."""
    level = level_of(batch, m)
    rows, pos = ideal_positions(batch, level)
    n = int(batch.num_ret[0])
    ideal_at = np.zeros(n, np.int64)
    ideal_at[rows] = pos
    depth = max(n, int(batch.num_rel(level)[0]))
    joins = np.bincount(np.maximum(np.arange(1, n + 1), ideal_at)[ideal_at > 0], minlength=depth + 1)
    overlap = np.cumsum(joins)[1:n + 1]
    per_rank = [[int(s) if s else "", int(o)] for s, o in zip(ideal_at, overlap)]
    value = float(compat(batch, m)[0])
    return ExplainParts(["ideal position", "overlap at depth i"], per_rank,
                        [f"{label} = {value:.4f}  (RBO over depth {depth}, p = {fmt_number(m.get('p'))}"
                         + (", over the ideal's own RBO)" if m.get("normalize") else ")")])


register(Family("Compat", "compatibility: rank-biased overlap with the ideal ranking of the judged relevant docs "
                          "(Clarke, Vtyurina & Smucker 2021; ir_measures Compat)", compat,
                params=(Param("p", "number", 0.95, "persistence of the rank-biased overlap", low=0.0,
                              high=1.0),
                        Param("normalize", "bool", True,
                              "divide by the ideal ranking's own RBO (1 for a perfect run)")),
                cutoff="none", explain=_explain_compat))
