"""Multiple-comparison corrections of p-values.

:func:`adjust` turns the p-values of one family of comparisons into adjusted
p-values; a comparison is significant at level alpha when its adjusted
p-value is below alpha. :func:`rankmeter.compare` applies it separately to
each measure: across the comparisons with the baseline for ``.table``, and
across all pairs of systems for ``.pairwise``.
"""
from __future__ import annotations

import numpy as np

from rankmeter.stats.params import CORRECTION

__all__ = ["adjust", "CORRECTIONS"]

CORRECTIONS = CORRECTION.choices


def adjust(p, method: str = "none") -> np.ndarray:
    """Adjusted p-values of one family of comparisons.

    Parameters
    ----------
    p : array_like
        Raw p-values; NaN entries (comparisons that could not be made) are
        left NaN and do not count in the family size m.
    method : {"none", "bonferroni", "holm", "bh"}
        ``"bonferroni"``: ``min(1, m p)``. ``"holm"`` (step-down, controls the
        family-wise error): the i-th smallest becomes ``(m - i + 1) p_(i)``,
        made non-decreasing in that order and capped at 1. ``"bh"``
        (Benjamini-Hochberg, controls the false discovery rate): the i-th
        smallest becomes ``m p_(i) / i``, made non-increasing from the
        largest down and capped at 1.

    Returns
    -------
    ndarray
        Adjusted p-values in the order given.

    Examples
    --------
    >>> adjust([0.01, 0.04, 0.03], "holm").round(4).tolist()
    [0.03, 0.06, 0.06]
    >>> adjust([0.01, 0.04, 0.03], "bh").round(4).tolist()
    [0.03, 0.04, 0.04]
    """
    CORRECTION.check(method)
    p = np.asarray(p, dtype=np.float64)
    out = p.copy()
    known = np.flatnonzero(~np.isnan(p))
    m = len(known)
    if method == "none" or m == 0:
        return out
    values = p[known]
    if method == "bonferroni":
        out[known] = np.minimum(1.0, values * m)
        return out
    order = np.argsort(values, kind="stable")
    ranked = values[order]
    i = np.arange(1, m + 1)
    if method == "holm":
        adjusted = np.maximum.accumulate(ranked * (m - i + 1))
    else:
        adjusted = np.minimum.accumulate((ranked * m / i)[::-1])[::-1]
    result = np.empty(m)
    result[order] = np.minimum(1.0, adjusted)
    out[known] = result
    return out
