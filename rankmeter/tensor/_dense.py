"""The array-API form of the supported families: ``[B, N]`` rankings, one row per list, on any device.

Each function here is the same formula as the family's numpy kernel in
``rankmeter/measures/<family>.py`` (cited per function), written over dense
rows: rank ``i`` is column ``i - 1``, a row's ranked candidates come first
(best score first, equal scores in input order) and ``valid`` marks them.
The registry sweep of ``tests/tensor/test_tensor_forms.py`` runs every supported
family through both forms and asserts they agree to 1e-12 in float64.
Nothing loops over rows. The rows in rank order come from :class:`~._ranked.Ranked`.
"""
from __future__ import annotations

import math

from rankmeter.tensor._ranked import Ranked

__all__ = ["DENSE", "empty_rows"]


# ----------------------------------------------------------------- families
def _level(m):
    rel = m.get("rel")
    return 1 if rel is None else rel


def precision(r: Ranked, m):
    """measures/precision.py ``precision``."""
    hits = r.is_rel(_level(m))
    if m.cutoff is None:
        return r.div(r.count_upto(hits), r.n_ret)
    return r.count_upto(hits, m.cutoff) / m.cutoff


def hits(r: Ranked, m):
    return r.count_upto(r.is_rel(_level(m)), m.cutoff)


def recall(r: Ranked, m):
    """measures/recall.py ``recall``."""
    level = _level(m)
    return r.div(r.count_upto(r.is_rel(level), m.cutoff), r.num_rel(level))


def _f(r: Ranked, m, beta: float):
    """measures/recall.py ``_f_measure``, trec_eval's operation order."""
    level = _level(m)
    found = r.count_upto(r.is_rel(level), m.cutoff)
    size = r.n_ret if m.cutoff is None else r.f(r.xp.ones_like(r.n_ret)) * m.cutoff
    ok = found > 0
    p = r.div(found, r.xp.where(ok, size, r.zero))
    rec = r.div(found, r.xp.where(ok, r.num_rel(level), r.zero))
    x = beta * beta
    return r.div((x + 1.0) * p * rec, r.xp.where(ok, x * p + rec, r.zero))


def r_precision(r: Ranked, m):
    """measures/precision.py ``r_precision``."""
    level = _level(m)
    R = r.num_rel(level)
    return r.div(r.count_upto_rows(r.is_rel(level), R), R)


def average_precision(r: Ranked, m):
    """measures/ap.py ``average_precision`` (and ``_ap_over_tie_orders`` under ties='average')."""
    xp, level, k = r.xp, _level(m), m.cutoff
    relevant = r.f(r.is_rel(level))
    found = None   # relevant docs down to each rank (ties in input order)
    if r.ties == "average":
        take = r.ops.take
        before = take(r.ops.cumsum(relevant) - relevant, r.tie_start)
        group_rel = r.tie_mean(relevant) * r.tie_size
        i = r.f(r.ops.arange(r.width, r.ops.int64)[None, :] - r.tie_start) + 1.0
        spread = r.div(group_rel - 1.0, r.tie_size - 1.0)
        term = (group_rel / r.tie_size) * (before + 1.0 + (i - 1.0) * spread) / r.rank
        term = xp.where(r.valid, term, r.zero)
    else:
        found = r.ops.cumsum(relevant)
        term = found / r.rank * relevant   # precision at each relevant rank, else 0
    precision_sum = xp.sum(r.upto(term, k), axis=1)
    kind = m.get("denom")
    if kind == "R" or (kind == "min" and k is None):
        denom = r.num_rel(level)
    elif kind == "min":
        R = r.num_rel(level)
        denom = xp.minimum(R, r.f(xp.ones_like(R)) * k)
    elif found is not None:   # the relevant docs found: the running count at the last rank read
        denom = found[:, (r.width if k is None else min(k, r.width)) - 1]
    else:
        denom = xp.sum(r.upto(relevant, k), axis=1)
    return r.div(precision_sum, denom)


