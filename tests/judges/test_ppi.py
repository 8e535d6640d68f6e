"""PPI++ estimates from LLM labels and a human-labelled sample of queries: ppi-python's numbers, coverage by
simulation (a judge of known bias and noise against a known truth), and the allocation of the next labels."""
from __future__ import annotations

import json

import numpy as np
import pytest
from optional_packages import optional  # noqa: E402

ppi_py = optional("ppi_py")

from rankmeter.judges.allocation import allocate, labels_needed, stratified_ppi  # noqa: E402
from rankmeter.judges.ppi import estimate  # noqa: E402
from rankmeter.judges.ppi_means import classical_mean, ppi_mean  # noqa: E402
from rankmeter.core.evaluator import Evaluator  # noqa: E402
from rankmeter.io import as_run  # noqa: E402

REPS = 1000


@pytest.mark.parametrize("seed", range(10))
def test_the_mean_case_equals_ppi_python(seed):
    rng = np.random.default_rng(seed)
    n, N = 10 + 7 * seed, 50 + 30 * seed
    truth = rng.beta(2, 3, n + N)
    f = np.clip(truth + 0.15 - 0.3 * truth * (seed % 2) + rng.normal(0, 0.1 + 0.05 * seed, n + N), 0, 1)
    y = truth[:n] + rng.normal(0, 0.02, n) * (seed % 3 == 0)
    got = ppi_mean(y, f[:n], f[n:], alpha=0.05 + 0.01 * (seed % 5))
    alpha = 0.05 + 0.01 * (seed % 5)
    want = float(ppi_py.ppi_mean_pointestimate(y, f[:n], f[n:])[0])
    low, high = ppi_py.ppi_mean_ci(y, f[:n], f[n:], alpha=alpha)
    assert got["estimate"] == pytest.approx(want, abs=1e-9)
    assert (got["low"], got["high"]) == pytest.approx((float(low[0]), float(high[0])), abs=1e-9)
    for lam in (0.0, 0.5, 1.0):   # a fixed lam: plain PPI (1) and the classical interval (0)
        fixed = ppi_mean(y, f[:n], f[n:], lam=lam, alpha=alpha)
        low, high = ppi_py.ppi_mean_ci(y, f[:n], f[n:], alpha=alpha, lam=lam)
        assert (fixed["low"], fixed["high"]) == pytest.approx((float(low[0]), float(high[0])), abs=1e-9)


def _world(seed=0, queries=200, docs=20):
    """A known truth (graded judgments of every retrieved doc) and two runs of different skill."""
    rng = np.random.default_rng(seed)
    grades = rng.choice([0, 0, 0, 1, 1, 2, 3], size=(queries, docs))
    runs = {}
    for name, skill in (("strong", 1.2), ("weak", 0.7)):
        scores = skill * grades + rng.normal(0, 1.0, grades.shape)
        runs[name] = {f"q{q}": {f"d{d}": float(scores[q, d]) for d in range(docs)} for q in range(queries)}
    return grades, runs


def _qrels(grades) -> dict:
    return {f"q{q}": {f"d{d}": int(g) for d, g in enumerate(row)} for q, row in enumerate(grades)}


def _judge(rng, grades):
    """An LLM judge of known bias and noise: lenient (a grade up 40% of the time), and 15% of labels random."""
    up = np.minimum(grades + (rng.random(grades.shape) < 0.4), 3)
    noisy = rng.random(grades.shape) < 0.15
    return np.where(noisy, rng.integers(0, 4, grades.shape), up)


def _ndcg10(grades, order):
    """nDCG@10 of every query (trec_eval's: gain = grade, log2 discount, the ideal over the query's judgments), for
    grades of shape (..., queries, docs) and each query's ranking ``order`` (queries, docs): numpy, so a thousand
    judges are scored at once. Checked against rankmeter's Evaluator below."""
    discount = 1 / np.log2(np.arange(2, 12))
    ranked = np.take_along_axis(grades, np.broadcast_to(order, grades.shape), axis=-1)[..., :10]
    ideal = -np.sort(-grades, axis=-1)[..., :10]
    dcg, idcg = ranked @ discount, ideal @ discount
    return np.where(idcg > 0, dcg / np.where(idcg > 0, idcg, 1), 0.0)


