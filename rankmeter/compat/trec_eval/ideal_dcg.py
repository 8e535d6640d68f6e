"""trec_eval 10.0's ``ideal_dcg`` (m_ndcg.c): the DCG of the best possible ranking of a topic.

It depends on the judgments only: every judged document (grade >= 0) gains
its grade, or the gain the parameters give its grade (``ideal_dcg.1=3,2=9``);
positive gains are ranked best first and discounted by log2(rank + 1)
(setup_gains in gain_init.c, the ideal loop of te_calc_ndcg). The canonical
nDCG computes the same ideal as its denominator.
"""
from __future__ import annotations

import numpy as np

__all__ = ["ideal_dcg", "has_positive_gain"]


def ideal_dcg(query: np.ndarray, rel: np.ndarray, ids: list[bytes], gains: dict[int, float]) -> np.ndarray:
    """Per topic of ``ids``, the ideal DCG from the judgments ``query`` (``S`` bytes) / ``rel`` (int).

    Examples
    --------
    >>> q = np.array([b"1", b"1", b"1", b"2"]); r = np.array([2, 1, 0, -1])
    >>> ideal_dcg(q, r, [b"1", b"2"], {}).round(4).tolist()
    [2.6309, 0.0]
    >>> ideal_dcg(q, r, [b"1"], {0: 1.0}).round(4).tolist()
    [3.1309]
    """
    keep = rel >= 0
    query, rel = query[keep], rel[keep]
    gain = rel.astype(np.float64)
    for level, value in gains.items():
        gain = np.where(rel == level, value, gain)
    positive = gain > 0
    query, gain = query[positive], gain[positive]
    order = np.lexsort((-gain, query))
    query, gain = query[order], gain[order]
    starts = np.flatnonzero(np.r_[True, query[1:] != query[:-1]]) if len(query) else np.array([], int)
    first = np.repeat(starts, np.diff(np.r_[starts, len(query)]))
    position = np.arange(len(query)) - first
    totals: dict[bytes, float] = {}
    discounted = gain / np.log2(position + 2.0)
    for s, e in zip(starts.tolist(), np.r_[starts[1:], len(query)].tolist()):
        totals[bytes(query[s])] = float(np.sum(discounted[s:e]))
    return np.array([totals.get(q, 0.0) for q in ids])


def has_positive_gain(judged_rel: np.ndarray, judged_offsets: np.ndarray, codes: np.ndarray,
                      gains: dict[int, float]) -> np.ndarray:
    """Per query code of ``codes``: whether the ideal DCG is above 0, i.e. a judged doc (grade >= 0)
    gains more than 0 (its first ideal term is that gain over log2(2) = 1, and adding positive terms
    never lowers a sum). ``judged_rel``/``judged_offsets``: every query's grades, as the prepared
    judgments hold them (:class:`rankmeter.core.judgments.Judgments`).

    >>> rel, offsets = np.array([2, 1, 0, -1]), np.array([0, 3, 4])
    >>> has_positive_gain(rel, offsets, np.array([0, 1]), {}).tolist()
    [True, False]
    >>> has_positive_gain(rel, offsets, np.array([0]), {1: 0.0, 2: -1.0}).tolist()
    [False]
    """
    gain = judged_rel.astype(np.float64)
    for level, value in gains.items():
        gain[judged_rel == level] = value
    positive = np.flatnonzero((judged_rel >= 0) & (gain > 0))
    per_query = np.diff(np.searchsorted(positive, judged_offsets))
    return per_query[codes] > 0
