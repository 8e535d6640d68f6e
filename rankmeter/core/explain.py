"""Show one measure's computation for one query, step by step.

:func:`explain` returns an :class:`Explanation`: a per-rank table (doc, score,
grade and the measure's own columns: gain, discount, contribution, running
total ...), the ideal ranking where the measure has one, and the final
formula with its numbers, the way the seeds work their examples by hand::

    DCG@5 = 31/1 + 7/1.585 + 3/2 + 1/2.322 + 3/2.585 = 38.5077

Each family's explain hook (``Family.explain``) writes its own columns and
formula from the same batch the kernel reads, and the value shown is always
the kernel's, so an explanation can never disagree with :func:`rankmeter.evaluate`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from rankmeter.core import NONPOOL, UNJUDGED, Evaluator
from rankmeter.core.keywords import EvaluationOptions, Unpack, takes_options
from rankmeter.core.numbers import format_cell, format_number
from rankmeter.errors import InputError, ParameterError
from rankmeter.io import as_run
from rankmeter.io.canonical import Run, decode_id, encode_id
from rankmeter.engine.ids import Ids
from rankmeter.measures import Measure
from rankmeter.measures.aggregation import TEXT


__all__ = ["explain", "explain_query", "explain_queries", "Explanation"]


@dataclass
class Explanation:
    """One measure on one query: per-rank table, optional ideal table, formula and value."""

    measure: Measure
    query: str
    value: float | int | str
    columns: list[str]
    rows: list[list[Any]]
    formula: list[str]
    ideal_columns: list[str] = field(default_factory=list)
    ideal_rows: list[list[Any]] = field(default_factory=list)

    def to_arrow(self, ideal: bool = False) -> pa.Table:
        cols, rows = (self.ideal_columns, self.ideal_rows) if ideal else (self.columns, self.rows)
        return pa.table({c: [r[i] for r in rows] for i, c in enumerate(cols)})

    @property
    def table(self):
        """The per-rank table as a pandas DataFrame (needs pandas)."""
        return self.to_arrow().to_pandas()

    def _repr_html_(self) -> str:
        from html import escape

        from rankmeter.core.notebook import html_table
        formula = "<pre>" + escape("\n".join(self.formula)) + "</pre>"
        ideal = html_table(self.ideal_columns, self.ideal_rows, caption="ideal ranking") if self.ideal_rows else ""
        return (html_table(self.columns, self.rows, caption=f"{self.measure} for query {self.query}")
                + ideal + formula)

    def __str__(self) -> str:
        out = [f"{self.measure} for query {self.query}", ""]
        out += _render(self.columns, self.rows)
        if self.ideal_rows:
            out += ["", "ideal ranking:"] + _render(self.ideal_columns, self.ideal_rows)
        out += [""] + self.formula
        return "\n".join(out)


def _cell(v: Any) -> str:
    """An explanation table's cell as text: whole numbers without decimals, flags as words (any terminal)."""
    return format_cell(v, trim=True, marks=("True", "False"))


def _render(columns: list[str], rows: list[list[Any]]) -> list[str]:
    cells = [[_cell(v) for v in r] for r in rows]
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
    lines = ["  ".join(c.rjust(w) for c, w in zip(columns, widths))]
    lines += ["  ".join(v.rjust(w) for v, w in zip(r, widths)) for r in cells]
    return lines


def _grade_text(g: int | float) -> Any:
    """A grade for the table: real grades keep their value (2.5), integer ones print as integers."""
    if g == NONPOOL:
        return "unjudged"
    if g == UNJUDGED:
        return "judged<0"
    return int(g) if float(g).is_integer() else float(g)


def one_query(run: Run, query: bytes) -> Run:
    mask = pc.equal(run.table.column("query"), pa.scalar(query, pa.binary()))
    rows = np.flatnonzero(mask.to_numpy(zero_copy_only=False))
    lines = rows + 1 if run.lines is None else run.lines[rows]  # messages keep the file's line numbers
    return Run(run.table.take(pa.array(rows)), run.source, lines, origin=run.origin, tag=run.tag,
               ranked=run.ranked)


def explain_query(evaluator: Evaluator, run: Run, query: bytes, measure: Measure, label: str) -> Explanation:
    """Explain ``measure`` on ``query`` of ``run`` with a prepared evaluator (see :func:`explain`)."""
    if evaluator.judgments.query_codes(Ids.from_list([query]))[0] < 0:
        raise InputError(f"query {decode_id(query)!r} has no judgments in the qrels", source=evaluator.qrels.source)
    batch = evaluator.batch(one_query(run, query), keep_docs=True)
    if batch.nq == 0:  # judged, but the run ranks nothing for it: an empty ranking
        from rankmeter.core.build import empty_batch
        codes = evaluator.judgments.query_codes(Ids.from_list([query]))
        batch = empty_batch(evaluator.judgments, codes, evaluator.needs, subtopics=evaluator.subtopics)
        batch.docs, batch.scores = [], np.zeros(0)
    return explain_batch(evaluator, batch, measure, label, ranked=run.ranked)


