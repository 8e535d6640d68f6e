"""Runs of equal consecutive ids: where each query's block starts, and the distinct ids of a column.

A run or a qrels file is nearly always written query by query, so only the first row of each block of
equal ids needs looking at; the ids are compared exactly (:class:`~rankmeter.engine.ids.Ids`).
"""
from __future__ import annotations

import numpy as np

from rankmeter.engine.ids import Ids

__all__ = ["query_starts", "local_queries"]


def _ids(column) -> Ids:
    return column if isinstance(column, Ids) else Ids.from_arrow(column)


def query_starts(column) -> np.ndarray:
    """First row of every block of equal consecutive ids (int64) of an id column (Ids or Arrow)."""
    return _ids(column).starts()


def local_queries(column) -> tuple[Ids, np.ndarray]:
    """Distinct query ids of one column (in order of first appearance) and each row's index into them (int32).

    Rows of one query usually stand together, so only the first row of each
    run of equal ids is looked at; an ungrouped column is hashed whole.
    """
    column = _ids(column)
    n = len(column)
    if n == 0:
        return column.take(np.zeros(0, np.int64)), np.zeros(0, np.int32)
    heads = query_starts(column)
    if len(heads) > 50_000 and len(heads) * 8 > n:  # not grouped by query: number them all
        return column.encode()
    distinct, head_label = column.take(heads).encode()
    return distinct, np.repeat(head_label, np.diff(np.append(heads, n)))
