"""pandas and polars DataFrames (and Arrow tables): one row per judgment or result.

Columns are found by the names other tools use (:mod:`rankmeter.io.columns`):
``query``/``doc``/``rel``/``score``, ir_measures' ``query_id``/``doc_id``/
``relevance``, PyTerrier's ``qid``/``docno``/``label``, Recommenders'
``userID``/``itemID``/``rating``/``prediction``, ``user``/``item``; or named
with ``columns={"query": "qid", "doc": "docno"}``. Ids may be strings, bytes
or integers; strings are compared as UTF-8 bytes. A run frame without a score
column is a ranked list: its row order within a query is the ranking (or its
``rank`` column's order). Only the needed columns are read; the frame itself
is never modified. Errors name the first offending row by its position,
counting from 0 (``df.iloc[row]``).

The same checks serve tables read from files (CSV, TSV, Parquet, JSON
Lines), whose errors name the file and line instead.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from rankmeter.errors import InputError, shown_repr
from rankmeter.io.canonical import Qrels, Run, encode_id, grade_policy, qrels_table
from rankmeter.io.columns import resolve_columns

if TYPE_CHECKING:  # pyarrow is imported where it is used: TREC text read by the compiled reader never loads it
    import pyarrow as pa

__all__ = ["qrels_from_frame", "run_from_frame", "is_frame", "is_spark_frame", "qrels_from_table", "run_from_table"]

#: row -> keyword arguments of InputError naming it (file:line or frame row)
Locate = Callable[[int], dict]


def is_frame(obj: object) -> bool:
    """True for a pandas/polars object or an Arrow table."""
    package = type(obj).__module__.split(".")[0]
    if package == "pyarrow":  # an Arrow object: pyarrow is loaded already
        import pyarrow as pa
        return isinstance(obj, (pa.Table, pa.RecordBatch))
    return package in ("pandas", "polars")


def is_spark_frame(obj: object) -> bool:
    """True for a Spark DataFrame (classic or Spark Connect), without importing pyspark."""
    cls = type(obj)
    return cls.__name__ == "DataFrame" and cls.__module__.startswith("pyspark.sql")


def _source(frame) -> str:
    return f"<{type(frame).__module__.split('.')[0]} {type(frame).__name__}>"


def _names(frame, source: str):
    import pyarrow as pa
    if hasattr(frame, "collect") and not hasattr(frame, "to_arrow"):
        frame = frame.collect()  # a polars LazyFrame
    if isinstance(frame, pa.RecordBatch):
        frame = pa.Table.from_batches([frame])
    names = getattr(frame, "column_names", None)
    if names is None:
        names = getattr(frame, "columns", None)
    if names is None or not hasattr(frame, "__getitem__") or type(frame).__name__ == "Series":
        raise InputError(f"a {type(frame).__name__} is not a table; pass a DataFrame with columns "
                         "query, doc and rel (qrels) or score (run)", source=source)
    return frame, list(names)


def _select(frame, names: list, wanted: list[str], source: str) -> pa.Table:
    """The named columns of ``frame`` as an Arrow table."""
    import pyarrow as pa
    label_of = {str(n): n for n in names}
    labels = [label_of[w] for w in dict.fromkeys(wanted)]
    try:
        if isinstance(frame, pa.Table):
            sub = frame.select(labels)
        elif type(frame).__module__.split(".")[0] == "polars":
            sub = frame.select(labels).to_arrow()
        else:
            sub = pa.Table.from_pandas(frame[labels], preserve_index=False)
    except (pa.ArrowException, TypeError, ValueError, KeyError) as exc:
        detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(f"the columns cannot be read ({detail}); give each column one type: "
                         "strings or integers for ids, numbers for grades and scores", source=source) from None
    return sub.rename_columns([str(n) for n in sub.column_names])


def _index_hint(frame, names: list) -> str:
    index = getattr(frame, "index", None)
    levels = [str(n) for n in getattr(index, "names", []) or [] if n is not None]
    return f"; the index holds {', '.join(levels)}: call reset_index() first" if levels else ""


def _is_text(t: pa.DataType) -> bool:
    import pyarrow as pa
    return pa.types.is_string(t) or pa.types.is_large_string(t) or \
        getattr(pa.types, "is_string_view", lambda _: False)(t)


def _first_null(col: pa.ChunkedArray) -> int:
    return int(np.flatnonzero(col.is_null().to_numpy(zero_copy_only=False))[0])


def ids(col: pa.ChunkedArray, name: str, source: str, locate: Locate) -> pa.Array:
    """An id column as Arrow binary, refusing missing, empty and NUL-holding ids."""
    import pyarrow as pa
    if col.null_count:
        raise InputError(f"column {name!r} has {col.null_count} missing value(s); every row needs an id",
                         **locate(_first_null(col)))
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
                             **locate(int(empty[0])))
        values = np.frombuffer(arr.buffers()[2], dtype=np.uint8)[offsets[0]: offsets[-1]]
        nul = np.flatnonzero(values == 0)
        if len(nul):
            row = int(np.searchsorted(offsets, nul[0] + offsets[0], side="right") - 1)
            raise InputError(f"column {name!r} holds an id with a NUL character", **locate(row))
    return arr


def numbers(col: pa.ChunkedArray, name: str, what: str, source: str, locate: Locate) -> np.ndarray:
    """A numeric column as numpy, refusing missing values and non-numbers."""
    import pyarrow as pa
    if col.null_count:
        raise InputError(f"column {name!r} has {col.null_count} missing value(s) (NaN or None); "
                         f"every row needs {what}", **locate(_first_null(col)))
    if pa.types.is_dictionary(col.type):
        col = col.cast(col.type.value_type)
    if not (pa.types.is_integer(col.type) or pa.types.is_floating(col.type) or pa.types.is_decimal(col.type)):
        has = "holds strings" if _is_text(col.type) else f"has type {col.type}"
        raise InputError(f"column {name!r} {has}; it must hold {what} as numbers "
                         "(convert it with .astype(float) or .astype(int))", source=source)
    if pa.types.is_decimal(col.type) or pa.types.is_float16(col.type):
        col = col.cast(pa.float64())
    return col.to_numpy()


def _frame_rows(source: str) -> Locate:
    return lambda row: {"source": source, "row": row}


def qrels_from_table(table: pa.Table, roles: dict, source: str, locate: Locate, *,
                     grades: str = "integer", origin: str = "frame", lines=None) -> Qrels:
    """Checked :class:`Qrels` from the ``roles`` columns of an Arrow table (``grades``: a grade policy)."""
    import pyarrow as pa
    if table.num_rows == 0:
        raise InputError("no judgments: the table has no rows", source=source)
    query = ids(table.column(roles["query"]), roles["query"], source, locate)
    doc = ids(table.column(roles["doc"]), roles["doc"], source, locate)
    real = grades == "real"
    values = numbers(table.column(roles["rel"]), roles["rel"], "a grade" if real else "an integer grade",
                     source, locate)
    if values.dtype.kind == "f":
        bad = ~np.isfinite(values) if grades != "integer" else values != np.trunc(values)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            hint = "" if grades != "integer" or not np.isfinite(values[row]) else \
                "; pass grades='real' to keep fractional grades, or truncate_grades=True to truncate " \
                "it as trec_eval does"
            what = "a finite grade" if real else "an integer grade"
            raise InputError(f"column {roles['rel']!r}: {shown_repr(values[row].item())} is not {what}{hint}",
                             **locate(row))
        if np.abs(values).max(initial=0) >= 2.0 ** 63:
            raise InputError(f"column {roles['rel']!r} holds grades out of range", source=source)
    elif values.dtype.kind == "u" and len(values) and values.max() >= 2 ** 63:
        raise InputError(f"column {roles['rel']!r} holds grades out of range", source=source)
    subtopic = roles.get("subtopic")
    if subtopic is not None and subtopic in table.column_names:
        column = table.column(subtopic)
        if pa.types.is_integer(column.type):
            column = column.cast(pa.string())
        subtopic = ids(column, subtopic, source, locate)
    else:
        subtopic = None
    out = qrels_table(query, doc, pa.array(values.astype(np.float64 if real else np.int64)), subtopic)
    return Qrels(out, source, lines, origin=origin)


def run_from_table(table: pa.Table, roles: dict, source: str, locate: Locate, *, tag: bytes = b"",
                   origin: str = "frame", lines=None) -> Run:
    """Checked :class:`Run` from the ``roles`` columns of an Arrow table."""
    import pyarrow as pa
    if table.num_rows == 0:
        raise InputError("no results: the table has no rows", source=source)
    query = ids(table.column(roles["query"]), roles["query"], source, locate)
    doc = ids(table.column(roles["doc"]), roles["doc"], source, locate)
    ranked = False
    if roles.get("score") is not None:
        values = numbers(table.column(roles["score"]), roles["score"], "a score", source, locate)
        values = values.astype(np.float64)
        bad = ~np.isfinite(values)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise InputError(f"column {roles['score']!r}: {shown_repr(values[row].item())} is not a finite number",
                             **locate(row))
    elif roles.get("rank") is not None:
        ranks = numbers(table.column(roles["rank"]), roles["rank"], "a rank", source, locate).astype(np.float64)
        _distinct_ranks(query, ranks, roles["rank"], locate)
        values = -ranks  # rank 1 first: the ranking is the rank column's order
    else:
        values, ranked = np.zeros(table.num_rows), True
    out = pa.table({"query": query, "doc": doc, "score": pa.array(values)})
    return Run(out, source, lines, origin=origin, tag=tag, ranked=ranked)


def _distinct_ranks(query: pa.Array, ranks: np.ndarray, column: str, locate: Locate) -> None:
    """Refuse a rank that is not a finite number, or that a query gives twice (the order would be a guess)."""
    import pyarrow.compute as pc
    bad = ~np.isfinite(ranks)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InputError(f"column {column!r}: {shown_repr(ranks[row].item())} is not a finite rank", **locate(row))
    codes = pc.dictionary_encode(query).indices.to_numpy(zero_copy_only=False).astype(np.int64)
    same = codes[1:] == codes[:-1]
    if len(codes) and int(codes.max()) == int(np.count_nonzero(~same)):  # each query's lines together
        step = ranks[1:][same] - ranks[:-1][same]
        if (step > 0).all() or (step < 0).all():
            return  # ranks rising (or falling) down each query, as files list them: none twice, no sort
    order = np.lexsort((np.arange(len(ranks)), ranks, codes))
    same = (codes[order][1:] == codes[order][:-1]) & (ranks[order][1:] == ranks[order][:-1])
    if same.any():
        i = int(np.flatnonzero(same)[0])
        first, again = int(order[i]), int(order[i + 1])
        where = locate(first)
        at = f"line {where['line']}" if "line" in where else f"row {where.get('row', first)}"
        raise InputError(f"query {shown_repr(query[again].as_py().decode('utf-8', 'replace'))} has rank "
                         f"{ranks[again]:g} twice (also at {at}); the {column!r} column orders each query's docs "
                         "(rank 1 first), so a rank must appear once per query: fix the ranks, or read the "
                         "scores instead", **locate(again))


def _from_frame(frame, kind: str, columns: dict | None):
    source = _source(frame)
    frame, names = _names(frame, source)
    try:
        roles = resolve_columns(names, kind, columns, source)
    except InputError as exc:
        hint = _index_hint(frame, names)
        if hint and "cannot tell" in str(exc):
            raise InputError(str(exc)[len(source) + 2:] + hint, source=source) from None
        raise
    wanted = [v for v in roles.values() if v is not None]
    return _select(frame, names, wanted, source), roles, source


def qrels_from_frame(frame, *, columns: dict | None = None, grades: str = "integer",
                     truncate_grades: bool = False) -> Qrels:
    """A frame of judgments -> :class:`Qrels`.

    Parameters
    ----------
    frame : pandas.DataFrame, polars.DataFrame or pyarrow.Table
        Columns found by name (query/doc/rel, query_id/doc_id/relevance,
        qid/docno/label, userID/itemID/rating, user/item/rating).
    columns : dict, optional
        Other column names, e.g. ``{"query": "qid", "rel": "grade"}``.
    grades : {"integer", "truncate", "real"}, default "integer"
        Refuse non-integer grades, truncate them toward zero (trec_eval), or
        keep them as real numbers (see :func:`rankmeter.read_qrels`).
    truncate_grades : bool, default False
        The same as ``grades="truncate"``.

    Examples
    --------
    >>> import pyarrow as pa
    >>> len(qrels_from_frame(pa.table({"query_id": ["q1"], "doc_id": ["d1"], "relevance": [1]})))
    1
    """
    table, roles, source = _from_frame(frame, "qrels", columns)
    policy = grade_policy(grades, truncate_grades)
    return qrels_from_table(table, roles, source, _frame_rows(source), grades=policy)


def run_from_frame(frame, *, columns: dict | None = None, tag: str = "") -> Run:
    """A frame of results -> :class:`Run`.

    Without a score column the rows are a ranked list: their order within
    a query is the ranking (or the order of a ``rank`` column).

    Examples
    --------
    >>> import pyarrow as pa
    >>> run_from_frame(pa.table({"qid": ["q1"], "docno": ["d1"], "score": [2.5], "rank": [0]})).ranked
    False
    """
    table, roles, source = _from_frame(frame, "run", columns)
    return run_from_table(table, roles, source, _frame_rows(source), tag=encode_id(tag))
