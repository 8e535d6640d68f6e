"""A judge of known per-pair probabilities, for the simulations of the judges' draw noise
(tests/judges/test_two_stage.py, bench/judge_draws.py): every pair has a human grade and the judge's
probability of each grade; a draw of the judge is a grade drawn from them. Numpy only, vectorised."""
from __future__ import annotations

import numpy as np

GRADES = np.arange(4)
DISCOUNT = 1 / np.log2(np.arange(2, 12))          # DCG@10's, trec_eval's: gain = grade, log2(rank + 1)


def population(rng, queries: int, docs: int = 10, uncertain: float = 0.3):
    """(human grades (queries, docs), judge's probabilities (queries, docs, 4)): a pair is clear to the judge
    (0.85 on a grade at most one from the human one, lenient: up a grade 40% of the time) or, with probability
    ``uncertain``, unsettled (its probabilities drawn from a flat Dirichlet)."""
    human = rng.choice([0, 0, 0, 1, 1, 2, 3], size=(queries, docs))
    lean = np.minimum(human + (rng.random(human.shape) < 0.4), 3)
    probs = np.full((queries, docs, 4), 0.05)
    np.put_along_axis(probs, lean[..., None], 0.85, axis=-1)
    flat = rng.random(human.shape) < uncertain
    probs[flat] = rng.dirichlet(np.ones(4), int(flat.sum()))
    return human, probs


def draw(rng, probs, draws: int):
    """``draws`` grades of every pair (..., docs, draws), each drawn from the pair's probabilities."""
    cumulative = np.cumsum(probs, axis=-1)
    u = rng.random(probs.shape[:-1] + (draws,))
    return (u[..., None, :] > cumulative[..., :, None]).sum(-2).astype(float)


def dcg10(grades, order):
    """DCG@10 of each query (..., docs) ranked by ``order`` (queries, docs); grades (..., queries, docs)."""
    ranked = np.take_along_axis(grades, np.broadcast_to(order, grades.shape), axis=-1)[..., :10]
    return ranked @ DISCOUNT[: ranked.shape[-1]]


def expected_dcg10(probs, order):
    """The judge's expected DCG@10 of each query: DCG is linear in the gains, so the expected gains'."""
    return dcg10(probs @ GRADES.astype(float), order)


def write_qrels(path, grades, queries) -> None:
    """TREC qrels of ``grades`` (queries, docs) for the queries ``queries``: ``q{q} 0 d{d} grade``."""
    path.write_text("".join(f"q{q} 0 d{d} {grades[q, d]}\n" for q in queries for d in range(grades.shape[1])))


def write_draws(path, grades) -> None:
    """TREC qrels of every query's draws (queries, docs, draws): one line a draw, as `judges label --samples`
    writes them."""
    queries, docs, draws = grades.shape
    path.write_text("".join(f"q{q} 0 d{d} {grades[q, d, k]}\n" for q in range(queries) for d in range(docs)
                            for k in range(draws)))
