"""Evaluate Spark DataFrames on the cluster, with the same kernels as on one machine.

``rankmeter.evaluate(qrels, run, measures)`` lands here when either input is
a Spark DataFrame (or with ``executor="spark"``); the options are evaluate's
(``columns=`` names the Spark columns, ``partitions=`` the scoring tasks).

How the work is split
---------------------
1. Each input is grouped by ``query`` (``collect_list`` of docs and
   scores / grades, combined map-side) and the two are joined on the
   query (full outer hash join): one row per query holds everything the query
   needs, whatever partitions its rows were in. A query on one side only
   keeps its row, so the query policy can see it.
2. ``mapInArrow`` hands each task these rows as Arrow batches. The task
   flattens chunks of them (about ``chunk_rows`` qrels and run rows) into
   the same canonical tables as any DataFrame, builds the same
   :class:`~rankmeter.core.Batch` as the local engine and runs the same
   kernels (:meth:`rankmeter.core.Evaluator.score`). It emits one row per scored
   query, ``query`` and one column per measure, plus a few rows counting
   (and naming) queries left out. A rankmeter error (a doc listed twice, a
   grade that is not an integer) ends the task with one row describing it.
3. Spark aggregates those rows with each family's aggregation object (its
   Spark form of mean, sum or geometric mean), in the same job; an error a
   task reported is raised on the driver as the same rankmeter error. The per-query rows stay a Spark
   DataFrame (:attr:`SparkResults.per_query_spark`, recomputed when used:
   ``.cache()`` it to use it often) until :meth:`SparkResults.collect`
   brings them to the driver.

The qrels-wide statistics the families declare (:mod:`rankmeter.core.needs`,
e.g. ERR's g_max) are computed first, on Spark, and given to every task, so a
query scores exactly as it does locally. Means are
sums in Spark's order, not the local engine's query order: they agree up to
rounding (integer sums exactly).

pyspark is imported only when a Spark DataFrame arrives.
"""
from __future__ import annotations

import json
import warnings
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from rankmeter.core import Evaluator
from rankmeter.core.needs import compute_needs, needs_of
from rankmeter.core.options import Options
from rankmeter.core.resolve import resolve_measures
import rankmeter.errors as rankmeter_errors
from rankmeter.errors import InputError, MissingExtra, ParameterError, RankmeterError
from rankmeter.io import as_qrels, as_run
from rankmeter.io.canonical import decode_id, encode_id
from rankmeter.measures import Measure
from rankmeter.core.results import Results
from rankmeter.io.frames import is_spark_frame
from rankmeter.executors.spark.frames import canonical_qrels, grouped_frame, subtopic_column, tables_from_arrow

__all__ = ["evaluate_on_spark", "SparkResults"]

SCORED, MISSING_FROM_RUN, ONLY_IN_RUN, FAILED = 0, 1, 2, 3
_NAMES = 10  # queries named in the warning about judged queries the run lacks


def error_row(exc: RankmeterError) -> str:
    """A rankmeter error as the text of a task's ``error`` column (JSON): its class and its parts."""
    parts = {"kind": type(exc).__name__}
    if isinstance(exc, InputError):
        parts.update(message=exc.message, source=exc.source, hint=exc.hint, line=exc.line, row=exc.row)
    else:
        parts["message"] = str(exc)
    return json.dumps(parts)


def error_from_row(text: str) -> RankmeterError:
    """The rankmeter error a task reported with :func:`error_row`, rebuilt on the driver."""
    parts = json.loads(text)
    kind = getattr(rankmeter_errors, parts.pop("kind"), None)
    if kind is InputError:
        return InputError(parts.pop("message"), **parts)
    if not (isinstance(kind, type) and issubclass(kind, RankmeterError)) or kind is MissingExtra:
        kind = RankmeterError  # a class rankmeter.errors lacks, or MissingExtra (built from a module name)
    return kind(parts["message"])


