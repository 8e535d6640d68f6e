"""Recommender-shaped inputs read as judgments and runs: implicit feedback, top-k lists and their frames.

:func:`implicit_qrels` reads interactions (``{user: [item, ...]}`` or (user, item) rows) as judgments;
:func:`topk_rows` reads top-k lists (``{user: [item, ...]}``, (user, item, score) rows, (user, list) rows)
as a run whose scores keep each list's order. Spark DataFrames stay Spark DataFrames. What counts and how
lists are cut is :mod:`rankmeter.recsys.feedback`'s.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from rankmeter.engine.groups import query_starts
from rankmeter.engine.param import Param, validate_params
from rankmeter.errors import InputError, ParameterError
from rankmeter.io import as_qrels, as_run
from rankmeter.io.canonical import Run
from rankmeter.io.dicts import qrels_from_dict
from rankmeter.io.frames import is_frame, is_spark_frame

__all__ = ["implicit_qrels", "topk_rows", "frame_columns", "list_rows"]


def frame_columns(frame, wanted: dict[str, str], what: str) -> pa.Table:
    """Named columns (keyword -> column name) of a pandas/polars frame or Arrow table, as an Arrow table."""
    if hasattr(frame, "collect") and not hasattr(frame, "to_arrow"):
        frame = frame.collect()  # polars LazyFrame
    names = list(getattr(frame, "column_names", None) or getattr(frame, "columns", []))
    names = [str(n) for n in names]
    for keyword, name in wanted.items():
        if name not in names:
            raise InputError(f"no column {name!r} (columns: {', '.join(names)}); name it with "
                             f"{keyword}=...", source=f"<{what}>")
    wanted = list(wanted.values())
    if isinstance(frame, pa.RecordBatch):
        frame = pa.Table.from_batches([frame])
    if isinstance(frame, pa.Table):
        return frame.select(wanted)
    if hasattr(frame, "to_arrow"):
        return frame.select(wanted).toframe_columns()
    return pa.Table.from_pandas(frame[wanted], preserve_index=False)


#: the grade every interaction gets in :func:`implicit_qrels`
GRADE = Param("grade", "integer", help="the grade of every (user, item) interaction")


@validate_params(GRADE)
def implicit_qrels(interactions, *, user: str = "user", item: str = "item", grade: int = 1):
    """Implicit feedback as judgments: every (user, item) interaction is relevant with ``grade``.

    Parameters
    ----------
    interactions : dict, DataFrame or Spark DataFrame
        ``{user: [item, ...]}`` (any iterable of items), or a frame with one
        row per interaction. Repeated interactions count once.
    user, item : str
        Column names of a frame.
    grade : int, default 1

    Returns
    -------
    Qrels, or a Spark DataFrame with columns query, doc, rel for a Spark input.

    Examples
    --------
    >>> q = implicit_qrels({"u1": ["i1", "i2", "i1"], "u2": ["i3"]})
    >>> len(q), q.queries
    (3, ['u1', 'u2'])
    """
    if is_spark_frame(interactions):
        from pyspark.sql import functions as F
        for name in (user, item):
            if name not in interactions.columns:
                raise InputError(f"no column {name!r} (columns: {', '.join(interactions.columns)})",
                                 source="<Spark interactions DataFrame>")
        return (interactions.select(F.col(f"`{user}`").alias("query"), F.col(f"`{item}`").alias("doc"))
                .dropDuplicates().withColumn("rel", F.lit(int(grade)).cast("long")))
    if isinstance(interactions, Mapping):
        judged = {}
        for u, items in interactions.items():
            if isinstance(items, (str, bytes)) or not isinstance(items, Iterable):
                raise InputError(f"interactions[{u!r}] is a {type(items).__name__}; expected a list "
                                 "(or set) of items", source="<dict>")
            judged[u] = dict.fromkeys(items, int(grade))
        return qrels_from_dict(judged)
    if is_frame(interactions):
        table = frame_columns(interactions, {"user": user, "item": item}, "interactions")
        table = table.group_by([user, item], use_threads=False).aggregate([])
        table = table.append_column("rel", pa.array(np.full(table.num_rows, int(grade), np.int64)))
        return as_qrels(table, columns={"query": user, "doc": item, "rel": "rel"})
    raise InputError(f"cannot read interactions from a {type(interactions).__name__}; pass a dict "
                     "{user: [item, ...]} or a DataFrame of (user, item) rows")


def list_rows(table: pa.Table, user: str, items: str, item: str) -> pa.Table:
    """(user, list of items) rows -> (user, item, score) rows, the score keeping each list's order."""
    lists = table.column(items).combine_chunks()
    if not pa.types.is_list(lists.type) and not pa.types.is_large_list(lists.type):
        raise InputError(f"column {items!r} has type {lists.type}; expected lists of items")
    values = lists.flatten()
    if pa.types.is_struct(values.type):  # e.g. ALS recommendForAllUsers: struct<item, rating>
        fields = [values.type.field(i).name for i in range(values.type.num_fields)]
        values = values.field(item if item in fields else fields[0])
    lengths = pc.list_value_length(lists).fill_null(0).to_numpy()
    starts = np.cumsum(lengths) - lengths
    position = np.arange(lengths.sum()) - np.repeat(starts, lengths)
    users = table.column(user).combine_chunks().take(pa.array(np.repeat(np.arange(len(lengths)), lengths)))
    return pa.table({"query": users, "doc": values, "score": pa.array((-position).astype(np.float64))})


