"""Condorcet fusion (Montague and Aslam, CIKM 2002): sort each query's candidates by pairwise majority.

Doc x goes before doc y when the runs ranking x above y (a run that did not
retrieve a doc ranks it below every doc it did) carry at least as much
weight as the others, ranx's comparison (``w_condorcet`` weighs each run,
``condorcet`` counts them). The candidates are sorted with that comparison;
the doc at 0-based position i of a query with m candidates scores m - i, as
ranx scores them.

Majority is not transitive (three runs can prefer a to b, b to c and c to a),
so any sort's answer on such a cycle depends on the sort and on the order it
starts from; ranx starts from a Python set's order, which changes from one
process to the next. Here the sort is a merge sort run on all queries at
once (each merge step is one numpy operation over every merge of every
query), starting from the order in which the runs first list the docs (the
first run's ranking, then docs only later runs retrieved), so the answer is
reproducible. Where the majority relation is a total order every sort
agrees, ranx's too.
"""
from __future__ import annotations

import numpy as np

__all__ = ["condorcet_scores"]

_ABSENT = 1_000_000.0  # ranx's rank for a doc a run did not retrieve


def condorcet_scores(query: np.ndarray, first_seen: np.ndarray, R: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Condorcet score (m - position) of every (query, doc) pair.

    ``query`` is each pair's query code, ``first_seen`` its place in the
    starting order, ``R`` its 1-based rank in each run (NaN: not retrieved).
    """
    ranks = np.where(np.isnan(R), _ABSENT, R)
    start = np.lexsort((first_seen, query))
    counts = np.bincount(query, minlength=int(query.max(initial=-1)) + 1)
    offsets = np.concatenate(([0], np.cumsum(counts)))
    order = _merge_sort(start, offsets, counts, ranks, np.asarray(weights, dtype=np.float64))
    scores = np.empty(len(query))
    position = np.arange(len(order)) - np.repeat(offsets[:-1], counts)
    scores[order] = np.repeat(counts, counts) - position
    return scores


def _first(x: np.ndarray, y: np.ndarray, ranks: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Whether x goes before y: the runs ranking x above y weigh at least as much as the rest."""
    above = ranks[x] < ranks[y]
    return (above * weights).sum(axis=1) >= (~above * weights).sum(axis=1)


def _merge_sort(order: np.ndarray, offsets: np.ndarray, counts: np.ndarray, ranks, weights) -> np.ndarray:
    """Bottom-up merge sort of every query's segment of ``order`` with :func:`_first`, all at once."""
    order = order.copy()
    width = 1
    longest = int(counts.max(initial=0))
    while width < longest:
        # the merges of this pass: left block [ls, le), right block [le, re) of each query
        per_query = np.where(counts > width, -(-(counts - width) // (2 * width)), 0)
        q = np.repeat(np.arange(len(counts)), per_query)
        k = np.arange(len(q)) - np.repeat(np.cumsum(per_query) - per_query, per_query)
        ls = offsets[q] + 2 * width * k
        le = ls + width
        re = np.minimum(ls + 2 * width, offsets[q] + counts[q])
        merged = order.copy()
        i, j, out = ls.copy(), le.copy(), ls.copy()
        while len(out):
            left, right = i < le, j < re
            take = left & ~right
            both = np.flatnonzero(left & right)
            if len(both):
                take[both] = _first(order[i[both]], order[j[both]], ranks, weights)
            merged[out] = np.where(take, order[np.minimum(i, len(order) - 1)], order[np.minimum(j, len(order) - 1)])
            i += take
            j += ~take
            out += 1
            going = out < re
            i, j, out, le, re = i[going], j[going], out[going], le[going], re[going]
        order = merged
        width *= 2
    return order