class _Scorer:
    """The function each Spark task runs (``mapInArrow``): grouped rows in, per-query rows out.

    Each input row is a whole query (see :func:`~rankmeter.executors.spark.frames.grouped_frame`),
    so the task scores chunks of about ``chunk_rows`` qrels and run rows as
    they come. Scored queries give one row each. Queries left out are only counted,
    with the first ten names (bytewise) of each chunk for the warning: the
    ``n`` column of the first such row holds the chunk's count. A rankmeter
    error (a doc listed twice, a bad grade) ends the task with one ``FAILED``
    row whose ``error`` column describes it (:func:`error_row`): the driver
    raises it, so no error travels as the text of a Spark exception.
    """

    def __init__(self, measures: list[Measure], options: Options, needs: dict, chunk_rows: int):
        self.measures = measures
        self.options = options
        self.needs = needs
        self.chunk_rows = chunk_rows

    def schema(self) -> pa.Schema:
        fields = [pa.field("query", pa.string()), pa.field("status", pa.int8()), pa.field("n", pa.int64()),
                  pa.field("error", pa.string())]
        fields += [pa.field(f"m{i}", getattr(pa, m.family.value_type.arrow_type)())
                   for i, m in enumerate(self.measures)]
        return pa.schema(fields)

    def _rows(self, queries: list[bytes], status: int, values: dict | None = None) -> pa.RecordBatch:
        schema = self.schema()
        count = np.ones(len(queries), np.int64)
        if values is None:  # reported, not scored: the first few names and the count
            total = len(queries)
            queries = sorted(queries)[:_NAMES]
            count = np.zeros(len(queries), np.int64)
            count[0] = total
        rows = len(queries)
        cols = [_text(queries), pa.array(np.full(rows, status, np.int8)), pa.array(count), pa.nulls(rows, pa.string())]
        for i, m in enumerate(self.measures):
            type_ = schema.field(f"m{i}").type
            if values is None:
                cols.append(pa.nulls(rows, type_))
            else:
                cols.append(pa.array([m.family.value_type.python(v) for v in values[m]], type_)
                            if type_ == pa.string() else pa.array(np.asarray(values[m]), type_))
        return pa.RecordBatch.from_arrays(cols, schema=schema)

    def _score(self, table: pa.Table):
        qrels, run = tables_from_arrow(table, grades=self.options.grade_policy)
        evaluator = Evaluator.of(qrels, self.measures, self.options, needs=self.needs)
        part = evaluator.score(run)
        # a task may hold only queries the qrels lack: the driver checks "no query in common" once
        done = evaluator.finish([part], warn=False, check_common=False)
        out = []
        if done.ids:
            out.append(self._rows(done.query_ids(order="bytes"), SCORED,
                                  {m: done.values(m, order="bytes") for m in self.measures}))
        if done.missing:
            out.append(self._rows(list(done.missing), MISSING_FROM_RUN))
        if part.only_in_run:
            out.append(self._rows(list(part.only_in_run), ONLY_IN_RUN))
        return out

    def _chunks(self, batches):
        pending: list[pa.RecordBatch] = []
        size = 0
        for rb in batches:
            if not rb.num_rows:
                continue
            pending.append(rb)  # rows are whole queries: any cut between rows is a chunk boundary
            size += int(pc.sum(rb.column("run_n")).as_py() or 0) + int(pc.sum(rb.column("qrels_n")).as_py() or 0)
            if size >= self.chunk_rows:
                yield pa.Table.from_batches(pending)
                pending, size = [], 0
        if pending:
            yield pa.Table.from_batches(pending)

    def __call__(self, batches):
        try:
            for chunk in self._chunks(batches):
                yield from self._score(chunk)
        except RankmeterError as exc:
            yield self._failure(exc)

    def _failure(self, exc: RankmeterError) -> pa.RecordBatch:
        schema = self.schema()
        cols = [pa.nulls(1, pa.string()), pa.array([FAILED], pa.int8()), pa.array([0], pa.int64()),
                pa.array([error_row(exc)], pa.string())]
        cols += [pa.nulls(1, schema.field(f"m{i}").type) for i in range(len(self.measures))]
        return pa.RecordBatch.from_arrays(cols, schema=schema)


def _text(queries: list[bytes]) -> pa.Array:
    """Query ids as text (UTF-8; any other bytes read as Latin-1, as :func:`decode_id` does)."""
    raw = pa.array(queries, pa.binary())
    try:
        return raw.cast(pa.string())
    except pa.ArrowInvalid:
        return pa.array([decode_id(q) for q in queries], pa.string())


