"""The ``--until-stable`` policy simulated directly with a judge of known per-pair probabilities (no server):
every pair starts with ``start`` draws; round by round, each pair whose Wilson interval of P(relevant) still
straddles 1/2 (rankmeter.judges.reliability's ``unstable``) gets one more, up to ``most`` draws a pair and
``budget`` calls in all. Used by tests/judges/test_until_stable.py and bench/judge_draws.py."""
from __future__ import annotations

import numpy as np

from rankmeter.judges.stopping import wilson


def until_stable(rng, p, *, start: int, most: int, budget: int | None = None, alpha: float = 0.05):
    """(relevant draws per pair, draws per pair) for true probabilities ``p`` (pairs,)."""
    n = np.full(len(p), start)
    hits = rng.binomial(start, p)
    spent = int(n.sum())
    while True:
        low, high = wilson(hits, n, alpha=alpha)
        open_ = np.flatnonzero((low < 0.5) & (high > 0.5) & (n < most))
        if budget is not None and len(open_) > budget - spent:      # the last round: the pairs left at random
            open_ = rng.choice(open_, size=max(0, budget - spent), replace=False)
        if not len(open_):
            return hits, n
        hits[open_] += rng.random(len(open_)) < p[open_]
        n[open_] += 1
        spent += len(open_)


def uniform(rng, p, draws: int):
    """The same number of draws for every pair."""
    return rng.binomial(draws, p), np.full(len(p), draws)
