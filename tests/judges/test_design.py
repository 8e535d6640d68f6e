"""Estimates by a stratified design (``judges allocate -o FILE`` -> ``judges estimate --design FILE``).

* the stratified estimate equals the textbook formulas written out here (Cochran 1977, 5.3 and 7.1, plus the draw
  of the queries from their population), to 1e-9;
* coverage by simulation with real qrels as the truth: TREC RAG 2024's NIST judgments of 31 queries
  (tests/golden/qrels.comment.test) and a real run over them are the population of queries; each repetition draws
  150 queries from it, a judge of known bias and noise labels them, a uniform pilot of 30 is labelled, and
  ``allocate`` chooses 30 more by its design. The stratified intervals cover the population's true nDCG@10 (of a
  run, and of the paired difference) in 93-97% of 1,000 repetitions; the same labels taken for a uniform sample
  (the estimate without the design) are measured beside them, and so is a uniform sample of the same 60, whose
  intervals the design's are no wider than, for the mean and for the difference (``--target both``), within
  Monte-Carlo error;
* what the allocation is made for: Neyman's weights for several targets, the fallback to proportional allocation
  when they would make one target worse, ``design_rows``;
* the command line: allocate -> design file -> estimate --design, the refusals, a second round of allocation
  (``allocate --design``), and the few-labels warning counted after the labels outside the design are left out.
"""
from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

import rankmeter
from rankmeter.judges.allocation import allocate, design_rows, stratified_estimate, stratified_ppi
from rankmeter.judges.ppi import estimate
from rankmeter.judges.ppi_means import ppi_mean
from rankmeter.errors import InputError, ParameterError
from rag24_world import GOLDEN, read_columns, rag24_world  # noqa: E402  (tests/ is on sys.path: tests/conftest.py)

REPS = 1000


def test_the_stratified_estimate_is_the_textbook_one():
    """Written out from the formulas: sum_h W_h (lam mean_h(f) + mean_S_h(y - lam f)), variance
    sum_h W_h^2 (1 - n_h/N_h) s_h^2(e) / n_h (inflated for the tuned lam) + s^2(y) / N, Satterthwaite's t."""
    from scipy import stats

    rng = np.random.default_rng(4)
    N = 90
    f = rng.beta(2, 2, N)
    y = np.clip(f + rng.normal(-0.1, 0.15, N), 0, 1)
    strata = np.repeat([0, 1, 2], [20, 40, 30])
    lab = np.zeros(N, bool)
    for h, k in ((0, 9), (1, 6), (2, 12)):
        lab[rng.choice(np.flatnonzero(strata == h), k, replace=False)] = True
    W, n, S = [], [], []
    for h in range(3):
        s = strata == h
        W.append(s.sum() / N)
        n.append((s & lab).sum())
        S.append(s)
    W, n = np.array(W), np.array(n)
    size = W * N
    a = W ** 2 * (1 - n / size) / n
    cov = np.array([np.cov(y[s & lab], f[s & lab])[0, 1] for s in S])
    var_f = np.array([f[s & lab].var(ddof=1) for s in S])
    lam = float(np.clip((a * cov).sum() / (a * var_f).sum(), 0, 1))
    means = np.array([lam * f[s].mean() + (y - lam * f)[s & lab].mean() for s in S])
    want = (W * means).sum()
    inflate = (n.sum() - 3) / (n.sum() - 3 - 1)
    parts = a * np.array([(y - lam * f)[s & lab].var(ddof=1) for s in S]) * inflate
    s2y = (W * np.array([y[s & lab].var(ddof=1) for s in S])).sum() + (W * (means - want) ** 2).sum()
    var = parts.sum() + s2y / N
    df = var ** 2 / ((parts ** 2 / (n - 1)).sum() + (s2y / N) ** 2 / (n.sum() - 1))
    t = stats.t.ppf(0.975, df)
    got = stratified_estimate(y, f, lab, strata)
    assert float(got["lam"]) == pytest.approx(lam, abs=1e-12)
    assert float(got["estimate"]) == pytest.approx(want, abs=1e-9)
    assert float(got["se"]) == pytest.approx(np.sqrt(var), abs=1e-9)
    assert float(got["df"]) == pytest.approx(df, rel=1e-9)
    assert (float(got["low"]), float(got["high"])) == pytest.approx((want - t * np.sqrt(var), want + t * np.sqrt(var)),
                                                                    abs=1e-9)
    # lam = 0: the stratified human-only estimate, sum_h W_h mean_S_h(y), with no degree of freedom spent
    human = stratified_estimate(y, f, lab, strata, lam=0.0)
    assert float(human["estimate"]) == pytest.approx(sum(w * y[s & lab].mean() for w, s in zip(W, S)), abs=1e-12)
    # the labelled-first form gives the same
    order = np.argsort(~lab, kind="stable")
    same = stratified_ppi(y[order][:lab.sum()], f[order][:lab.sum()], f[order][lab.sum():],
                          strata[order][:lab.sum()], strata[order][lab.sum():])
    assert same["estimate"] == pytest.approx(want, abs=1e-12)
    # one stratum: the unstratified PPI++ interval, to O(1/N)
    one = stratified_estimate(y, f, lab, np.zeros(N, int))
    ppi = ppi_mean(y[lab], f[lab], f[~lab], small_sample=True)
    assert float(one["high"] - one["low"]) == pytest.approx(ppi["high"] - ppi["low"], rel=0.1)
    with pytest.raises(ParameterError, match="a stratum has 1 human-labelled queries"):
        stratified_estimate(y, f, lab & ((strata != 0) | (np.cumsum(lab) < 2)), strata)


# ------------------------------------------------------------------ the simulation
@pytest.fixture(scope="module")
def population():
    """The 31 NIST-judged queries: each run's top 10 (the real run, condensed to the judged documents, and a weaker
    simulated one), the grades of the union of both top tens, and the other judged documents' grade counts."""
    truth, runs = rag24_world()
    queries = sorted(truth)
    top = {name: [sorted(run[q], key=lambda d: (-run[q][d], d))[:10] for q in queries] for name, run in runs.items()}
    union = [sorted(set(top["real"][i]) | set(top["weak"][i])) for i in range(len(queries))]
    width = max(map(len, union))
    grades = np.zeros((len(queries), width), int)           # the union's true grades (padding: never ranked)
    rank_of = {name: np.full((len(queries), 10), width, int) for name in runs}   # position in the union
    rest = np.zeros((len(queries), 4), int)                 # the other judged docs: how many of each grade
    for i, q in enumerate(queries):
        grades[i, :len(union[i])] = [truth[q][d] for d in union[i]]
        for name in runs:
            rank_of[name][i, :len(top[name][i])] = [union[i].index(d) for d in top[name][i]]
        rest[i] = np.bincount([g for d, g in truth[q].items() if d not in union[i]], minlength=4)
    return {"truth": truth, "runs": runs, "queries": queries, "grades": grades, "rank_of": rank_of, "rest": rest,
            "used": np.array([len(u) for u in union])}


