"""Pools by hand; kappa against scikit-learn and statsmodels."""
from __future__ import annotations

import numpy as np
import pytest

from rankmeter import ParameterError
from rankmeter.fusion.pooling import pool
from rankmeter.judges.judge_agreement import agreement

RUNS = [{"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"x": 1.0}},
        {"q1": {"c": 9.0, "d": 8.0, "a": 1.0}, "q2": {"y": 2.0, "x": 1.0}}]


def test_depth_and_take_pools(tmp_path):
    depth = pool(RUNS, depth=2, qrels={"q1": {"a": 1}})
    assert {q: sorted(d) for q, d in depth.docs.items()} == {b"q1": [b"a", b"b", b"c", b"d"], b"q2": [b"x", b"y"]}
    assert depth.sizes == {b"q1": 4, b"q2": 2} and depth.already_judged == {b"q1": 1, b"q2": 0}
    take = pool(RUNS, take=1, priority="rrf")
    # q1: a and c both score 1/61 + 1/63 (a tie, broken by docno descending: c); q2: x 1/62 + 1/61 beats y 1/61
    assert take.docs == {b"q1": [b"c"], b"q2": [b"x"]}
    out = tmp_path / "pool.txt"
    depth.write(out)
    assert sorted(out.read_text().splitlines()) == ["q1 0 a -1", "q1 0 b -1", "q1 0 c -1", "q1 0 d -1",
                                                     "q2 0 x -1", "q2 0 y -1"]
    with pytest.raises(ParameterError, match="exactly one"):
        pool(RUNS)


@pytest.mark.parametrize("seed", range(4))
def test_kappas_equal_sklearn_and_statsmodels(seed):
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    inter = pytest.importorskip("statsmodels.stats.inter_rater")
    rng = np.random.default_rng(seed)
    a = {f"q{i}": {f"d{j}": int(rng.integers(0, 3)) for j in range(15)} for i in range(5)}
    b = {q: {d: (g if rng.random() < 0.6 else int(rng.integers(0, 3))) for d, g in docs.items()} for q, docs in a.items()}
    b["q9"] = {"z": 1}  # judged by one side only: not compared
    got = agreement(a, b)
    x = [a[q][d] for q in a for d in a[q]]
    y = [b[q][d] for q in a for d in a[q]]
    assert got["pairs"] == 75
    assert got["cohen_kappa"] == pytest.approx(sklearn_metrics.cohen_kappa_score(x, y), abs=1e-12)
    table, _ = inter.aggregate_raters(np.array([x, y]).T)
    assert got["fleiss_kappa"] == pytest.approx(inter.fleiss_kappa(table), abs=1e-12)
    rel_a, rel_b = np.array(x) >= 1, np.array(y) >= 1
    assert got["jaccard"] == pytest.approx((rel_a & rel_b).sum() / (rel_a | rel_b).sum())


def test_cli_pool_and_agree(tmp_path):
    import json
    import subprocess
    import sys
    paths = []
    for i, run in enumerate(RUNS):
        path = tmp_path / f"r{i}.txt"
        path.write_text("".join(f"{q} Q0 {d} 1 {s} r{i}\n" for q, docs in run.items() for d, s in docs.items()))
        paths.append(str(path))
    out = tmp_path / "pool.txt"
    done = subprocess.run([sys.executable, "-m", "rankmeter", "pool", *paths, "--depth", "2", "-o", str(out)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "2 queries, 6 docs to judge" in done.stdout and len(out.read_text().splitlines()) == 6
    qa, qb = tmp_path / "a.qrels", tmp_path / "b.qrels"
    qa.write_text("q 0 a 1\nq 0 b 0\nq 0 c 1\n")
    qb.write_text("q 0 a 1\nq 0 b 1\nq 0 c 1\n")
    got = json.loads(subprocess.run([sys.executable, "-m", "rankmeter", "agree", str(qa), str(qb),
                                     "--format", "json"], capture_output=True, text=True).stdout)
    assert got["pairs"] == 3 and got["jaccard"] == pytest.approx(2 / 3)


def _trec_files(tmp_path, seed, nruns=3):
    """Random runs with distinct scores per query, written with the rank column in score order."""
    rng = np.random.default_rng(seed)
    paths, runs = [], []
    for r in range(nruns):
        lines, run = [], {}
        for q in range(1, 6):
            docs = rng.choice(60, int(rng.integers(5, 40)), replace=False)
            scores = rng.permutation(len(docs)) * 1.5 + 0.25
            ranked = sorted(zip(docs, scores), key=lambda t: -t[1])
            run[str(q)] = {f"D{d}": float(s) for d, s in ranked}
            lines += [f"{q} Q0 D{d} {i + 1} {s} r{r}\n" for i, (d, s) in enumerate(ranked)]
        p = tmp_path / f"r{seed}_{r}.run"
        p.write_text("".join(lines))
        paths.append(str(p))
        runs.append(run)
    return paths, runs


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", [1, 5, 10, 30])
def test_depth_pool_equals_trectools(tmp_path, seed, k):
    trectools = pytest.importorskip("trectools")
    paths, _ = _trec_files(tmp_path, seed)
    want = trectools.TrecPoolMaker().make_pool_from_files(paths, strategy="topX", topX=k).pool
    got = pool(paths, depth=k)
    assert {int(q): set(d.decode() for d in docs) for q, docs in got.docs.items()} == \
        {int(q): set(docs) for q, docs in want.items()}


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("priority, strategy", [("rrf", "rrf"), ("rbp", "rbp")])
@pytest.mark.parametrize("n", [3, 10, 25])
def test_take_pool_equals_trectools(tmp_path, seed, priority, strategy, n):
    """take@N by RRF (k = 60) or RBP-sum (p = 0.8) priority; queries whose N-th and (N+1)-th priorities tie
    are left out (trectools then keeps whichever pandas' sort puts first)."""
    trectools = pytest.importorskip("trectools")
    paths, runs = _trec_files(tmp_path, seed)
    want = trectools.TrecPoolMaker().make_pool_from_files(paths, strategy=strategy, topX=n).pool
    got = pool(paths, take=n, priority=priority)
    compared = 0
    for q in want:
        priorities = {}
        for run in runs:
            for i, d in enumerate(run[str(q)]):
                value = 1 / (60 + i + 1) if priority == "rrf" else 0.2 * 0.8 ** i
                priorities[d] = priorities.get(d, 0.0) + value
        ordered = sorted(priorities.values(), reverse=True)
        if len(ordered) > n and abs(ordered[n - 1] - ordered[n]) < 1e-12:
            continue
        compared += 1
        assert set(d.decode() for d in got.docs[str(q).encode()]) == set(want[q]), q
    assert compared >= 1