def topk_rows(predictions, *, user: str = "user", item: str = "item", score: str | None = None,
              items: str | None = None):
    """Top-k lists as a run whose scores keep each list's order (first item highest), every item kept:
    :func:`rankmeter.recsys.feedback.topk_run` without its cut (see it for the inputs)."""
    if (score is None) == (items is None) and not isinstance(predictions, Mapping):
        raise ParameterError("give score='column' for (user, item, score) rows or items='column' for "
                             "(user, [items]) rows")
    if is_spark_frame(predictions):
        from pyspark.sql import functions as F
        if score is not None:
            out = predictions.select(F.col(f"`{user}`").alias("query"), F.col(f"`{item}`").alias("doc"),
                                     F.col(f"`{score}`").cast("double").alias("score"))
        else:
            exploded = predictions.select(F.col(f"`{user}`").alias("query"),
                                          F.posexplode(F.col(f"`{items}`")).alias("pos", "entry"))
            is_struct = type(exploded.schema["entry"].dataType).__name__ == "StructType"
            if is_struct:
                field = item if item in exploded.schema["entry"].dataType.names else \
                    exploded.schema["entry"].dataType.names[0]
                entry = F.col("entry").getField(field)
            else:
                entry = F.col("entry")
            out = exploded.select("query", entry.alias("doc"), (-F.col("pos")).cast("double").alias("score"))
        return out
    if isinstance(predictions, Mapping):
        run = as_run({u: list(v) for u, v in predictions.items()})
        # a ranked dict keeps its order; make the order explicit as scores, as for frames
        table = run.table
        starts = query_starts(table.column("query"))
        counts = np.diff(np.append(starts, table.num_rows))
        position = np.arange(table.num_rows) - np.repeat(starts, counts)
        run = Run(table.set_column(2, "score", pa.array((-position).astype(np.float64))), run.source,
                  origin=run.origin)
    elif is_frame(predictions):
        if score is not None:
            run = as_run(predictions, columns={"query": user, "doc": item, "score": score})
        else:
            table = list_rows(frame_columns(predictions, {"user": user, "items": items}, "predictions"),
                                 user, items, item)
            run = as_run(table)
    else:
        raise InputError(f"cannot read predictions from a {type(predictions).__name__}; pass a dict "
                         "{user: [item, ...]} or a DataFrame")
    return run
