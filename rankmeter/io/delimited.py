"""Delimited text with a header line or by position: CSV, TSV and whitespace-separated files.

* CSV (``,``) and TSV (tab) follow RFC 4180 quoting; the header names the
  columns, found as for DataFrames (:mod:`rankmeter.io.columns`): BEIR's
  ``query-id corpus-id score``, ir_measures' ``query_id doc_id relevance``,
  PyTerrier's ``qid docno score``... Without a header, the fields are taken
  by position as in TREC files: qrels ``query iter doc rel``, runs ``query
  Q0 doc rank score tag``, ``query doc score`` or ``query doc``.
* A whitespace-separated file with a header line (``qid docno score``) is
  split on runs of spaces and tabs, as TREC files are.

Arrow parses the whole file; every error names the file and line.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from rankmeter.errors import InputError, shown_repr
from rankmeter.io.canonical import Qrels, Run
from rankmeter.io.columns import resolve_columns
from rankmeter.io.frames import qrels_from_table, run_from_table
from rankmeter.io.lines import first_data_line, split_header

if TYPE_CHECKING:  # pyarrow is imported where it is used: TREC text read by the compiled reader never loads it
    import pyarrow as pa

__all__ = ["read_delimited", "split_header", "POSITIONAL"]

#: Column names of headerless files, by kind and number of fields (as in TREC files).
POSITIONAL = {
    ("qrels", 4): ("query", "iter", "doc", "rel"),
    ("qrels", 3): ("query", "doc", "rel"),
    ("run", 2): ("query", "doc"),
    ("run", 3): ("query", "doc", "score"),
    ("run", 6): ("query", "Q0", "doc", "rank", "score", "tag"),
}
_TAGS = ("tag", "run", "runid", "run_id", "system")
_NUMBER = re.compile(rb"\s*[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\s*")
_SEPARATOR = {"csv": ",", "tsv": "\t", "whitespace": None}
_SPACE = b" \t\n\r\x0b\x0c"
_TO_SPACE = bytes.maketrans(b"\t\x0b\x0c", b"   ")


def nonblank_lines(body: bytes, first_line: int) -> np.ndarray | None:
    """File line numbers of the non-empty lines of ``body`` (None: every line is one row)."""
    end = len(body)
    while end and body[end - 1] in b"\r\n":
        end -= 1
    if body.find(b"\r", 0, end) < 0 and body.find(b"\n\n", 0, end) < 0 and not body.startswith(b"\n"):
        return None
    if b"\r" in body:
        body = body.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    body = body.rstrip(b"\n")
    arr = np.frombuffer(body, dtype=np.uint8)
    breaks = np.flatnonzero(arr == ord("\n"))
    starts = np.concatenate(([0], breaks + 1))
    ends = np.concatenate((breaks, [len(body)]))
    return (np.flatnonzero(ends > starts) + first_line).astype(np.int64)


def _bad_row_line(body: bytes, style: str, nfields: int, first_line: int) -> tuple[int, int]:
    """(file line, field count) of the first line whose field count is not ``nfields``."""
    for offset, raw in enumerate(body.splitlines()):
        if not raw.strip(b"\r"):
            continue
        fields = split_header(raw, style)
        if len(fields) != nfields:
            return first_line + offset, len(fields)
    return first_line, nfields


def _normalised(data: bytes):
    """(Arrow buffer, line number of each line kept) of whitespace-separated ``data`` rewritten with
    whole-buffer operations for Arrow's reader: LF line ends, one space between fields, blank and comment
    lines dropped and the numbers of the others kept; None when no line is left."""
    import pyarrow as pa
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")  # splitlines' line ends
    if any(odd in data for odd in (b"\t", b"\x0b", b"\x0c")):
        data = data.translate(_TO_SPACE)
    while True:  # runs of spaces -> one space (each pass halves them)
        collapsed = data.replace(b"  ", b" ")
        if len(collapsed) == len(data):
            break
        data = collapsed
    n = len(data)
    if not n:
        return None
    arr = np.frombuffer(data, dtype=np.uint8)
    newlines = np.flatnonzero(arr == ord("\n"))
    starts = np.concatenate(([0], newlines + 1))
    ends = np.concatenate((newlines, [n]))
    lead = (starts < ends) & (arr[np.minimum(starts, n - 1)] == ord(" "))
    trail = (ends > starts + lead) & (arr[np.maximum(ends - 1, 0)] == ord(" "))
    begin = starts + lead
    drop = begin >= ends - trail
    drop |= arr[np.minimum(begin, n - 1)] == ord("#")
    kept = np.flatnonzero(~drop)
    if not len(kept):
        return None
    if drop.any() or lead.any() or trail.any():
        keep = np.repeat(~drop, ends - starts + 1)[:n]  # a dropped line goes with its line end
        keep[starts[lead]] = False
        keep[ends[trail] - 1] = False
        data = arr[keep].tobytes()
    end = len(data)
    while end and data[end - 1] in _SPACE:
        end -= 1
    return pa.py_buffer(data).slice(0, end), kept + 1


def _read_csv(buf: pa.Buffer, style: str, names: list[str], types: dict[str, pa.DataType]) -> pa.Table:
    import pyarrow as pa
    import pyarrow.csv as pacsv

    delimiter, quoting = (" ", False) if style == "whitespace" else (_SEPARATOR[style], '"')
    fields = [f"f{i}" for i in range(len(names))]
    field_of = dict(zip(names, fields))
    return pacsv.read_csv(
        pa.BufferReader(buf),
        read_options=pacsv.ReadOptions(column_names=fields, block_size=1 << 24),
        parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char=quoting,
                                          newlines_in_values=False, ignore_empty_lines=True),
        convert_options=pacsv.ConvertOptions(column_types={field_of[c]: t for c, t in types.items()},
                                             include_columns=[field_of[c] for c in types],
                                             null_values=[], strings_can_be_null=False),
    ).rename_columns(list(types))


def _parse(body: bytes, style: str, names: list[str], name: str, first_line: int,
           ids: list[str], numeric: list[str]):
    """(Arrow table of the ``ids`` (binary) and ``numeric`` (float64) columns, line numbers).

    Numbers are parsed by Arrow; when one is not a number, the columns are
    read again as bytes so that the first bad value can be named by its line.
    """
    import pyarrow as pa
    if style == "whitespace":
        layout = _normalised(body)
        if layout is None:
            return None, None
        buf, kept = layout
        lines = kept.astype(np.int64) + first_line - 1
    else:
        buf = pa.py_buffer(body)
        lines = nonblank_lines(body, first_line)
    wanted = list(dict.fromkeys(ids + numeric))
    try:
        table = _read_csv(buf, style, names, {c: pa.float64() if c in numeric else pa.binary() for c in wanted})
    except (pa.ArrowInvalid, ValueError):
        try:
            table = _read_csv(buf, style, names, {c: pa.binary() for c in wanted})
        except (pa.ArrowInvalid, ValueError):
            line, count = _bad_row_line(body, style, len(names), first_line)
            raise InputError(f"{count} field{'s' * (count != 1)} where the header line has {len(names)} "
                             f"({', '.join(names)}); fix or remove the line", source=name, line=line) from None
        if lines is None:
            lines = np.arange(first_line, first_line + table.num_rows, dtype=np.int64)
        for c in numeric:
            table = table.set_column(table.column_names.index(c), c, _to_number(table.column(c), c, name, lines))
    if lines is None:
        lines = np.arange(first_line, first_line + table.num_rows, dtype=np.int64)
    return table, lines


def _to_number(col: pa.ChunkedArray, column: str, name: str, lines: np.ndarray) -> pa.Array:
    """A binary column of numbers as float64 (spaces around them allowed), or the line of the first non-number."""
    import pyarrow as pa
    import pyarrow.compute as pc
    try:
        return pc.utf8_trim_whitespace(col.cast(pa.string())).cast(pa.float64())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        pass
    values = col.to_pylist()
    row = next(i for i, v in enumerate(values) if not _NUMBER.fullmatch(v))
    shown = values[row].decode("utf-8", "replace")
    raise InputError(f"column {column!r}: {shown_repr(shown)} is not a number; every row needs a number there",
                     source=name, line=int(lines[row]))


def read_delimited(data: bytes, name: str, kind: str, style: str, *, header: bool,
                   columns: dict | None = None, grades: str = "integer", first: tuple | None = None,
                   fields: list | None = None) -> Qrels | Run:
    """Qrels or a run from delimited text (``style``: ``"csv"``, ``"tsv"`` or ``"whitespace"``); ``first`` and
    ``fields``: its first data line and that line's fields, when the format's recognition found them."""
    start, skipped, first = first or first_data_line(data)
    fields = split_header(first, style) if fields is None else fields
    if header:
        names = list(fields)
        end = data.find(b"\n", start)
        body_start = len(data) if end < 0 else end + 1
        body_first_line = skipped + 2
        if len(set(names)) != len(names) or "" in names:
            raise InputError("the header line repeats a column name or has an empty one "
                             f"({', '.join(names)}); give every column its own name",
                             source=name, line=skipped + 1)
    else:
        count = len(fields)
        names = list(POSITIONAL.get((kind, count), ()))
        if kind == "run" and count > 6:
            names = list(POSITIONAL[("run", 6)]) + [f"extra{i}" for i in range(count - 6)]
        if not names and columns:  # positions given: any number of fields
            names = [f"field{i}" for i in range(count)]
        if not names:
            layouts = " or ".join(" ".join(v) for (k, _), v in POSITIONAL.items() if k == kind)
            raise InputError(f"{count} field{'s' * (count != 1)} where a {kind} line without a header has "
                             f"{layouts}: add a header line naming the columns, or fix the line",
                             source=name, line=skipped + 1)
        body_start, body_first_line = start, skipped + 1
        if columns:  # positions given as numbers name the positional columns
            if any(v >= len(names) or v < 0 for v in columns.values()):
                raise InputError(f"columns={columns!r}: a line has {len(names)} fields, positions 0 to "
                                 f"{len(names) - 1}", source=name, line=skipped + 1)
            # the given positions take their role's name (messages say 'rank', not the layout's 'score');
            # another field that had that name gets a neutral one
            taken = {v: k for k, v in columns.items()}
            names = [taken.get(i, f"field{i}" if n in columns else n) for i, n in enumerate(names)]
            columns = {k: k for k in columns}
    body = data[body_start:]
    what = "judgments" if kind == "qrels" else "results"
    if not body or body.isspace():
        raise InputError(f"no {what}: only a header line", source=name)
    roles = resolve_columns(names, kind, columns, name)
    value_role = "rel" if kind == "qrels" else "score"
    numeric = list(dict.fromkeys(roles[r] for r in (value_role, "rank") if roles.get(r) is not None))
    tags = [c for c in _TAGS if c in names and c not in roles.values()][:1]
    table, lines = _parse(body, style, names, name, body_first_line, [roles["query"], roles["doc"]] + tags
                          + ([roles["subtopic"]] if roles.get("subtopic") else []), numeric)
    if table is None or table.num_rows == 0:
        raise InputError(f"no {what}: only a header line", source=name)
    locate = lambda row: {"source": name, "line": int(lines[row])}  # noqa: E731
    if kind == "qrels":
        return qrels_from_table(table, roles, name, locate, grades=grades,
                                origin="file", lines=lines)
    tag = table.column(tags[0])[-1].as_py() if tags else b""  # the last line's, as trec_eval prints
    return run_from_table(table, roles, name, locate, tag=tag, origin="file", lines=lines)
