"""Gain-based measures: ``CG``, ``NCG``, ``DCG``, ``nDCG`` and trec_eval's ``nDCGRel``, ``RnDCG``, ``G``, ``BinG``.

nDCG has three choices (MEASURES.md section 4, "nDCG: the three choices"):

* ``gain``: ``linear`` (g = grade, trec_eval), ``exp`` (g = 2^grade - 1) or a
  map ``{grade: gain}``. Grades <= 0 gain 0 under ``linear`` and ``exp``. A
  map overrides the linear gain of the grades it lists and leaves the others
  at their grade, as trec_eval's ``ndcg.1=3,2=9`` does; its keys are
  trec_eval relevance values, so a map may give grade 0 a gain, and -1 / -2
  are the markers of docs absent from the qrels / judged with a negative
  grade. Mapped gains may be negative: they count in the DCG of a ranking,
  never in an ideal one.
* ``discount``: ``log2`` (gain / log2(i + 1)) or ``jk`` (Järvelin and
  Kekäläinen with base 2: gain for i < 2, gain / log2(i) from rank 2 on).
  ``log_base`` b (``DCG`` and ``nDCG``; scikit-learn's ``dcg_score`` /
  ``ndcg_score``) replaces 2 by b: gain / log_b(i + 1), or for ``jk`` gain
  for i < b and gain / log_b(i) after (Järvelin and Kekäläinen's b).
* ``ideal``: ``qrels`` (best ordering of every judged doc of the query,
  trec_eval), ``run`` (best ordering of the docs the run returned) or ``topk``
  (best ordering of the run's top k docs). A zero ideal gives nDCG 0.

``NCG@k`` is CG@k over the CG@k of the same ideal ranking (Järvelin and
Kekäläinen 2002's normalised cumulative gain): the share of the best possible
gain in the top k, with no discount.

Under trec_eval's names, ``ndcg`` is ``nDCG`` (gain map from its parameters)
and ``ndcg_cut_k`` is ``nDCG@k``; neither uses ``-l``. ``nDCGRel``
(``ndcg_rel``), ``RnDCG`` (``Rndcg``), ``G`` and ``BinG`` (``binG``) follow
trec_eval 10.0's m_*.c definitions, documented on each kernel. Sums are
added rank by rank, as trec_eval's loops add them, so printed values agree
to the last digit.

Examples
--------
MEASURES.md S3: top-5 grades 5, 3, 2, 1, 2; the query's judged grades 5, 3,
2, 1, 2, 4, 0. DCG(gain=exp)@5 = 31/1 + 7/1.585 + 3/2 + 1/2.322 + 3/2.585,
its ideal (5, 4, 3, 2, 2) 31/1 + 15/1.585 + 7/2 + 3/2.322 + 3/2.585 = 46.4165.

>>> import rankmeter
>>> qrels = {"1": {"d1": 5, "d2": 3, "d3": 2, "d4": 1, "d5": 2, "d6": 4, "d7": 0}}
>>> run = {"1": ["d1", "d2", "d3", "d4", "d5"]}
>>> r = rankmeter.evaluate(qrels, run, ["CG@5", "DCG(gain=exp)@5", "nDCG(gain=exp)@5", "nDCG@5",
...                                     "nDCG(gain=exp, ideal=topk)@5", "DCG(gain=exp, discount=jk)@5"])
>>> for name, value in r.mean.items():
...     print(f"{name:<30}{value:.4f}")
CG@5                          13.0000
DCG(gain=exp)@5               38.5077
nDCG(gain=exp)@5              0.8296
nDCG@5                        0.8535
nDCG(gain=exp, ideal=topk)@5  0.9977
DCG(gain=exp, discount=jk)@5  41.6848

NCG@5 = 13 / (5 + 4 + 3 + 2 + 2) = 0.8125; DCG(log_base=10)@5 is DCG@5 times
log2(10): the base only scales DCG, and nDCG does not depend on it.

>>> r = rankmeter.evaluate(qrels, run, ["NCG@5", "DCG(log_base=10)@5", "DCG@5", "nDCG(log_base=10)@5"])
>>> for name, value in r.mean.items():
...     print(f"{name:<22}{value:.4f}")
NCG@5                 0.8125
DCG(log_base=10)@5    30.2201
DCG@5                 9.0972
nDCG(log_base=10)@5   0.8535
"""
from __future__ import annotations

import numpy as np

