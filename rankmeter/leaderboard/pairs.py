"""Pairwise tests of a leaderboard, corrected over every pair and measure; equivalence and non-inferiority.

Each test is one of :mod:`rankmeter.stats.significance`'s, applied to the unit the aggregate is a mean of:

==================  =========================================================================================
test                p-value of the difference of two systems' aggregates
==================  =========================================================================================
``bootstrap``       the leaderboard's own resamples (:func:`.ranks.resampled_pairs`)
``randomization``   sign flips of each unit's difference (:func:`~rankmeter.stats.significance.randomization`):
                    the collections at one level (the default there); the queries at two, each weighted as
                    the aggregate weighs it
``t``, ``wilcoxon`` over the collections' means (as :func:`scipy.stats.ttest_rel`, :func:`scipy.stats.wilcoxon`)
``tukey``           Sakai's randomised Tukey HSD over the systems (:func:`~rankmeter.stats.significance.tukey_hsd`),
                    on the collections' means at one level and on the weighted queries at two
==================  =========================================================================================

A geometric aggregate is tested on the logarithms of the collections' means (floored at 1e-5), whatever
the level; ``t`` and ``wilcoxon`` test the collections' means as they are, so under ``aggregate="weighted"``
they test the macro mean's difference (the bootstrap and the two-level tests weigh as the aggregate does).
Cost: the randomisation test at two levels multiplies B x queries x pairs (100 systems, 20,000 queries:
hours); the bootstrap test costs nothing beyond the resamples. The p-values of all pairs of all measures are one family for the correction
(:func:`rankmeter.stats.corrections.adjust`); Tukey's already hold over the systems of a measure.
"""
from __future__ import annotations

import math

import numpy as np

from rankmeter.stats import significance as sig
from rankmeter.stats import student
from rankmeter.stats.corrections import adjust
from rankmeter.leaderboard.ranks import t_scale_p
from rankmeter.leaderboard.resample import FLOOR

__all__ = ["pair_indices", "pair_p_values", "sign_flip_p", "effect_sizes", "equivalence"]

_COLUMNS = 1 << 22  # numbers of a block of per-query differences (and of flipped sums)


def pair_indices(systems: int) -> tuple[np.ndarray, np.ndarray]:
    """(a, b) of every pair a < b, in order."""
    a, b = np.triu_indices(systems, k=1)
    return a, b


def _units(scores, aggregate: str) -> np.ndarray:
    """(collections x measures x systems) values the collection-level tests run on."""
    means = scores.collection_means()
    return np.log(np.maximum(means, FLOOR)) if aggregate == "geometric" else means


def _weighted_queries(scores, aggregate: str, m: int) -> tuple[np.ndarray, np.ndarray]:
    """(all queries x systems) values of measure m and each query's weight in the aggregate."""
    x = np.concatenate([b[:, m, :] for b in scores.blocks])
    sizes = scores.sizes
    if aggregate == "weighted":
        w = np.full(len(x), 1.0 / len(x))
    else:
        w = np.repeat(1.0 / (len(sizes) * sizes), sizes)
    return x, w


def pair_p_values(scores, *, test: str, level: str, aggregate: str, boot_p: list[np.ndarray],
                  alpha: float, resamples: int, seed: int | None) -> np.ndarray:
    """Raw p-values, (measures x pairs) in :func:`pair_indices` order."""
    a, b = pair_indices(len(scores.systems))
    out = np.empty((len(scores.measures), len(a)))
    units = _units(scores, aggregate)
    by_queries = level == "queries" and aggregate != "geometric"
    for m in range(len(scores.measures)):
        if test == "bootstrap":
            out[m] = boot_p[m][a, b]
        elif test in ("t", "wilcoxon"):
            fn = sig.paired_t if test == "t" else sig.wilcoxon
            diffs = units[:, m, a] - units[:, m, b]
            out[m] = [fn(diffs[:, k], alpha=alpha)[0] for k in range(len(a))]
        elif test == "randomization":
            if by_queries:
                x, w = _weighted_queries(scores, aggregate, m)
            else:
                x, w = units[:, m, :], np.ones(len(units))
            out[m] = sign_flip_p(x, w, a, b, resamples=resamples, seed=seed)
        else:  # tukey
            if by_queries:
                x, w = _weighted_queries(scores, aggregate, m)
                x = x * (w * len(x))[:, None]  # the rows' mean is the aggregate; a row's permutation commutes
            else:
                x = units[:, m, :]
            p, _ = sig.tukey_hsd(x, permutations=resamples, seed=seed, alpha=alpha)
            out[m] = p[a, b]
    return out


