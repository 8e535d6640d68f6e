"""What each figure shows, computed once: the specification both painters draw.

:mod:`.svg` draws a specification as the report's SVG (the one renderer of the report and of
``rankmeter report``); :mod:`.plots` draws the same specification with matplotlib for the
``plot_*`` functions and ``rankmeter plot`` (PNG, or an SVG of matplotlib's). Everything a reader
takes from a figure -- which queries, in which order, a tie told from a loss, the means, the
quartiles and whiskers, the counts, the titles and labels -- is decided here, never by a painter.

>>> spec = diff_spec(np.array([0.5, 1.0, 1.0]), np.array([1.0, 0.5, 1.0]), ["q1", "q2", "q3"], "RR", "new", "base")
>>> spec.queries, spec.deltas.tolist(), spec.summary
(['q1', 'q3', 'q2'], [0.5, 0.0, -0.5], '1 better, 1 tied, 1 worse')
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rankmeter.core.numbers import format_number
from rankmeter.errors import ParameterError

__all__ = ["DiffFigure", "BoxFigure", "PRFigure", "diff_spec", "box_spec", "pr_spec", "short_label",
           "UP", "DOWN", "NEUTRAL", "SERIES"]

#: colours: a gain, a loss, neither; the series of the curves
UP, DOWN, NEUTRAL = "#2b7bba", "#d6604d", "#555555"
SERIES = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f")
#: at most this many queries are named under their bars
NAMED_QUERIES = 40


def short_label(text: object, limit: int = 32) -> str:
    """Text from the data as a figure shows it: at most ``limit`` characters, the rest cut to an ellipsis."""
    text = str(text)
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


@dataclass(frozen=True)
class DiffFigure:
    """Sorted per-query differences ``system - baseline`` over the queries both have (ties as 0)."""

    measure: str
    system: str
    baseline: str
    deltas: np.ndarray          # largest first
    queries: list[str]          # in the same order
    title: str
    xlabel: str
    ylabel: str
    summary: str                # "3 better, 1 tied, 2 worse"
    mean_text: str              # "mean Δ = +0.0123"

    @property
    def mean(self) -> float:
        return float(self.deltas.mean()) if len(self.deltas) else 0.0

    @property
    def named(self) -> bool:
        """Whether the queries are named under their bars (a few of them)."""
        return 0 < len(self.deltas) <= NAMED_QUERIES


def diff_spec(base_values, system_values, queries: Sequence[str], measure: str, system: str,
              baseline: str) -> DiffFigure:
    """The difference figure of two systems' per-query values (NaN: no value), aligned on ``queries``."""
    a, b = np.asarray(base_values, float), np.asarray(system_values, float)
    both = ~(np.isnan(a) | np.isnan(b))
    if not both.any():
        raise ParameterError(f"{system} and {baseline} have no query in common: there is no difference to plot")
    delta = (b - a)[both]
    # a difference within rounding of 0 is a tie (drawn as none, not as a tiny loss)
    tied = np.abs(delta) <= 1e-12 * np.maximum(1.0, np.maximum(np.abs(a[both]), np.abs(b[both])))
    delta = np.where(tied, 0.0, delta)
    kept = [q for q, keep in zip(queries, both) if keep]
    order = np.argsort(-delta, kind="stable")
    delta = delta[order]
    n, wins, losses = len(delta), int((delta > 0).sum()), int((delta < 0).sum())
    return DiffFigure(
        measure, system, baseline, delta, [str(kept[i]) for i in order],
        title=f"{short_label(measure)}, per query\n{short_label(system, 28)} \u2212 {short_label(baseline, 28)}",
        xlabel=f"queries, sorted by difference (n = {n})", ylabel=f"\u0394 {short_label(measure)}",
        summary=f"{wins} better, {n - wins - losses} tied, {losses} worse",
        mean_text=f"mean \u0394 = {format_number(float(delta.mean()), sign=True)}")


@dataclass(frozen=True)
class BoxFigure:
    """Per system its per-query values, their box (quartiles, median, whiskers to 1.5 IQR) and mean."""

    measure: str
    systems: list[str]
    values: list[np.ndarray]    # per system, the defined values
    boxes: list[dict | None]    # per system: q1, median, q3, low, high, mean (None without values)
    jitter: list[np.ndarray]    # per system, each point's offset from its box's centre, in box widths
    title: str
    ylabel: str
    legend: str = "\u2014 median   \u25c7 mean"


def box_spec(columns: Sequence, systems: Sequence[str], measure: str) -> BoxFigure:
    """The distribution figure of per-query values (one column per system; NaN: no value)."""
    values = [np.asarray(c, float)[~np.isnan(np.asarray(c, float))] for c in columns]
    boxes = []
    for d in values:
        if not len(d):
            boxes.append(None)
            continue
        q1, med, q3 = np.percentile(d, [25, 50, 75])
        iqr = q3 - q1
        boxes.append({"q1": float(q1), "median": float(med), "q3": float(q3),
                      "low": float(d[d >= q1 - 1.5 * iqr].min()), "high": float(d[d <= q3 + 1.5 * iqr].max()),
                      "mean": float(d.mean())})
    rng = np.random.default_rng(0)  # fixed jitter: the same data draw the same picture
    jitter = [rng.uniform(-0.12, 0.12, len(d)) for d in values]
    return BoxFigure(str(measure), [str(s) for s in systems], values, boxes, jitter,
                     title=f"{short_label(measure)} per query", ylabel=short_label(measure))


@dataclass(frozen=True)
class PRFigure:
    """Interpolated precision-recall curves: (system, recall levels, mean precision at each)."""

    curves: list[tuple[str, list[float], list[float]]]
    title: str = "Interpolated precision-recall"
    xlabel: str = "recall"
    ylabel: str = "interpolated precision (mean over queries)"


def pr_spec(curves) -> PRFigure:
    return PRFigure([(str(name), [float(r) for r in recall], [float(p) for p in precision])
                     for name, recall, precision in curves])
