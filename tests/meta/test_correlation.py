"""System-ranking correlations against scipy, the rbo package and the worked examples of the papers."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter import ParameterError
from rankmeter.meta import kendall_tau, rbo, spearman, system_ranking, tau_ap
from rankmeter.meta.correlation import correlations, pearson

AUTOJUDGE = Path(__file__).parent.parent / "fixtures" / "llm_judges" / "autojudge.json"

scores = st.lists(st.integers(0, 6).map(lambda v: v / 6), min_size=3, max_size=12)


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_tau_b_and_spearman_equal_scipy(data):
    stats = pytest.importorskip("scipy.stats")
    x = data.draw(scores)
    y = data.draw(st.lists(st.integers(0, 6).map(lambda v: v / 6), min_size=len(x), max_size=len(x)))
    want_tau = stats.kendalltau(x, y).statistic
    want_rho = stats.spearmanr(x, y).statistic
    for got, want in ((kendall_tau(x, y), want_tau), (spearman(x, y), want_rho)):
        if np.isnan(want):
            assert np.isnan(got)
        else:
            assert got == pytest.approx(want, abs=1e-12)


def test_tau_a_counts_every_pair():
    # 4 systems, one discordant pair of 6: (5 - 1) / 6
    assert kendall_tau([4, 3, 2, 1], [4, 3, 1, 2], variant="a") == pytest.approx(4 / 6)
    assert kendall_tau([1, 1, 2], [1, 2, 3], variant="a") == pytest.approx(2 / 3)  # a tie counts 0


def test_tau_ap_weighs_the_top_more_than_the_bottom():
    """Yilmaz, Aslam and Robertson (2008): one swap at the top costs more than one at the bottom; tau the same."""
    truth = [4, 3, 2, 1]                     # systems 0 > 1 > 2 > 3
    top_swapped = [3, 4, 2, 1]               # 1 > 0 > 2 > 3
    bottom_swapped = [4, 3, 1, 2]            # 0 > 1 > 3 > 2
    assert kendall_tau(top_swapped, truth) == kendall_tau(bottom_swapped, truth) == pytest.approx(2 / 3)
    # by hand: C = (0, 2, 3) -> 2/3 (0/1 + 2/2 + 3/3) - 1 = 1/3; C = (1, 2, 2) -> 2/3 (1 + 1 + 2/3) - 1 = 7/9
    for ties in ("strict", "favourable"):  # no ties: both rules give the paper's value
        assert tau_ap(top_swapped, truth, symmetric=False, ties=ties) == pytest.approx(1 / 3)
        assert tau_ap(bottom_swapped, truth, symmetric=False, ties=ties) == pytest.approx(7 / 9)
        assert tau_ap(truth, truth, ties=ties) == 1.0 and tau_ap(truth[::-1], truth, ties=ties) == -1.0
    assert tau_ap(top_swapped, truth) == pytest.approx(
        (tau_ap(top_swapped, truth, symmetric=False) + tau_ap(truth, top_swapped, symmetric=False)) / 2)


@settings(max_examples=60, deadline=None)
@given(st.permutations(list(range(12))), st.integers(3, 12), st.integers(3, 12),
       st.sampled_from([0.5, 0.8, 0.9, 0.98]))
def test_rbo_extrapolated_equals_the_rbo_package(order, n, m, p):
    rbo_package = pytest.importorskip("rbo")
    a, b = order[:n], list(reversed(order))[:m]
    want = rbo_package.RankingSimilarity(a, b).rbo_ext(p=p)
    assert rbo(a, b, p=p) == pytest.approx(want, abs=1e-12)
    if n == m:  # the bounds: min <= ext <= min + residual
        low, res = rbo(a, b, p=p, kind="min"), rbo(a, b, p=p, kind="res")
        assert low - 1e-12 <= rbo(a, b, p=p) <= low + res + 1e-12


def test_rbo_of_identical_and_disjoint_lists():
    assert rbo(list("abcde"), list("abcde"), p=0.9) == pytest.approx(1.0)
    assert rbo(list("abc"), list("xyz"), p=0.9) == 0.0
    assert rbo(list("abc"), list("abc"), p=0.9, kind="min") + rbo(list("abc"), list("abc"), p=0.9, kind="res") \
        == pytest.approx(1.0)


def test_inputs_checked_and_dicts_matched_by_name():
    assert kendall_tau({"x": 1, "y": 2, "z": 3}, {"z": 9, "y": 5, "x": 1}) == pytest.approx(1.0)
    assert system_ranking({"x": 0.2, "y": 0.5, "z": 0.1}) == ["y", "x", "z"]
    with pytest.raises(ParameterError, match="different systems"):
        kendall_tau({"x": 1, "y": 2}, {"x": 1, "q": 2})
    with pytest.raises(ParameterError, match="at least two"):
        spearman([1], [2])
    with pytest.raises(ParameterError, match=r"p=0.0: expected a number in \(0, 1\]"):
        rbo(["a"], ["a"], p=0.0)


def test_cli_correlates_two_measures_over_runs(tmp_path):
    import json
    import subprocess
    import sys

    import rankmeter
    rng = np.random.default_rng(4)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{q} 0 d{d} {int(rng.integers(0, 3))}\n" for q in range(10) for d in range(20)))
    runs = []
    for s in range(5):
        path = tmp_path / f"s{s}.txt"
        path.write_text("".join(f"q{q} Q0 d{d} {r + 1} {20 - r + rng.random():.3f} s{s}\n"
                                for q in range(10) for r, d in enumerate(rng.permutation(20))))
        runs.append(path)
    out = subprocess.run([sys.executable, "-m", "rankmeter", "meta", "correlate", str(qrels), *map(str, runs),
                          "-m", "AP", "-m", "P@5", "--format", "json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    table = rankmeter.evaluate_runs(str(qrels), [str(p) for p in runs], ["AP", "P@5"])
    a = {r: table[r]["AP"] for r in table.runs}
    b = {r: table[r]["P@5"] for r in table.runs}
    assert got["systems"] == 5 and got["kendall_tau_b"] == pytest.approx(kendall_tau(a, b))
    assert got["tau_ap"] == pytest.approx(tau_ap(a, b))
    text = subprocess.run([sys.executable, "-m", "rankmeter", "meta", "correlate", str(qrels), *map(str, runs),
                           "-m", "AP", "-m", "P@5"], capture_output=True, text=True)
    assert text.returncode == 0, text.stderr
    assert f"  kendall_tau_b          {got['kendall_tau_b']:.4f}\n" in text.stdout


@pytest.mark.parametrize("seed", range(5))
def test_rbo_equals_repro_eval(seed):
    """repro_eval (Breuer et al., SIGIR 2020) bundles an RBO: its rbo_min agrees always, and its rbo_res and
    rbo_ext on lists of one length; on lists of different lengths its res/ext follow another reading of
    Webber et al.'s eq. 30/32 than the rbo package (test above) and rankmeter, so only min is compared there."""
    external = pytest.importorskip("repro_eval.measure.external.rbo")
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 20))
    same = [[f"d{i}" for i in rng.permutation(30)[:n]] for _ in range(2)]
    ragged = [[f"d{i}" for i in rng.permutation(30)[:int(rng.integers(5, 20))]] for _ in range(2)]
    for p in (0.5, 0.9):
        for a, b in (same, ragged):
            assert rbo(a, b, p=p, kind="min") == pytest.approx(external.rbo_min(a, b, p), abs=1e-12)
        a, b = same
        assert rbo(a, b, p=p, kind="res") == pytest.approx(external.rbo_res(a, b, p), abs=1e-12)
        assert rbo(a, b, p=p, kind="ext") == pytest.approx(external.rbo_ext(a, b, p), abs=1e-12)


