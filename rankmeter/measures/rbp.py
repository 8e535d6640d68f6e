"""Rank-biased precision: ``RBP`` and its residual ``RBP_resid`` (Moffat and Zobel, TOIS 2008).

``RBP(p) = (1 - p) * sum_i g_i * p^(i-1)``: a user reads rank 1 and goes on
from each rank to the next with probability ``p`` (default 0.8; trec_eval's
``rbp`` keeps 0.9). The gain g_i of the doc at rank i (``gain``):

* ``binary`` (default): 1 when its grade is >= ``rel``, else 0;
* ``graded``: grade / ``max_grade`` (grades <= 0 gain 0, grades above it 1).
  ``max_grade`` unset divides by the query's own highest judged grade, the
  rule rankmeter has always had and the one trec_eval intends (its gain table
  is built per query): a query whose best doc is judged 1 on a 0..3 scale
  then gains 1 for it, which inflates queries judged on a narrower scale.
  ``max_grade=k`` divides every query by k; ``max_grade=qrels`` by the
  highest grade of the whole qrels (computed once, so a part of the data
  scores as the whole);
* ``trec_eval``: trec_eval's intended per-query rule (MEASURES.md section 5):
  the gain table holds every level from 0 to the query's highest judged
  grade, with gain = level; if a gain in the table lies outside [0, 1],
  every gain becomes (g - min) / (max - min) over the table. Docs absent
  from the qrels or judged with a negative grade gain 0. (trec_eval 10.0
  reads min and max uninitialised, so its graded rbp is garbage.)
* a map ``{grade: gain}``: the ``trec_eval`` rule with these gains for the
  listed levels, which join the table (trec_eval's ``rbp.p=0.8,2=1``).

``RBP_resid`` is the width of the uncertainty band: ``p^n + (1 - p) *
sum over unjudged ranks i of p^(i-1)``, n = docs retrieved, i.e. how much
RBP could still rise if every unjudged retrieved doc and every doc past the
ranking had gain 1. Under the ``trec_eval`` gain (or a map) it is 0 when no
unjudged doc was retrieved, as trec_eval prints. Powers of p are built by
repeated multiplication, as trec_eval does, so printed values agree.

RBP is the C/W/L measure with continuation p: ``quantity`` gives its other
numbers as cwl_eval does over 1000 ranks (see :mod:`rankmeter.measures.cwl`):
``EU`` the expected gain collected, ``EC`` the expected docs inspected before
stopping, ``ED`` the expected depth 1/(W_1) = (1 - p^1000) / (1 - p); on
``RBP_resid`` the residual of that number. ``ERG``, the default, is RBP itself.

Examples
--------
Grades a = 2, b = 0, c = 1; the run ranks a, b, c, d (d unjudged).
RBP(p=0.5) = 0.5 * (1 + 0.5^2) with a, c relevant; at p = 0.8:
0.2 * (1 + 0.8^2); graded gains 1, 0, 1/2: 0.5 * (1 + 0.5 * 0.25);
RBP_resid(p=0.5) = 0.5^4 + 0.5 * 0.5^3 (d at rank 4).

>>> import rankmeter
>>> qrels = {"q": {"a": 2, "b": 0, "c": 1}}
>>> r = rankmeter.evaluate(qrels, {"q": ["a", "b", "c", "d"]},
...                        ["RBP(p=0.5)", "RBP", "RBP(p=0.5, gain=graded)", "RBP_resid(p=0.5)"])
>>> for name, value in r.mean.items():
...     print(f"{name:<25}{value:.4f}")
RBP(p=0.5)               0.6250
RBP                      0.3280
RBP(p=0.5, gain=graded)  0.5625
RBP_resid(p=0.5)         0.1250
"""
from __future__ import annotations

import numpy as np

from rankmeter.measures.base import ExplainParts, Family, Param, level_of, register
from rankmeter.measures.cwl import CONTINUATIONS, QUANTITY, cwl_quantity
from rankmeter.measures.explaining import fmt_number

#: ranks the C/W/L quantities other than ERG run over (cwl_eval's default --max_depth)
_CWL_DEPTH = 1000


def _powers(p: float, n: int) -> np.ndarray:
    """1, p, p*p, ... (n + 1 values), each the previous times p."""
    return np.cumprod(np.concatenate(([1.0], np.full(n, p))))


