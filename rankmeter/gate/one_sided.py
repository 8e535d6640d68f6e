"""The gate's statistics: is the new run worse than the baseline by at least the margin?

Per query the difference is ``d = new - baseline``. The hypotheses are one-sided, shifted by the margin
``delta``::

    H0: mean(d) >= -delta   (no regression beyond the margin)
    H1: mean(d) <  -delta   (a regression of more than the margin)

so a significant result (p < alpha) is a regression the queries show beyond the margin. Every test runs on
the shifted differences ``d + delta`` against 0, alternative "less":

=================  ==========================================================================================
``t``              Student's paired t: ``p = F_t(n-1)(mean / (sd / sqrt n))`` (scipy's ``ttest_1samp(...,
                   alternative="less")``)
``wilcoxon``       Wilcoxon signed-rank on the shifted differences, alternative "less" (scipy's, its defaults)
``randomization``  sign flips of the shifted differences: ``(#{sum s_i x_i <= sum x_i} + 1) / (B + 1)``
``bootstrap``      studentised shift bootstrap (Efron and Tibshirani 1993, 16.2) of the shifted
                   differences, one-sided
=================  ==========================================================================================

The interval reported beside the p-value is the two-sided ``1 - 2 alpha`` interval of ``mean(d)`` (Student's
t; the bootstrap's BCa and the randomization test's own for those two), the interval that matches a one-sided
test at ``alpha``: for the t-test a regression is declared exactly when its upper end is below ``-delta``.

:func:`minimum_detectable_drop` is the drop (a positive number) that the t-test detects with probability
``power`` at this number of queries and this spread of the differences (Sakai 2016's power analysis, one-sided):
``delta + (t_{1-alpha} + t_{power}) * sd / sqrt(n)`` with Student's quantiles at ``n - 1`` degrees of freedom.
"""
from __future__ import annotations

import math

import numpy as np

from rankmeter.stats.significance import random_bits, seeded_rng, t_interval, bootstrap, randomization
from rankmeter.stats.student import stdtr, t_quantile

__all__ = ["regression_test", "minimum_detectable_drop", "TESTS"]

TESTS = ("t", "wilcoxon", "randomization", "bootstrap")
_BLOCK = 1 << 22


def _t_p(x: np.ndarray) -> float:
    n, mean = len(x), float(x.mean())
    sd = float(x.std(ddof=1))
    if sd == 0:
        return 1.0 if mean >= 0 else 0.0
    return float(stdtr(n - 1, mean / (sd / math.sqrt(n))))


def _wilcoxon_p(x: np.ndarray) -> float:
    from rankmeter.errors import require
    stats = require("scipy.stats", "stats", "the gate's Wilcoxon test")
    if not np.any(x):
        return 1.0
    return float(stats.wilcoxon(x, alternative="less").pvalue)


def _randomization_p(x: np.ndarray, permutations: int, seed) -> float:
    n, total = len(x), float(x.sum())
    rng, below = seeded_rng(seed), 0
    slack = 1e-10 * float(np.abs(x).sum()) + 1e-300
    block = max(1, min(permutations, _BLOCK // max(n, 1)))
    for start in range(0, permutations, block):
        rows = min(block, permutations - start)
        flipped = 2 * (random_bits(rng, rows, n) @ x) - total
        below += int(np.count_nonzero(flipped <= total + slack))
    return (below + 1) / (permutations + 1)


def _bootstrap_p(x: np.ndarray, permutations: int, seed) -> float:
    n, mean, sd = len(x), float(x.mean()), float(x.std(ddof=1))
    if sd == 0:
        return 1.0 if mean >= 0 else 0.0
    observed = mean / (sd / math.sqrt(n))
    centred = x - mean
    rng, below = seeded_rng(seed), 0
    block = max(1, min(permutations, _BLOCK // max(n, 1)))
    for start in range(0, permutations, block):
        rows = min(block, permutations - start)
        sample = centred[rng.integers(0, n, size=(rows, n))]
        spread = sample.std(axis=1, ddof=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = sample.mean(axis=1) / (spread / math.sqrt(n))
        below += int(np.count_nonzero(np.where(spread > 0, t, 0.0) <= observed))
    return (below + 1) / (permutations + 1)


def regression_test(d, *, margin: float = 0.0, alpha: float = 0.05, test: str = "t", permutations: int = 10000,
                    seed: int | None = 0) -> dict:
    """One-sided paired test of a regression beyond ``margin`` on per-query differences ``d = new - baseline``.

    Returns ``{"n", "difference", "low", "high", "p_value", "effect_size", "sd"}``: the mean difference, its
    ``1 - 2 alpha`` interval, the p-value of H1 ``mean(d) < -margin``, Cohen's d_z of the differences and
    their standard deviation. NaN where fewer than two queries leave nothing to test.

    >>> out = regression_test([-0.1, -0.2, 0.0, -0.15, -0.05], margin=0.01)
    >>> round(out["difference"], 4), round(out["p_value"], 4)
    (-0.1, 0.0318)
    """
    d = np.asarray(d, dtype=np.float64)
    n = len(d)
    if n < 2:
        return {"n": n, "difference": float(d.mean()) if n else math.nan, "low": math.nan, "high": math.nan,
                "p_value": math.nan, "effect_size": math.nan, "sd": math.nan}
    shifted = d + margin
    if test == "t":
        p = _t_p(shifted)
    elif test == "wilcoxon":
        p = _wilcoxon_p(shifted)
    elif test == "randomization":
        p = _randomization_p(shifted, permutations, seed)
    else:
        p = _bootstrap_p(shifted, permutations, seed)
    sd = float(d.std(ddof=1))
    mean = float(d.mean())
    if sd == 0:
        low = high = mean
    elif test == "randomization":
        _, lo, hi = randomization(d, permutations=permutations, seed=seed, alpha=2 * alpha)
        low, high = float(lo[0]), float(hi[0])
    elif test == "bootstrap":
        _, lo, hi = bootstrap(d[:, None], permutations=permutations, seed=seed, alpha=2 * alpha)
        low, high = float(lo[0]), float(hi[0])
    else:
        low, high = t_interval(d, 2 * alpha)
    return {"n": n, "difference": mean, "low": low, "high": high, "p_value": p,
            "effect_size": mean / sd if sd > 0 else math.nan, "sd": sd}


def minimum_detectable_drop(sd: float, n: int, *, margin: float = 0.0, alpha: float = 0.05,
                            power: float = 0.8) -> float:
    """The drop of the mean that a one-sided paired t-test at ``alpha`` detects with probability ``power``.

    >>> round(minimum_detectable_drop(0.1, 50, margin=0.01), 4)
    0.0457
    """
    if n < 2 or not math.isfinite(sd):
        return math.nan
    df = n - 1
    return float(margin + (t_quantile(df, 1 - alpha) + t_quantile(df, power)) * sd / math.sqrt(n))