def _to_spark(obj, what: str, session, columns, grades: str = "integer"):
    """A local input (path, dict, pandas/polars frame) as a Spark DataFrame with canonical columns."""
    if what == "qrels":
        table = as_qrels(obj, columns=columns, grades=grades).table
    else:
        run = as_run(obj, columns=columns)
        table = run.table
        if run.ranked:  # a ranked list: its order becomes strictly decreasing scores
            table = table.set_column(2, "score", pa.array(-np.arange(table.num_rows, dtype=np.float64)))
    try:
        return session.createDataFrame(table)
    except (TypeError, ValueError):  # Spark < 4 takes pandas, not Arrow
        return session.createDataFrame(table.to_pandas())


#: qrels and run rows a task scores at a time (whole queries; bounds a task's memory together with
#: ``spark.sql.execution.arrow.maxRecordsPerBatch``, the number of queries per Arrow batch)
CHUNK_ROWS = 1 << 20


def evaluate_on_spark(qrels, run, measures, options: Options) -> "SparkResults":
    """Score a run held in Spark against judgments, on the cluster.

    ``qrels`` and ``run`` are Spark DataFrames (or one of them any local
    input), with columns query, doc, rel / score or the names ``options.columns``
    gives for them. Spark rows have no order, so a score is required
    (:func:`rankmeter.recsys.feedback.topk_run` turns top-k lists into scores) and only
    ``ties="trec_eval"`` is possible. Returns :class:`SparkResults`:
    ``results["AP"]`` is the mean, ``results.per_query_spark`` the per-query
    values as a Spark DataFrame, ``results.collect()`` a local Results.
    """
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    if options.ties != "trec_eval":
        raise ParameterError(f"ties={options.ties!r}: Spark DataFrames keep no row order, so only "
                             "ties='trec_eval' (score descending, then docno descending) is possible; "
                             "give ranks as scores")
    if not (is_spark_frame(qrels) or is_spark_frame(run)):
        raise ParameterError("executor='spark': neither input is a Spark DataFrame")
    names = resolve_measures(measures)
    unique = list(dict.fromkeys(m for _, m in names))
    columns = dict(options.columns) if options.columns else None

    session = next(f.sparkSession for f in (qrels, run) if is_spark_frame(f))
    qrels_cols = columns if is_spark_frame(qrels) else None
    run_cols = columns if is_spark_frame(run) else None
    qrels_df = qrels if is_spark_frame(qrels) else _to_spark(qrels, "qrels", session, columns,
                                                             options.grade_policy)
    run_df = run if is_spark_frame(run) else _to_spark(run, "run", session, columns)
    # diversity qrels keep their subtopics: the diversity families read them, and the ordinary ones read a
    # doc judged under several subtopics once, at its highest grade, as they do locally
    subtopic = subtopic_column(qrels_df, qrels_cols)
    grouped = grouped_frame(qrels_df, run_df, qrels_cols, run_cols, options.partitions, subtopic)

    wanted = needs_of(unique)
    needs = compute_needs(wanted, canonical_qrels(qrels_df, qrels_cols), spark=True) if wanted else {}
    scorer = _Scorer(unique, options, needs, CHUNK_ROWS)
    schema = T.StructType([T.StructField("query", T.StringType()), T.StructField("status", T.ByteType()),
                           T.StructField("n", T.LongType()), T.StructField("error", T.StringType())] +
                          [T.StructField(f"m{i}", getattr(T, m.family.value_type.spark_type)())
                           for i, m in enumerate(unique)])
    out = grouped.mapInArrow(scorer, schema)

    # One job: counts, the first names of queries left out, and every summary.
    status = F.col("status")
    aggs = [F.sum(F.when(status == code, F.col("n"))).alias(f"n{code}")
            for code in (SCORED, MISSING_FROM_RUN, ONLY_IN_RUN)]
    for code, label in ((MISSING_FROM_RUN, "missing"), (ONLY_IN_RUN, "only")):
        aggs.append(F.array_sort(F.collect_list(F.when(status == code, F.col("query")))).alias(label))
    # the least error: the same one whichever task fails first
    aggs.append(F.min(F.when(status == FAILED, F.col("error"))).alias("error"))
    for i, m in enumerate(unique):
        column = m.family.aggregation.spark_column(F, F.col(f"m{i}"), status == SCORED)
        if column is not None:
            aggs.append(column.alias(f"m{i}"))
    row = out.agg(*aggs).collect()[0].asDict()
    if row["error"] is not None:
        raise error_from_row(row["error"])
    counts = {"scored": row["n0"] or 0, "missing_from_run": row["n1"] or 0, "only_in_run": row["n2"] or 0}
    if counts["scored"] == 0 and counts["only_in_run"]:
        only = sorted(row["only"], key=encode_id)[:_NAMES]
        raise InputError(f"no query of the run is judged in the qrels: the run has {', '.join(only)} ...; "
                         "check that both use the same query ids", source="<Spark DataFrame>")
    means = {m: m.family.aggregation.finish_spark(row.get(f"m{i}"), m.family.value_type)
             for i, m in enumerate(unique)}
    if options.queries == "both" and counts["missing_from_run"]:
        n = counts["missing_from_run"]
        names_ = sorted(row["missing"], key=encode_id)[:_NAMES]
        more = f" and {n - len(names_)} more" if n > len(names_) else ""
        warnings.warn(f"{n} judged queries have no results in the run and are left out of the means: "
                      f"{', '.join(names_)}{more} (queries='qrels' scores them as 0)", stacklevel=3)
    return SparkResults(names, unique, means, out, counts)


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
                 rows, counts: dict[str, int], run_name: str = "<Spark DataFrame>"):
        super().__init__([], names, {m: None for m in unique}, run_name=run_name)
        self._unique = unique
        self._means = means
        self._task_rows = rows  # every row the tasks emit; the scored ones are the per-query values
        self.counts = counts
        self._local: Results | None = None

    @property
    def per_query_spark(self):
        """Per-query values as a Spark DataFrame: ``query`` then one column per measure name."""
        index = {m: i for i, m in enumerate(self._unique)}
        from pyspark.sql import functions as F
        return self._scored().select("query", *(F.col(f"m{index[m]}").alias(label) for label, m in self._names))

    def _scored(self):
        # built on first use: each DataFrame operation is a round trip to the JVM for the driver
        from pyspark.sql import functions as F
        return self._task_rows.filter(F.col("status") == SCORED).drop("status", "n", "error")

    def collect(self) -> Results:
        """The per-query values on the driver, as a local :class:`~rankmeter.Results` (queries in byte order)."""
        if self._local is None:
            frame = self._scored()
            table = frame.toArrow() if hasattr(frame, "toArrow") else pa.Table.from_pandas(frame.toPandas())
            queries = table.column("query").cast(pa.binary())  # the bytes encode_id gives
            order = pc.sort_indices(queries)  # bytewise
            values = {m: m.family.value_type.array(table.column(f"m{i}").take(order).to_numpy(zero_copy_only=False))
                      for i, m in enumerate(self._unique)}
            self._local = Results(queries.take(order), self._names, values, run_name=self.run)
        return self._local

    def __getitem__(self, key: str | Measure) -> Any:
        return self._means[self._measure(key)]

    @property
    def mean(self) -> dict[str, Any]:
        return {label: self._means[m] for label, m in self._names}

    @property
    def queries(self) -> list[str]:
        return self.collect().queries

    @property
    def ids(self) -> list[bytes]:
        return self.collect().ids

    def query_ids(self, *, order: str = "natural") -> list[bytes]:
        return self.collect().query_ids(order=order)

    def values(self, key: str | Measure, *, order: str = "natural") -> np.ndarray:
        return self.collect().values(key, order=order)

    def to_arrow(self):
        return self.collect().to_arrow()

    def to_dict(self, per_query: bool = False) -> dict[str, Any]:
        out = self.collect().to_dict(per_query=True) if per_query else {"run": self.run}
        out["mean"] = self.mean
        return out

    def __repr__(self) -> str:
        means = ", ".join(f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}" for k, v in self.mean.items())
        return f"SparkResults({self.counts['scored']} queries: {means})"
