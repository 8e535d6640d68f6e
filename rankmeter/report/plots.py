"""Plots for comparing runs: per-query differences, precision-recall, distributions.

Each is the figure the report draws as SVG (:mod:`.svg`), from the same specification
(:mod:`.figures`: the queries, their order, ties, means, quartiles, titles and labels), drawn here
with matplotlib as an output format: a PNG, or matplotlib's own SVG.

matplotlib is an optional extra (``pip install matplotlib``), imported
only when a plot is drawn. Figures are built with the object-oriented API on
the Agg canvas, never through ``pyplot``, so drawing a plot does not change
the caller's backend or open a window. Every function returns the
:class:`matplotlib.figure.Figure`; :func:`save` writes it as PNG or SVG.

Runs are named by their run tag (or file name when the tag is empty or
repeated); ``runs`` may also be a dict name -> run. Labels taken from the data
(run tags, query ids) are drawn literally: a ``$`` never starts mathtext.

>>> qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
>>> runs = {"base": {"q1": ["x", "a"], "q2": ["b"]}, "new": {"q1": ["a"], "q2": ["x", "b"]}}
>>> table = per_query_table(qrels, runs, "RR")
>>> table.queries, table.systems
(['q1', 'q2'], ['base', 'new'])
>>> table.values.tolist()
[[0.5, 1.0], [1.0, 0.5]]
"""
from __future__ import annotations

import io
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np

from rankmeter.core.keywords import EvaluationOptions, Unpack, takes_options
from rankmeter.core.options import Options, validate_options
from rankmeter.engine.param import validate_params
from rankmeter.errors import ParameterError, require
from rankmeter.report.figures import DOWN, NEUTRAL, SERIES, UP, box_spec, diff_spec, pr_spec, short_label
from rankmeter.report.params import PAIR, RECALL_LEVELS, RECALLS, STYLE

if TYPE_CHECKING:
    from rankmeter.core.results import Results


__all__ = ["plot_diff", "plot_pr", "plot_distribution", "save", "svg_text", "pr_curves",
           "per_query_table", "PerQueryTable", "RECALL_LEVELS"]


def _figure(width: float, height: float):
    """A new Figure on an Agg canvas (no pyplot, no global backend change)."""
    FigureCanvasAgg = require("matplotlib.backends.backend_agg", "plot", "plots").FigureCanvasAgg
    Figure = require("matplotlib.figure", "plot", "plots").Figure
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _label(text: object, limit: int = 32) -> str:
    """Text from the data, shortened as every figure shortens it, made literal for matplotlib."""
    return _literal(short_label(text, limit))


def _literal(text: str) -> str:
    """Text matplotlib draws as written (``$`` would start mathtext)."""
    return text.replace("$", r"\$")


# ------------------------------------------------------------------ data

@dataclass
class PerQueryTable:
    """Per-query values of one measure: ``values[i, j]`` is system j on query i.

    ``values`` is NaN where a system has no value for a query (with the
    default query policy, a query the run did not answer).
    """

    measure: str
    queries: list[str]
    systems: list[str]
    values: np.ndarray

    @classmethod
    def from_frame(cls, measure: str, frame) -> "PerQueryTable":
        """From a pandas DataFrame of queries (index) x systems (columns)."""
        return cls(str(measure), [str(q) for q in frame.index], [str(c) for c in frame.columns],
                   frame.to_numpy(dtype=float, na_value=np.nan))

    def column(self, system: str) -> np.ndarray:
        """Values of one system (NaN where it has none)."""
        try:
            return self.values[:, self.systems.index(system)]
        except ValueError:
            raise ParameterError(f"no system named {system!r}; systems: {', '.join(self.systems)}") from None


def align_per_query(measure: str, results: list[tuple[str, Results]]) -> PerQueryTable:
    """Union of the systems' queries in natural order (q2 before q10, as every table), NaN where absent."""
    from rankmeter.core.order import natural_order

    union = list(dict.fromkeys(q for _, r in results for q in r.queries))
    queries = [union[i] for i in natural_order(union)]
    index = {q: i for i, q in enumerate(queries)}
    values = np.full((len(queries), len(results)), np.nan)
    for j, (_, r) in enumerate(results):
        rows = np.fromiter((index[q] for q in r.queries), dtype=np.int64, count=len(r.queries))
        values[rows, j] = r.values(measure).astype(float)
    return PerQueryTable(measure, queries, [n for n, _ in results], values)


