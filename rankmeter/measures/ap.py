"""Average precision: ``AP``, ``AP@k`` (trec_eval ``map``, ``map_cut_k``) and ``GMAP``.

AP = sum over relevant docs at rank i <= k of precision at i, divided by the
denominator: ``R`` (trec_eval, ranx), ``min`` = min(R, k) (Spark MAP@k,
RecBole) or ``hits`` = relevant retrieved in the top k (TorchMetrics).

``SetAP`` is trec_eval's unranked ``set_map``: (relevant retrieved)^2 /
(retrieved * R), i.e. set precision times set recall; 0 when nothing was
retrieved or R = 0.

Examples
--------
MEASURES.md S1: topic 1 has 4 relevant docs, retrieved at ranks 1, 2, 4, 7;
topic 2 has 5, retrieved at ranks 1, 3, 5. AP = (1/1 + 2/2 + 3/4 + 4/7) / 4 =
0.8304 and (1/1 + 2/3 + 3/5) / 5 = 0.4533; at k = 3 the denominators are 4 and
5 (R), 3 and 3 (min), 2 and 2 (hits).

>>> import rankmeter
>>> qrels = {"1": {"d1": 1, "d2": 1, "d4": 1, "d7": 1}, "2": {"e1": 1, "e3": 1, "e5": 1, "x1": 1, "x2": 1}}
>>> run = {"1": [f"d{i}" for i in range(1, 8)], "2": [f"e{i}" for i in range(1, 6)]}
>>> r = rankmeter.evaluate(qrels, run, ["AP", "GMAP", "AP@3", "AP(denom=min)@3", "AP(denom=hits)@3", "SetAP"])
>>> for name, value in r.mean.items():
...     print(f"{name:<18}{value:.4f}")
AP                0.6418
GMAP              0.6135
AP@3              0.4167
AP(denom=min)@3   0.6111
AP(denom=hits)@3  0.9167
SetAP             0.4657
"""
from __future__ import annotations

import numpy as np

from rankmeter.errors import MeasureError
from rankmeter.measures.aggregation import GMEAN
from rankmeter.measures.base import ExplainParts, Family, Param, level_of, register
from rankmeter.measures.undefined import EMPTY_TARGET, MEAN_DEFINED, with_empty_target
from rankmeter.measures.explaining import relevant_in_top


def average_precision(batch, m) -> np.ndarray:
    level = level_of(batch, m)
    k = m.cutoff
    hits = batch.hits(level)
    take = slice(None) if k is None else hits.rank <= k
    q = hits.q[take]
    precision_sum = np.bincount(q, weights=hits.seen[take] / hits.rank[take], minlength=batch.nq)
    denom_kind = m.get("denom")
    R = batch.num_rel(level).astype(np.float64)
    if denom_kind == "R":
        denom = R
    elif denom_kind == "min":
        denom = R if k is None else np.minimum(R, k)
    else:  # hits
        denom = np.bincount(q, minlength=batch.nq).astype(np.float64)
    out = np.zeros(batch.nq)
    np.divide(precision_sum, denom, out=out, where=denom > 0)
    return out


def _ap_over_tie_orders(batch, m) -> np.ndarray:
    """Expected AP over the orders of tied docs (McSherry and Najork 2008, section 4).

    In a tied group of t docs, r of them relevant, after s ranks holding b
    relevant docs, the group's i-th rank is relevant with probability r / t,
    and then holds b + 1 + (i - 1)(r - 1)/(t - 1) relevant docs at or above
    it on average: the expected precision term of rank s + i.
    """
    if m.get("denom") == "hits":
        raise MeasureError("AP(denom=hits) divides by the relevant docs in the top k, which depends on the "
                           "tied docs' order: no closed form; use denom=R or denom=min with ties='average'")
    level = level_of(batch, m)
    relevant = batch.is_rel(level).astype(np.float64)
    group, start, size = batch.tie_layout()
    r = np.bincount(group, weights=relevant)[group]
    before = batch.rel_seen(level)[start] - relevant[start]
    i = np.arange(len(group)) - start + 1
    spread = np.divide(r - 1, size - 1, out=np.zeros(len(group)), where=size > 1)
    term = (r / size) * (before + 1 + (i - 1) * spread) / batch.rank
    inside = slice(None) if m.cutoff is None else batch.rank <= m.cutoff
    precision_sum = np.bincount(batch.qidx[inside], weights=term[inside], minlength=batch.nq)
    R = batch.num_rel(level).astype(np.float64)
    denom = R if m.get("denom") == "R" or m.cutoff is None else np.minimum(R, m.cutoff)
    out = np.zeros(batch.nq)
    np.divide(precision_sum, denom, out=out, where=denom > 0)
    return out


def _explain_ap(batch, m, label: str) -> ExplainParts:
    """Precision at each relevant rank, their running sum and the denominator the kernel uses."""
    level, k = level_of(batch, m), m.cutoff
    is_rel = relevant_in_top(batch, m, level)
    seen = np.cumsum(is_rel)
    ranks = np.arange(1, len(is_rel) + 1)
    running = np.cumsum(np.where(is_rel, seen / ranks, 0.0))
    R = int(batch.num_rel(level)[0])
    denom = {"R": R, "min": R if k is None else min(R, k), "hits": int(is_rel.sum())}[m.get("denom")]
    what = {"R": "R (relevant judged)", "min": "min(R, k)", "hits": "relevant retrieved"}[m.get("denom")]
    terms = " + ".join(f"{s}/{r}" for s, r in zip(seen[is_rel], ranks[is_rel])) or "0"
    total = float(running[-1]) if len(running) else 0.0
    value = total / denom if denom else 0.0
    rows = [[bool(r), int(s) if r else None, s / i if r else None, t]
            for r, s, i, t in zip(is_rel, seen, ranks, running)]
    return ExplainParts(["relevant", "relevant so far", "precision", "running sum"], rows,
                        [f"{label} = ({terms}) / {denom} = {value:.4f}    [divided by {what}]"])


_DENOM = Param("denom", "choice", "R", "divide by R (trec_eval), min(R, k) or the relevant retrieved in the top k",
               choices=("R", "min", "hits"))

register(Family("AP", "average precision: mean of precision at each relevant doc (over R)",
                with_empty_target(average_precision), params=(_DENOM, EMPTY_TARGET), aggregation=MEAN_DEFINED,
                explain=_explain_ap, tie_average=with_empty_target(_ap_over_tie_orders)))
register(Family("GMAP", "geometric mean over queries of AP (trec_eval gm_map)",
                average_precision, params=(_DENOM,), aggregation=GMEAN, explain=_explain_ap, tie_average=_ap_over_tie_orders))


def set_average_precision(batch, m) -> np.ndarray:
    """Relevant retrieved squared / (retrieved * R)."""
    level = level_of(batch, m)
    hits = batch.per_query_count(batch.is_rel(level)).astype(np.float64)
    denom = batch.num_ret.astype(np.float64) * batch.num_rel(level).astype(np.float64)
    out = np.zeros(batch.nq)
    np.divide(hits * hits, denom, out=out, where=denom > 0)
    return out


register(Family("SetAP", "unranked AP of the retrieved set: P * R over all retrieved (trec_eval set_map)",
                set_average_precision, cutoff="none"))