def _first_relevant_chances(r: Ranked, m):
    """measures/rr.py ``_first_relevant_chances``: per rank, the chance that the first relevant doc is
    there, over the orders of tied docs. Only each row's first tied group holding a relevant doc counts:
    with t docs, r relevant, the first relevant is past the group's i-th rank (0-based) with chance
    prod_{j <= i} (t - r - j) / (t - j) (McSherry and Najork 2008)."""
    xp = r.xp
    relevant = r.f(r.is_rel(_level(m)))
    before = r.ops.take(r.ops.cumsum(relevant) - relevant, r.tie_start)
    group_rel = r.tie_mean(relevant) * r.tie_size
    first_group = r.valid & (group_rel > 0) & (before == 0)
    i = r.f(r.ops.arange(r.width, r.ops.int64)[None, :] - r.tie_start)
    factor = xp.where(first_group, (r.tie_size - group_rel - i) / (r.tie_size - i), r.f(xp.ones_like(i)))
    past = r.ops.cumprod(xp.where(factor > 0, factor, r.zero))
    at_or_past = r.ops.concat([r.f(xp.ones_like(past[:, :1])), past[:, :-1]], axis=1)
    return xp.where(first_group, at_or_past - past, r.zero)


def reciprocal_rank(r: Ranked, m):
    """measures/rr.py ``reciprocal_rank`` (``_rr_over_tie_orders`` under ties='average')."""
    xp = r.xp
    if r.ties == "average":
        return xp.sum(r.upto(_first_relevant_chances(r, m) / r.rank, m.cutoff), axis=1)
    first = r.first_relevant_rank(_level(m))
    hit = first < math.inf if m.cutoff is None else first <= m.cutoff
    return xp.where(hit, 1.0 / xp.where(hit, first, r.f(xp.ones_like(first))), r.zero)


def success(r: Ranked, m):
    """measures/rr.py ``success`` (``_success_over_tie_orders``) and measures/fallout.py ``hit_rate``."""
    if r.ties == "average" and m.cutoff is not None:
        chance = r.xp.sum(r.upto(_first_relevant_chances(r, m), m.cutoff), axis=1)
        return r.xp.minimum(chance, r.f(r.xp.ones_like(chance)))
    first = r.first_relevant_rank(_level(m))
    return r.f(first < math.inf if m.cutoff is None else first <= m.cutoff)


def cumulative_gain(r: Ranked, m):
    """measures/dcg.py ``cumulative_gain``."""
    return r.xp.sum(r.tie_mean(r.gains(r.g, m.get("gain"), r.valid), m.cutoff), axis=1)


def _dcg(r: Ranked, m):
    g = r.tie_mean(r.gains(r.g, m.get("gain"), r.valid), m.cutoff)
    return r.xp.sum(g / r.discount(r.upto(r.rank, m.cutoff), m.get("discount"), m.get("log_base")), axis=1)


def _ideal_dcg(r: Ranked, m):
    ideal = r.upto(r.ideal_gains(m), m.cutoff)
    positions = r.f(r.ops.arange(ideal.shape[1], r.ops.int64))[None, :] + 1.0
    return r.xp.sum(ideal / r.discount(positions, m.get("discount"), m.get("log_base")), axis=1)


def ndcg(r: Ranked, m):
    """measures/dcg.py ``ndcg``: DCG@k / ideal DCG@k, 0 when the ideal is 0."""
    return r.div(_dcg(r, m), _ideal_dcg(r, m))


def ncg(r: Ranked, m):
    """measures/dcg.py ``normalized_cumulative_gain``."""
    return r.div(cumulative_gain(r, m), r.xp.sum(r.upto(r.ideal_gains(m), m.cutoff), axis=1))


def _err(r: Ranked, grades, valid, top, p: float, k):
    """measures/err.py ``_err`` over rows of ``grades`` (already mapped to 0..top)."""
    xp = r.xp
    rank = r.f(r.ops.arange(grades.shape[1], r.ops.int64))[None, :] + 1.0
    gaining = valid & (grades > 0)
    satisfy = xp.exp2(grades - top) - xp.exp2(-top)
    miss = xp.where(gaining, (1.0 - xp.exp2(grades - top)) + xp.exp2(-top), r.f(xp.ones_like(grades)))
    before = r.ops.concat([r.f(xp.ones_like(miss[:, :1])), r.ops.cumprod(miss)[:, :-1]], axis=1)
    reach = (p ** (rank - 1.0)) * before
    return xp.sum(r.upto(xp.where(gaining, satisfy * reach / rank, r.zero), k), axis=1)


