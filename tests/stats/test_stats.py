"""Significance tests and corrections (rankmeter.stats) against scipy, exact enumeration and hand values."""
from __future__ import annotations

import io
import itertools

import numpy as np
import pytest

from rankmeter.errors import ParameterError
from rankmeter.stats import adjust, bootstrap, effect_size, paired_t, randomization, tukey_hsd, wilcoxon
from rankmeter.executors.progress import progress_bar

from optional_packages import optional  # noqa: E402  (tests/ is on sys.path: tests/conftest.py)

stats = optional("scipy.stats")


def _scores(seed, n=40, k=2, shift=0.05):
    rng = np.random.default_rng(seed)
    base = rng.beta(2, 5, size=(n, 1))
    x = np.clip(base + rng.normal(0, 0.1, size=(n, k)), 0, 1)
    x[:, 0] = np.clip(x[:, 0] + shift, 0, 1)
    return x


# --- t and Wilcoxon against scipy.stats -------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(6))
def test_paired_t_matches_scipy(seed):
    x = _scores(seed, n=10 + 7 * seed)
    p, low, high = paired_t(x[:, 0] - x[:, 1], alpha=0.1)
    ref = stats.ttest_rel(x[:, 0], x[:, 1])
    ci = ref.confidence_interval(0.9)
    assert p == pytest.approx(ref.pvalue, rel=1e-10)
    assert (low, high) == pytest.approx((ci.low, ci.high), rel=1e-10)


@pytest.mark.parametrize("seed", range(6))
def test_wilcoxon_matches_scipy(seed):
    x = _scores(seed, n=8 + 12 * seed)
    x[::5, 1] = x[::5, 0]  # some zero differences (dropped, as scipy's default does)
    p, low, high = wilcoxon(x[:, 0] - x[:, 1])
    assert p == pytest.approx(stats.wilcoxon(x[:, 0], x[:, 1]).pvalue, rel=1e-10)
    ci = stats.ttest_rel(x[:, 0], x[:, 1]).confidence_interval(0.95)
    assert (low, high) == pytest.approx((ci.low, ci.high), rel=1e-10)


def test_identical_and_degenerate_differences():
    zeros = np.zeros(12)
    assert paired_t(zeros)[0] == 1.0 and wilcoxon(zeros)[0] == 1.0
    assert randomization(zeros[:, None], permutations=200)[0][0] == 1.0
    assert bootstrap(zeros[:, None], permutations=200)[0][0] == 1.0
    assert paired_t(np.full(5, 0.25))[:3] == (0.0, 0.25, 0.25)
    assert bootstrap(np.full(5, 0.25)[:, None], permutations=99)[0][0] == pytest.approx(1 / 100)
    assert np.isnan(paired_t(np.array([0.3]))[0])
    assert np.isnan(randomization(np.full((4, 1), np.nan), permutations=10)[0][0])


def test_effect_size_is_cohens_dz():
    d = np.array([0.1, 0.3, 0.2, 0.4])
    assert effect_size(d) == pytest.approx(0.25 / np.sqrt(((d - 0.25) ** 2).sum() / 3))
    assert np.isnan(effect_size(np.zeros(3)))
    assert np.isnan(effect_size(np.full(3, -0.2)))  # no spread: undefined, never an infinity in a table


# --- randomization: exact enumeration of all 2^n sign flips ---------------------------------------------------

def _exact_sign_flip(ints):
    """Exact two-sided sign-flip p-value over all 2^n sign vectors, in integer arithmetic."""
    signs = np.array(list(itertools.product((-1, 1), repeat=len(ints))))
    return float(np.mean(np.abs(signs @ ints) >= abs(int(ints.sum()))))


@pytest.mark.parametrize("seed", range(5))
def test_randomization_against_exact_enumeration(seed):
    rng = np.random.default_rng(100 + seed)
    n = 8 + seed  # n <= 12
    ints = rng.integers(-6, 9, size=n)  # tenths: many exact ties among the flipped sums
    exact = _exact_sign_flip(ints)
    B = 20000
    p, _, _ = randomization(ints[:, None] / 10, permutations=B, seed=seed)
    # (count + 1) / (B + 1) estimates the exact p with standard error sqrt(p (1 - p) / B)
    assert abs(p[0] - exact) <= 4.5 * np.sqrt(exact * (1 - exact) / B) + 2 / B


def test_randomization_pairs_with_missing_queries_against_exact():
    rng = np.random.default_rng(7)
    ints = rng.integers(-5, 9, size=(12, 3))
    diffs = ints / 10
    diffs[[2, 5], 1] = np.nan  # pair 1 lacks two queries
    diffs[0, 2] = np.nan
    B = 20000
    p, low, high = randomization(diffs, permutations=B, seed=3)
    for col in range(3):
        keep = ~np.isnan(diffs[:, col])
        exact = _exact_sign_flip(ints[keep, col])
        assert abs(p[col] - exact) <= 4.5 * np.sqrt(exact * (1 - exact) / B) + 2 / B
        assert low[col] < np.nanmean(diffs[:, col]) < high[col]