def _autojudge_cases():
    return json.loads(AUTOJUDGE.read_text())["cases"]


def test_autojudge_fixtures_cover_ties_and_undefined_cases():
    cases = _autojudge_cases()
    assert len(cases) == 308
    assert sum(c["tauap_b"] is None for c in cases) == 30           # one side all alike
    assert sum(len(set(c["a"])) < len(c["a"]) for c in cases) > 100  # ties on the ranking side


@pytest.mark.parametrize("key", ["tauap_b", "kendall", "pearson", "spearman"])
def test_equal_trec_autojudge_on_its_fixtures_and_random_inputs(key):
    """TREC AutoJudge (trec-auto-judge/auto-judge-code 5d121df) correlation_to_truth, run by
    tools/regen_llm_judge_fixtures.py: tauap_b (pyircore) and pandas' kendall / pearson / spearman."""
    ours = {"tauap_b": tau_ap, "kendall": kendall_tau, "pearson": pearson, "spearman": spearman}[key]
    compared = undefined = 0
    for case in _autojudge_cases():
        got = ours(case["a"], case["b"])
        if case[key] is None:
            assert np.isnan(got), case["name"]
            undefined += 1
        else:
            assert got == pytest.approx(case[key], abs=1e-12), case["name"]
            compared += 1
    assert compared + undefined == 308 and compared >= 278


