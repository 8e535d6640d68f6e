"""Binary preference: ``Bpref`` and ``GMBpref`` (trec_eval ``bpref``, ``gm_bpref``).

Buckley and Voorhees (SIGIR 2004). Only judged docs count: a doc absent from
the qrels or judged with a negative grade is skipped. For each retrieved
relevant doc (grade >= ``rel``), with n = judged non-relevant docs ranked
above it, N = judged non-relevant docs of the query (0 <= grade < ``rel``)
and R = relevant docs of the query::

    term = 1                               if n == 0
           1 - min(n, R) / min(N, R)       otherwise

Bpref = sum of terms / R (0 when R = 0). ``GMBpref`` is the same per query,
summarised by the geometric mean with trec_eval's 1e-5 floor.

Examples
--------
a, c relevant, b, d, e judged non-relevant (R = 2, N = 3); the run ranks
b, a, x, d, c and x is unjudged. a has n = 1 above it: 1 - 1/2; c has n = 2:
1 - 2/2. Bpref = (0.5 + 0) / 2.

>>> import rankmeter
>>> qrels = {"q": {"a": 1, "b": 0, "c": 1, "d": 0, "e": 0}}
>>> r = rankmeter.evaluate(qrels, {"q": ["b", "a", "x", "d", "c"]}, ["Bpref", "AP"])
>>> round(r["Bpref"], 4), round(r["AP"], 4)
(0.25, 0.45)
"""
from __future__ import annotations

import numpy as np

from rankmeter.measures.aggregation import GMEAN
from rankmeter.measures.base import Family, judged_nonrelevant, level_of, register


def bpref(batch, m) -> np.ndarray:
    """Per-query bpref (see module docstring); only the relevant ranks are visited. Bpref and GMBpref
    (all_trec asks for both) read the values computed once per batch and level."""
    level = level_of(batch, m)
    key = ("bpref", level)
    if key not in batch._cache:
        batch._cache[key] = _bpref(batch, level)
    return batch._cache[key].copy()


def _bpref(batch, level) -> np.ndarray:
    hits = batch.hits(level)
    nonrel = judged_nonrelevant(batch, level)
    nonrel_above = batch.count_before(nonrel, hits.pos, hits.q)
    R = batch.num_rel(level)
    N = batch.num_judged_nonrel(level)
    seen = np.minimum(nonrel_above, R[hits.q]).astype(np.float64)
    pool = np.minimum(N, R)[hits.q].astype(np.float64)
    has_nonrel = nonrel_above > 0
    frac = np.zeros(len(seen))
    np.divide(seen, pool, out=frac, where=has_nonrel)
    terms = np.where(has_nonrel, 1.0 - frac, 1.0)
    # summed in rank order per query, as a loop over all ranks adding 0 elsewhere would
    total = np.bincount(hits.q, weights=terms, minlength=batch.nq).astype(np.float64)
    out = np.zeros(batch.nq)
    np.divide(total, R, out=out, where=R > 0)
    return out


register(Family("Bpref", "binary preference: for each relevant doc, the fraction of judged non-relevant docs "
                         "(up to R) not ranked above it, averaged over R (trec_eval bpref)",
                bpref, cutoff="none"))
register(Family("GMBpref", "geometric mean over queries of Bpref (trec_eval gm_bpref)",
                bpref, cutoff="none", aggregation=GMEAN))
