"""Recommender-shaped inputs: implicit feedback, top-k lists, and which users count.

A recommender's truth is usually implicit feedback: the items each user
interacted with, all equally relevant. Its output is a top-k list per user.
These helpers turn both into the qrels and runs every rankmeter function
takes (grade 1 for each interacted item; scores that keep each list's
order), cut lists to k, and say which users were scored.

Users on one side only
----------------------
* A user with truth but no predictions failed to get recommendations. With
  ``queries="both"`` (the default) the user is left out of the means and a
  warning names them; with ``queries="qrels"`` the user counts, with an
  empty list (every measure 0). Nothing is dropped without a word.
* A user with predictions but no truth has nothing to find: no measure is
  defined, so the user is left out under both policies.
  :func:`evaluate` warns with the count; :func:`coverage` gives the numbers.

Microsoft Recommenders (``python_evaluation.merge_ranking_true_pred``) keeps
only the users present in both the truth and the predictions and divides by
their number, so users the model gave no recommendations silently vanish and
the means go up. MLlib's ``RankingMetrics`` needs the (predictions, truth)
pairs joined by the caller: an inner join drops the same users without a
word, while a user with predictions but empty truth counts as 0.

Spark DataFrames stay Spark DataFrames: every helper here returns one when
given one, and :func:`evaluate` then scores on the cluster.
"""
from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from rankmeter.core.params import PARAMS
from rankmeter.engine.param import validate_params
from rankmeter.errors import InputError, ParameterError
from rankmeter.io import as_qrels, as_run
from rankmeter.io.frames import is_frame
from rankmeter.core.build import query_starts, ranked_rows
from rankmeter.io.frames import is_spark_frame
from rankmeter.io.recommender import implicit_qrels, topk_rows
from rankmeter.io.canonical import Run, decode_id

__all__ = ["implicit_qrels", "topk_run", "truncate", "coverage", "Coverage", "evaluate"]


@validate_params(PARAMS["k"])
def topk_run(predictions, *, user: str = "user", item: str = "item", score: str | None = None,
             items: str | None = None, k: int | None = None):
    """Top-k lists as a run: each list's order becomes scores (first item highest).

    Parameters
    ----------
    predictions : dict, DataFrame or Spark DataFrame
        ``{user: [item, ...]}`` best first; or a frame of (user, item, score)
        rows (``score`` names the score column); or a frame of (user, list)
        rows (``items`` names the list column; lists of structs such as
        ALS's ``recommendForAllUsers`` output take the field ``item``, else
        their first field).
    user, item : str
        Column names.
    score : str, optional
        Score column of a frame of rows.
    items : str, optional
        List column of a frame of lists.
    k : int, optional
        Keep each user's first ``k`` items (:func:`truncate`).

    Returns
    -------
    Run, or a Spark DataFrame with columns query, doc, score for a Spark input.

    Examples
    --------
    >>> run = topk_run({"u1": ["i2", "i1", "i9"]}, k=2)
    >>> run.table.column("doc").to_pylist(), run.table.column("score").to_pylist()
    ([b'i2', b'i1'], [0.0, -1.0])
    """
    rows = topk_rows(predictions, user=user, item=item, score=score, items=items)
    return rows if k is None else truncate(rows, k)


def _spark_truncate(run, k: int):
    """truncate() on Spark: rows of a query meet in one partition, ordered there by the engine's own rule."""
    import pyspark.sql.types as T

    for name in ("query", "doc", "score"):
        if name not in run.columns:
            raise InputError(f"no column {name!r} (columns: {', '.join(run.columns)}); "
                             "topk_run(...) gives query, doc, score", source="<Spark run DataFrame>")
    schema = run.select("query", "doc", "score").schema
    kinds = {f.name: f.dataType for f in schema.fields}
    if not isinstance(kinds["score"], T.NumericType):
        raise InputError("the score column must be numeric", source="<Spark run DataFrame>")

    def cut(batches):
        tables = [pa.Table.from_batches([b]) for b in batches if b.num_rows]
        if not tables:
            return
        table = pa.concat_tables(tables)
        canonical = Run(pa.table({"query": table.column("query").cast(pa.binary()),
                                  "doc": table.column("doc").cast(pa.binary()),
                                  "score": table.column("score").cast(pa.float64())}))
        keep = _first_k(canonical, k)
        yield from table.take(pa.array(keep)).to_batches()

    return run.select("query", "doc", "score").repartition("query").mapInArrow(cut, schema)


def _first_k(run: Run, k: int) -> np.ndarray:
    """Rows of each query's first ``k`` in rank order, in the input's row order."""
    order = ranked_rows(run)
    query = run.table.column("query").take(pa.array(order))
    starts = query_starts(query)
    counts = np.diff(np.append(starts, len(order)))
    position = np.arange(len(order)) - np.repeat(starts, counts)
    keep = order[position < k]
    keep.sort()  # back to the input's row order: line numbers in messages stay meaningful
    return keep


@validate_params(PARAMS["k"])
def truncate(run, k: int):
    """Each query's (user's) first ``k`` docs, in the order the engine ranks them.

    The order is the engine's (trec_eval's): score descending, then doc id
    descending (bytewise); a ranked run without scores keeps its given order.
    ``evaluate(..., max_docs=k)`` gives the same scores without building
    the truncated run; this helper is for when the run itself is wanted.

    Parameters
    ----------
    run : Run, dict, DataFrame or Spark DataFrame
        Any run input (a Spark DataFrame needs columns query, doc, score).
    k : int

    Returns
    -------
    Run, or a Spark DataFrame for a Spark input.

    Examples
    --------
    >>> truncate({"q": {"a": 1.0, "b": 3.0, "c": 3.0}}, 1).table.column("doc").to_pylist()
    [b'c']

    The rows kept stay in their input order.
    """
    if is_spark_frame(run):
        return _spark_truncate(run, k)
    run = as_run(run)
    keep = _first_k(run, k)
    lines = None if run.lines is None else run.lines[keep]
    return Run(run.table.take(pa.array(keep)), run.source, lines, origin=run.origin, tag=run.tag, ranked=run.ranked)