def test_tau_ap_strict_ties_by_hand():
    # a = (2, 1, 1): the pivot group {s1, s2} sits under s0; b = (3, 3, 1) ties s0 with s1
    # a against b: s1: p = 1, s0 above by a and strictly by b? no (tie) -> 0; s2: p = 1, s0 above by both -> 1
    #   2 / 2 * (0 + 1) - 1 = 0
    # b against a: pivots by b: s2 (p = 2): s0 above in a -> 1, s1 not (tie) -> 1 / 2; 2 / 1 * 1/2 - 1 = 0
    a, b = [2, 1, 1], [3, 3, 1]
    assert tau_ap(a, b, symmetric=False) == 0.0 and tau_ap(b, a, symmetric=False) == 0.0
    # the earlier rule orders a's tie by b and counts b's tie as agreement: 1
    assert tau_ap(a, b, symmetric=False, ties="favourable") == 1.0
    assert np.isnan(tau_ap([1, 1, 1], [1, 2, 3]))
    with pytest.raises(ParameterError, match="ties="):
        tau_ap(a, b, ties="optimistic")


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_pearson_equals_scipy(data):
    stats = pytest.importorskip("scipy.stats")
    x = data.draw(st.lists(st.floats(-100, 100, allow_nan=False), min_size=3, max_size=15))
    y = data.draw(st.lists(st.floats(-100, 100, allow_nan=False), min_size=len(x), max_size=len(x)))
    got = pearson(x, y)
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        assert np.isnan(got)
    else:
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert got == pytest.approx(stats.pearsonr(x, y).statistic, abs=1e-9)


def test_correlations_report_every_coefficient_undefined_when_systems_score_alike():
    got = correlations({"s1": 0.3, "s2": 0.3, "s3": 0.3}, {"s1": 0.1, "s2": 0.5, "s3": 0.2},
                       names=("nDCG@10 (human)", "nDCG@10 (LLM)"))
    keys = ["kendall_tau_b", "kendall_tau_a", "spearman", "pearson", "tau_ap", "tau_ap_a_vs_b", "rbo"]
    assert got["systems"] == 3 and all(got[k] is None for k in keys)
    assert set(got["undefined"]) == set(keys)
    assert got["undefined"]["tau_ap"] == "every system scores 0.3 under nDCG@10 (human): the systems are not ranked"
    fine = correlations([0.1, 0.2, 0.3], [0.1, 0.3, 0.2])
    assert fine["undefined"] == {} and fine["kendall_tau_b"] == pytest.approx(1 / 3)
    assert fine["tau_ap"] == tau_ap([0.1, 0.2, 0.3], [0.1, 0.3, 0.2])


