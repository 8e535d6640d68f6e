"""Choosing a fusion method's parameters on training queries (grid search, as ranx's optimize_fusion).

>>> runs = [{"q": {"a": 3.0, "b": 1.0}}, {"q": {"b": 2.0, "a": 1.0}}]
>>> best = optimise(runs, {"q": {"a": 1}}, method="wsum", measure="RR", step=0.5)
>>> best.params, best.score
({'weights': (1.0, 0.0)}, 1.0)
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from rankmeter.fusion.catalog import FUSE_OPTIONS
from rankmeter.engine.param import validate_params
from rankmeter.errors import ParameterError

__all__ = ["optimise", "Optimised", "default_grid"]


@dataclass
class Optimised:
    """The best parameters found, their training score, the held-out score, and every trial."""

    params: dict
    score: float
    held_out: float | None = None
    trials: list[tuple[dict, float]] = field(default_factory=list)


def default_grid(method: str, runs: int, step: float = 0.1) -> list[dict]:
    """ranx-like grids: weights on the simplex in ``step``s; k, phi, gamma, sigma over common values."""
    if method in ("wsum", "wmnz", "mixed", "w_bordafuse", "w_condorcet"):
        ticks = np.round(np.arange(0, 1 + 1e-9, step), 10)
        return [{"weights": w} for w in itertools.product(ticks.tolist(), repeat=runs) if abs(sum(w) - 1) < 1e-9]
    return {"rrf": [{"k": k} for k in (1, 5, 10, 20, 40, 60, 80, 100)],
            "rbc": [{"phi": p} for p in np.round(np.arange(0.1, 0.95, 0.1), 10).tolist()],
            "gmnz": [{"gamma": g} for g in np.round(np.arange(0.1, 1.05, 0.1), 10).tolist()],
            "logn_isr": [{"sigma": s} for s in (0.001, 0.01, 0.1, 1.0)],
            # ranx's optimize_probfuse / optimize_slidefuse ranges
            "probfuse": [{"n_segments": k} for k in range(1, 101)],
            "slidefuse": [{"w": w} for w in range(1, 101)]}.get(method, [{}])


@validate_params(FUSE_OPTIONS["method"].but(default="wsum"), FUSE_OPTIONS["norm"], FUSE_OPTIONS["step"])
def optimise(runs, qrels, *, method: str = "wsum", measure: str = "nDCG@10", norm: str | None = "min-max",
             grid: list[dict] | None = None, step: float = 0.1, test_qrels=None, progress: bool | None = None,
             **options) -> Optimised:
    """The parameters of ``method`` that maximise ``measure`` over ``qrels`` (the training queries).

    ``test_qrels`` (the held-out queries) scores the chosen parameters once. The qrels are
    prepared once for all trials (one :class:`~rankmeter.core.Evaluator`). ``options`` (``rel``,
    ``ties``, ``judged_only``, ``max_docs`` ...) reach everything: the trained methods' tables are
    estimated under them, each fused run is scored under them, and ``ties`` (``trec_eval`` or
    ``input``) also ranks the runs' tied docs for fusing (any other tie policy only scores).
    """
    from rankmeter.fusion.catalog import TIES
    from rankmeter.core import Evaluator
    from rankmeter.executors.progress import Progress
    from rankmeter.core.options import validate_options
    from rankmeter.fusion.methods import fuse_read, read_runs

    if grid is not None and (isinstance(grid, (str, bytes, dict)) or not all(isinstance(g, dict) for g in grid)
                             or not len(grid)):
        raise ParameterError("grid: expected a non-empty list of parameter dicts, e.g. [{'k': 10}, {'k': 60}]")
    opts = validate_options(**options)
    evaluator = Evaluator.of(qrels, measure, opts)
    fuse_ties = opts.ties if opts.ties in TIES else "trec_eval"
    named = [run for _, run in read_runs(runs, opts)]      # read and checked once for every trial
    if len(named) < 2:
        raise ParameterError(f"optimise needs at least two runs; got {len(named)}")
    trials = grid if grid is not None else default_grid(method, len(named), step)
    label, m = evaluator.names[0]
    bar = Progress(len(trials), f"optimising {method}", enabled=progress)
    from rankmeter.fusion.trained import TRAINED, train_with
    tables: dict = {}
    training = opts.replace(progress=None)  # one bar, the trials'

    def with_tables(params: dict) -> dict:
        """A trained method's tables, estimated on ``qrels`` once per setting of its training parameters."""
        if method not in TRAINED or TRAINED[method][0] in params:
            return params
        chosen = {k: params.get(k, v) for k, v in TRAINED[method][1].items()}
        key = tuple(sorted(chosen.items()))
        if key not in tables:
            tables[key] = train_with(qrels, named, method, training, **chosen)
        return {**{k: v for k, v in params.items() if k not in chosen}, **tables[key]}

    def fused(params: dict):
        return fuse_read(named, method=method, norm=norm, params=with_tables(params), ties=fuse_ties)

    scored = []
    try:
        for params in trials:
            scored.append((params, float(evaluator.evaluate(fused(params))[label])))
            bar.update(advance=1)
    finally:
        bar.close()
    best_params, best = max(scored, key=lambda t: t[1])
    held_out = None
    if test_qrels is not None:
        held_out = float(Evaluator.of(test_qrels, measure, opts).evaluate(fused(best_params))[label])
    return Optimised(best_params, best, held_out, scored)
