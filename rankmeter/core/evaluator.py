"""The one evaluator core every entry point uses.

``Evaluator(qrels, measures, **options)`` does everything that depends only
on the qrels and the options, once: validates the options, resolves the
measure names, keys the qrels (:class:`~.judgments.Judgments`) and computes
the qrels-wide statistics the measure families declare they need. Then:

* :meth:`Evaluator.score` scores a query-aligned part of a run (whole
  queries) and returns a :class:`Part`: per-query values of the judged
  queries it ranks;
* :meth:`Evaluator.finish` puts parts together: queries in bytewise order,
  the query policy (``queries="qrels"`` scores judged queries no part ranked
  as empty rankings), the warnings, and the :class:`~rankmeter.Results`;
* :meth:`Evaluator.per_query` gives the per-query values of a run (or of its
  parts, given one at a time) a block of queries at a time, the judged
  queries it lacks last: what the drop-ins read, in memory bounded by a part.

:meth:`Evaluator.evaluate` scores a whole run in memory, in parts on every core
(:mod:`.in_memory`); the executors (streamed, Spark) cut a run the core cannot hold into
parts and call these two methods.

>>> ev = Evaluator({"q1": {"a": 1, "b": 1}, "q2": {"c": 2}}, ["AP", "P@2"])
>>> r = ev.evaluate({"q1": {"a": 2.0, "x": 1.0, "b": 0.5}, "q2": {"c": 1.0}})
>>> round(r["AP"], 4), r["P@2"]
(0.9167, 0.5)
"""
from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from rankmeter.errors import InputError, MeasureError, shown_id
from rankmeter.measures.aggregation import COUNT, FLOAT
from rankmeter.io.canonical import Qrels, Run
from rankmeter.measures import Measure
from rankmeter.core.results import Results, RunsResults
from rankmeter.engine.batch import Batch
from rankmeter.core.build import build_batch, empty_batch
from rankmeter.core.in_memory import evaluate_in_memory
from rankmeter.core.judgments import Judgments
from rankmeter.core.needs import compute_needs, needs_of
from rankmeter.core.keywords import EvaluationOptions, Unpack, takes_options
from rankmeter.core.options import Options, validate_options
from rankmeter.core.resolve import resolve_measures

__all__ = ["Evaluator", "Part"]

_NAMED = 10  # ids named in a warning or message


@dataclass(frozen=True)
class Part:
    """Per-query values of the judged queries one part of a run ranks (codes in bytewise order)."""

    codes: np.ndarray
    values: dict[Measure, np.ndarray]
    only_in_run: tuple[bytes, ...] = ()
    tag: bytes = b""


def _check_tie_average(measures) -> None:
    """ties='average' is exact only for families that say how to average over tied docs' orders."""
    from rankmeter.measures.base import REGISTRY

    missing = sorted({m.family.name for m in measures if m.family.tie_average is None})
    if missing:
        able = ", ".join(sorted(name for name, f in REGISTRY.items() if f.tie_average is not None))
        raise MeasureError(f"ties='average': no closed form over the orders of tied docs for {', '.join(missing)} "
                           f"(rankmeter does not sample instead); it is exact for {able}. Use ties='best' and "
                           "ties='worst' for the range of the others")


def _check_real_grades(measures: Iterable[Measure]) -> None:
    """Real-valued grades: refuse families defined on integer grades and gain maps keyed by integer grades."""
    from rankmeter.measures.base import REGISTRY

    integer_only = sorted({m.family.name for m in measures if not m.family.real_grades})
    if integer_only:
        able = ", ".join(sorted(n for n, f in REGISTRY.items() if f.real_grades))
        raise MeasureError(f"grades='real': {', '.join(integer_only)} {'is' if len(integer_only) == 1 else 'are'} "
                           f"defined on integer grades only; read the qrels with integer grades, or use one of {able}")
    for m in measures:
        for p in m.family.all_params:
            if p.kind in ("gains", "choice_or_gains") and isinstance(m.get(p.name), tuple):
                raise MeasureError(f"{m}: a gain map is keyed by integer grades and the qrels have real grades; "
                                   f"use {p.name}='linear' or 'exp' (gain 2^g - 1), or read the grades as integers")


def _names(ids: Iterable[bytes], total: int) -> str:
    shown = [shown_id(q) for q in ids]
    more = f" and {total - len(shown)} more" if total > len(shown) else ""
    return ", ".join(shown) + more


