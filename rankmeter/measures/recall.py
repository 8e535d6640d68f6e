"""Recall and F: ``R@k``, ``R``, ``F(beta=b)@k``, ``F`` and ``F1``.

``R@k`` is trec_eval's ``recall_k`` (relevant in the top k / R) and ``R``
without a cutoff its ``set_recall`` (relevant retrieved / R); both are 0 when
R = 0.

``F`` is the weighted harmonic mean of precision P and recall R_ (over the
whole retrieved set, or over the top k with a cutoff, P then dividing by k
as ``P@k`` does)::

    F_beta = (1 + beta^2) * P * R_ / (beta^2 * P + R_)     (0 when nothing relevant is found)

so ``beta`` is the usual F-beta weight: beta > 1 favours recall. trec_eval's
``set_F.x`` computes ``(x + 1) * P * R / (x * P + R)`` (m_set_F.c), i.e. its
parameter x is beta squared; ``rankmeter trec_eval -m set_F.x`` maps it to
``F(beta=sqrt(x))``. ``F1`` is ``F`` with beta = 1.

Examples
--------
MEASURES.md S5: A, C, F, G relevant; the run ranks A, B, C, D, G, E, F.
R@5 = 3/4; F1@5 = 2 * 0.6 * 0.75 / 1.35; F(beta=2)@5 = 5 * 0.6 * 0.75 /
(4 * 0.6 + 0.75); trec_eval's ``set_F.4`` is F(beta=2) over the retrieved set:
5 * (4/7) * 1 / (4 * 4/7 + 1) = 20/23.

>>> import rankmeter
>>> qrels = {"q": {"A": 1, "B": 0, "C": 1, "D": 0, "E": 0, "F": 1, "G": 1}}
>>> run = {"q": ["A", "B", "C", "D", "G", "E", "F"]}
>>> r = rankmeter.evaluate(qrels, run, ["R@5", "R", "F1@5", "F(beta=2)@5", "set_F.4"])
>>> for name, value in r.mean.items():
...     print(f"{name:<13}{value:.4f}")
R@5          0.7500
R            1.0000
F1@5         0.6667
F(beta=2)@5  0.7143
set_F.4      0.8696
"""
from __future__ import annotations

import numpy as np

from rankmeter.measures.base import ExplainParts, Family, Param, level_of, register
from rankmeter.measures.undefined import EMPTY_TARGET, MEAN_DEFINED, with_empty_target
from rankmeter.measures.explaining import relevant_in_top


def recall(batch, m) -> np.ndarray:
    """Relevant docs in the top k (all retrieved without a cutoff) / R; 0 when R = 0."""
    level = level_of(batch, m)
    is_rel = batch.is_rel(level)
    hits = batch.per_query_count(is_rel) if m.cutoff is None else batch.count_upto(is_rel, m.cutoff)
    num_rel = batch.num_rel(level)
    out = np.zeros(batch.nq)
    np.divide(hits, num_rel, out=out, where=num_rel > 0)
    return out


def _f_measure(batch, m, beta: float) -> np.ndarray:
    level = level_of(batch, m)
    is_rel = batch.is_rel(level)
    if m.cutoff is None:
        hits = batch.per_query_count(is_rel)
        size = batch.num_ret
    else:
        hits = batch.count_upto(is_rel, m.cutoff)
        size = np.full(batch.nq, m.cutoff, dtype=np.int64)
    found = hits > 0  # implies size > 0 and R > 0
    precision = np.zeros(batch.nq)
    rec = np.zeros(batch.nq)
    np.divide(hits, size, out=precision, where=found)
    np.divide(hits, batch.num_rel(level), out=rec, where=found)
    x = beta * beta
    out = np.zeros(batch.nq)
    # same operation order as trec_eval: (x + 1) * P * R / (x * P + R)
    np.divide((x + 1.0) * precision * rec, x * precision + rec, out=out, where=found)
    return out


def f_measure(batch, m) -> np.ndarray:
    """F-beta of precision and recall (in the top k with a cutoff); 0 when no relevant doc is found."""
    return _f_measure(batch, m, m.get("beta"))


def f1(batch, m) -> np.ndarray:
    """F with beta = 1: 2PR / (P + R)."""
    return _f_measure(batch, m, 1.0)


def _explain_recall(batch, m, label: str) -> ExplainParts:
    level = level_of(batch, m)
    is_rel = relevant_in_top(batch, m, level)
    found, R = int(is_rel.sum()), int(batch.num_rel(level)[0])
    value = found / R if R else 0.0
    return ExplainParts(["relevant", "relevant so far"], [[bool(r), int(s)] for r, s in zip(is_rel, np.cumsum(is_rel))],
                        [f"{label} = {found} relevant retrieved / R = {R} = {value:.4f}"])


register(Family("R", "recall: relevant in the top k / R (no k: relevant retrieved / R); 0 when R = 0",
                with_empty_target(recall), params=(EMPTY_TARGET,), aggregation=MEAN_DEFINED,
                explain=_explain_recall, tie_average="kernel"))
register(Family("F", "F-beta: (1+beta^2)PR / (beta^2 P + R) of P and R in the top k (no k: trec_eval set_F "
                     "with x = beta^2)", f_measure,
                params=(Param("beta", "number", 1.0, "weight of recall relative to precision (trec_eval set_F's x is "
                              "beta^2)", low=0.0),), tie_average="kernel"))
register(Family("F1", "F with beta = 1: harmonic mean of P and R in the top k", f1, tie_average="kernel"))