def _err_top(r: Ranked, m):
    given = m.get("max_grade")
    return r.ops.full((), float(given), r.dtype) if given is not None else r.qrels_top()


def _err_grades(r: Ranked, grades, valid, level, top):
    return r.xp.where(valid & (grades >= max(level, 0)), r.xp.minimum(grades, top), r.zero)


def err(r: Ranked, m):
    top = _err_top(r, m)
    return _err(r, _err_grades(r, r.g, r.valid, _level(m), top), r.valid, top, m.get("p"), m.cutoff)


def nerr(r: Ranked, m):
    """measures/err.py ``nerr``: over the ERR of the judged grades, best first."""
    top, level = _err_top(r, m), _level(m)
    found = _err(r, _err_grades(r, r.g, r.valid, level, top), r.valid, top, m.get("p"), m.cutoff)
    judged = r.ops.sort_descending(r.xp.where(r.judged_mask, r.judged, r.f(r.xp.ones_like(r.judged)) * -1.0), axis=1)
    valid = judged >= 0
    ideal = _err(r, _err_grades(r, judged, valid, level, top), valid, top, m.get("p"), m.cutoff)
    return r.div(found, ideal)


def rbp(r: Ranked, m):
    """measures/rbp.py ``rbp`` (quantity ERG; gain binary or graded)."""
    xp, p = r.xp, m.get("p")
    if m.get("gain") == "binary":
        gains = r.f(r.is_rel(_level(m)))
    else:
        scale = m.get("max_grade")
        if scale is None:   # each row's own highest judged grade
            top = r.ops.amax(xp.where(r.judged_mask, r.judged, r.zero), axis=1)[:, None]
        else:
            top = r.qrels_top() if scale == "qrels" else r.ops.full((), float(scale), r.dtype)
        ok = r.valid & (r.g > 0) & (top > 0)
        gains = xp.where(ok, xp.minimum(r.g, top) / xp.where(ok, top, r.f(xp.ones_like(r.g))), r.zero)
    steps = r.ops.full((r.rows, r.width), p, r.dtype)
    powers = r.ops.concat([r.f(xp.ones_like(steps[:, :1])), r.ops.cumprod(steps)[:, :-1]], axis=1)
    return (1.0 - p) * xp.sum(r.tie_mean(gains) * powers, axis=1)


def auc(r: Ranked, m):
    """measures/auc.py ``auc``: judged candidates not ranked tie below every ranked one."""
    xp, level = r.xp, _level(m)
    is_rel = r.is_rel(level)
    nonrel = r.valid & ~is_rel
    nonrel_ret = xp.sum(r.f(nonrel), axis=1)
    rel_ret = r.n_ret - nonrel_ret
    R = r.num_rel(level)
    rel_left = R - rel_ret
    nonrel_left = r.num_judged_nonrel(level) - nonrel_ret
    below = nonrel_ret[:, None] - r.ops.cumsum(r.f(nonrel))
    wins = xp.sum(xp.where(is_rel, below, r.zero), axis=1) + rel_ret * nonrel_left + 0.5 * rel_left * nonrel_left
    return r.div(wins, R * (nonrel_ret + nonrel_left))


DENSE = {
    "P": precision, "Hits": hits, "R": recall, "F": lambda r, m: _f(r, m, m.get("beta")),
    "F1": lambda r, m: _f(r, m, 1.0), "Rprec": r_precision, "AP": average_precision, "RR": reciprocal_rank,
    "Success": success, "HitRate": success, "CG": cumulative_gain, "DCG": _dcg, "nDCG": ndcg, "NCG": ncg,
    "ERR": err, "nERR": nerr, "RBP": rbp, "AUC": auc,
}


def empty_rows(r: Ranked, m):
    """Rows a measure's ``empty_target_action`` applies to (``undefined.no_relevant``; nDCG: no ideal gain)."""
    if m.name == "nDCG":
        return _ideal_dcg(r, m) <= 0
    return r.num_rel(_level(m)) == 0
