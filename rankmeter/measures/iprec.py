"""Interpolated precision: ``IPrec@r`` and ``IPrecAvg(recalls=[...])``.

``IPrec@r`` is trec_eval's ``iprec_at_recall_r``: the interpolated precision
at recall level r, the points of the standard recall-precision graph. With
P(y) the precision at rank y, interpolated precision at rank x is
max over y >= x of P(y). The level r becomes a count of relevant docs

    c = lround(r * R)        (round half away from zero: trec_eval 10.0;
                              9.x used floor(r * R + 0.9): ``rounding="trec_eval_9"``,
                              what pytrec_eval's bundled trec_eval 9.0.8 gives)

and IPrec@r is the interpolated precision at the rank of the c-th relevant
retrieved doc; 0 when fewer than c relevant docs are retrieved; the
maximum precision over the whole ranking when c <= 0 (r = 0, or R = 0).

``IPrecAvg`` is trec_eval's ``11pt_avg``: the mean of IPrec over the given
recall levels (default the eleven 0.0, 0.1, ..., 1.0). A level given twice
counts twice, as in trec_eval. trec_eval 10.0 processes the levels in the
order given and so gives order-dependent results for an unsorted list; here
the levels are sorted first, which is what trec_eval computes for sorted ones.

Examples
--------
a, c relevant (R = 2); the run ranks a, b, c, d. Precision at ranks 1..4 is
1, 1/2, 2/3, 1/2, interpolated 1, 2/3, 2/3, 1/2. Recall 0.5 needs
lround(0.5 * 2) = 1 relevant doc (rank 1), recall 1 needs 2 (rank 3). Of the
eleven levels, 0 .. 0.7 give 1 and 0.8, 0.9, 1 give 2/3: (8 + 2) / 11.

>>> import rankmeter
>>> qrels = {"q": {"a": 1, "b": 0, "c": 1, "d": 0}}
>>> r = rankmeter.evaluate(qrels, {"q": ["a", "b", "c", "d"]},
...                        ["IPrec@0.5", "IPrec@1", "IPrecAvg", "IPrecAvg(recalls=[0.5, 1])"])
>>> for name, value in r.mean.items():
...     print(f"{name:<27}{value:.4f}")
IPrec@0.5                  1.0000
IPrec@1                    0.6667
IPrecAvg                   0.9091
IPrecAvg(recalls=[0.5, 1]) 0.8333
"""
from __future__ import annotations

import numpy as np

from rankmeter.errors import MeasureError
from rankmeter.measures.base import Family, Param, level_of, register

_ELEVEN = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def trec_lround(x: np.ndarray) -> np.ndarray:
    """C ``lround``: nearest integer, halves away from zero (np.rint rounds halves to even)."""
    a = np.abs(x)
    whole = np.floor(a)
    return (np.sign(x) * (whole + (a - whole >= 0.5))).astype(np.int64)


def interpolated_at_hits(batch, level: int):
    """(hits, per relevant retrieved doc the interpolated precision at its rank).

    Interpolated precision at rank x is the max precision at ranks >= x;
    precision only rises at a relevant doc, so at a relevant rank it is the
    max over the relevant ranks from there down: a segmented suffix maximum
    over the relevant docs alone, done exactly (precisions replaced by their
    integer order among the distinct values, offset per query, one running
    maximum over the reversed array).
    """
    key = ("iprec_at_hits", level)
    if key not in batch._cache:
        hits = batch.hits(level)
        precision = hits.seen / hits.rank
        distinct, code = np.unique(precision, return_inverse=True)
        base = (batch.nq - 1 - hits.q) * np.int64(len(distinct))
        running = np.maximum.accumulate((base + code)[::-1])[::-1] if len(code) else code
        batch._cache[key] = hits, (distinct[running - base] if len(distinct) else precision)
    return batch._cache[key]