@takes_options()
class Evaluator:
    """Judgments and measures prepared once; scores any number of runs (see module docstring).

    Parameters
    ----------
    qrels : path, Qrels, dict or DataFrame
        The judgments.
    measures : str, Measure or a list of them
        Canonical or trec_eval names.
    needs : mapping, optional
        Qrels-wide statistics computed elsewhere (a Spark task gets the
        whole qrels' values from the driver while it holds only some queries).
    %(evaluation_options)s

    Code below the public face that holds an :class:`~rankmeter.core.options.Options` already makes the
    evaluator with :meth:`of`.
    """

    def __init__(self, qrels, measures, *, needs: Mapping[str, Any] | None = None,
                 **options: Unpack[EvaluationOptions]) -> None:
        self._prepare(qrels, measures, validate_options(**options), needs)

    @classmethod
    def of(cls, qrels, measures, options: Options, *, needs: Mapping[str, Any] | None = None) -> "Evaluator":
        """The evaluator of ``options`` validated already (:func:`~rankmeter.core.options.validate_options`)."""
        if not isinstance(options, Options):
            raise TypeError(f"Evaluator.of: options is an Options object, not {type(options).__name__}")
        evaluator = cls.__new__(cls)
        evaluator._prepare(qrels, measures, options, needs)
        return evaluator

    def _prepare(self, qrels, measures, options: Options, needs: Mapping[str, Any] | None) -> None:
        from rankmeter.io import as_qrels

        self.options = options
        # no measure: an Evaluator for rows() alone (fusion, pooling, pooled AUC read joined rows)
        self.names = [] if isinstance(measures, (list, tuple)) and not measures else resolve_measures(measures)
        self.measures: list[Measure] = list(dict.fromkeys(m for _, m in self.names))
        self.qrels: Qrels = as_qrels(qrels, columns=self.options.columns, grades=self.options.grade_policy,
                                     input_format=self.options.input_format)
        if self.qrels.real_grades:
            _check_real_grades(self.measures)
        self.judgments = Judgments(self.qrels, intents=self.options.intents)
        if self.qrels is not qrels and self.qrels.doc_hash is not None:
            # read here, so held by nobody else: the reader's doc hashes are keyed now (80 MB per 10M judgments)
            self.qrels = self.judgments.qrels = replace(self.qrels, doc_hash=None)
        wanted = needs_of(self.measures)
        self.needs = dict(needs) if needs is not None else compute_needs(wanted, self.qrels)
        #: whether batches carry the (doc, subtopic) judgments (a diversity family is asked for)
        self.subtopics = any(m.family.subtopics for m in self.measures)
        rel = self.options.rel
        self._effective = {m: m if m.get("rel") is not None else m.with_params(rel=rel) for m in self.measures}
        if self.options.ties == "average":
            _check_tie_average(self.measures)

    # ------------------------------------------------------------ scoring
    def batch(self, run: Run, *, keep_docs: bool = False) -> Batch:
        """The ordered, joined batch of the judged queries ``run`` ranks."""
        batch, _ = build_batch(self.judgments, run, self.options, needs=self.needs, keep_docs=keep_docs,
                               subtopics=self.subtopics)
        return batch

    def rows(self, run):
        """The ranked rows of ``run`` joined to the judgments: what :meth:`evaluate` scores, as a table.

        One row per ranked doc of every judged query the run ranks, after the options that change the
        ranking (``ties``, ``max_docs``, ``positive_scores_only``, ``judged_only``), in the order the
        measures see them: queries in natural order (q2 before q10), ranks in the engine's order.
        Queries the qrels do not judge are not scored and have no rows (:func:`rankmeter.core.rows.ranked`
        gives every row of a run without judgments).

        Columns: ``query``, ``doc`` (strings), ``rank`` (1-based), ``score`` (null for a ranked list
        without scores), ``tie_group`` (rows of one query with equal scores share a number, numbered
        down the table) and ``tie_size``, ``grade`` (the qrels grade; null where the qrels do not list
        the doc, and where they list it with a negative grade: unjudged, as trec_eval reads it),
        ``judged`` and ``relevant`` (grade >= ``rel``).

        >>> ev = Evaluator({"q1": {"a": 2, "b": 0}}, ["AP"], rel=2)
        >>> t = ev.rows({"q1": {"a": 0.5, "b": 0.9, "c": 0.9}, "q9": {"x": 1.0}})
        >>> t.select(["doc", "rank", "grade", "judged", "relevant", "tie_size"]).to_pylist()[0]
        {'doc': 'c', 'rank': 1, 'grade': None, 'judged': False, 'relevant': False, 'tie_size': 2}
        >>> t.column("grade").to_pylist(), t.column("relevant").to_pylist()
        ([None, 0, 2], [False, False, True])
        """
        import pyarrow as pa

        from rankmeter.core.rows import rows_table
        from rankmeter.io import as_run

        run = as_run(run, columns=self.options.columns, input_format=self.options.input_format)
        ties = "trec_eval" if self.options.ties == "average" else self.options.ties
        batch, info = build_batch(self.judgments, run, self.options.replace(ties=ties), needs=self.needs,
                                  keep_rows=True)
        source = info.rows
        if self.options.judged_only:
            keep = batch.rel >= 0
            source = source[keep]
            counts = np.bincount(batch.qidx[keep], minlength=batch.nq)
            grades = batch.rel[keep]
        else:
            counts = np.diff(batch.offsets)
            grades = batch.rel
        offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        judged = grades >= 0
        grade = pa.array(np.where(judged, grades, 0), mask=~judged)
        score = None if run.ranked else run.table.column("score").to_numpy()[source]
        return rows_table(batch.queries, run.table.column("doc").take(pa.array(source)), offsets, score,
                          {"grade": grade, "judged": judged, "relevant": judged & (grades >= self.options.rel)})

    def kernels(self, batch: Batch, measures: Iterable[Measure] | None = None) -> dict[Measure, np.ndarray]:
        """Per-query values of each measure over ``batch`` (the judged-only view built once if needed)."""
        views = {False: batch}
        out = {}
        for m in (self.measures if measures is None else measures):
            effective = self._effective.get(m) or (m if m.get("rel") is not None
                                                   else m.with_params(rel=self.options.rel))
            only = bool(self.options.judged_only or m.get("judged_only"))
            if only not in views:
                views[only] = batch.judged_only()
            kernel = m.family.kernel
            if views[only].tie_group is not None and callable(m.family.tie_average):
                kernel = m.family.tie_average
            value_type = m.family.value_type
            if views[only].tie_group is not None and value_type is COUNT:
                value_type = FLOAT  # an expected count over tie orders is fractional
            out[m] = value_type.array(kernel(views[only], effective))
        return out

    def score(self, run: Run) -> Part:
        """Score a part of a run holding whole queries."""
        batch, info = build_batch(self.judgments, run, self.options, needs=self.needs, subtopics=self.subtopics)
        return Part(batch.codes, self.kernels(batch), info.only_in_run, info.tag)

    def finish(self, parts: list[Part], *, run_name: str = "", warn: bool = True,
               check_common: bool = True, source: str | None = None) -> Results:
        """Put the parts of one run together (see module docstring).

        ``warn=False`` leaves the warning about judged queries the run lacks to
        the caller (``Results.missing`` names them). ``source``: where the run was read from (a file
        name), for messages; ``run_name`` by default.
        """
        source = source or run_name or None
        codes = np.concatenate([p.codes for p in parts]) if parts else np.zeros(0, np.int64)
        values = {m: np.concatenate([p.values[m] for p in parts]) if parts else
                  m.family.value_type.array([]) for m in self.measures}
        seen = np.zeros(self.judgments.nq, dtype=bool)
        seen[codes] = True
        if len(codes) != int(seen.sum()):
            raise InputError("a query was scored in two parts of the run: its lines are not together; "
                             "group the run by query first", source=source)
        missing = np.flatnonzero(~seen)
        only_in_run = sorted({q for p in parts for q in p.only_in_run})
        if check_common and len(codes) == 0 and only_in_run:
            raise InputError(
                f"no query of the run is judged in the qrels: the run has {_names(only_in_run[:_NAMED], len(only_in_run))}; "
                f"the qrels have {_names(self.judgments.names(np.arange(min(_NAMED, self.judgments.nq))), self.judgments.nq)}; "
                "check that both use the same query ids", source=source)
        if self.options.queries == "qrels" and len(missing):
            extra = self.kernels(empty_batch(self.judgments, missing, self.needs, subtopics=self.subtopics))
            codes = np.concatenate([codes, missing])
            values = {m: np.concatenate([values[m], extra[m]]) for m in self.measures}
        elif len(missing) and warn:
            warnings.warn(f"{shown_id(run_name) + ': ' if run_name else ''}{len(missing)} judged queries have no "
                          "results in the run and are left out of the "
                          f"means: {_names(self.judgments.names(missing[:_NAMED]), len(missing))} "
                          "(queries='qrels' scores them as 0)", stacklevel=3)
        if len(codes) > 1 and (codes[1:] < codes[:-1]).any():  # parts of a run written in byte order come sorted
            order = np.argsort(codes, kind="stable")
            codes = codes[order]
            values = {m: v[order] for m, v in values.items()}
        missing_ids = tuple(self.judgments.names(missing)) if self.options.queries == "both" else ()
        return Results(self.judgments.ids.take(codes), self.names, values,
                       run_name=run_name, missing=missing_ids, only_in_run=tuple(only_in_run))

    def per_query(self, run) -> Iterator[Results]:
        """Per-query values of a run, a block of queries at a time: memory bounded by the largest part.

        Parameters
        ----------
        run : run input, or an iterator of them
            A run (anything :meth:`evaluate` reads), or an iterator (a generator) of parts of one run,
            each holding whole queries: a run too big to hold whole is scored one part in memory at a
            time.

        Yields
        ------
        Results
            One per part that ranks a judged query: the judged queries it ranks, with every measure's
            per-query values (``values(m, order="bytes")`` with ``query_ids(order="bytes")`` reads
            them without sorting). Then, with ``queries="qrels"``, one last block: the judged queries
            no part ranked, scored as empty rankings (as :meth:`evaluate` scores them). Nothing is averaged and nothing is warned about: queries
            the qrels do not judge are not scored, a block's ``only_in_run`` names them.

        Raises
        ------
        InputError
            A query ranked in two parts (its lines are not together).

        Examples
        --------
        >>> ev = Evaluator({"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}}, ["RR"], queries="qrels")
        >>> parts = iter([{"q1": ["x", "a"]}, {"q2": ["b"], "q9": ["z"]}])
        >>> for block in ev.per_query(parts):
        ...     print(block.queries, block.values("RR").tolist(), block.only_in_run)
        ['q1'] [0.5] ()
        ['q2'] [1.0] (b'q9',)
        ['q3'] [0.0] ()
        """
        from rankmeter.io import as_run

        parts = run if isinstance(run, Iterator) else iter([run])
        seen = np.zeros(self.judgments.nq, dtype=bool)
        for given in parts:
            part = self.score(as_run(given, columns=self.options.columns, input_format=self.options.input_format))
            if seen[part.codes].any():
                raise InputError("a query was scored in two parts of the run: its lines are not together; "
                                 "group the run by query first", source=None if isinstance(given, Mapping)
                                 else getattr(given, "source", None))
            seen[part.codes] = True
            if len(part.codes):
                yield self._block(part.codes, part.values, part.only_in_run)
        missing = np.flatnonzero(~seen)
        if self.options.queries == "qrels" and len(missing):
            empty = empty_batch(self.judgments, missing, self.needs, subtopics=self.subtopics)
            yield self._block(missing, self.kernels(empty), ())

    def _block(self, codes: np.ndarray, values: dict[Measure, np.ndarray], only_in_run) -> Results:
        if len(codes) > 1 and (codes[1:] < codes[:-1]).any():  # Results holds its queries in byte order
            order = np.argsort(codes, kind="stable")
            codes, values = codes[order], {m: v[order] for m, v in values.items()}
        return Results(self.judgments.ids.take(codes), self.names, values, only_in_run=tuple(only_in_run))

    def evaluate(self, run) -> Results:
        """Score a whole run in memory (parts on both cores when it is large)."""
        return evaluate_in_memory(self, run)

    def evaluate_runs(self, runs) -> RunsResults:
        """Score several runs in memory: ``{name: run}`` or a list of runs, named by the one rule of
        :func:`rankmeter.core.naming.name_runs` (a single run gives a table of one row)."""
        from rankmeter.core.naming import name_runs
        named = name_runs(runs, columns=self.options.columns, input_format=self.options.input_format)
        return RunsResults([(name, self.evaluate(run)) for name, run in named])


@takes_options(in_memory=True)
def evaluate_runs(qrels, runs, measures, **options: Unpack[EvaluationOptions]) -> RunsResults:
    """Score several runs against one qrels, prepared once: one table (:class:`~.results.RunsResults`).

    What the analyses that compare runs call (leaderboards, standardisation), rather than the top package.

    Parameters
    ----------
    qrels : path, Qrels, dict or DataFrame
        The judgments.
    runs : dict or list
        ``{name: run}`` or a list of runs (paths, tables, dicts), named by the one rule
        (:func:`~.naming.name_runs`); each is scored in memory.
    measures : str, Measure or a list of them
        Canonical or trec_eval names.
    %(evaluation_options)s

    Returns
    -------
    RunsResults

    >>> table = evaluate_runs({"q1": {"a": 1}}, {"good": {"q1": ["a"]}, "bad": {"q1": ["x", "a"]}}, ["RR"])
    >>> table.runs, table["bad"]["RR"]
    (['good', 'bad'], 0.5)
    """
    return Evaluator(qrels, measures, **options).evaluate_runs(runs)
