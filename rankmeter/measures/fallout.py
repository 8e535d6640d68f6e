"""Hit rate and fall-out: ``HitRate@k`` (ranx), ``FallOut@k`` and ``RecallAtFixedPrecision`` (TorchMetrics).

(``Hits@k``, ranx's count of relevant docs in the top k, is with precision.)

* ``HitRate@k``: 1 if a relevant doc is in the top k, else 0; the mean over
  queries is the fraction of queries with a hit (ranx ``hit_rate``, the same
  number as trec_eval's ``success``, rankmeter's ``Success``).
* ``FallOut@k``: judged non-relevant docs (0 <= grade < ``rel``) in the top k
  / judged non-relevant docs of the query: the recall of the non-relevant
  docs, lower is better (TorchMetrics ``RetrievalFallOut``). Unjudged docs
  are not counted on either side. A query without a judged non-relevant doc
  scores by ``empty_target_action`` (0 by default; TorchMetrics' default for
  fall-out is ``pos``, 1).
* ``RecallAtFixedPrecision(min_precision=x)@k``: per query, the largest
  R@i over the ranks i <= k (every rank without a cutoff) where P@i >= x;
  0 when no rank reaches x. TorchMetrics' ``RetrievalRecallAtFixedPrecision``
  takes the same maximum over the precision and recall curves averaged over
  the queries, which is one number for the whole run; on a single query the
  two agree. The per-query form can be compared query by query.

Examples
--------
Grades a = 1, b = 0, c = 1, d = 0, e = 0; the run ranks a, b, x, c (x unjudged).

>>> import rankmeter
>>> qrels = {"q": {"a": 1, "b": 0, "c": 1, "d": 0, "e": 0}}
>>> r = rankmeter.evaluate(qrels, {"q": ["a", "b", "x", "c"]}, ["HitRate@1", "FallOut@3"])
>>> {k: round(v, 4) for k, v in r.mean.items()}
{'HitRate@1': 1.0, 'FallOut@3': 0.3333}

FallOut@3: b is the one judged non-relevant doc of the top 3, of b, d, e.
Precision at ranks 1..4 is 1, 1/2, 1/3, 1/2 and recall 1/2, 1/2, 1/2, 1: at
least 1/2 precision allows rank 4, recall 1; at least 0.6 only rank 1.

>>> r = rankmeter.evaluate(qrels, {"q": ["a", "b", "x", "c"]},
...                        ["RecallAtFixedPrecision(min_precision=0.5)", "RecallAtFixedPrecision(min_precision=0.6)"])
>>> list(r.mean.values())
[1.0, 0.5]
"""
from __future__ import annotations

import numpy as np

from rankmeter.measures.base import Family, Param, level_of, register
from rankmeter.measures.undefined import EMPTY_TARGET, MEAN_DEFINED, with_empty_target

__all__ = ["hit_rate", "fall_out", "recall_at_fixed_precision"]


def _count_top(batch, mask: np.ndarray, k) -> np.ndarray:
    return batch.per_query_count(mask) if k is None else batch.count_upto(mask, k)


def hit_rate(batch, m) -> np.ndarray:
    """1.0 if a relevant doc is in the top k, else 0.0."""
    return (_count_top(batch, batch.is_rel(level_of(batch, m)), m.cutoff) > 0).astype(np.float64)


def _judged_nonrel(batch, m) -> np.ndarray:
    level = level_of(batch, m)
    return (batch.rel >= 0) & ~batch.is_rel(level)


def fall_out(batch, m) -> np.ndarray:
    """Judged non-relevant docs in the top k / judged non-relevant docs; 0 when there is none."""
    level = level_of(batch, m)
    found = _count_top(batch, _judged_nonrel(batch, m), m.cutoff)
    total = batch.num_judged_nonrel(level)
    out = np.zeros(batch.nq)
    np.divide(found, total, out=out, where=total > 0)
    return out


_EMPTY_NONREL = Param(EMPTY_TARGET.name, "choice", EMPTY_TARGET.default, "a query with no judged non-relevant doc "
                      "(TorchMetrics' empty_target_action; its fall-out default is pos): neg = 0, pos = 1, skip = "
                      "left out of the mean, error = refuse", choices=EMPTY_TARGET.choices)


def _no_nonrelevant(batch, m) -> np.ndarray:
    return batch.num_judged_nonrel(level_of(batch, m)) == 0


register(Family("HitRate", "1 if a relevant doc is in the top k, else 0; mean over queries (ranx hit_rate, "
                           "TorchMetrics RetrievalHitRate; = Success)",
                with_empty_target(hit_rate), params=(EMPTY_TARGET,), aggregation=MEAN_DEFINED))
register(Family("FallOut", "judged non-relevant docs in the top k / judged non-relevant docs (TorchMetrics "
                           "RetrievalFallOut)",
                with_empty_target(fall_out, _no_nonrelevant, what="no judged non-relevant doc"),
                params=(_EMPTY_NONREL,), aggregation=MEAN_DEFINED))


def recall_at_fixed_precision(batch, m) -> np.ndarray:
    """Largest R@i over ranks i <= k with P@i >= min_precision; 0 when none, or R = 0."""
    level = level_of(batch, m)
    seen = batch.rel_seen(level)
    ok = seen / batch.rank >= m.get("min_precision")
    if m.cutoff is not None:
        ok &= batch.rank <= m.cutoff
    rows = np.flatnonzero(ok)
    q = batch.query_of(rows)
    # relevant-so-far never falls along a ranking, so the best rank is the last admissible one
    last = np.flatnonzero(np.append(q[1:] != q[:-1], True)) if len(q) else rows
    best = np.zeros(batch.nq)
    best[q[last]] = seen[rows[last]]
    R = batch.num_rel(level)
    out = np.zeros(batch.nq)
    np.divide(best, R, out=out, where=R > 0)
    return out


register(Family("RecallAtFixedPrecision", "largest R@i over ranks i <= k where P@i >= min_precision (TorchMetrics "
                                          "RetrievalRecallAtFixedPrecision, per query)",
                with_empty_target(recall_at_fixed_precision),
                params=(Param("min_precision", "number", 0.0, "the precision a rank must reach",
                              low=0.0, high=1.0),
                        EMPTY_TARGET), aggregation=MEAN_DEFINED))
