"""The Python API's entry point :func:`evaluate`: options checked, then an executor runs the Evaluator."""
from __future__ import annotations

from typing import Any

from rankmeter.core import Evaluator, validate_options
from rankmeter.core.results import Results
from rankmeter.types import MeasuresLike, QrelsLike, RunLike

_GLOB = set("*?[")


def _a_run(value) -> bool:
    """Whether a dict value is a whole run (so the dict names several runs), not a query's results."""
    import os
    from collections.abc import Mapping

    from rankmeter.io.canonical import Run
    from rankmeter.io.frames import is_frame
    from rankmeter.core.naming import looks_like_one_run
    if isinstance(value, Run) or is_frame(value):
        return True
    if isinstance(value, (str, os.PathLike)):
        return os.path.exists(value) or os.fsdecode(value) == "-" or os.fsdecode(value).startswith("irds:")
    return isinstance(value, Mapping) and bool(value) and looks_like_one_run(value)


def _several_runs(run):
    """Several runs (a dict name -> run, a list of runs, or a glob such as "runs/*.txt"), else None."""
    import glob
    import os
    from collections.abc import Mapping

    from rankmeter.core.naming import looks_like_one_run
    if isinstance(run, (str, os.PathLike)) and _GLOB & set(os.fsdecode(run)) and not os.path.exists(run):
        paths = sorted(glob.glob(os.fsdecode(run)))
        if not paths:
            from rankmeter.errors import InputError
            raise InputError("no file matches this pattern; check the path", source=os.fsdecode(run))
        return paths
    if isinstance(run, Mapping) and run and not looks_like_one_run(run) and all(map(_a_run, run.values())):
        return run
    if isinstance(run, (list, tuple)) and run:
        return list(run)
    return None

__all__ = ["evaluate", "Results"]


def _has_columns(obj) -> bool:
    """Whether ``columns=`` can apply to ``obj``: a file (path, file object) or a table, not a dict or a Run."""
    import os

    from rankmeter.io.frames import is_frame
    from rankmeter.executors.spark import is_spark_frame
    return isinstance(obj, (str, bytes, os.PathLike)) or hasattr(obj, "read") or is_frame(obj) or \
        is_spark_frame(obj)


def _columns_apply(columns, qrels, runs) -> None:
    """Refuse ``columns=`` when no input has columns (dicts, Qrels and Run objects): never ignored."""
    if columns and not any(map(_has_columns, [qrels, *runs])):
        from rankmeter.errors import ParameterError
        raise ParameterError(f"columns={dict(columns)!r}: no input has columns to choose from (dicts and objects "
                             "already read have none); columns= is for files and tables: drop it, or pass the "
                             "file or DataFrame")


def evaluate(qrels: QrelsLike, run: RunLike, measures: MeasuresLike, **options: Any) -> Results:
    """Score a run against judgments.

    Parameters
    ----------
    qrels : path, Qrels, dict or DataFrame
        Judgments: a TREC qrels file, ``{query: {doc: grade}}``, or a frame with
        columns query, doc, rel.
    run : path, Run, dict or DataFrame, or several of them
        Results: a run file (any input format), ``{query: {doc: score}}``, ``{query: [doc, ...]}``
        (ranked, no scores), or a frame with columns query, doc, score. Several runs
        (``{"bm25": path, "dense": frame}``, a list, or a glob such as ``"runs/*.txt"``)
        give a :class:`~rankmeter.core.results.RunsResults`: one table, the qrels prepared once.
    measures : str, Measure or list of them
        Canonical names (``"AP"``, ``"nDCG@10"``, ``"P(rel=2)@5"``) or trec_eval
        names (``"map"``, ``"ndcg_cut.10"``, ``"P.5,10"``).
    queries : {"both", "qrels"}, default "both"
        Which queries are averaged: those in both inputs (a warning lists judged
        queries the run lacks), or every qrels query (trec_eval ``-c``).
    rel : int or float, default 1
        Relevance threshold for measures that do not set their own ``rel``
        (grades ``>= rel`` are relevant; a fraction such as 0.5 for real grades).
    judged_only : bool, default False
        Drop unjudged docs from rankings before scoring (trec_eval ``-J``).
    max_docs : int, optional
        Score only the first ``max_docs`` docs of each ranking (trec_eval ``-M``).
    ties : {"trec_eval", "input", "average", "best", "worst"}, default "trec_eval"
        Docs with equal scores: docno descending (trec_eval), as given, the
        exact expected value over all their orders, or relevant first / last
        (see docs/ties.md and :func:`rankmeter.tie_report`).
    columns : dict, optional
        Which columns hold what, when the names are not query, doc, rel / score:
        names for tables and files with a header line (``{"query": "user",
        "doc": "item", "score": "prediction"}``), positions counted from 0 for
        files without one. A ``rank`` column orders each query's docs ascending
        (rank 1 first): MS MARCO's ``qid pid rank`` is ``{"query": 0, "doc": 1,
        "rank": 2}``. rel/subtopic are the qrels' roles, score/rank the runs';
        a role that no input can use is an error (:mod:`rankmeter.io.columns`).
    grades : {"integer", "truncate", "real"}, default "integer"
        How the qrels' grades are read: integers only (a grade such as 1.7 is
        an error naming the file and line), truncated toward zero as trec_eval's
        ``atol`` does, or real numbers (LLM and crowd judgments such as 0.73 or
        2.5: gain measures use them as they are, binary ones count grades
        ``>= rel``; trec_eval's level-table measures G, nDCGRel, RnDCG and
        relstring, and gain maps keyed by integer grades, are refused).
    truncate_grades : bool, default False
        The same as ``grades="truncate"``.
    executor : {"auto", "memory", "streamed", "spark"}, default "auto"
        ``auto``: Spark when an input is a Spark DataFrame; a plain TREC run file of 1 GiB or more
        streamed (measured: faster and bounded past that size); else in memory.
        ``streamed``: read a run file in blocks of whole queries (bounded
        memory; the file must be grouped by query). The values are the same.
    threads, chunk_bytes, progress, partitions
        Executor settings: parts scored at once, bytes read at a time
        (streamed), a progress bar on stderr, Spark partitions.

    Returns
    -------
    Results

    Examples
    --------
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 1}}
    >>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.7}}
    >>> r = evaluate(qrels, run, ["AP", "P@2", "RR"])
    >>> round(r["AP"], 4), r["P@2"], r["RR"]
    (0.8333, 0.5, 1.0)
    """
    opts = validate_options(**options)
    several = _several_runs(run)
    _columns_apply(opts.columns, qrels, [run] if several is None else
                   list(several.values()) if hasattr(several, "values") else several)
    if several is not None:  # one qrels, several runs: prepared once, one table
        from rankmeter.core.naming import name_runs
        from rankmeter.core.results import RunsResults
        evaluator = Evaluator(qrels, measures, options=opts)
        named = name_runs(several, columns=opts.columns, format=opts.input_format)
        return RunsResults([(name, evaluator.evaluate(r)) for name, r in named])
    from rankmeter.executors import evaluate_run
    return evaluate_run(qrels, run, measures, opts)
