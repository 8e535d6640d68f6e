"""Evaluate Spark DataFrames on the cluster, with the same kernels as on one machine.

``rankmeter.evaluate(qrels, run, measures)`` lands here when either input is
a Spark DataFrame; :func:`evaluate` is the same with Spark options
(``columns=``, ``partitions=``).

How the work is split
---------------------
1. Each input is grouped by ``query`` (``collect_list`` of docs and
   scores / grades, combined map-side) and the two are joined on the
   query (full outer join): one row per query holds everything the query
   needs, whatever partitions its rows were in. A query on one side only
   keeps its row, so the query policy can see it.
2. ``mapInArrow`` hands each task these rows as Arrow batches. The task
   flattens chunks of them (about ``chunk_rows`` qrels and run rows) into
   the same canonical tables as any DataFrame, builds the same
   :class:`~rankmeter.engine.Batch` as the local engine and runs the same
   kernels (:func:`rankmeter.api.compute_all`). It emits one row per scored
   query, ``query`` and one column per measure, plus a few rows counting
   (and naming) queries left out.
3. Spark aggregates those rows as each measure family says (mean, sum or
   geometric mean), in the same job. The per-query rows stay a Spark
   DataFrame (:attr:`SparkResults.per_query_spark`, recomputed when used:
   ``.cache()`` it to use it often) until :meth:`SparkResults.collect`
   brings them to the driver.

The only statistic that crosses queries, the highest grade of the whole
qrels (ERR's default g_max), is computed first, when a measure needs it, and
given to every task, so a query scores exactly as it does locally. Means are
sums in Spark's order, not the local engine's query order: they agree up to
rounding (integer sums exactly).

pyspark is imported only when a Spark DataFrame arrives.
"""
from __future__ import annotations

import re
import warnings
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .api import Results, compute_all, resolve_measures
from .engine import QUERY_POLICIES, build_batch
from .errors import InputError, MeasureError, ParameterError
from .io import as_qrels, as_run
from .io.spark import grouped_frame, highest_grade, is_spark_frame, tables_from_arrow
from .measures import Measure
from .tables import Qrels, Run, decode_id, encode_id

__all__ = ["evaluate", "SparkResults", "is_spark_frame"]

SCORED, MISSING_FROM_RUN, ONLY_IN_RUN = 0, 1, 2
_ERRORS = {"InputError": InputError, "ParameterError": ParameterError, "MeasureError": MeasureError}
_NAMES = 10  # queries named in the warning about judged queries the run lacks
_RAISED = re.compile(r"rankmeter\.errors\.(InputError|ParameterError|MeasureError): ([^\n]+)")


def _kind(m: Measure) -> str:
    return "text" if m.family.text else "integer" if m.family.integer else "float"


class _Scorer:
    """The function each Spark task runs (``mapInArrow``): grouped rows in, per-query rows out.

    Each input row is a whole query (see :func:`rankmeter.io.spark.grouped_frame`),
    so the task scores chunks of about ``chunk_rows`` qrels and run rows as
    they come. Scored queries give one row each. Queries left out are only counted,
    with the first ten names (bytewise) of each chunk for the warning: the
    ``n`` column of the first such row holds the chunk's count.
    """

    def __init__(self, measures: list[Measure], queries: str, rel: int, judged_only: bool,
                 max_docs: int | None, max_grade: int, chunk_rows: int, truncate_grades: bool = False):
        self.measures = measures
        self.queries = queries
        self.rel = rel
        self.judged_only = judged_only
        self.max_docs = max_docs
        self.max_grade = max_grade
        self.chunk_rows = chunk_rows
        self.truncate_grades = truncate_grades

    def schema(self) -> pa.Schema:
        types = {"text": pa.string(), "integer": pa.int64(), "float": pa.float64()}
        fields = [pa.field("query", pa.string()), pa.field("status", pa.int8()), pa.field("n", pa.int64())]
        fields += [pa.field(f"m{i}", types[_kind(m)]) for i, m in enumerate(self.measures)]
        return pa.schema(fields)

    def _rows(self, queries: list[bytes], status: int, values: dict | None) -> pa.RecordBatch:
        schema = self.schema()
        count = np.ones(len(queries), np.int64)
        if values is None:  # reported, not scored: the first few names and the count
            total = len(queries)
            queries = sorted(queries)[:_NAMES]
            count = np.zeros(len(queries), np.int64)
            count[0] = total
        cols = [pa.array([decode_id(q) for q in queries], pa.string()),
                pa.array(np.full(len(queries), status, np.int8)), pa.array(count)]
        for i, m in enumerate(self.measures):
            type_ = schema.field(f"m{i}").type
            if values is None:
                cols.append(pa.nulls(len(queries), type_))
            elif type_ == pa.string():
                cols.append(pa.array([None if v is None else str(v) for v in values[m]], type_))
            else:
                cols.append(pa.array(np.asarray(values[m]), type_))
        return pa.RecordBatch.from_arrays(cols, schema=schema)

    def _score(self, table: pa.Table):
        qrels, run = tables_from_arrow(table, truncate_grades=self.truncate_grades)
        batch, info = build_batch(qrels, run, queries=self.queries, max_docs=self.max_docs,
                                  qrels_max_grade=self.max_grade)
        if batch.nq:
            values = compute_all(batch, self.measures, rel=self.rel, judged_only=self.judged_only)
            yield self._rows(batch.queries, SCORED, values)
        if self.queries == "both" and info.missing_from_run:
            yield self._rows(list(info.missing_from_run), MISSING_FROM_RUN, None)
        if info.only_in_run:
            yield self._rows(list(info.only_in_run), ONLY_IN_RUN, None)

    def __call__(self, batches):
        pending: list[pa.RecordBatch] = []
        size = 0
        for rb in batches:
            if not rb.num_rows:
                continue
            pending.append(rb)  # rows are whole queries: any cut between rows is a chunk boundary
            size += int(pc.sum(rb.column("run_n")).as_py() or 0) + int(pc.sum(rb.column("qrels_n")).as_py() or 0)
            if size >= self.chunk_rows:
                yield from self._score(pa.Table.from_batches(pending))
                pending, size = [], 0
        if pending:
            yield from self._score(pa.Table.from_batches(pending))