def test_randomization_p_value_convention_and_seed():
    d = np.linspace(0.2, 0.5, 30)[:, None]  # every sign flip but the identity is smaller
    p, _, _ = randomization(d, permutations=999, seed=1)
    assert p[0] == pytest.approx(1 / 1000)
    x = _scores(3, n=200, k=4, shift=0.01)
    diffs = x[:, :1] - x[:, 1:]
    first = randomization(diffs, permutations=3000, seed=42)
    again = randomization(diffs, permutations=3000, seed=42)
    other = randomization(diffs, permutations=3000, seed=43)
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(first[0], other[0])
    # each pair's p-value is the same whether tested alone or with others (shared sign matrix)
    alone = randomization(diffs[:, 1], permutations=3000, seed=42)
    assert alone[0][0] == first[0][1]


def test_randomization_interval_coverage():
    rng = np.random.default_rng(11)
    true, hits, sims = 0.05, 0, 300
    for _ in range(sims):
        d = rng.normal(true, 0.2, size=30)
        _, low, high = randomization(d, permutations=1000, seed=int(rng.integers(1 << 30)))
        hits += low[0] <= true <= high[0]
    assert abs(hits / sims - 0.95) < 0.04


# --- bootstrap ---------------------------------------------------------------------------------------------

def _reference_bootstrap_p(d, B, seed):
    """Plain studentised shift bootstrap (Efron & Tibshirani Algorithm 16.2), one resample at a time."""
    rng = np.random.default_rng(seed)
    n = len(d)
    t_obs = d.mean() / (d.std(ddof=1) / np.sqrt(n))
    shifted = d - d.mean()
    count = 0
    for _ in range(B):
        s = shifted[rng.integers(0, n, n)]
        count += abs(s.mean() / (s.std(ddof=1) / np.sqrt(n))) >= abs(t_obs)
    return (count + 1) / (B + 1)


@pytest.mark.parametrize("seed", range(3))
def test_bootstrap_against_reference_and_scipy_bca(seed):
    d = np.random.default_rng(seed).normal(0.04, 0.2, size=25 + 10 * seed)
    B = 20000
    p, low, high = bootstrap(d, permutations=B, seed=seed)
    ref_p = _reference_bootstrap_p(d, B, seed + 1000)
    assert abs(p[0] - ref_p) < 0.02
    ci = stats.bootstrap((d,), np.mean, confidence_level=0.95, method="BCa", n_resamples=B,
                         random_state=seed).confidence_interval
    sd = d.std(ddof=1) / np.sqrt(len(d))
    assert abs(low[0] - ci.low) < 0.05 * sd and abs(high[0] - ci.high) < 0.05 * sd


def test_bootstrap_interval_coverage_by_simulation():
    rng = np.random.default_rng(2024)
    true, sims, hits, rejections = 0.03, 400, 0, 0
    for _ in range(sims):
        d = rng.normal(true, 0.15, size=40)
        _, low, high = bootstrap(d, permutations=2000, seed=int(rng.integers(1 << 30)))
        hits += low[0] <= true <= high[0]
        p, _, _ = bootstrap(d - true, permutations=500, seed=int(rng.integers(1 << 30)))
        rejections += p[0] < 0.05
    # binomial standard error of a 95% coverage over 400 datasets is 0.011
    assert abs(hits / sims - 0.95) < 0.035
    assert abs(rejections / sims - 0.05) < 0.035


def test_bootstrap_several_pairs_and_seed():
    x = _scores(4, n=60, k=3)
    diffs = x[:, :1] - x[:, 1:]
    first = bootstrap(diffs, permutations=2000, seed=5)
    again = bootstrap(diffs, permutations=2000, seed=5)
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    alone = bootstrap(diffs[:, 1], permutations=2000, seed=5)
    assert alone[0][0] == first[0][1] and alone[1][0] == first[1][1]


# --- Tukey HSD -----------------------------------------------------------------------------------------------

def _reference_tukey(x, B, seed):
    rng = np.random.default_rng(seed)
    means = x.mean(axis=0)
    ranges = np.empty(B)
    for b in range(B):
        perm = rng.permuted(x, axis=1)  # each query's row shuffled independently
        m = perm.mean(axis=0)
        ranges[b] = m.max() - m.min()
    obs = np.abs(means[:, None] - means[None, :])
    return ((ranges[None, None, :] >= obs[:, :, None] - 1e-12).sum(axis=2) + 1) / (B + 1)


