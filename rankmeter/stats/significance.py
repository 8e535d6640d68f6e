"""Paired significance tests over per-query scores.

Every test takes per-query *differences* (or, for Tukey, the whole
queries x systems score matrix) and returns two-sided p-values and an
interval for the mean difference at level ``1 - alpha``:

========================  ===================================  ==========================================
test                      p-value                              interval of the mean difference
========================  ===================================  ==========================================
:func:`paired_t`          Student's paired t                   Student's t interval
:func:`wilcoxon`          Wilcoxon signed-rank (scipy)         Student's t interval (of the *mean*)
:func:`randomization`     sign-flip permutation test           mean +- the 1-alpha quantile of the sign-flip
                                                               distribution of the centred differences
:func:`bootstrap`         studentised shift bootstrap          BCa bootstrap interval
:func:`tukey_hsd`         Sakai's randomised Tukey HSD         mean +- the randomised HSD (1-alpha quantile
                                                               of max - min of the permuted means)
========================  ===================================  ==========================================

Monte Carlo p-values use the ``(count + 1) / (B + 1)`` convention (the
observed arrangement counts as one of the B + 1 equally likely ones), so
they are never 0 and the test is exact in level (Phipson & Smyth 2010).
Random numbers come from ``numpy.random.Generator(PCG64(seed))``: the same
seed and data give identical p-values. Work is done in blocks of at most
about four million numbers, whatever ``B`` is, so memory stays bounded.

scipy is needed for ``wilcoxon`` only; it is imported inside it. Student's t distribution is
computed by :mod:`.student` (equal to scipy's ``stdtr``/``stdtrit`` to about 1e-12).
"""
from __future__ import annotations

import math
from collections.abc import Callable
from itertools import permutations as _all_orders
from statistics import NormalDist

import numpy as np

from rankmeter.errors import require
from rankmeter.stats.student import stdtr, t_quantile

__all__ = ["paired_t", "wilcoxon", "randomization", "bootstrap", "tukey_hsd", "effect_size"]

Progress = Callable[[int], None] | None

_BLOCK = 1 << 22  # numbers per block of random draws


def scipy_stats():
    return require("scipy.stats", "stats", "the wilcoxon test (t, randomization, bootstrap and tukey work "
                                           "without it)")


def seeded_rng(seed: int | None) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(seed))


def _tolerance(d: np.ndarray, axis=0) -> np.ndarray:
    """Slack when comparing sums computed in different orders (BLAS vs numpy) for equality."""
    return 1e-10 * np.abs(d).sum(axis=axis) + 1e-300


def effect_size(d: np.ndarray) -> float:
    """Paired Cohen's d_z: mean difference / standard deviation of the differences (ddof=1).

    Undefined (NaN, shown as n/a and null in JSON) with fewer than two differences or when the
    differences have no spread (all equal: the ratio has no finite value).
    """
    if len(d) < 2 or np.ptp(d) == 0:
        return math.nan
    return float(d.mean()) / float(d.std(ddof=1))


def effect_size_interval(dz: float, n: int, alpha: float = 0.05) -> tuple[float, float]:
    """Approximate ``1 - alpha`` interval of a paired d_z from n pairs: d_z +- z_(1-alpha/2) *
    sqrt(1/n + d_z^2 / (2n)) (the large-sample standard error, Hedges and Olkin 1985); NaN when
    d_z is not finite or n < 2."""
    if n < 2 or not math.isfinite(dz):
        return math.nan, math.nan
    z = NormalDist().inv_cdf(1 - alpha / 2)
    half = z * math.sqrt(1 / n + dz * dz / (2 * n))
    return dz - half, dz + half


def _constant(d: np.ndarray, mean: float) -> tuple[float, float, float] | None:
    """p, low, high when the differences have no spread (identical runs): p is 1 if they are all 0."""
    if len(d) == 0:
        return math.nan, math.nan, math.nan
    if np.ptp(d) == 0:
        return (1.0 if mean == 0 else 0.0), mean, mean
    return None


def t_interval(d: np.ndarray, alpha: float) -> tuple[float, float]:
    n = len(d)
    mean, se = float(d.mean()), float(d.std(ddof=1)) / math.sqrt(n)
    half = t_quantile(n - 1, 1 - alpha / 2) * se
    return mean - half, mean + half


