"""Spark DataFrames as inputs: column checks on the driver, canonical tables inside the tasks.

The driver side (:func:`grouped_frame`) checks the named columns and their
types, groups each input by query and joins the two, so that every query is
one row holding its ranked docs and scores and its judged docs and grades as
lists. Whole queries thus reach each task, whatever their rows' partitions
were. The task side (:func:`tables_from_arrow`) turns the Arrow data a task
receives back into :class:`~rankmeter.io.canonical.Qrels` and
:class:`~rankmeter.io.canonical.Run`, through the same checks as any DataFrame
(missing or empty ids, non-integer grades, non-finite scores).

Nothing here imports pyspark at module import time: the caller hands in
Spark objects, and ``pyspark.sql.functions`` is imported when first needed.
"""
from __future__ import annotations


import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from rankmeter.errors import InputError
from rankmeter.io.canonical import Qrels, Run, decode_id
from rankmeter.io.frames import ids, qrels_from_frame, run_from_frame

__all__ = ["grouped_frame", "tables_from_arrow", "canonical_qrels"]



def _spark_column(frame, name: str, role: str, what: str) -> str:
    """The column of ``frame`` playing ``role``, or an error listing the columns there are."""
    if name in frame.columns:
        return name
    hint = ""
    if role == "rel":
        hint = ("; for implicit feedback (user, item) pairs use rankmeter.recsys.feedback.implicit_qrels, "
                "which adds grade 1")
    elif role == "score":
        hint = ("; Spark rows have no order, so a ranked list needs a score: "
                "rankmeter.recsys.feedback.topk_run turns top-k lists into scored rows")
    raise InputError(f"no column {name!r} (columns: {', '.join(frame.columns)}); name it with "
                     f"columns={{{role!r}: ...}}{hint}", source=f"<Spark {what} DataFrame>")


def _kind_of(dtype, name: str, what: str) -> str:
    """``"string"``, ``"binary"`` or ``"integer"`` for an id column; an error otherwise."""
    type_name = type(dtype).__name__
    if type_name in ("StringType", "VarcharType", "CharType"):
        return "string"
    if type_name == "BinaryType":
        return "binary"
    if type_name in ("ByteType", "ShortType", "IntegerType", "LongType"):
        return "integer"
    hint = " (cast it with .cast('long') or .cast('string'))" if type_name in ("FloatType", "DoubleType") else ""
    raise InputError(f"column {name!r} has type {dtype.simpleString()}; ids are strings, bytes or integers{hint}",
                     source=f"<Spark {what} DataFrame>")


def _check_number(dtype, name: str, what: str, role: str) -> None:
    type_name = type(dtype).__name__
    if type_name not in ("ByteType", "ShortType", "IntegerType", "LongType", "FloatType", "DoubleType",
                         "DecimalType"):
        need = "integer grades" if role == "rel" else "scores"
        raise InputError(f"column {name!r} has type {dtype.simpleString()}; it must hold {need} as numbers "
                         f"(cast it with .cast('double'))", source=f"<Spark {what} DataFrame>")


def _id_expr(F, frame, name: str, kinds: set[str], own: str):
    """``frame[name]`` cast to the id type both inputs share.

    Integer ids on both sides stay integers (cheaper to shuffle; the task
    turns them into their decimal text, as for pandas frames). Otherwise
    integers become their decimal text, and when one side holds bytes, text
    becomes its UTF-8 bytes, so ids compare as the local engine compares them.
    """
    col = F.col(f"`{name}`")
    if kinds == {"integer"}:
        return col.cast("long")
    if "binary" in kinds:
        return col if own == "binary" else col.cast("string").cast("binary")
    return col if own == "string" else col.cast("string")