def _needs_max_grade(measures: list[Measure], rel: int, judged_only: bool) -> bool:
    """Whether any kernel reads the highest grade of the whole qrels (ERR's default g_max).

    Scores a tiny graded query twice, with two different whole-qrels maxima:
    only kernels that read it can tell the two apart. This spares a pass over
    the qrels when no measure needs it.
    """
    qrels = Qrels(pa.table({"query": pa.array([b"q"] * 4), "doc": pa.array([b"a", b"b", b"c", b"d"]),
                            "rel": pa.array([3, 0, 1, 2], pa.int64())}))
    run = Run(pa.table({"query": pa.array([b"q"] * 5), "doc": pa.array([b"d", b"x", b"a", b"b", b"c"]),
                        "score": pa.array([5.0, 4.0, 3.0, 2.0, 1.0])}))
    seen = []
    try:
        for top in (3, 7):
            batch, _ = build_batch(qrels, run, qrels_max_grade=top)
            seen.append(compute_all(batch, measures, rel=rel, judged_only=judged_only))
    except Exception:  # a kernel the probe does not suit: take the pass over the qrels to be safe
        return True
    return any(not np.array_equal(seen[0][m], seen[1][m]) for m in measures)


def _to_spark(obj, what: str, session, columns: dict | None, truncate_grades: bool = False):
    """A local input (path, dict, pandas/polars frame) as a Spark DataFrame with canonical columns."""
    if what == "qrels":
        table = as_qrels(obj, columns=columns, truncate_grades=truncate_grades).table
    else:
        run = as_run(obj, columns=columns)
        table = run.table
        if run.ranked:  # a ranked list: its order becomes strictly decreasing scores
            table = table.set_column(2, "score", pa.array(-np.arange(table.num_rows, dtype=np.float64)))
    try:
        return session.createDataFrame(table)
    except (TypeError, ValueError):  # Spark < 4 takes pandas, not Arrow
        return session.createDataFrame(table.to_pandas())


def _spark_call(action):
    """Run a Spark action; an error a task raised on purpose comes back as the same rankmeter error."""
    try:
        return action()
    except Exception as exc:  # Spark wraps task errors in its own exception types
        found = _RAISED.findall(str(exc))
        if found:
            kind, message = found[-1]
            raise _ERRORS[kind](message.strip()) from None
        raise