_P_UP, _P_RANDOM = 0.4, 0.15


def _judge(rng, grades, p_up=_P_UP):
    """Lenient and noisy: a grade up one 40% of the time (``p_up``, per query if an array; capped at 3), and 15% of
    labels uniformly random."""
    up = np.minimum(grades + (rng.random(grades.shape) < np.asarray(p_up)[..., None]), 3)
    return np.where(rng.random(grades.shape) < _P_RANDOM, rng.integers(0, 4, grades.shape), up)


def _judge_counts(rng, rest):
    """The same judge's grades of the other judged documents, as counts per grade (they matter for the ideal only):
    each true grade's documents spread over the grades by the judge's probabilities."""
    out = np.zeros(rest.shape, int)
    for g in range(4):
        p = np.full(4, _P_RANDOM / 4)
        p[g] += (1 - _P_RANDOM) * (1 - _P_UP)
        p[min(g + 1, 3)] += (1 - _P_RANDOM) * _P_UP
        out += rng.multinomial(rest[..., g], p)
    return out


def _ndcg10(ranked, counts, normalised=True):
    """trec_eval's nDCG@10 (or DCG@10) from the top ten's grades (..., 10) and every judged document's count per
    grade (..., 4)."""
    discount = 1 / np.log2(np.arange(2, 12))
    dcg = ranked @ discount
    if not normalised:
        return dcg
    above = np.cumsum(counts[..., ::-1], axis=-1)           # documents of grade >= 3, >= 2, >= 1, >= 0
    r = np.arange(10)
    ideal_grade = (r[:, None] < above[..., None, :3]).sum(-1)   # (..., 10): 3 - how many thresholds r misses
    idcg = ideal_grade @ discount
    return np.where(idcg > 0, dcg / np.where(idcg > 0, idcg, 1), 0.0)


def _union_counts(grades, used):
    """Count per grade (..., 4) of the union's documents (the padding after ``used`` left out)."""
    real = np.arange(grades.shape[-1]) < used[..., None]
    return np.stack([((grades == v) & real).sum(-1) for v in range(4)], -1)


def _scores(pop, grades, counts, which, measure="nDCG@10"):
    """Each run's nDCG@10 of queries ``which`` (...,) under their union's grades (..., width) and every judged
    document's counts per grade (..., 4)."""
    padded = np.concatenate([grades, np.zeros(grades.shape[:-1] + (1,), grades.dtype)], -1)
    return {name: _ndcg10(np.take_along_axis(padded, rank_of[which], -1).astype(float), counts, measure == "nDCG@10")
            for name, rank_of in pop["rank_of"].items()}


def _per_stratum_ppi(y, f, labelled, strata, z=1.959963984540054):
    """PPI++ (ppi-python's ``ppi_mean_ci``) within each stratum, weighted by the strata's sizes: (low, high)."""
    centre = var = 0.0
    for h in np.unique(strata):
        s = strata == h
        part = ppi_mean(y[s & labelled], f[s & labelled], f[s & ~labelled])
        centre += s.mean() * part["estimate"]
        var += s.mean() ** 2 * part["se"] ** 2
    return centre - z * np.sqrt(var), centre + z * np.sqrt(var)


def test_the_numpy_ndcg_is_rankmeters(population):
    pop = population
    rng = np.random.default_rng(0)
    g = _judge(rng, pop["grades"])
    rest = _judge_counts(rng, pop["rest"])
    qrels = {}
    for i, q in enumerate(pop["queries"]):
        union = sorted(set(sorted(pop["runs"]["real"][q], key=lambda d: (-pop["runs"]["real"][q][d], d))[:10])
                       | set(sorted(pop["runs"]["weak"][q], key=lambda d: (-pop["runs"]["weak"][q][d], d))[:10]))
        qrels[q] = {d: int(g[i, j]) for j, d in enumerate(union)}
        qrels[q].update({f"other{v}_{k}": v for v in range(4) for k in range(rest[i, v])})
    which = np.arange(len(pop["queries"]))
    versions = ((qrels, g, rest + _union_counts(g, pop["used"])),
                (pop["truth"], pop["grades"], pop["rest"] + _union_counts(pop["grades"], pop["used"])))
    for (labels, grades, counts), measure in itertools.product(versions, ("nDCG@10", "DCG@10")):
        mine = _scores(pop, grades, counts, which, measure)
        for name, run in pop["runs"].items():
            want = rankmeter.evaluate(labels, run, [measure])
            values = dict(zip(want.queries, want.values(measure)))
            assert mine[name] == pytest.approx([values[q] for q in pop["queries"]], abs=1e-12)


