"""Scores of one run: :class:`Results`, what every executor's ``finish`` returns.

Undefined values, the one rule
------------------------------
A per-query value that cannot be computed (NaN: a query ``empty_target_action="skip"``
leaves out, ir_measures' Accuracy with nothing relevant retrieved...) is *undefined*. It is
never shown as a number: ``None`` (``null``) in :meth:`Results.to_dict` and
:meth:`Results.to_arrow`, ``-`` in text tables (:mod:`rankmeter.report.text`), an empty cell in
CSV. Every mean is over the defined queries only, and :attr:`Results.undefined` counts the
others beside it (``"undefined"`` in JSON, ``(n undefined)`` beside the mean in text). A mean
that is itself not finite is ``None`` too. So JSON output never holds ``NaN`` or ``Infinity``:
``json.dumps(results.to_dict(per_query=True), allow_nan=False)`` always succeeds.

>>> import json, rankmeter
>>> r = rankmeter.evaluate({"q1": {"a": 1}, "q2": {"b": 0}}, {"q1": ["a"], "q2": ["b"]},
...                        ["nDCG(empty_target_action=skip)"])
>>> r.undefined, r.mean
({'nDCG(empty_target_action=skip)': 1}, {'nDCG(empty_target_action=skip)': 1.0})
>>> print(json.dumps(r.to_dict(per_query=True), allow_nan=False))
{"run": "<dict>", "mean": {"nDCG(empty_target_action=skip)": 1.0}, "undefined": {"nDCG(empty_target_action=skip)": 1}, "per_query": [{"query": "q1", "nDCG(empty_target_action=skip)": 1.0}, {"query": "q2", "nDCG(empty_target_action=skip)": null}]}
"""
from __future__ import annotations

from functools import cached_property
from typing import Any

import numpy as np

from rankmeter.core.numbers import UNDEFINED, format_cell
from rankmeter.errors import MeasureError, require
from rankmeter.io.canonical import decode_id
from rankmeter.measures import Measure

__all__ = ["Results", "RunsResults", "plain_value"]


def _floating(values) -> bool:
    return isinstance(values, np.ndarray) and values.dtype.kind == "f"


def plain_value(value) -> Any:
    """One value as a plain Python object for JSON; None when undefined (NaN or infinite), by the rule above.

    >>> plain_value(np.float64(0.5)), plain_value(float("nan")), plain_value(np.int64(3))
    (0.5, None, 3)
    """
    value = value.item() if hasattr(value, "item") else value
    if isinstance(value, float) and not np.isfinite(value):
        return None
    return value