from rankmeter.errors import MeasureError
from rankmeter.measures.base import ExplainParts, Family, Param, level_of, register
from rankmeter.measures.explaining import explained_depth, fmt_number
from rankmeter.measures.gains import EXP_SAFE_GRADE, exp_shift, gain_values, gains_of as _gains, unscaled as _unscaled
from rankmeter.measures.undefined import EMPTY_TARGET, MEAN_DEFINED, with_empty_target
from rankmeter.measures.gain_sums import (desc_by_query, discounted, denominators, gather_prefix, ideal_gains,
                                        ideal_side, run_dcg_at, run_side, safe_div, segment_offsets_of,
                                        seq_cumsum)

__all__ = ["gain_values", "seq_cumsum", "desc_by_query"]


# ---------------------------------------------------------- CG, DCG, nDCG
def _top_rows(batch, k):
    """Row indices of the top k ranks (every row without a cutoff) and their query and rank."""
    if k is None:
        return slice(None), batch.qidx, batch.rank
    rows = np.flatnonzero(batch.rank <= k)
    return rows, batch.qidx[rows], batch.rank[rows]


def cumulative_gain(batch, m) -> np.ndarray:
    """Sum of the gains in the top k (the whole ranking without a cutoff)."""
    return _unscaled(batch, m, _cumulative_gain_scaled(batch, m))


def _cumulative_gain_scaled(batch, m) -> np.ndarray:
    rows, q, _ = _top_rows(batch, m.cutoff)
    if batch.tie_group is not None:  # ties averaged: each rank holds its tied group's mean gain
        g = batch.tie_mean(_gains(batch, batch.rel, batch.qidx, m.get("gain")))[rows]
    else:
        g = _gains(batch, batch.rel[rows], q, m.get("gain"))
    return np.bincount(q, weights=g, minlength=batch.nq).astype(np.float64)


def _dcg(batch, m) -> np.ndarray:
    log_base = m.get("log_base")
    if batch.tie_group is not None:  # ties averaged: each rank holds its tied group's mean gain
        rows, q, rank = _top_rows(batch, m.cutoff)
        g = batch.tie_mean(_gains(batch, batch.rel, batch.qidx, m.get("gain")))[rows]
        return np.bincount(q, weights=discounted(g, rank, m.get("discount"), log_base), minlength=batch.nq)
    # only ranks with a gain add to the sum (in rank order, as adding the zeros would)
    _, q, rank, g, _ = run_side(batch, m.get("gain"))
    if m.cutoff is not None:
        top = rank <= m.cutoff
        q, rank, g = q[top], rank[top], g[top]
    d = discounted(g, rank, m.get("discount"), log_base)
    return np.bincount(q, weights=d, minlength=batch.nq).astype(np.float64)


def discounted_cumulative_gain(batch, m) -> np.ndarray:
    """sum over ranks i <= k of gain(rel_i) discounted by rank."""
    return _unscaled(batch, m, _dcg(batch, m))


def _ideal_list(batch, m):
    """The ideal ranking's positive gains per query, best first: values, query index, 1-based position."""
    spec, k, ideal = m.get("gain"), m.cutoff, m.get("ideal")
    if ideal == "topk" and batch.tie_group is not None:
        raise MeasureError("nDCG(ideal=topk) reorders the top k the run retrieved, which depends on the "
                           "tied docs' order: no closed form; use ideal=qrels or ideal=run with ties='average'")
    if ideal == "qrels":
        vals, q, _, pos = ideal_gains(batch, spec)
    else:
        rows, q, _ = _top_rows(batch, k if ideal == "topk" else None)
        g = _gains(batch, batch.rel[rows], q, spec)
        vals, q, _, pos = desc_by_query(g[g > 0], q[g > 0], batch.nq)
    return vals, q, pos


def _ideal_dcg(batch, m) -> np.ndarray:
    k = m.cutoff
    vals, q, pos = _ideal_list(batch, m)
    d = discounted(vals, pos, m.get("discount"), m.get("log_base"))
    if k is not None:
        d = np.where(pos <= k, d, 0.0)
    return np.bincount(q, weights=d, minlength=batch.nq).astype(np.float64)


def ndcg(batch, m) -> np.ndarray:
    """DCG@k over the DCG@k of the ideal ordering; 0 when the ideal is 0."""
    if batch.tie_group is None and m.get("discount") == "log2" and m.get("log_base") == 2.0 \
            and m.get("ideal") == "qrels":
        return _ndcg_from_running_sums(batch, m)
    return safe_div(_dcg(batch, m), _ideal_dcg(batch, m))


