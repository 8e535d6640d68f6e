"""The gate's statistics: scipy's one-sided tests, and soundness by simulation (issue: retrieval quality as a
regression test). Per-query values are simulated as a system's true per-query quality plus run-to-run noise,
the way a nondeterministic retriever's nDCG varies between two runs over the same queries."""
from __future__ import annotations

import math

import numpy as np
import pytest
from optional_packages import optional  # noqa: E402

scipy_stats = optional("scipy.stats")

from rankmeter.gate.one_sided import minimum_detectable_drop, regression_test  # noqa: E402

PAIRS = 1200          # simulated A/A (or injected-drop) pairs per case
ALPHA = 0.05
QUERIES = 50
NOISE = 0.08          # sd of the per-query run-to-run noise


def _monte_carlo_error(rate: float) -> float:
    return 3 * math.sqrt(rate * (1 - rate) / PAIRS)


def _pairs(seed: int, drop: float):
    """``PAIRS`` (baseline, new) pairs of per-query values; the new run's true mean is lower by ``drop``."""
    rng = np.random.default_rng(seed)
    truth = rng.beta(2, 3, size=QUERIES)                     # the system's per-query quality
    for _ in range(PAIRS):
        base = truth + rng.normal(0, NOISE, QUERIES)
        new = truth - drop + rng.normal(0, NOISE, QUERIES)
        yield new - base


def _fail_rate(seed, drop, margin, test, permutations=999):
    return float(np.mean([regression_test(d, margin=margin, alpha=ALPHA, test=test, permutations=permutations,
                                          seed=i)["p_value"] < ALPHA
                          for i, d in enumerate(_pairs(seed, drop))]))


@pytest.mark.parametrize("test", ["t", "wilcoxon", "randomization", "bootstrap"])
def test_a_over_a_false_alarms_stay_within_alpha(test):
    """The same system twice: with no margin at all (the hardest case) the gate fails at most alpha of the time."""
    rate = _fail_rate(1, drop=0.0, margin=0.0, test=test)
    assert rate <= ALPHA + _monte_carlo_error(ALPHA), rate


@pytest.mark.parametrize("test", ["t", "randomization", "bootstrap"])
def test_a_drop_at_the_minimum_detectable_size_is_detected_80_percent_of_the_time(test):
    margin = 0.01
    sd = NOISE * math.sqrt(2)                                # sd of the per-query difference of two noisy runs
    mde = minimum_detectable_drop(sd, QUERIES, margin=margin, alpha=ALPHA, power=0.8)
    rate = _fail_rate(2, drop=mde, margin=margin, test=test)
    assert rate >= 0.8 - _monte_carlo_error(0.8), (mde, rate)


@pytest.mark.parametrize("test", ["t", "wilcoxon"])
def test_a_drop_smaller_than_the_margin_fails_no_more_often_than_alpha(test):
    rate = _fail_rate(3, drop=0.01, margin=0.02, test=test)
    assert rate <= ALPHA + _monte_carlo_error(ALPHA), rate


def test_the_reported_mde_uses_the_observed_spread():
    """What the gate reports for one pair, from its own differences, detects its drop about 80% of the time."""
    rng = np.random.default_rng(4)
    d = rng.normal(0, 0.1, 40)
    got = regression_test(d, margin=0.01)
    mde = minimum_detectable_drop(got["sd"], 40, margin=0.01)
    shifted = [regression_test(rng.normal(0, got["sd"], 40) - mde, margin=0.01)["p_value"] < ALPHA
               for _ in range(PAIRS)]
    assert np.mean(shifted) >= 0.8 - _monte_carlo_error(0.8)


@pytest.mark.parametrize("seed", range(6))
def test_t_and_wilcoxon_equal_scipys_one_sided_tests(seed):
    rng = np.random.default_rng(seed)
    d = np.round(rng.normal(-0.01 * seed, 0.1, 20 + seed), 3)
    margin = 0.005 * seed
    t = regression_test(d, margin=margin, test="t")
    assert t["p_value"] == pytest.approx(scipy_stats.ttest_1samp(d + margin, 0, alternative="less").pvalue,
                                         rel=1e-10)
    low, high = scipy_stats.ttest_1samp(d, 0).confidence_interval(confidence_level=1 - 2 * ALPHA)
    assert (t["low"], t["high"]) == pytest.approx((low, high), rel=1e-10)
    w = regression_test(d, margin=margin, test="wilcoxon")
    assert w["p_value"] == pytest.approx(scipy_stats.wilcoxon(d + margin, alternative="less").pvalue, rel=1e-10)


@pytest.mark.parametrize("seed", range(4))
def test_randomization_p_value_is_scipys_exact_sign_flip_test(seed):
    """scipy's permutation_test flips the signs of one sample and enumerates all 2^n for small n."""
    rng = np.random.default_rng(10 + seed)
    d = rng.normal(-0.02, 0.1, 12)
    exact = scipy_stats.permutation_test((d + 0.01,), np.mean, permutation_type="samples", alternative="less",
                                         n_resamples=np.inf).pvalue
    ours = regression_test(d, margin=0.01, test="randomization", permutations=40000, seed=seed)["p_value"]
    assert ours == pytest.approx(exact, abs=0.006)


def test_hand_worked_t_case():
    """d = -0.1, -0.2, 0, -0.15, -0.05, margin 0.01: mean + margin = -0.09, sd = 0.0791, t = -2.546 on 4 df."""
    got = regression_test([-0.1, -0.2, 0.0, -0.15, -0.05], margin=0.01)
    sd = math.sqrt(sum((x + 0.1) ** 2 for x in [-0.1, -0.2, 0.0, -0.15, -0.05]) / 4)
    assert got["sd"] == pytest.approx(sd)
    t = -0.09 / (sd / math.sqrt(5))
    assert got["p_value"] == pytest.approx(scipy_stats.t.cdf(t, 4), rel=1e-10)
    assert got["effect_size"] == pytest.approx(-0.1 / sd)


def test_identical_runs_never_fail_and_too_few_queries_say_nan():
    assert regression_test(np.zeros(10), margin=0.0)["p_value"] == 1.0
    assert math.isnan(regression_test([0.1], margin=0.0)["p_value"])
    assert math.isnan(minimum_detectable_drop(0.1, 1))


def test_mde_shrinks_with_the_square_root_of_the_queries():
    few, many = (minimum_detectable_drop(0.1, n, margin=0.0) for n in (25, 100))
    assert few / many == pytest.approx(2.0, rel=0.05)
    assert [round(minimum_detectable_drop(0.1, n), 6) for n in (10, 20)] == [
        round(float((scipy_stats.t.ppf(0.95, n - 1) + scipy_stats.t.ppf(0.8, n - 1)) * 0.1 / math.sqrt(n)), 6)
        for n in (10, 20)]


def test_every_test_agrees_on_a_clear_regression_and_a_clear_pass():
    rng = np.random.default_rng(7)
    regressed, fine = rng.normal(-0.1, 0.05, 60), rng.normal(0.02, 0.05, 60)
    for test in ("t", "wilcoxon", "randomization", "bootstrap"):
        assert regression_test(regressed, margin=0.01, test=test, permutations=2000)["p_value"] < 0.001, test
        assert regression_test(fine, margin=0.01, test=test, permutations=2000)["p_value"] > 0.5, test

