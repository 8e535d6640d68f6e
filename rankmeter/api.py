"""The Python API's entry points: :func:`evaluate` scores one run, :func:`evaluate_runs` several.

Each returns one type whatever it is given: :func:`evaluate` a :class:`~rankmeter.core.results.Results`,
:func:`evaluate_runs` a :class:`~rankmeter.core.results.RunsResults`. Several runs given to
:func:`evaluate` (a dict of runs, a list, a glob) are an error that names :func:`evaluate_runs`, never a
table of another type: ``results["AP"]`` is always a mean.

The evaluation options are keyword-only parameters made from their one declaration
(:class:`rankmeter.core.options.EvaluationOptions`) by :func:`~rankmeter.core.keywords.takes_options`, as
for every other entry point: ``help()`` and :func:`inspect.signature` show each with its type and default,
type checkers read them (PEP 692), and a misspelt one is a :class:`~rankmeter.errors.ParameterError` with a
suggestion (``relevance_level=2``: did you mean rel?).
"""
from __future__ import annotations

from collections.abc import Mapping

from rankmeter.core import Evaluator, validate_options
from rankmeter.core.keywords import EvaluationOptions, Unpack, takes_options
from rankmeter.core.results import Results, RunsResults
from rankmeter.errors import InputError, ParameterError
from rankmeter.types import MeasuresLike, QrelsLike, RunLike, RunsLike

__all__ = ["evaluate", "evaluate_runs", "Results", "RunsResults"]

_GLOB = set("*?[")


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
    return (isinstance(obj, (str, bytes, os.PathLike)) or hasattr(obj, "read") or is_frame(obj)
            or is_spark_frame(obj))


def _columns_apply(columns, qrels, runs) -> None:
    """Refuse ``columns=`` when no input has columns (dicts, Qrels and Run objects): never ignored."""
    if columns and not any(map(_has_columns, [qrels, *runs])):
        raise ParameterError(f"columns={dict(columns)!r}: no input has columns to choose from (dicts and objects "
                             "already read have none); columns= is for files and tables: drop it, or pass the "
                             "file or DataFrame")


@takes_options()
def evaluate(qrels: QrelsLike, run: RunLike, measures: MeasuresLike, **options: Unpack[EvaluationOptions]) -> Results:
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
    %(evaluation_options)s

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
    opts = validate_options(**options)
    several = _several(run)
    if several is not None:
        raise ParameterError(f"run: {several}; evaluate scores one run and returns its Results. Score several "
                             "against one qrels with rankmeter.evaluate_runs(qrels, runs, measures), which returns "
                             "a RunsResults (one table; the qrels prepared once)")
    _columns_apply(opts.columns, qrels, [run])
    from rankmeter.executors import evaluate_run
    return evaluate_run(qrels, run, measures, opts)


@takes_options(in_memory=True)
def evaluate_runs(qrels: QrelsLike, runs: RunsLike, measures: MeasuresLike,
                  **options: Unpack[EvaluationOptions]) -> RunsResults:
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
    %(evaluation_options)s

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
    opts = validate_options(**options)
    pattern = _pattern(runs)
    given = _expand(pattern) if pattern is not None else runs
    items = (list(given.values()) if isinstance(given, Mapping)
             else list(given) if isinstance(given, (list, tuple)) else [given])
    _columns_apply(opts.columns, qrels, items)
    return Evaluator.of(qrels, measures, opts).evaluate_runs(given)
