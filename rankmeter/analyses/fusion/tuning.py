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

from rankmeter.errors import ParameterError
from rankmeter.analyses.fusion.catalog import METHODS

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


def optimise(runs, qrels, *, method: str = "wsum", measure: str = "nDCG@10", norm: str | None = "min-max",
             grid: list[dict] | None = None, step: float = 0.1, test_qrels=None, progress: bool | None = None,
             **options) -> Optimised:
    """The parameters of ``method`` that maximise ``measure`` over ``qrels`` (the training queries).

    ``test_qrels`` (the held-out queries) scores the chosen parameters once. The qrels are
    prepared once for all trials (one :class:`~rankmeter.core.Evaluator`).
    """
    from rankmeter.core import Evaluator
    from rankmeter.core.naming import name_runs
    from rankmeter.executors.progress import Progress
    from rankmeter.analyses.fusion.methods import fuse

    if method not in METHODS:
        raise ParameterError(f"method={method!r}: expected one of {', '.join(METHODS)}")
    named = [run for _, run in name_runs(runs)]
    trials = grid if grid is not None else default_grid(method, len(named), step)
    evaluator = Evaluator(qrels, measure, **options)
    label, m = evaluator.names[0]
    bar = Progress(len(trials), f"optimising {method}", enabled=progress)
    from rankmeter.analyses.fusion.trained import TRAINED, train
    tables: dict = {}

    def with_tables(params: dict) -> dict:
        """A trained method's tables, estimated on ``qrels`` once per setting of its training parameters."""
        if method not in TRAINED or TRAINED[method][0] in params:
            return params
        chosen = {k: params.get(k, v) for k, v in TRAINED[method][1].items()}
        key = tuple(sorted(chosen.items()))
        if key not in tables:
            tables[key] = train(qrels, named, method, **chosen)
        return {**{k: v for k, v in params.items() if k not in chosen}, **tables[key]}

    scored = []
    try:
        for params in trials:
            fused = fuse(named, method=method, norm=norm, params=with_tables(params))
            scored.append((params, float(evaluator.evaluate(fused)[label])))
            bar.update(advance=1)
    finally:
        bar.close()
    best_params, best = max(scored, key=lambda t: t[1])
    held_out = None
    if test_qrels is not None:
        fused = fuse(named, method=method, norm=norm, params=with_tables(best_params))
        held_out = float(Evaluator(test_qrels, measure, **options).evaluate(fused)[label])
    return Optimised(best_params, best, held_out, scored)
