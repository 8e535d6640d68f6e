"""The result of :func:`rankmeter.compare`: :class:`Comparison`."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from rankmeter.errors import MeasureError, ParameterError, require
from rankmeter.measures import Measure

__all__ = ["Comparison", "TABLE_COLUMNS", "PAIR_COLUMNS"]

TABLE_COLUMNS = ["measure", "system", "baseline", "mean", "baseline_mean", "delta", "p_value", "p_adjusted",
                 "ci_low", "ci_high", "effect_size", "effect_low", "effect_high", "wins", "ties", "losses", "queries"]
PAIR_COLUMNS = ["measure", "system_a", "system_b", "mean_a", "mean_b", "delta", "p_value", "p_adjusted",
                "ci_low", "ci_high", "effect_size", "effect_low", "effect_high", "wins", "ties", "losses", "queries"]


def _pandas():
    return require("pandas", "pandas", "Comparison tables (pandas DataFrames; table_records() and "
                                       "pair_records() work without it)")


class Comparison:
    """Systems compared on several measures, from :func:`rankmeter.compare`.

    Attributes
    ----------
    systems : list of str
        Run names, in the order given.
    baseline : str
        The (first) run the others are compared with in :attr:`table`.
    baselines : list of str
        Every baseline of :attr:`table` (``compare(baseline=[...])``).
    measures : list of str
        Measure names as asked for.
    test, correction : str
        The test and the multiple-comparison correction used.
    alpha : float
        Significance level.
    permutations : int
        Resamples of the random tests.
    seed : int or None
        Their seed.

    Notes
    -----
    In :attr:`table` a system's ``mean`` and ``baseline_mean`` are over the
    queries it shares with the baseline (``queries`` of them), so ``delta`` is
    their difference and the mean of the per-query differences; the
    baseline's own row is over all its queries. ``ci_low``, ``ci_high`` bound
    the mean difference at level ``1 - alpha``. ``effect_size`` is the paired
    Cohen's d_z: mean difference / standard deviation of the differences;
    ``effect_low``, ``effect_high`` its approximate ``1 - alpha`` interval
    (d_z +- z sqrt(1/n + d_z^2 / (2n)), Hedges and Olkin 1985).
    ``wins``, ``ties``, ``losses`` count queries where the system is above, equal
    to (within 1e-12) or below the baseline. ``p_adjusted`` is corrected across
    the comparisons with the baseline(s) of that measure; in :attr:`pairwise`
    across all pairs of that measure.
    """

    def __init__(self, *, systems: list[str], baseline: str, measures: list[tuple[str, Measure]],
                 baselines: list[str] | None = None,
                 queries: list[str], scores: dict[str, np.ndarray], table: list[dict], pairwise: list[dict],
                 test: str, correction: str, alpha: float, permutations: int, seed: int | None,
                 lower_is_better=()):
        self.systems = list(systems)
        self.baseline = baseline
        self.baselines = list(baselines) if baselines else [baseline]
        self._measures = list(measures)
        self._queries = queries
        self._scores = scores
        self._table = table
        self._pairwise = pairwise
        self.test = test
        self.correction = correction
        self.alpha = alpha
        self.permutations = permutations
        self.seed = seed
        #: measures whose smaller values are better (ARP, popularity lift): "better than" follows them
        self.lower_is_better = frozenset(lower_is_better)

    @property
    def measures(self) -> list[str]:
        """Measure names as asked for (trec_eval multi-cutoff names expanded)."""
        return [label for label, _ in self._measures]

    @property
    def queries(self) -> list[str]:
        """Every query scored by at least one run, in natural order (q2 before q10)."""
        return list(self._queries)

    def table_records(self) -> list[dict[str, Any]]:
        """The rows of :attr:`table` as dicts (no pandas needed)."""
        return [dict(r) for r in self._table]

    def pair_records(self) -> list[dict[str, Any]]:
        """The rows of :attr:`pairwise` as dicts (no pandas needed)."""
        return [dict(r) for r in self._pairwise]

    @property
    def table(self):
        """One row per (measure, system), the baseline included: see the class notes for the columns."""
        return _pandas().DataFrame(self._table, columns=TABLE_COLUMNS)

    @property
    def pairwise(self):
        """One row per (measure, pair of systems): ``delta = mean_a - mean_b`` and the same statistics."""
        return _pandas().DataFrame(self._pairwise, columns=PAIR_COLUMNS)

    @property
    def scores(self) -> dict[str, np.ndarray]:
        """Measure name -> (queries x systems) per-query values, NaN where a run lacks a query."""
        return dict(self._scores)

    @property
    def per_query(self) -> dict[str, Any]:
        """Measure name -> DataFrame of per-query values (index ``query``, one column per system).

        NaN where a run did not answer a query (``queries="both"``).
        """
        pd = _pandas()
        index = pd.Index(self._queries, name="query")
        return {label: pd.DataFrame(self._scores[label], index=index, columns=self.systems)
                for label in self.measures}

    def _label(self, measure: str | Measure) -> str:
        labels = self.measures
        if isinstance(measure, str) and measure in labels:
            return measure
        try:
            from rankmeter.core.resolve import resolve_measures
            wanted = resolve_measures(measure)[0][1]
        except (MeasureError, ParameterError):
            wanted = None
        for label, m in self._measures:
            if m == wanted:
                return label
        raise KeyError(f"{measure!s} was not compared; compared: {', '.join(labels)}")

    def _pair(self, measure: str | Measure, a: str, b: str) -> tuple[dict, bool]:
        """The pairwise row of a and b, and whether it holds b - a rather than a - b."""
        for name in (a, b):
            if name not in self.systems:
                raise KeyError(f"{name!r} is not one of the systems: {', '.join(self.systems)}")
        label = self._label(measure)
        for row in self._pairwise:
            if row["measure"] == label and {row["system_a"], row["system_b"]} == {a, b}:
                return row, row["system_a"] != a
        raise KeyError(f"no comparison of {a!r} with itself")

    def significant(self, measure: str | Measure, a: str, b: str) -> bool:
        """Whether systems a and b differ significantly on ``measure`` (either direction).

        Uses :attr:`pairwise`: ``p_adjusted < alpha``, the correction taken
        across all pairs of systems of that measure (the family of the
        superscripts in the comparison tables). False for ``a == b``.
        """
        if a == b and a in self.systems:
            return False
        row, _ = self._pair(measure, a, b)
        p = row["p_adjusted"]
        return bool(not math.isnan(p) and p < self.alpha)

    def beats(self, measure: str | Measure, system: str) -> list[str]:
        """The systems that ``system`` is significantly better than on ``measure``, in system order."""
        out = []
        for other in self.systems:
            if other != system and self.significant(measure, system, other):
                row, flipped = self._pair(measure, system, other)
                gain = -row["delta"] if flipped else row["delta"]
                if (-gain if self._label(measure) in self.lower_is_better else gain) > 0:
                    out.append(other)
        return out

    def mean(self, measure: str | Measure, system: str) -> float:
        """A system's mean on ``measure`` over its queries in this comparison."""
        label = self._label(measure)
        if system not in self.systems:
            raise KeyError(f"{system!r} is not one of the systems: {', '.join(self.systems)}")
        col = self._scores[label][:, self.systems.index(system)]
        if self.test == "tukey":
            col = self._scores[label][~np.isnan(self._scores[label]).any(axis=1), self.systems.index(system)]
        col = col[~np.isnan(col)]
        return float(col.mean()) if len(col) else math.nan

    def _repr_html_(self) -> str:
        from rankmeter.core.notebook import html_table
        columns = ["measure", "system", "mean", "delta", "p_value", "p_adjusted", "ci_low", "ci_high",
                   "effect_size", "wins", "ties", "losses"]
        import math
        rows = []
        for r in self.table_records():
            base = r.get("system") == r.get("baseline")  # the baseline's own row: no test, no wins
            rows.append([None if base and c in ("delta", "p_value", "p_adjusted", "ci_low", "ci_high", "effect_size",
                                                "wins", "ties", "losses")
                         else None if isinstance(r.get(c), float) and math.isnan(r.get(c)) else r.get(c)
                         for c in columns])
        correction = "no correction" if self.correction == "none" else f"{self.correction} correction"
        return html_table(columns, rows, caption=f"{self.test} test, {correction}, baseline {self.baseline}")

    def __repr__(self) -> str:
        return (f"Comparison({len(self.systems)} systems, baseline={self.baseline!r}, "
                f"measures={self.measures}, test={self.test!r}, correction={self.correction!r}, "
                f"{len(self._queries)} queries)")
