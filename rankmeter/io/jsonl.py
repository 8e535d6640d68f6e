"""JSON Lines: one object per line, ``{"query_id": "q1", "doc_id": "d3", "relevance": 1}``.

Keys are found as DataFrame columns are (:mod:`rankmeter.io.columns`).
Arrow parses well-typed files; anything it refuses (an id that is a number
on one line and a string on another, a line that is not JSON) is read line
by line, and a line that is not a JSON object is named by file and line.
A whole JSON document in pytrec_eval's shape, ``{query: {doc: grade}}``,
is read as that dict, and an array of records (``[{"qid": ...}, ...]``)
as a table whose errors name the record, counting from 0.

Arrow's JSON reader is only given what it handles safely: every non-blank
line an object and nesting at most :data:`MAX_DEPTH` deep (Arrow 26 crashes
the process on a line that is ``null`` and on deep nesting). Anything else is
read line by line, where a line nested deeper than Python can parse is an
:class:`~rankmeter.errors.InputError` naming it.
"""
from __future__ import annotations

import json
import re

import numpy as np
import pyarrow as pa

from rankmeter.errors import InputError
from rankmeter.io.canonical import Qrels, Run, encode_id
from rankmeter.io.columns import resolve_columns
from rankmeter.io.delimited import nonblank_lines
from rankmeter.io.frames import qrels_from_table, run_from_table

__all__ = ["read_jsonl", "json_lines_table", "MAX_DEPTH"]

#: Deepest nesting of brackets handed to Arrow's JSON reader (records are flat: 2 is usual).
MAX_DEPTH = 64
#: Most keys (colons, counted in strings too) on one line handed to Arrow's JSON reader: it makes a column
#: per key (a 6 MB line of 600,000 keys peaked at 809 MB); records hold a few
MAX_KEYS = 256
# a non-blank line whose first non-blank byte does not open an object
_NOT_AN_OBJECT = re.compile(rb"(?m)^[ \t\r\f\v]*[^{ \t\r\n\f\v]")
_DEPTH_STEP = np.zeros(256, dtype=np.int8)
_DEPTH_STEP[[ord("["), ord("{")]] = 1
_DEPTH_STEP[[ord("]"), ord("}")]] = -1
_TOO_DEEP = ("JSON nested too deep for rankmeter (records are flat objects of ids and numbers); "
             "check that this is the right file")


def _depth_at_most(data: bytes, limit: int) -> bool:
    """Whether brackets (counted in strings too: an over-estimate) never nest deeper than ``limit``."""
    depth = 0
    block = 1 << 22
    for start in range(0, len(data), block):  # in blocks: a few MB of temporaries, however big the file
        steps = _DEPTH_STEP[np.frombuffer(data, dtype=np.uint8, count=min(block, len(data) - start),
                                          offset=start)]
        running = np.cumsum(steps, dtype=np.int64) + depth
        if len(running):
            if running.max() > limit:
                return False
            depth = int(running[-1])
    return True


def _keys_at_most(data: bytes, limit: int) -> bool:
    """Whether no line holds more than ``limit`` colons (an over-estimate of its keys)."""
    if data.count(b":") <= limit:
        return True
    arr = np.frombuffer(data, dtype=np.uint8)
    colons = np.cumsum(arr == ord(":"), dtype=np.int64)
    ends = np.flatnonzero((arr == ord("\n")) | (arr == ord("\r")))
    at_ends = np.concatenate(([0], colons[ends], [colons[-1]]))
    return bool(np.diff(at_ends).max() <= limit)


def _arrow_safe(data: bytes) -> bool:
    """Whether Arrow's JSON reader can be given ``data`` without risk of a crash or a column per key."""
    return _NOT_AN_OBJECT.search(data) is None and _depth_at_most(data, MAX_DEPTH) and \
        _keys_at_most(data, MAX_KEYS)


def _python_table(data: bytes, name: str, wanted=None) -> tuple[pa.Table, np.ndarray]:
    """Line by line: every object's keys, ids as text, numbers as they are. ``wanted(keys)``: the keys to keep
    (columns are made only for them: a line of 600,000 keys is no 600,000 columns)."""
    rows, lines = [], []
    for number, raw in enumerate(data.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except RecursionError:
            raise InputError(_TOO_DEEP, source=name, line=number) from None
        except ValueError as exc:
            detail = f"{exc.msg} at column {exc.colno}" if hasattr(exc, "colno") else "not UTF-8 text"
            raise InputError(f"not valid JSON ({detail}); every line must be one "
                             "JSON object", source=name, line=number) from None
        if not isinstance(obj, dict):
            raise InputError(f"a JSON {'null' if obj is None else type(obj).__name__}, not an object; every line must be one JSON "
                             "object such as {\"query_id\": ..., \"doc_id\": ..., \"score\": ...}",
                             source=name, line=number)
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


def _document(data: bytes, name: str, kind: str, grades: str):
    """A whole JSON document in pytrec_eval's dict shape, or None."""
    try:
        obj = json.loads(data)
    except RecursionError:
        raise InputError(_TOO_DEEP, source=name, line=data[:len(data) - len(data.lstrip())].count(b"\n") + 1) \
            from None
    except ValueError:
        return None
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

    first = data.lstrip()[:1]
    document = _document(data, name, kind, grades) if first in (b"{", b"[") else None
    if isinstance(document, pa.Table):
        roles = resolve_columns(document.column_names, kind, columns, name)
        locate_row = lambda row: {"source": name, "row": row}  # noqa: E731
        if kind == "qrels":
            return qrels_from_table(document, roles, name, locate_row, grades=grades)
        return run_from_table(document, roles, name, locate_row)
    if document is not None:
        return document
    try:
        if not _arrow_safe(data):
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
