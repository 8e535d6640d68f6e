"""ranx's ``fuse``, ``normalize`` and ``optimize_fusion`` over :func:`rankmeter.fuse`.

Every method and normalisation of ranx 0.3 (``wsum``, ``rrf``, ``bordafuse``, ``probfuse``, ...) is
rankmeter's own (:mod:`rankmeter.fusion`, tested against ranx per query and doc). Runs are
ranked for the rank-based methods in the order a :class:`~rankmeter.compat.ranx.Run` holds them
(score descending; tied docs as given, ``ties="input"``), where ranx's numba sort leaves ties in an
arbitrary order. ``optimize_fusion`` searches ranx's grids (its defaults and keyword arguments:
``step``, ``min_k`` / ``max_k``, ``min_phi`` ...), scores each fused run with ranx's metric and
keeps the last best, as ranx does.

>>> from rankmeter.compat.ranx import Run, fuse
>>> bm25 = Run({"q1": {"a": 3.0, "b": 2.0}}, name="bm25")
>>> dense = Run({"q1": {"b": 0.9, "c": 0.4}}, name="dense")
>>> fused = fuse([bm25, dense], norm="min-max", method="wsum", params={"weights": [0.5, 0.5]})
>>> fused.name, dict(fused.to_dict())
('weighted_sum', {'q1': {'a': 0.5, 'b': 0.5, 'c': 0.0}})
"""
from __future__ import annotations

import itertools

import numpy as np

from rankmeter.compat.ranx.data import Qrels, Run
from rankmeter.compat.ranx.evaluation import as_dict
from rankmeter.compat.ranx.fusion_methods import *  # noqa: F403 - ranx.fusion's functions, one per method
from rankmeter.compat.ranx.fusion_methods import WEIGHTED, check_same_queries, fused_run
from rankmeter.compat.ranx.fusion_methods import __all__ as _METHODS
from rankmeter.compat.ranx.normalization import normalize  # noqa: F401 - ranx.fusion's neighbour, kept here too
from rankmeter.errors import ParameterError

__all__ = ["OptimizationReport", "fuse", "normalize", "optimize_fusion", *_METHODS]

_TRAINING_ONLY = ("bayesfuse", "mapfuse", "posfuse", "segfuse")
#: ranx's optimisation report labels
_METHOD_LABELS = {"logn_isr": ("LogN_ISR", "Sigma"), "gmnz": ("GMNZ", "Gamma"), "mixed": ("Mixed", "Weights"),
                  "probfuse": ("ProbFuse", "# Segments"), "rbc": ("RBC", "phi"), "rrf": ("RRF", "k"),
                  "slidefuse": ("SlideFuse", "w"), "w_bordafuse": ("Weighted BordaFuse", "Weights"),
                  "w_condorcet": ("Weighted Condorcet", "Weights"), "wmnz": ("WMNZ", "Weights"),
                  "wsum": ("Weighted SUM", "Weights")}


def fuse(runs: list, norm: str | None = "min-max", method: str = "wsum", params: dict | None = None) -> Run:
    """ranx's ``fuse``: the fused :class:`Run`, named as ranx names it (``weighted_sum``, ``rrf``, ...)."""
    check_same_queries(runs)
    return fused_run(runs, method, norm, params)


def _weights(step: float, n_runs: int) -> list[tuple]:
    """ranx's weight grid: multiples of ``step`` rounded to its decimals, tuples summing exactly to 1.0."""
    digits = str(step)[::-1].find(".")
    ticks = [round(x, digits) for x in np.arange(0, 1 + step, step)]
    return [w for w in itertools.product(ticks, repeat=n_runs) if sum(w) == 1.0]


def _range(low: float, high: float, step: float) -> list[float]:
    digits = str(step)[::-1].find(".")
    return [round(x, digits) for x in np.arange(low, high + step, step)]