def _roles(columns: dict | None) -> dict[str, str]:
    columns = dict(columns or {})
    unknown = [k for k in columns if k not in ("query", "doc", "rel", "score", "subtopic")]
    if unknown:
        raise InputError(f"columns={columns!r}: unknown role {unknown[0]!r}; the keys are roles "
                         "(query, doc, rel, score, subtopic) and the values your column names, "
                         "e.g. columns={'query': 'user'}")
    return {role: str(columns.get(role, role)) for role in ("query", "doc", "rel", "score")}


def subtopic_column(frame, columns: dict | None = None) -> str | None:
    """The subtopic column of a diversity qrels frame (as the local readers find it), or None."""
    given = (columns or {}).get("subtopic")
    if given is not None:
        return _spark_column(frame, str(given), "subtopic", "qrels")
    return next((c for c in ("subtopic", "subtopic_id", "iteration") if c in frame.columns), None)


def grouped_frame(qrels, run, qrels_columns: dict | None = None, run_columns: dict | None = None,
                  partitions: int | None = None, subtopic: str | None = None):
    """One row per query: the run's docs and scores and the qrels' docs and grades, as lists.

    Each input is grouped by query (``collect_list``, combined map-side)
    and the two are joined with a full outer join, so a query on one side
    only keeps its row, with nulls for the other side. Columns::

        query, run_doc, run_score, run_n, qrels_doc, qrels_rel, qrels_n

    ``*_n`` counts the rows of the group: ``collect_list`` skips nulls, and
    a list shorter than its count shows a missing doc, score or grade. With
    ``subtopic`` (the qrels' subtopic column, for the diversity families)
    the qrels side also has ``qrels_subtopic``.

    Parameters
    ----------
    qrels, run : pyspark.sql.DataFrame
        Columns query, doc, rel and query, doc, score (other columns are ignored).
    qrels_columns, run_columns : dict, optional
        Role -> column name of each frame, e.g. ``{"query": "user", "doc": "item", "score": "prediction"}``.
    partitions : int, optional
        Hash-partition the grouped rows by query into this many partitions
        (the scoring tasks); default: Spark's shuffle partitions (coalesced by adaptive execution).

    Returns
    -------
    pyspark.sql.DataFrame
    """
    from pyspark.sql import functions as F

    picked = {}
    for frame, what, value_role, columns in ((qrels, "qrels", "rel", qrels_columns),
                                             (run, "run", "score", run_columns)):
        roles = _roles(columns)
        if what == "run" and roles["rel"] in frame.columns and roles["score"] not in frame.columns:
            raise InputError(f"this frame has a {roles['rel']!r} column but no {roles['score']!r} column: it "
                             "looks like qrels; check the argument order (qrels first, then the run)",
                             source="<Spark run DataFrame>")
        types = {f.name: f.dataType for f in frame.schema.fields}
        names = {r: _spark_column(frame, roles[r], r, what) for r in ("query", "doc", value_role)}
        _check_number(types[names[value_role]], names[value_role], what, value_role)
        picked[what] = (frame, names, {r: _kind_of(types[names[r]], names[r], what) for r in ("query", "doc")},
                        value_role)
    sides = []
    for what in ("run", "qrels"):
        frame, names, id_kinds, value_role = picked[what]
        query, doc = (_id_expr(F, frame, names[role], {picked["qrels"][2][role], picked["run"][2][role]},
                               id_kinds[role]) for role in ("query", "doc"))
        lists = [F.collect_list(doc).alias(f"{what}_doc"),
                 F.collect_list(F.col(f"`{names[value_role]}`").cast("double")).alias(f"{what}_{value_role}")]
        if what == "qrels" and subtopic is not None:
            lists.append(F.collect_list(F.col(f"`{subtopic}`").cast("string")).alias("qrels_subtopic"))
        # grouped straight from the input's columns, with no select first: the driver analyses every
        # DataFrame it builds whole, which costs ~0.1 s over a large local relation (createDataFrame)
        sides.append(frame.groupBy(query.alias("query")).agg(*lists, F.count(F.lit(1)).alias(f"{what}_n")))
    # a hash join on the qrels' grouped rows: a merge join sorts both sides' long lists first, which
    # cost about 1 of the grouping's 6.7 CPU seconds on bench/bench_spark.py's data
    grouped = sides[0].join(sides[1].hint("shuffle_hash"), "query", "full")
    return grouped.repartition(int(partitions), "query") if partitions else grouped


