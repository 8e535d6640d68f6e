"""Exact answers behind the hashes: a hash hit confirmed, and a match that a colliding hit hid found, on the bytes.

The engine keys ids by their 64-bit hash (:func:`rankmeter.engine.keys.id_hash`) for speed. Equal ids always hash
equal, so a hash miss is exact; a hit may be another id of the same hash. Whatever keys, joins, groups or
deduplicates by hash comes here for the rows whose hash is shared with another id's: they are numbered exactly
(their bytes, :meth:`Ids.encode <rankmeter.engine.ids.Ids.encode>`, and their query code), a sort of those rows
only: none in practice, every row when every id collides (``-DRANKMETER_CONSTANT_HASH``, the tests), still
n log n.
"""
from __future__ import annotations

import numpy as np

from rankmeter.engine.ids import Ids

__all__ = ["exact_numbers", "first_repeat", "relookup"]


def exact_numbers(ids: Ids, code: np.ndarray | None = None) -> np.ndarray:
    """A number per row (int64, from 0), equal exactly where the rows' ids (and ``code``, when given) are equal."""
    _, number = ids.encode()  # exact: numbered by hash, every row confirmed on its bytes
    number = number.astype(np.int64)
    if code is None or not len(number):
        return number
    # codes and numbers are below 2**31: their pair fits one int64
    joint = code.astype(np.int64) * (int(number.max()) + 1) + number
    return np.unique(joint, return_inverse=True)[1].reshape(-1).astype(np.int64)


def first_repeat(rows: np.ndarray, code: np.ndarray, docs: Ids) -> tuple[int, int] | None:
    """Of ``rows`` (every row whose hash key another row shares), the first that repeats an earlier row's
    (query code, doc) exactly, and that earlier row (the first with them); None when all differ."""
    rows = np.unique(rows)
    if len(rows) < 2:
        return None
    number = exact_numbers(docs.take(rows), code[rows])
    _, first, inverse = np.unique(number, return_index=True, return_inverse=True)
    lead = first[inverse.reshape(-1)]
    again = np.flatnonzero(lead != np.arange(len(rows)))
    if not len(again):
        return None
    at = int(again[0])
    return int(rows[lead[at]]), int(rows[at])


def relookup(index, keys: np.ndarray, ids: Ids, index_ids: Ids, code: np.ndarray | None = None,
             index_code: np.ndarray | None = None) -> np.ndarray:
    """For probes whose first hash hit in ``index`` (a :class:`~rankmeter.engine.keys.HashIndex`) held other bytes:
    the row of ``index_ids`` holding exactly their id (and their ``code`` in ``index_code``) among every row of
    their hash, or -1.

    ``keys``: the probes' hash keys; ``ids``: their ids, one per key. The index's rows hold distinct (code, id)
    pairs (the judgments refuse a doc judged twice for a query, and a query's id is kept once).
    """
    out = np.full(len(keys), -1, np.int64)
    if not len(keys) or not index.size:
        return out
    rows = index.order[np.flatnonzero(np.isin(index.keys, keys))].astype(np.int64)
    if not len(rows):
        return out
    joint_code = None if code is None else np.concatenate([index_code[rows], code])
    number = exact_numbers(Ids.concat([index_ids.take(rows), ids]), joint_code)
    have, want = number[:len(rows)], number[len(rows):]
    order = np.argsort(have, kind="stable")
    at = np.minimum(np.searchsorted(have[order], want), len(rows) - 1)
    found = have[order[at]] == want
    out[found] = rows[order[at[found]]]
    return out
