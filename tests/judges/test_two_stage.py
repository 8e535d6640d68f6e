"""Intervals that count the judge's draw noise, by simulation with a judge of known per-pair probabilities
(tests/judges/known_judge.py): every truth is known exactly (DCG@10 is linear in the gains, so the judge's
expected metric is the metric of its expected gains)."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from known_judge import dcg10, draw, expected_dcg10, population, write_draws, write_qrels  # noqa: E402

from rankmeter.judges.draws import ppi_judge_share, query_means, two_stage_mean  # noqa: E402
from rankmeter.judges.ppi_means import classical_mean, ppi_mean  # noqa: E402
from rankmeter.errors import ParameterError  # noqa: E402

REPS = 1000


def _runs(rng, human):
    return [np.argsort(-(skill * human + rng.normal(0, 1, human.shape)), axis=1, kind="stable")
            for skill in (1.2, 0.7)]


@pytest.fixture(scope="module")
def world():
    rng = np.random.default_rng(12)
    human, probs = population(rng, 20_000)
    orders = _runs(rng, human)
    expected = [expected_dcg10(probs, o) for o in orders]          # each query's E over draws, per run
    truth_human = [dcg10(human.astype(float), o) for o in orders]
    return rng, human, probs, orders, expected, truth_human


def test_two_stage_intervals_cover_the_judges_expected_metric(world):
    """1000 repetitions: 100 queries drawn from 20,000, each pair labelled 3 times. The population's mean of the
    judge's expected DCG@10 (each run's, and the difference) is covered by the two-stage interval at 95%; so is
    it by one draw's interval (the judge's noise is inside the spread of the queries: Cochran 1977, 11.3), only
    wider; the redraw interval covers these queries' expected mean (what another labelling of them would give)
    at 95%, where one draw taken as fixed has no interval at all."""
    rng, human, probs, orders, expected, _ = world
    Q, m = 100, 3
    pop = [e.mean() for e in expected]
    covered = {k: 0 for k in ("two_stage", "one_draw", "redraw", "query_interval_for_these", "diff_two_stage",
                              "diff_one_draw", "diff_redraw")}
    widths, shares = {k: [] for k in ("two_stage", "one_draw", "redraw")}, []
    for _ in range(REPS):
        queries = rng.choice(len(human), Q, replace=False)
        grades = draw(rng, probs[queries], m)                           # (Q, docs, m)
        per_draw = [np.stack([dcg10(grades[..., d], o[queries]) for d in range(m)], axis=1) for o in orders]
        these = [e[queries].mean() for e in expected]
        got = two_stage_mean(per_draw[0])
        covered["two_stage"] += got["low"] <= pop[0] <= got["high"]
        covered["redraw"] += got["redraw"]["low"] <= these[0] <= got["redraw"]["high"]
        one = classical_mean(per_draw[0][:, 0])
        covered["one_draw"] += one["low"] <= pop[0] <= one["high"]
        covered["query_interval_for_these"] += one["low"] <= these[0] <= one["high"]
        diff = two_stage_mean(per_draw[0] - per_draw[1])
        covered["diff_two_stage"] += diff["low"] <= pop[0] - pop[1] <= diff["high"]
        covered["diff_redraw"] += diff["redraw"]["low"] <= these[0] - these[1] <= diff["redraw"]["high"]
        one_d = classical_mean(per_draw[0][:, 0] - per_draw[1][:, 0])
        covered["diff_one_draw"] += one_d["low"] <= pop[0] - pop[1] <= one_d["high"]
        widths["two_stage"].append(got["high"] - got["low"])
        widths["one_draw"].append(one["high"] - one["low"])
        widths["redraw"].append(got["redraw"]["high"] - got["redraw"]["low"])
        shares.append((got["judge_share"], diff["judge_share"]))
    rate = {k: v / REPS for k, v in covered.items()}
    mc = np.sqrt(0.95 * 0.05 / REPS)
    print(rate, "MC se", round(mc, 4), {k: round(float(np.mean(v)), 3) for k, v in widths.items()},
          "judge share", np.mean(shares, 0).round(3))
    for key in ("two_stage", "diff_two_stage", "redraw", "diff_redraw", "one_draw", "diff_one_draw"):
        assert 0.93 <= rate[key] <= 0.97, (key, rate)
    assert rate["query_interval_for_these"] > 0.98          # about the population: far too wide for these queries
    assert np.mean(widths["two_stage"]) < np.mean(widths["one_draw"])
    assert np.mean(widths["redraw"]) < np.mean(widths["two_stage"])
    # the judge's share of the two-stage variance against its truth: E_q(var of the mean of 3 draws) / var_q(f(q))
    var_gain = probs @ (np.arange(4.0) ** 2) - (probs @ np.arange(4.0)) ** 2      # each pair's draw variance
    from known_judge import DISCOUNT
    ranked = np.take_along_axis(var_gain, orders[0], axis=1)[:, :10]
    within = (ranked @ DISCOUNT ** 2).mean() / m
    mean_of_3 = expected[0].var() + within
    assert np.mean(shares, 0)[0] == pytest.approx(within / mean_of_3, abs=0.02)


def test_one_draw_as_fixed_covers_less_where_the_queries_are_most_of_the_collection():
    """The estimand the issue means: the collection's mean of the judge's expected DCG@10 (each run's, and the
    difference of two), a collection of N = 200 queries of which Q = 160 are evaluated (f = 0.8), 3 draws a pair of
    a noisy judge (60% of pairs unsettled). The query-sampling variance shrinks by 1 - f and the judge's does not,
    so the draws matter: the two-stage interval (Cochran 11.3, ``population=N``) covers at 95%, treating one draw
    as fixed (the same finite-population interval over one draw's values) covers about 71% (0.708 and 0.707 in
    bench/judge_draws.py --parts fixed at 4000 repetitions; 0.946 and 0.952 for the two-stage one). With queries drawn from 20,000 (f = 0) the
    one-draw interval is not short (each query's draw noise is inside the spread of the queries): the first test."""
    from rankmeter.stats.student import stdtrit

    rng = np.random.default_rng(21)
    N, Q, m, reps = 200, 160, 3, 600
    human, probs = population(rng, N, uncertain=0.6)
    orders = _runs(rng, human)
    truth = [expected_dcg10(probs, o).mean() for o in orders]
    t = stdtrit(Q - 1, 0.975)

    def fixed(v):                 # one draw's values taken as the metric: the finite-population t interval
        half = t * np.sqrt((1 - Q / N) * np.var(v, ddof=1) / Q)
        return v.mean() - half, v.mean() + half

    hits = dict.fromkeys(("mean", "mean_one", "diff", "diff_one"), 0)
    for _ in range(reps):
        which = rng.choice(N, Q, replace=False)
        grades = draw(rng, probs[which], m)
        v = [np.stack([dcg10(grades[..., d], o[which]) for d in range(m)], axis=1) for o in orders]
        for key, values, want in (("mean", v[0], truth[0]), ("diff", v[0] - v[1], truth[0] - truth[1])):
            got = two_stage_mean(values, population=N)
            hits[key] += got["low"] <= want <= got["high"]
            low, high = fixed(values[:, 0])
            hits[key + "_one"] += low <= want <= high
    rate = {k: h / reps for k, h in hits.items()}
    print(rate)
    assert 0.93 <= rate["mean"] <= 0.97 and 0.93 <= rate["diff"] <= 0.97, rate
    assert rate["mean_one"] < 0.85 and rate["diff_one"] < 0.85, rate          # 10 points below, or more
    with pytest.raises(ParameterError, match="population"):
        two_stage_mean(v[0], population=Q - 1)


def test_ppi_with_the_mean_of_draws_covers_and_says_the_judges_share(world):
    """PPI++ (judges estimate's interval) with 40 human-labelled of 150 queries: the prediction is one draw's
    metric or the mean of 4 draws'; both cover the population's human mean at 95% (the human sample is random
    given the draws), the mean of draws gives the narrower interval, and judge_share says how much of the
    one-draw interval's variance the draws make."""
    rng, human, probs, orders, _, truth_human = world
    Q, n, m = 150, 40, 4
    pop = truth_human[0].mean()
    covered, widths, shares = {"one": 0, "mean": 0}, {"one": [], "mean": []}, []
    for _ in range(REPS):
        queries = rng.choice(len(human), Q, replace=False)
        grades = draw(rng, probs[queries], m)
        per_draw = np.stack([dcg10(grades[..., d], orders[0][queries]) for d in range(m)], axis=1)
        y = truth_human[0][queries][:n]
        for kind, f in (("one", per_draw[:, 0]), ("mean", per_draw.mean(1))):
            got = ppi_mean(y, f[:n], f[n:], small_sample=True)
            covered[kind] += got["low"] <= pop <= got["high"]
            widths[kind].append(got["high"] - got["low"])
        _, w = query_means(per_draw[:, :2])          # s_q^2 / 2 from two draws: one draw's variance is twice it
        one = ppi_mean(y, per_draw[:n, 0], per_draw[n:, 0], small_sample=True)
        shares.append(ppi_judge_share(one["lam"], one["se"], 2 * w[:n], 2 * w[n:]))
    rate = {k: v / REPS for k, v in covered.items()}
    print(rate, {k: round(float(np.mean(v)), 3) for k, v in widths.items()}, "share", round(float(np.mean(shares)), 3))
    assert 0.93 <= rate["one"] <= 0.97 and 0.93 <= rate["mean"] <= 0.97, rate
    assert np.mean(widths["mean"]) < np.mean(widths["one"])
    assert 0 < np.mean(shares) < 1


def test_estimate_reads_several_lines_per_pair_as_draws(cli, tmp_path):
    """judges estimate with an LLM file of 3 draws per pair: each query's DCG@10 is the mean over its draws (the
    numpy DCG@10 of each draw is the oracle), the PPI++ estimate is ppi_mean's on those means, and judge_share and
    the redraw interval are two_stage_mean's and ppi_judge_share's on the per-draw values."""
    import json

    rng = np.random.default_rng(3)
    Q, m = 60, 3
    human, probs = population(rng, Q)
    grades = draw(rng, probs, m).astype(int)
    write_draws(tmp_path / "llm.qrels", grades)
    labelled = list(range(0, Q, 2))
    write_qrels(tmp_path / "human.qrels", human, labelled)
    scores = [skill * human + rng.normal(0, 1, human.shape) for skill in (1.2, 0.7)]
    for name, s in zip("ab", scores):
        (tmp_path / f"{name}.run").write_text("".join(f"q{q} Q0 d{d} 0 {s[q, d]:.6f} {name}\n" for q in range(Q)
                                                      for d in range(10)))
    done = cli("judges", "estimate", tmp_path / "human.qrels", tmp_path / "llm.qrels", tmp_path / "a.run",
               tmp_path / "b.run", "-m", "DCG@10", "--format", "json")
    assert done.code == 0, done.err
    data = json.loads(done.out)
    assert data["draws"] == {"min": m, "max": m}
    order = [np.argsort(-np.round(s, 6), axis=1, kind="stable") for s in scores]
    per_draw = [np.stack([dcg10(grades[..., k].astype(float), o) for k in range(m)], axis=1) for o in order]
    # the queries in the estimate's order: labelled first (q0, q2, ...), then the others
    position = labelled + [q for q in range(Q) if q not in labelled]
    n = len(labelled)
    for row, values in zip(data["runs"], per_draw):
        values = values[position]
        y = dcg10(human.astype(float), order["ab".index(row["run"])])[labelled]
        want = ppi_mean(y, values[:n].mean(1), values[n:].mean(1), small_sample=True)
        assert row["ppi"]["estimate"] == pytest.approx(want["estimate"], abs=1e-9)
        two = two_stage_mean(values)
        assert row["llm_only"]["estimate"] == pytest.approx(two["estimate"], abs=1e-9)
        assert row["llm_only"]["high"] == pytest.approx(two["high"], abs=1e-9)
        assert row["llm_only"]["judge_share"] == pytest.approx(two["judge_share"], abs=1e-9)
        assert row["llm_redraw"]["low"] == pytest.approx(two["redraw"]["low"], abs=1e-9)
        _, w = query_means(values)
        assert row["ppi"]["judge_share"] == pytest.approx(ppi_judge_share(want["lam"], want["se"], w[:n], w[n:]),
                                                          abs=1e-9)
    difference = (per_draw[0] - per_draw[1])[position]
    assert data["pairs"][0]["llm_only"]["judge_share"] == pytest.approx(two_stage_mean(difference)["judge_share"],
                                                                        abs=1e-9)
    text = cli("judges", "estimate", tmp_path / "human.qrels", tmp_path / "llm.qrels", tmp_path / "a.run",
               tmp_path / "b.run", "-m", "DCG@10")
    assert "3-3 draws per query" in text.out and "redrawn" in text.out
    pairs = cli("judges", "estimate", tmp_path / "human.qrels", tmp_path / "llm.qrels", tmp_path / "a.run",
                tmp_path / "b.run", "-m", "DCG@10", "--unit", "pairs")
    assert pairs.code == 2 and "several draws" in pairs.err


def test_draws_needed_gives_the_widths_it_promises(world):
    """From a pilot of 2 draws a pair on 100 queries: the draws a pair the redraw interval of these queries needs,
    and the queries the population's interval needs at 1 and 3 draws a pair; each plan is then drawn 100 times
    and its interval measured."""
    from rankmeter.judges.allocation import draws_needed

    rng, human, probs, orders, _, _ = world
    queries = rng.choice(len(human), 100, replace=False)

    def values(which, m):
        grades = draw(rng, probs[which], m)
        return np.stack([dcg10(grades[..., d], orders[0][which]) for d in range(m)], axis=1)

    width = 0.4
    plan = draws_needed(values(queries, 2), width)
    m = plan["redraw_draws"]
    assert m is not None and m >= 2
    redraw = [two_stage_mean(values(queries, m))["redraw"] for _ in range(100)]
    redraw_widths = np.array([r["high"] - r["low"] for r in redraw])
    print("redraw", m, np.median(redraw_widths), (redraw_widths <= width).mean())
    assert 0.85 * width <= np.median(redraw_widths) <= 1.02 * width
    for draws in (1, 3):
        size = plan["plans"][draws - 1]["queries"]
        widths = []
        for _ in range(100):
            which = rng.choice(len(human), size, replace=False)
            v = values(which, draws)
            widths.append(two_stage_mean(v)["high"] - two_stage_mean(v)["low"] if draws > 1 else
                          classical_mean(v[:, 0])["high"] - classical_mean(v[:, 0])["low"])
        print("population", draws, size, np.median(widths))
        assert 0.85 * width <= np.median(widths) <= 1.1 * width
    assert plan["plans"][0]["calls"] < plan["plans"][2]["calls"]      # more queries, one draw: the cheaper way


def test_allocate_says_the_draws_and_queries_a_width_needs(cli, tmp_path):
    import json

    rng = np.random.default_rng(8)
    Q, m = 60, 3
    human, probs = population(rng, Q)
    grades = draw(rng, probs, m).astype(int)
    write_draws(tmp_path / "llm.qrels", grades)
    write_qrels(tmp_path / "human.qrels", human, range(0, Q, 2))
    for name, skill in (("a", 1.2), ("b", 0.7)):
        s = skill * human + rng.normal(0, 1, human.shape)
        (tmp_path / f"{name}.run").write_text("".join(f"q{q} Q0 d{d} 0 {s[q, d]:.6f} {name}\n" for q in range(Q)
                                                      for d in range(10)))
    args = ["judges", "allocate", tmp_path / "human.qrels", tmp_path / "llm.qrels", tmp_path / "a.run",
            tmp_path / "b.run", "-m", "DCG@10", "--budget", "5", "--width", "0.3", "--unit", "queries"]
    done = cli(*args, "--format", "json")
    assert done.code == 0, done.err
    got = json.loads(done.out)["draws_needed"]
    assert set(got["by_target"]) == {"a", "b", "a - b"}
    assert got["redraw_draws"] == max(p["redraw_draws"] for p in got["by_target"].values())
    assert "draws a pair" in cli(*args).out
    refused = cli(*args[:-1], "pairs")
    assert refused.code == 2 and "several draws" in refused.err


def test_ranking_agreement_with_and_without_the_judges_noise():
    """Kendall's tau against scipy's on the systems' means; a judge that always says the same (every draw alike)
    has no share and a redraw interval of one point; a noisy one has a share in (0, 1)."""
    from scipy.stats import kendalltau

    from rankmeter.judges.draws import ranking_agreement

    rng = np.random.default_rng(0)
    human, probs = population(rng, 80)
    orders = [np.argsort(-(s * human + rng.normal(0, 1, human.shape)), axis=1, kind="stable")
              for s in np.linspace(0.3, 1.5, 8)]
    grades = draw(rng, probs, 3)
    h = np.array([dcg10(human.astype(float), o) for o in orders])
    f = np.array([np.stack([dcg10(grades[..., d], o) for d in range(3)], axis=1) for o in orders])
    got = ranking_agreement(h, f, reps=300)
    assert got["kendall_tau"]["estimate"] == pytest.approx(kendalltau(f.mean(2).mean(1), h.mean(1)).statistic)
    from statistics import NormalDist

    for name in ("kendall_tau", "tau_ap"):
        e = got[name]
        assert e["low"] <= e["estimate"] <= e["high"] and 0 < e["judge_share"] < 1
        half = (e["normal"][1] - e["normal"][0]) / 2          # z times the bootstrap's sd, about the estimate
        assert (e["normal"][0] + e["normal"][1]) / 2 == pytest.approx(e["estimate"])
        assert 0 < half / NormalDist().inv_cdf(0.975) < e["high"] - e["low"]
    same = ranking_agreement(h, np.repeat(f[..., :1], 3, axis=2), reps=100)["kendall_tau"]
    assert same["judge_share"] < 1e-12 and same["redraw"] == [same["estimate"], same["estimate"]]
    uneven = f.copy()
    uneven[:, :10, 2] = np.nan                              # ten queries drawn twice only
    assert ranking_agreement(h, uneven, reps=50)["tau_ap"]["judge_share"] is not None


def test_the_stratified_judge_share_is_the_hand_worked_two_stage_variance():
    """Two strata, W = 4/7 and 3/7, n_h = 2 labelled of N_h = 4 and 3, w_q = s_q^2 / m_q of each query:
    lam^2 [ (16/49) ((1/4 - 1/2)^2 (0.1 + 0.3) + (0.2 + 0.2) / 16) + (9/49) ((1/3 - 1/2)^2 (0.4 + 0.0) + 0.5 / 9) ]
    = lam^2 (0.8 + 0.6) / 49 = lam^2 / 35; and a Monte Carlo of the draws' noise alone (each f_q moved by a normal
    of variance w_q, the labels and lam held) through stratified_estimate gives that variance."""
    from rankmeter.judges.draws import stratified_judge_share
    from rankmeter.judges.stratified import stratified_estimate

    w = np.array([0.1, 0.3, 0.2, 0.2, 0.4, 0.0, 0.5])
    labelled = np.array([1, 1, 0, 0, 1, 1, 0], bool)
    strata = np.array([0, 0, 0, 0, 1, 1, 1])
    lam, se = 0.6, 0.2
    assert stratified_judge_share(lam, se, w, labelled, strata) == pytest.approx(lam ** 2 / 35 / se ** 2, rel=1e-12)
    assert stratified_judge_share(lam, 0.01, w, labelled, strata) == 1.0              # clipped at 1
    assert stratified_judge_share(0.0, se, w, labelled, strata) == 0.0
    rng = np.random.default_rng(5)
    y = rng.normal(1, 1, 7)
    f = rng.normal(1, 1, 7) + rng.normal(0, 1, (200_000, 7)) * np.sqrt(w)
    moved = stratified_estimate(np.broadcast_to(y, f.shape), f, np.broadcast_to(labelled, f.shape), strata,
                                lam=lam)["estimate"]
    assert np.var(moved) == pytest.approx(lam ** 2 / 35, rel=0.01)


def test_estimate_with_a_design_carries_the_judges_share(cli, tmp_path):
    """judges estimate --design with an LLM file of 3 draws a pair: each PPI++ interval (stratified) carries
    judge_share, stratified_judge_share's on the per-draw values (numpy DCG@10 the oracle), the LLM-only ones
    two_stage_mean's, beside the redraw interval; with one draw a pair there is none."""
    import json

    from rankmeter.judges.draws import stratified_judge_share

    rng = np.random.default_rng(4)
    Q, m = 80, 3
    human, probs = population(rng, Q)
    grades = draw(rng, probs, m).astype(int)
    write_draws(tmp_path / "llm.qrels", grades)
    write_qrels(tmp_path / "truth.qrels", human, range(Q))
    write_qrels(tmp_path / "pilot.qrels", human, range(0, Q, 4))
    scores = [skill * human + rng.normal(0, 1, human.shape) for skill in (1.2, 0.7)]
    for name, s in zip("ab", scores):
        (tmp_path / f"{name}.run").write_text("".join(f"q{q} Q0 d{d} 0 {s[q, d]:.6f} {name}\n" for q in range(Q)
                                                      for d in range(10)))
    runs = [tmp_path / "a.run", tmp_path / "b.run"]
    done = cli("judges", "allocate", tmp_path / "pilot.qrels", tmp_path / "llm.qrels", *runs, "-m", "DCG@10",
               "--budget", "20", "--seed", "1", "--unit", "queries", "-o", tmp_path / "design.json")
    assert done.code == 0, done.err
    design = json.loads((tmp_path / "design.json").read_text())
    sample = set(design["pilot"]) | set(design["chosen"])
    (tmp_path / "human.qrels").write_text("".join(line for line in (tmp_path / "truth.qrels").read_text()
                                                  .splitlines(True) if line.split()[0] in sample))
    done = cli("judges", "estimate", tmp_path / "human.qrels", tmp_path / "llm.qrels", *runs, "-m", "DCG@10",
               "--design", tmp_path / "design.json", "--format", "json")
    assert done.code == 0, done.err
    data = json.loads(done.out)
    assert data["draws"] == {"min": m, "max": m} and data["design"]["strata"] >= 2
    order = [np.argsort(-np.round(s, 6), axis=1, kind="stable") for s in scores]
    per_draw = [np.stack([dcg10(grades[..., k].astype(float), o) for k in range(m)], axis=1) for o in order]
    labelled = sorted(int(q[1:]) for q in sample)
    position = labelled + [q for q in range(Q) if q not in labelled]   # the estimate's order: labelled first
    stratum = {int(q[1:]): h for q, h in design["assignment"]}
    strata = np.array([stratum[q] for q in position])
    used = np.arange(Q) < len(labelled)
    for row, values in zip(data["runs"], per_draw):
        values = values[position]
        _, w = query_means(values)
        want = stratified_judge_share(row["ppi"]["lam"], row["ppi"]["se"], w, used, strata)
        assert 0 < want < 1 and row["ppi"]["judge_share"] == pytest.approx(want, abs=1e-12)
        assert row["llm_only"]["judge_share"] == pytest.approx(two_stage_mean(values)["judge_share"], abs=1e-12)
        assert row["llm_redraw"]["high"] == pytest.approx(two_stage_mean(values)["redraw"]["high"], abs=1e-12)
    difference = (per_draw[0] - per_draw[1])[position]
    pair = data["pairs"][0]
    assert pair["ppi"]["judge_share"] == pytest.approx(stratified_judge_share(
        pair["ppi"]["lam"], pair["ppi"]["se"], query_means(difference)[1], used, strata), abs=1e-12)
    text = cli("judges", "estimate", tmp_path / "human.qrels", tmp_path / "llm.qrels", *runs, "-m", "DCG@10",
               "--design", tmp_path / "design.json").out
    assert "the judge's share of each interval's variance" in text
    write_qrels(tmp_path / "one.qrels", grades[..., 0], range(Q))
    once = json.loads(cli("judges", "estimate", tmp_path / "human.qrels", tmp_path / "one.qrels", *runs, "-m",
                          "DCG@10", "--design", tmp_path / "design.json", "--format", "json").out)
    assert "judge_share" not in once["runs"][0]["ppi"] and "llm_redraw" not in once["runs"][0]


def test_ranking_agreement_counts_the_system_pairs_the_queries_leave_unresolved():
    """Three systems 1 apart with per-query noise of sd 0.1 over 50 queries: every order settled (0 of 3 pairs);
    two of them 0.001 apart, far inside the noise: that one pair left open."""
    from rankmeter.judges.draws import ranking_agreement

    rng = np.random.default_rng(1)
    base = np.array([0.0, 1.0, 2.0])[:, None] + rng.normal(0, 0.1, (3, 50))
    llm = np.repeat(base[..., None], 2, axis=2) + rng.normal(0, 0.01, (3, 50, 2))
    got = ranking_agreement(base, llm, reps=200)
    assert (got["system_pairs"], got["unresolved_pairs"]) == (3, 0)
    assert got["kendall_tau"]["estimate"] == 1.0
    near = base.copy()
    near[1] = base[0] + 0.001 + rng.normal(0, 0.1, 50)
    near_llm = llm.copy()
    near_llm[1] = near[1][:, None] + rng.normal(0, 0.01, (50, 2))
    assert ranking_agreement(near, near_llm, reps=200)["unresolved_pairs"] == 1