def evaluate(qrels, run, measures, *, queries: str = "both", rel: int = 1, judged_only: bool = False,
             max_docs: int | None = None, ties: str = "trec_eval", truncate_grades: bool = False,
             columns: dict | None = None, partitions: int | None = None,
             chunk_rows: int = 1 << 20) -> "SparkResults":
    """Score a run held in Spark against judgments, on the cluster.

    Parameters
    ----------
    qrels : pyspark.sql.DataFrame, or any local qrels input
        Columns query, doc, rel (integer grades).
    run : pyspark.sql.DataFrame, or any local run input
        Columns query, doc, score. Spark rows have no order, so a score is
        required (:func:`rankmeter.recsys.topk_run` turns top-k lists into scores).
    measures : str, Measure or list of them
        As for :func:`rankmeter.evaluate`.
    queries, rel, judged_only, max_docs, truncate_grades
        As for :func:`rankmeter.evaluate`; the same query policy applies.
    ties : {"trec_eval"}
        Only trec_eval's order (score descending, then docno descending): a
        Spark DataFrame keeps no row order to follow.
    columns : dict, optional
        Role -> column name for the Spark inputs, e.g.
        ``{"query": "user", "doc": "item", "rel": "rating", "score": "prediction"}``.
    partitions : int, optional
        Hash-partition both inputs by query into this many partitions (the
        number of scoring tasks); default: Spark's shuffle partitions,
        coalesced by adaptive execution.
    chunk_rows : int, default 2**20
        Qrels and run rows a task scores at a time (whole queries; bounds a
        task's memory together with ``spark.sql.execution.arrow.maxRecordsPerBatch``,
        the number of queries per Arrow batch).

    Returns
    -------
    SparkResults
        ``results["AP"]`` is the mean; ``results.per_query_spark`` the
        per-query values as a Spark DataFrame; ``results.collect()`` a
        local :class:`~rankmeter.Results`.
    """
    from pyspark.sql import functions as F
    from pyspark.sql.types import ByteType, DoubleType, LongType, StringType, StructField, StructType

    if isinstance(rel, bool) or not isinstance(rel, (int, np.integer)):
        raise ParameterError(f"rel={rel!r}: expected an integer relevance threshold")
    if queries not in QUERY_POLICIES:
        raise ParameterError(f"queries={queries!r}: expected one of {QUERY_POLICIES}")
    if ties != "trec_eval":
        raise ParameterError(f"ties={ties!r}: Spark DataFrames keep no row order, so only ties='trec_eval' "
                             "(score descending, then docno descending) is possible; give ranks as scores")
    if max_docs is not None and (isinstance(max_docs, bool) or not isinstance(max_docs, (int, np.integer))
                                 or max_docs < 0):
        raise ParameterError(f"max_docs={max_docs!r}: expected a non-negative integer")
    if partitions is not None and (not isinstance(partitions, (int, np.integer)) or partitions < 1):
        raise ParameterError(f"partitions={partitions!r}: expected a positive integer")
    names = resolve_measures(measures)
    unique = list(dict.fromkeys(m for _, m in names))

    session = next(f.sparkSession for f in (qrels, run) if is_spark_frame(f))
    qrels_cols = columns if is_spark_frame(qrels) else None
    run_cols = columns if is_spark_frame(run) else None
    qrels_df = qrels if is_spark_frame(qrels) else _to_spark(qrels, "qrels", session, columns, truncate_grades)
    run_df = run if is_spark_frame(run) else _to_spark(run, "run", session, columns)
    grouped = grouped_frame(qrels_df, run_df, qrels_cols, run_cols, partitions)

    max_grade = 0
    if _needs_max_grade(unique, int(rel), judged_only):
        max_grade = _spark_call(lambda: highest_grade(qrels_df, qrels_cols))
    scorer = _Scorer(unique, queries, int(rel), judged_only, max_docs, max_grade, max(int(chunk_rows), 1),
                     truncate_grades=bool(truncate_grades))
    spark_type = {"text": StringType(), "integer": LongType(), "float": DoubleType()}
    schema = StructType([StructField("query", StringType()), StructField("status", ByteType()),
                         StructField("n", LongType())] +
                        [StructField(f"m{i}", spark_type[_kind(m)]) for i, m in enumerate(unique)])
    out = grouped.mapInArrow(scorer, schema)

    # One job: counts, the first names of queries left out, and every mean.
    status = F.col("status")
    aggs = [F.sum(F.when(status == code, F.col("n"))).alias(f"n{code}")
            for code in (SCORED, MISSING_FROM_RUN, ONLY_IN_RUN)]
    aggs.append(F.array_sort(F.collect_list(F.when(status == MISSING_FROM_RUN, F.col("query")))).alias("missing"))
    for i, m in enumerate(unique):
        col = F.col(f"m{i}")
        value = F.when(status == SCORED, col)  # null elsewhere: left out of sums and averages
        if m.family.text:
            continue
        if m.family.aggregate == "sum":
            aggs.append(F.sum(value).alias(f"m{i}"))
        elif m.family.aggregate == "gmean":  # trec_eval's floor of 1e-5 before the log
            logs = F.when(status == SCORED, F.log(F.greatest(col, F.lit(1e-5))))
            aggs.append(F.exp(F.avg(logs)).alias(f"m{i}"))
        else:
            aggs.append(F.avg(value).alias(f"m{i}"))
    row = _spark_call(lambda: out.agg(*aggs).collect()[0]).asDict()
    counts = {"scored": row["n0"] or 0, "missing_from_run": row["n1"] or 0, "only_in_run": row["n2"] or 0}
    means: dict[Measure, Any] = {}
    for i, m in enumerate(unique):
        value = row.get(f"m{i}")
        if m.family.text:
            means[m] = None
        elif value is None:  # no query scored: the local engine's summary of nothing
            means[m] = 0
        else:
            means[m] = int(value) if m.family.integer and m.family.aggregate == "sum" else float(value)
    if queries == "both" and counts["missing_from_run"]:
        n = counts["missing_from_run"]
        names_ = sorted(row["missing"], key=encode_id)[:_NAMES]
        more = f" and {n - len(names_)} more" if n > len(names_) else ""
        warnings.warn(f"{n} judged queries have no results in the run and are left out of the means: "
                      f"{', '.join(names_)}{more} (queries='qrels' scores them as 0)", stacklevel=2)
    return SparkResults(names, unique, means, out.filter(status == SCORED).drop("status", "n"), counts)