@pytest.mark.parametrize("measure, judge", [("nDCG@10", "even"), ("DCG@10", "uneven")])
def test_coverage_of_the_allocated_design_with_real_qrels_as_the_truth(population, measure, judge):
    """``even``: the judge errs alike on every query; ``uneven``: it is lenient on the hard queries (70% of grades
    up on the half of the queries with the lowest true DCG@10, 10% on the others), so its error differs between
    the strata and the allocation sends more labels where it errs more."""
    pop = population
    Q, N, pilot, budget = len(pop["queries"]), 150, 30, 30
    true_counts = pop["rest"] + _union_counts(pop["grades"], pop["used"])
    y_pop = _scores(pop, pop["grades"], true_counts, np.arange(Q), measure)
    true = {"mean": y_pop["real"].mean(), "diff": (y_pop["real"] - y_pop["weak"]).mean()}
    rng = np.random.default_rng(2026)
    drawn = rng.integers(0, Q, (REPS, N))                        # the queries, drawn from their population
    hard = y_pop["real"] + y_pop["weak"] < np.median(y_pop["real"] + y_pop["weak"]) if judge == "uneven" else None
    g = _judge(rng, pop["grades"][drawn], _P_UP if judge == "even" else np.where(hard[drawn], 0.7, 0.1))
    counts = _judge_counts(rng, pop["rest"][drawn]) + _union_counts(g, pop["used"][drawn])
    f = _scores(pop, g, counts, drawn, measure)                         # (REPS, N) each
    y = {name: v[drawn] for name, v in y_pop.items()}
    # allocate's design, as the command makes it (--target both, the default): strata of the runs' mean LLM metric,
    # the labels for both runs' means and their difference; the pilot = the first 30
    labelled = np.zeros((REPS, N), bool)
    strata = np.zeros((REPS, N), int)
    for rep in range(REPS):
        runs_f = np.array([f["real"][rep], f["weak"][rep]])
        runs_y = np.array([y["real"][rep], y["weak"][rep]])
        plan = allocate(runs_y[:, :pilot], runs_f[:, :pilot], runs_f[:, pilot:], budget, strata=4, seed=rep)
        labelled[rep, :pilot] = True
        labelled[rep, pilot + np.array(plan["chosen"])] = True
        strata[rep] = plan["strata"]
    assert (labelled.sum(1) == pilot + budget).all()
    cover, width = {}, {}
    for what, yy, ff in (("mean", y["real"], f["real"]), ("diff", y["real"] - y["weak"], f["real"] - f["weak"])):
        for kind, lam in (("design", None), ("design_human", 0.0)):
            got = stratified_estimate(yy, ff, labelled, strata, lam=lam)
            cover[what, kind] = np.mean((got["low"] <= true[what]) & (true[what] <= got["high"]))
            width[what, kind] = np.mean(got["high"] - got["low"])
        # the same labels taken for a uniform sample (estimate without the design), and a uniform sample of 60
        naive = [ppi_mean(yy[r][labelled[r]], ff[r][labelled[r]], ff[r][~labelled[r]], small_sample=True)
                 for r in range(REPS)]
        uniform = [ppi_mean(yy[r][:pilot + budget], ff[r][:pilot + budget], ff[r][pilot + budget:],
                            small_sample=True) for r in range(REPS)]
        for kind, rows in (("naive", naive), ("uniform", uniform)):
            low, high, centre = (np.array([e[k] for e in rows]) for k in ("low", "high", "estimate"))
            cover[what, kind] = np.mean((low <= true[what]) & (true[what] <= high))
            width[what, kind] = np.mean(high - low)
            cover[what, kind + "_bias"] = np.mean(centre) - true[what]
        # the design's width less the uniform sample's, repetition by repetition, and its Monte-Carlo standard error
        got = stratified_estimate(yy, ff, labelled, strata)
        gap = (got["high"] - got["low"]) - np.array([e["high"] - e["low"] for e in uniform])
        width[what, "gap"], width[what, "gap_se"] = gap.mean(), gap.std(ddof=1) / np.sqrt(REPS)
        centre = stratified_estimate(yy, ff, labelled, strata)["estimate"]
        cover[what, "design_bias"] = np.mean(centre) - true[what]
        # ppi-python's interval in each stratum, combined with the weights N_h / N: it leaves out how the strata's
        # means vary between draws of the queries (the strata are cut by the LLM's metric, which follows the truth)
        combined = np.array([_per_stratum_ppi(yy[r], ff[r], labelled[r], strata[r]) for r in range(REPS)])
        cover[what, "per_stratum"] = np.mean((combined[:, 0] <= true[what]) & (true[what] <= combined[:, 1]))
        width[what, "per_stratum"] = np.mean(combined[:, 1] - combined[:, 0])
        llm = ff.mean(1)
        half = 1.96 * ff.std(1, ddof=1) / np.sqrt(N)
        cover[what, "llm"] = np.mean((llm - half <= true[what]) & (true[what] <= llm + half))
        cover[what, "llm_bias"] = np.mean(llm) - true[what]
    print({k: round(float(v), 4) for k, v in cover.items()}, {k: round(float(v), 4) for k, v in width.items()})
    assert 0.93 <= cover["mean", "design"] <= 0.97, cover
    assert 0.93 <= cover["diff", "design"] <= 0.97, cover
    # the lenient judge's DCG@10 is far off (nDCG@10's normaliser takes most of the leniency back)
    assert measure == "nDCG@10" or cover["mean", "llm"] < 0.5, cover
    assert cover["mean", "per_stratum"] < 0.9, cover                       # why the variance has the draw's term
    assert width["mean", "design"] < width["mean", "design_human"]       # the LLM's labels narrow it
    # the allocation's intervals are no wider than a uniform sample's of the same 60, for the mean and for the
    # difference, within Monte-Carlo error (measured: narrower by 4-23 standard errors in the four cases)
    assert width["mean", "gap"] <= 2 * width["mean", "gap_se"], width
    assert width["diff", "gap"] <= 2 * width["diff", "gap_se"], width
    assert width["mean", "design"] < width["mean", "uniform"]
    # the unbiased estimate: its mean over the repetitions within 3 standard errors of the truth
    assert abs(cover["mean", "design_bias"]) < 3 * width["mean", "design"] / 3.92 / np.sqrt(REPS)


# ------------------------------------------------------------------ the command line, end to end
def _write_world(folder: Path, queries=120, docs=20, seed=0):
    """Synthetic truth and lenient LLM qrels of every query, two runs, and a uniform pilot of 30 labelled queries."""
    rng = np.random.default_rng(seed)
    grades = rng.choice([0, 0, 0, 1, 1, 2, 3], size=(queries, docs))
    llm = _judge(rng, grades)

    def qrels(path, g, qs):
        path.write_text("".join(f"q{q} 0 d{d} {g[q, d]}\n" for q in qs for d in range(docs)))

    qrels(folder / "llm.qrels", llm, range(queries))
    qrels(folder / "truth.qrels", grades, range(queries))
    qrels(folder / "pilot.qrels", grades, sorted(rng.choice(queries, 30, replace=False)))
    for name, skill in (("strong", 1.2), ("weak", 0.7)):
        s = skill * grades + rng.normal(0, 1, grades.shape)
        (folder / f"{name}.run").write_text("".join(f"q{q} Q0 d{d} 0 {s[q, d]} {name}\n" for q in range(queries)
                                                    for d in range(docs)))
    return grades, llm


def _labelled(folder: Path, design: dict, name="human.qrels", skip=0) -> Path:
    """The assessors' work: the truth's grades of the design's pilot and chosen queries (less the last ``skip``)."""
    wanted = set(design["pilot"]) | set(design["chosen"][:len(design["chosen"]) - skip])
    lines = [line for line in (folder / "truth.qrels").read_text().splitlines(True) if line.split()[0] in wanted]
    (folder / name).write_text("".join(lines))
    return folder / name