def test_intervals_cover_the_truth_and_the_llm_only_ones_do_not():
    """1000 repetitions, each 200 queries drawn from a population of 50,000 (the truth: its mean nDCG@10 under the
    true grades), a fresh LLM judge of them, and a fresh uniform sample of 60 human-labelled queries. The query
    sample's interval is about the population of queries (ppi-python's model): the queries are drawn anew too."""
    rng = np.random.default_rng(5)
    population, docs, queries = 50_000, 20, 200
    grades = rng.choice([0, 0, 0, 1, 1, 2, 3], size=(population, docs)).astype(float)
    order = {name: np.argsort(-(skill * grades + rng.normal(0, 1.0, grades.shape)), axis=1, kind="stable")
             for name, skill in (("strong", 1.2), ("weak", 0.7))}
    truth = {name: _ndcg10(grades, o) for name, o in order.items()}
    # the numpy nDCG@10 is rankmeter's, on the true grades and on a judge's
    some = grades[:60].astype(int)
    judged = _judge(rng, some)
    for name, o in order.items():
        run = {f"q{q}": {f"d{d}": 0.5 + docs - r for r, d in enumerate(o[q])} for q in range(60)}
        for g in (some, judged):
            want = Evaluator(_qrels(g), ["nDCG@10"]).evaluate(as_run(run)).values("nDCG@10")
            assert _ndcg10(g.astype(float), o[:60]) == pytest.approx(want, abs=1e-12)
    true_mean = {name: v.mean() for name, v in truth.items()}
    true_diff = true_mean["strong"] - true_mean["weak"]
    drawn = np.stack([rng.choice(population, queries, replace=False) for _ in range(REPS)])      # (REPS, 200)
    llm = np.stack([_judge(rng, grades[d].astype(int)) for d in drawn]).astype(float)
    f_all = {name: _ndcg10(llm, o[drawn]) for name, o in order.items()}                         # (REPS, 200)
    y_all = {name: v[drawn] for name, v in truth.items()}
    covered = {"mean": 0, "diff": 0, "llm_mean": 0, "llm_diff": 0, "human_mean": 0, "human_diff": 0}
    widths = {"ppi": [], "human": [], "llm": [], "ppi_diff": [], "human_diff": [], "llm_diff": []}
    lab, unl = slice(0, 60), slice(60, queries)          # the draw is random: its first 60 are a random sample
    for rep in range(REPS):
        f = {name: v[rep] for name, v in f_all.items()}
        y = {name: v[rep] for name, v in y_all.items()}
        m = ppi_mean(y["strong"][lab], f["strong"][lab], f["strong"][unl], small_sample=True)   # as estimate
        covered["mean"] += m["low"] <= true_mean["strong"] <= m["high"]
        d_llm, d_true = f["strong"] - f["weak"], y["strong"] - y["weak"]
        d = ppi_mean(d_true[lab], d_llm[lab], d_llm[unl], small_sample=True)
        covered["diff"] += d["low"] <= true_diff <= d["high"]
        naive, naive_d = classical_mean(f["strong"]), classical_mean(d_llm)
        covered["llm_mean"] += naive["low"] <= true_mean["strong"] <= naive["high"]
        covered["llm_diff"] += naive_d["low"] <= true_diff <= naive_d["high"]
        human, human_d = classical_mean(y["strong"][lab]), classical_mean(d_true[lab])
        covered["human_mean"] += human["low"] <= true_mean["strong"] <= human["high"]
        covered["human_diff"] += human_d["low"] <= true_diff <= human_d["high"]
        for key, e in (("ppi", m), ("human", human), ("llm", naive), ("ppi_diff", d), ("human_diff", human_d),
                       ("llm_diff", naive_d)):
            widths[key].append(e["high"] - e["low"])
    rate = {k: v / REPS for k, v in covered.items()}
    print(rate, {k: round(float(np.mean(v)), 4) for k, v in widths.items()})
    assert 0.93 <= rate["mean"] <= 0.97, rate
    assert 0.93 <= rate["diff"] <= 0.97, rate
    assert rate["llm_mean"] < 0.5, rate          # the lenient judge's bias: its interval misses the truth
    assert np.mean(widths["ppi"]) < np.mean(widths["human"])   # the LLM's labels narrow the interval
    assert np.mean(widths["ppi_diff"]) < np.mean(widths["human_diff"])