def test_rbo_at_p_1_is_the_rbo_packages_average_overlap():
    import random

    import rbo as oracle

    from rankmeter.meta.correlation import rbo as ours
    rng = random.Random(7)
    for _ in range(200):
        items = list(range(30))
        a, b = rng.sample(items, rng.randint(1, 20)), rng.sample(items, rng.randint(1, 20))
        assert ours(a, b, p=1) == pytest.approx(oracle.RankingSimilarity(a, b).rbo(p=1.0), abs=1e-12)
    with pytest.raises(ParameterError, match=r"in \(0, 1\]"):
        ours([1], [1], p=1.5)


def _tau_oracle(x, y, variant):
    """Kendall's tau by the definition, one pair of systems at a time."""
    concordant = ties_x = ties_y = pairs = 0
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            sx, sy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
            concordant += sx * sy
            ties_x += sx == 0
            ties_y += sy == 0
            pairs += 1
    if variant == "a":
        return concordant / pairs
    denom = np.sqrt((pairs - ties_x) * (pairs - ties_y))
    return concordant / denom if denom else np.nan


def _tau_ap_oracle(x, y, ties):
    """One direction of tau_ap, system by system: strict (pyircore's tau_ap-b) or favourable (x's ties by y)."""
    n = len(x)
    if ties == "favourable":
        order = sorted(range(n), key=lambda k: (-x[k], -y[k]))
        total = sum(sum(y[order[j]] >= y[order[i]] for j in range(i)) / i for i in range(1, n))
        return 2 / (n - 1) * total - 1
    total, ranked = 0.0, 0
    for i in range(n):
        above = [j for j in range(n) if x[j] > x[i]]
        if above:
            ranked += 1
            total += sum(y[j] > y[i] for j in above) / len(above)
    return 2 / ranked * total - 1 if ranked else np.nan


@pytest.mark.parametrize("grid", [None, 3, 2])            # continuous scores, then 3 and 2 levels (many ties)
def test_row_wise_taus_equal_the_definitions_and_the_scalar_functions(grid):
    from rankmeter.meta.correlation import kendall_tau_rows, tau_ap_rows

    rng = np.random.default_rng(7 if grid is None else grid)
    a, b = rng.random((300, 6)), rng.random((300, 6))
    if grid is not None:
        a, b = np.floor(a * grid) / grid, np.floor(b * grid) / grid
    a[0] = 0.5                                                # one row with every system alike: undefined
    for variant in ("a", "b"):
        got = kendall_tau_rows(a, b, variant=variant)
        want = [_tau_oracle(x, y, variant) for x, y in zip(a, b)]
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
        assert [kendall_tau(x, y, variant=variant) for x, y in zip(a, b)] == pytest.approx(got.tolist(),
                                                                                         nan_ok=True, abs=0)
    for ties in ("strict", "favourable"):
        one_way = tau_ap_rows(a, b, symmetric=False, ties=ties)
        want = [_tau_ap_oracle(x, y, ties) for x, y in zip(a, b)]
        np.testing.assert_allclose(one_way, want, rtol=0, atol=1e-12)
        both = [(_tau_ap_oracle(x, y, ties) + _tau_ap_oracle(y, x, ties)) / 2 for x, y in zip(a, b)]
        np.testing.assert_allclose(tau_ap_rows(a, b, ties=ties), both, rtol=0, atol=1e-12)
        assert [tau_ap(x, y, ties=ties) for x, y in zip(a, b)] == pytest.approx(
            tau_ap_rows(a, b, ties=ties).tolist(), nan_ok=True, abs=0)
    assert np.isnan(kendall_tau_rows(a, b)[0]) and np.isnan(tau_ap_rows(a, b)[0])
    if grid == 2:
        assert np.isnan(kendall_tau_rows(a, b)).sum() > 1          # the tied inputs reach the undefined case
    with pytest.raises(ParameterError, match="same shape"):
        kendall_tau_rows(a, b[:, :5])