def test_allocate_writes_the_design_and_estimate_reads_it(cli, tmp_path):
    _write_world(tmp_path)
    runs = [tmp_path / "strong.run", tmp_path / "weak.run"]
    done = cli("judges", "allocate", tmp_path / "pilot.qrels", tmp_path / "llm.qrels", *runs, "-m", "nDCG@10",
               "--budget", "30", "--seed", "3", "-o", tmp_path / "design.json", "--format", "json")
    assert done.code == 0, done.err
    printed = json.loads(done.out)
    design = json.loads((tmp_path / "design.json").read_text())
    assert {k: printed[k] for k in design} == design                    # the JSON output holds the design
    assert design["format"] == "rankmeter judges design" and design["version"] == 1
    assert design["unit"] == "queries" and design["measures"] == ["nDCG@10"] and design["seed"] == 3
    assert design["runs"] == ["strong", "weak"] and len(design["assignment"]) == 120 and len(design["pilot"]) == 30
    assert sum(s["size"] for s in design["strata"]) == 120
    assert [s["chosen"] for s in design["strata"]] == printed["per_stratum"] and sum(printed["per_stratum"]) == 30
    stratum = dict(map(tuple, design["assignment"]))
    for s in design["strata"]:     # each stratum's counts as the assignment says them
        assert s["size"] == sum(h == s["stratum"] for h in stratum.values())
        assert s["labelled"] == sum(stratum[q] == s["stratum"] for q in design["pilot"])
        assert s["labels"] == s["labelled"] + s["chosen"] >= 2
    # the strata are cut by the LLM's nDCG@10 (the runs' mean): a higher stratum never holds a lower value
    llm_values = {name: dict(zip(*(lambda r: (r.queries, r.values("nDCG@10")))(
        rankmeter.evaluate(str(tmp_path / "llm.qrels"), str(run), ["nDCG@10"])))) for name, run in zip("sw", runs)}
    mean = {q: (llm_values["s"][q] + llm_values["w"][q]) / 2 for q in stratum}
    for h in range(3):
        assert max(mean[q] for q in stratum if stratum[q] == h) <= min(mean[q] for q in stratum if stratum[q] == h + 1)
    human = _labelled(tmp_path, design)
    done = cli("judges", "estimate", human, tmp_path / "llm.qrels", *runs, "-m", "nDCG@10", "--design",
               tmp_path / "design.json", "--format", "json")
    assert done.code == 0, done.err
    data = json.loads(done.out)
    assert data["labelled_queries"] == 60 and data["design"]["sizes"] == [s["size"] for s in design["strata"]]
    assert data["design"]["labelled"] == [s["labels"] for s in design["strata"]]
    # the same as the estimator on the per-query values, and the fixed interface's shape
    got = estimate(str(human), str(tmp_path / "llm.qrels"), [str(r) for r in runs], ["nDCG@10"],
                   design=str(tmp_path / "design.json"))
    truth = rankmeter.evaluate(str(human), str(runs[0]), ["nDCG@10"])
    y = dict(zip(truth.queries, truth.values("nDCG@10")))
    order = [q for q, _ in design["assignment"]]
    f = np.array([llm_values["s"][q] for q in order])
    lab = np.array([q in y for q in order])
    want = stratified_estimate(np.array([y.get(q, 0.0) for q in order]), f, lab,
                               np.array([stratum[q] for q in order]))
    row = data["runs"][0]
    assert row["run"] == "strong" and row["ppi"]["estimate"] == pytest.approx(float(want["estimate"]), abs=1e-12)
    assert row["ppi"]["high"] == pytest.approx(float(want["high"]), abs=1e-12)
    assert got.runs[0]["ppi"]["estimate"] == pytest.approx(row["ppi"]["estimate"], abs=1e-12)
    assert {"run", "measure", "ppi", "llm_only", "human_only"} <= set(row)
    assert {"a", "b", "measure", "ppi", "llm_only", "human_only"} <= set(data["pairs"][0])
    assert {"estimate", "low", "high"} <= set(data["pairs"][0]["ppi"])
    text = cli("judges", "estimate", human, tmp_path / "llm.qrels", *runs, "-m", "nDCG@10", "--design",
               tmp_path / "design.json").out
    assert "60 of 120 queries human-labelled (stratified design" in text


def test_a_design_that_does_not_fit_the_data_is_refused_or_said(cli, tmp_path):
    _write_world(tmp_path)
    runs = [tmp_path / "strong.run", tmp_path / "weak.run"]
    done = cli("judges", "allocate", tmp_path / "pilot.qrels", tmp_path / "llm.qrels", *runs, "-m", "nDCG@10",
               "--budget", "30", "-o", tmp_path / "design.json")
    assert done.code == 0, done.err
    design = json.loads((tmp_path / "design.json").read_text())
    llm = tmp_path / "llm.qrels"
    # the design is never written over an input, and without -o the text says to keep it
    done = cli("judges", "allocate", tmp_path / "pilot.qrels", llm, *runs, "-m", "nDCG@10", "--budget", "30", "-o", llm)
    assert done.code == 2 and llm.read_text().startswith("q0 0 d0")
    done = cli("judges", "allocate", tmp_path / "pilot.qrels", llm, *runs, "-m", "nDCG@10", "--budget", "30")
    assert done.code == 0 and "keep the design (-o FILE)" in done.out

    def run(human, path=tmp_path / "design.json", *more):
        return cli("judges", "estimate", human, llm, *runs, "-m", "nDCG@10", "--design", path, *more)

    # queries labelled outside the design: left out, and said
    extra = [q for q, _ in design["assignment"] if q not in set(design["pilot"]) | set(design["chosen"])][:3]
    human = _labelled(tmp_path, design)
    with open(human, "a") as fh:
        fh.writelines(line for line in (tmp_path / "truth.qrels").read_text().splitlines(True)
                      if line.split()[0] in extra)
    done = run(human, tmp_path / "design.json", "--format", "json")
    data = json.loads(done.out)
    assert done.code == 0 and data["labelled_queries"] == 60
    assert any("3 human-labelled queries are not in the design's sample" in w for w in data["warnings"])
    # some chosen queries not labelled yet: said
    data = json.loads(run(_labelled(tmp_path, design, skip=4), tmp_path / "design.json", "--format", "json").out)
    assert any("4 of the design's 60 queries have no human labels" in w for w in data["warnings"])
    # another measure: valid, and said
    data = json.loads(cli("judges", "estimate", _labelled(tmp_path, design), llm, *runs, "-m", "P@10", "--design",
                          tmp_path / "design.json", "--format", "json").out)
    assert any("cut by the LLM's nDCG@10" in w for w in data["warnings"]), data["warnings"]
    # a stratum with fewer than two labelled queries
    top = max(design["strata"], key=lambda s: s["stratum"])["stratum"]
    stratum = dict(map(tuple, design["assignment"]))
    thin = dict(design, pilot=[q for q in design["pilot"] if stratum[q] != top],
                chosen=[q for q in design["chosen"] if stratum[q] != top][:-1] +
                [next(q for q in design["chosen"] + design["pilot"] if stratum[q] == top)])
    (tmp_path / "thin.json").write_text(json.dumps(thin))
    done = run(_labelled(tmp_path, thin, "thin.qrels"), tmp_path / "thin.json")
    assert done.code == 2 and "a stratum has 1 human-labelled queries: each needs two or more" in done.err
    # a design for other queries
    other = dict(design, assignment=design["assignment"][:-5])
    (tmp_path / "other.json").write_text(json.dumps(other))
    done = run(human, tmp_path / "other.json")
    assert done.code == 2 and "the design was made for other queries: 5 of the LLM's 120 queries" in done.err
    # not a design, another version, a unit that contradicts it
    (tmp_path / "not.json").write_text('{"runs": []}')
    done = run(human, tmp_path / "not.json")
    assert done.code == 2 and "not a design" in done.err and "not.json" in done.err
    (tmp_path / "v9.json").write_text(json.dumps(dict(design, version=9)))
    assert "design version 9" in run(human, tmp_path / "v9.json").err
    done = run(human, tmp_path / "design.json", "--unit", "pairs")
    assert done.code == 2 and "the design is for human labels on queries" in done.err
    with pytest.raises(InputError, match="not valid JSON"):
        (tmp_path / "bad.json").write_text("{")
        estimate(str(human), str(llm), [str(r) for r in runs], ["nDCG@10"], design=str(tmp_path / "bad.json"))
    with pytest.raises(ParameterError, match="design=5: expected a file path or the design's dict"):
        estimate(str(human), str(llm), [str(r) for r in runs], ["nDCG@10"], design=5)
    # without the design, a strongly skewed sample (the pilot and the 30 queries of the LLM's lowest quartile, as
    # an allocation to one stratum would choose) is said not to look uniform (a mildly allocated one may not be)
    low = [q for q, h in design["assignment"] if h == 0]
    skewed = _labelled(tmp_path, dict(design, chosen=low), "skewed.qrels")
    plain = estimate(str(skewed), str(llm), [str(r) for r in runs], ["nDCG@10"])
    assert any("unlike a uniform random sample" in w and "--design" in w for w in plain.warnings), plain.warnings


