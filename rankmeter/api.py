"""The Python API: :func:`evaluate` and its :class:`Results`."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from .engine import QUERY_POLICIES, Batch, build_batch, warn_missing
from .engine.pieces import score_run_file
from .errors import MeasureError, ParameterError
from .io import as_qrels, as_run
from .measures import Measure, parse_measure
from .measures.base import summarize
from .tables import decode_id

__all__ = ["evaluate", "Results", "resolve_measures"]


def resolve_measures(measures: str | Measure | Iterable[str | Measure]) -> list[tuple[str, Measure]]:
    """Parse measure names (canonical or trec_eval spellings) into (name as given, Measure).

    A trec_eval name with several parameters (``P.5,10``) gives several measures.
    """
    if isinstance(measures, (str, Measure)):
        measures = [measures]
    out: list[tuple[str, Measure]] = []
    for item in measures:
        if isinstance(item, Measure):
            out.append((str(item), item))
            continue
        if not isinstance(item, str):
            raise ParameterError(f"measures: {item!r} is not a measure name or Measure")
        try:
            out.append((item, parse_measure(item)))
        except MeasureError as canonical_error:
            from .compat.trec_eval import TREC_MEASURES, expand, split_name
            if split_name(item)[0] not in TREC_MEASURES or split_name(item)[0] == "runid":
                raise canonical_error from None
            expanded = expand([item])
            if len(expanded) == 1:
                out.append((item, expanded[0][2]))
            else:
                out.extend((label, m) for label, _, m in expanded if m is not None)
    if not out:
        raise ParameterError("measures: give at least one measure, e.g. ['AP', 'nDCG@10']")
    return out


def _compute(batch: Batch, measure: Measure, rel: int) -> np.ndarray:
    effective = measure if measure.get("rel") is not None else measure.with_params(rel=rel)
    return measure.family.kernel(batch, effective)


def compute_all(batch: Batch, measures: list[Measure], *, rel: int = 1,
                judged_only: bool = False) -> dict[Measure, np.ndarray]:
    """Per-query values of every measure over one batch (judged-only view built once if needed)."""
    views = {False: batch}
    out = {}
    for m in measures:
        only = judged_only or m.get("judged_only")
        if only not in views:
            views[only] = batch.judged_only()
        out[m] = _compute(views[only], m, rel)
    return out


class Results:
    """Scores of one run: per-query values and summaries.

    ``results["nDCG@10"]`` is the mean (any accepted spelling of the name);
    ``results.per_query`` is a pandas DataFrame with a ``query`` column and one
    column per measure.
    """

    def __init__(self, queries: list[bytes], names: list[tuple[str, Measure]],
                 values: dict[Measure, np.ndarray], run_name: str = ""):
        self._queries = queries
        self._names = list(dict(names).items())  # one entry per label, in the order asked for
        self._values = values
        self.run = run_name

    @property
    def names(self) -> list[str]:
        """The measure names as asked for (trec_eval multi-cutoff names expanded: ``P_5``)."""
        return [label for label, _ in self._names]

    @property
    def measures(self) -> list[Measure]:
        """The distinct measures computed, in the order asked for."""
        return list(dict.fromkeys(m for _, m in self._names))

    @property
    def queries(self) -> list[str]:
        """Query ids evaluated, in bytewise order."""
        return [decode_id(q) for q in self._queries]

    def _measure(self, key: str | Measure) -> Measure:
        if isinstance(key, Measure):
            m = key
        else:
            for given, m in self._names:
                if given == key:
                    return m
            m = resolve_measures(key)[0][1]
        if m not in self._values:
            raise KeyError(f"{key!s} was not computed; computed: {', '.join(map(str, self.measures))}")
        return m

    def __getitem__(self, key: str | Measure) -> Any:
        m = self._measure(key)
        return summarize(m, self._values[m])

    def __contains__(self, key: object) -> bool:
        try:
            self._measure(key)  # type: ignore[arg-type]
        except (KeyError, MeasureError):
            return False
        return True

    def values(self, key: str | Measure) -> np.ndarray:
        """Per-query values of one measure, aligned with :attr:`queries`."""
        return self._values[self._measure(key)].copy()

    @property
    def mean(self) -> dict[str, Any]:
        """Measure name (as asked for) -> summary value."""
        return {label: summarize(m, self._values[m]) for label, m in self._names}

    def to_arrow(self):
        """Per-query values as a pyarrow Table: ``query`` then one column per measure."""
        import pyarrow as pa
        cols = {"query": pa.array(self.queries, pa.string())}
        for label, m in self._names:
            cols[label] = pa.array(self._values[m])
        return pa.table(cols)

    @property
    def per_query(self):
        """Per-query values as a pandas DataFrame (needs pandas: pip install rankmeter[pandas])."""
        try:
            import pandas  # noqa: F401
        except ImportError:
            raise ParameterError("per_query needs pandas (pip install 'rankmeter[pandas]'); "
                                 "to_arrow() and to_polars() work without it") from None
        return self.to_arrow().to_pandas()

    def to_polars(self):
        import polars as pl
        return pl.from_arrow(self.to_arrow())

    def to_dict(self, per_query: bool = False) -> dict[str, Any]:
        """JSON-ready: {"run", "mean", and with per_query=True "per_query": [{query, measure: value}]}."""
        out: dict[str, Any] = {"run": self.run, "mean": self.mean}
        if per_query:
            rows = []
            for i, q in enumerate(self.queries):
                row: dict[str, Any] = {"query": q}
                for label, m in self._names:
                    v = self._values[m][i]
                    row[label] = v.item() if hasattr(v, "item") else v
                rows.append(row)
            out["per_query"] = rows
        return out

    def __repr__(self) -> str:
        means = ", ".join(f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}" for k, v in self.mean.items())
        return f"Results({len(self._queries)} queries: {means})"


def evaluate(qrels, run, measures, *, queries: str = "both", rel: int = 1, judged_only: bool = False,
             max_docs: int | None = None, ties: str = "trec_eval", truncate_grades: bool = False,
             columns: dict | None = None) -> Results:
    """Score a run against judgments.

    Parameters
    ----------
    qrels : path, Qrels, dict or DataFrame
        Judgments: a TREC qrels file, ``{query: {doc: grade}}``, or a frame with
        columns query, doc, rel.
    run : path, Run, dict or DataFrame
        Results: a TREC run file, ``{query: {doc: score}}``, ``{query: [doc, ...]}``
        (ranked, no scores), or a frame with columns query, doc, score.
    measures : str, Measure or list of them
        Canonical names (``"AP"``, ``"nDCG@10"``, ``"P(rel=2)@5"``) or trec_eval
        names (``"map"``, ``"ndcg_cut.10"``, ``"P.5,10"``).
    queries : {"both", "qrels"}, default "both"
        Which queries are averaged: those in both inputs (a warning lists judged
        queries the run lacks), or every qrels query (trec_eval ``-c``).
    rel : int, default 1
        Relevance threshold for measures that do not set their own ``rel``.
    judged_only : bool, default False
        Drop unjudged docs from rankings before scoring (trec_eval ``-J``).
    max_docs : int, optional
        Score only the first ``max_docs`` docs of each ranking (trec_eval ``-M``).
    ties : {"trec_eval", "input"}, default "trec_eval"
        How a ranking is ordered: score then docno descending, or as given.
    columns : dict, optional
        Column names of DataFrame inputs when they are not query, doc, rel /
        score, e.g. ``{"query": "user", "doc": "item", "score": "prediction"}``.
    truncate_grades : bool, default False
        Read a non-integer grade such as 1.7 as 1, as trec_eval's ``atol`` does
        (by default it is an error naming the file and line).

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
    from .io.spark import is_spark_frame  # Spark DataFrames are scored on the cluster (pyspark loads there)
    if is_spark_frame(qrels) or is_spark_frame(run):
        from .spark import evaluate as evaluate_spark
        return evaluate_spark(qrels, run, measures, queries=queries, rel=rel, judged_only=judged_only,
                              max_docs=max_docs, ties=ties, truncate_grades=truncate_grades, columns=columns)
    if isinstance(rel, bool) or not isinstance(rel, (int, np.integer)):
        raise ParameterError(f"rel={rel!r}: expected an integer relevance threshold")
    names = resolve_measures(measures)
    q = as_qrels(qrels, truncate_grades=truncate_grades, columns=columns)
    unique = list(dict.fromkeys(m for _, m in names))
    if queries not in QUERY_POLICIES:
        raise ParameterError(f"queries={queries!r}: expected one of {QUERY_POLICIES}")
    # A large run file is scored in query-aligned pieces on every core (same values, less memory).
    scored = score_run_file(q, run, unique, queries=queries, rel=int(rel), judged_only=judged_only,
                            max_docs=max_docs, ties=ties) if ties == "trec_eval" else None
    if scored is not None:
        warn_missing(scored.info, queries)
        return Results(scored.queries, names, scored.values, run_name=decode_id(scored.tag) or scored.source)
    r = as_run(run, columns=columns)
    batch, info = build_batch(q, r, queries=queries, max_docs=max_docs, ties=ties)
    warn_missing(info, queries)
    values = compute_all(batch, unique, rel=int(rel), judged_only=judged_only)
    return Results(batch.queries, names, values, run_name=r.name or r.source)