def test_the_stratified_allocation_is_no_wider_than_uniform_sampling():
    """Neyman allocation over strata of the LLM's metric against the same budget drawn uniformly."""
    rng = np.random.default_rng(5)
    queries = 600
    truth = rng.beta(1.2, 2.5, queries)
    # the LLM is good on easy queries and erratic on the hard ones: strata with unequal error spreads
    f = np.clip(truth + rng.normal(0, 0.02 + 0.3 * (truth > 0.5), queries), 0, 1)
    strat, unif = [], []
    for rep in range(300):
        order = rng.permutation(queries)
        pilot, rest = order[:40], order[40:]
        plan = allocate(truth[pilot], f[pilot], f[rest], 80, strata=4, seed=rep)
        chosen = rest[plan["chosen"]]
        labelled = np.concatenate([pilot, chosen])
        unlabelled = np.setdiff1d(np.arange(queries), labelled)
        stratum = np.empty(queries, dtype=int)
        stratum[np.concatenate([pilot, rest])] = plan["strata"]
        s = stratified_ppi(truth[labelled], f[labelled], f[unlabelled], stratum[labelled], stratum[unlabelled])
        strat.append(s["high"] - s["low"])
        uniform = order[:120]
        u = ppi_mean(truth[uniform], f[uniform], f[order[120:]])
        unif.append(u["high"] - u["low"])
    assert np.mean(strat) <= np.mean(unif), (np.mean(strat), np.mean(unif))


