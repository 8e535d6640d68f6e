"""Parquet files: a table of judgments or results, columns found by name as for DataFrames.

Recognised by the ``PAR1`` magic at both ends of the file (or ``format="parquet"``).
Errors name the row, counting from 0, as for DataFrames.
"""
from __future__ import annotations


from rankmeter.errors import InputError
from rankmeter.io.canonical import Qrels, Run
from rankmeter.io.columns import resolve_columns
from rankmeter.io.formats import is_parquet
from rankmeter.io.frames import qrels_from_table, run_from_table

__all__ = ["read_parquet", "is_parquet"]


def read_parquet(data: bytes, name: str, kind: str, *, columns: dict | None = None,
                 grades: str = "integer", style: str = "parquet", header: bool = False, first=None,
                 fields=None) -> Qrels | Run:
    """Qrels or a run from the bytes of a Parquet file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not data:
        from rankmeter.io.guard import check_text
        check_text(data, name)  # the file is empty
    if not is_parquet(data):
        raise InputError("is not a Parquet file (no PAR1 magic at both ends); pass input_format='auto' or the "
                         "right file", source=name)
    try:
        schema = pq.read_schema(pa.BufferReader(data))
        roles = resolve_columns(schema.names, kind, columns, name)
        wanted = list(dict.fromkeys(v for v in roles.values() if v is not None))
        table = pq.read_table(pa.BufferReader(data), columns=wanted)
    except (pa.ArrowException, OSError) as exc:
        detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(f"broken Parquet file ({detail}); re-create the file", source=name) from None
    locate = lambda row: {"source": name, "row": row}  # noqa: E731
    if kind == "qrels":
        return qrels_from_table(table, roles, name, locate, grades=grades)
    return run_from_table(table, roles, name, locate)
