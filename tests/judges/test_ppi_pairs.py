"""PPI with human labels on a random sample of (query, doc) pairs (rankmeter.judges.pair_ppi).

The truth is real: TREC RAG 2024's NIST judgments of 31 queries (tests/golden/qrels.comment.test, 5,890 graded
pairs) and a real run over them (results.comment.test). A simulated LLM judge of known bias and noise labels every
pair; people label a random sample. Over 2,000 repetitions (vectorised) the 95% intervals of a run's mean metric
and of a paired difference cover the true value 93-97% of the time, the LLM-only interval does not, and the Neyman
allocation over rank bands is no wider than the same budget drawn uniformly.
"""
from __future__ import annotations

import json
from collections import defaultdict

import numpy as np
import pytest

import rankmeter
from rankmeter.judges.allocation import allocate_pairs, pairs_needed
from rankmeter.judges.pair_ppi import (PairFrame, doc_weights, pair_estimate,
                                                pair_frame)
from rankmeter.judges.ppi import estimate
from rankmeter.errors import ParameterError
from rag24_world import rag24_world  # noqa: E402  (tests/ is on sys.path: tests/conftest.py)

REPS = 2000


@pytest.fixture(scope="module")
def world():
    """The NIST qrels (the truth) and two runs ranking the judged documents: the real run's order (condensed to
    the judged documents, the unretrieved ones after it) and a weaker simulated reranker."""
    return rag24_world()


def _judge(rng, grades, reps):
    """Lenient and noisy: a grade up one 40% of the time (capped at 3), and 15% of labels uniformly random."""
    g = np.broadcast_to(grades, (reps, len(grades)))
    up = np.minimum(g + (rng.random(g.shape) < 0.4), 3)
    return np.where(rng.random(g.shape) < 0.15, rng.integers(0, 4, g.shape), up).astype(float)


def _setup(world, measure, depth=10):
    truth, runs = world
    named = [(name, rankmeter.io.as_run(run)) for name, run in runs.items()]
    frame = pair_frame(truth, truth, named, depth)
    w, gain = doc_weights(measure, [0, 1, 2, 3], depth)
    return frame, w, gain


def test_contributions_sum_to_rankmeters_per_query_values(world):
    truth, runs = world
    for measure, depth in (("DCG@10", 10), ("P@10", 10), ("RBP(p=0.8)", 500), ("DCG", 500)):
        frame, w, gain = _setup(world, measure, depth)
        for name in runs:
            c = frame.contributions(name, w, gain, frame.human)
            per_query = np.bincount(frame.pair_query, weights=c, minlength=len(frame.queries))
            want = rankmeter.evaluate(truth, runs[name], [measure])
            values = dict(zip(want.queries, want.values(measure)))
            assert per_query == pytest.approx([values[q] for q in frame.queries], abs=1e-12)


def test_measures_that_are_not_sums_over_documents_are_refused():
    for measure in ("nDCG@10", "AP", "RR", "recall@10", "success@10"):
        with pytest.raises(ParameterError, match="not a sum over the ranked documents"):
            doc_weights(measure, [0, 1, 2, 3], 10)


def test_the_estimator_is_the_survey_difference_estimator():
    """Hand-worked from the textbook formulas (Cochran 1977, 7.1 and 5.3) on one stratum and on two."""
    rng = np.random.default_rng(2)
    P, Q = 60, 7
    y = rng.integers(0, 4, P) / 3
    f = np.clip(y + rng.normal(0.2, 0.2, P), 0, 1)
    lab = np.zeros(P, bool)
    lab[rng.choice(P, 20, replace=False)] = True
    e = (y - f)[lab]
    want = (f.sum() + P / 20 * e.sum()) / Q
    se = P / Q * np.sqrt((1 - 20 / P) * e.var(ddof=1) / 20)
    got = pair_estimate(y, f, lab, np.zeros(P, int), queries=Q, lam=1.0)
    assert float(got["estimate"]) == pytest.approx(want, abs=1e-12)
    assert float(got["se"]) == pytest.approx(se, abs=1e-12)
    strata = np.arange(P) % 2
    got = pair_estimate(y, f, lab, strata, queries=Q, lam=0.0)   # human-only, stratified
    parts = [(strata == h).sum() * y[lab & (strata == h)].mean() for h in (0, 1)]
    assert float(got["estimate"]) == pytest.approx(sum(parts) / Q, abs=1e-12)
    full = pair_estimate(y, f, np.ones(P, bool), strata, queries=Q)   # every pair labelled: the truth, exactly
    assert float(full["estimate"]) == pytest.approx(y.sum() / Q, abs=1e-12) and float(full["se"]) == 0


