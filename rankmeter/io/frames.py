"""pandas and polars DataFrames (and Arrow tables) with columns query, doc, rel / score.

Column names can be overridden: ``columns={"query": "qid", "doc": "docno"}``.
Ids may be strings, bytes or integers; they are compared as UTF-8 bytes.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import InputError
from ..tables import Qrels, Run

__all__ = ["qrels_from_frame", "run_from_frame", "is_frame"]


def is_frame(obj: object) -> bool:
    module = type(obj).__module__
    return isinstance(obj, pa.Table) or module.startswith(("pandas.", "polars."))


def _to_arrow(frame) -> pa.Table:
    if isinstance(frame, pa.Table):
        return frame
    module = type(frame).__module__
    if module.startswith("polars."):
        return frame.to_arrow()
    return pa.Table.from_pandas(frame, preserve_index=False)


def _ids(col: pa.ChunkedArray, name: str, source: str) -> pa.ChunkedArray:
    if col.null_count:
        raise InputError(f"column {name!r} has {col.null_count} missing values", source=source)
    if pa.types.is_dictionary(col.type):
        col = col.cast(col.type.value_type)
    if pa.types.is_integer(col.type):
        col = col.cast(pa.string())
    if pa.types.is_large_string(col.type) or pa.types.is_string_view(col.type):
        col = col.cast(pa.string())
    if pa.types.is_string(col.type) or pa.types.is_large_binary(col.type):
        return col.cast(pa.binary())
    if pa.types.is_binary(col.type):
        return col
    raise InputError(f"column {name!r} has type {col.type}; expected strings, bytes or integers", source=source)


def _pick(table: pa.Table, role: str, columns: dict | None, source: str) -> pa.ChunkedArray:
    name = (columns or {}).get(role, role)
    if name not in table.column_names:
        raise InputError(f"no column {name!r} (columns: {', '.join(table.column_names)}); "
                         f"name it with columns={{{role!r}: ...}}", source=source)
    return table.column(name)


def qrels_from_frame(frame, *, columns: dict | None = None) -> Qrels:
    source = f"<{type(frame).__name__}>"
    table = _to_arrow(frame)
    query = _ids(_pick(table, "query", columns, source), "query", source)
    doc = _ids(_pick(table, "doc", columns, source), "doc", source)
    rel = _pick(table, "rel", columns, source)
    values = rel.to_numpy() if rel.null_count == 0 else None
    if values is None or values.dtype.kind not in "iuf" or (values.dtype.kind == "f" and not np.all(values == np.floor(values))):
        raise InputError("column 'rel' must hold integer grades", source=source)
    out = pa.table({"query": query, "doc": doc, "rel": pa.array(values.astype(np.int64))})
    return Qrels(out, source)


def run_from_frame(frame, *, columns: dict | None = None, tag: str = "") -> Run:
    source = f"<{type(frame).__name__}>"
    table = _to_arrow(frame)
    query = _ids(_pick(table, "query", columns, source), "query", source)
    doc = _ids(_pick(table, "doc", columns, source), "doc", source)
    name = (columns or {}).get("score", "score")
    if name in table.column_names:
        score = table.column(name)
        values = score.to_numpy() if score.null_count == 0 else None
        if values is None or values.dtype.kind not in "iuf" or not np.isfinite(values.astype(np.float64)).all():
            raise InputError("column 'score' must hold finite numbers", source=source)
        ranked = False
    else:
        values, ranked = np.zeros(table.num_rows), True
    out = pa.table({"query": query, "doc": doc, "score": pa.array(values.astype(np.float64))})
    return Run(out, source, tag=tag.encode(), ranked=ranked)
