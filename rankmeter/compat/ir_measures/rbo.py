"""``Compat`` as ir_measures' compat provider computes it, ties and all (one vectorised pass over every query).

rankmeter's ``Compat`` (:mod:`rankmeter.measures.compat`) orders the ideal's docs of one grade as the
run ranks them. ir_measures' provider ranks the run by score, docno ascending on ties, and builds the ideal
from the judged docs with grade > 0 in qrels order, sorted (stably) by the run's score (0.0 when not
retrieved), then by grade: so docs of one grade with equal scores keep their qrels order there, and a
retrieved doc scored at or below 0 stands among the unretrieved ones. Both then take the rank-biased
overlap to depth max(run length, ideal length), normalised by the ideal's own.

>>> qrels = {"q": {"b": 1, "a": 1}}
>>> compat_values(qrels, {"q": {"a": 1.0, "b": 1.0}}, 0.5, True)   # ranking a, b; ideal b, a
{'q': 0.3333333333333333}
"""
from __future__ import annotations

import numpy as np

__all__ = ["compat_values"]


def _within(codes: np.ndarray, order: np.ndarray) -> np.ndarray:
    """0-based position of each entry among those of its code, in ``order`` (codes ascend along ``order``)."""
    out = np.empty(len(order), np.int64)
    sorted_codes = codes[order]
    start = np.r_[0, np.flatnonzero(sorted_codes[1:] != sorted_codes[:-1]) + 1]
    firsts = np.repeat(start, np.diff(np.r_[start, len(order)]))
    out[order] = np.arange(len(order)) - firsts
    return out


def compat_values(qrels: dict, run: dict, p: float, normalize: bool) -> dict:
    """``{query: Compat}`` for the run's queries the qrels hold (ir_measures' compat provider)."""
    queries = [q for q in run if q in qrels]
    if not queries:
        return {}
    code = {q: i for i, q in enumerate(queries)}
    rq = np.array([code[q] for q in queries for _ in run[q]], np.int64)
    rd = np.array([d for q in queries for d in run[q]], dtype=str)
    rs = np.array([s for q in queries for s in run[q].values()], np.float64)
    rpos = _within(rq, np.lexsort((rd, -rs, rq)))
    ideal = [(code[q], i, d, g, run[q].get(d, 0.0)) for q in queries for i, (d, g) in enumerate(qrels[q].items())
             if g > 0]
    iq = np.array([t[0] for t in ideal], np.int64)
    ig = np.array([t[3] for t in ideal], np.float64)
    iscore = np.array([t[4] for t in ideal], np.float64)
    ipos = _within(iq, np.lexsort((np.array([t[1] for t in ideal], np.int64), -iscore, -ig, iq)))
    nq = len(queries)
    n_run, n_ideal = np.bincount(rq, minlength=nq), np.bincount(iq, minlength=nq)
    depth = np.maximum(n_run, n_ideal)
    # a doc in both counts from depth max(its run rank, its ideal rank) on
    rank_of = {(int(q), d): int(r) for q, d, r in zip(rq, rd, rpos)}
    both = [(t[0], max(rank_of[t[0], t[2]], int(k))) for t, k in zip(ideal, ipos) if (t[0], t[2]) in rank_of]
    starts = np.r_[0, np.cumsum(depth)[:-1]]
    total = int(depth.sum())
    hits = np.zeros(total + 1, np.int64)
    if both:
        bq = np.array([b[0] for b in both], np.int64)
        np.add.at(hits, starts[bq] + np.array([b[1] for b in both], np.int64), 1)
    cum = np.cumsum(hits[:total])
    seg = np.repeat(np.arange(nq), depth)
    overlap = cum - np.r_[0, cum][starts][seg]
    i = np.arange(total) - starts[seg]  # depth index 0 .. D-1 within each query
    weights = np.cumprod(np.r_[1.0, np.full(max(int(depth.max()) - 1, 0), p)])
    w = weights[i]
    norm_at = np.cumsum(weights)
    values = {}
    score = np.zeros(nq)
    best = np.zeros(nq)
    nonempty = depth > 0
    if total:  # summed left to right per query, as ir_measures' loop adds (a row per query, zeros after its depth)
        grid = np.zeros((nq, int(depth.max())))
        grid[seg, i] = w * overlap / (i + 1)
        score = np.cumsum(grid, axis=1)[np.arange(nq), np.maximum(depth - 1, 0)]
        grid[seg, i] = w * np.minimum(i + 1, n_ideal[seg]) / (i + 1)
        best = np.cumsum(grid, axis=1)[np.arange(nq), np.maximum(depth - 1, 0)]
    for q, k in code.items():
        if not nonempty[k]:  # ir_measures divides by zero here (nothing ranked, nothing relevant)
            values[q] = 0.0
            continue
        norm = norm_at[depth[k] - 1]
        value = score[k] / norm
        if normalize and best[k] / norm > 0.0:
            value = value / (best[k] / norm)
        values[q] = float(value)
    return values