def test_coverage_with_real_qrels_as_the_truth(world):
    """2,000 repetitions, each a fresh judge's labels of every pair and a fresh uniform sample of 150 of the 579
    pairs the two runs rank in their top 10."""
    frame, w, gain = _setup(world, "DCG@10")
    P, Q = len(frame.best), len(frame.queries)
    y = {name: frame.contributions(name, w, gain, frame.human) for name in frame.ranks}
    true_mean = y["real"].sum() / Q
    true_diff = (y["real"] - y["weak"]).sum() / Q
    assert true_mean == pytest.approx(rankmeter.evaluate(world[0], world[1]["real"], ["DCG@10"])["DCG@10"])
    rng = np.random.default_rng(2026)
    llm = _judge(rng, frame.human, REPS)
    f = {name: frame.contributions(name, w, gain, llm) for name in frame.ranks}
    lab = np.argsort(rng.random((REPS, P)), axis=1) < 150
    strata = frame.band
    cover, width = {}, {}
    for what, yy, ff, true in (("mean", y["real"], f["real"], true_mean),
                               ("diff", y["real"] - y["weak"], f["real"] - f["weak"], true_diff)):
        for kind, lam in (("ppi", None), ("human", 0.0)):
            got = pair_estimate(np.broadcast_to(yy, (REPS, P)), ff, lab, strata, queries=Q, lam=lam)
            cover[what, kind] = np.mean((got["low"] <= true) & (true <= got["high"]))
            width[what, kind] = np.mean(got["high"] - got["low"])
        per_query = np.stack([np.bincount(frame.pair_query, weights=row, minlength=Q) for row in ff])
        half = 1.959964 * per_query.std(axis=1) / np.sqrt(Q)   # the naive interval over the LLM's per-query values
        centre = per_query.mean(axis=1)
        cover[what, "llm"] = np.mean((centre - half <= true) & (true <= centre + half))
        width[what, "llm"] = np.mean(2 * half)
    print({k: round(v, 3) for k, v in cover.items()}, {k: round(v, 3) for k, v in width.items()})
    assert 0.93 <= cover["mean", "ppi"] <= 0.97, cover
    assert 0.93 <= cover["diff", "ppi"] <= 0.97, cover
    assert cover["mean", "llm"] < 0.5, cover          # the lenient judge's bias: its interval misses the truth
    assert width["mean", "ppi"] < width["mean", "human"] and width["diff", "ppi"] < width["diff", "human"]


def test_the_allocation_is_no_wider_than_uniform_sampling(world):
    """A pilot of 40 uniform pairs, then 80 more by Neyman allocation over the rank bands, against 120 uniform;
    both estimated alike (stratified by band). 300 repetitions."""
    frame, w, gain = _setup(world, "DCG@10")
    P, Q = len(frame.best), len(frame.queries)
    y = frame.contributions("real", w, gain, frame.human)
    rng = np.random.default_rng(7)
    llm = _judge(rng, frame.human, 300)
    truth = y.sum() / Q
    neyman, uniform, covered = [], [], 0
    for rep in range(300):
        f = frame.contributions("real", w, gain, llm[rep])
        order = rng.permutation(P)
        pilot = np.zeros(P, bool)
        pilot[order[:40]] = True
        sub = PairFrame(frame.queries, frame.pair_query, frame.best, llm[rep], np.where(pilot, frame.human, np.nan),
                        frame.ranks, 0, frame.depth)
        plan = allocate_pairs(sub, np.where(pilot, y - f, 0.0), 80, seed=rep)
        lab = pilot.copy()
        lab[plan["chosen"]] = True
        assert lab.sum() == 120
        got = pair_estimate(y, f, lab, frame.band, queries=Q)
        neyman.append(float(got["high"] - got["low"]))
        covered += float(got["low"]) <= truth <= float(got["high"])
        flat = np.zeros(P, bool)
        flat[order[:120]] = True
        if np.bincount(frame.band[flat]).min() < 2:
            continue
        got = pair_estimate(y, f, flat, frame.band, queries=Q)
        uniform.append(float(got["high"] - got["low"]))
    print(np.mean(neyman), np.mean(uniform), covered / 300)
    assert np.mean(neyman) <= np.mean(uniform)
    assert covered / 300 >= 0.9


