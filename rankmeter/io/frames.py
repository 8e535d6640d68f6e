"""pandas and polars DataFrames (and Arrow tables) with columns query, doc, rel / score.

Column names can be overridden: ``columns={"query": "qid", "doc": "docno"}``.
Ids may be strings, bytes or integers; strings are compared as UTF-8 bytes.
A run frame without a score column is a ranked list: its row order within a
query is the ranking. Only the named columns are read; the frame itself is
never modified. Errors name the first offending row by its position,
counting from 0 (``df.iloc[row]``).
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from ..errors import InputError
from .canonical import Qrels, Run, encode_id

__all__ = ["qrels_from_frame", "run_from_frame", "is_frame"]


def is_frame(obj: object) -> bool:
    """True for a pandas/polars object or an Arrow table."""
    package = type(obj).__module__.split(".")[0]
    return isinstance(obj, (pa.Table, pa.RecordBatch)) or package in ("pandas", "polars")


def _source(frame) -> str:
    return f"<{type(frame).__module__.split('.')[0]} {type(frame).__name__}>"


def _select(frame, roles: dict[str, str], optional: set[str], source: str) -> pa.Table:
    """The named columns of ``frame`` as an Arrow table (missing optional ones left out)."""
    if hasattr(frame, "collect") and not hasattr(frame, "to_arrow"):
        frame = frame.collect()  # a polars LazyFrame
    if isinstance(frame, pa.RecordBatch):
        frame = pa.Table.from_batches([frame])
    names = getattr(frame, "column_names", None)
    if names is None:
        names = getattr(frame, "columns", None)
    if names is None or not hasattr(frame, "__getitem__") or type(frame).__name__ == "Series":
        raise InputError(f"a {type(frame).__name__} is not a table; pass a DataFrame with columns "
                         f"{', '.join(roles.values())}", source=source)
    label_of = {str(n): n for n in names}
    names = list(label_of)
    wanted = []
    for role, name in roles.items():
        if name in label_of:
            wanted.append(label_of[name])
        elif role not in optional:
            index = getattr(frame, "index", None)
            hint = "; call reset_index() first" if index is not None and name in [str(n) for n in getattr(index, "names", [])] else ""
            raise InputError(f"no column {name!r} (columns: {', '.join(names)}); name it with "
                             f"columns={{{role!r}: ...}}{hint}", source=source)
    try:
        if isinstance(frame, pa.Table):
            return frame.select(wanted)
        sub = frame.select(wanted) if type(frame).__module__.split(".")[0] == "polars" else frame[wanted]
        if hasattr(sub, "to_arrow"):
            return sub.to_arrow()
        return pa.Table.from_pandas(sub, preserve_index=False)
    except (pa.ArrowException, TypeError, ValueError, KeyError) as exc:
        detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(f"the columns cannot be read ({detail}); give each column one type: "
                         "strings or integers for ids, numbers for grades and scores", source=source) from None


def _roles(columns: dict | None, roles: tuple[str, ...], source: str) -> dict[str, str]:
    columns = dict(columns or {})
    unknown = [k for k in columns if k not in roles and k not in ("query", "doc", "rel", "score")]
    if unknown:
        raise InputError(f"columns={columns!r}: unknown role {unknown[0]!r}; the keys are roles "
                         f"({', '.join(roles)}) and the values your column names, e.g. "
                         "columns={'query': 'qid'}", source=source)
    return {role: str(columns.get(role, role)) for role in roles}


def _is_text(t: pa.DataType) -> bool:
    return pa.types.is_string(t) or pa.types.is_large_string(t) or \
        getattr(pa.types, "is_string_view", lambda _: False)(t)


def _first_null(col: pa.ChunkedArray) -> int:
    return int(np.flatnonzero(col.is_null().to_numpy(zero_copy_only=False))[0])


def _ids(col: pa.ChunkedArray, name: str, source: str) -> pa.Array:
    if col.null_count:
        raise InputError(f"column {name!r} has {col.null_count} missing value(s); every row needs an id",
                         source=source, row=_first_null(col))
    if pa.types.is_dictionary(col.type):
        col = col.cast(col.type.value_type)
    if pa.types.is_integer(col.type):
        col = col.cast(pa.string())
    if pa.types.is_large_string(col.type) or getattr(pa.types, "is_string_view", lambda t: False)(col.type):
        col = col.cast(pa.string())
    if pa.types.is_large_binary(col.type) or getattr(pa.types, "is_binary_view", lambda t: False)(col.type):
        col = col.cast(pa.binary())
    if pa.types.is_string(col.type):
        col = col.cast(pa.binary())
    if not pa.types.is_binary(col.type):
        hint = " (convert it with .astype(str) or .astype(int))" if pa.types.is_floating(col.type) else ""
        raise InputError(f"column {name!r} has type {col.type}; ids are strings, bytes or integers{hint}",
                         source=source)
    arr = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    if len(arr):
        offsets = np.frombuffer(arr.buffers()[1], dtype=np.int32)[arr.offset: arr.offset + len(arr) + 1]
        empty = np.flatnonzero(offsets[1:] == offsets[:-1])
        if len(empty):
            raise InputError(f"column {name!r} has an empty id; every row needs a non-empty id",
                             source=source, row=int(empty[0]))
        values = np.frombuffer(arr.buffers()[2], dtype=np.uint8)[offsets[0]: offsets[-1]]
        nul = np.flatnonzero(values == 0)
        if len(nul):
            row = int(np.searchsorted(offsets, nul[0] + offsets[0], side="right") - 1)
            raise InputError(f"column {name!r} holds an id with a NUL character", source=source, row=row)
    return arr


def _numbers(col: pa.ChunkedArray, name: str, what: str, source: str) -> np.ndarray:
    if col.null_count:
        raise InputError(f"column {name!r} has {col.null_count} missing value(s) (NaN or None); "
                         f"every row needs {what}", source=source, row=_first_null(col))
    if pa.types.is_dictionary(col.type):
        col = col.cast(col.type.value_type)
    if not (pa.types.is_integer(col.type) or pa.types.is_floating(col.type) or pa.types.is_decimal(col.type)):
        has = "holds strings" if _is_text(col.type) else f"has type {col.type}"
        raise InputError(f"column {name!r} {has}; it must hold {what} as numbers "
                         "(convert it with .astype(float) or .astype(int))", source=source)
    if pa.types.is_decimal(col.type) or pa.types.is_float16(col.type):
        col = col.cast(pa.float64())
    return col.to_numpy()


def qrels_from_frame(frame, *, columns: dict | None = None, truncate_grades: bool = False) -> Qrels:
    """A frame with columns query, doc, rel -> :class:`Qrels`.

    Parameters
    ----------
    frame : pandas.DataFrame, polars.DataFrame or pyarrow.Table
    columns : dict, optional
        Other column names, e.g. ``{"query": "qid", "rel": "grade"}``.
    truncate_grades : bool, default False
        Truncate non-integer grades toward zero (trec_eval) instead of refusing them.
    """
    source = _source(frame)
    roles = _roles(columns, ("query", "doc", "rel"), source)
    table = _select(frame, roles, set(), source)
    query = _ids(table.column(roles["query"]), roles["query"], source)
    doc = _ids(table.column(roles["doc"]), roles["doc"], source)
    values = _numbers(table.column(roles["rel"]), roles["rel"], "an integer grade", source)
    if values.dtype.kind == "f":
        bad = ~np.isfinite(values) if truncate_grades else values != np.trunc(values)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            hint = "" if truncate_grades or not np.isfinite(values[row]) else \
                "; pass truncate_grades=True to truncate it as trec_eval does"
            raise InputError(f"column {roles['rel']!r}: {values[row].item()!r} is not an integer grade{hint}",
                             source=source, row=row)
        if np.abs(values).max(initial=0) >= 2.0 ** 63:
            raise InputError(f"column {roles['rel']!r} holds grades out of range", source=source)
    elif values.dtype.kind == "u" and len(values) and values.max() >= 2 ** 63:
        raise InputError(f"column {roles['rel']!r} holds grades out of range", source=source)
    out = pa.table({"query": query, "doc": doc, "rel": pa.array(values.astype(np.int64))})
    return Qrels(out, source, origin="frame")


def run_from_frame(frame, *, columns: dict | None = None, tag: str = "") -> Run:
    """A frame with columns query, doc, score -> :class:`Run`.

    Without a score column the rows are a ranked list: their order within
    a query is the ranking.
    """
    source = _source(frame)
    roles = _roles(columns, ("query", "doc", "score", "rel"), source)
    table = _select(frame, roles, {"score", "rel"}, source)
    query = _ids(table.column(roles["query"]), roles["query"], source)
    doc = _ids(table.column(roles["doc"]), roles["doc"], source)
    if roles["score"] in table.column_names:
        values = _numbers(table.column(roles["score"]), roles["score"], "a score", source).astype(np.float64)
        bad = ~np.isfinite(values)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise InputError(f"column {roles['score']!r}: {values[row].item()!r} is not a finite number",
                             source=source, row=row)
        ranked = False
    elif roles["rel"] in table.column_names:
        raise InputError(f"this frame has a {roles['rel']!r} column but no {roles['score']!r} column: it "
                         "looks like qrels; check the argument order (qrels first, then the run)",
                         source=source)
    else:
        values, ranked = np.zeros(table.num_rows), True
    out = pa.table({"query": query, "doc": doc, "score": pa.array(values)})
    return Run(out, source, origin="frame", tag=encode_id(tag), ranked=ranked)
