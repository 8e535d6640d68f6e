"""The trained fusion methods, Condorcet, weighted BordaFuse and Mixed against ranx on random runs.

Runs have distinct scores within a query and are given to ranx as dicts in rank order, so ranx's
positions (its dicts' key order) are the engine's ranks. Training uses the same qrels and runs in both
tools (ranx's ``optimize_fusion`` for the trained tables, then ``fuse`` with them).
"""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import rankmeter
from rankmeter import ParameterError
from rankmeter.fusion import fuse
from rankmeter.fusion.trained import train

ranx = pytest.importorskip("ranx")

from .test_fusion import _as_dict  # noqa: E402 - after the skip: test_fusion needs ranx too


def _runs(seed, nruns=3, nq=6, pool=40):
    rng = np.random.default_rng(seed)
    runs = []
    for r in range(nruns):
        run = {}
        for q in range(nq):
            docs = rng.choice(pool, int(rng.integers(1, 25)), replace=False)
            scores = rng.permutation(len(docs)) * 0.37 + rng.random() - 0.5 + r
            ranked = sorted(zip(docs, scores), key=lambda t: -t[1])
            run[f"q{q}"] = {f"d{d}": float(s) for d, s in ranked}
        runs.append(run)
    return runs


def _qrels(seed, nq=6, pool=40):
    rng = np.random.default_rng(seed + 100)
    return {f"q{q}": {f"d{d}": int(rng.integers(0, 3)) for d in rng.choice(pool, 15, replace=False)}
            for q in range(nq)}


def _same(got, want, what, rel=1e-9):
    assert set(got) == set(want)
    for q in want:
        assert set(got[q]) == set(want[q]), (what, q)
        for d, score in want[q].items():
            assert got[q][d] == pytest.approx(score, rel=rel, abs=1e-9), (what, q, d)


def _ranx_runs(runs):
    return [ranx.Run(r, name=f"r{i}") for i, r in enumerate(runs)]


@pytest.mark.parametrize("method, params", [("mixed", {"weights": [0.2, 0.5, 0.3]}),
                                            ("w_bordafuse", {"weights": [0.2, 0.5, 0.3]}),
                                            ("w_bordafuse", {"weights": [1.0, 1.0, 1.0]})])
@pytest.mark.parametrize("norm", [None, "min-max"])
@pytest.mark.parametrize("seed", range(3))
def test_weighted_methods_equal_ranx(method, params, norm, seed):
    runs = _runs(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = ranx.fuse(_ranx_runs(runs), norm=norm, method=method, params=params).to_dict()
    _same(_as_dict(fuse(runs, method=method, norm=norm, params=params)), want, method)


@pytest.mark.parametrize("method, train_params", [("posfuse", {}), ("probfuse", {"n_segments": 3}),
                                                  ("probfuse", {"n_segments": 7}), ("segfuse", {}),
                                                  ("slidefuse", {}), ("bayesfuse", {}), ("mapfuse", {})])
@pytest.mark.parametrize("norm", [None, "min-max"])
@pytest.mark.parametrize("seed", range(3))
def test_trained_methods_equal_ranx(method, train_params, norm, seed):
    from ranx import fusion as rf

    runs, qrels = _runs(seed), _qrels(seed)
    rq, rr = ranx.Qrels(qrels), _ranx_runs(runs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if method == "mapfuse":
            trained = {"map_scores": rf.mapfuse_train(rq, rr)}
        elif method == "bayesfuse":
            trained = {"log_odds": rf.bayesfuse_train(rq, rr)}
        elif method == "probfuse":
            trained = {"probs": rf.probfuse_train(rq, rr, train_params["n_segments"])}
        else:
            trained = {"probs": getattr(rf, f"{method}_train")(rq, rr)}
        params = {**trained, **({"w": 2} if method == "slidefuse" else {})}
        want = ranx.fuse(_ranx_runs(runs), norm=norm, method=method, params=params).to_dict()
    ours = train(qrels, runs, method, **train_params)
    key = next(iter(ours))
    for a, b in zip(ours[key], trained[key]):
        np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), rtol=1e-12, atol=1e-12)
    got = fuse(runs, method=method, norm=norm, train_qrels=qrels,
               params={**train_params, **({"w": 2} if method == "slidefuse" else {})})
    _same(_as_dict(got), want, method)


def _majority_is_a_total_order(runs, weights, q):
    docs = sorted({d for run in runs for d in run[q]})
    rank = [{d: i for i, d in enumerate(run[q])} for run in runs]
    ahead = {}
    for x, y in itertools.permutations(docs, 2):
        votes = sum(w for w, r in zip(weights, rank) if r.get(x, 10 ** 6) < r.get(y, 10 ** 6))
        ahead[x, y] = votes > sum(weights) - votes
    for x, y in itertools.combinations(docs, 2):
        if ahead[x, y] == ahead[y, x]:
            return False  # a tie: ranx's answer depends on its (random) start order
    return all(not (ahead[x, y] and ahead[y, z] and ahead[z, x]) for x, y, z in itertools.permutations(docs, 3))