def _evaluate_runs(qrels, runs, measures, options: Options) -> list[tuple[str, Results]]:
    """(name, :class:`~rankmeter.Results`) for every run, the qrels prepared once."""
    from rankmeter.core import Evaluator
    return list(Evaluator.of(qrels, measures, options).evaluate_runs(runs))


def _per_query_table(qrels, runs, measure: str, options: Options) -> PerQueryTable:
    results = _evaluate_runs(qrels, runs, [measure], options)
    return align_per_query(results[0][1].names[0], results)


@takes_options(in_memory=True)
def per_query_table(qrels, runs, measure: str, **options: Unpack[EvaluationOptions]) -> PerQueryTable:
    """Evaluate ``measure`` on every run; queries x systems values.

    Parameters
    ----------
    qrels : path, Qrels, dict or DataFrame
        Judgments, as for :func:`rankmeter.evaluate`.
    runs : dict or list
        ``{name: run}``, or a list of runs named by run tag (else file name).
    measure : str
        One measure, e.g. ``"nDCG@10"``.
    %(evaluation_options)s

    Returns
    -------
    PerQueryTable
    """
    return _per_query_table(qrels, runs, measure, validate_options(**options))


# ------------------------------------------------------------------ drawing (from tables)

def diff_figure(table: PerQueryTable, baseline: str, system: str):
    """Sorted per-query differences ``system - baseline`` over the queries both have (:func:`.figures.diff_spec`)."""
    spec = diff_spec(table.column(baseline), table.column(system), table.queries, table.measure, system, baseline)
    delta, n = spec.deltas, len(spec.deltas)
    fig = _figure(6.5, 3.8)
    ax = fig.add_subplot()
    x = np.arange(n)
    colors = np.where(delta > 0, UP, np.where(delta < 0, DOWN, NEUTRAL))
    if n <= 300:
        ax.bar(x, delta, width=0.85, color=colors, linewidth=0)
    else:  # one filled path instead of thousands of bars keeps the SVG small
        ax.fill_between(x, 0, delta, where=delta >= 0, step="mid", color=UP, linewidth=0)
        ax.fill_between(x, 0, delta, where=delta <= 0, step="mid", color=DOWN, linewidth=0)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.axhline(spec.mean, color="black", linestyle="--", linewidth=1, label=_literal(spec.mean_text))
    ax.legend(loc="upper right", frameon=False, title=spec.summary)
    if spec.named:
        ax.set_xticks(x, [_label(q, 16) for q in spec.queries], rotation=90, fontsize=7)
    else:
        ax.set_xticks([])
    ax.set_xlim(-0.6, max(n, 1) - 0.4)
    ax.set_xlabel(spec.xlabel)
    ax.set_ylabel(_literal(spec.ylabel))
    ax.set_title(_literal(spec.title), fontsize=10)
    return fig


