"""The leaderboard's statistics against a known truth (tests/leaderboard/simulation.py), small enough for CI:
200 replicates of 20 collections, 1,000 resamples each. bench/sim_leaderboard.py runs the same worlds with
more replicates and resamples and prints the figures with their Monte-Carlo errors."""
from __future__ import annotations

import numpy as np
import pytest

from leaderboard.simulation import BOARD, TIED, percentile_rank_intervals, rank_sets, simulate


@pytest.fixture(scope="module")
def one_level():
    return simulate(200, resamples=1000, seed=1)


def test_intervals_of_the_aggregate_cover_at_95(one_level):
    cover, se = one_level.interval_coverage
    assert abs(cover - 0.95) <= max(3 * se, 0.02), one_level.lines()


def test_rank_intervals_cover_at_least_95_and_the_top_group_holds_the_best(one_level):
    for cover, se in (one_level.rank_coverage, one_level.top_holds_best):
        assert cover >= 0.95 - 2 * max(se, 0.01), one_level.lines()


def test_rank_intervals_at_the_all_equal_null_cover_near_95(one_level):
    # all systems tied: every true rank set is 1..S, the configuration where the guarantee is tight
    cover, se = one_level.null_rank_coverage
    assert abs(cover - 0.95) <= max(3 * se, 0.03), one_level.lines()


def test_under_the_all_equal_null_the_corrected_pairs_separated_stay_below_alpha(one_level):
    # the default test at one level is the sign-flip randomisation test over the collections
    share, _ = one_level.null_pairs_separated
    any_pair, se = one_level.null_any_separated
    assert share <= 0.05 and any_pair <= 0.05 + 2 * max(se, 0.015), one_level.lines()


def test_with_ties_rank_intervals_hold_the_tied_ranks_and_the_top_group_holds_every_best():
    for mu, seed in ((TIED, 2), (BOARD, 4)):
        figures = simulate(100, resamples=1000, seed=seed, mu=mu)
        for cover, se in (figures.rank_coverage, figures.top_holds_best):
            assert cover >= 0.95 - 2 * max(se, 0.015), figures.lines()


def test_two_levels_cover_the_aggregate_too():
    figures = simulate(60, resamples=600, queries=10, level="queries", seed=3)
    cover, se = figures.interval_coverage
    assert cover >= 0.95 - 3 * max(se, 0.015), figures.lines()
    assert figures.null_any_separated[0] <= 0.05 + 2 * max(figures.null_any_separated[1], 0.03), figures.lines()


def test_true_rank_sets_and_percentile_rank_intervals_on_a_worked_example():
    low, high = rank_sets(np.array([0.1, 0.3, 0.3, 0.0]))
    assert low.tolist() == [3, 1, 1, 4] and high.tolist() == [3, 2, 2, 4]

    class Board:  # two collections, systems far apart: every resample ranks them 2, 1
        level, aggregate, resamples, seed, alpha = "collections", "macro", 50, 0, 0.05
        per_query_scores = type("S", (), {"blocks": [np.array([[[0.2, 0.9]]]), np.array([[[0.3, 0.8]]])]})

    p_low, p_high = percentile_rank_intervals(Board)
    assert p_low.tolist() == [2, 1] and p_high.tolist() == [2, 1]