def test_a_design_of_pairs(cli, tmp_path):
    """Human labels on pairs: allocate's design holds each pair's rank band; estimate --design stratifies by it (the
    same bands the estimate finds itself when the runs and the depth are the same: then the two agree), and refuses
    a frame the design does not cover (a deeper measure's)."""
    truth = read_columns(GOLDEN / "qrels.comment.test", lambda p: int(p[3]))
    real = read_columns(GOLDEN / "results.comment.test", lambda p: float(p[4]))
    rng = np.random.default_rng(5)
    llm = {q: {d: int(min(3, g + (rng.random() < 0.4))) for d, g in docs.items()} for q, docs in truth.items()}
    run = {q: {d: real.get(q, {}).get(d, -1.0 - rng.random()) for d in docs} for q, docs in truth.items()}
    top10 = [(q, d) for q, docs in run.items() for d in sorted(docs, key=lambda d: -docs[d])[:10]]
    pilot = {top10[i] for i in rng.choice(len(top10), 120, replace=False)}

    def write(path, pairs):
        path.write_text("".join(f"{q} 0 {d} {truth[q][d]}\n" for q, d in sorted(pairs)))
        return path

    (tmp_path / "llm.qrels").write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in llm.items() for d, g in docs.items()))
    (tmp_path / "real.run").write_text("".join(f"{q} Q0 {d} 0 {s} real\n" for q, docs in run.items()
                                               for d, s in docs.items()))
    args = (tmp_path / "llm.qrels", tmp_path / "real.run", "-m", "DCG@10")
    done = cli("judges", "allocate", write(tmp_path / "pilot.qrels", pilot), *args, "--budget", "40", "-o",
               tmp_path / "design.json")
    assert done.code == 0, done.err
    design = json.loads((tmp_path / "design.json").read_text())
    assert design["unit"] == "pairs" and len(design["assignment"]) == len(top10) and len(design["chosen"]) == 40
    band = {(q, d): h for q, d, h in design["assignment"]}
    ranks = {(q, d): r + 1 for q, docs in run.items() for r, d in enumerate(sorted(docs, key=lambda d: -docs[d]))}
    assert all(h == int(np.log2(ranks[k])) for k, h in band.items())           # the band of the best rank
    human = write(tmp_path / "human.qrels", pilot | {tuple(u) for u in design["chosen"]})
    with_design = json.loads(cli("judges", "estimate", human, *args, "--design", tmp_path / "design.json",
                                 "--format", "json").out)
    without = json.loads(cli("judges", "estimate", human, *args, "--format", "json").out)
    assert with_design["unit"] == "pairs" and with_design["labelled_pairs"] == 160
    assert with_design["runs"][0]["ppi"] == pytest.approx(without["runs"][0]["ppi"], abs=1e-12)
    assert with_design["design"]["labelled"] == [s["labels"] for s in design["strata"]]
    done = cli("judges", "estimate", human, tmp_path / "llm.qrels", tmp_path / "real.run", "-m", "DCG@20",
               "--design", tmp_path / "design.json")
    assert done.code == 2 and "the design was made for other pairs" in done.err
    done = cli("judges", "estimate", human, *args, "--design", tmp_path / "design.json", "--unit", "queries")
    assert done.code == 2 and "the design is for human labels on pairs" in done.err
    # a second round of pairs needs no earlier design (the bands are found again): refused, and said why
    done = cli("judges", "allocate", human, *args, "--budget", "5", "--design", tmp_path / "design.json")
    assert done.code == 2 and "pairs' strata are their rank bands" in done.err


# ------------------------------------------------------------------ what the allocation is made for
def _predicted(plan, size, have, draw=0.0):
    """Each row's variance (Cochran 5.3) with the labels the plan gives, from the spreads it returns, against
    proportional allocation of the same labels."""
    size, have = np.asarray(size, float), np.asarray(have)
    spread2 = np.array(plan["row_spreads"]) ** 2
    W = size / size.sum()

    def var(total):
        return (W ** 2 * spread2 * (1 / total - 1 / size)).sum(1) + draw

    return var(have + np.array(plan["per_stratum"])), var