@validate_params(STYLE)
def distribution_figure(table: PerQueryTable, *, style: Literal["box", "violin", "strip"] = "box"):
    """Per-query values per system (:func:`.figures.box_spec`): box (with points), violin or strip."""
    spec = box_spec(list(table.values.T), table.systems, table.measure)
    data, k = spec.values, len(spec.values)
    fig = _figure(max(3.6, 1.1 * k + 1.6), 3.8)
    ax = fig.add_subplot()
    pos = np.arange(1, k + 1)
    if style == "box":
        stats = [{"med": b["median"], "q1": b["q1"], "q3": b["q3"], "whislo": b["low"], "whishi": b["high"],
                  "mean": b["mean"], "fliers": []} for b in spec.boxes if b is not None]
        ax.bxp(stats, positions=[p for p, b in zip(pos, spec.boxes) if b is not None], widths=0.5,
               showmeans=True, showfliers=False, medianprops={"color": "black"},
               meanprops={"marker": "D", "markerfacecolor": "white", "markeredgecolor": "black"})
        from matplotlib.lines import Line2D
        ax.legend(handles=[Line2D([], [], color="black", label="median"),
                           Line2D([], [], marker="D", linestyle="", markerfacecolor="white",
                                  markeredgecolor="black", label="mean")],
                  loc="upper right", frameon=False, fontsize=8)
    elif style == "violin":
        shown = [i for i, d in enumerate(data) if len(d) > 1]
        if shown:
            parts = ax.violinplot([data[i] for i in shown], positions=pos[shown], widths=0.7,
                                  showmeans=True, showextrema=True)
            for body in parts["bodies"]:
                body.set_alpha(0.35)
    spread = 0.2 / 0.12 if style == "strip" else 1.0  # a strip's points spread wider than a box's
    for p, d, jitter in zip(pos, data, spec.jitter):
        ax.scatter(p + jitter * spread, d, s=10, alpha=0.7, color=UP if style == "strip" else NEUTRAL,
                   linewidths=0, zorder=3)
        if style == "strip" and len(d):
            ax.hlines(d.mean(), p - 0.3, p + 0.3, color="black", linewidth=1.5, zorder=4)
    ax.set_xticks(pos, [_label(s, 16) for s in spec.systems], rotation=20 if k > 3 else 0)
    ax.set_xlim(0.4, k + 0.6)
    ax.set_ylabel(_literal(spec.ylabel))
    ax.set_title(_literal(f"{spec.title} ({style})"), fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    return fig


def pr_figure(curves: Sequence[tuple[str, Sequence[float], Sequence[float]]]):
    """Interpolated precision-recall curves from (system, recall levels, mean precisions) (:func:`.figures.pr_spec`)."""
    spec = pr_spec(curves)
    fig = _figure(5.6, 4.2)
    ax = fig.add_subplot()
    for k, (name, recall, precision) in enumerate(spec.curves):
        ax.plot(recall, precision, marker="o", markersize=4, linewidth=1.5, label=_label(name, 24),
                color=SERIES[k % len(SERIES)])
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel(spec.xlabel)
    ax.set_ylabel(spec.ylabel)
    ax.set_title(spec.title)
    ax.grid(alpha=0.3)
    if spec.curves:
        ax.legend(loc="upper right", frameon=False)
    return fig


def mean_pr_curves(qrels, runs, recalls: Sequence[float], options: Options) -> list[tuple[str, list[float], list[float]]]:
    levels = sorted(float(r) for r in recalls)
    names = [f"IPrec@{r:g}" for r in levels]
    return [(name, levels, [float(res[n]) for n in names])
            for name, res in _evaluate_runs(qrels, runs, names, options)]


@takes_options(in_memory=True)
@validate_params(RECALLS)
def pr_curves(qrels, runs, *, recalls: Sequence[float] = RECALL_LEVELS,
              **options: Unpack[EvaluationOptions]) -> list[tuple[str, list[float], list[float]]]:
    """(system, recalls, mean IPrec at each recall) for every run.

    Parameters
    ----------
    qrels, runs, recalls
        As for :func:`plot_pr`.
    %(evaluation_options)s
    """
    return mean_pr_curves(qrels, runs, recalls, validate_options(**options))


# ------------------------------------------------------------------ public plots

@takes_options(in_memory=True)
@validate_params(PAIR)
def plot_diff(qrels, runs, measure: str, *, pair: Sequence[str] | None = None, **options: Unpack[EvaluationOptions]):
    """Sorted per-query differences between two systems, with zero and mean lines.

    Parameters
    ----------
    qrels : as for :func:`rankmeter.evaluate`
    runs : dict name -> run, or a sequence of runs/paths (at least two)
    measure : str
        One measure, e.g. ``"nDCG@10"``.
    pair : (baseline, system), optional
        Names of the two systems; the difference is ``system - baseline``.
        Default: the first two runs.
    %(evaluation_options)s

    Returns
    -------
    matplotlib.figure.Figure
    """
    table = _per_query_table(qrels, runs, measure, validate_options(**options))
    if pair is None:
        if len(table.systems) < 2:
            raise ParameterError("a difference plot needs two runs")
        pair = table.systems[:2]
    if len(pair) != 2:
        raise ParameterError(f"pair={pair!r}: name exactly two systems (baseline, system)")
    return diff_figure(table, str(pair[0]), str(pair[1]))


@takes_options(in_memory=True)
@validate_params(RECALLS)
def plot_pr(qrels, runs, *, recalls: Sequence[float] = RECALL_LEVELS, **options: Unpack[EvaluationOptions]):
    """Interpolated precision-recall curves, one per run (``IPrec@r`` averaged over queries).

    Parameters
    ----------
    qrels, runs
        As for :func:`plot_diff`.
    recalls : sequence of float, default the eleven levels 0.0, 0.1, ..., 1.0
        The recall levels, each in [0, 1].
    %(evaluation_options)s

    Returns
    -------
    matplotlib.figure.Figure
    """
    return pr_figure(mean_pr_curves(qrels, runs, recalls, validate_options(**options)))


@takes_options(in_memory=True)
@validate_params(STYLE)
def plot_distribution(qrels, runs, measure: str, *, style: Literal["box", "violin", "strip"] = "box",
                      **options: Unpack[EvaluationOptions]):
    """Per-query values of ``measure`` for each run, drawn as boxes (with the points), violins or strips.

    Parameters
    ----------
    qrels, runs, measure
        As for :func:`plot_diff`.
    style : {"box", "violin", "strip"}, default "box"
        How to draw each run's values (``rankmeter plot --kind dist --style``).
    %(evaluation_options)s

    Returns
    -------
    matplotlib.figure.Figure
    """
    return distribution_figure(_per_query_table(qrels, runs, measure, validate_options(**options)), style=style)


# ------------------------------------------------------------------ output

def _svg_rc(salt: str) -> dict:
    # fonttype "none": labels stay <text> (escaped by matplotlib) rather than glyph paths;
    # a fixed hash salt makes ids reproducible, and distinct per figure when inlined together.
    return {"svg.fonttype": "none", "svg.hashsalt": salt}


def save(fig, path, *, dpi: int = 150, inputs=()) -> Path:
    """Write ``fig`` to ``path``: PNG or SVG, chosen by the extension (never over one of ``inputs``).

    Returns
    -------
    pathlib.Path
    """
    import matplotlib

    from rankmeter.io.output import output_file

    path = Path(path)
    ext = path.suffix.lower().lstrip(".")
    with output_file(path, inputs=inputs, suffixes=(".png", ".svg"), mode="wb") as fh, \
            matplotlib.rc_context(_svg_rc("rankmeter")):
        metadata = {"Date": None} if ext == "svg" else {"Software": "rankmeter"}
        fig.savefig(fh, format=ext, dpi=dpi, metadata=metadata)
    return path


_PROLOG = re.compile(r"\A.*?(?=<svg\b)", re.S)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.S)


def svg_text(fig, *, id_prefix: str = "") -> str:
    """The figure as an ``<svg>`` element to inline in HTML.

    The XML prolog, DOCTYPE, comments and metadata are removed; text is kept
    as ``<text>`` elements, which matplotlib escapes. Give each figure of one
    page its own ``id_prefix``: element ids and the references to them are
    prefixed, so that several figures never share an id.
    """
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context(_svg_rc("rankmeter")):
        fig.savefig(buf, format="svg", metadata={"Date": None})
    text = _PROLOG.sub("", buf.getvalue(), count=1)
    text = _METADATA.sub("", _COMMENT.sub("", text)).strip()
    if id_prefix:
        # Only inside tags: matplotlib escapes < and > in text and attributes, so <...> is a real tag.
        text = _TAG.sub(lambda m: _REF.sub(lambda r: r.group(1) + id_prefix, m.group(0)), text)
    return text


_TAG = re.compile(r"<[^>]*>")
_REF = re.compile(r"""(\sid=["']|href=["']#|url\(#)""")
