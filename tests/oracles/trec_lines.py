"""The line-by-line TREC reader: the oracle of rankmeter's compiled reader (tests/io/test_compiled.py).

It was rankmeter's own slow path until the compiled reader became the only one: every line split in
Python (``bytes.splitlines``, ``bytes.split``), every number read by ``float()``/``int()`` after a regular
expression, every problem raised at its line. Obvious by construction, so the compiled reader is checked
against it on every data file of the suite, the hostile inputs and generated text: the same tables, line
numbers, tags and errors.
"""
from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

import numpy as np

from rankmeter.errors import InputError, shown_id, shown_repr
from rankmeter.io.canonical import Qrels, Run, decode_id, qrels_table
from rankmeter.io.trec import field_count_error
from rankmeter.io.source import first_data_line as _first_data_line

if TYPE_CHECKING:  # pyarrow is imported where it is used: TREC text read by the compiled reader never loads it
    import pyarrow as pa

__all__ = ["qrels_from_bytes", "run_from_bytes", "run_fields_from_bytes"]

_INT = re.compile(rb"[+-]?[0-9]+")
_INT_PREFIX = re.compile(rb"[+-]?[0-9]*")
_FLOAT = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_INT64 = 2 ** 63
_LAYOUT = {"qrels": "query iter doc rel", "run": "query Q0 doc rank score tag", "ranked-list": "query doc",
           "scored-list": "query doc score"}


#: Bytes of text split into lines at a time by the line-by-line path (never the whole buffer at once: a
#: file of 200M one-letter lines, refused at line 1, would make 200M bytes objects first)
_LINES_PIECE = 1 << 20


def _lines(data: bytes):
    """The lines of ``data`` as ``bytes.splitlines`` gives them, a piece at a time (LF, CR and CRLF end a line;
    a piece ends just after a line end, and never between the CR and LF of a CRLF)."""
    at, n = 0, len(data)
    while at < n:
        cut = n
        if n - at > _LINES_PIECE:
            end = at + _LINES_PIECE
            cut = max(data.rfind(b"\n", at, end), data.rfind(b"\r", at, end)) + 1
            if cut == 0:  # a line longer than a piece: up to its end
                found = [i for i in (data.find(b"\n", end), data.find(b"\r", end)) if i >= 0]
                cut = min(found) + 1 if found else n
            if data[cut - 1:cut] == b"\r" and data[cut:cut + 1] == b"\n":
                cut += 1
        yield from data[at:cut].splitlines()
        at = cut


def _split_lines(data: bytes, name: str, nfields: int, exact: bool):
    """Yield (line_number, fields) of every non-blank, non-comment line, checking the count.

    Only the fields used are split off (at most ``nfields``, and the rest of the line in one piece): a line
    of millions of extra fields costs its bytes, not millions of objects."""
    for number, raw in enumerate(_lines(data), 1):
        fields = raw.split(None, nfields)
        if not fields or fields[0].startswith(b"#"):
            continue
        if len(fields) < nfields or (exact and len(fields) > nfields):
            # the wording is the package's (one message to keep); what the oracle checks is which line is refused
            raise field_count_error(raw, fields, nfields, name, number)
        yield number, fields


def _binary(values: list[bytes]) -> pa.Array:
    import pyarrow as pa
    return pa.array(values, type=pa.binary())


def _slow_grade(grade: bytes, policy: str, name: str, number: int) -> int | float:
    if policy == "real" and _FLOAT.fullmatch(grade):
        value = float(grade)
        if not math.isfinite(value):
            raise InputError(f"grade {shown_id(grade)} is out of range; grades are finite numbers",
                             source=name, line=number)
        return value
    if _INT.fullmatch(grade):
        value = int(grade)
    elif policy == "truncate" and _FLOAT.fullmatch(grade):
        digits = _INT_PREFIX.match(grade).group()  # C atol: the leading integer part
        value = int(digits) if digits.strip(b"+-") else 0
    elif _FLOAT.fullmatch(grade):
        raise InputError(f"grade {shown_repr(decode_id(grade))} is not an integer (trec_eval would silently "
                         "truncate it toward zero; fix the grade, pass grades='real' (--grades real) to "
                         "keep fractional grades, or truncate_grades=True to truncate as trec_eval does)",
                         source=name, line=number)
    else:
        what, expected = ("a number", "numbers such as 0, 0.5, 2") if policy == "real" else \
            ("an integer", "integers such as 0, 1, 2")
        raise InputError(f"grade {shown_repr(decode_id(grade))} is not {what} (field 4 of query iter doc rel); "
                         f"grades are {expected}", source=name, line=number)
    if not -_INT64 <= value < _INT64:
        raise InputError(f"grade {shown_id(grade)} is out of range; grades are small integers",
                         source=name, line=number)
    return value


