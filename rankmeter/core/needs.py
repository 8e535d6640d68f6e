"""Qrels-wide statistics that measure families declare they need, computed in one place.

A family lists the names in ``Family.needs``; the :class:`~rankmeter.core.Evaluator`
computes each one once from the whole qrels (the Spark executor with the
``spark`` form, on the cluster) and every batch carries the values in
``batch.needs``, so a part of the data scores exactly as the whole does.

>>> from rankmeter.io import as_qrels
>>> compute_needs(["qrels_max_grade"], as_qrels({"q1": {"a": 3}, "q2": {"b": 1}}))
{'qrels_max_grade': 3}
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Need", "NEEDS", "compute_needs", "needs_of", "top_grade"]


@dataclass(frozen=True)
class Need:
    """A qrels-wide statistic: computed from a local Qrels, or from a Spark qrels DataFrame."""

    name: str
    description: str
    local: Callable[[Any], Any]
    spark: Callable[[Any], Any]


def top_value(value) -> int | float:
    """The highest grade, at least 0: an int when it is a whole number (real grades may have one). An integer
    grade stays exact (2^63 - 1 through a double became 2^63, which no int64 array compares with)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return max(int(value), 0)
    value = max(float(value or 0), 0.0)
    return int(value) if value.is_integer() else value


def _max_grade_local(qrels) -> int | float:
    return top_value(np.max(qrels.numbers("rel"), initial=0))


def _max_grade_spark(frame) -> int | float:
    from pyspark.sql import functions as F
    return top_value(frame.agg(F.max("rel")).collect()[0][0])


NEEDS: dict[str, Need] = {need.name: need for need in (
    Need("qrels_max_grade", "the highest grade in the whole qrels (ERR's default g_max; 0 without positive grades)",
         _max_grade_local, _max_grade_spark),
)}


def needs_of(measures: Iterable) -> list[str]:
    """The qrels-wide needs of some measures, each once, in first-declared order."""
    return list(dict.fromkeys(name for m in measures for name in m.family.needs))


def compute_needs(names: Iterable[str], qrels, *, spark: bool = False) -> dict[str, Any]:
    """Each named need computed from ``qrels`` (a Qrels, or with ``spark=True`` a canonical Spark DataFrame)."""
    return {name: (NEEDS[name].spark if spark else NEEDS[name].local)(qrels) for name in names}


def top_grade(qrels) -> int | float:
    """The highest grade of ``qrels`` (any qrels input), 0 without positive grades: the one definition of
    the qrels' top grade (ERR's default g_max, the check's advice, the bounds for unjudged docs).

    >>> top_grade({"q1": {"a": 3}, "q2": {"b": 1}})
    3
    """
    from rankmeter.io import as_qrels
    return compute_needs(["qrels_max_grade"], as_qrels(qrels))["qrels_max_grade"]