# ------------------------------------------------------------------ who counts
@dataclass(frozen=True)
class Coverage:
    """Users on each side: with both truth and predictions, truth only, predictions only.

    ``truth_only`` and ``predictions_only`` list up to ten ids each.
    """

    both: int
    truth_only_count: int
    predictions_only_count: int
    truth_only: tuple[str, ...]
    predictions_only: tuple[str, ...]

    def __str__(self) -> str:
        return (f"{self.both} users with truth and predictions, {self.truth_only_count} with truth only, "
                f"{self.predictions_only_count} with predictions only")


def coverage(truth, predictions) -> Coverage:
    """Count the users on each side (local inputs, in any shape :func:`evaluate` takes).

    Examples
    --------
    >>> print(coverage({"u1": {"i": 1}, "u2": {"i": 1}}, {"u1": ["i"], "u3": ["i"]}))
    1 users with truth and predictions, 1 with truth only, 1 with predictions only
    """
    truth, predictions = _shaped(truth, predictions)
    q = pc.unique(as_qrels(truth).table.column("query"))
    r = pc.unique(as_run(predictions).table.column("query"))
    q_only = q.filter(pc.invert(pc.is_in(q, value_set=r)))
    r_only = r.filter(pc.invert(pc.is_in(r, value_set=q)))
    first = lambda arr: tuple(decode_id(x) for x in sorted(arr.to_pylist())[:10])  # noqa: E731
    return Coverage(len(q) - len(q_only), len(q_only), len(r_only), first(q_only), first(r_only))


@validate_params(PARAMS["k"])
def evaluate(truth, predictions, measures, *, k: int | None = None, **options):
    """Score top-k recommendations against implicit (or graded) truth.

    Parameters
    ----------
    truth : dict, DataFrame, Qrels or Spark DataFrame
        ``{user: [item, ...]}`` or a frame of (user, item) rows is implicit
        feedback (grade 1, :func:`implicit_qrels`); Qrels, ``{user: {item:
        grade}}`` and frames with a ``rel`` column are taken as they are.
    predictions : dict, DataFrame, Run or Spark DataFrame
        ``{user: [item, ...]}`` best first, or any run input.
    measures : str or list
        E.g. ``["P@10", "R@10", "nDCG@10", "AP", "RR"]``.
    k : int, optional
        Cut every list to its first ``k`` items first (``max_docs=k``).
    queries : {"both", "qrels"}
        ``"both"``: users with truth and predictions (users with truth only
        are named in a warning). ``"qrels"``: every user with truth; one
        without predictions scores 0. Users with predictions only never
        count and are reported in a warning.
    **options
        The evaluation options of :func:`rankmeter.evaluate` (``queries``,
        ``rel``, ``judged_only``, ``max_docs``, ``columns``, ...).

    Returns
    -------
    Results (SparkResults for Spark inputs).

    Examples
    --------
    >>> truth = {"u1": ["a", "b"], "u2": ["c"]}
    >>> recs = {"u1": ["a", "x", "b"], "u2": ["y", "c"], "u3": ["a"]}
    >>> import warnings
    >>> with warnings.catch_warnings(record=True):
    ...     r = evaluate(truth, recs, ["P@2", "RR"], k=2)
    >>> r["P@2"], r["RR"]
    (0.5, 0.75)
    """
    from rankmeter.core.options import validate_options
    from rankmeter.executors import evaluate_run

    if k is not None:
        options["max_docs"] = k
    truth, predictions = _shaped(truth, predictions)
    spark = is_spark_frame(truth) or is_spark_frame(predictions)
    if not spark:
        truth, predictions = as_qrels(truth), as_run(predictions)
        cov = coverage(truth, predictions)
    results = evaluate_run(truth, predictions, measures, validate_options(**options))
    n_only = results.counts["only_in_run"] if spark else cov.predictions_only_count
    if n_only:
        named = "" if spark else ": " + ", ".join(cov.predictions_only) + (" ..." if n_only > 10 else "")
        warnings.warn(f"{n_only} users have predictions but no truth and are left out (nothing to find)"
                      f"{named}", stacklevel=2)
    return results


def _shaped(truth, predictions):
    """Interactions as implicit qrels and {user: [items]} as a scored run; anything else as given."""
    if _is_implicit(truth):
        truth = implicit_qrels(truth)
    if isinstance(predictions, Mapping) and predictions and all(
            not isinstance(v, Mapping) for v in predictions.values()):
        predictions = topk_run(predictions)
    return truth, predictions


def _is_implicit(truth) -> bool:
    """Interactions rather than judgments: {user: [items]} or a frame without a rel column."""
    if isinstance(truth, Mapping):
        return bool(truth) and all(not isinstance(v, Mapping) for v in truth.values())
    if is_spark_frame(truth):
        return "rel" not in truth.columns and {"user", "item"} <= set(truth.columns)
    if is_frame(truth):
        names = [str(c) for c in (getattr(truth, "column_names", None) or getattr(truth, "columns", []))]
        return "rel" not in names and {"user", "item"} <= set(names)
    return False
