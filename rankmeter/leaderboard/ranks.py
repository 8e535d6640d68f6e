"""Ranks, their intervals, the group tied with the top, letter groups and win probabilities, from the resamples.

For one measure, with ``A`` the observed aggregates and ``A*`` the resampled ones (B x systems):

* **interval** of a system's aggregate: the expanded percentile interval (Hesterberg 2015): the
  percentiles of ``A*`` at ``alpha'/2`` and ``1 - alpha'/2``, where ``z(alpha'/2) = sqrt(n/(n-1))
  t(alpha/2; n-1)`` and n is the number of units at the top level (collections): the percentile interval
  of a mean of n units is too narrow by about that factor for small n (20 collections: 93% instead of 95%).
* **rank interval**: simultaneous for each system over its differences with all others (Al Mohamad,
  Goeman and van Zwet 2022, the "partial" rank intervals): for system s, q_s is the ``1 - alpha`` quantile
  over resamples of ``max_j |(A*_s - A*_j) - (A_s - A_j)| / se_sj`` (se from the resamples' covariance),
  read on Student's scale (:func:`t_scale_quantile`); s's rank is at least ``1 + #{j: A_j - A_s > q_s se_sj}`` and at
  most ``S - #{j: A_s - A_j > q_s se_sj}``. A system's interval covers its true rank with probability at
  least ``1 - alpha`` (it fails only when one of its differences is declared in the wrong direction), for
  each system on its own (not simultaneously for all), with the true rank of tied systems the set of ranks
  they share. The bound is tight only when the system ties with every other: where means differ it covers
  more (tests/leaderboard/simulation.py measures both).
* **tied with the top**: the rank interval reaches 1 (no system is better than it, at level alpha).
* **win probability** of a over b: the share of resamples where ``A*_a > A*_b`` (ties count half).
* **letter groups**: over the systems in rank order, each maximal run of systems no two of which are
  separated by the corrected pairwise tests shares a letter (:func:`letters`).
"""
from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

from rankmeter.stats import student

__all__ = ["ranks", "expansion", "t_scale_p", "t_scale_quantile", "intervals", "influence", "resampled_pairs", "letters",
           "SYMBOLS"]

_PAIRS_BLOCK = 1 << 17  # numbers per block of resampled pairwise differences (1 MiB: in cache)

#: group letters, one character each: a-z, A-Z, then Greek and Cyrillic letters (enough for 170 groups)
SYMBOLS = ("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
           + "".join(chr(c) for c in range(0x3b1, 0x3ca) if c != 0x3c2)
           + "".join(chr(c) for c in range(0x391, 0x3aa) if c != 0x3a2)
           + "".join(chr(c) for c in range(0x430, 0x450)) + "".join(chr(c) for c in range(0x410, 0x430)))


def ranks(values: np.ndarray) -> np.ndarray:
    """Rank 1 = largest; tied values share the best rank of their group (1, 2, 2, 4).

    >>> ranks(np.array([0.3, 0.5, 0.3, 0.1])).tolist()
    [2, 1, 2, 4]
    """
    return 1 + (values[None, :] > values[:, None]).sum(axis=1)


def expansion(units: int, alpha: float) -> tuple[float, float]:
    """``(alpha', factor)``: the expanded percentile level of Hesterberg (2015) for ``units`` units at the top
    level, and the factor ``sqrt(n/(n-1)) t(1-alpha/2; n-1) / z(1-alpha/2)`` it widens a normal interval by.

    >>> a, f = expansion(20, 0.05)
    >>> round(a, 4), round(f, 4)
    (0.0318, 1.0956)
    """
    if units < 2:
        return alpha, 1.0
    t = float(student.stdtrit(units - 1, 1 - alpha / 2))
    wide = math.sqrt(units / (units - 1)) * t
    z = NormalDist().inv_cdf(1 - alpha / 2)
    return 2 * (1 - NormalDist().cdf(wide)), wide / z


