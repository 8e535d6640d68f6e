"""Precision: ``P@k`` (trec_eval ``P_k``) and ``P`` without cutoff (trec_eval ``set_P``).

P@k divides by k even when fewer than k docs were retrieved (trec_eval).

Also the precision variants of trec_eval:

* ``RelativeP@k`` (``relative_P_k``): relevant in the top k / min(k, R), the
  fraction of the best possible precision at k; ``RelativeP`` without a
  cutoff (``set_relative_P``): relevant retrieved / min(retrieved, R).
  Both are 0 when R = 0.
* ``Rprec`` (``Rprec``): relevant in the top R / R.
* ``RprecMult(mult=m)`` (``Rprec_mult_m``): precision at rank
  c = floor(m * R + 0.9) (trec_eval's ``(long)(m*R+0.9)``, kept in 10.0),
  missing ranks counting as non-relevant; 0 when c = 0.

Examples
--------
MEASURES.md S5: A, C, F, G relevant; the run ranks A, B, C, D, G, E, F.
P@5 = 3/5, P@10 = 4/10, P = 4/7, RelativeP@5 = 3/min(5, 4), Rprec = 2/4,
RprecMult(mult=0.5) = 1/2 at rank floor(0.5 * 4 + 0.9) = 2.

>>> import rankmeter
>>> qrels = {"q": {"A": 1, "B": 0, "C": 1, "D": 0, "E": 0, "F": 1, "G": 1}}
>>> run = {"q": ["A", "B", "C", "D", "G", "E", "F"]}
>>> r = rankmeter.evaluate(qrels, run, ["P@5", "P@10", "P", "RelativeP@5", "Rprec", "RprecMult(mult=0.5)"])
>>> for name, value in r.mean.items():
...     print(f"{name:<21}{value:.4f}")
P@5                  0.6000
P@10                 0.4000
P                    0.5714
RelativeP@5          0.7500
Rprec                0.5000
RprecMult(mult=0.5)  0.5000
"""
from __future__ import annotations

import numpy as np

from rankmeter.measures.aggregation import COUNT
from rankmeter.measures.base import ExplainParts, Family, Param, level_of, register
from rankmeter.measures.explaining import relevant_in_top
from rankmeter.measures.undefined import EMPTY_TARGET, MEAN_DEFINED, with_empty_target


def precision(batch, m) -> np.ndarray:
    hits = batch.hits(level_of(batch, m))
    if m.cutoff is None:
        found = np.bincount(hits.q, minlength=batch.nq)
        out = np.zeros(batch.nq)
        np.divide(found, batch.num_ret, out=out, where=batch.num_ret > 0)
        return out
    return batch.count_upto(batch.is_rel(level_of(batch, m)), m.cutoff) / m.cutoff


def _explain_precision(batch, m, label: str) -> ExplainParts:
    is_rel = relevant_in_top(batch, m, level_of(batch, m))
    found = int(is_rel.sum())
    denom, what = (m.cutoff, "(k)") if m.cutoff is not None else (len(is_rel), "retrieved")
    value = found / denom if denom else 0.0
    return ExplainParts(["relevant", "relevant so far"], [[bool(r), int(s)] for r, s in zip(is_rel, np.cumsum(is_rel))],
                        [f"{label} = {found} relevant / {denom} {what} = {value:.4f}"])


register(Family("P", "precision: relevant in the top k / k (no k: relevant retrieved / retrieved)",
                with_empty_target(precision), params=(EMPTY_TARGET,), aggregation=MEAN_DEFINED,
                explain=_explain_precision, tie_average="kernel"))


def relative_precision(batch, m) -> np.ndarray:
    """Relevant in the top k / min(k, R) (no k: relevant retrieved / min(retrieved, R)); 0 when R = 0."""
    level = level_of(batch, m)
    is_rel = batch.is_rel(level)
    num_rel = batch.num_rel(level)
    if m.cutoff is None:
        hits = batch.per_query_count(is_rel)
        best = np.minimum(batch.num_ret, num_rel)
    else:
        hits = batch.count_upto(is_rel, m.cutoff)
        best = np.minimum(m.cutoff, num_rel)
    out = np.zeros(batch.nq)
    np.divide(hits, best, out=out, where=best > 0)
    return out


def _precision_at(batch, is_rel, k: np.ndarray) -> np.ndarray:
    """Per query, relevant in the top k / k for a per-query k; 0 where k = 0."""
    out = np.zeros(batch.nq)
    np.divide(batch.count_upto(is_rel, k), k, out=out, where=k > 0)
    return out


def r_precision(batch, m) -> np.ndarray:
    """Relevant in the top R / R; 0 when R = 0."""
    level = level_of(batch, m)
    return _precision_at(batch, batch.is_rel(level), batch.num_rel(level))


def r_precision_mult(batch, m) -> np.ndarray:
    """Precision at rank floor(mult * R + 0.9), as trec_eval's Rprec_mult."""
    level = level_of(batch, m)
    k = np.trunc(m.get("mult") * batch.num_rel(level) + 0.9).astype(np.int64)
    return _precision_at(batch, batch.is_rel(level), k)


register(Family("RelativeP", "relevant in the top k / min(k, R) (no k: relevant retrieved / min(retrieved, R))",
                relative_precision, tie_average="kernel"))
register(Family("Rprec", "R-precision: relevant in the top R / R", with_empty_target(r_precision),
                params=(EMPTY_TARGET,), cutoff="none", aggregation=MEAN_DEFINED, tie_average="kernel"))
register(Family("RprecMult", "precision at rank floor(mult * R + 0.9) (trec_eval Rprec_mult)", r_precision_mult,
                params=(Param("mult", "number", 1.0, "multiple of R at which precision is taken",
                              low=0.0),),
                cutoff="none", tie_average="kernel"))


def hits(batch, m) -> np.ndarray:
    """Relevant docs in the top k (all retrieved without a cutoff): ranx's ``hits``."""
    is_rel = batch.is_rel(level_of(batch, m))
    return batch.per_query_count(is_rel) if m.cutoff is None else batch.count_upto(is_rel, m.cutoff)


register(Family("Hits", "number of relevant docs in the top k (ranx hits); its mean over queries", hits,
                value_type=COUNT, tie_average="kernel"))