class Results:
    """Scores of one run: per-query values and summaries.

    ``results["nDCG@10"]`` is the mean (any accepted spelling of the name);
    ``results.per_query`` is a pandas DataFrame with a ``query`` column and one
    column per measure. Every per-query view (:attr:`queries`, :meth:`values`,
    ``per_query``, :meth:`to_arrow`, :meth:`to_dict`, the notebook table) lists the
    queries in natural order (q2 before q10: :func:`rankmeter.core.order.natural_order`),
    the one order of every per-query table rankmeter prints. Means add the values up in
    trec_eval's order (its queries sorted bytewise), so they equal trec_eval's to the bit.
    """

    def __init__(self, queries, names: list[tuple[str, Measure]],
                 values: dict[Measure, np.ndarray], run_name: str = "", *,
                 missing: tuple[bytes, ...] = (), only_in_run: tuple[bytes, ...] = ()):
        # the query ids in bytewise order: a list of bytes, or an Arrow binary array (a million queries
        # held as one array take ~12 MB; as bytes objects ~90 MB, built only when a list is asked for)
        self._ids = queries
        #: judged queries the run did not rank, left out of the means (queries="both")
        self.missing = missing
        #: queries the run ranks that the qrels do not judge (never scored)
        self.only_in_run = only_in_run
        self._names = list(dict(names).items())  # one entry per label, in the order asked for
        self._values = values  # in bytewise query order: the order trec_eval adds them up in
        self.run = run_name

    @cached_property
    def _queries(self) -> list[bytes]:
        return self._ids.to_pylist() if hasattr(self._ids, "to_pylist") else list(self._ids)

    @cached_property
    def _natural(self) -> np.ndarray:
        from rankmeter.core.order import natural_order
        return natural_order(self._ids)

    @property
    def names(self) -> list[str]:
        """The measure names as asked for (trec_eval multi-cutoff names expanded: ``P_5``)."""
        return [label for label, _ in self._names]

    @property
    def measures(self) -> list[Measure]:
        """The distinct measures computed, in the order asked for."""
        return list(dict.fromkeys(m for _, m in self._names))

    @property
    def ids(self) -> list[bytes]:
        """Query ids evaluated, as the bytes the engine compares, in natural order."""
        return [self._queries[i] for i in self._natural]

    @property
    def queries(self) -> list[str]:
        """Query ids evaluated, in natural order (q2 before q10)."""
        return [decode_id(self._queries[i]) for i in self._natural]

    def query_ids(self, *, order: str = "natural") -> list[bytes]:
        """Query ids as the engine compares them (bytes): in natural order, or ``order="bytes"``:
        sorted bytewise, trec_eval's order (``rankmeter trec_eval -q`` prints and adds up in it)."""
        return self.ids if order == "natural" else list(self._queries)

    def _measure(self, key: str | Measure) -> Measure:
        if isinstance(key, Measure):
            m = key
        else:
            for given, m in self._names:
                if given == key:
                    return m
            from rankmeter.core.resolve import resolve_measures
            m = resolve_measures(key)[0][1]
        if m not in self._values:
            raise KeyError(f"{key!s} was not computed; computed: {', '.join(map(str, self.measures))}")
        return m

    def _summary(self, m: Measure) -> Any:
        """The measure's summary over the defined queries; None when that is not finite."""
        values = self._values[m]
        if _floating(values):
            defined = np.isfinite(values)
            if not defined.all():
                values = values[defined]
        out = m.summarize(values)
        if isinstance(out, (float, np.floating)) and not np.isfinite(out):
            return None
        return out

    @property
    def undefined(self) -> dict[str, int]:
        """Measure name (as asked for) -> how many queries have no value (left out of the mean);
        only the measures with at least one."""
        counts = {label: int((~np.isfinite(self._values[m])).sum()) if _floating(self._values[m]) else 0
                  for label, m in self._names}
        return {label: n for label, n in counts.items() if n}

    def __getitem__(self, key: str | Measure) -> Any:
        return self._summary(self._measure(key))

    def __contains__(self, key: object) -> bool:
        try:
            self._measure(key)  # type: ignore[arg-type]
        except (KeyError, MeasureError):
            return False
        return True

    def values(self, key: str | Measure, *, order: str = "natural") -> np.ndarray:
        """Per-query values of one measure, aligned with :attr:`queries` (natural order), or with
        ``query_ids(order="bytes")`` for ``order="bytes"``."""
        if order not in ("natural", "bytes"):
            from rankmeter.errors import ParameterError
            raise ParameterError(f"order={order!r}: expected 'natural' or 'bytes'")
        values = self._values[self._measure(key)]
        return values[self._natural] if order == "natural" else values.copy()

    @property
    def mean(self) -> dict[str, Any]:
        """Measure name (as asked for) -> summary value."""
        return {label: self._summary(m) for label, m in self._names}

    def to_arrow(self):
        """Per-query values as a pyarrow Table: ``query`` then one column per measure."""
        import pyarrow as pa
        cols = {"query": pa.array(self.queries, pa.string())}
        for label, m in self._names:
            values = self._values[m][self._natural]
            cols[label] = pa.array(values, mask=~np.isfinite(values)) if _floating(values) else pa.array(values)
        return pa.table(cols)

    @property
    def per_query(self):
        """Per-query values as a pandas DataFrame (needs pandas: pip install pandas)."""
        require("pandas", "pandas", "per_query (to_arrow() and to_polars() work without it)")
        return self.to_arrow().to_pandas()

    def to_polars(self):
        import polars as pl
        return pl.from_arrow(self.to_arrow())

    def to_dict(self, per_query: bool = False) -> dict[str, Any]:
        """JSON-ready: {"run", "mean", and with per_query=True "per_query": [{query, measure: value}]}."""
        out: dict[str, Any] = {"run": self.run, "mean": self.mean}
        undefined = self.undefined
        if undefined:
            out["undefined"] = undefined
        if per_query:
            rows = []
            for i, q in zip(self._natural, self.queries):
                row: dict[str, Any] = {"query": q}
                for label, m in self._names:
                    row[label] = plain_value(self._values[m][i])
                rows.append(row)
            out["per_query"] = rows
        return out

    def _repr_html_(self) -> str:
        from rankmeter.core.notebook import html_table
        names = self.names
        columns = [self._values[m][self._natural] for _, m in self._names]
        rows = [["mean"] + [v for v in self.mean.values()]]
        rows += [[q] + [col[i] for col in columns] for i, q in enumerate(self.queries)]
        return html_table(["query"] + names, rows, caption=f"{self.run or 'run'}: {len(self.queries)} queries")

    def __repr__(self) -> str:
        means = ", ".join(f"{k}={format_cell(v, empty=UNDEFINED)}" for k, v in self.mean.items())
        n = len(self._ids)
        return f"Results({n} quer{'y' if n == 1 else 'ies'}: {means})"


