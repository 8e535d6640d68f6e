"""fuse(ties="input") against ranx on runs with tied scores.

ranx ranks a run's docs by score with numba's quicksort, which sorts lists of up to 15 items by insertion
(stable): tied docs keep the order they are given in. Runs here are given in rank order with their ties in
a random order, at most 15 docs per query, so ranx's ranks are the input order -- what ties="input" reads.
ties="trec_eval" ranks tied docs by docno descending and must differ from ranx on some of these cases.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import ranx

from rankmeter.fusion import fuse

from .test_fusion import _as_dict

CASES = [("rrf", None, {}), ("rrf", None, {"k": 5}), ("rbc", None, {"phi": 0.7}), ("isr", None, {}),
         ("log_isr", None, {}), ("logn_isr", None, {"sigma": 0.01}), ("bordafuse", None, {}),
         ("w_bordafuse", None, {"weights": [0.2, 0.5, 0.3]}),
         ("sum", "rank", {}), ("mnz", "rank", {}), ("sum", "borda", {}), ("mnz", "borda", {}),
         ("gmnz", "rank", {"gamma": 0.5}), ("anz", "rank", {}), ("max", "rank", {}), ("min", "borda", {}),
         ("med", "rank", {}), ("wsum", "rank", {"weights": [0.2, 0.5, 0.3]}),
         ("wmnz", "borda", {"weights": [0.2, 0.5, 0.3]}), ("mixed", "rank", {"weights": [0.2, 0.5, 0.3]}),
         ("sum", "min-max", {}), ("mnz", None, {}), ("sum", "zmuv", {})]


def _tied_runs(seed, nruns=3, nq=5):
    """Runs in rank order, few distinct scores (many ties, in a random order), every query in every run."""
    rng = np.random.default_rng(seed)
    runs = []
    for _ in range(nruns):
        run = {}
        for q in range(nq):
            docs = rng.choice(20, int(rng.integers(2, 16)), replace=False)
            levels = rng.choice([0.25, 0.5, 1.0, 2.0], len(docs))
            order = np.argsort(-levels, kind="stable")
            run[f"q{q}"] = {f"d{docs[i]}": float(levels[i]) for i in order}
        runs.append(run)
    return runs


def _ranx(runs, method, norm, params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ranx.fuse([ranx.Run(r, name=f"r{i}") for i, r in enumerate(runs)], norm=norm, method=method,
                         params=params or None).to_dict()


def _equal(got, want) -> bool:
    return set(got) == set(want) and all(
        set(got[q]) == set(want[q]) and all(abs(got[q][d] - s) <= 1e-9 * max(1.0, abs(s)) for d, s in want[q].items())
        for q in want)


@pytest.mark.parametrize("method, norm, params", CASES)
def test_input_ties_equal_ranx(method, norm, params):
    differ = 0
    for seed in range(6):
        runs = _tied_runs(seed)
        want = _ranx(runs, method, norm, params)
        got = _as_dict(fuse(runs, method=method, norm=norm, params=params, ties="input"))
        assert _equal(got, want), (method, norm, seed)
        by_docno = _as_dict(fuse(runs, method=method, norm=norm, params=params))
        differ += not _equal(by_docno, want)
    rank_sensitive = method not in ("sum", "mnz") or norm in ("rank", "borda")
    if rank_sensitive:  # the tie order matters here, so trec_eval's must part from ranx somewhere
        assert differ > 0, (method, norm)


@pytest.mark.parametrize("method, train_params", [("posfuse", {}), ("probfuse", {"n_segments": 3}),
                                                  ("segfuse", {}), ("slidefuse", {}), ("bayesfuse", {}),
                                                  ("mapfuse", {})])
def test_input_ties_reach_training(method, train_params):
    """A trained method's tables come from the same ranks: with ties in the input order, the tables trained on
    tied runs equal ranx's (its *_train functions on the same qrels and runs), and so do the fused runs."""
    from ranx import fusion as rf

    from rankmeter.fusion.trained import train

    runs = _tied_runs(11, nruns=2)
    rng = np.random.default_rng(3)
    qrels = {q: {f"d{d}": int(rng.integers(0, 3)) for d in range(20)} for q in runs[0]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rq, rr = ranx.Qrels(qrels), [ranx.Run(r, name=f"r{i}") for i, r in enumerate(runs)]
        if method == "mapfuse":
            trained = {"map_scores": rf.mapfuse_train(rq, rr)}
        elif method == "bayesfuse":
            trained = {"log_odds": rf.bayesfuse_train(rq, rr)}
        elif method == "probfuse":
            trained = {"probs": rf.probfuse_train(rq, rr, train_params["n_segments"])}
        else:
            trained = {"probs": getattr(rf, f"{method}_train")(rq, rr)}
        window = {"w": 2} if method == "slidefuse" else {}
        want = ranx.fuse(rr, norm=None, method=method, params={**trained, **window}).to_dict()
    ours = train(qrels, runs, method, ties="input", **train_params)
    key = next(iter(ours))
    for a, b in zip(ours[key], trained[key]):
        np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), rtol=1e-12, atol=1e-12)
    by_docno = train(qrels, runs, method, **train_params)[key]   # trec_eval's tie order trains other tables
    assert not all(np.allclose(np.asarray(a, float), np.asarray(b, float)) for a, b in zip(by_docno, trained[key]))
    got = _as_dict(fuse(runs, method=method, norm=None, train_qrels=qrels, params={**train_params, **window},
                        ties="input"))
    assert _equal(got, want), method