@pytest.mark.parametrize("method, weights", [("condorcet", [1, 1, 1]), ("w_condorcet", [0.5, 0.3, 0.4])])
@pytest.mark.parametrize("seed", range(6))
def test_condorcet_equals_ranx_where_majority_is_a_total_order(method, weights, seed):
    """On queries whose pairwise majority is a strict total order every sort agrees; ranx's too."""
    rng = np.random.default_rng(seed)
    base = [f"d{i}" for i in rng.permutation(12)]
    runs = []
    for _ in range(3):  # noisy copies of one ranking: mostly transitive majorities
        noisy = base.copy()
        for _ in range(3):
            i = int(rng.integers(0, len(noisy) - 1))
            noisy[i], noisy[i + 1] = noisy[i + 1], noisy[i]
        keep = noisy[: int(rng.integers(8, 13))]
        runs.append({"q": {d: float(len(keep) - i) for i, d in enumerate(keep)}})
    params = {} if method == "condorcet" else {"weights": weights}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = ranx.fuse(_ranx_runs(runs), norm=None, method=method, params=params or None).to_dict()
    got = _as_dict(fuse(runs, method=method, norm=None, params=params))
    if not _majority_is_a_total_order(runs, weights, "q"):
        pytest.skip("majority has a cycle or a tie here: sort-dependent")
    _same(got, want, method)


def test_condorcet_on_a_cycle_is_reproducible_and_scores_m_down_to_1():
    runs = [{"q": {"a": 3.0, "b": 2.0, "c": 1.0}}, {"q": {"b": 3.0, "c": 2.0, "a": 1.0}},
            {"q": {"c": 3.0, "a": 2.0, "b": 1.0}}]  # a > b > c > a by 2 to 1
    first = _as_dict(fuse(runs, method="condorcet", norm=None))
    assert sorted(first["q"].values()) == [1.0, 2.0, 3.0]
    assert _as_dict(fuse(runs, method="condorcet", norm=None)) == first
    # merge sort from the first run's order a, b, c: a vs b -> a; then [a, b] with c: a vs c -> c first
    assert first["q"] == {"c": 3.0, "a": 2.0, "b": 1.0}


def test_trained_method_without_tables_says_how_to_train():
    with pytest.raises(ParameterError, match="train_qrels"):
        fuse(_runs(0), method="probfuse")
    with pytest.raises(ParameterError, match=r"posfuse probs=\[\[0.5\], \[0.4\]\]: 2 given for 3 runs; expected one list"):
        fuse(_runs(0), method="posfuse", params={"probs": [[0.5], [0.4]]})


def test_trained_fusion_from_the_command_line(tmp_path):
    import subprocess
    import sys

    runs, qrels = _runs(1, nruns=2), _qrels(1)
    paths = []
    for i, run in enumerate(runs):
        p = tmp_path / f"r{i}.run"
        p.write_text("".join(f"{q} Q0 {d} {k + 1} {s} r{i}\n" for q, docs in run.items()
                             for k, (d, s) in enumerate(docs.items())))
        paths.append(str(p))
    qp = tmp_path / "train.qrels"
    qp.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    out = tmp_path / "fused.run"
    done = subprocess.run([sys.executable, "-m", "rankmeter", "fuse", *paths, "--method", "probfuse",
                           "--qrels", str(qp), "--param", "n_segments=4", "-o", str(out)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    want = _as_dict(fuse(runs, method="probfuse", train_qrels=qrels, params={"n_segments": 4}))
    got = _as_dict(rankmeter.read_run(out))
    _same(got, want, "cli", rel=1e-6)


@pytest.mark.parametrize("method, key", [("probfuse", "n_segments"), ("slidefuse", "w")])
def test_optimise_searches_ranx_range_and_scores_each_setting_as_fuse_does(method, key):
    from rankmeter.fusion.tuning import optimise

    runs, qrels = _runs(2), _qrels(2)
    best = optimise(runs, qrels, method=method, measure="AP")
    assert [p[key] for p, _ in best.trials] == list(range(1, 101))  # ranx's optimize_* range
    assert best.score == max(score for _, score in best.trials)
    for params, score in best.trials[:5] + [(best.params, best.score)]:
        fused = fuse(runs, method=method, train_qrels=qrels, params=params)
        assert rankmeter.evaluate(qrels, fused, ["AP"]).mean["AP"] == pytest.approx(score, abs=1e-12)