def _table_gains(batch, pairs: tuple, rel: np.ndarray | None = None, q: np.ndarray | None = None) -> np.ndarray:
    """Per-rank gain under trec_eval's intended table rule with gain overrides ``pairs``
    (of the ranks of grades ``rel`` in queries ``q``; every rank by default)."""
    if rel is None:
        rel, q = batch.rel, batch.qidx
    keys = np.array([k for k, _ in pairs], dtype=np.int64)
    vals = np.array([v for _, v in pairs], dtype=np.float64)
    # Table levels: 0..L-1 (L = highest judged grade + 1, 0 without judged grades >= 0) plus the keys.
    L = np.where(batch.num_rel(0) > 0, batch.max_grade + 1, 0)
    low = 0
    while low in set(keys.tolist()):
        low += 1
    high = L - 1
    for _ in range(len(keys)):
        high = np.where(np.isin(high, keys), high - 1, high)
    has_plain = (low < L) & (high >= 0)
    tmin = np.where(has_plain, float(low), np.inf)
    tmax = np.where(has_plain, high.astype(np.float64), -np.inf)
    if len(keys):
        tmin = np.minimum(tmin, vals.min())
        tmax = np.maximum(tmax, vals.max())
    g = np.where(rel > 0, rel.astype(np.float64), 0.0)
    in_table = rel >= 0
    for k, v in pairs:
        g[rel == k] = v
        in_table |= rel == k
    rescale = ((tmin < 0) | (tmax > 1)) & (tmax > tmin)
    lo = np.where(rescale, tmin, 0.0)[q]
    span = np.where(rescale, tmax - tmin, 1.0)[q]
    return np.where(in_table, (g - lo) / span, 0.0)


def _gains(batch, m) -> np.ndarray:
    spec = m.get("gain")
    if spec == "binary":
        return batch.is_rel(level_of(batch, m)).astype(np.float64)
    if spec == "graded":
        return _graded_gains(batch, m, batch.rel, batch.qidx)
    return _table_gains(batch, () if spec == "trec_eval" else spec)


def _graded_gains(batch, m, rel: np.ndarray, q: np.ndarray) -> np.ndarray:
    """gain=graded of the ranks of grades ``rel`` in queries ``q``: grade / max_grade, within [0, 1]."""
    scale = m.get("max_grade")
    if scale is None:
        top = batch.max_grade[q].astype(np.float64)
    else:
        top = np.full(len(rel), float(batch.needs["qrels_max_grade"] if scale == "qrels" else scale))
    out = np.zeros(len(rel))
    np.divide(np.minimum(rel, top), top, out=out, where=(rel > 0) & (top > 0))
    return out


def _cwl(batch, m, *, residual: bool) -> np.ndarray:
    """RBP's C/W/L quantity (or its residual) over cwl_eval's 1000 ranks."""
    gains = _gains(batch, m)
    options = {"quantity": m.get("quantity"), "depth": _CWL_DEPTH}
    worst = cwl_quantity(batch, m, gains, CONTINUATIONS["RBP"], **options)
    if not residual:
        return worst
    return cwl_quantity(batch, m, gains, CONTINUATIONS["RBP"], best_case=True, **options) - worst