def _trials(method: str, n_runs: int, kw: dict) -> list[dict]:
    """ranx's grid of ``method`` with its keyword arguments (``step``, ``min_k``, ...)."""
    if method in WEIGHTED:
        return [{"weights": w} for w in _weights(kw.get("step", 0.1), n_runs)]
    if method == "rrf":
        return [{"k": k} for k in range(kw.get("min_k", 10), kw.get("max_k", 100) + 1, kw.get("step", 10))]
    grids = {"rbc": "phi", "gmnz": "gamma", "logn_isr": "sigma"}
    if method in grids:
        p = grids[method]
        values = _range(kw.get(f"min_{p}", 0.01), kw.get(f"max_{p}", 1.0), kw.get("step", 0.01))
        # RBC with phi = 1 gives every doc 0 (a ranking of ties only): ranx tries it, rankmeter refuses it
        return [{p: v} for v in values if not (method == "rbc" and v >= 1)]
    if method == "probfuse":
        return [{"n_segments": n} for n in range(kw.get("min_n_segments", 1), kw.get("max_n_segments", 100) + 1)]
    if method == "slidefuse":
        return [{"w": w} for w in range(kw.get("min_w", 1), kw.get("max_w", 100) + 1)]
    raise ParameterError(f"{method} does not support optimization.")


def optimize_fusion(qrels: Qrels, runs: list, norm: str | None = "min-max", method: str = "wsum",
                    metric: str = "ndcg", return_optimization_report: bool = False, rounding_digits: int = 3,
                    show_percentages: bool = False, **kwargs):
    """ranx's ``optimize_fusion``: the best parameters (``{"weights": (0.3, 0.7)}``, ``{"k": 60}``, ...)."""
    from rankmeter.fusion.trained import train
    from rankmeter.compat.ranx.evaluation import evaluate

    check_same_queries(runs, qrels)
    judged = as_dict(qrels, "qrels")
    ranked = [as_dict(run, "run") for run in runs]
    if method in _TRAINING_ONLY:
        if return_optimization_report:
            raise ParameterError(f"{method} does not support optimization report.")
        return train(judged, ranked, method)
    trials = _trials(method, len(runs), kwargs)
    slide = train(judged, ranked, "slidefuse") if method == "slidefuse" else {}
    best_score, best, report = 0.0, {}, {}
    for params in trials:
        if method == "probfuse":
            chosen = train(judged, ranked, "probfuse", n_segments=params["n_segments"])
        else:
            chosen = {**slide, **params}
        try:
            fused = fused_run(runs, method, norm, chosen)
        except ParameterError as exc:
            raise ParameterError(f"optimize_fusion: the grid's {params} is refused ({exc}); start the grid "
                                 "inside the range (min_phi=, min_gamma=, min_sigma=, step=)") from None
        score = evaluate(qrels, fused, metric, save_results_in_run=False)
        report[str(next(iter(params.values())))] = score
        if score >= best_score:  # ranx keeps the last of equal scores
            best_score, best = score, chosen
    if return_optimization_report:
        return best, OptimizationReport(method, list(report), list(report.values()), metric, rounding_digits,
                                        show_percentages)
    return best


class OptimizationReport:
    """The trials of :func:`optimize_fusion`: each setting and its score (``to_table`` / ``str`` print them)."""

    def __init__(self, method, configs, results, metric, rounding_digits=3, show_percentages=False):
        self.method, self.configs, self.results, self.metric = method, configs, results, metric
        self.rounding_digits, self.show_percentages = rounding_digits, show_percentages

    def format_score(self, score: float) -> str:
        if self.show_percentages:
            return f"{round(score * 100, max(0, self.rounding_digits - 2)):.{self.rounding_digits - 2}f}"
        return f"{round(score, self.rounding_digits):.{self.rounding_digits}f}"

    def to_table(self) -> str:
        from rankmeter.compat.ranx.report import _label
        title, parameter = _METHOD_LABELS[self.method]
        best = int(np.argmax(self.results))
        rows = [(str(c), self.format_score(s) + ("  <- best" if i == best else ""))
                for i, (c, s) in enumerate(zip(self.configs, self.results))]
        head = (parameter, _label(self.metric))
        width = max(len(r[0]) for r in rows + [head])
        return "\n".join([title, f"{head[0]:<{width}}  {head[1]}"] + [f"{c:<{width}}  {s}" for c, s in rows])

    __repr__ = __str__ = to_table
