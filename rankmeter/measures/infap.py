"""Inferred average precision: ``infAP`` (trec_eval ``infAP``; Yilmaz and Aslam, CIKM 2006).

For judgments made on a random sample of the pool: qrels entries with a
negative grade are pooled but not judged. Docs absent from the qrels are
outside the pool. At the relevant doc (grade >= ``rel``) at rank k > 1, with
r = relevant docs above it, n = judged non-relevant docs above it, u = pooled
but unjudged docs above it and eps = 1e-5::

    term = 1/k + ((k-1)/k) * ((r + n + u) / (k-1)) * ((r + eps) / (r + n + 2 eps))

and 1 at rank 1. infAP = sum of terms / R (0 when R = 0). Docs outside the
pool count in k - 1 but in none of r, n, u, so they pull the estimate down
like non-relevant docs; pooled unjudged docs are assumed relevant in the
proportion r / (r + n). When every retrieved doc is judged, infAP equals AP
up to eps.

Examples
--------
a, c relevant, b judged non-relevant, u pooled but not judged (grade -1); the
run ranks a, u, b, c. At c (rank 4): r = n = u = 1, so the term is
1/4 + (3/4) * (3/3) * ((1 + eps) / (2 + 2 eps)) = 0.625, and infAP =
(1 + 0.625) / 2. AP counts u as non-relevant: (1 + 2/4) / 2.

>>> import rankmeter
>>> qrels = {"q": {"a": 1, "b": 0, "c": 1, "u": -1}}
>>> r = rankmeter.evaluate(qrels, {"q": ["a", "u", "b", "c"]}, ["infAP", "AP"])
>>> round(r["infAP"], 4), round(r["AP"], 4)
(0.8125, 0.75)
"""
from __future__ import annotations

import numpy as np

from rankmeter.engine.batch import UNJUDGED
from rankmeter.measures.base import Family, judged_nonrelevant, level_of, register

_EPS = 0.00001  # trec_eval's INFAP_EPSILON


def inferred_ap(batch, m) -> np.ndarray:
    """Per-query infAP (see module docstring); only the relevant ranks are visited."""
    level = level_of(batch, m)
    hits = batch.hits(level)
    r = (hits.seen - 1).astype(np.float64)                         # relevant strictly above
    nonrel = judged_nonrelevant(batch, level)
    n = batch.count_before(nonrel, hits.pos, hits.q).astype(np.float64)
    u = batch.count_before(np.flatnonzero(batch.rel == UNJUDGED), hits.pos, hits.q).astype(np.float64)
    j = (hits.rank - 1).astype(np.float64)                         # docs above, any kind
    later = j > 0
    js = np.where(later, j, 1.0)
    # Same operation order as trec_eval's m_infap.c, so the last digit agrees.
    term = 1.0 / (js + 1.0) + (js / (js + 1.0)) * ((r + n + u) / js) * ((r + _EPS) / (r + n + 2 * _EPS))
    terms = np.where(later, term, 1.0)
    R = batch.num_rel(level)
    out = np.zeros(batch.nq)
    np.divide(np.bincount(hits.q, weights=terms, minlength=batch.nq).astype(np.float64), R, out=out, where=R > 0)
    return out


register(Family("infAP", "inferred AP for sampled judgments (trec_eval infAP; Yilmaz & Aslam 2006)",
                inferred_ap, cutoff="none"))