def _gain_rows(batch, m) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(query, rank, gain) of the only ranks whose gain can be nonzero, or None to take every rank.

    Most retrieved docs gain nothing (unjudged or non-relevant), so summing over the others alone is
    the same sum, term for term in the same order, at a fraction of the cost. Gain maps may give
    grade 0 or unjudged docs a gain, and averaged ties spread gains over groups: those go rank by rank.
    """
    spec = m.get("gain")
    if batch.tie_group is not None or spec not in ("binary", "graded", "trec_eval"):
        return None
    if spec == "binary":
        hits = batch.hits(level_of(batch, m))
        return hits.q, hits.rank, np.ones(len(hits.q))
    pos = np.flatnonzero(batch.rel > 0)
    q = batch.query_of(pos)
    rel = batch.rel[pos]
    g = _graded_gains(batch, m, rel, q) if spec == "graded" else _table_gains(batch, (), rel, q)
    return q, pos - batch.offsets[q] + 1, g


def rbp(batch, m) -> np.ndarray:
    """(1 - p) * sum_i g_i p^(i-1) per query."""
    if m.get("quantity") != "ERG":
        return _cwl(batch, m, residual=False)
    p = m.get("p")
    powers = _powers(p, int(batch.num_ret.max(initial=0)))
    rows = _gain_rows(batch, m)
    if rows is not None:
        q, rank, g = rows
        return (1.0 - p) * np.bincount(q, weights=g * powers[rank - 1], minlength=batch.nq).astype(np.float64)
    g = batch.tie_mean(_gains(batch, m))  # ties averaged: each rank holds its tied group's mean gain
    return (1.0 - p) * batch.per_query_sum(g * powers[batch.rank - 1])


def _unjudged_powers_sum(batch, powers: np.ndarray) -> np.ndarray:
    """Per query, the sum over its unjudged ranks i of p^(i-1), added rank by rank (m_rbp_resid.c's loop)."""
    unjudged = batch.rel < 0
    depth = batch.num_ret
    if batch.tie_group is None and batch.nq and (depth == depth[0]).all():
        # rankings of one length (a run cut at a fixed depth): a queries x ranks table, summed along each row
        # from its first rank; the judged ranks add 0, as they add nothing in the loop
        if depth[0] == 0:
            return np.zeros(batch.nq)
        terms = np.where(unjudged.reshape(batch.nq, int(depth[0])), powers[:depth[0]], 0.0)
        return np.cumsum(terms, axis=1)[:, -1]
    weight = batch.tie_mean(unjudged.astype(np.float64))  # 1 per unjudged rank; its group's mean if averaged
    return batch.per_query_sum(weight * powers[batch.rank - 1])


def rbp_resid(batch, m) -> np.ndarray:
    """p^n + (1 - p) * sum over unjudged ranks of p^(i-1); trec_eval's 0 without unjudged docs."""
    if m.get("quantity") != "ERG":
        return _cwl(batch, m, residual=True)
    p = m.get("p")
    powers = _powers(p, int(batch.num_ret.max(initial=0)))
    out = powers[batch.num_ret] + (1.0 - p) * _unjudged_powers_sum(batch, powers)
    if m.get("gain") not in ("binary", "graded"):
        # counted as the ranks less the judged ones: judged docs are few, unjudged ones many
        out[batch.num_ret == batch.per_query_count(batch.judged_mask)] = 0.0
    return out


def _explain_rbp(batch, m, label: str) -> ExplainParts:
    """Per rank the kernel's own gain, the weight (1 - p) p^(i-1) and their product."""
    p = m.get("p")
    gains = _gains(batch, m)
    weights = (1.0 - p) * _powers(p, len(gains))[:len(gains)]
    contribution = gains * weights
    terms = " + ".join(f"{fmt_number(g)}*{fmt_number(w, 4)}" for g, w in zip(gains, weights) if g != 0) or "0"
    if m.get("quantity") != "ERG":
        value = float(rbp(batch, m)[0])
        return ExplainParts(["gain", "weight"], [list(r) for r in zip(gains, weights)],
                            [f"{label} = {value:.4f}  (the C/W/L {m.get('quantity')} of RBP's user model over "
                             f"{_CWL_DEPTH} ranks)"])
    return ExplainParts(["gain", "weight", "contribution"], [list(r) for r in zip(gains, weights, contribution)],
                        [f"{label} = sum g_i (1-p) p^(i-1) = {terms} = {float(contribution.sum()):.4f}"])


_PARAMS = (
    Param("p", "number", 0.8, "persistence: probability of going on to the next rank (p = 1 would give every ranking "
          "0)", low=0.0, high=1.0, high_open=True),
    Param("gain", "choice_or_gains", "binary", "gain of a doc: binary (grade >= rel), graded (grade / highest "
          "grade), trec_eval (trec_eval's per-query table rule) or a map {grade: gain} for that rule",
          choices=("binary", "graded", "trec_eval")),
    Param("max_grade", "integer", None, "gain=graded divides by this grade (higher grades gain 1): an integer, qrels "
          "(the highest grade of the whole qrels) or unset (each query's own highest judged grade)",
          choices=("qrels",), low=1),
    QUANTITY,
)

register(Family("RBP", "rank-biased precision: (1 - p) sum_i g_i p^(i-1) (Moffat & Zobel 2008; trec_eval rbp)",
                rbp, params=_PARAMS, cutoff="none", needs=("qrels_max_grade",), explain=_explain_rbp,
                tie_average="kernel"))
register(Family("RBP_resid", "RBP residual: how much RBP could rise if unjudged docs had gain 1 "
                             "(trec_eval rbp_resid)", rbp_resid, params=_PARAMS, cutoff="none",
                needs=("qrels_max_grade",), tie_average="kernel"))
