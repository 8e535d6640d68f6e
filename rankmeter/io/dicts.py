"""Python dicts in pytrec_eval's shapes, and ranked lists.

* qrels: ``{query: {doc: grade}}`` with integer grades; diversity qrels
  ``{query: {subtopic: {doc: grade}}}``;
* run: ``{query: {doc: score}}`` with finite numeric scores;
* ranked run: ``{query: [doc, doc, ...]}``, the list order being the ranking.

Ids may be ``str`` (compared as their UTF-8 bytes), ``bytes`` (compared as
they are, like ids read from a file) or integers. The dicts are only read,
never modified. Errors name the offending key: ``qrels['301']['D1']``.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from rankmeter.errors import InputError, shown_repr
from rankmeter.io.canonical import Qrels, Run, encode_id, grade_policy, qrels_table

__all__ = ["qrels_from_dict", "run_from_dict"]

_SOURCE = "<dict>"
_INT64 = 2 ** 63


def _id(value: object, where: str) -> bytes:
    """A dict key or list item as id bytes, refusing what cannot be an id."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (str, bytes, int, np.integer)):
        raise InputError(f"{where}: the id {shown_repr(value)} is a {type(value).__name__}; ids are strings, "
                         "bytes or integers", source=_SOURCE)
    try:
        out = encode_id(value.item() if isinstance(value, np.integer) else value)
    except InputError as exc:
        raise InputError(f"{where}: {exc.message}", source=_SOURCE) from None
    if not out or b"\x00" in out:
        raise InputError(f"{where}: the id {shown_repr(value)} is empty or holds a NUL character; "
                         "give every query and document a non-empty id", source=_SOURCE)
    return out


def _plain_id(value: object) -> bytes | None:
    """The bytes of a well-formed str or bytes id, fast; None for anything else (``_id`` then says why:
    the message, with the id shown, is built only for an id that is wrong)."""
    kind = type(value)
    if kind is str:
        if value and "\x00" not in value:
            try:
                return value.encode("utf-8", "surrogateescape")
            except UnicodeEncodeError:
                return None  # a lone surrogate: ``_id`` says so
    elif kind is bytes and value and b"\x00" not in value:
        return value
    return None


def _query_id(q: object, seen: dict[bytes, object], name: str) -> bytes:
    qb = _id(q, f"{name}[{shown_repr(q)}]")
    if qb in seen:
        raise InputError(f"{name}[{shown_repr(seen[qb])}] and {name}[{shown_repr(q)}] are the same query id; "
                         "merge them into one entry", source=_SOURCE)
    seen[qb] = q
    return qb


def _grade(value: object, where: str, policy: str) -> int | float:
    number = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
    if policy == "real" and number and math.isfinite(value):
        return float(value)
    if isinstance(value, (int, np.integer)) and number:
        grade = int(value)
    elif isinstance(value, (float, np.floating)) and math.isfinite(value) and \
            (float(value).is_integer() or policy == "truncate"):
        grade = int(value)  # toward zero, as trec_eval's atol reads "1.7"
    else:
        hint = "; pass grades='real' to keep fractional grades, or truncate_grades=True to truncate it as " \
            "trec_eval does" if policy == "integer" and isinstance(value, (float, np.floating)) \
            and math.isfinite(value) else ""
        what = "a finite grade" if policy == "real" else "an integer grade"
        raise InputError(f"{where} = {shown_repr(value)} is not {what}{hint}", source=_SOURCE)
    if not -_INT64 <= grade < _INT64:
        raise InputError(f"{where} = {shown_repr(value)} is out of range; grades are small integers", source=_SOURCE)
    return grade


def _finite(score: object) -> bool:
    if isinstance(score, (bool, np.bool_)) or not isinstance(score, (int, float, np.integer, np.floating)):
        return False
    try:
        return math.isfinite(float(score))
    except OverflowError:
        return False


