"""Topic set size design against statsmodels' power functions; the variance estimate by hand."""
from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest

from rankmeter.meta import minimum_detectable_difference, power, topic_set_size, variance_estimate

power_mod = pytest.importorskip("statsmodels.stats.power")


@pytest.mark.parametrize("n, diff, var, alpha", [(50, 0.1, 0.04, 0.05), (20, 0.05, 0.01, 0.01), (200, 0.02, 0.05, 0.05)])
def test_paired_t_power_equals_statsmodels(n, diff, var, alpha):
    want = power_mod.TTestPower().power(effect_size=diff / math.sqrt(var), nobs=n, alpha=alpha,
                                        alternative="two-sided")
    assert power(n, test="t", min_diff=diff, variance=var, alpha=alpha) == pytest.approx(want, rel=1e-9)


@pytest.mark.parametrize("n, m, diff, var", [(20, 5, 0.1, 0.04), (50, 10, 0.05, 0.02), (8, 3, 0.2, 0.05)])
def test_anova_power_equals_statsmodels(n, m, diff, var):
    # Sakai's least favourable configuration: noncentrality n D^2 / (2 var) = Cohen's f^2 * (m n)
    f = math.sqrt(diff ** 2 / (2 * var * m))
    want = power_mod.FTestAnovaPower().power(effect_size=f, nobs=n * m, alpha=0.05, k_groups=m)
    assert power(n, test="anova", systems=m, min_diff=diff, variance=var) == pytest.approx(want, rel=1e-9)


@pytest.mark.parametrize("test, m", [("t", 2), ("anova", 4)])
def test_topic_set_size_is_the_fewest_topics_with_enough_power(test, m):
    n = topic_set_size(test=test, systems=m, min_diff=0.1, variance=0.04, beta=0.2)
    assert power(n, test=test, systems=m, min_diff=0.1, variance=0.04) >= 0.8
    assert power(n - 1, test=test, systems=m, min_diff=0.1, variance=0.04) < 0.8
    if test == "t":
        assert n == math.ceil(power_mod.TTestPower().solve_power(effect_size=0.5, alpha=0.05, power=0.8))


def test_minimum_detectable_difference_reaches_the_power():
    d = minimum_detectable_difference(40, test="t", variance=0.03, beta=0.2)
    assert power(40, test="t", min_diff=d, variance=0.03) == pytest.approx(0.8, abs=1e-8)


def test_variance_estimate_is_the_two_way_residual_mean_square():
    rng = np.random.default_rng(0)
    x = rng.random((7, 4))
    total = 0.0
    for i in range(7):
        for j in range(4):
            total += (x[i, j] - x[i].mean() - x[:, j].mean() + x.mean()) ** 2
    assert variance_estimate(x) == pytest.approx(total / (6 * 3))


def test_cli_topic_set_size():
    done = subprocess.run([sys.executable, "-m", "rankmeter", "meta", "topic-set-size", "--min-diff", "0.1",
                           "--variance", "0.04", "--topics", "50", "--format", "json"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["topics"] == topic_set_size(min_diff=0.1, variance=0.04)
    assert data["power"] == pytest.approx(power(50, min_diff=0.1, variance=0.04))
    bad = subprocess.run([sys.executable, "-m", "rankmeter", "meta", "topic-set-size", "--min-diff", "0.1"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "--variance" in bad.stderr and "Traceback" not in bad.stderr
