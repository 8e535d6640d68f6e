"""nDCG against scikit-learn's ndcg_score where the definitions coincide.

sklearn's ndcg_score takes, per query, the true grades and the scores of the
same documents: its ideal ranking is the best ordering of the docs given
(rankmeter's ``ideal=run``), gains are the grades (``gain=linear``) and the
discount is 1/log2(i+1). With distinct scores (sklearn averages over tied
scores instead of breaking ties by docno) the two must agree exactly.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter

from optional_packages import optional  # noqa: E402  (tests/ is on sys.path: tests/conftest.py)

sklearn_metrics = optional("sklearn.metrics")


@st.composite
def queries(draw):
    n_queries = draw(st.integers(1, 5))
    qrels, run, truth, scores = {}, {}, [], []
    for q in range(n_queries):
        n = draw(st.integers(2, 12))
        grades = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
        if not any(grades):
            grades[0] = 1  # sklearn scores an all-zero query 0 too, but warns
        order = draw(st.permutations(range(n)))
        s = [float(n - i) for i in order]  # distinct scores
        qrels[f"q{q}"] = {f"d{i}": g for i, g in enumerate(grades)}
        run[f"q{q}"] = {f"d{i}": s[i] for i in range(n)}
        truth.append(grades)
        scores.append(s)
    return qrels, run, truth, scores


@settings(max_examples=150, deadline=None)
@given(queries(), st.sampled_from([None, 1, 3, 5, 10]))
def test_ndcg_ideal_run_equals_sklearn(data, k):
    qrels, run, truth, scores = data
    name = "nDCG(ideal=run)" + ("" if k is None else f"@{k}")
    ours = rankmeter.evaluate(qrels, run, name).values(name)
    theirs = [sklearn_metrics.ndcg_score([t], [s], k=k) for t, s in zip(truth, scores)]
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)
