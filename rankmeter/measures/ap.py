"""Average precision: ``AP``, ``AP@k`` (trec_eval ``map``, ``map_cut_k``) and ``GMAP``.

AP = sum over relevant docs at rank i <= k of precision at i, divided by the
denominator: ``R`` (trec_eval, ranx), ``min`` = min(R, k) (Spark MAP@k,
RecBole) or ``hits`` = relevant retrieved in the top k (TorchMetrics).
"""
from __future__ import annotations

import numpy as np

from .base import Family, Param, level_of, register


def average_precision(batch, m) -> np.ndarray:
    level = level_of(batch, m)
    k = m.cutoff
    is_rel = batch.is_rel(level)
    seen = batch.rel_seen(level)
    take = is_rel if k is None else is_rel & (batch.rank <= k)
    precision_sum = batch.per_query_sum(np.where(take, seen / batch.rank, 0.0))
    denom_kind = m.get("denom")
    R = batch.num_rel(level).astype(np.float64)
    if denom_kind == "R":
        denom = R
    elif denom_kind == "min":
        denom = R if k is None else np.minimum(R, k)
    else:  # hits
        denom = batch.per_query_count(take).astype(np.float64)
    out = np.zeros(batch.nq)
    np.divide(precision_sum, denom, out=out, where=denom > 0)
    return out


_DENOM = Param("denom", "R", "divide by R (trec_eval), min(R, k) or the relevant retrieved in the top k",
               kind="choice", choices=("R", "min", "hits"))

register(Family("AP", "average precision: mean of precision at each relevant doc (over R)",
                average_precision, params=(_DENOM,)))
register(Family("GMAP", "geometric mean over queries of AP (trec_eval gm_map)",
                average_precision, params=(_DENOM,), aggregate="gmean"))
