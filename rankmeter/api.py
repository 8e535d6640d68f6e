"""The Python API's entry points: :func:`evaluate` scores one run, :func:`evaluate_runs` several.

Each returns one type whatever it is given: :func:`evaluate` a :class:`~rankmeter.core.results.Results`,
:func:`evaluate_runs` a :class:`~rankmeter.core.results.RunsResults`. Several runs given to
:func:`evaluate` (a dict of runs, a list, a glob) are an error that names :func:`evaluate_runs`, never a
table of another type: ``results["AP"]`` is always a mean.

The evaluation options are explicit keyword-only parameters, checked against the one table of options
(:data:`rankmeter.core.options.OPTIONS`, which the tests hold them to); a misspelt one is a
:class:`~rankmeter.errors.ParameterError` with a suggestion (``relevance_level=2``: did you mean rel?),
as everywhere else in rankmeter.
"""
from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from typing import Literal, ParamSpec, TypeVar

from rankmeter.core import Evaluator, validate_options
from rankmeter.core.options import OPTIONS, Options
from rankmeter.core.results import Results, RunsResults
from rankmeter.errors import InputError, ParameterError
from rankmeter.types import Columns, Intents, MeasuresLike, QrelsLike, RunLike, RunsLike

__all__ = ["evaluate", "evaluate_runs", "Results", "RunsResults"]

_P = ParamSpec("_P")
_R = TypeVar("_R")
_GLOB = set("*?[")


