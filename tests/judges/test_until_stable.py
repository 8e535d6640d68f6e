"""Drawing more only where the verdict is uncertain, against the same calls spread uniformly: simulated with a
judge of known per-pair probabilities (tests/judges/until_stable.py; no server). The figure is the LLM-only
P@10 (relevant: grade >= 2) of the 50 queries at hand under the pairs' majority verdicts, the qrels
``judges aggregate --method mode`` makes of the draws on a binary scale; its truth is P@10 under each pair's
true verdict (P(relevant) > 1/2). Its spread over repetitions is the width of its interval over the draws."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from known_judge import population  # noqa: E402
from until_stable import uniform, until_stable  # noqa: E402

REPS = 300


def verdict_p10(rng, hits, n):
    """P@10 over every pair under its majority verdict (a tie broken at random)."""
    share = hits / n
    return np.where(share == 0.5, rng.random(len(share)) < 0.5, share > 0.5).mean()


def test_until_stable_is_narrower_than_uniform_draws_at_the_same_calls():
    rng = np.random.default_rng(21)
    _, probs = population(rng, 50, 10, uncertain=0.3)
    p = probs[..., 2:].sum(-1).ravel()                       # P(grade >= 2) of each of the 500 pairs, known
    truth = (p > 0.5).mean()
    k = 9
    budget = k * len(p)
    got, calls = {"stable": [], "uniform": []}, []
    for _ in range(REPS):
        hits, n = until_stable(rng, p, start=3, most=25, budget=budget)
        got["stable"].append(verdict_p10(rng, hits, n))
        calls.append(n.sum())
        got["uniform"].append(verdict_p10(rng, *uniform(rng, p, k)))
    sd = {kind: float(np.std(v, ddof=1)) for kind, v in got.items()}
    rmse = {kind: float(np.sqrt(np.mean((np.array(v) - truth) ** 2))) for kind, v in got.items()}
    # uniform draws narrow as 1/sqrt(draws) for the pairs that decide: the draws a pair they need for sd["stable"]
    needed = k * (sd["uniform"] / sd["stable"]) ** 2
    print({"sd": sd, "rmse": rmse, "calls": float(np.mean(calls)), "budget": budget,
           "uniform_draws_a_pair_for_the_same_sd": round(needed, 1)})
    assert max(calls) <= budget
    assert sd["stable"] < sd["uniform"] and rmse["stable"] < rmse["uniform"]