def explain_batch(evaluator: Evaluator, batch, measure: Measure, label: str, *, ranked: bool = False,
                  max_rows: int | None = None) -> Explanation:
    """Explain ``measure`` on the one query of ``batch`` (built with ``keep_docs=True``); ``max_rows``
    keeps only the first rows of the per-rank table (the value and formula still use every rank)."""
    query = batch.queries[0]
    if evaluator.options.judged_only or measure.get("judged_only"):
        batch = batch.judged_only()
    raw = evaluator.kernels(batch, [measure])[measure][0]
    value_type = measure.family.value_type
    value = value_type.python(raw)
    effective = measure if measure.get("rel") is not None else measure.with_params(rel=evaluator.options.rel)
    parts = measure.family.explain(batch, effective, label) if measure.family.explain else None
    shown = len(batch.docs or []) if max_rows is None else min(max_rows, len(batch.docs or []))
    docs = [decode_id(d) for d in (batch.docs or [])[:shown]]
    if ranked or evaluator.options.ties == "input":
        base_cols = ["rank", "doc", "grade"]
        base = [[i + 1, docs[i], _grade_text(batch.rel[i].item())] for i in range(len(docs))]
    else:
        base_cols = ["rank", "doc", "score", "grade"]
        base = [[i + 1, docs[i], float(batch.scores[i]), _grade_text(batch.rel[i].item())] for i in range(len(docs))]
    if parts is None:
        text = f"'{value}'" if value_type is TEXT else format_number(value)
        return Explanation(measure, decode_id(query), value, base_cols, base, [f"{label} = {text}"])
    formula = list(parts.formula)
    empty_target = getattr(measure.family.kernel, "empty_target", None)
    action = measure.get("empty_target_action") if empty_target is not None else None
    if action not in (None, "neg") and empty_target[0](batch, effective)[0]:
        shown_value = "undefined (left out of the mean)" if action == "skip" else format_number(value)
        formula.append(f"{empty_target[1]}: empty_target_action={action} makes {label} = {shown_value}")
    rows = [b + [_plain(v) for v in extra] for b, extra in zip(base, parts.per_rank[:shown])]
    depth = len(base) if measure.cutoff is None or not isinstance(measure.cutoff, int) \
        else min(measure.cutoff, len(base))
    rows += [b + [None] * len(parts.columns) for b in base[len(parts.per_rank):depth]]
    return Explanation(measure, decode_id(query), value, base_cols + parts.columns, rows, formula,
                       list(parts.ideal_columns), [[_plain(v) for v in r] for r in parts.ideal_rows])


def explain_queries(evaluator: Evaluator, run: Run, queries, measures, *, max_rows: int) -> dict:
    """Several queries of ``run`` explained for several measures with a prepared evaluator, the queries ordered
    and joined once, in one batch (diversity measures, which read subtopics, take one query at a time).

    ``queries``: raw query keys; ``measures``: ``(label, Measure)`` pairs. Returns ``{query: {label: (Explanation,
    ranks) or the RankmeterError that explaining it raised}}`` for each query the run retrieves (``ranks``: how many
    ranks the whole table has, the measure's cut-off applied; None where not known), each per-rank table cut at
    ``max_rows`` or at the measure's cut-off if smaller.
    """
    from rankmeter.errors import RankmeterError

    keys = pa.array(list(queries), pa.binary())
    rows = np.flatnonzero(pc.is_in(run.table.column("query").cast(pa.binary()), value_set=keys)
                          .to_numpy(zero_copy_only=False))
    lines = rows + 1 if run.lines is None else run.lines[rows]
    part = Run(run.table.take(pa.array(rows)), run.source, lines, origin=run.origin, tag=run.tag, ranked=run.ranked)
    present = set(pc.unique(part.table.column("query").cast(pa.binary())).to_pylist())
    batch = None if evaluator.subtopics else evaluator.batch(part, keep_docs=True)
    where = {} if batch is None else {q: i for i, q in enumerate(batch.queries)}
    out: dict = {}
    for key in queries:
        if key not in present:
            continue
        got = out[key] = {}
        for label, measure in measures:
            cut = measure.cutoff if isinstance(measure.cutoff, int) else None
            limit = min(cut, max_rows) if cut else max_rows
            try:
                if key in where:
                    one = batch.one(where[key])
                    ranks = len(one.docs)
                    got[label] = (explain_batch(evaluator, one, measure, label, ranked=part.ranked, max_rows=limit),
                                  max(ranks if cut is None else min(cut, ranks), 0))
                else:
                    got[label] = (explain_query(evaluator, one_query(part, key), key, measure, label), None)
            except RankmeterError as exc:
                got[label] = exc
    return out


def _plain(v: Any) -> Any:
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, np.generic):
        return v.item()
    return v


@takes_options(in_memory=True)
def explain(qrels, run, measure: str | Measure, query: str | bytes,
            **options: Unpack[EvaluationOptions]) -> Explanation:
    """Explain ``measure`` on one ``query``: per-rank table, ideal list and formula.

    Parameters
    ----------
    qrels : path, Qrels, dict or DataFrame
        Judgments, as for :func:`rankmeter.evaluate`.
    run : path, Run, dict or DataFrame
        One run, as for :func:`rankmeter.evaluate`.
    measure : str or Measure
        One canonical measure, e.g. ``"nDCG(gain=exp)@5"``.
    query : str or bytes
        The query id.
    %(evaluation_options)s

    Returns
    -------
    Explanation

    Raises
    ------
    ParameterError
        An option out of its range or misspelt, or ``measure`` naming several measures.
    InputError
        A query without judgments; a file or table that cannot be read.

    Examples
    --------
    >>> qrels = {"q": {"a": 3, "b": 2, "c": 0}}
    >>> run = {"q": ["b", "c", "a"]}
    >>> print(explain(qrels, run, "DCG@3", "q").formula[0])
    DCG@3 = 2/1 + 0/1.585 + 3/2 = 3.5
    """
    evaluator = Evaluator(qrels, measure, **options)
    if len(evaluator.names) != 1:
        raise ParameterError(f"explain takes one measure; {measure!r} names {len(evaluator.names)}")
    label, m = evaluator.names[0]
    opts = evaluator.options
    return explain_query(evaluator, as_run(run, columns=opts.columns, input_format=opts.input_format), encode_id(query),
                         m, label)