def _special():
    """scipy.special's vectorised distribution functions when installed; else the scalar ones of
    :mod:`rankmeter.stats.student` and :class:`statistics.NormalDist`, applied elementwise."""
    try:
        from scipy import special
        return special.ndtr, special.ndtri, special.stdtr, special.stdtrit
    except ImportError:
        normal = NormalDist()
        return (np.vectorize(normal.cdf, otypes=[float]), np.vectorize(normal.inv_cdf, otypes=[float]),
                np.vectorize(student.stdtr, otypes=[float]), np.vectorize(student.stdtrit, otypes=[float]))


def t_scale_p(p, units: int, *, sides: int = 2) -> np.ndarray:
    """A bootstrap p-value read on Student's scale: the normal quantile it is the tail of, widened by
    ``sqrt(n/(n-1))`` and read as a t with n - 1 degrees of freedom (Hesterberg's expansion, at every level
    instead of one). The bootstrap's tails are a normal's at best (its variance is the plug-in one, its
    statistic is not studentised per resample); a mean of 20 collections has t tails.

    >>> round(float(t_scale_p(0.05, 20)), 4), float(t_scale_p(1.0, 20))
    (0.0587, 1.0)
    """
    p = np.asarray(p, dtype=np.float64)
    if units < 2:
        return p.copy()
    ndtr, ndtri, stdtr, _ = _special()
    z = ndtri(1 - np.clip(p, 1e-300, 1.0) / sides)
    return np.minimum(1.0, sides * stdtr(units - 1, -np.sqrt(units / (units - 1)) * z))


def t_scale_quantile(q, units: int) -> np.ndarray:
    """A normal-scale quantile of the bootstrap read on Student's scale: ``sqrt(n/(n-1)) t^-1(Phi(q); n-1)``."""
    q = np.asarray(q, dtype=np.float64)
    if units < 2:
        return q.copy()
    ndtr, _, _, stdtrit = _special()
    return np.sqrt(units / (units - 1)) * stdtrit(units - 1, np.minimum(ndtr(q), 1 - 1e-16))


