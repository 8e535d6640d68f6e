"""When a pair has been drawn enough: the stop rule of ``judges label --until-stable``.

A pair's draws are its grades from calls of the same prompt (a temperature above 0). Its verdict is whether
it is relevant, ``grade >= rel``; the share of draws that say so estimates ``p``, the probability the judge
says so, with Wilson's score interval at ``level`` (Wilson 1927; it keeps its coverage near the nominal rate
for few draws and ``p`` near 0 or 1, where the normal interval does not). The verdict is **unstable** while
the interval holds 1/2: more draws could still turn the majority. With ``on="grades"`` the grade
distribution must also be settled: the interval of the share of the most frequent grade must lie above 1/2
(one grade is the majority's, so the mode no longer turns on the next draw).

>>> [round(x, 3) for x in wilson(4, 4)]   # four draws of four say relevant: the interval leaves 1/2 out
[0.51, 1.0]
>>> unstable([2, 2, 2], rel=1), unstable([2, 2, 2, 2], rel=1), unstable([0, 3, 0, 3, 3, 0], rel=1)
(True, False, True)
>>> unstable([2, 3, 2, 3, 2, 3, 2, 3], rel=1), unstable([2, 3, 2, 3, 2, 3, 2, 3], rel=1, on="grades")
(False, True)
"""
from __future__ import annotations

import math
from statistics import NormalDist

__all__ = ["unstable", "wilson"]


def wilson(successes: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson's score interval of a binomial proportion: ``successes`` of ``n`` draws, at ``level``."""
    if n <= 0:
        return 0.0, 1.0
    z = NormalDist().inv_cdf(0.5 + level / 2)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def unstable(grades, *, rel: float, level: float = 0.95, on: str = "relevance") -> bool:
    """Whether a pair with these draws' ``grades`` should be drawn again (see the module docstring)."""
    n = len(grades)
    if n == 0:
        return True
    lo, hi = wilson(sum(g >= rel for g in grades), n, level)
    if lo < 0.5 < hi or lo == 0.5 or hi == 0.5:
        return True
    if on == "grades":
        top = max(grades.count(g) for g in set(grades))
        return wilson(top, n, level)[0] <= 0.5
    return False