def test_pairs_needed_reaches_the_width_it_promises(world):
    frame, w, gain = _setup(world, "DCG@10")
    P, Q = len(frame.best), len(frame.queries)
    rng = np.random.default_rng(9)
    y = frame.contributions("real", w, gain, frame.human)
    f = frame.contributions("real", w, gain, _judge(rng, frame.human, 1)[0])
    pilot = np.argsort(rng.random(P)) < 200    # a pilot big enough to know each band's spread (a small one may not)
    n = pairs_needed(y, f, pilot, frame.band, 1.0, queries=Q)
    assert n is not None and 2 * 4 < n < P
    lab = np.argsort(rng.random((300, P)), axis=1) < n
    got = pair_estimate(np.broadcast_to(y, (300, P)), np.broadcast_to(f, (300, P)), lab, frame.band, queries=Q)
    assert np.mean(got["high"] - got["low"]) <= 1.0 * 1.1
    assert pairs_needed(y, f, pilot, frame.band, 1e-6, queries=Q) == P   # every pair labelled: the value itself


def test_estimate_takes_a_sample_of_pairs_and_says_when_it_is_not_random(world, cli, tmp_path):
    truth, runs = world
    rng = np.random.default_rng(5)
    llm = {q: {d: int(min(3, g + (rng.random() < 0.4))) if rng.random() > 0.2 else int(rng.integers(0, 4))
               for d, g in docs.items()} for q, docs in truth.items()}
    pairs = [(q, d) for q, docs in truth.items() for d in docs]
    human = defaultdict(dict)
    for i in rng.choice(len(pairs), 1500, replace=False):
        q, d = pairs[i]
        human[q][d] = truth[q][d]
    got = estimate(dict(human), llm, runs, ["DCG@10"])
    assert got.unit == "pairs" and got.warnings == []
    # P@10 counts grade 1 as grade 3: the judge's errors rarely change it, and so few disagreements are said
    sparse = estimate(dict(human), llm, runs, ["P@10"]).warnings
    assert any("human-labelled pairs change the measure from the LLM's grade" in w for w in sparse), sparse
    want = rankmeter.evaluate(truth, runs["real"], ["DCG@10"])["DCG@10"]
    row = next(r for r in got.runs if r["run"] == "real" and r["measure"] == "DCG@10")
    assert abs(row["ppi"]["estimate"] - want) < 4 * row["ppi"]["se"]   # one sample: coverage is tested above
    llm_mean = rankmeter.evaluate(llm, runs["real"], ["DCG@10"])["DCG@10"]
    assert row["llm_only"]["estimate"] == pytest.approx(llm_mean, abs=1e-12)
    assert row["ppi"]["high"] - row["ppi"]["low"] < row["human_only"]["high"] - row["human_only"]["low"]
    with pytest.raises(ParameterError, match="not a sum over the ranked documents"):
        estimate(dict(human), llm, runs, ["nDCG@10"])
    # people judged each query's top three of the real run only: said, twice over
    top = {q: {d: truth[q][d] for d in sorted(docs, key=lambda d: -docs[d])[:3]} for q, docs in runs["real"].items()}
    said = estimate(top, llm, runs, ["P@10"]).warnings
    assert any("the labels miss those ranks" in w for w in said), said
    assert any("they were chosen, not drawn at random" in w for w in said), said
    # whole queries labelled: the query is the unit, as before
    whole = {q: truth[q] for q in list(truth)[:12]}
    assert estimate(whole, llm, runs, ["P@10"]).unit == "queries"
    # the command
    for name, qrels in (("human.qrels", human), ("llm.qrels", llm)):
        (tmp_path / name).write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    for name, run in runs.items():
        (tmp_path / f"{name}.run").write_text("".join(f"{q} Q0 {d} 0 {s} {name}\n" for q, docs in run.items()
                                                      for d, s in docs.items()))
    done = cli("judges", "estimate", tmp_path / "human.qrels", tmp_path / "llm.qrels", tmp_path / "real.run",
               tmp_path / "weak.run", "-m", "DCG@10", "--format", "json")
    assert done.code == 0, done.err
    data = json.loads(done.out)
    assert data["unit"] == "pairs" and data["labelled_pairs"] == got.labelled_pairs
    assert data["runs"][0]["ppi"]["estimate"] == pytest.approx(row["ppi"]["estimate"], abs=1e-12)
    assert {"estimate", "low", "high"} <= set(data["pairs"][0]["ppi"])
