"""pytrec_eval's dicts straight into the engine's columns, with pytrec_eval's type rules.

pytrec_eval reads ``{query: {doc: grade}}`` and ``{query: {doc: score}}`` in C: ids must be ``str``, the
inner values ``dict``, grades ``int`` (``bool`` is one), scores ``float`` or ``int`` kept as a C
``float`` (single precision: two scores that round to the same float tie, and are ordered by docno).
The compiled walker (``_trecparse.from_dicts`` in rankmeter/io/_trecparse.c) fills the id columns and
numbers in one pass over the dicts, with no Python object made per entry (its Python oracle:
tests/oracles/pytrec_dicts.py). Anything it does not vouch for (another type, an id with a NUL, a grade
past int64) is checked here and refused with the error pytrec_eval gives (TypeError), or a ValueError;
a NaN score is refused after the walk.
"""
from __future__ import annotations

import numpy as np

from rankmeter.engine.ids import Ids
from rankmeter.io import _trecparse
from rankmeter.io.canonical import Columns, Qrels, Run, qrels_columns

__all__ = ["as_stored", "judged_queries", "qrels_of", "check_run", "run_of"]

_SOURCE = "<dict>"


def as_stored(data):
    """A run dict as pytrec_eval's C code reads it: each dict's storage (``PyDict_Next``, ``PyDict_Size``), never
    its Python methods. A dict subclass whose ``items``, ``__iter__``, ``__getitem__`` or ``__len__`` say
    something else than what it stores is read by what it stores, outer and inner dicts alike, as
    ``RelevanceEvaluator.evaluate`` reads it once its Python layer has asked the run's truth value
    (src/pytrec_eval.cpp ``RankingBuilder``); plain dicts are returned as given. Anything not a dict is left
    for the type checks to refuse."""
    if not isinstance(data, dict):
        return data
    outer = data if type(data) is dict else dict(dict.items(data))   # dict.items walks the storage
    if any(type(inner) is not dict and isinstance(inner, dict) for inner in outer.values()):
        outer = {q: dict(dict.items(inner)) if type(inner) is not dict and isinstance(inner, dict) else inner
                 for q, inner in outer.items()}
    return outer


def judged_queries(qrels: dict) -> frozenset:
    """The judged queries (non-empty dicts already), checking pytrec_eval's types."""
    for q, judged in qrels.items():
        if type(q) is not str and not isinstance(q, str):
            raise TypeError("Expected string as key.")
        if not isinstance(judged, dict):
            raise TypeError("Expected dictionary as value.")
    return frozenset(qrels)


def _utf8(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise TypeError(f"the id {text!r} is not valid UTF-8 text (a lone surrogate)") from None


def _check_id(doc) -> bytes:
    if not isinstance(doc, str):
        raise TypeError("Expected mapping of document id to query relevance or matching score.")
    out = _utf8(doc)
    if not out or b"\x00" in out:
        raise ValueError(f"the id {doc!r} is empty or holds a NUL character (trec_eval reads ids as C "
                         "strings); give every query and document a non-empty id")
    return out


def _refuse(data: dict, kind: str) -> None:
    """Raise pytrec_eval's error for the first entry of ``data`` the walker did not vouch for."""
    for q, inner in data.items():
        _check_id(q)
        if not isinstance(inner, dict):
            raise TypeError("Expected dictionary as value.")
        for d, value in inner.items():
            _check_id(d)
            if kind == "qrels":
                if not isinstance(value, int):
                    raise TypeError("Expected relevance to be integer.")
                np.int64(value)  # OverflowError past int64, as numpy says it
            else:
                if not isinstance(value, (int, float)):
                    raise TypeError("Unable to extract query/object scores.")
                float(value)  # OverflowError for an int past float's range


def _columns(data: dict, kind: str) -> tuple[Ids, Ids, np.ndarray]:
    got = _trecparse.from_dicts(data, kind == "qrels")
    if got is not None:
        q_off, q_val, d_off, d_val, numbers = got
        return (Ids(np.frombuffer(q_off, np.int32), np.frombuffer(q_val, np.uint8)),
                Ids(np.frombuffer(d_off, np.int32), np.frombuffer(d_val, np.uint8)),
                np.frombuffer(numbers, np.int64 if kind == "qrels" else np.float64))
    _refuse(data, kind)
    # every entry is fine: its ids hold more than the walker's int32 offsets reach (2 GiB), so each half
    # of the queries is walked on its own and the columns are joined
    items = list(data.items())
    if len(items) < 2:
        raise ValueError("the ids of one query hold more than 2 GiB; split the query")
    halves = [_columns(dict(items[:len(items) // 2]), kind), _columns(dict(items[len(items) // 2:]), kind)]
    return (Ids.concat([h[0] for h in halves]), Ids.concat([h[1] for h in halves]),
            np.concatenate([h[2] for h in halves]))


def qrels_of(qrels: dict) -> Qrels:
    """The Qrels of pytrec_eval's judgments dict (queries with judgments only)."""
    query, doc, rel = _columns(qrels, "qrels")
    if len(rel) and (rel.min() < -2 ** 62 or rel.max() > 2 ** 62):
        raise ValueError("a grade is out of range; grades are small integers")
    return Qrels(qrels_columns(query, doc, rel), _SOURCE, origin="dict")


def check_run(scores: dict, read: frozenset | set) -> None:
    """pytrec_eval's type checks on a run: every key and inner dict, and every doc id and score of the
    queries not in ``read`` (those are checked as they are read); TypeError as pytrec_eval raises it."""
    for q, inner in scores.items():
        if not isinstance(q, str) or not isinstance(inner, dict):
            raise TypeError("Unable to extract query/object scores.")
    rest = [q for q in scores if q not in read and scores[q]]
    for start in range(0, len(rest), 1000):  # a thousand queries' columns at a time, let go at once
        _columns({q: scores[q] for q in rest[start:start + 1000]}, "run")


def run_of(scores: dict) -> Run | None:
    """The Run of the rankings of ``scores``, scores as C floats; None when they are all empty."""
    query, doc, score = _columns(scores, "run")
    if not len(score):
        return None
    with np.errstate(over="ignore"):
        score = score.astype(np.float32)  # a double past the floats' range is +-inf, as C's conversion gives
    if np.isnan(score).any():
        raise ValueError("a score is NaN; pytrec_eval's ranking is undefined for it (its sort compares NaN as "
                         "neither above nor below any score): give every doc a number")
    return Run(Columns({"query": query, "doc": doc, "score": score.astype(np.float64)}), _SOURCE, origin="dict")