def test_a_target_made_worse_by_the_combined_allocation_falls_back_to_proportional():
    """Two rows: the first's LLM errs in the lowest stratum only, the second's errs alike in every stratum. Neyman
    allocation for their sum would move labels to the lowest stratum, which makes the second's variance larger than
    proportional allocation's (for equal spreads proportional is optimal): the allocation falls back to
    proportional. For the first row alone it is Neyman's, written out by hand."""
    H, per = 4, 50
    score = np.repeat(np.arange(H, dtype=float), per)                  # strata 0-3, 50 queries each
    pilot = np.concatenate([np.arange(h * per, h * per + 6) for h in range(H)])   # 6 labelled in each
    rest = np.setdiff1d(np.arange(H * per), pilot)
    pattern = np.array([-1.0, 1.0, -2.0, 2.0, -0.5, 0.5])
    f = np.vstack([score, np.zeros(H * per)])
    y = f.copy()
    y[0, pilot] += np.concatenate([5 * pattern, 0.1 * pattern, 0.1 * pattern, 0.1 * pattern])
    y[1, pilot] += np.tile(pattern, H)                                  # the same spread in every stratum
    order = np.concatenate([pilot, rest])
    both = allocate(y[:, pilot], f[:, pilot], f[:, rest], 40, strata=H, by=score[order], target="mean")
    assert both["neyman"] == 0 and both["per_stratum"] == [10, 10, 10, 10]
    first = allocate(y[0, pilot], f[0, pilot], f[0, rest], 40, strata=H, by=score[order])
    assert first["neyman"] == 1 and first["per_stratum"][0] > 10
    # Neyman for one row: 64 labels in proportion to N_h S_h (the spreads shrunk towards the pooled one with
    # weight n_h / (n_h + 10)), filled above the pilot's 6 in each stratum
    lam = np.polyfit(f[0, pilot], y[0, pilot], 1)[0]
    assert lam == pytest.approx(1.0)
    own = np.array([np.var((y[0] - f[0])[pilot][h * 6:(h + 1) * 6], ddof=1) for h in range(H)])
    spread = np.sqrt((6 * own + 10 * own.mean()) / 16)
    assert first["row_spreads"][0] == pytest.approx(spread.tolist(), rel=1e-12)
    share = 64 * spread / spread.sum()
    want = np.maximum(share, 6)
    want[want > 6] = (64 - 6 * (want == 6).sum()) * spread[want > 6] / spread[want > 6].sum()
    assert np.abs(np.array(first["per_stratum"]) + 6 - want).max() < 1 and sum(first["per_stratum"]) == 40


def test_no_row_is_made_worse_than_by_proportional_allocation():
    """Random pilots of two runs' metrics and their difference: the allocation for all three never predicts a
    row's variance above that of proportional allocation (the module's, in whole labels, above the pilot's), and
    it keeps the Neyman allocation whole in most of them."""
    from rankmeter.judges.allocation import _fill

    rng = np.random.default_rng(8)
    kept = []
    for rep in range(40):
        N, n = 200, 40
        truth = rng.beta(2, 3, (2, N))
        f = np.clip(truth + rng.normal(0, 0.05 + 0.3 * rng.random((2, 1)) * (truth > 0.5), (2, N)), 0, 1)
        assert design_rows(f, names=["a", "b"])[1] == ["a", "b", "a - b"]
        plan = allocate(truth[:, :n], f[:, :n], f[:, n:], 30, strata=4, seed=rep)       # for a, b and a - b
        assert len(plan["row_spreads"]) == 3
        strata = np.array(plan["strata"])
        size, have = np.bincount(strata, minlength=4), np.bincount(strata[:n], minlength=4)
        got, var = _predicted(plan, size, have)
        proportional = _fill(size, np.maximum(have, 2), size, n + 30)
        assert (got <= var(proportional) * (1 + 1e-9)).all(), (rep, got, var(proportional))
        assert sum(plan["per_stratum"]) == 30 and len(set(plan["chosen"])) == 30
        kept.append(plan["neyman"])
    assert np.mean(np.array(kept) == 1) > 0.5, kept


def test_design_rows_and_the_target_keyword():
    values = np.array([[1.0, 2.0], [0.5, 0.0], [0.0, 1.0]])
    rows, names = design_rows(values, target="difference", names=["x", "y", "z"])
    assert names == ["x - y", "x - z", "y - z"] and rows.tolist() == [[0.5, 2.0], [1.0, 1.0], [0.5, -1.0]]
    assert design_rows(values, target="mean")[0].tolist() == values.tolist()
    assert len(design_rows(values)[1]) == 6
    with pytest.raises(ParameterError, match="target='x': expected one of 'mean', 'difference', 'both'"):
        design_rows(values, target="x")
    with pytest.raises(ParameterError, match="target='x': expected one of 'mean', 'difference', 'both'"):
        allocate(values[:, :1], values[:, :1], values[:, 1:], 1, target="x")
    with pytest.raises(ParameterError, match="one run has no paired differences"):
        design_rows(values[:1], target="difference")


def test_a_second_round_keeps_the_first_rounds_strata_or_is_refused(cli, tmp_path):
    _write_world(tmp_path)
    runs = [tmp_path / "strong.run", tmp_path / "weak.run"]
    llm = tmp_path / "llm.qrels"
    first = cli("judges", "allocate", tmp_path / "pilot.qrels", llm, *runs, "-m", "nDCG@10", "--budget", "20",
                "-o", tmp_path / "d1.json")
    assert first.code == 0, first.err
    d1 = json.loads((tmp_path / "d1.json").read_text())
    assert d1["target"] == "both" and d1["targets"] == ["strong", "weak", "strong - weak"] and d1["round"] == 1
    assert all(set(s["target_spreads"]) == set(d1["targets"]) for s in d1["strata"])
    human = _labelled(tmp_path, d1, "h1.qrels")
    # a query labelled outside the first design: not the second's pilot (said), and may be chosen
    extra = next(q for q, _ in d1["assignment"] if q not in set(d1["pilot"]) | set(d1["chosen"]))
    with open(human, "a") as fh:
        fh.writelines(line for line in (tmp_path / "truth.qrels").read_text().splitlines(True)
                      if line.split()[0] == extra)
    second = cli("judges", "allocate", human, llm, *runs, "-m", "nDCG@10", "--budget", "20", "--design",
                 tmp_path / "d1.json", "-o", tmp_path / "d2.json", "--seed", "1")
    assert second.code == 0, second.err
    assert "1 human-labelled queries are not in the earlier design's sample" in second.out
    d2 = json.loads((tmp_path / "d2.json").read_text())
    assert d2["round"] == 2 and sorted(d2["assignment"]) == sorted(d1["assignment"])
    assert sorted(d2["pilot"]) == sorted(d1["pilot"] + d1["chosen"]) and not set(d2["chosen"]) & set(d2["pilot"])
    done = cli("judges", "estimate", _labelled(tmp_path, d2, "h2.qrels"), llm, *runs, "-m", "nDCG@10", "--design",
               tmp_path / "d2.json", "--format", "json")
    assert done.code == 0 and json.loads(done.out)["labelled_queries"] == 70
    # what differs, said
    args = (human, llm, *runs)
    for more, said in ((("-m", "P@10"), "its measure is nDCG@10, not P@10"),
                       (("-m", "nDCG@10", "--strata", "3"), "it has 4 strata, not --strata 3")):
        done = cli("judges", "allocate", *args, *more, "--budget", "10", "--design", tmp_path / "d1.json")
        assert done.code == 2 and said in done.err, done.err
    done = cli("judges", "allocate", human, llm, runs[1], "-m", "nDCG@10", "--budget", "10", "--design",
               tmp_path / "d1.json")
    assert done.code == 2 and "its runs are strong, weak, not weak" in done.err
    # other LLM labels: the same judge again (another draw of its noise) moves queries to other strata
    grades = np.array([[int(line.split()[3]) for line in (tmp_path / "truth.qrels").read_text().splitlines()]])
    other = _judge(np.random.default_rng(99), grades.reshape(120, 20))
    (tmp_path / "llm2.qrels").write_text("".join(f"q{q} 0 d{d} {other[q, d]}\n" for q in range(120)
                                                 for d in range(20)))
    done = cli("judges", "allocate", human, tmp_path / "llm2.qrels", *runs, "-m", "nDCG@10", "--budget", "10",
               "--design", tmp_path / "d1.json")
    assert done.code == 2 and "the LLM's qrels put" in done.err and "queries in other strata" in done.err
    assert "allocate the second round with the first's LLM qrels, runs, measure and strata" in done.err