def qrels_from_dict(data: Mapping, *, grades: str = "integer", truncate_grades: bool = False) -> Qrels:
    """``{query: {doc: grade}}`` -> :class:`Qrels` (the dict is not modified).

    Parameters
    ----------
    data : Mapping
        pytrec_eval's qrels shape.
    grades : {"integer", "truncate", "real"}, default "integer"
        Refuse a non-integer grade such as 1.7, truncate it toward zero
        (trec_eval's ``atol``) or keep it (see :func:`rankmeter.read_qrels`).
    truncate_grades : bool, default False
        The same as ``grades="truncate"``.
    """
    import pyarrow as pa
    policy = grade_policy(grades, truncate_grades)
    queries, subtopics, docs, rels = [], [], [], []
    seen: dict[bytes, object] = {}
    for q, judged in data.items():
        qb = _query_id(q, seen, "qrels")
        if not isinstance(judged, Mapping):
            raise InputError(f"qrels[{shown_repr(q)}] is a {type(judged).__name__}; expected a dict doc -> grade",
                             source=_SOURCE)
        # diversity qrels: {query: {subtopic: {doc: grade}}}
        groups = [(s, f"qrels[{shown_repr(q)}][{s!r}]", g) for s, g in judged.items()] \
            if any(isinstance(g, Mapping) for g in judged.values()) else [(None, f"qrels[{shown_repr(q)}]", judged)]
        for subtopic, name, group in groups:
            if not isinstance(group, Mapping):
                raise InputError(f"{name} is a {type(group).__name__}; expected a dict doc -> grade "
                                 "(every subtopic of a query, or none)", source=_SOURCE)
            sb = b"" if subtopic is None else _id(subtopic, name)
            doc_keys: dict[bytes, object] = {}
            for d, grade in group.items():
                db = _plain_id(d) or _id(d, f"{name}[{shown_repr(d)}]")
                if db in doc_keys:
                    raise InputError(f"{name} judges doc {shown_repr(d)} twice (keys {shown_repr(doc_keys[db])} and {shown_repr(d)} "
                                     "are the same id); keep one", source=_SOURCE)
                doc_keys[db] = d
                rels.append(grade if type(grade) is int and policy != "real" and -_INT64 <= grade < _INT64
                            else _grade(grade, f"{name}[{shown_repr(d)}]", policy))
                queries.append(qb)
                subtopics.append(sb)
                docs.append(db)
    if not queries:
        raise InputError("the qrels dict holds no judgments; expected {query: {doc: grade}}", source=_SOURCE)
    table = qrels_table(pa.array(queries, pa.binary()), pa.array(docs, pa.binary()), pa.array(rels, pa.float64() if policy == "real" else pa.int64()),
                        pa.array(subtopics, pa.binary()))
    return Qrels(table, _SOURCE, origin="dict")


def _is_ranked_list(results: object) -> bool:
    return isinstance(results, np.ndarray) or \
        (isinstance(results, Sequence) and not isinstance(results, (str, bytes, bytearray)))


def run_from_dict(data: Mapping, *, tag: str = "") -> Run:
    """``{query: {doc: score}}`` or ``{query: [doc, ...]}`` -> :class:`Run` (the dict is not modified)."""
    import pyarrow as pa
    queries, docs, scores = [], [], []
    ranked = None
    seen: dict[bytes, object] = {}
    for q, results in data.items():
        qb = _query_id(q, seen, "run")
        doc_keys: dict[bytes, object] = {}
        if isinstance(results, Mapping):
            kind = False
            for d, score in results.items():
                db = _plain_id(d) or _id(d, f"run[{shown_repr(q)}][{shown_repr(d)}]")
                if not (type(score) is float and math.isfinite(score)) and not _finite(score):
                    raise InputError(f"run[{shown_repr(q)}][{shown_repr(d)}] = {shown_repr(score)} is not a finite "
                                     "number; scores are ints or floats, higher meaning better", source=_SOURCE)
                if db in doc_keys:
                    raise InputError(f"run[{shown_repr(q)}] lists doc {shown_repr(d)} twice (keys {shown_repr(doc_keys[db])} and "
                                     f"{shown_repr(d)} are the same id); keep one", source=_SOURCE)
                doc_keys[db] = d
                queries.append(qb)
                docs.append(db)
                scores.append(float(score))
        elif _is_ranked_list(results):
            kind = True
            positions: dict[bytes, int] = {}
            for i, d in enumerate(results):
                db = _plain_id(d) or _id(d, f"run[{shown_repr(q)}][{i}]")
                if db in positions:
                    raise InputError(f"run[{shown_repr(q)}] lists doc {shown_repr(d)} twice (positions {positions[db]} and {i}); "
                                     "a ranking holds each doc once", source=_SOURCE)
                positions[db] = i
                queries.append(qb)
                docs.append(db)
                scores.append(0.0)
        else:
            raise InputError(f"run[{shown_repr(q)}] is a {type(results).__name__}; expected a dict doc -> score "
                             "or a ranked list of docs", source=_SOURCE)
        if ranked is not None and ranked != kind:
            raise InputError(f"run[{shown_repr(q)}]: the run dict mixes scored dicts and ranked lists; use one kind",
                             source=_SOURCE)
        ranked = kind
    if not queries:
        raise InputError("the run dict holds no results; expected {query: {doc: score}} or "
                         "{query: [doc, ...]}", source=_SOURCE)
    table = pa.table({"query": pa.array(queries, pa.binary()), "doc": pa.array(docs, pa.binary()),
                      "score": pa.array(scores, pa.float64())})
    return Run(table, _SOURCE, origin="dict", tag=encode_id(tag), ranked=bool(ranked))
