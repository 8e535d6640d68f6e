"""The grades of the top ranks as text: ``RelString@k`` (trec_eval ``relstring``).

One character per rank of the top k (the whole ranking without a cutoff):
the grade when it is 0-9, ``>`` above 9, ``-`` for a doc absent from the
qrels, ``.`` for a doc judged with a negative grade (pooled, not judged).
A ranking shorter than k gives a shorter string. trec_eval prints it per
query only, between single quotes.

Examples
--------
Grades a = 2, b = 0, u = -1; the run ranks a, x, b, u and x is not in the qrels.

>>> import rankmeter
>>> qrels = {"q": {"a": 2, "b": 0, "u": -1}}
>>> r = rankmeter.evaluate(qrels, {"q": ["a", "x", "b", "u"]}, ["RelString@2", "RelString@5"])
>>> r.values("RelString@2")[0], r.values("RelString@5")[0]
('2-', '2-0.')
>>> print(r["RelString@5"])  # per query only: no summary
None
"""
from __future__ import annotations

import numpy as np

from rankmeter.engine.batch import NONPOOL, UNJUDGED
from rankmeter.measures.aggregation import NO_SUMMARY, TEXT
from rankmeter.measures.base import Family, register


def _chars(rel: np.ndarray) -> np.ndarray:
    """ASCII code of each rank's character."""
    out = np.full(len(rel), ord("<"), dtype=np.uint8)
    digit = (rel >= 0) & (rel <= 9)
    out[digit] = ord("0") + rel[digit]
    out[rel > 9] = ord(">")
    out[rel == NONPOOL] = ord("-")
    out[rel == UNJUDGED] = ord(".")
    return out


def relstring(batch, m) -> np.ndarray:
    """Object array of one str per query."""
    k = m.cutoff
    lengths = batch.num_ret if k is None else np.minimum(batch.num_ret, k)
    width = max(int(lengths.max(initial=0)), 1)
    # Rows of NUL-padded bytes viewed as fixed-width strings; numpy drops trailing NULs. Only the
    # top ranks are visited (k per query), never the whole ranking.
    inside = np.arange(width)[None, :] < lengths[:, None]
    rows = np.zeros((batch.nq, width), dtype=np.uint8)
    rows[inside] = _chars(batch.rel[(batch.offsets[:-1, None] + np.arange(width)[None, :])[inside]])
    text = rows.view(f"S{rows.shape[1]}").ravel()
    return text.astype(str).astype(object)


register(Family("RelString", "the grades of the top k docs as a string (trec_eval relstring)", relstring,
                value_type=TEXT, aggregation=NO_SUMMARY, real_grades=False))
