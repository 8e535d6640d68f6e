"""The order ranx gives tied scores: its sort (numba's ``np.argsort``, an unstable quicksort), reproduced.

ranx sorts each query's docs with ``np.argsort`` compiled by numba, whose default kind is a
quicksort: median-of-three partitions down to 15 elements, then an insertion sort. It is not
stable, so tied docs come out in an order that depends on the sort's steps, but the same input
(the docs in the order the dict gives them) always gives the same order. :func:`argsort` makes the
same steps, so the drop-in holds each query's docs in ranx's order and scores ties as ranx does.

It runs in Python, only for a query that has tied values (:func:`order`); a query without ties is
sorted by numpy, where every sort agrees.

>>> argsort([0.0, -1.0, 0.0, -1.0])   # ascending; equal keys as the quicksort leaves them
[1, 3, 0, 2]
>>> order([1.0, 2.0, 1.0] + [0.5] * 16)[:4]
[1, 0, 2, 17]
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["argsort", "order"]

_SMALL = 15  # numba's SMALL_QUICKSORT: below this, an insertion sort


def _lt(a: float, b: float) -> bool:
    """numba's float order: NaN after every number."""
    return a < b or (math.isnan(b) and not math.isnan(a))


def _insertion(A: list, R: list, low: int, high: int) -> None:
    for i in range(low + 1, high + 1):
        k = R[i]
        v = A[k]
        j = i
        while j > low and _lt(v, A[R[j - 1]]):
            R[j] = R[j - 1]
            j -= 1
        R[j] = k


def _partition(A: list, R: list, low: int, high: int) -> int:
    mid = (low + high) >> 1
    if _lt(A[R[mid]], A[R[low]]):
        R[low], R[mid] = R[mid], R[low]
    if _lt(A[R[high]], A[R[mid]]):
        R[high], R[mid] = R[mid], R[high]
    if _lt(A[R[mid]], A[R[low]]):
        R[low], R[mid] = R[mid], R[low]
    pivot = A[R[mid]]
    R[high], R[mid] = R[mid], R[high]
    i, j = low, high - 1
    while True:
        while i < high and _lt(A[R[i]], pivot):
            i += 1
        while j >= low and _lt(pivot, A[R[j]]):
            j -= 1
        if i >= j:
            break
        R[i], R[j] = R[j], R[i]
        i += 1
        j -= 1
    R[i], R[high] = R[high], R[i]
    return i


def argsort(keys) -> list[int]:
    """The positions of ``keys`` in ascending order, ties as numba's ``np.argsort`` (quicksort) leaves them."""
    A = list(keys)
    R = list(range(len(A)))
    if len(A) < 2:
        return R
    stack = [(0, len(A) - 1)]
    while stack:
        low, high = stack.pop()
        while high - low >= _SMALL:
            i = _partition(A, R, low, high)
            if high - i > i - low:  # the larger part waits on the stack
                if high > i:
                    stack.append((i + 1, high))
                high = i - 1
            else:
                if i > low:
                    stack.append((low, i - 1))
                low = i + 1
        _insertion(A, R, low, high)
    return R


def order(values, *, descending_of_ascending: bool = False) -> list[int]:
    """ranx's order of one query's docs by value, highest first, ties as ranx leaves them.

    ``Run`` and ``Qrels`` sort ``-value`` ascending; ranx's ``evaluate`` on plain dicts sorts
    ``value`` ascending and reverses it (``descending_of_ascending=True``).
    """
    values = np.asarray(values, dtype=np.float64)
    if len(np.unique(values)) == len(values) and not np.isnan(values).any():  # no ties: any sort agrees
        return np.argsort(-values, kind="stable").tolist()
    if descending_of_ascending:
        return argsort(values.tolist())[::-1]
    return argsort((-values).tolist())