def _ndcg_from_running_sums(batch, m) -> np.ndarray:
    """nDCG@k read off the running DCG of the run and of the ideal ranking, kept once per batch for
    every cutoff (ndcg_cut.5,10,...,1000). Each running sum adds the same terms in the same order as
    the sum over the top k ranks does, so the values are the same to the bit."""
    spec = m.get("gain")
    every = np.arange(batch.nq)
    depth = batch.num_ret if m.cutoff is None else np.minimum(batch.num_ret, m.cutoff)
    dcg = run_dcg_at(batch, run_side(batch, spec), every, depth)
    _, ideal_dcg, offsets, npos = ideal_side(batch, spec)
    ideal = gather_prefix(ideal_dcg, offsets, every, npos if m.cutoff is None else np.minimum(npos, m.cutoff))
    return safe_div(dcg, ideal)  # exp gains of huge grades: both scaled alike (gains.py)


def _ideal_is_zero(batch, m) -> np.ndarray:
    """No positive gain to find: the ideal DCG is 0 (TorchMetrics' empty target)."""
    return _ideal_dcg(batch, m) <= 0


def normalized_cumulative_gain(batch, m) -> np.ndarray:
    """CG@k over the CG@k of the ideal ordering; 0 when the ideal is 0."""
    vals, q, pos = _ideal_list(batch, m)
    if m.cutoff is not None:
        vals, q = vals[pos <= m.cutoff], q[pos <= m.cutoff]
    best = np.bincount(q, weights=vals, minlength=batch.nq).astype(np.float64)
    return safe_div(_cumulative_gain_scaled(batch, m), best)


# ----------------------------------------------------- trec_eval variants
def ndcg_rel(batch, m) -> np.ndarray:
    """trec_eval ``ndcg_rel``: nDCG averaged over the relevant (positive-gain) docs.

    At each retrieved doc with gain > 0 at rank i: DCG(i) / IDCG(min(i, Npos)),
    Npos = judged docs with positive gain; each such doc not retrieved adds
    DCG(all) / IDCG(all). The sum is divided by Npos (0 when the sum is 0).
    """
    run = run_side(batch, m.get("gain"))
    _, q, rank, g, run_dcg = run
    _, ideal_dcg, offsets, npos = ideal_side(batch, m.get("gain"))
    rel = g > 0
    at = gather_prefix(ideal_dcg, offsets, q, np.minimum(rank, npos[q]))
    ok = rel & (at > 0)
    terms = np.bincount(q, weights=np.where(ok, run_dcg / np.where(ok, at, 1.0), 0.0),
                        minlength=batch.nq).astype(np.float64)
    full_run = run_dcg_at(batch, run, np.arange(batch.nq), batch.num_ret)
    full_ideal = gather_prefix(ideal_dcg, offsets, np.arange(batch.nq), npos)
    missing = (npos - np.bincount(q[rel], minlength=batch.nq)).astype(np.float64)
    terms = terms + safe_div(missing * full_run, full_ideal)
    out = np.zeros(batch.nq)
    np.divide(terms, npos, out=out, where=terms > 0)
    return out


def r_ndcg(batch, m) -> np.ndarray:
    """trec_eval ``Rndcg``: nDCG averaged at the points where the ideal gain changes.

    With I_j the j-th best positive judged gain, a change point is each j in
    1..Npos with I_{j+1} != I_j (j = Npos always is); it scores DCG over the
    first min(j, retrieved) ranks / IDCG over the first j. When more than
    Npos + 1 docs are retrieved, DCG(all) / IDCG(all) is averaged in too
    (trec_eval's loop skips it at exactly Npos + 1). 0 when R (at ``rel``) is 0.
    """
    run = run_side(batch, m.get("gain"))
    vals, ideal_dcg, offsets, npos = ideal_side(batch, m.get("gain"))
    q = np.repeat(np.arange(batch.nq), npos)
    j = np.arange(len(vals)) - offsets[q] + 1
    nxt = np.append(vals[1:], 0.0)
    change = (j == npos[q]) | (nxt != vals)
    run_at = run_dcg_at(batch, run, q, np.minimum(j, batch.num_ret[q]))
    ratio = np.where(change, run_at / np.where(change, ideal_dcg, 1.0), 0.0)
    total = np.bincount(q, weights=ratio, minlength=batch.nq).astype(np.float64)
    count = np.bincount(q[change], minlength=batch.nq).astype(np.float64)
    tail = (batch.num_ret > npos + 1) & (npos > 0)
    full_run = run_dcg_at(batch, run, np.arange(batch.nq), batch.num_ret)
    full_ideal = gather_prefix(ideal_dcg, offsets, np.arange(batch.nq), npos)
    total = total + np.where(tail, safe_div(full_run, full_ideal), 0.0)
    count = count + tail
    out = safe_div(total, count)  # trec_eval divides 0 by 0 when no change point exists
    out[batch.num_rel(level_of(batch, m)) == 0] = 0.0
    return out