class SparkResults(Results):
    """Scores computed on Spark: means on the driver, per-query values in a Spark DataFrame.

    ``results["nDCG@10"]`` is the mean, as for :class:`~rankmeter.Results`.
    ``per_query_spark`` holds one row per scored query (``query`` and one
    column per measure name) and stays on the cluster; :meth:`collect`
    brings it to the driver as a local :class:`~rankmeter.Results`, which
    :attr:`queries`, :meth:`values`, :meth:`to_arrow` and :attr:`per_query`
    do on first use. ``counts`` says how many queries were scored, left out
    because the run lacks them (``queries="both"``) and ranked but not judged.
    """

    def __init__(self, names: list[tuple[str, Measure]], unique: list[Measure], means: dict[Measure, Any],
                 scored, counts: dict[str, int], run_name: str = "<Spark DataFrame>"):
        super().__init__([], names, {m: None for m in unique}, run_name=run_name)
        self._unique = unique
        self._means = means
        self._scored = scored
        self.counts = counts
        self._local: Results | None = None

    @property
    def per_query_spark(self):
        """Per-query values as a Spark DataFrame: ``query`` then one column per measure name."""
        index = {m: i for i, m in enumerate(self._unique)}
        from pyspark.sql import functions as F
        return self._scored.select("query", *(F.col(f"m{index[m]}").alias(label) for label, m in self._names))

    def collect(self) -> Results:
        """The per-query values on the driver, as a local :class:`~rankmeter.Results` (queries in byte order)."""
        if self._local is None:
            frame = self._scored
            table = frame.toArrow() if hasattr(frame, "toArrow") else pa.Table.from_pandas(frame.toPandas())
            queries = [encode_id(q) for q in table.column("query").to_pylist()]
            order = sorted(range(len(queries)), key=queries.__getitem__)
            values = {}
            for i, m in enumerate(self._unique):
                col = table.column(f"m{i}")
                if m.family.text:
                    arr = np.array(col.to_pylist(), dtype=object)
                else:
                    arr = col.to_numpy().astype(np.int64 if m.family.integer else np.float64)
                values[m] = arr[order] if len(order) else arr
            self._local = Results([queries[i] for i in order], self._names, values, run_name=self.run)
        return self._local

    def __getitem__(self, key: str | Measure) -> Any:
        return self._means[self._measure(key)]

    @property
    def mean(self) -> dict[str, Any]:
        return {label: self._means[m] for label, m in self._names}

    @property
    def queries(self) -> list[str]:
        return self.collect().queries

    def values(self, key: str | Measure) -> np.ndarray:
        return self.collect().values(key)

    def to_arrow(self):
        return self.collect().to_arrow()

    def to_dict(self, per_query: bool = False) -> dict[str, Any]:
        out = self.collect().to_dict(per_query=True) if per_query else {"run": self.run}
        out["mean"] = self.mean
        return out

    def __repr__(self) -> str:
        means = ", ".join(f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}" for k, v in self.mean.items())
        return f"SparkResults({self.counts['scored']} queries: {means})"
