"""JSON Lines: one object per line, ``{"query_id": "q1", "doc_id": "d3", "relevance": 1}``.

Keys are found as DataFrame columns are (:mod:`rankmeter.io.columns`).
Arrow parses well-typed files; anything it refuses (an id that is a number
on one line and a string on another, a line that is not JSON) is read line
by line, and a line that is not a JSON object is named by file and line.
A whole JSON document in pytrec_eval's shape, ``{query: {doc: grade}}``,
is read as that dict, and an array of records (``[{"qid": ...}, ...]``)
as a table whose errors name the record, counting from 0.

Arrow's JSON reader is only given what it handles safely
(:func:`rankmeter.io.structured.json_lines_bounded`: every non-blank line an
object, nesting at most :data:`MAX_DEPTH` deep, no huge line, few keys a line;
Arrow 26 crashes the process on a line that is ``null`` and on deep nesting).
Anything else, and anything Arrow refuses, is read line by line by the one
JSON Lines reader (:func:`rankmeter.io.structured.json_lines`), whose errors
name the file, the line and the field (a key given twice, a NaN, bytes that
are not UTF-8, a line nested too deep or too long). A whole JSON document is
read by :func:`rankmeter.io.structured.parse_json`.
"""
from __future__ import annotations

import json

import numpy as np
import pyarrow as pa

from rankmeter.errors import InputError
from rankmeter.io.canonical import Qrels, Run, encode_id
from rankmeter.io.columns import resolve_columns
from rankmeter.io.delimited import nonblank_lines
from rankmeter.io.frames import qrels_from_table, run_from_table
from rankmeter.io.structured import json_document_or_lines, json_lines, json_lines_bounded

_RECORD = 'one JSON object such as {"query_id": ..., "doc_id": ..., "score": ...}'

__all__ = ["read_jsonl", "json_lines_table", "MAX_DEPTH"]

#: Deepest nesting of lists and objects read (records are flat: 2 is usual)
MAX_DEPTH = 32


def _arrow_safe(data: bytes) -> bool:
    """Whether Arrow's JSON reader can be given ``data`` without risk of a crash or a column per key."""
    return json_lines_bounded(data, max_depth=MAX_DEPTH)


def _python_table(data: bytes, name: str, wanted=None) -> tuple[pa.Table, np.ndarray]:
    """Line by line, by the one JSON Lines reader (:func:`rankmeter.io.structured.json_lines`): every object's
    keys, ids as text, numbers as they are. ``wanted(keys)``: the keys to keep (columns are made only for them:
    a line of 600,000 keys is no 600,000 columns)."""
    rows, lines = [], []
    for number, obj in json_lines(data, source=name, max_depth=MAX_DEPTH, what=_RECORD):
        rows.append(obj)
        lines.append(number)
    return _records(rows, wanted), np.asarray(lines, dtype=np.int64)


def _records(rows: list[dict], wanted=None) -> pa.Table:
    """Objects -> a table: ids (text or integers) as bytes, numbers as numbers, anything else as JSON text.
    ``wanted(keys)``: the keys kept."""
    keys = list(dict.fromkeys(k for obj in rows for k in obj))
    if wanted is not None:
        keys = wanted(keys)
    columns = {}
    for key in keys:
        values = [obj.get(key) for obj in rows]
        kinds = {type(v) for v in values if v is not None}
        if kinds <= {int, float} and kinds:
            columns[key] = pa.array(values, pa.float64() if float in kinds else pa.int64())
        elif kinds <= {str, int}:
            columns[key] = pa.array([None if v is None else encode_id(v) for v in values], pa.binary())
        else:
            columns[key] = pa.array([None if v is None else json.dumps(v) for v in values], pa.string())
    return pa.table(columns)


def _document_or_lines(data: bytes, name: str, document: bool):
    """(the whole JSON document or None, whether Arrow may read the lines): one visit to the JSON reader."""
    try:
        return json_document_or_lines(data, source=name, max_depth=MAX_DEPTH, document=document)
    except InputError as exc:
        if b"\n" in data.strip():
            raise
        # a document on one line is a line of JSON Lines too: its line is named
        raise InputError(exc.message, source=name, line=data[:len(data) - len(data.lstrip())].count(b"\n") + 1,
                         hint=exc.hint) from None


def _document(obj, name: str, kind: str, grades: str):
    """The JSON value ``obj`` of a whole file as a table or the Qrels or Run of pytrec_eval's dict shape, or
    None (not a document of either shape)."""
    if isinstance(obj, list) and obj and all(isinstance(v, dict) for v in obj):
        return _records(obj)  # an array of records (pandas' to_json(orient="records")): rows counted from 0
    if not isinstance(obj, dict) or not obj or not all(isinstance(v, (dict, list)) for v in obj.values()):
        return None
    from rankmeter.io.dicts import qrels_from_dict, run_from_dict
    try:
        if kind == "qrels":
            return qrels_from_dict(obj, grades=grades)
        return run_from_dict(obj)
    except InputError as exc:
        raise InputError(str(exc).replace("<dict>: ", "", 1), source=name) from None


def json_lines_table(data: bytes, name: str) -> pa.Table:
    """JSON Lines as an Arrow table, by Arrow where that is safe, else line by line (errors name the line)."""
    import pyarrow.json as pajson

    if _arrow_safe(data):
        try:
            return pajson.read_json(pa.BufferReader(data))
        except (pa.ArrowInvalid, ValueError):
            pass
    return _python_table(data, name)[0]


def _roles_of(keys: list, kind: str, columns, name: str) -> list:
    if not keys:
        return keys
    roles = resolve_columns([str(k) for k in keys], kind, columns, name)
    return [k for k in keys if k in set(roles.values())]


def read_jsonl(data: bytes, name: str, kind: str, *, columns: dict | None = None,
               grades: str = "integer", style: str = "jsonl", header: bool = False, first=None,
               fields=None) -> Qrels | Run:
    """Qrels or a run from JSON Lines text (or a JSON document ``{query: {doc: value}}``)."""
    import pyarrow.json as pajson

    obj, bounded = _document_or_lines(data, name, data.lstrip()[:1] in (b"{", b"["))
    document = _document(obj, name, kind, grades) if obj is not None else None
    if isinstance(document, pa.Table):
        roles = resolve_columns(document.column_names, kind, columns, name)
        locate_row = lambda row: {"source": name, "row": row}  # noqa: E731
        if kind == "qrels":
            return qrels_from_table(document, roles, name, locate_row, grades=grades)
        return run_from_table(document, roles, name, locate_row)
    if document is not None:
        return document
    try:
        if not bounded:
            raise ValueError("read line by line")
        table = pajson.read_json(pa.BufferReader(data))
        lines = nonblank_lines(data, 1)
        if lines is None:
            lines = np.arange(1, table.num_rows + 1, dtype=np.int64)
        if len(lines) != table.num_rows:
            raise pa.ArrowInvalid("rows and lines differ")
    except (pa.ArrowInvalid, ValueError):
        table, lines = _python_table(data, name, lambda keys: _roles_of(keys, kind, columns, name))
    if table.num_rows == 0:
        raise InputError("no objects: only blank lines", source=name)
    roles = resolve_columns(table.column_names, kind, columns, name)
    table = table.select(list(dict.fromkeys(v for v in roles.values() if v is not None)))
    locate = lambda row: {"source": name, "line": int(lines[row])}  # noqa: E731
    if kind == "qrels":
        return qrels_from_table(table, roles, name, locate, grades=grades,
                                origin="file", lines=lines)
    return run_from_table(table, roles, name, locate, origin="file", lines=lines)