def qrels_from_bytes(data: bytes, name: str, *, grades: str = "integer") -> Qrels:
    """TREC qrels text (already read and checked) as a Qrels, or the error naming its first bad line."""
    import pyarrow as pa
    queries, subtopics, docs, rels, lines = [], [], [], [], []
    for number, fields in _split_lines(data, name, 4, True):
        rels.append(_slow_grade(fields[3], grades, name, number))
        queries.append(fields[0])
        subtopics.append(fields[1])
        docs.append(fields[2])
        lines.append(number)
    if not queries:
        raise InputError("no judgments: only comments or blank lines", source=name)
    table = qrels_table(_binary(queries), _binary(docs), pa.array(rels, type=pa.float64() if grades == "real" else pa.int64()), _binary(subtopics))
    return Qrels(table, name, np.asarray(lines, dtype=np.int64))


def run_from_bytes(data: bytes, name: str, *, first: tuple | None = None) -> Run:
    """TREC run text (already read and checked) as a Run, or the error naming its first bad line (``first``,
    the production reader's first data line when the format's recognition found it, is not needed here)."""
    return run_fields_from_bytes(data, name, keep=False)[0]


def run_fields_from_bytes(data: bytes, name: str, *, keep: bool = True) -> tuple[Run, dict[str, pa.Array]]:
    """:func:`run_from_bytes` and, for six-field lines, the fields the run drops.

    The second value maps ``"rank"`` and ``"tag"`` to the rank and tag field
    of every row (binary, as written); it is empty for two- and three-field
    files (and when ``keep`` is False). Only :mod:`rankmeter.check` looks at them.
    """
    import pyarrow as pa
    first = _first_data_line(data)[2].split(None, 6)
    if len(first) == 3:
        return _scored_list(data, name), {}
    if len(first) == 2:
        queries, docs, lines = [], [], []
        for number, fields in _split_lines(data, name, 2, True):
            queries.append(fields[0])
            docs.append(fields[1])
            lines.append(number)
        return _ranked(_binary(queries), _binary(docs), name, np.asarray(lines, dtype=np.int64)), {}
    queries, docs, scores, lines, ranks, tags = [], [], [], [], [], []
    for number, fields in _split_lines(data, name, 6, False):
        value = _score(fields[4], name, number, f"field 5 of {_LAYOUT['run']}")
        queries.append(fields[0])
        docs.append(fields[2])
        scores.append(value)
        lines.append(number)
        if keep:
            ranks.append(fields[3])
            tags.append(fields[5])
        tag = fields[5]
    if not queries:
        raise InputError("no results: only comments or blank lines", source=name)
    table = pa.table({"query": _binary(queries), "doc": _binary(docs),
                      "score": pa.array(scores, type=pa.float64())})
    run = Run(table, name, np.asarray(lines, dtype=np.int64), tag=tag)
    return run, ({"rank": _binary(ranks), "tag": _binary(tags)} if keep else {})


def _score(text: bytes, name: str, number: int, field: str) -> float:
    value = float(text) if _FLOAT.fullmatch(text) else None
    if value is None or not np.isfinite(value):
        raise InputError(f"score {shown_repr(decode_id(text))} is not a finite number ({field}); fix the score",
                         source=name, line=number)
    return value


def _scored_list(data: bytes, name: str) -> Run:
    """``query doc score`` per line, the line-by-line way."""
    import pyarrow as pa
    queries, docs, scores, lines = [], [], [], []
    for number, fields in _split_lines(data, name, 3, True):
        scores.append(_score(fields[2], name, number, f"field 3 of {_LAYOUT['scored-list']}"))
        queries.append(fields[0])
        docs.append(fields[1])
        lines.append(number)
    table = pa.table({"query": _binary(queries), "doc": _binary(docs),
                      "score": pa.array(scores, type=pa.float64())})
    return Run(table, name, np.asarray(lines, dtype=np.int64), tag=b"")


def _ranked(queries: pa.Array, docs: pa.Array, name: str, lines: np.ndarray | None) -> Run:
    """``query doc`` per line; the line order within a query is the ranking."""
    import pyarrow as pa
    table = pa.table({"query": queries, "doc": docs,
                      "score": pa.array(np.zeros(len(queries)), type=pa.float64())})
    return Run(table, name, lines, tag=b"", ranked=True)
