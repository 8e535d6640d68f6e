"""The leaderboard's statistics against scipy, exact enumeration, loop oracles and the bootstrap's own moments."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rankmeter.leaderboard import leaderboard
from rankmeter.leaderboard.ranks import expansion, influence, letters, ranks, resampled_pairs
from rankmeter.leaderboard.resample import aggregate, resample_aggregates
from rankmeter.stats.significance import effect_size

from optional_packages import optional  # noqa: E402  (tests/ is on sys.path: tests/conftest.py)
from oracles.leaderboard_loops import letter_runs, pairs_from_resamples, tukey_exact

stats = optional("scipy.stats")


def _blocks(seed, collections=6, queries=(5, 8, 3, 6, 4, 7), systems=3, shift=0.05):
    rng = np.random.default_rng(seed)
    out = []
    for c in range(collections):
        base = rng.beta(2, 5, size=(queries[c % len(queries)], 1, 1))
        out.append(np.clip(base + rng.normal(0, 0.1, (len(base), 1, systems)) + shift * np.arange(systems), 0, 1))
    return out


def _table(blocks, measure="AP"):
    rows = [(f"s{s}", f"c{c}", f"q{q}", measure, float(b[q, 0, s]))
            for c, b in enumerate(blocks) for q in range(len(b)) for s in range(b.shape[2])]
    return pd.DataFrame(rows, columns=["system", "collection", "query", "measure", "value"])


def _pair(board, a, b):
    return next(p for p in board.pairs if (p["a"], p["b"]) == (a, b))


# --- the resamples' moments: the exact bootstrap variance of each design ----------------------------------------

@pytest.mark.parametrize("level", ["collections", "queries"])
def test_resampled_macro_mean_has_the_exact_bootstrap_variance(level):
    blocks = _blocks(1)
    boot = resample_aggregates(blocks, level=level, how="macro", resamples=40000, seed=3)[:, 0, :]
    means = np.stack([b.mean(axis=0) for b in blocks])[:, 0, :]
    between = means.var(axis=0)  # plug-in, over the C collections
    within = np.mean([b[:, 0, :].var(axis=0) / len(b) for b in blocks], axis=0)
    expected = (between + (within if level == "queries" else 0)) / len(blocks)
    np.testing.assert_allclose(boot.var(axis=0), expected, rtol=0.05)  # the variance's MC error is ~0.7%
    np.testing.assert_allclose(boot.mean(axis=0), means.mean(axis=0), atol=4 * np.sqrt(expected / 40000).max())


def test_two_levels_are_one_level_when_every_collection_has_one_query():
    blocks = [b[:1] for b in _blocks(2)]
    for how in ("macro", "weighted", "geometric"):
        one = resample_aggregates(blocks, level="collections", how=how, resamples=500, seed=9)
        two = resample_aggregates(blocks, level="queries", how=how, resamples=500, seed=9)
        np.testing.assert_allclose(two, one, rtol=1e-12)
    table = _table(blocks)
    by_collections = leaderboard(table, level="collections", resamples=800, seed=4)
    by_queries = leaderboard(table, level="queries", resamples=800, seed=4)
    for r1, r2 in zip(by_collections.rows, by_queries.rows):
        assert (r1["system"], r1["rank"], r1["rank_interval"], r1["group"]) == \
            (r2["system"], r2["rank"], r2["rank_interval"], r2["group"])
        np.testing.assert_allclose(r1["interval"], r2["interval"], rtol=1e-12)
    np.testing.assert_allclose([p["p"] for p in by_collections.pairs], [p["p"] for p in by_queries.pairs])


def test_aggregates_by_hand():
    means = np.array([[[0.2, 0.4]], [[0.6, 0.4]], [[0.1, 0.4]]])
    sizes = np.array([1, 3, 6])
    assert aggregate(means, sizes, "macro")[0].tolist() == pytest.approx([0.3, 0.4])
    assert aggregate(means, sizes, "weighted")[0].tolist() == pytest.approx([(0.2 + 1.8 + 0.6) / 10, 0.4])
    assert aggregate(means, sizes, "geometric")[0].tolist() == pytest.approx([(0.2 * 0.6 * 0.1) ** (1 / 3), 0.4])


# --- ranks, intervals, letters against loop oracles ---------------------------------------------------------------

def test_win_probabilities_p_values_and_rank_intervals_match_the_loop_oracle():
    rng = np.random.default_rng(5)
    observed = np.array([0.50, 0.52, 0.47, 0.60, 0.51])
    boot = observed + rng.normal(0, 0.02, (300, 5)) + rng.normal(0, 0.01, (300, 1))
    got = resampled_pairs(observed, boot, alpha=0.05, units=12)
    win, p, low, high = pairs_from_resamples(observed, boot, 0.05, 12)
    np.testing.assert_allclose(got["win"], win, rtol=1e-12)
    np.testing.assert_allclose(got["p"], p, rtol=1e-12)
    assert got["rank_low"].tolist() == low and got["rank_high"].tolist() == high
    assert ranks(observed).tolist() == [4, 2, 5, 1, 3]


@pytest.mark.parametrize("how", ["macro", "weighted", "geometric"])
def test_studentised_rank_intervals_match_the_loop_oracle(how):
    # six systems two of which are near, over seven collections: the bounds of each system from the resamples'
    # own pairwise t statistics, one resample and one pair at a time in the oracle
    blocks = _blocks(12, collections=7, systems=6, shift=0.02)
    sizes = np.array([len(b) for b in blocks])
    means = np.stack([b.mean(axis=0) for b in blocks])
    observed = aggregate(means, sizes, how)[0]
    boot, counts = resample_aggregates(blocks, level="collections", how=how, resamples=300, seed=2, counts=True)
    values = influence(means[:, 0, :], sizes, how, observed)
    got = resampled_pairs(observed, boot[:, 0, :], alpha=0.05, units=7, counts=counts, unit_values=values)
    _, _, low, high = pairs_from_resamples(observed, boot[:, 0, :], 0.05, 7, counts=counts, unit_values=values)
    assert got["rank_low"].tolist() == low and got["rank_high"].tolist() == high
    if how == "macro":  # one level: the resampled mean difference is the drawn units' (the shortcut's case)
        fast = resampled_pairs(observed, boot[:, 0, :], alpha=0.05, units=7, counts=counts, unit_values=values,
                               linear=True)
        assert fast["rank_low"].tolist() == low and fast["rank_high"].tolist() == high
    assert low != high  # not every interval collapsed: the bounds were put to the test
    if how == "macro":  # the influence of a collection on a macro mean is its mean, centred
        np.testing.assert_allclose(values, means[:, 0, :] - means[:, 0, :].mean(axis=0), atol=1e-15)


@pytest.mark.parametrize("linear", [False, True])
def test_a_studentised_bound_of_two_systems_is_the_bootstrap_t_quantile(linear):
    # two systems: s0's bound is the 95% quantile over resamples of |mean* - mean| / (sd* / sqrt(n)) of the
    # drawn collections' differences, the bootstrap-t of the paired mean difference (Efron and Tibshirani 1993,
    # 12.5), and s0 is first for sure exactly when |t| of the data is past it
    rng = np.random.default_rng(3)
    for shift in (0.0, 0.01, 0.02, 0.03, 0.05):
        units = rng.normal(0.5, 0.05, (10, 1)) + rng.normal(0, 0.02, (10, 2)) + np.array([shift, 0.0])
        boot, counts = resample_aggregates([u[None, None, :] for u in units], level="collections", how="macro",
                                           resamples=2000, seed=5, counts=True)
        d, n = units[:, 0] - units[:, 1], len(units)
        t_star = []
        for r in range(len(counts)):
            drawn = np.repeat(d, counts[r].astype(int))
            t_star.append(abs(drawn.mean() - d.mean()) / (drawn.std(ddof=1) / np.sqrt(n)))
        q = np.quantile(t_star, 0.95)
        got = resampled_pairs(units.mean(axis=0), boot[:, 0, :], alpha=0.05, units=n, counts=counts, linear=linear,
                              unit_values=units - units.mean(axis=0))
        t_obs = abs(d.mean()) / (d.std(ddof=1) / np.sqrt(n))
        assert got["rank_low"].tolist() == ([1, 1] if t_obs <= q else [1, 2] if d.mean() > 0 else [2, 1])


@pytest.mark.parametrize("seed", range(30))
def test_letter_groups_are_the_maximal_runs_without_a_separated_pair(seed):
    rng = np.random.default_rng(seed)
    s = int(rng.integers(2, 9))
    upper = np.triu(rng.random((s, s)) < rng.uniform(0.1, 0.8), k=1)
    separated = upper | upper.T
    order = rng.permutation(s)
    groups = letters(order, separated)
    runs = letter_runs(list(order), separated.tolist())
    starts = sorted({i for r in runs for i in r})
    for position, system in enumerate(order):
        assert groups[system] == "".join("abcdefghijklmnopqrstuvwxyz"[starts.index(i)] for i in runs[position])
    for i in range(s):  # a shared letter: never separated
        for j in range(s):
            if set(groups[i]) & set(groups[j]):
                assert not separated[i, j]


def test_expansion_is_hesterbergs_expanded_percentile_level():
    for n, alpha in [(5, 0.05), (20, 0.05), (13, 0.1)]:
        level, factor = expansion(n, alpha)
        wide = np.sqrt(n / (n - 1)) * stats.t.ppf(1 - alpha / 2, n - 1)
        assert level == pytest.approx(2 * stats.norm.sf(wide), rel=1e-9)
        assert factor == pytest.approx(wide / stats.norm.ppf(1 - alpha / 2), rel=1e-9)


# --- every test's p-value against scipy (or exact enumeration) -------------------------------------------------

def _collection_means(blocks):
    return np.stack([b.mean(axis=0) for b in blocks])[:, 0, :]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_t_and_wilcoxon_match_scipy_over_the_collections_means(seed):
    blocks = _blocks(seed, collections=9)
    units = _collection_means(blocks)
    for test, oracle in (("t", lambda a, b: stats.ttest_rel(a, b).pvalue),
                         ("wilcoxon", lambda a, b: stats.wilcoxon(a - b).pvalue)):
        board = leaderboard(_table(blocks), test=test, correction="none", resamples=200)
        for i, j in [(0, 1), (0, 2), (1, 2)]:
            assert _pair(board, f"s{i}", f"s{j}")["p"] == pytest.approx(oracle(units[:, i], units[:, j]), rel=1e-9)
        holm = leaderboard(_table(blocks), test=test, correction="holm", resamples=200)
        raw = [p["p"] for p in board.pairs]
        from statsmodels.stats.multitest import multipletests  # noqa: PLC0415 - an oracle of Holm
        np.testing.assert_allclose([p["p_adjusted"] for p in holm.pairs], multipletests(raw, method="holm")[1])


def _exact_sign_flip(d):
    return stats.permutation_test((d,), np.sum, permutation_type="samples", n_resamples=np.inf,
                                  alternative="two-sided").pvalue


def test_randomization_matches_scipys_exact_permutation_test_at_both_levels():
    blocks = _blocks(4, collections=8, queries=(2, 1, 2, 1, 1, 2, 1, 2), shift=0.03)  # 12 queries: 4096 flips
    table = _table(blocks)
    b = 20000
    one = leaderboard(table, test="randomization", level="collections", correction="none", resamples=b)
    two = leaderboard(table, test="randomization", level="queries", correction="none", resamples=b)
    units = _collection_means(blocks)
    weights = np.concatenate([np.full(len(x), 1 / (len(blocks) * len(x))) for x in blocks])
    values = np.concatenate([x[:, 0, :] for x in blocks])
    for i, j in [(0, 1), (0, 2), (1, 2)]:
        exact_one = _exact_sign_flip(units[:, i] - units[:, j])
        exact_two = _exact_sign_flip(weights * (values[:, i] - values[:, j]))
        for board, exact in ((one, exact_one), (two, exact_two)):
            got = _pair(board, f"s{i}", f"s{j}")["p"]
            assert abs(got - exact) <= 4 * np.sqrt(exact * (1 - exact) / b) + 2 / b, (got, exact)


def test_randomised_tukey_matches_exact_enumeration_on_a_worked_example():
    # five collections, three systems: 6^5 = 7776 arrangements enumerated by the oracle
    units = np.array([[0.40, 0.45, 0.52], [0.31, 0.30, 0.41], [0.55, 0.62, 0.60], [0.22, 0.29, 0.35],
                      [0.48, 0.47, 0.58]])
    table = pd.DataFrame([(f"s{s}", f"c{c}", "AP", units[c, s]) for c in range(5) for s in range(3)],
                         columns=["system", "collection", "measure", "value"])
    b = 20000
    board = leaderboard(table, test="tukey", correction="none", resamples=b, seed=1)
    exact = tukey_exact(units)
    for i, j in [(0, 1), (0, 2), (1, 2)]:
        got = _pair(board, f"s{i}", f"s{j}")
        assert got["p"] == got["p_adjusted"]
        assert abs(got["p"] - exact[i, j]) <= 4 * np.sqrt(exact[i, j] * (1 - exact[i, j]) / b) + 2 / b
    assert exact[0, 2] < 0.05 < exact[0, 1]  # the worked example separates s2 from s0 only


def test_randomised_tukey_is_near_scipys_classic_tukey_where_they_test_the_same_null():
    """With no collection effect (every unit drawn alike) the randomised HSD and the classic one test the same
    null (the classic one for independent groups, the randomised one within units); here their p-values agree
    to within 0.05 and so do their decisions at 5%."""
    rng = np.random.default_rng(11)
    units = rng.normal(0.5, 0.1, (40, 4)) + np.array([0, 0.02, 0.05, 0.07])
    table = pd.DataFrame([(f"s{s}", f"c{c}", "AP", units[c, s]) for c in range(40) for s in range(4)],
                         columns=["system", "collection", "measure", "value"])
    board = leaderboard(table, test="tukey", correction="none", resamples=20000, seed=2)
    classic = stats.tukey_hsd(*units.T).pvalue
    for p in board.pairs:
        i, j = int(p["a"][1]), int(p["b"][1])
        assert abs(p["p"] - classic[i, j]) < 0.05, (p["p"], classic[i, j])
        assert (p["p"] < 0.05) == (classic[i, j] < 0.05)


def test_bootstrap_interval_at_one_level_matches_scipys_percentile_bootstrap():
    blocks = _blocks(6, collections=12)
    units = _collection_means(blocks)
    board = leaderboard(_table(blocks), level="collections", resamples=20000, seed=3)
    level, _ = expansion(12, 0.05)
    for s in range(3):
        row = next(r for r in board.rows if r["system"] == f"s{s}")
        ref = stats.bootstrap((units[:, s],), np.mean, method="percentile", confidence_level=1 - level,
                              n_resamples=20000, random_state=0).confidence_interval
        width = ref.high - ref.low
        assert abs(row["interval"][0] - ref.low) < 0.05 * width and abs(row["interval"][1] - ref.high) < 0.05 * width


def test_tost_and_non_inferiority_by_t_match_scipys_one_sided_t_tests():
    blocks = _blocks(7, collections=10, shift=0.01)
    units = _collection_means(blocks)
    board = leaderboard(_table(blocks), test="t", correction="none", baseline="s0", margin=0.05, resamples=200)
    for r in board.baseline_rows:
        s = int(r["system"][1])
        d = units[:, s] - units[:, 0]
        lower = stats.ttest_1samp(d, -0.05, alternative="greater").pvalue
        upper = stats.ttest_1samp(d, 0.05, alternative="less").pvalue
        assert r["p_noninferiority"] == pytest.approx(lower, rel=1e-9)
        assert r["p_equivalence"] == pytest.approx(max(lower, upper), rel=1e-9)


def test_effect_sizes_are_the_paired_d_z_of_the_collections_means():
    blocks = _blocks(8, collections=7)
    units = _collection_means(blocks)
    board = leaderboard(_table(blocks), resamples=200)
    for p in board.pairs:
        i, j = int(p["a"][1]), int(p["b"][1])
        assert p["effect_size"] == pytest.approx(effect_size(units[:, i] - units[:, j]), rel=1e-12)


def test_weighted_and_geometric_aggregates_of_a_table():
    blocks = _blocks(9, collections=4, queries=(2, 6, 3, 9))
    table = _table(blocks)
    values = np.concatenate([b[:, 0, :] for b in blocks])
    means = _collection_means(blocks)
    weighted = leaderboard(table, aggregate="weighted", resamples=300)
    geometric = leaderboard(table, aggregate="geometric", resamples=300)
    for s in range(3):
        row = next(r for r in weighted.rows if r["system"] == f"s{s}")
        assert row["mean"] == pytest.approx(values[:, s].mean(), rel=1e-12)  # every query counts alike
        row = next(r for r in geometric.rows if r["system"] == f"s{s}")
        assert row["mean"] == pytest.approx(np.prod(means[:, s]) ** (1 / 4), rel=1e-12)
        assert row["interval"][0] <= row["mean"] <= row["interval"][1]


def test_a_run_lacking_a_query_is_a_missing_cell_and_the_hint_names_queries_qrels(tmp_path):
    import json
    (tmp_path / "x.qrels").write_text("q1 0 a 1\nq2 0 b 1\n")
    (tmp_path / "full.run").write_text("q1 Q0 a 1 2 full\nq2 Q0 b 1 2 full\n")
    (tmp_path / "part.run").write_text("q1 Q0 a 1 2 part\n")
    manifest = {"collections": {c: {"qrels": "x.qrels", "runs": {"full": "full.run", "part": "part.run"}}
                                for c in ("x", "y")}}
    (tmp_path / "m.json").write_text(json.dumps(manifest))
    from rankmeter.errors import InputError
    with pytest.raises(InputError, match=r"'part' lacks 1 of 2 queries of 'x' \(RR: 'q2'\).*queries='qrels'"):
        leaderboard(str(tmp_path / "m.json"), "RR", resamples=100)
    board = leaderboard(str(tmp_path / "m.json"), "RR", resamples=100, queries="qrels")
    assert [r["mean"] for r in board.rows] == [1.0, 0.5]