def g_measure(batch, m) -> np.ndarray:
    """trec_eval ``G``: sum of gain_i / log2(2 + cost_i - got_i) over the ideal gain total.

    got_i = gains retrieved at ranks <= i; cost_i = sum over ranks <= i of
    max(I_j, 1) with I_j the j-th best positive judged gain (0 past the last).
    Only ranks with a gain add a term, so only they are visited: got_i is the
    running sum over them, and cost_i the ideal side's running sum up to
    min(i, Npos) plus 1 per rank past Npos; with whole-number ideal gains
    every partial sum is exact, so this is trec_eval's sequential sum to the
    bit (other gains take the rank-by-rank way).
    """
    spec = m.get("gain")
    shift = exp_shift(batch, spec)
    if shift is not None:  # G adds gains to costs of at least 1: no scaled form
        q = int(np.argmax(shift))
        query = batch.queries[q].decode("utf-8", "replace") if hasattr(batch, "queries") else str(q)
        from rankmeter.errors import shown_id
        raise MeasureError(f"{m}: query {shown_id(query)} judges a doc with grade {int(shift[q]) + EXP_SAFE_GRADE}; "
                           f"G with exp gains is defined only up to grade {EXP_SAFE_GRADE}; use gain=linear or "
                           "a gain map")
    vals, _, offsets, _ = ideal_gains(batch, spec)
    npos = np.diff(offsets)
    ideal_cost = seq_cumsum(np.maximum(vals, 1.0), offsets)
    total_ideal = np.bincount(np.repeat(np.arange(batch.nq), npos), weights=vals,
                              minlength=batch.nq).astype(np.float64)
    if not np.array_equal(ideal_cost, np.floor(ideal_cost)):
        return _g_by_rank(batch, spec, vals, offsets, npos, total_ideal)
    _, q, rank, g, _ = run_side(batch, spec)
    within = np.minimum(rank, npos[q])
    cost = gather_prefix(ideal_cost, offsets, q, within) + (rank - within)
    got = seq_cumsum(g, segment_offsets_of(q, batch.nq))
    terms = g / np.log2((2.0 + cost) - got)
    return safe_div(np.bincount(q, weights=terms, minlength=batch.nq).astype(np.float64), total_ideal)


def _g_by_rank(batch, spec, vals, offsets, npos, total_ideal) -> np.ndarray:
    g = gain_values(batch.rel, spec)
    q = batch.qidx
    ideal_here = gather_prefix(vals, offsets, q, np.where(batch.rank <= npos[q], batch.rank, 0))
    cost = seq_cumsum(np.maximum(ideal_here, 1.0), batch.offsets)
    got = seq_cumsum(g, batch.offsets)
    terms = np.where(g != 0, g / np.log2((2.0 + cost) - got), 0.0)
    return safe_div(batch.per_query_sum(terms), total_ideal)


def bin_g(batch, m) -> np.ndarray:
    """trec_eval ``binG``: mean over the R relevant docs of 1 / log2(2 + nonrelevant retrieved above it)."""
    level = level_of(batch, m)
    hits = batch.hits(level)  # only relevant ranks add a term: the same sum, in the same order
    above = (2 + hits.rank - hits.seen).astype(np.float64)
    terms = np.bincount(hits.q, weights=1.0 / np.log2(above), minlength=batch.nq).astype(np.float64)
    out = safe_div(terms, batch.num_rel(level).astype(np.float64))
    out[np.bincount(hits.q, minlength=batch.nq) == 0] = 0.0
    return out


