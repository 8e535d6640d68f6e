"""Work one part shares among measures gives the values each measure's own sum gives, to the bit.

* nDCG at every cutoff reads one running DCG of the run and of the ideal ranking; each value must be the
  one summed over its own top k (the per-cutoff sums, ``dcg._dcg`` / ``dcg._ideal_dcg``).
* RBP_resid sums rankings of one length as a queries x ranks table; it must be m_rbp_resid.c's loop
  (``cur_p *= p``, ``sum += cur_p`` at each unjudged rank), here in Python floats, bit for bit.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

import rankmeter
from rankmeter.core import Evaluator
from rankmeter.io import as_run
from rankmeter.measures import dcg
from rankmeter.measures.gain_sums import safe_div
from rankmeter.measures.base import Measure


def _case(seed: int, *, depth: int | None):
    """Random graded qrels and a run; ``depth``: every ranking that long (None: lengths vary)."""
    rng = random.Random(seed)
    qrels, run = {}, {}
    for q in range(rng.randrange(1, 9)):
        docs = [f"d{i}" for i in range(rng.randrange(1, 40))]
        qrels[f"q{q}"] = {d: rng.choice([-1, 0, 0, 1, 2, 3]) for d in rng.sample(docs, rng.randrange(1, len(docs) + 1))}
        pool = docs + [f"x{i}" for i in range(40)]
        n = depth if depth is not None else rng.randrange(1, len(pool) + 1)
        run[f"q{q}"] = {d: rng.choice([rng.random(), 1.0, 0.5]) for d in rng.sample(pool, min(n, len(pool)))}
    return qrels, run


def _bits(values) -> list[int]:
    return np.asarray(values, dtype=np.float64).view(np.int64).tolist()


@pytest.mark.parametrize("seed", range(40))
def test_ndcg_at_every_cutoff_is_its_own_top_k_sum(seed):
    qrels, run = _case(seed, depth=None if seed % 2 else 6)
    gain = ["linear", "exp", ((1, 3.0), (2, 9.0)), ((0, 1.0), (2, -1.0))][seed % 4]
    measures = [Measure.of("nDCG", {"gain": gain}, k) for k in (None, 1, 2, 3, 5, 10, 30)]
    evaluator = Evaluator(qrels, measures)
    batch = evaluator.batch(as_run(run))
    for m in measures:
        m = evaluator._effective[m]
        alone = safe_div(dcg._dcg(batch, m), dcg._ideal_dcg(batch, m))
        assert _bits(dcg.ndcg(batch, m)) == _bits(alone), m


def _rbp_resid_loop(grades: list[int | None], p: float, trec_eval_gain: bool) -> float:
    """m_rbp_resid.c: unjudged = absent from the qrels or a negative grade."""
    unjudged, total, cur_p = 0, 0.0, 1.0
    for grade in grades:
        if grade is None or grade < 0:
            unjudged += 1
            total += cur_p
        cur_p = cur_p * p
    if trec_eval_gain and not unjudged:
        return 0.0
    return cur_p + (1 - p) * total


@pytest.mark.parametrize("seed", range(40))
def test_rbp_resid_is_trec_eval_loop_on_rankings_of_one_length_and_of_many(seed):
    qrels, scored = _case(seed, depth=None if seed % 2 else 30)
    run = {q: sorted(docs, key=docs.get, reverse=True) for q, docs in scored.items()}  # ranked lists
    names = ["RBP_resid(p=0.9, gain=trec_eval)", "RBP_resid(p=0.7)"]
    r = rankmeter.evaluate(qrels, run, names)
    for qi, q in enumerate(r.queries):
        grades = [qrels[q].get(d) for d in run[q]]
        assert _bits([r.values(names[0])[qi]]) == _bits([_rbp_resid_loop(grades, 0.9, True)]), q
        assert _bits([r.values(names[1])[qi]]) == _bits([_rbp_resid_loop(grades, 0.7, False)]), q