def _reword(exc: InputError, what: str) -> InputError:
    """The same error, naming the Spark input instead of the task's Arrow table and its row numbers."""
    return InputError(exc.message, source=f"<Spark {what} DataFrame>", hint=exc.hint)


def _flat(table: pa.Table, query_ids: pa.Array, what: str, value_role: str) -> pa.Table:
    """(query, doc, value) rows of one side of the grouped rows; the rows of a query stay together."""
    docs = table.column(f"{what}_doc").combine_chunks()
    values = table.column(f"{what}_{value_role}").combine_chunks()
    lengths = pc.list_value_length(docs).fill_null(0).to_numpy(zero_copy_only=False)
    rows = table.column(f"{what}_n").combine_chunks().fill_null(0).to_numpy(zero_copy_only=False)
    short = np.flatnonzero(lengths != rows)
    if len(short) or not np.array_equal(lengths, pc.list_value_length(values).fill_null(0)
                                        .to_numpy(zero_copy_only=False)):
        query = table.column("query")[int(short[0]) if len(short) else 0].as_py()
        query = decode_id(query) if isinstance(query, bytes) else query
        raise InputError(f"query {query} has rows with a missing (null) doc or {value_role}; every row "
                         f"needs both (drop or fill them first)", source=f"<Spark {what} DataFrame>")
    owner = np.repeat(np.arange(table.num_rows), lengths)
    columns = {"query": query_ids.take(pa.array(owner)), "doc": docs.flatten(), value_role: values.flatten()}
    if what == "qrels" and "qrels_subtopic" in table.column_names:
        subtopics = table.column("qrels_subtopic").combine_chunks()
        if not np.array_equal(lengths, pc.list_value_length(subtopics).fill_null(0).to_numpy(zero_copy_only=False)):
            raise InputError("a qrels row has a missing (null) subtopic; every row of diversity qrels needs one",
                             source="<Spark qrels DataFrame>")
        columns["subtopic"] = subtopics.flatten()
    return pa.table(columns)


def tables_from_arrow(table: pa.Table, *, grades: str = "integer") -> tuple[Qrels, Run]:
    """Grouped rows of one task (see :func:`grouped_frame`) back into Qrels and Run.

    Runs inside a Spark task. The checks are those of
    :func:`rankmeter.io.frames.qrels_from_frame` / ``run_from_frame``; each
    query's rows come out together (the engine orders each query's block by score).
    """
    if table.column("query").null_count:
        raise InputError("the query column has missing (null) values; every row needs a query id",
                         source="<Spark DataFrame>")
    # each query id checked and turned into bytes once, then repeated for its rows
    query_ids = ids(table.column("query"), "query", "<Spark DataFrame>", lambda row: {"source": "<Spark DataFrame>"})
    parts = {}
    for what, value_role in (("qrels", "rel"), ("run", "score")):
        try:
            flat = _flat(table, query_ids, what, value_role)
            read = qrels_from_frame(flat, grades=grades) if what == "qrels" \
                else run_from_frame(flat)
        except InputError as exc:
            raise _reword(exc, what) from None
        # rows of a task mean nothing to the user: later errors (a doc twice) name the input only
        parts[what] = type(read)(read.table, f"<Spark {what} DataFrame>", origin="dict")
    return parts["qrels"], parts["run"]  # each query's rows together: the engine orders them


def canonical_qrels(qrels, columns: dict | None = None):
    """The qrels frame's grade column as ``rel`` (double): what the Spark form of a qrels-wide need reads."""
    from pyspark.sql import functions as F

    name = _spark_column(qrels, _roles(columns)["rel"], "rel", "qrels")
    return qrels.select(F.col(f"`{name}`").cast("double").alias("rel"))