def test_tukey_equal_systems_give_large_p_values():
    rng = np.random.default_rng(8)
    same = np.repeat(rng.random((30, 1)), 4, axis=1)
    p, hsd = tukey_hsd(same, permutations=500)
    assert np.all(p[~np.eye(4, dtype=bool)] == 1.0) and hsd == 0
    # systems that are random shuffles of the same values: no pair is significant
    exchangeable = rng.random((60, 1)) + rng.normal(0, 0.1, size=(60, 5))
    p, _ = tukey_hsd(exchangeable, permutations=2000)
    assert np.nanmin(p) > 0.05


def test_tukey_dominating_system_gives_small_p_values():
    x = _scores(9, n=50, k=4, shift=0.0)
    x[:, 2] += 0.3
    p, hsd = tukey_hsd(x, permutations=2000, seed=1)
    others = [0, 1, 3]
    assert all(p[2, j] == pytest.approx(1 / 2001) for j in others)
    assert all(p[i, j] > 0.05 for i in others for j in others if i != j)
    assert np.allclose(p, p.T, equal_nan=True)
    assert 0 < hsd < 0.3


@pytest.mark.parametrize("k", [3, 9])  # 9 systems use random keys instead of the table of orders
def test_tukey_against_reference(k):
    x = _scores(12, n=25, k=k, shift=0.06)
    B = 6000
    p, _ = tukey_hsd(x, permutations=B, seed=2)
    ref = _reference_tukey(x, B, 99)
    off = ~np.eye(k, dtype=bool)
    se = np.sqrt(ref[off] * (1 - ref[off]) / B)
    assert np.all(np.abs(p[off] - ref[off]) <= 4.5 * se + 3 / B)


def test_tukey_with_two_systems_is_the_sign_flip_test():
    x = _scores(13, n=30, k=2, shift=0.04)
    B = 20000
    p, _ = tukey_hsd(x, permutations=B, seed=0)
    q, _, _ = randomization(x[:, 0] - x[:, 1], permutations=B, seed=1)
    assert abs(p[0, 1] - q[0]) <= 4.5 * np.sqrt(q[0] * (1 - q[0]) / B)


def test_tukey_reproducible():
    x = _scores(14, n=80, k=5)
    a, ha = tukey_hsd(x, permutations=1500, seed=3)
    b, hb = tukey_hsd(x, permutations=1500, seed=3)
    np.testing.assert_array_equal(a, b)
    assert ha == hb


# --- corrections, by hand --------------------------------------------------------------------------------------

def test_corrections_by_hand():
    p = [0.01, 0.04, 0.03, 0.2]
    np.testing.assert_allclose(adjust(p, "none"), p)
    np.testing.assert_allclose(adjust(p, "bonferroni"), [0.04, 0.16, 0.12, 0.8])
    # Holm: sorted 0.01 0.03 0.04 0.2 times 4 3 2 1 = 0.04 0.09 0.08 0.2, running max 0.04 0.09 0.09 0.2
    np.testing.assert_allclose(adjust(p, "holm"), [0.04, 0.09, 0.09, 0.2])
    # BH: times 4/1 4/2 4/3 4/4 = 0.04 0.06 0.0533 0.2, running min from the top 0.04 0.0533 0.0533 0.2
    np.testing.assert_allclose(adjust(p, "bh"), [0.04, 0.16 / 3, 0.16 / 3, 0.2])
    np.testing.assert_allclose(adjust([0.3, 0.6], "bonferroni"), [0.6, 1.0])
    np.testing.assert_allclose(adjust([0.5, 0.5, 0.5], "holm"), [1.0, 1.0, 1.0])
    np.testing.assert_allclose(adjust([0.04, 0.04, 0.04], "bh"), [0.04, 0.04, 0.04])


def test_corrections_ignore_nan_and_reject_unknown():
    out = adjust([0.01, np.nan, 0.04], "bonferroni")
    assert out[0] == pytest.approx(0.02) and np.isnan(out[1]) and out[2] == pytest.approx(0.08)
    with pytest.raises(ParameterError, match="holm"):
        adjust([0.1], "sidak")


# --- progress bar ---------------------------------------------------------------------------------------------

class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_bar_only_on_a_terminal_and_for_large_work():
    quiet = io.StringIO()
    with progress_bar(100, work=1e12, label="x", stream=quiet) as advance:
        assert advance is None
    assert quiet.getvalue() == ""
    with progress_bar(100, work=10, label="x", stream=_Terminal()) as advance:
        assert advance is None
    pytest.importorskip("rich")
    term = _Terminal()
    with progress_bar(100, work=1e12, label="permutations", stream=term) as advance:
        advance(50)
        advance(50)
    assert term.getvalue()  # rich drew (and cleared) a bar


def test_randomization_reports_progress():
    done = []
    randomization(np.ones((1000, 2)), permutations=9000, seed=0, progress=done.append)
    assert sum(done) == 9000 and len(done) > 1