class RunsResults:
    """Scores of several runs against one qrels (from :func:`rankmeter.evaluate_runs`).

    ``table`` is one row per run, one column per measure (PyTerrier's Experiment
    shape); ``per_query`` the tidy long form (run, query, measure, value);
    ``results["bm25"]`` the :class:`Results` of one run. Run names are unique,
    by the same rule as compare and report (:func:`rankmeter.core.naming.name_runs`).
    """

    def __init__(self, named: list[tuple[str, Results]]):
        self._named = list(named)
        self.runs = [name for name, _ in named]
        self.names = named[0][1].names if named else []

    def __getitem__(self, run: str) -> Results:
        for name, results in self._named:
            if name == run:
                return results
        raise KeyError(f"no run named {run!r}; runs: {', '.join(self.runs)}")

    def __iter__(self):
        return iter(self._named)

    def __len__(self) -> int:
        return len(self._named)

    def to_arrow(self):
        """The wide table: ``run`` then one column per measure (the means)."""
        import pyarrow as pa
        cols = {"run": pa.array(self.runs, pa.string())}
        for label in self.names:
            cols[label] = pa.array([results.mean[label] for _, results in self._named])
        return pa.table(cols)

    @property
    def table(self):
        """The wide table as a pandas DataFrame (needs pandas)."""
        require("pandas", "pandas", "RunsResults.table (to_arrow() works without it)")
        return self.to_arrow().to_pandas()

    @property
    def per_query(self):
        """Tidy per-query values: run, query, measure, value (a pandas DataFrame; needs pandas)."""
        pd = require("pandas", "pandas", "RunsResults.per_query")
        rows = [(name, q, label, plain_value(v))
                for name, results in self._named for label in results.names
                for q, v in zip(results.queries, results.values(label))]
        return pd.DataFrame(rows, columns=["run", "query", "measure", "value"])

    def to_dict(self, per_query: bool = False) -> dict[str, Any]:
        return {"measures": self.names, "runs": [dict(results.to_dict(per_query), run=name)
                                                 for name, results in self._named]}

    def _repr_html_(self) -> str:
        from rankmeter.core.notebook import html_table
        rows = [[name] + list(results.mean.values()) for name, results in self._named]
        return html_table(["run"] + self.names, rows, caption=f"{len(self.runs)} runs")

    def __repr__(self) -> str:
        return f"RunsResults({', '.join(self.runs)}: {', '.join(self.names)})"
