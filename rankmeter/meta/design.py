"""Topic set size design (Sakai, "Topic set size design", Information Retrieval Journal 2016).

How many topics a test collection needs so that a difference of at least
``min_diff`` between systems is detected with probability ``1 - beta`` at
level ``alpha``, given the variance of the measure's per-topic scores:

* paired t-test (two systems): the difference of per-topic scores has
  variance ``variance`` (sigma_d^2); the power of n topics is
  P(|T'| > t_{alpha/2, n-1}) with T' noncentral t, n - 1 degrees of freedom
  and noncentrality sqrt(n) * min_diff / sigma_d;
* one-way ANOVA over m systems: the within-system variance ``variance``
  (sigma^2), the best and worst systems ``min_diff`` apart and the others at
  their mean (the least favourable configuration), so the noncentrality is
  n * min_diff^2 / (2 sigma^2); the power is P(F' > F_{alpha; m-1, m(n-1)}).

:func:`topic_set_size` is the smallest n reaching the power,
:func:`power` the power of n topics, :func:`minimum_detectable_difference`
the smallest ``min_diff`` n topics detect, and :func:`variance_estimate`
Sakai's residual variance of a (topics x systems) score matrix (two-way
ANOVA without replication). scipy computes the noncentral distributions.

>>> round(power(50, test="t", min_diff=0.1, variance=0.04), 4)
0.9339
>>> topic_set_size(test="t", min_diff=0.1, variance=0.04, alpha=0.05, beta=0.2)
34
"""
from __future__ import annotations

import math

import numpy as np

from rankmeter.meta.params import BETA, DESIGN_TEST, MIN_DIFF, MOST, SYSTEMS, TOPICS, VARIANCE
from rankmeter.stats.params import ALPHA
from rankmeter.stats.student import t_quantile
from rankmeter.engine.param import validate_params
from rankmeter.errors import ParameterError

__all__ = ["power", "topic_set_size", "minimum_detectable_difference", "variance_estimate"]


def _stats():
    from rankmeter.errors import MissingExtra
    try:
        from scipy import stats
    except ImportError:
        raise MissingExtra("scipy", "stats", "topic set size design") from None
    return stats


_DECLARED = (DESIGN_TEST, MIN_DIFF, VARIANCE, ALPHA, SYSTEMS)


def _check(test: str, systems: int) -> None:
    """What no single declaration says: the t-test compares two systems."""
    if test == "t" and systems != 2:
        raise ParameterError(f"systems={systems!r}: the paired t-test compares two systems; use test='anova'")


@validate_params(*_DECLARED, TOPICS)
def power(topics: int, *, test: str = "t", min_diff: float, variance: float, alpha: float = 0.05,
          systems: int = 2) -> float:
    """The chance that ``topics`` topics detect a difference of ``min_diff`` (see module docstring)."""
    _check(test, systems)
    n = topics
    stats = _stats()
    if test == "t":
        df = n - 1
        nc = math.sqrt(n) * min_diff / math.sqrt(variance)
        crit = t_quantile(df, 1 - alpha / 2)
        return float(stats.nct.sf(crit, df, nc) + stats.nct.cdf(-crit, df, nc))
    df1, df2 = systems - 1, systems * (n - 1)
    nc = n * min_diff ** 2 / (2 * variance)
    crit = stats.f.ppf(1 - alpha, df1, df2)
    return float(stats.ncf.sf(crit, df1, df2, nc))


@validate_params(*_DECLARED, BETA, MOST)
def topic_set_size(*, test: str = "t", min_diff: float, variance: float, alpha: float = 0.05, beta: float = 0.2,
                   systems: int = 2, most: int = 1_000_000) -> int:
    """The fewest topics whose power reaches ``1 - beta`` (a search over n; powers rise with n)."""
    _check(test, systems)
    target = 1 - beta
    low, high = 2, 2
    while power(high, test=test, min_diff=min_diff, variance=variance, alpha=alpha, systems=systems) < target:
        low, high = high, high * 2
        if high > most:
            raise ParameterError(f"more than {most} topics would be needed; is min_diff {min_diff} too small?")
    while low < high:  # the smallest n in (low, high] with enough power
        mid = (low + high) // 2
        if power(mid, test=test, min_diff=min_diff, variance=variance, alpha=alpha, systems=systems) >= target:
            high = mid
        else:
            low = mid + 1
    return high


@validate_params(*_DECLARED[:1], *_DECLARED[2:], TOPICS, BETA)
def minimum_detectable_difference(topics: int, *, test: str = "t", variance: float, alpha: float = 0.05,
                                  beta: float = 0.2, systems: int = 2) -> float:
    """The smallest difference ``topics`` topics detect with power ``1 - beta`` (bisection, 1e-10)."""
    _check(test, systems)
    target = 1 - beta
    low, high = 0.0, math.sqrt(variance)
    while power(topics, test=test, min_diff=high, variance=variance, alpha=alpha, systems=systems) < target:
        high *= 2
    for _ in range(200):
        mid = (low + high) / 2
        if power(topics, test=test, min_diff=mid, variance=variance, alpha=alpha, systems=systems) >= target:
            high = mid
        else:
            low = mid
        if high - low < 1e-10:
            break
    return high


def variance_estimate(scores: np.ndarray) -> float:
    """Sakai's variance estimate from a (topics x systems) matrix: the residual mean square of a
    two-way ANOVA without replication, sum((x - topic mean - system mean + grand mean)^2) / ((n-1)(m-1))."""
    x = np.asarray(scores, dtype=np.float64)
    n, m = x.shape
    if n < 2 or m < 2 or np.isnan(x).any():
        raise ParameterError("scores: a (topics x systems) matrix of at least 2 x 2, without missing values")
    residual = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + x.mean()
    return float((residual ** 2).sum() / ((n - 1) * (m - 1)))