def test_labels_needed_reaches_the_width_it_promises():
    rng = np.random.default_rng(3)
    truth = rng.beta(2, 2, 1000)
    f = truth + rng.normal(0.05, 0.15, 1000)
    n = labels_needed(truth[:30], f[:30], f[30:], 0.06)
    assert n is not None and n > 30
    widths = [ppi_mean(truth[i:i + n], f[i:i + n], np.delete(f, np.s_[i:i + n]), small_sample=True)
              for i in range(0, 1000 - n, max(1, (1000 - n) // 20))]
    assert np.mean([w["high"] - w["low"] for w in widths]) <= 0.06 * 1.05


def test_the_size_proposed_makes_every_promised_interval_that_wide():
    """Issue 41's finding: sized on the runs' average, allocate answered "0 more" for intervals a third wider than
    asked. 200 worlds of two runs on 200 queries, a pilot of 40 human-labelled: the labels proposed for each run's
    mean and their difference are drawn (uniformly, the pilot among them) and the three intervals measured."""
    from rankmeter.judges.allocation import design_rows

    rng = np.random.default_rng(1)
    queries, docs, pilot, width = 200, 20, 40, 0.05
    sizes, widths, unreachable = [], [], 0
    for _ in range(200):
        grades = rng.choice([0, 0, 0, 1, 1, 2, 3], size=(queries, docs)).astype(float)
        order = [np.argsort(-(skill * grades + rng.normal(0, 1, grades.shape)), axis=1, kind="stable")
                 for skill in (1.2, 0.7)]
        llm = _judge(rng, grades.astype(int)).astype(float)
        y, _ = design_rows([_ndcg10(grades, o) for o in order], target="both")
        f, _ = design_rows([_ndcg10(llm, o) for o in order], target="both")
        n = labels_needed(y[:, :pilot], f[:, :pilot], f[:, pilot:], width)     # the first 40: a random sample
        rows = labels_needed(y[:, :pilot], f[:, :pilot], f[:, pilot:], width, per_row=True)
        assert n == (None if None in rows else max(rows))
        if n is None:                          # the pilot says no sample of these queries reaches it
            unreachable += 1
            continue
        n = max(n, pilot)
        sizes.append(n)
        widths.append([(lambda e: e["high"] - e["low"])(ppi_mean(y[k, :n], f[k, :n], f[k, n:], small_sample=True))
                       for k in range(3)])
    widths = np.array(widths)
    widest = widths.max(1)
    print("size", np.median(sizes), "within", (widest <= width).mean(), "median", np.median(widest) / width,
          "unreachable", unreachable)
    assert unreachable <= 20                             # the honest answer where the difference varies most
    assert np.median(sizes) > pilot                       # the pilot's 40 do not reach it: the average's sizing said so
    assert (widest <= width).mean() >= 0.6                # every promised interval at most the width, most of the time
    assert 0.85 <= np.median(widest) / width <= 1.0       # and not wastefully narrower


def test_estimate_end_to_end_and_the_command(cli, tmp_path):
    grades, runs = _world(seed=2, queries=60)
    rng = np.random.default_rng(4)
    llm_grades = _judge(rng, grades)
    human = {f"q{q}": {f"d{d}": int(g) for d, g in enumerate(grades[q])} for q in range(0, 60, 3)}  # 20 sampled
    got = estimate(human, _qrels(llm_grades), runs, ["P@10"])
    assert got.labelled == 20 and got.queries == 60
    row = next(r for r in got.runs if r["run"] == "strong")
    llm_eval = Evaluator(_qrels(llm_grades), ["P@10"]).evaluate(as_run(runs["strong"]))
    human_eval = Evaluator(human, ["P@10"]).evaluate(as_run({q: runs["strong"][q] for q in human}))
    f = dict(zip(llm_eval.queries, llm_eval.values("P@10")))
    y = dict(zip(human_eval.queries, human_eval.values("P@10")))
    labelled = sorted(y, key=lambda q: int(q[1:]))
    others = [q for q in sorted(f, key=lambda q: int(q[1:])) if q not in y]
    want = ppi_mean([y[q] for q in labelled], [f[q] for q in labelled], [f[q] for q in others])
    assert row["ppi"]["estimate"] == pytest.approx(want["estimate"], abs=1e-12)
    assert row["llm_only"]["estimate"] == pytest.approx(np.mean(list(f.values())))
    assert got.pairs[0]["a"] == "strong" and got.pairs[0]["b"] == "weak"
    for name, qrels in (("human.qrels", human), ("llm.qrels", _qrels(llm_grades))):
        (tmp_path / name).write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    for name, run in runs.items():
        (tmp_path / f"{name}.run").write_text("".join(f"{q} Q0 {d} 0 {s} {name}\n" for q, docs in run.items()
                                                      for d, s in docs.items()))
    done = cli("judges", "estimate", str(tmp_path / "human.qrels"), str(tmp_path / "llm.qrels"),
               str(tmp_path / "strong.run"), str(tmp_path / "weak.run"), "-m", "P@10", "--format", "json")
    assert done.code == 0, done.err
    data = json.loads(done.out)
    assert data["runs"][0]["ppi"]["estimate"] == pytest.approx(row["ppi"]["estimate"], abs=1e-12)
    assert {"estimate", "low", "high"} <= set(data["pairs"][0]["ppi"])
    text = cli("judges", "estimate", str(tmp_path / "human.qrels"), str(tmp_path / "llm.qrels"),
               str(tmp_path / "strong.run"), str(tmp_path / "weak.run"), "-m", "P@10").out
    assert "strong" in text and "PPI" in text


def test_a_chosen_sample_and_too_few_labels_are_said():
    grades, runs = _world(seed=3, queries=80)
    rng = np.random.default_rng(6)
    llm = _qrels(_judge(rng, grades))
    f = Evaluator(llm, ["P@10"]).evaluate(as_run(runs["strong"]))
    best = [q for q, _ in sorted(zip(f.queries, f.values("P@10")), key=lambda t: -t[1])[:8]]
    human = {q: {f"d{d}": int(g) for d, g in enumerate(grades[int(q[1:])])} for q in best}
    got = estimate(human, llm, runs, ["P@10"])
    assert any("only 8 human-labelled queries" in w for w in got.warnings)
    assert any("may not be a uniform random sample" in w for w in got.warnings)