def sign_flip_p(x: np.ndarray, w: np.ndarray, a: np.ndarray, b: np.ndarray, *, resamples: int,
                seed: int | None) -> np.ndarray:
    """Two-sided sign-flip p-values of every pair (a[k], b[k]) over the rows of ``x`` (units x systems), each
    unit's difference weighted by ``w``: the p-values of :func:`rankmeter.stats.significance.randomization`
    (the same signs from the same seed, the same ``(#{|flipped sum| >= |sum|} + 1) / (B + 1)``, the same
    tolerance), without its intervals.

    The intervals there keep every flipped sum of every pair and take a quantile of each (a sort of B
    numbers per pair: most of the cost at 4,950 pairs); here the B x pairs sums of a block are compared
    with the bound and counted, one matrix product of the signs and the differences per block. The signs
    are drawn once for all pairs when B x units random bits fit in a block (one level: 10,000 x 20), else
    a block of resamples at a time, each block of pairs drawing the same stream again.
    """
    n = len(x)
    signs_rows = max(1, min(resamples, _COLUMNS // max(n, 1)))
    shared = signs_rows >= resamples
    if shared:
        bits = sig.random_bits(sig.seeded_rng(seed), resamples, n)
    step = max(1, _COLUMNS // max(n, min(resamples, signs_rows), 1))
    out = np.empty(len(a))
    for k in range(0, len(a), step):
        cols = slice(k, k + step)
        d = (x[:, a[cols]] - x[:, b[cols]]) * w[:, None]
        total = d.sum(axis=0)
        bound = np.abs(total) - (1e-10 * np.abs(d).sum(axis=0) + 1e-300)  # significance.randomization's slack
        exceed = np.zeros(d.shape[1], dtype=np.int64)
        if shared:
            blocks = ((bits, None),)
        else:
            rng = sig.seeded_rng(seed)
            blocks = ((None, min(signs_rows, resamples - start)) for start in range(0, resamples, signs_rows))
        for block, rows in blocks:
            signs = block if block is not None else sig.random_bits(rng, rows, n)
            flipped = signs @ d
            flipped *= 2
            flipped -= total
            np.abs(flipped, out=flipped)
            exceed += np.count_nonzero(flipped >= bound, axis=0)
        out[cols] = (exceed + 1) / (resamples + 1)
    return out


def corrected(p: np.ndarray, correction: str, test: str) -> np.ndarray:
    """The p-values of every pair and measure adjusted as one family (Tukey's: as they are)."""
    if test == "tukey":
        return p.copy()
    return adjust(p.ravel(), correction).reshape(p.shape)


def effect_sizes(scores, aggregate: str) -> np.ndarray:
    """Paired Cohen's d_z of each pair over the collections' means, (measures x pairs): what
    :func:`rankmeter.stats.significance.effect_size` gives for each pair's differences (NaN with fewer than
    two collections or differences without spread), for all pairs at once."""
    a, b = pair_indices(len(scores.systems))
    units = _units(scores, aggregate)
    d = units[:, :, a] - units[:, :, b]  # (collections, measures, pairs)
    out = np.full(d.shape[1:], np.nan)
    if len(d) >= 2:
        spread = np.ptp(d, axis=0) > 0
        sd = d.std(axis=0, ddof=1)
        np.divide(d.mean(axis=0), sd, out=out, where=spread)
    return out


def equivalence(scores, observed: np.ndarray, boot: np.ndarray, *, baseline: int, margin: float, test: str,
                aggregate: str, units: int) -> dict[str, np.ndarray]:
    """Non-inferiority and equivalence (TOST) of every system against ``baseline``, (measures x systems).

    ``p_lower`` tests H0: difference <= -margin (non-inferiority rejects it), ``p_upper`` H0: difference >=
    margin; TOST's p is the larger of the two. With ``test="t"`` both are one-sided t-tests over the
    collections' means (``scipy.stats.ttest_1samp(d, -margin, alternative="greater")`` and
    ``ttest_1samp(d, margin, alternative="less")``); otherwise they come from the resamples:
    ``p_lower = (#{D* - D >= D + margin} + 1) / (B + 1)``, and symmetrically, read on Student's scale
    (:func:`rankmeter.leaderboard.ranks.t_scale_p`, one-sided).
    """
    diff = observed - observed[:, [baseline]]  # (measures, systems)
    if test == "t":
        units = _units(scores, aggregate)
        d = units - units[:, :, [baseline]]
        n = len(d)
        mean = d.mean(axis=0)
        sd = d.std(axis=0, ddof=1) if n > 1 else np.zeros_like(mean)
        p_lower, p_upper = np.full(mean.shape, np.nan), np.full(mean.shape, np.nan)
        for index in np.ndindex(mean.shape):
            if n < 2 or index[1] == baseline:
                continue
            if sd[index] == 0:
                p_lower[index] = 0.0 if mean[index] > -margin else 1.0
                p_upper[index] = 0.0 if mean[index] < margin else 1.0
                continue
            se = sd[index] / math.sqrt(n)
            p_lower[index] = float(student.stdtr(n - 1, -(mean[index] + margin) / se))
            p_upper[index] = float(student.stdtr(n - 1, (mean[index] - margin) / se))
    else:
        dev = (boot - boot[:, :, [baseline]]) - diff[None]  # (B, measures, systems)
        total = len(boot)
        p_lower = t_scale_p(((dev >= (diff + margin)[None]).sum(axis=0) + 1) / (total + 1), units, sides=1)
        p_upper = t_scale_p(((dev <= (diff - margin)[None]).sum(axis=0) + 1) / (total + 1), units, sides=1)
        p_lower[:, baseline] = p_upper[:, baseline] = np.nan
    return {"difference": diff, "p_lower": p_lower, "p_upper": p_upper}