def paired_t(d: np.ndarray, *, alpha: float = 0.05) -> tuple[float, float, float]:
    """Two-sided paired t-test on differences ``d``: ``(p, ci_low, ci_high)``.

    Identical to ``scipy.stats.ttest_rel(a, b)`` when ``d = a - b``, except
    that differences which are all 0 give p = 1 (scipy: NaN) and all equal
    non-zero ones give p = 0. NaN with fewer than two differences.
    """
    d = np.asarray(d, dtype=np.float64)
    if len(d) < 2:
        return math.nan, math.nan, math.nan
    mean = float(d.mean())
    if (fixed := _constant(d, mean)) is not None:
        return fixed
    t = mean / (float(d.std(ddof=1)) / math.sqrt(len(d)))
    p = float(2 * stdtr(len(d) - 1, -abs(t)))
    return (p, *t_interval(d, alpha))


def wilcoxon(d: np.ndarray, *, alpha: float = 0.05) -> tuple[float, float, float]:
    """Two-sided Wilcoxon signed-rank test on differences ``d``: ``(p, ci_low, ci_high)``.

    The p-value is ``scipy.stats.wilcoxon(d)`` with scipy's defaults (zero
    differences dropped, exact distribution for small samples without ties,
    normal approximation otherwise). The interval is Student's t interval of
    the mean difference, so that every test reports an interval of the same
    quantity. All-zero differences give p = 1.
    """
    d = np.asarray(d, dtype=np.float64)
    stats = scipy_stats()
    if len(d) < 2:
        return math.nan, math.nan, math.nan
    if (fixed := _constant(d, float(d.mean()))) is not None:
        return fixed
    p = float(stats.wilcoxon(d).pvalue)
    return (p, *t_interval(d, alpha))


def random_bits(rng: np.random.Generator, rows: int, n: int) -> np.ndarray:
    """A (rows, n) float64 matrix of independent fair 0/1 bits, 64 per raw PCG64 draw."""
    words = (n + 63) // 64
    raw = rng.bit_generator.random_raw(rows * words).astype("<u8", copy=False)
    bits = np.unpackbits(raw.view(np.uint8).reshape(rows, words * 8), axis=1, count=n, bitorder="little")
    return bits.astype(np.float64)


