"""When a pair has been drawn enough: the stop rule of ``judges label --until-stable``.

A pair's draws are its grades from calls of the same prompt (a temperature above 0). Its verdict is whether
it is relevant, ``grade >= rel``; the share of draws that say so estimates ``p``, the probability the judge
says so, with Wilson's score interval at ``level`` (Wilson 1927; it keeps its coverage near the nominal rate
for few draws and ``p`` near 0 or 1, where the normal interval does not). The verdict is **unstable** while
the interval holds 1/2: more draws could still turn the majority. With ``on="grades"`` the grade
distribution must also be settled: the interval of the share of the most frequent grade must lie above 1/2
(one grade is the majority's, so the mode no longer turns on the next draw).

>>> [round(float(x), 3) for x in wilson(4, 4)]   # four draws of four say relevant: the interval leaves 1/2 out
[0.51, 1.0]
>>> unstable([2, 2, 2], rel=1), unstable([2, 2, 2, 2], rel=1), unstable([0, 3, 0, 3, 3, 0], rel=1)
(True, False, True)
>>> unstable([2, 3, 2, 3, 2, 3, 2, 3], rel=1), unstable([2, 3, 2, 3, 2, 3, 2, 3], rel=1, on="grades")
(False, True)
"""
from __future__ import annotations

from statistics import NormalDist

import numpy as np

__all__ = ["unstable", "verdict_interval", "wilson"]


def wilson(successes, trials, *, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Wilson's score interval of a binomial proportion at level ``1 - alpha``: ``successes`` of ``trials``
    draws (arrays: one interval per entry; no trial at all: the whole of [0, 1]).

    >>> low, high = wilson([3], [4])
    >>> round(float(low[0]), 4), round(float(high[0]), 4)
    (0.3006, 0.9544)
    """
    k, n = np.asarray(successes, float), np.asarray(trials, float)
    z = NormalDist().inv_cdf(1 - alpha / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = k / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z / (1 + z * z / n) * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    low, high = np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)
    return np.where(n > 0, low, 0.0), np.where(n > 0, high, 1.0)


def verdict_interval(successes: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """One pair's Wilson interval at ``level``, as two floats (what the label ledger shows)."""
    low, high = wilson(successes, n, alpha=1 - level)
    return float(low), float(high)


def unstable(grades, *, rel: float, level: float = 0.95, on: str = "relevance") -> bool:
    """Whether a pair with these draws' ``grades`` should be drawn again (see the module docstring)."""
    n = len(grades)
    if n == 0:
        return True
    lo, hi = verdict_interval(sum(g >= rel for g in grades), n, level)
    if lo < 0.5 < hi or lo == 0.5 or hi == 0.5:
        return True
    if on == "grades":
        top = max(grades.count(g) for g in set(grades))
        return verdict_interval(top, n, level)[0] <= 0.5
    return False