def test_too_few_labels_are_counted_after_those_outside_the_design(cli, tmp_path):
    """A pilot of 20 and 6 chosen: 26 labels by the design. With 6 more labelled outside it HUMAN has 32, but the
    estimate uses 26, and says so."""
    grades, _ = _write_world(tmp_path)
    rng = np.random.default_rng(1)
    pilot = sorted(rng.choice(120, 20, replace=False))
    (tmp_path / "pilot20.qrels").write_text("".join(f"q{q} 0 d{d} {grades[q, d]}\n" for q in pilot
                                                    for d in range(20)))
    runs = [tmp_path / "strong.run", tmp_path / "weak.run"]
    done = cli("judges", "allocate", tmp_path / "pilot20.qrels", tmp_path / "llm.qrels", *runs, "-m", "nDCG@10",
               "--budget", "6", "-o", tmp_path / "d.json")
    assert done.code == 0, done.err
    design = json.loads((tmp_path / "d.json").read_text())
    human = _labelled(tmp_path, design)
    outside = [q for q, _ in design["assignment"] if q not in set(design["pilot"]) | set(design["chosen"])][:6]
    with open(human, "a") as fh:
        fh.writelines(line for line in (tmp_path / "truth.qrels").read_text().splitlines(True)
                      if line.split()[0] in outside)
    got = estimate(str(human), str(tmp_path / "llm.qrels"), [str(r) for r in runs], ["nDCG@10"],
                   design=str(tmp_path / "d.json"))
    assert got.labelled == 26
    assert any(w.startswith("only 26 human-labelled queries") for w in got.warnings), got.warnings
    assert not any("only 32" in w for w in got.warnings)


def test_with_a_nearly_perfect_judge_the_design_varies_no_more_than_uniform_sampling():
    """The variance dominated by the queries' draw (a judge off by 0.02 on a metric in [0, 1], on synthetic
    queries): nothing much for an allocation to gain. The design's estimates vary no more than a uniform sample's
    and cover 93-97%; the mean's intervals are narrower, the difference's wider by 0.4% (+0.00012, Monte-Carlo
    standard error 0.00006), and as wide with proportional allocation (+0.00011): the strata cost the difference's
    variance estimate that much, the allocation nothing."""
    reps, N, pilot, budget = 1500, 150, 30, 30
    rng = np.random.default_rng(5)
    population = rng.beta(2, 2, 1_000_000)
    true = {"mean": 0.5, "diff": np.mean(population - np.clip(population - 0.1 + rng.normal(0, 0.1, population.size),
                                                              0, 1))}
    base = rng.beta(2, 2, (reps, N))
    y = np.stack([base, np.clip(base - 0.1 + rng.normal(0, 0.1, (reps, N)), 0, 1)])
    f = y + rng.normal(0, 0.02, y.shape)
    labelled, strata = np.zeros((reps, N), bool), np.zeros((reps, N), int)
    for r in range(reps):
        plan = allocate(y[:, r, :pilot], f[:, r, :pilot], f[:, r, pilot:], budget, seed=r)
        labelled[r, :pilot] = True
        labelled[r, pilot + np.array(plan["chosen"], int)] = True
        strata[r] = plan["strata"]
    for what, yy, ff in (("mean", y[0], f[0]), ("diff", y[0] - y[1], f[0] - f[1])):
        got = stratified_estimate(yy, ff, labelled, strata)
        uniform = [ppi_mean(yy[r, :60], ff[r, :60], ff[r, 60:], small_sample=True) for r in range(reps)]
        low, high, centre = (np.array([u[k] for u in uniform]) for k in ("low", "high", "estimate"))
        gap = (got["high"] - got["low"]) - (high - low)
        print(what, gap.mean(), gap.std(ddof=1) / np.sqrt(reps), np.std(got["estimate"]), np.std(centre))
        assert np.std(got["estimate"] - true[what]) <= np.std(centre - true[what]), what
        assert gap.mean() <= 0.005 * np.mean(high - low), what
        if what == "mean":
            assert gap.mean() <= -2 * gap.std(ddof=1) / np.sqrt(reps)
        assert 0.93 <= np.mean((got["low"] <= true[what]) & (true[what] <= got["high"])) <= 0.97, what


def _small_design(unit="queries"):
    from rankmeter.judges import design as design_file
    if unit == "queries":
        rows, pilot, chosen = [(f"q{i}", i % 2) for i in range(10)], ["q0", "q1", "q2", "q3"], ["q4", "q5"]
    else:
        rows = [(f"q{i}", f"d{j}", (i + j) % 2) for i in range(3) for j in range(4)]
        pilot, chosen = [("q0", "d0"), ("q0", "d1"), ("q1", "d0"), ("q1", "d1")], [("q2", "d0"), ("q2", "d1")]
    return design_file.make(unit, measure="nDCG@10", runs=["a", "b"], seed=0, budget=2, assignment=rows, pilot=pilot,
                            chosen=chosen, per_stratum=[1, 1], spreads=[0.1, 0.2], target="both", neyman=1.0,
                            round=1)