def intervals(boot: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval at ``level`` (alpha') of each column of ``boot`` (B x systems)."""
    low, high = np.quantile(boot, [level / 2, 1 - level / 2], axis=0)
    return low, high


def influence(means: np.ndarray, sizes: np.ndarray, how: str, observed: np.ndarray) -> np.ndarray:
    """(collections x systems) linear influence of each collection on each system's aggregate (one measure):
    the aggregate of a resample that draws collection c K_c times moves by about ``sum_c (K_c - 1) L_c / C``.
    Exact for the macro mean (``L`` = the collections' means); weighted by queries,
    ``L_c = (n_c / mean n) (m_c - A)``; geometric, ``L_c = A log m_c`` (m floored at 1e-5). Centred over
    the collections (a shift changes no spread).

    >>> influence(np.array([[0.2, 0.5], [0.4, 0.9]]), np.array([1, 3]), "macro", np.array([0.3, 0.7])).round(12).tolist()
    [[-0.1, -0.2], [0.1, 0.2]]
    """
    if how == "macro":
        out = means.copy()
    elif how == "weighted":
        out = (sizes / sizes.mean())[:, None] * (means - observed[None, :])
    else:
        out = observed[None, :] * np.log(np.maximum(means, 1e-5))
    return out - out.mean(axis=0)


def resampled_pairs(observed: np.ndarray, boot: np.ndarray, *, alpha: float, units: int,
                    counts: np.ndarray | None = None, unit_values: np.ndarray | None = None,
                    linear: bool = False, p_values: bool = True) -> dict:
    """What the resamples of one measure say about every pair: win probabilities, bootstrap p-values and the
    rank intervals (module notes).

    Parameters
    ----------
    observed : ndarray, shape (S,)
    boot : ndarray, shape (B, S)
    alpha : float
    units : int
        Units at the top level (collections): the p-values are read on Student's scale with ``units - 1``
        degrees of freedom (:func:`t_scale_p`).
    counts : ndarray, shape (B, units), optional
        How often each resample drew each unit (:func:`rankmeter.leaderboard.resample.resample_aggregates`
        with ``counts=True``).
    unit_values : ndarray, shape (units, S), optional
        Each unit's influence on each system's aggregate (:func:`influence`). With ``counts``, the rank
        bounds are studentised: each resample's pairwise t statistics divide by that resample's own standard
        error (module notes). Without them (one collection: its queries are the units), the standard errors
        are the resamples' and the bound is read on Student's scale (:func:`t_scale_quantile`).
    linear : bool, default False
        Each resampled aggregate is the count-weighted mean of ``unit_values`` plus the observed one (one
        level, macro mean): a pair's t then follows from ``D*^2 / sum_c w_c dL_c^2`` alone, one step less
        a resample.
    p_values : bool, default True
        Count the bootstrap p-values (NaN without: the leaderboard's other tests need none).

    Returns
    -------
    dict
        ``win`` (S x S: P*(A_a > A_b), ties counted half), ``p`` (S x S: the two-sided bootstrap p-value of
        A_a - A_b, ``(#{|D* - D| >= |D|} + 1) / (B + 1)`` on Student's scale), ``rank_low``, ``rank_high``.
    """
    b_total, s = boot.shape
    diff = observed[:, None] - observed[None, :]
    # differences within rounding of 0 in the resamples are none (sums taken in different orders)
    tol = 1e-12 * max(1.0, float(np.abs(boot).max(initial=0.0)))
    studentised = counts is not None and unit_values is not None and len(unit_values) >= 2
    if studentised:
        n = len(unit_values)
        squares = np.square(unit_values[:, :, None] - unit_values[:, None, :]).reshape(n, s * s)
        weights = counts / n
        se = np.sqrt(np.maximum(_pair_spread(np.ones((1, n)) / n, unit_values, squares, False)[0], 0.0) / (n - 1))
    else:
        centred = boot - boot.mean(axis=0)
        cov = centred.T @ centred / max(b_total - 1, 1)  # np.cov's, without its copies (10x faster here)
        var = np.diag(cov)
        se = np.sqrt(np.maximum(var[:, None] + var[None, :] - 2 * cov, 0.0))
    se = np.where(se <= tol, 0.0, se)
    inverse = np.divide(1.0, se, out=np.zeros_like(se), where=se > 0)
    bound = np.abs(diff) - tol
    above = np.zeros((s, s), dtype=np.int64)  # resamples where row - column > tol
    exceed = np.zeros((s, s), dtype=np.int64)
    max_t = np.empty((b_total, s))
    if studentised:
        # tol^2 under every spread: a pair with none (every unit's difference alike) has t = 0 on its observed
        # difference (within rounding), as the plug-in path's se = 0 gives
        squares += tol * tol
    step = max(1, _PAIRS_BLOCK // max(s * s, 1))
    star = np.empty((step, s, s))
    for start in range(0, b_total, step):
        chunk = boot[start:start + step]
        rows = len(chunk)
        d = np.subtract(chunk[:, :, None], chunk[:, None, :], out=star[:rows])  # every pair, both ways
        above += np.sum(d > tol, axis=0, dtype=np.int64)
        d -= diff
        if p_values:
            exceed += np.sum(np.abs(d) >= bound, axis=0, dtype=np.int64)
        if studentised:
            d *= d
            with np.errstate(divide="ignore", invalid="ignore"):  # a resample of one unit drawn n times: t = inf
                d /= _pair_spread(weights[start:start + rows], unit_values, squares, linear)
            d[np.isnan(d)] = 0.0  # 0/0: the resample's difference is the observed one exactly, no spread: t = 0
        else:
            np.abs(d, out=d)
            d *= inverse
        max_t[start:start + rows] = d.max(axis=2)
    # d[s, j] = -d[j, s] exactly (a difference changes sign exactly): row >= column - tol where column - row
    # is not above tol
    win = (above + (b_total - above.T)) / (2 * b_total)
    np.fill_diagonal(win, np.nan)
    p = t_scale_p((exceed + 1) / (b_total + 1), units) if p_values else np.full((s, s), np.nan)
    np.fill_diagonal(p, np.nan)
    if studentised and linear:  # max_t held r = D*^2 / sum_c w_c dL_c^2 = t^2 / (n - 1 + t^2)
        max_t = np.divide(max_t, 1.0 - max_t, out=np.full_like(max_t, np.inf), where=max_t < 1.0)
    with np.errstate(invalid="ignore"):  # between two infinite t (few units): inf - inf
        q = np.quantile(max_t, 1 - alpha, axis=0)  # (S,): s's simultaneous bound
    q[np.isnan(q)] = np.inf  # an infinite bound calls no pair
    if studentised:  # max_t held t^2 / (n - 1)
        q = np.sqrt(q * (n - 1))
    else:
        q = t_scale_quantile(q, units)
    with np.errstate(invalid="ignore"):  # an infinite bound times a pair of no spread (se 0): no call
        margin = np.nan_to_num(q[:, None] * se, nan=np.inf) + tol
    above = (-diff) > margin  # [s, j]: j is better than s
    below = diff > margin     # [s, j]: s is better than j
    np.fill_diagonal(above, False)
    np.fill_diagonal(below, False)
    return {"win": win, "p": p, "rank_low": 1 + above.sum(axis=1), "rank_high": s - below.sum(axis=1)}


def _pair_spread(weights: np.ndarray, values: np.ndarray, squares: np.ndarray, linear: bool) -> np.ndarray:
    """(rows, S, S): for each resample (``weights``: its draw counts / n) and pair, the weighted plug-in
    variance of the drawn units' differences, ``sum_c w_c (L_cs - L_cj - mean)^2`` ((n - 1) times the
    squared standard error of the pair's mean difference over the n drawn units, ddof 1): one matrix
    product of the weights and the units' squared differences (``squares``, units x S^2), less the
    resample's squared mean difference. ``linear``: without that last term (the caller's numerator is
    the mean difference itself, and it is cheaper to take it out after the maximum)."""
    rows, s = len(weights), values.shape[1]
    spread = (weights @ squares).reshape(rows, s, s)
    if not linear:
        mean = weights @ values  # (rows, S)
        shift = np.subtract(mean[:, :, None], mean[:, None, :])
        shift *= shift
        spread -= shift
    return spread


def letters(order: np.ndarray, separated: np.ndarray) -> list[str]:
    """Letter groups of the systems (compact letter display over systems in rank ``order``).

    Each maximal run of consecutive systems (in ``order``) no two of which are ``separated`` gets a letter;
    a system's group is the letters of the runs it is in. Systems that share a letter are not separable.

    >>> sep = np.zeros((4, 4), bool); sep[0, 2] = sep[2, 0] = sep[0, 3] = sep[3, 0] = sep[1, 3] = sep[3, 1] = True
    >>> letters(np.arange(4), sep)
    ['a', 'ab', 'bc', 'c']
    """
    s = len(order)
    inside = separated[np.ix_(order, order)]
    later = np.triu(inside, k=1)
    # latest[j]: the last position k < j separated from j (-1: none)
    latest = np.where(later, np.arange(s)[:, None], -1).max(axis=0)
    blocked = (np.arange(s)[None, :] > np.arange(s)[:, None]) & (latest[None, :] >= np.arange(s)[:, None])
    end = np.where(blocked.any(axis=1), blocked.argmax(axis=1) - 1, s - 1)
    starts = np.flatnonzero(np.concatenate([[True], end[1:] > end[:-1]]))
    groups = [""] * s
    for n, i in enumerate(starts):
        symbol = SYMBOLS[n] if n < len(SYMBOLS) else f"[{n}]"
        for position in range(i, end[i] + 1):
            groups[order[position]] += symbol
    return groups