def relevant_count(recall_level: float, num_rel: np.ndarray, rounding: str = "lround") -> np.ndarray:
    """The count of relevant docs recall level ``recall_level`` needs of a query with ``num_rel``
    relevant: lround(r * R) (trec_eval 10.0), or ``rounding="trec_eval_9"`` floor(r * R + 0.9) (9.x)."""
    scaled = recall_level * np.asarray(num_rel, dtype=np.float64)
    return np.floor(scaled + 0.9).astype(np.int64) if rounding == "trec_eval_9" else trec_lround(scaled)


def _iprec_at(batch, level: int, recall_level: float, rounding: str = "lround") -> np.ndarray:
    hits, interpolated = interpolated_at_hits(batch, level)
    count = relevant_count(recall_level, batch.num_rel(level), rounding)
    first = np.searchsorted(hits.q, np.arange(batch.nq))         # each query's first relevant retrieved
    found = np.diff(np.append(first, len(hits.q)))
    # the count-th relevant retrieved doc (the first when count <= 0: the max over the whole ranking);
    # 0 when fewer are retrieved
    nth = np.maximum(count, 1)
    ok = nth <= found
    out = np.zeros(batch.nq)
    out[ok] = interpolated[first[ok] + nth[ok] - 1]
    return out


def eleven_point_walk(cuts, precisions, retrieved: np.ndarray, final: np.ndarray) -> np.ndarray:
    """m_11pt_avg.c's walk over recall levels given in any order (trec_eval's 11pt_avg with its own levels).

    ``cuts[i]`` is level i's count of relevant docs per query, ``precisions[i]`` the interpolated
    precision there, ``retrieved`` the relevant retrieved count and ``final`` the interpolated precision
    at recall 0. From the last level down: trailing levels needing more relevant docs than were
    retrieved add 0; a level reached adds its interpolated precision; once a level cannot be reached
    any more (a count below 1, or above one already passed) it and all before it add ``final``. For
    levels in increasing order this is :func:`iprec_average`'s mean.
    """
    total = np.zeros(len(final))
    skipping = np.ones(len(final), dtype=bool)
    blocked = np.zeros(len(final), dtype=bool)
    reachable = np.asarray(retrieved, dtype=np.float64)
    for i in range(len(cuts) - 1, -1, -1):
        cut = cuts[i]
        skip = skipping & (cut > retrieved)
        skipping &= skip
        live = ~skip
        blocked |= live & ((cut < 1) | (cut > reachable))
        hit = live & ~blocked
        with np.errstate(invalid="ignore"):
            total += np.where(hit, precisions[i], np.where(live & blocked, final, 0.0))
        reachable = np.where(hit, cut, reachable)
    return total / len(cuts)


def iprec_at_recall(batch, m) -> np.ndarray:
    """Interpolated precision at recall level ``m.cutoff`` (trec_eval iprec_at_recall)."""
    return _iprec_at(batch, level_of(batch, m), float(m.cutoff), m.get("rounding"))


def iprec_average(batch, m) -> np.ndarray:
    """Mean interpolated precision over the recall levels (trec_eval 11pt_avg)."""
    recalls = sorted(m.get("recalls"))
    if not recalls:
        raise MeasureError("IPrecAvg: recalls must hold at least one recall level")
    level = level_of(batch, m)
    total = np.zeros(batch.nq)
    for r in reversed(recalls):  # trec_eval adds from the highest level down
        total += _iprec_at(batch, level, r)
    return total / len(recalls)


_ROUNDING = Param("rounding", "choice", "lround", "how recall level r becomes a count of relevant docs: lround(r*R) "
                  "(trec_eval 10.0) or trec_eval_9: floor(r*R + 0.9) (trec_eval 9.x, pytrec_eval)",
                  choices=("lround", "trec_eval_9"))

register(Family("IPrec", "interpolated precision at recall level r (trec_eval iprec_at_recall_r)",
                iprec_at_recall, params=(_ROUNDING,), cutoff="required", cutoff_kind=float, cutoff_range=(0.0, 1.0)))
register(Family("IPrecAvg", "mean interpolated precision over recall levels (trec_eval 11pt_avg)",
                iprec_average, cutoff="none",
                params=(Param("recalls", "numbers", _ELEVEN, "recall levels to average over",
                              low=0.0, high=1.0),)))
