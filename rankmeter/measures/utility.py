"""Set utility: ``Utility(rel_ret=a, nonrel_ret=b, rel_nonret=c, nonrel_nonret=d)``.

trec_eval's ``utility.a,b,c,d`` (m_utility.c): a weighted sum over the
retrieval's contingency table ::

    rel_ret * (relevant retrieved)
  + nonrel_ret * (retrieved - relevant retrieved)
  + rel_nonret * (R - relevant retrieved)
  + nonrel_nonret * (num_docs + relevant retrieved - retrieved - R)

with trec_eval's defaults 1, -1, 0, 0 (its parameters in this order).
Unjudged retrieved docs count as non-relevant. ``num_docs`` is the
collection size (trec_eval's ``-N``, default 0), only needed when
``nonrel_nonret`` is not 0. The summary is the mean over queries, as in
trec_eval.

Examples
--------
a, b, c relevant; the run returns a, x, b, y (x, y unjudged): 2 relevant
retrieved, 2 non-relevant retrieved, 1 relevant missed. Defaults:
2 - 2 = 0; with weights 2, -1, -1: 4 - 2 - 1 = 1.

>>> import rankmeter
>>> qrels = {"q": {"a": 1, "b": 1, "c": 1}}
>>> run = {"q": ["a", "x", "b", "y"]}
>>> rankmeter.evaluate(qrels, run, ["Utility", "Utility(rel_ret=2, nonrel_ret=-1, rel_nonret=-1)"]).mean
{'Utility': 0.0, 'Utility(rel_ret=2, nonrel_ret=-1, rel_nonret=-1)': 1.0}
"""
from __future__ import annotations

import numpy as np

from rankmeter.measures.base import Family, Param, level_of, register


def utility(batch, m) -> np.ndarray:
    """Weighted sum of the per-query contingency table counts."""
    level = level_of(batch, m)
    rel_ret = batch.per_query_count(batch.is_rel(level))
    ret = batch.num_ret
    num_rel = batch.num_rel(level)
    # each count is formed in integers, then weighted and added left to right (as m_utility.c)
    return (m.get("rel_ret") * rel_ret.astype(np.float64)
            + m.get("nonrel_ret") * (ret - rel_ret).astype(np.float64)
            + m.get("rel_nonret") * (num_rel - rel_ret).astype(np.float64)
            + m.get("nonrel_nonret") * (m.get("num_docs") + rel_ret - ret - num_rel).astype(np.float64))

register(Family("Utility", "weighted sum of relevant/non-relevant retrieved/not retrieved counts "
                           "(trec_eval utility)", utility, cutoff="none", params=(
    Param("rel_ret", "number", 1.0, "worth of each relevant retrieved doc", low=-1e150, high=1e150),
    Param("nonrel_ret", "number", -1.0, "worth of each non-relevant (or unjudged) retrieved doc",
          low=-1e150, high=1e150),
    Param("rel_nonret", "number", 0.0, "worth of each relevant doc not retrieved", low=-1e150,
          high=1e150),
    Param("nonrel_nonret", "number", 0.0, "worth of each non-relevant doc not retrieved (needs num_docs)", low=-1e150,
          high=1e150),
    Param("num_docs", "integer", 0, "collection size, for the non-relevant not retrieved count (trec_eval -N)", low=0),
)))
