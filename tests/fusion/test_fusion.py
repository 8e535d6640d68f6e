"""Fusion and normalisation against ranx itself on random runs (scores without ties: ranx's tie order is arbitrary)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import rankmeter
from rankmeter import ParameterError
from rankmeter.fusion import fuse

ranx = pytest.importorskip("ranx")


def _runs(seed, nruns=3):
    rng = np.random.default_rng(seed)
    runs = []
    for r in range(nruns):
        run = {}
        for q in range(6):
            docs = rng.choice(40, int(rng.integers(1, 25)), replace=False)
            # distinct scores within a query (no ties), some negative
            scores = rng.permutation(len(docs)) * 0.37 + rng.random() - 0.5 + r
            run[f"q{q}"] = {f"d{d}": float(s) for d, s in zip(docs, scores)}
        runs.append(run)
    return runs


def _as_dict(run) -> dict:
    t = run.table.to_pydict()
    out = {}
    for q, d, s in zip(t["query"], t["doc"], t["score"]):
        out.setdefault(q.decode(), {})[d.decode()] = s
    return out


CASES = [("sum", None, {}), ("mnz", None, {}), ("gmnz", None, {"gamma": 0.5}), ("anz", None, {}),
         ("max", None, {}), ("min", None, {}), ("med", None, {}), ("wsum", None, {"weights": [0.2, 0.5, 0.3]}),
         ("wmnz", None, {"weights": [0.2, 0.5, 0.3]}), ("rrf", None, {"k": 60}), ("rrf", None, {"k": 5}),
         ("rbc", None, {"phi": 0.7}), ("isr", None, {}), ("log_isr", None, {}), ("logn_isr", None, {"sigma": 0.01}),
         ("sum", "min-max", {}), ("sum", "max", {}), ("sum", "sum", {}), ("sum", "zmuv", {}), ("sum", "rank", {}),
         ("mnz", "min-max-inverted", {}), ("wsum", "min-max", {"weights": [1.0, 2.0, 0.5]}),
         ("bordafuse", None, {}), ("sum", "borda", {}), ("mnz", "borda", {})]


@pytest.mark.parametrize("method, norm, params", CASES)
@pytest.mark.parametrize("seed", range(2))
def test_equals_ranx(method, norm, params, seed):
    runs = _runs(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = ranx.fuse([ranx.Run(r, name=f"r{i}") for i, r in enumerate(runs)], norm=norm, method=method,
                         params=params or None).to_dict()
    got = _as_dict(fuse(runs, method=method, norm=norm, params=params))
    assert set(got) == set(want)
    for q in want:
        assert set(got[q]) == set(want[q]), q
        for d, score in want[q].items():
            assert got[q][d] == pytest.approx(score, rel=1e-9, abs=1e-9), (method, norm, q, d)


def test_fused_run_is_ranked_and_evaluable(tmp_path):
    runs = _runs(1, nruns=2)
    fused = fuse(runs, method="rrf", tag="hybrid")
    assert fused.name == "hybrid"
    per_query = _as_dict(fused)
    for q, docs in per_query.items():
        scores = list(docs.values())
        assert scores == sorted(scores, reverse=True)  # rows in rank order
    qrels = {q: {d: 1 for d in list(docs)[:3]} for q, docs in runs[0].items()}
    assert 0 <= rankmeter.evaluate(qrels, fused, "AP")["AP"] <= 1


def test_bad_parameters():
    runs = _runs(0, nruns=2)
    with pytest.raises(ParameterError, match="method="):
        fuse(runs, method="nope")
    with pytest.raises(ParameterError, match="takes k"):
        fuse(runs, method="rrf", params={"phi": 1})
    with pytest.raises(ParameterError, match=r"wsum weights=\[1, 2, 3\]: 3 given for 2 runs; expected one number per run"):
        fuse(runs, method="wsum", params={"weights": [1, 2, 3]})
    with pytest.raises(ParameterError, match="at least two"):
        fuse(runs[:1])


def test_cli_writes_trec_and_refuses_an_input(tmp_path):
    import subprocess
    import sys
    paths = []
    for i, run in enumerate(_runs(2, nruns=2)):
        path = tmp_path / f"r{i}.txt"
        path.write_text("".join(f"{q} Q0 {d} 1 {s!r} r{i}\n" for q, docs in run.items() for d, s in docs.items()))
        paths.append(path)
    out = tmp_path / "fused.txt"
    done = subprocess.run([sys.executable, "-m", "rankmeter", "fuse", *map(str, paths), "--method", "wsum",
                           "--norm", "min-max", "--weights", "0.3", "0.7", "-o", str(out), "--tag", "hybrid"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    want = _as_dict(fuse([str(p) for p in paths], method="wsum", norm="min-max", params={"weights": [0.3, 0.7]}))
    got = rankmeter.read_run(out)
    assert got.name == "hybrid" and set(_as_dict(got)) == set(want)
    assert all(_as_dict(got)[q] == pytest.approx(want[q]) for q in want)
    lines = out.read_text().splitlines()
    assert lines[0].split()[3] == "1" and lines[1].split()[3] == "2"  # ranks renumbered
    refused = subprocess.run([sys.executable, "-m", "rankmeter", "fuse", *map(str, paths), "-o", str(paths[0])],
                             capture_output=True, text=True)
    assert refused.returncode == 2 and "one of the inputs" in refused.stderr


def test_optimise_finds_the_best_grid_point_and_scores_held_out():
    from rankmeter.fusion import optimise
    runs = _runs(5, nruns=2)
    qrels = {q: {d: 1 for d in list(docs)[:4]} for q, docs in runs[1].items()}
    train = {q: qrels[q] for q in list(qrels)[:3]}
    test = {q: qrels[q] for q in list(qrels)[3:]}
    best = optimise(runs, train, method="rrf", measure="AP", test_qrels=test)
    brute = {k: rankmeter.evaluate(train, fuse(runs, method="rrf", params={"k": k}), "AP")["AP"]
             for k in (1, 5, 10, 20, 40, 60, 80, 100)}
    assert best.score == max(brute.values()) and best.params["k"] in [k for k, v in brute.items() if v == best.score]
    assert best.held_out == pytest.approx(rankmeter.evaluate(test, fuse(runs, method="rrf", params=best.params),
                                                             "AP")["AP"])
    weights = optimise(runs, train, method="wsum", measure="AP", step=0.25)
    assert len(weights.trials) == 5 and sum(weights.params["weights"]) == pytest.approx(1.0)


def test_fusion_exports_its_functions_not_its_modules():
    import rankmeter.fusion.methods  # noqa: F401 - every submodule loaded, as after any fuse()
    from rankmeter.fusion import fuse, normalise, optimise
    assert all(callable(f) and not hasattr(f, "__path__") and type(f).__name__ == "function"
               for f in (fuse, normalise, optimise))
