"""Pools by hand; kappa against scikit-learn and statsmodels."""
from __future__ import annotations

import numpy as np
import pytest

from rankmeter import ParameterError
from rankmeter.fusion.pooling import agreement, pool

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
    got = json.loads(subprocess.run([sys.executable, "-m", "rankmeter", "agree", str(qa), str(qb)],
                                    capture_output=True, text=True).stdout)
    assert got["pairs"] == 3 and got["jaccard"] == pytest.approx(2 / 3)
