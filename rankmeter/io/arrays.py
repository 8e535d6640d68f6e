"""A field of numbers read as a float64 array: the one kind of :mod:`rankmeter.io.schema` that builds numpy
arrays (the others give values as read), so a structured file without such a field loads no numpy for it.

>>> from rankmeter.io.schema import check
>>> check([0.5, 2], Numbers(low=0, high=1), source="cfg.json")
Traceback (most recent call last):
...
rankmeter.errors.InputError: cfg.json: field [1]: expected a finite number in [0, 1], got 2
"""
from __future__ import annotations

import numpy as np

from rankmeter.io.schema import Schema, bounds

__all__ = ["Numbers"]


class Numbers(Schema):
    """A list of numbers (``rows=True``: a list of such lists, each ``length`` long) read as a float64 array;
    finite and in ``[low, high]`` (the first number that is not is named)."""

    def __init__(self, *, length: int | None = None, rows: bool = False, low: float | None = None,
                 high: float | None = None):
        self.length, self.rows, self.low, self.high = length, rows, low, high

    def describe(self) -> str:
        inner = f"numbers{bounds(self.low, self.high)}"
        count = f" of {self.length}" if self.length is not None else ""
        return f"a list of lists{count} of {inner}" if self.rows else f"a list{count} of {inner}"

    def _row(self, row, at, ctx) -> np.ndarray:
        if not isinstance(row, list) or self.length is not None and len(row) != self.length:
            expected = f"a list of {self.length} numbers" if self.length is not None else "a list of numbers"
            raise ctx.refuse(at, expected, row)
        bad = next((j for j, x in enumerate(row) if type(x) is not float and type(x) is not int), None)
        if bad is None:
            try:
                array = np.array(row, dtype=np.float64)
            except OverflowError:
                array = None
        if bad is not None or array is None:
            if bad is None:
                bad = next(j for j, x in enumerate(row) if type(x) is int and abs(x) >= 2 ** 1023)
            raise ctx.refuse((*at, bad), "a number" + bounds(self.low, self.high), row[bad])
        wrong = ~np.isfinite(array)
        if self.low is not None:
            wrong |= array < self.low
        if self.high is not None:
            wrong |= array > self.high
        if wrong.any():
            j = int(np.flatnonzero(wrong)[0])
            raise ctx.refuse((*at, j), "a finite number" + bounds(self.low, self.high), row[j])
        return array

    def check(self, value, at, ctx):
        if not self.rows:
            return self._row(value, at, ctx)
        if not isinstance(value, list) or not value:
            raise ctx.refuse(at, self.describe(), value)
        arrays = [self._row(row, (*at, i), ctx) for i, row in enumerate(value)]
        return np.vstack(arrays) if arrays else np.zeros((0, self.length or 0))