_DEEP = json.loads("[" * 40 + "]" * 40)
# (what was damaged, field, value, the field named, what it must hold, what it held)
DAMAGED_DESIGNS = [
    ("pilot null", "pilot", None, "pilot", "a list, each entry a string", "null"),
    ("pilot a number", "pilot", 5, "pilot", "a list, each entry a string", "5"),
    ("pilot a number inside", "pilot", ["q0", 5], "pilot[1]", "a string", "5"),
    ("chosen a string", "chosen", "q4", "chosen", "a list, each entry a string", "the string 'q4'"),
    ("a stratum of 10**30", ("assignment", 3), ["q3", 10 ** 30], "assignment[3][1]", "an integer in [0, 9999]",
     "an integer of 31 digits"),
    ("a stratum not among the strata", ("assignment", 3), ["q3", 7], "assignment[3][1]",
     "the code of one of the design's strata (0, 1)", "7"),
    ("a stratum as a string", ("assignment", 3), ["q3", "1"], "assignment[3][1]", "an integer in [0, 9999]",
     "the string '1'"),
    ("a stratum as a boolean", ("assignment", 3), ["q3", True], "assignment[3][1]", "an integer in [0, 9999]",
     "true"),
    ("an assignment row too short", ("assignment", 3), ["q3"], "assignment[3]", "[a string, an integer in [0, 9999]]",
     "a list of 1"),
    ("a stratum size of 10**30", ("strata", 0, "size"), 10 ** 30, "strata[0].size", "an integer in [0, 1099511627776]",
     "an integer of 31 digits"),
    ("a stratum size as a string", ("strata", 0, "size"), "5", "strata[0].size", "an integer in [0, 1099511627776]",
     "the string '5'"),
    ("a negative spread", ("strata", 1, "spread"), -0.2, "strata[1].spread", "a number in [0, inf]", "-0.2"),
    ("a NaN spread", ("strata", 1, "spread"), float("nan"), "strata[1].spread", "a number in [0, inf]", "NaN"),
    ("neyman as a string", "neyman", "1", "neyman", "a number in [0, 1]", "the string '1'"),
    ("budget a boolean", "budget", True, "budget", "an integer in [0, 1099511627776]", "true"),
    ("a stratum twice", ("strata", 1, "stratum"), 0, "strata", "each stratum once (stratum 0 is given twice)", None),
    ("strata empty", "strata", [], "strata", "a list of 1 to 10000, each entry an object with stratum, size, labelled, "
     "chosen, labels, spread", "an empty list"),
    ("a unit twice", ("assignment", 1), ["q0", 0], "assignment", "each unit once (one stratum each)", None),
    ("deep nesting in a field", "notes", _DEEP, "notes" + "[0]" * 31, "at most 32 levels of nested lists", None),
    ("runs a string", "runs", "a b", "runs", "a list, each entry a string", "the string 'a b'"),
    ("unit unknown", "unit", "docs", "unit", 'one of "queries", "pairs"', "the string 'docs'"),
]


def _damage(design, where, value):
    out = json.loads(json.dumps(design))
    if isinstance(where, str):
        out[where] = value
        return out
    node = out
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = value
    return out


@pytest.mark.parametrize("damage, where, value, field, expected, got", DAMAGED_DESIGNS,
                         ids=[d[0] for d in DAMAGED_DESIGNS])
def test_a_damaged_design_names_the_file_and_the_field(tmp_path, damage, where, value, field, expected, got):
    from rankmeter.judges import design as design_file
    path = tmp_path / "design.json"
    path.write_text(json.dumps(_damage(_small_design(), where, value)))
    with pytest.raises(InputError) as refused:
        design_file.read(str(path))
    message = str(refused.value)
    want = f"{path}: field {field}: expected {expected}" + (f", got {got}" if got else "")
    assert message.startswith(want) and message.endswith("give the file `rankmeter judges allocate -o FILE` wrote, "
                                                         "unedited"), message


def test_damaged_design_files_as_a_whole(tmp_path):
    from rankmeter.judges import design as design_file
    good = json.dumps(_small_design())
    pairs = _small_design("pairs")
    assert design_file.read(pairs)["assignment"][0] == ["q0", "d0", 0]
    cases = {
        "latin1": (good.replace('"nDCG@10"', '"nDCG@10 caf\xe9"', 1).encode("latin-1"), "not UTF-8 text (byte 0xe9"),
        "deep": (b"[" * 100_000 + b"]" * 100_000, "nested deeper than 32 levels"),
        "version true": (good.replace('"version": 1', '"version": true').encode(), "design version True"),
        "version 1.0": (good.replace('"version": 1', '"version": 1.0').encode(), "design version 1.0"),
        "a key twice": (good.replace('"unit": "queries"', '"unit": "queries", "unit": "pairs"').encode(),
                        "an object names the key 'unit' twice"),
        "pairs as queries": (json.dumps(dict(pairs, unit="queries")).encode(),
                             "field assignment[0]: expected [a string, an integer in [0, 9999]], got a list of 3"),
        "a pair as a string": (json.dumps(dict(pairs, pilot=["q0 d0"])).encode(),
                               "field pilot[0]: expected [a string, a string], got the string 'q0 d0'"),
    }
    for name, (data, expected) in cases.items():
        path = tmp_path / f"{name}.json"
        path.write_bytes(data)
        with pytest.raises(InputError) as refused:
            design_file.read(str(path))
        assert str(refused.value).startswith(f"{path}: ") and expected in str(refused.value), (name, refused.value)
    with pytest.raises(InputError, match=r"<design>: field pilot: expected a list, each entry a string, got null"):
        design_file.read(dict(_small_design(), pilot=None))                 # a dict given in Python too


def test_a_damaged_design_on_the_command_line_is_one_line_and_exit_2(cli, tmp_path):
    _write_world(tmp_path)
    runs = [tmp_path / "strong.run", tmp_path / "weak.run"]
    assert cli("judges", "allocate", tmp_path / "pilot.qrels", tmp_path / "llm.qrels", *runs, "-m", "nDCG@10",
               "--budget", "30", "-o", tmp_path / "design.json").code == 0
    design = json.loads((tmp_path / "design.json").read_text())
    human = _labelled(tmp_path, design)
    for damage, where, value, field, _, _ in DAMAGED_DESIGNS[::4]:
        bad = tmp_path / "bad.json"
        bad.write_text(json.dumps(_damage(design, where, value)))
        for command in (("estimate", human), ("allocate", tmp_path / "pilot.qrels")):
            more = ("--budget", "10", "--design") if command[0] == "allocate" else ("--design",)
            done = cli("judges", *command, tmp_path / "llm.qrels", *runs, "-m", "nDCG@10", *more, bad)
            assert done.code == 2 and done.err.startswith(f"rankmeter: error: {bad}: field {field}: expected"), \
                (damage, command[0], done.err)
            assert done.err.count("\n") == 1 and "Traceback" not in done.err and "internal error" not in done.err