# ---------------------------------------------------------------- registry
def _explain_gain(batch, m, label: str) -> ExplainParts:
    """CG, DCG, nDCG: gain, discount and contribution per rank; the ideal ranking for nDCG."""
    depth = explained_depth(batch, m)
    gains = gain_values(batch.rel[:depth], m.get("gain"))
    ranks = np.arange(1, depth + 1)
    name = m.name if m.cutoff is None else f"{m.name}@{m.cutoff}"
    if m.name == "CG":
        total = float(gains.sum())
        return ExplainParts(["gain", "running total"], [list(r) for r in zip(gains, np.cumsum(gains))],
                            [f"{name} = {' + '.join(fmt_number(g) for g in gains) or '0'} = {fmt_number(total)}"])
    discount, base = m.get("discount"), m.get("log_base")
    discounts = denominators(ranks, discount, base)
    contribution = discounted(gains, ranks, discount, base)
    running = np.cumsum(contribution)
    dcg = float(running[-1]) if depth else 0.0
    terms = " + ".join(f"{fmt_number(g)}/{fmt_number(d, 3)}" for g, d in zip(gains, discounts)) or "0"
    dcg_name = name.replace("nDCG", "DCG")
    parts = ExplainParts(["gain", "discount", "contribution", "running total"],
                         [list(r) for r in zip(gains, discounts, contribution, running)],
                         [f"{dcg_name} = {terms} = {fmt_number(dcg)}"])
    if m.name != "nDCG":
        return parts
    vals, _, pos = _ideal_list(batch, m)
    if m.cutoff is not None:
        vals, pos = vals[pos <= m.cutoff], pos[pos <= m.cutoff]
    icontribution = discounted(vals, pos, discount, base)
    idenominators = denominators(pos, discount, base)
    idcg = float(icontribution.sum())
    iterms = " + ".join(f"{fmt_number(g)}/{fmt_number(d, 3)}" for g, d in zip(vals, idenominators)) or "0"
    parts.formula.append(f"ideal {dcg_name} ({m.get('ideal')}) = {iterms} = {fmt_number(idcg)}")
    parts.formula.append(f"{label} = {fmt_number(dcg)} / {fmt_number(idcg)} = {dcg / idcg if idcg > 0 else 0.0:.4f}")
    parts.ideal_columns.extend(["rank", "gain", "discount", "contribution", "running total"])
    parts.ideal_rows.extend([int(r), float(g), float(d), float(c), float(t)] for r, g, d, c, t in
                            zip(pos, vals, idenominators, icontribution, np.cumsum(icontribution)))
    return parts


_GAIN = Param("gain", "choice_or_gains", "linear", "gain of a grade: linear (= grade), exp (2^grade - 1) or a map "
              "{grade: gain} overriding the linear gain of the grades it lists",
              choices=("linear", "exp"))
_DISCOUNT = Param("discount", "choice", "log2", "rank discount: log2 = 1/log2(i+1); jk = 1 for i < 2, 1/log2(i) "
                  "after (Järvelin & Kekäläinen, base 2)", choices=("log2", "jk"))
_IDEAL = Param("ideal", "choice", "qrels", "ideal ranking: best ordering of the query's judged docs (qrels), of the "
               "docs the run returned (run), or of the run's top k docs (topk)",
               choices=("qrels", "run", "topk"))
_LOG_BASE = Param("log_base", "number", 2.0, "base b of the discount's logarithm: gain / log_b(i+1); jk: no discount "
                  "below rank b (scikit-learn dcg_score's log_base; must be > 1)", low=1.0,
                  low_open=True)

register(Family("CG", "cumulative gain: sum of the gains in the top k", cumulative_gain,
                params=(_GAIN,), explain=_explain_gain, tie_average="kernel"))
register(Family("NCG", "normalised cumulative gain: CG@k / CG@k of the ideal ranking (Järvelin & Kekäläinen 2002)",
                normalized_cumulative_gain, params=(_GAIN, _IDEAL)))
register(Family("DCG", "discounted cumulative gain: sum of gain(rel_i) * discount(i) over the top k",
                discounted_cumulative_gain, params=(_GAIN, _DISCOUNT, _LOG_BASE), explain=_explain_gain,
                tie_average="kernel"))
register(Family("nDCG", "normalised DCG: DCG@k / DCG@k of the ideal ranking (trec_eval ndcg, ndcg_cut_k)",
                with_empty_target(ndcg, _ideal_is_zero, what="no positive gain to find"),
                params=(_GAIN, _DISCOUNT, _IDEAL, _LOG_BASE, EMPTY_TARGET), aggregation=MEAN_DEFINED,
                explain=_explain_gain, tie_average="kernel"))
# trec_eval's gain tables: nDCGRel, RnDCG and G walk the integer relevance levels (trec_eval's
# m_ndcg_rel.c, m_Rndcg.c, m_G.c), so they are not defined on real-valued grades
register(Family("nDCGRel", "nDCG averaged over the relevant docs (trec_eval ndcg_rel)", ndcg_rel,
                params=(_GAIN,), cutoff="none", real_grades=False))
register(Family("RnDCG", "nDCG averaged where the ideal gain level changes (trec_eval Rndcg)", r_ndcg,
                params=(_GAIN,), cutoff="none", real_grades=False))
register(Family("G", "trec_eval's normalised gain G: gain / log2(2 + ideal cost - gain so far)", g_measure,
                params=(_GAIN,), cutoff="none", real_grades=False))
register(Family("BinG", "binary G: mean over relevant docs of 1 / log2(2 + nonrelevant above) (trec_eval binG)",
                bin_g, cutoff="none"))
