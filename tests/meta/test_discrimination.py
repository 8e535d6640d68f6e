"""Discriminative power against scipy's paired t-test and the HSD kernel; swap rates against plain loops."""
from __future__ import annotations

import itertools
import json
import subprocess
import sys

import numpy as np
import pytest

from rankmeter.errors import ParameterError
from rankmeter.meta import discriminative_power, score_matrix, swap_rate
from rankmeter.stats.significance import tukey_hsd


def _scores(seed, topics=30, runs=5):
    rng = np.random.default_rng(seed)
    return np.clip(rng.random((topics, 1)) * 0.6 + rng.normal(0, 0.08, (topics, runs))
                   + np.linspace(0, 0.1, runs), 0, 1)


@pytest.mark.parametrize("seed", range(3))
def test_asl_of_each_pair_is_the_paired_t_p_value(seed):
    stats = pytest.importorskip("scipy.stats")
    x = _scores(seed)
    dp = discriminative_power(x, test="t", alpha=0.05)
    pairs = list(itertools.combinations(range(x.shape[1]), 2))
    want = [stats.ttest_rel(x[:, i], x[:, j]).pvalue for i, j in pairs]
    assert [p for _, p in dp.pairs] == pytest.approx(want, rel=1e-9)
    assert dp.curve == sorted(p for _, p in dp.pairs)
    assert dp.power == sum(p < 0.05 for p in want) / len(want)
    deltas = [x[:, i].mean() - x[:, j].mean() for i, j in pairs]
    assert dp.deltas == pytest.approx(deltas)
    significant = [abs(d) for d, p in zip(deltas, want) if p < 0.05]
    assert dp.smallest_significant_delta == (pytest.approx(min(significant)) if significant else None)


def test_tukey_asl_is_the_randomised_hsd():
    x = _scores(7)
    dp = discriminative_power(x, test="tukey", permutations=500, seed=3)
    pmat, _ = tukey_hsd(x, permutations=500, seed=3)
    assert [p for _, p in dp.pairs] == [pmat[i, j] for i, j in itertools.combinations(range(5), 2)]


def test_hand_example_all_and_none():
    """A run far above two identical ones: 2 of 3 pairs separate (the identical pair never does)."""
    base = np.linspace(0.1, 0.5, 12)
    x = np.stack([base, base, base + 0.3], axis=1)
    dp = discriminative_power(x, test="bootstrap", permutations=400)
    asl = dict(dp.pairs)
    assert asl[("run0", "run1")] == 1.0 and asl[("run0", "run2")] < 0.01 and asl[("run1", "run2")] < 0.01
    assert dp.power == pytest.approx(2 / 3)


def _brute_swaps(x, c, width):
    n, k = x.shape
    pairs = total = 0
    bins = {}
    for first in itertools.combinations(range(n), c):
        rest = [t for t in range(n) if t not in first]
        for second in itertools.combinations(rest, c):
            m1, m2 = x[list(first)].mean(axis=0), x[list(second)].mean(axis=0)
            for i, j in itertools.combinations(range(k), 2):
                d1, d2 = m1[i] - m1[j], m2[i] - m2[j]
                swap = d1 * d2 <= 0
                b = int(np.floor(abs(d1) / width + 1e-9))
                n_b, s_b = bins.get(b, (0, 0))
                bins[b] = (n_b + 1, s_b + swap)
                pairs += 1
                total += swap
    return total / pairs, bins


@pytest.mark.parametrize("c", [1, 2, 3])
def test_swap_rate_enumerates_small_topic_sets_exactly(c):
    x = _scores(11, topics=6, runs=4)
    got = swap_rate(x, sizes=[c], trials=10_000, bin_width=0.05)
    overall, bins = _brute_swaps(x, c, 0.05)
    assert got.overall[c] == pytest.approx(overall)
    assert got.bins[c] == [(pytest.approx(b * 0.05), n, s) for b, (n, s) in sorted(bins.items())]
    assert got.trials[c] == len(list(itertools.combinations(range(6), c))) * \
        len(list(itertools.combinations(range(6 - c), c)))


def test_swap_rate_samples_large_sets_and_checks_sizes():
    x = _scores(2, topics=40)
    got = swap_rate(x, sizes=[5, 20], trials=300, seed=1)
    assert got.trials == {5: 300, 20: 300}
    assert 0 <= got.overall[20] <= got.overall[5] <= 1  # more topics, fewer swaps (well separated runs)
    with pytest.raises(ParameterError, match=r"size=21: expected an integer in \[1, 20\] \(two disjoint sets"):
        swap_rate(x, sizes=[21])


def test_score_matrix_and_cli(tmp_path):
    rng = np.random.default_rng(0)
    qrels = tmp_path / "q.txt"
    qrels.write_text("".join(f"{t} 0 d{d} {int(rng.integers(0, 2))}\n" for t in range(1, 13) for d in range(20)))
    runs = []
    for r in range(3):
        p = tmp_path / f"r{r}.run"
        p.write_text("".join(f"{t} Q0 d{d} {i + 1} {20 - i} r{r}\n" for t in range(1, 13)
                             for i, d in enumerate(rng.permutation(20))))
        runs.append(str(p))
    x, topics, names = score_matrix(str(qrels), runs, "AP")
    assert x.shape == (12, 3) and names == ["r0", "r1", "r2"] and len(topics) == 12
    done = subprocess.run([sys.executable, "-m", "rankmeter", "meta", "discriminative-power", str(qrels), *runs,
                           "-m", "AP", "--test", "t", "--format", "json"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    data, = json.loads(done.stdout)["results"]
    assert data["power"] == discriminative_power(x, test="t", names=names).power
    assert [p["asl"] for p in data["pairs"]] == sorted(p["asl"] for p in data["pairs"])
    swaps = subprocess.run([sys.executable, "-m", "rankmeter", "meta", "swap-rate", str(qrels), *runs, "-m", "AP",
                            "--size", "3", "--trials", "50", "--format", "json"], capture_output=True, text=True)
    assert swaps.returncode == 0, swaps.stderr
    assert json.loads(swaps.stdout)["results"][0]["overall"]["3"] == swap_rate(x, sizes=[3], trials=50).overall[3]