def _evaluation_options(func: Callable[_P, _R]) -> Callable[_P, _R]:
    """Answer a misspelt option as the other entry points do.

    Python's own ``TypeError: unexpected keyword argument`` would not say ``did you mean rel?``;
    :func:`~rankmeter.core.options.validate_options` does, for every entry point, with one message.
    """
    known = set(inspect.signature(func).parameters)

    @functools.wraps(func)
    def checked(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        unknown = kwargs.keys() - known
        if unknown:
            validate_options(**{name: kwargs[name] for name in unknown})  # raises, naming the closest option
        return func(*args, **kwargs)
    return checked


def _options(given: Mapping[str, object]) -> Options:
    """The evaluation options among a function's arguments (its ``locals()``), validated in one pass."""
    return validate_options(**{name: given[name] for name in OPTIONS if name in given})


def _a_run(value) -> bool:
    """Whether a dict value is a whole run (so the dict names several runs), not a query's results."""
    import os

    from rankmeter.core.naming import looks_like_one_run
    from rankmeter.io.canonical import Run
    from rankmeter.io.frames import is_frame
    if isinstance(value, Run) or is_frame(value):
        return True
    if isinstance(value, (str, os.PathLike)):
        return os.path.exists(value) or os.fsdecode(value) == "-" or os.fsdecode(value).startswith("irds:")
    return isinstance(value, Mapping) and bool(value) and looks_like_one_run(value)


def _pattern(run) -> str | None:
    """``run`` when it is a glob pattern such as ``"runs/*.txt"`` (and no file of that very name exists)."""
    import os
    if isinstance(run, (str, os.PathLike)) and _GLOB & set(os.fsdecode(run)) and not os.path.exists(run):
        return os.fsdecode(run)
    return None


def _expand(pattern: str) -> list[str]:
    import glob
    paths = sorted(glob.glob(pattern))
    if not paths:
        raise InputError("no file matches this pattern; check the path", source=pattern)
    return paths


def _several(run) -> str | None:
    """What ``run`` is when it holds several runs (for the message that sends it to evaluate_runs), else None."""
    from rankmeter.core.naming import looks_like_one_run
    pattern = _pattern(run)
    if pattern is not None:
        return f"the pattern {pattern!r}, {len(_expand(pattern))} file(s)"
    if isinstance(run, Mapping) and run and not looks_like_one_run(run) and all(map(_a_run, run.values())):
        names = ", ".join(map(repr, list(run)[:3])) + (", ..." if len(run) > 3 else "")
        return f"a dict of {len(run)} runs ({names})"
    if isinstance(run, (list, tuple)):
        return f"a {type(run).__name__} of {len(run)} run{'' if len(run) == 1 else 's'}"
    return None


def _has_columns(obj) -> bool:
    """Whether ``columns=`` can apply to ``obj``: a file (path, file object) or a table, not a dict or a Run."""
    import os

    from rankmeter.executors.spark import is_spark_frame
    from rankmeter.io.frames import is_frame
    return isinstance(obj, (str, bytes, os.PathLike)) or hasattr(obj, "read") or is_frame(obj) or \
        is_spark_frame(obj)


def _columns_apply(columns, qrels, runs) -> None:
    """Refuse ``columns=`` when no input has columns (dicts, Qrels and Run objects): never ignored."""
    if columns and not any(map(_has_columns, [qrels, *runs])):
        raise ParameterError(f"columns={dict(columns)!r}: no input has columns to choose from (dicts and objects "
                             "already read have none); columns= is for files and tables: drop it, or pass the "
                             "file or DataFrame")


@_evaluation_options
def evaluate(qrels: QrelsLike, run: RunLike, measures: MeasuresLike, *,
             queries: Literal["both", "qrels"] = "both",
             rel: float = 1,
             judged_only: bool = False,
             max_docs: int | None = None,
             ties: Literal["trec_eval", "input", "average", "best", "worst"] = "trec_eval",
             positive_scores_only: bool = False,
             ignore_self: bool = False,
             grades: Literal["integer", "truncate", "real"] = "integer",
             truncate_grades: bool = False,
             columns: Columns | None = None,
             intents: Intents | None = None,
             input_format: Literal["auto", "trec", "csv", "tsv", "parquet", "jsonl"] = "auto",
             executor: Literal["auto", "memory", "streamed", "spark"] = "auto",
             threads: int | None = None,
             chunk_bytes: int | None = None,
             progress: bool | None = None,
             partitions: int | None = None) -> Results:
    """Score one run against judgments.

    Parameters
    ----------
    qrels : path, Qrels, dict or DataFrame
        Judgments: a TREC qrels file, ``{query: {doc: grade}}``, or a frame with
        columns query, doc, rel.
    run : path, Run, dict or DataFrame
        One run: a run file (any input format), ``{query: {doc: score}}``, ``{query: [doc, ...]}``
        (ranked, no scores), or a frame with columns query, doc, score. Several runs
        (``{"bm25": path, "dense": frame}``, a list, or a glob such as ``"runs/*.txt"``) go to
        :func:`evaluate_runs`; given here they are a :class:`~rankmeter.errors.ParameterError`.
    measures : str, Measure or list of them
        Canonical names (``"AP"``, ``"nDCG@10"``, ``"P(rel=2)@5"``) or trec_eval
        names (``"map"``, ``"ndcg_cut.10"``, ``"P.5,10"``).
    queries : {"both", "qrels"}, default "both"
        Which queries are averaged: those in both inputs (a warning lists judged
        queries the run lacks), or every qrels query, a missing one scoring as an
        empty ranking (trec_eval ``-c``).
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
    positive_scores_only : bool, default False
        Rank only docs with a score above 0: zero and negative predictions are no
        prediction (TorchMetrics' retrieval convention).
    ignore_self : bool, default False
        Drop every doc whose id equals the query id before scoring (BEIR's
        ``ignore_identical_ids``: a corpus that holds the queries); a query left
        empty scores as an empty ranking.
    grades : {"integer", "truncate", "real"}, default "integer"
        How the qrels' grades are read: integers only (a grade such as 1.7 is
        an error naming the file and line), truncated toward zero as trec_eval's
        ``atol`` does, or real numbers (LLM and crowd judgments such as 0.73 or
        2.5: gain measures use them as they are, binary ones count grades
        ``>= rel``; trec_eval's level-table measures G, nDCGRel, RnDCG and
        relstring, and gain maps keyed by integer grades, are refused).
    truncate_grades : bool, default False
        The same as ``grades="truncate"``.
    columns : dict, optional
        Which columns hold what, when the names are not query, doc, rel / score:
        names for tables and files with a header line (``{"query": "user",
        "doc": "item", "score": "prediction"}``), positions counted from 0 for
        files without one. A ``rank`` column orders each query's docs ascending
        (rank 1 first): MS MARCO's ``qid pid rank`` is ``{"query": 0, "doc": 1,
        "rank": 2}``. rel/subtopic are the qrels' roles, score/rank the runs';
        a role that no input can use is an error (:mod:`rankmeter.io.columns`).
    intents : dict, optional
        Diversity measures: ``{query: {subtopic: probability}}`` (default: the
        subtopics of a query are equally likely).
    input_format : {"auto", "trec", "csv", "tsv", "parquet", "jsonl"}, default "auto"
        Format of input files: by content, then extension, or the one named.
    executor : {"auto", "memory", "streamed", "spark"}, default "auto"
        ``auto``: Spark when an input is a Spark DataFrame; a plain TREC run file of 1 GiB or more
        streamed (faster and in bounded memory past that size); else in memory
        (:func:`evaluate_runs` scores every run in memory: ``auto`` or ``memory``).
        ``streamed``: read a run file in blocks of whole queries (bounded
        memory; the file must be grouped by query). The values are the same.
    threads : int, optional
        Parts of a large run scored at once (default: 2, or 1 on a one-core machine).
    chunk_bytes : int, optional
        Streamed executor: bytes of the file read at a time (default 8 MiB).
    progress : bool, optional
        A progress bar on stderr (default: when stderr is a terminal).
    partitions : int, optional
        Spark: hash-partition both inputs by query into this many partitions.

    Returns
    -------
    Results
        ``results["AP"]`` is the mean, ``results.values("AP")`` the per-query values.

    Raises
    ------
    ParameterError
        An option out of its range, a misspelt one, or several runs given as ``run``.
    InputError
        A file or table that cannot be read, naming where.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 1}}
    >>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.7}}
    >>> r = evaluate(qrels, run, ["AP", "P@2", "RR"])
    >>> round(r["AP"], 4), r["P@2"], r["RR"]
    (0.8333, 0.5, 1.0)
    """
    opts = _options(locals())
    several = _several(run)
    if several is not None:
        raise ParameterError(f"run: {several}; evaluate scores one run and returns its Results. Score several "
                             "against one qrels with rankmeter.evaluate_runs(qrels, runs, measures), which returns "
                             "a RunsResults (one table; the qrels prepared once)")
    _columns_apply(opts.columns, qrels, [run])
    from rankmeter.executors import evaluate_run
    return evaluate_run(qrels, run, measures, opts)


@_evaluation_options
def evaluate_runs(qrels: QrelsLike, runs: RunsLike, measures: MeasuresLike, *,
                  queries: Literal["both", "qrels"] = "both",
                  rel: float = 1,
                  judged_only: bool = False,
                  max_docs: int | None = None,
                  ties: Literal["trec_eval", "input", "average", "best", "worst"] = "trec_eval",
                  positive_scores_only: bool = False,
                  ignore_self: bool = False,
                  grades: Literal["integer", "truncate", "real"] = "integer",
                  truncate_grades: bool = False,
                  columns: Columns | None = None,
                  intents: Intents | None = None,
                  input_format: Literal["auto", "trec", "csv", "tsv", "parquet", "jsonl"] = "auto",
                  executor: Literal["auto", "memory", "streamed", "spark"] = "auto",
                  threads: int | None = None,
                  chunk_bytes: int | None = None,
                  progress: bool | None = None,
                  partitions: int | None = None) -> RunsResults:
    """Score several runs against one qrels: one table, the qrels read and prepared once.

    Parameters
    ----------
    qrels : path, Qrels, dict or DataFrame
        Judgments, as for :func:`evaluate`.
    runs : dict, list or glob pattern
        ``{name: run}`` (named by its keys), a list of runs (paths, dicts, frames, :class:`Run`
        objects: named by run tag, else file name, by the rule of
        :func:`rankmeter.core.naming.name_runs` that compare and report share), or a glob such as
        ``"runs/*.txt"`` (the matching files in sorted order). One run gives a table of one row.
    measures : str, Measure or list of them
        As for :func:`evaluate`.
    queries, rel, judged_only, max_docs, ties, positive_scores_only, ignore_self, grades, truncate_grades
        The evaluation options, as for :func:`evaluate`, the same for every run.
    columns, intents, input_format, executor, threads, chunk_bytes, progress, partitions
        As for :func:`evaluate`; ``executor`` is ``"auto"`` or ``"memory"``: every run is scored in memory.

    Returns
    -------
    RunsResults
        ``table`` (pandas: one row per run, one column per measure), ``per_query`` (run, query,
        measure, value), ``results["bm25"]`` one run's :class:`Results`, ``runs`` the names.

    Raises
    ------
    ParameterError
        An option out of its range or misspelt; ``executor="streamed"`` or ``"spark"`` (each run is
        scored in memory here: call :func:`evaluate` on each run for those).
    InputError
        A file or table that cannot be read, naming where; a glob that matches no file.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 1, "d2": 1}}
    >>> table = evaluate_runs(qrels, {"bm25": {"q1": ["d1", "x", "d2"]}, "dense": {"q1": ["d2", "d1"]}}, "AP")
    >>> table.runs, [round(table[name]["AP"], 4) for name in table.runs]
    (['bm25', 'dense'], [0.8333, 1.0])
    """
    opts = _options(locals())
    if opts.executor in ("streamed", "spark"):
        raise ParameterError(f"executor={opts.executor!r}: evaluate_runs scores each run in memory; for the "
                             f"{opts.executor} executor call rankmeter.evaluate(qrels, run, measures, "
                             f"executor={opts.executor!r}) on each run")
    pattern = _pattern(runs)
    given = _expand(pattern) if pattern is not None else runs
    items = list(given.values()) if isinstance(given, Mapping) else \
        list(given) if isinstance(given, (list, tuple)) else [given]
    _columns_apply(opts.columns, qrels, items)
    return Evaluator(qrels, measures, options=opts).evaluate_runs(given)
