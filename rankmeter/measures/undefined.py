"""Queries a measure cannot score: NaN left out of the mean, and TorchMetrics' ``empty_target_action``.

Some measures are undefined for some queries (ir_measures' ``Accuracy``
without a relevant doc retrieved). Their kernels return NaN there, and the
family's aggregation :data:`MEAN_DEFINED` averages the other queries only, as
ir_measures and TorchMetrics (``empty_target_action="skip"``) do; a paired
comparison leaves such a query out of the pairs it cannot form.

TorchMetrics decides per measure what a query with no relevant doc scores:
``empty_target_action`` is ``neg`` (0, its default and trec_eval's value),
``pos`` (1), ``skip`` (left out of the mean) or ``error``.
:func:`with_empty_target` adds that choice to a kernel.

>>> import numpy as np
>>> MEAN_DEFINED.reduce(np.array([0.5, np.nan, 1.0]), FLOAT)
0.75
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from rankmeter.errors import MeasureError
from rankmeter.measures.aggregation import FLOAT, Aggregation, ValueType
from rankmeter.measures.base import Param, level_of

__all__ = ["MEAN_DEFINED", "EMPTY_TARGET", "with_empty_target", "no_relevant", "FLOAT"]


@dataclass(frozen=True)
class _MeanOfDefined(Aggregation):
    """The mean over the queries whose value is not NaN (0 when there is none)."""

    def reduce(self, values: np.ndarray, value_type: ValueType) -> Any:
        kept = np.asarray(values, dtype=np.float64)
        kept = kept[~np.isnan(kept)]
        if len(kept) == 0:
            return 0
        # added query by query in double, as MEAN does
        return float(np.cumsum(kept)[-1] / len(kept))

    def spark_column(self, functions, column, scored):
        return functions.avg(functions.when(scored & ~functions.isnan(column), column))


MEAN_DEFINED = _MeanOfDefined("mean", "mean over the queries where it is defined (NaN: left out)")

EMPTY_TARGET = Param("empty_target_action", "choice", "neg", "a query with no relevant doc (TorchMetrics' "
                     "empty_target_action): neg = 0 (trec_eval), pos = 1, skip = left out of the mean, error = refuse",
                     choices=("neg", "pos", "skip", "error"))


def no_relevant(batch, m) -> np.ndarray:
    """Per query: no judged doc with grade >= rel (R = 0)."""
    return batch.num_rel(level_of(batch, m)) == 0


def with_empty_target(kernel: Callable, empty: Callable = no_relevant, *, what: str = "no relevant doc") -> Callable:
    """``kernel`` with ``empty_target_action`` applied to the queries where ``empty(batch, m)`` holds.

    Under ``neg`` the kernel's own value stands: every family this wraps
    scores such a query 0 by its definition.
    """
    @functools.wraps(kernel)
    def wrapped(batch, m) -> np.ndarray:
        values = kernel(batch, m)
        action = m.get("empty_target_action")
        if action == "neg":
            return values
        mask = empty(batch, m)
        if action == "error" and mask.any():
            names = [batch.queries[i].decode("utf-8", "replace") for i in np.flatnonzero(mask)[:5]]
            raise MeasureError(f"{m}: {int(mask.sum())} queries have {what} (e.g. {', '.join(names)}) and "
                               "empty_target_action=error refuses them; use neg (0), pos (1) or skip")
        values = values.astype(np.float64)
        values[mask] = 1.0 if action == "pos" else np.nan
        return values
    wrapped.empty_target = (empty, what)  # explanations say when the action, not the formula, gave the value
    return wrapped
