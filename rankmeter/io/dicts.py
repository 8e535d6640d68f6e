"""Python dicts in pytrec_eval's shapes, and ranked lists.

* qrels: ``{query: {doc: grade}}`` with integer grades;
* run: ``{query: {doc: score}}`` with finite numeric scores;
* ranked run: ``{query: [doc, doc, ...]}``, the list order being the ranking.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pyarrow as pa

from ..errors import InputError
from ..tables import Qrels, Run, encode_id

__all__ = ["qrels_from_dict", "run_from_dict"]

_SOURCE = "<dict>"


def _is_int(value: object) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return False
    if isinstance(value, (int, np.integer)):
        return True
    return isinstance(value, (float, np.floating)) and float(value).is_integer()


def qrels_from_dict(data: Mapping) -> Qrels:
    """``{query: {doc: grade}}`` -> :class:`Qrels` (the dict is not modified)."""
    queries, docs, rels = [], [], []
    for q, judged in data.items():
        if not isinstance(judged, Mapping):
            raise InputError(f"qrels[{q!r}] is a {type(judged).__name__}; expected a dict doc -> grade",
                             source=_SOURCE)
        qb = encode_id(q)
        for d, grade in judged.items():
            if not _is_int(grade):
                raise InputError(f"qrels[{q!r}][{d!r}] = {grade!r} is not an integer grade", source=_SOURCE)
            queries.append(qb)
            docs.append(encode_id(d))
            rels.append(int(grade))
    if not queries:
        raise InputError("the qrels dict holds no judgments", source=_SOURCE)
    table = pa.table({"query": pa.array(queries, pa.binary()), "doc": pa.array(docs, pa.binary()),
                      "rel": pa.array(rels, pa.int64())})
    return Qrels(table, _SOURCE)


def run_from_dict(data: Mapping, *, tag: str = "") -> Run:
    """``{query: {doc: score}}`` or ``{query: [doc, ...]}`` -> :class:`Run`."""
    queries, docs, scores = [], [], []
    ranked = None
    for q, results in data.items():
        qb = encode_id(q)
        if isinstance(results, Mapping):
            kind = False
            for d, score in results.items():
                if isinstance(score, (bool, np.bool_)) or not isinstance(score, (int, float, np.integer, np.floating)) \
                        or not math.isfinite(score):
                    raise InputError(f"run[{q!r}][{d!r}] = {score!r} is not a finite number", source=_SOURCE)
                queries.append(qb)
                docs.append(encode_id(d))
                scores.append(float(score))
        elif isinstance(results, Sequence) and not isinstance(results, (str, bytes)):
            kind = True
            for d in results:
                queries.append(qb)
                docs.append(encode_id(d))
                scores.append(0.0)
        else:
            raise InputError(f"run[{q!r}] is a {type(results).__name__}; expected a dict doc -> score "
                             "or a ranked list of docs", source=_SOURCE)
        if ranked is not None and ranked != kind:
            raise InputError("the run dict mixes scored dicts and ranked lists; use one kind", source=_SOURCE)
        ranked = kind
    if not queries:
        raise InputError("the run dict holds no results", source=_SOURCE)
    table = pa.table({"query": pa.array(queries, pa.binary()), "doc": pa.array(docs, pa.binary()),
                      "score": pa.array(scores, pa.float64())})
    return Run(table, _SOURCE, tag=encode_id(tag), ranked=bool(ranked))
