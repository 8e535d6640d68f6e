"""Straightforward loop versions of the leaderboard's statistics, written independently of the package.

* :func:`tukey_exact`: the randomised Tukey HSD p-values computed exactly, by enumerating every arrangement
  of every unit's row of scores across the systems (k!^n of them), instead of drawing some;
* :func:`pairs_from_resamples`: win probabilities, bootstrap p-values and simultaneous rank intervals of one
  measure from a resample matrix, one pair and one resample at a time;
* :func:`letter_runs`: the maximal runs of consecutive systems (in rank order) with no separated pair, by
  trying every run.
"""
from __future__ import annotations

import itertools
import math

import numpy as np


def tukey_exact(scores: np.ndarray) -> np.ndarray:
    """p[i, j] = share of all arrangements whose max - min of the system means is >= |mean_i - mean_j|."""
    n, k = scores.shape
    means = scores.mean(axis=0)
    orders = list(itertools.permutations(range(k)))
    ranges = []
    for choice in itertools.product(range(len(orders)), repeat=n):
        totals = [0.0] * k
        for unit, pick in enumerate(choice):
            order = orders[pick]
            for system in range(k):
                totals[system] += scores[unit, order[system]]
        ranges.append((max(totals) - min(totals)) / n)
    p = np.full((k, k), np.nan)
    for i in range(k):
        for j in range(k):
            if i != j:
                observed = abs(means[i] - means[j])
                p[i, j] = sum(1 for r in ranges if r >= observed - 1e-12) / len(ranges)
    return p


def pairs_from_resamples(observed, boot, alpha, units, counts=None, unit_values=None):
    """(win, p, rank_low, rank_high) of one measure, as ``rankmeter.leaderboard.ranks`` defines them (the
    Student's-scale reading done with scipy.stats). With ``counts`` (B x units draws) and ``unit_values``
    (units x S), the rank bounds are the studentised ones: each resample's t of a pair divides by the sample
    standard deviation of the drawn units' differences (each unit repeated as often as drawn) over sqrt(n)."""
    from scipy import stats

    widen = math.sqrt(units / (units - 1))
    b_total, s = boot.shape
    win = np.full((s, s), np.nan)
    p = np.full((s, s), np.nan)
    se = np.zeros((s, s))
    for i in range(s):
        for j in range(s):
            if i == j:
                continue
            d = [boot[r, i] - boot[r, j] for r in range(b_total)]
            mean = sum(d) / b_total
            se[i, j] = math.sqrt(sum((x - mean) ** 2 for x in d) / (b_total - 1))
            win[i, j] = sum(1.0 if x > 1e-12 else 0.5 if abs(x) <= 1e-12 else 0.0 for x in d) / b_total
            observed_d = observed[i] - observed[j]
            p0 = (sum(1 for x in d if abs(x - observed_d) >= abs(observed_d) - 1e-12) + 1) / (b_total + 1)
            p[i, j] = min(1.0, 2 * stats.t.sf(widen * stats.norm.isf(p0 / 2), units - 1))
    if counts is not None:
        return win, p, *_studentised_ranks(observed, boot, alpha, counts, unit_values)
    low, high = [], []
    for i in range(s):
        maxima = []
        for r in range(b_total):
            t = [abs((boot[r, i] - boot[r, j]) - (observed[i] - observed[j])) / se[i, j]
                 for j in range(s) if j != i and se[i, j] > 0]
            maxima.append(max(t) if t else 0.0)
        q = widen * stats.t.ppf(stats.norm.cdf(float(np.quantile(maxima, 1 - alpha))), units - 1)
        better = sum(1 for j in range(s) if j != i and observed[j] - observed[i] > q * se[i, j] + 1e-12)
        worse = sum(1 for j in range(s) if j != i and observed[i] - observed[j] > q * se[i, j] + 1e-12)
        low.append(1 + better)
        high.append(s - worse)
    return win, p, low, high


def _sample_se(values):
    n = len(values)
    mean = sum(values) / n
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1) / n)


def _studentised_ranks(observed, boot, alpha, counts, unit_values):
    b_total, s = boot.shape
    n = len(unit_values)

    def se_of(i, j, draws):
        drawn = [unit_values[c][i] - unit_values[c][j] for c in range(n) for _ in range(int(draws[c]))]
        return _sample_se(drawn)

    low, high = [], []
    for i in range(s):
        maxima = []
        for r in range(b_total):
            t = []
            for j in range(s):
                if j == i:
                    continue
                num = abs((boot[r, i] - boot[r, j]) - (observed[i] - observed[j]))
                se = se_of(i, j, counts[r])
                t.append(num / se if se > 1e-12 else (0.0 if num <= 1e-12 else math.inf))
            maxima.append(max(t))
        q = float(np.quantile(maxima, 1 - alpha))
        se = [se_of(i, j, [1] * n) if j != i else 0.0 for j in range(s)]
        better = sum(1 for j in range(s) if j != i and observed[j] - observed[i] > q * se[j] + 1e-12)
        worse = sum(1 for j in range(s) if j != i and observed[i] - observed[j] > q * se[j] + 1e-12)
        low.append(1 + better)
        high.append(s - worse)
    return low, high


def letter_runs(order, separated):
    """Each system's set of runs (start position) among the maximal separation-free runs of ``order``."""
    s = len(order)
    runs = []
    for i in range(s):
        for j in range(i, s):
            members = order[i:j + 1]
            if any(separated[a][b] for a in members for b in members):
                break
            runs.append((i, j))
    maximal = [(i, j) for i, j in runs if not any((a <= i and j <= b) and (a, b) != (i, j) for a, b in runs)]
    return [sorted(i for i, j in maximal if i <= position <= j) for position in range(s)]