def randomization(diffs: np.ndarray, *, permutations: int = 10000, seed: int | None = 0,
                  alpha: float = 0.05, progress: Progress = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Paired two-sided randomization (sign-flip) test of several pairs at once.

    Parameters
    ----------
    diffs : ndarray, shape (n, P)
        Per-query differences of P system pairs; NaN where a pair lacks a query.
    permutations : int
        B, the number of random sign assignments (shared by all pairs).
    seed : int or None
        Seed of ``Generator(PCG64(seed))``.
    alpha : float
        The interval is at level ``1 - alpha``.
    progress : callable, optional
        Called with the number of permutations done after each block.

    Returns
    -------
    p, ci_low, ci_high : ndarray, shape (P,)
        ``p = (#{|sum of s_i d_i| >= |sum of d_i|} + 1) / (B + 1)`` over random
        signs s_i = +-1. The interval is ``mean +- c`` with c the ``1 - alpha``
        quantile of ``|sum of s_i (d_i - mean)| / n`` (the sign-flip
        distribution centred at the observed mean). NaN for a pair without queries.

    Notes
    -----
    Signs are drawn as random bits, ``s = 2 b - 1``, so the B x P sums are
    ``2 (bits @ d) - sum(d)``: one matrix product per block of about four
    million bits. A missing query is a zero difference, whose sign changes
    nothing, so pairs with different query sets share one sign matrix.
    Besides the blocks, only the B x P flipped statistics are kept (for the
    interval).
    """
    diffs = np.asarray(diffs, dtype=np.float64)
    if diffs.ndim == 1:
        diffs = diffs[:, None]
    n, npairs = diffs.shape
    mask = ~np.isnan(diffs)
    count = mask.sum(axis=0)
    d = np.where(mask, diffs, 0.0)
    total = d.sum(axis=0)
    mean = np.divide(total, count, out=np.full(npairs, np.nan), where=count > 0)
    both = np.hstack([d, mask.astype(np.float64)])
    bound = np.abs(total) - _tolerance(d)
    exceed = np.zeros(npairs, dtype=np.int64)
    spread = np.empty((permutations, npairs))
    rng = seeded_rng(seed)
    block = max(1, min(permutations, _BLOCK // max(n, 1)))
    for start in range(0, permutations, block):
        rows = min(block, permutations - start)
        prod = random_bits(rng, rows, n) @ both
        flipped = 2 * prod[:, :npairs] - total
        exceed += (np.abs(flipped) >= bound).sum(axis=0)
        signs = 2 * prod[:, npairs:] - count  # sum of the signs over each pair's queries
        spread[start:start + rows] = np.abs(flipped - np.nan_to_num(mean) * signs)
        if progress:
            progress(rows)
    p = (exceed + 1) / (permutations + 1)
    half = np.quantile(spread, 1 - alpha, axis=0) / np.maximum(count, 1)
    empty = count == 0
    p[empty] = np.nan
    return p, mean - half, mean + half


def _normal_cdf(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2))


def _bca(boot: np.ndarray, d: np.ndarray, alpha: float) -> tuple[float, float]:
    """BCa interval of the mean from bootstrap means ``boot`` (Efron & Tibshirani 1993, 14.3)."""
    mean = float(d.mean())
    B = len(boot)
    below = (np.count_nonzero(boot < mean) + 0.5 * np.count_nonzero(boot == mean)) / B
    below = min(max(below, 0.5 / B), 1 - 0.5 / B)
    normal = NormalDist()
    z0 = normal.inv_cdf(below)
    dev = d - mean
    ss = float((dev ** 2).sum())
    accel = float((dev ** 3).sum()) / (6 * ss ** 1.5) if ss > 0 else 0.0
    levels = []
    for z in (normal.inv_cdf(alpha / 2), normal.inv_cdf(1 - alpha / 2)):
        levels.append(_normal_cdf(z0 + (z0 + z) / (1 - accel * (z0 + z))))
    low, high = np.quantile(boot, levels)
    return float(low), float(high)


def bootstrap(diffs: np.ndarray, *, permutations: int = 10000, seed: int | None = 0,
              alpha: float = 0.05, progress: Progress = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Paired bootstrap test and BCa interval of the mean difference, for several pairs at once.

    Parameters: see :func:`randomization`; here ``diffs`` holds no NaN (the pairs share their n queries)
    and ``permutations`` is B, the number of bootstrap resamples of the n queries.

    Returns
    -------
    p, ci_low, ci_high : ndarray, shape (P,)
        p is the studentised shift bootstrap p-value (Efron & Tibshirani 1993,
        Algorithm 16.2; Sakai 2006): ``t = mean / (sd / sqrt(n))`` against
        ``t*_b = (mean*_b - mean) / (sd*_b / sqrt(n))`` over resamples, that is
        the resampled t statistic under the null obtained by shifting the
        differences to mean 0; ``p = (#{|t*_b| >= |t|} + 1) / (B + 1)``.
        The interval is the bias-corrected and accelerated (BCa) percentile
        interval of the bootstrap means, the acceleration from the jackknife.
        All-zero differences give p = 1.

    Notes
    -----
    A resample is a row of multinomial counts ``w`` (how often each query was
    drawn), so the resampled means and second moments of all pairs are two
    matrix products per block, ``w @ d / n`` and ``w @ d**2 / n``.
    """
    diffs = np.asarray(diffs, dtype=np.float64)
    if diffs.ndim == 1:
        diffs = diffs[:, None]
    n, npairs = diffs.shape
    nan = np.full(npairs, np.nan)
    if n < 2:
        return nan, nan.copy(), nan.copy()
    mean = diffs.mean(axis=0)
    sd = diffs.std(axis=0, ddof=1)
    flat = np.ptp(diffs, axis=0) == 0
    mean[flat] = diffs[0, flat]
    with np.errstate(divide="ignore", invalid="ignore"):
        t_obs = np.abs(mean / (sd / math.sqrt(n)))
    bound = t_obs * (1 - 1e-10)
    moments = np.hstack([diffs, diffs ** 2])
    exceed = np.zeros(npairs, dtype=np.int64)
    boot = np.empty((permutations, npairs))
    rng = seeded_rng(seed)
    block = max(1, min(permutations, _BLOCK // n))
    for start in range(0, permutations, block):
        rows = min(block, permutations - start)
        draws = rng.integers(0, n, size=(rows, n), dtype=np.int32) + (np.arange(rows, dtype=np.int32) * n)[:, None]
        weights = np.bincount(draws.ravel(), minlength=rows * n).reshape(rows, n).astype(np.float64)
        prod = weights @ moments / n
        bmean, bsq = prod[:, :npairs], prod[:, npairs:]
        bvar = np.maximum(bsq - bmean ** 2, 0) * (n / (n - 1))
        shift = bmean - mean
        # a resample without spread has t* = 0 when it sits on the mean, else it is extreme
        shift[np.abs(shift) <= _tolerance(diffs) / n] = 0.0
        with np.errstate(divide="ignore", invalid="ignore"):
            t_star = np.abs(np.where(shift == 0, 0.0, shift / np.sqrt(bvar / n)))
        exceed += (t_star >= bound).sum(axis=0)
        boot[start:start + rows] = bmean
        if progress:
            progress(rows)
    p = (exceed + 1) / (permutations + 1)
    low, high = np.empty(npairs), np.empty(npairs)
    for j in range(npairs):
        if flat[j]:
            p[j] = 1.0 if mean[j] == 0 else 1 / (permutations + 1)
            low[j] = high[j] = mean[j]
        else:
            low[j], high[j] = _bca(boot[:, j], diffs[:, j], alpha)
    return p, low, high


def tukey_hsd(scores: np.ndarray, *, permutations: int = 10000, seed: int | None = 0,
              alpha: float = 0.05, progress: Progress = None) -> tuple[np.ndarray, float]:
    """Sakai's randomised Tukey HSD test across all systems (Sakai 2014, Carterette 2012).

    Parameters
    ----------
    scores : ndarray, shape (n, k)
        Per-query scores of k systems over the same n queries (no NaN).
    permutations : int
        B, the number of random trials.
    seed : int or None
        Seed of ``Generator(PCG64(seed))``.
    alpha : float
        Level of the HSD used for the intervals.
    progress : callable, optional
        Called with the number of trials done after each block.

    Returns
    -------
    p : ndarray, shape (k, k)
        ``p[i, j] = (#{trials with max - min of the system means >= |mean_i - mean_j|} + 1) / (B + 1)``;
        each trial permutes every query's row of scores across the systems
        independently. These p-values already control the family-wise error
        over all pairs; the diagonal is NaN.
    hsd : float
        The ``1 - alpha`` quantile of max - min over the trials: the
        simultaneous interval of ``mean_i - mean_j`` is ``difference +- hsd``.
    """
    scores = np.asarray(scores, dtype=np.float64)
    n, k = scores.shape
    p = np.full((k, k), np.nan)
    if n == 0 or k < 2:
        return p, math.nan
    means = scores.mean(axis=0)
    observed = np.abs(means[:, None] - means[None, :])
    bound = observed - _tolerance(scores, axis=None) / n
    use_table = k <= 7
    if use_table:  # a random row order is a uniform pick among the k! orders
        orders = np.array(list(_all_orders(range(k))), dtype=np.int64)
    flat = scores.ravel()
    ranges = np.empty(permutations)
    rng = seeded_rng(seed)
    block = max(1, min(permutations, _BLOCK // n))
    for start in range(0, permutations, block):
        rows = min(block, permutations - start)
        picks = rng.integers(0, len(orders), size=(n, rows)) if use_table else None
        sums = np.zeros((rows, k))
        # gather a few queries at a time so that the indices stay in cache
        step = max(1, (1 << 17) // (rows * k))
        for q0 in range(0, n, step):
            q1 = min(q0 + step, n)
            if use_table:
                order = orders.take(picks[q0:q1], axis=0)
            else:
                order = np.argsort(rng.random((q1 - q0, rows, k)), axis=2)
            order += (np.arange(q0, q1) * k)[:, None, None]
            sums += flat.take(order).sum(axis=0)
        ranges[start:start + rows] = (sums.max(axis=1) - sums.min(axis=1)) / n
        if progress:
            progress(rows)
    ordered = np.sort(ranges)
    exceed = permutations - np.searchsorted(ordered, bound, side="left")
    p = (exceed + 1) / (permutations + 1)
    np.fill_diagonal(p, np.nan)
    return p, float(np.quantile(ranges, 1 - alpha))
