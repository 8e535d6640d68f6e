"""``rankmeter diff``: each convention's values equal the real package's, the attribution adds up to
the observed difference on every query and for the mean, and the issue's thread cases name their cause."""
from __future__ import annotations

import json
import math
import subprocess
import sys
import warnings

import numpy as np
import pytest
from optional_packages import optional

from rankmeter.diff.attribution import diff
from rankmeter.compat.conventions import CONVENTIONS, convention_value
from rankmeter.measures.names import resolve_name

pytrec_eval = optional("pytrec_eval")
ir_measures = optional("ir_measures")
ranx = optional("ranx")
torch = optional("torch")
torchmetrics = optional("torchmetrics")
sklearn = optional("sklearn")

SEEDS = range(12)


def M(name):
    return resolve_name(name)[0][1]


def _case(seed, *, ties=False, n_q=6, n_d=8):
    """Graded qrels (0-2) on 5 of 8 docs per query, a run over all 8 (scores tied when ``ties``)."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for i in range(n_q):
        docs = [f"d{j}" for j in range(n_d)]
        qrels[f"q{i}"] = {str(d): int(rng.integers(0, 3)) for d in rng.choice(docs, 5, replace=False)}
        scores = rng.integers(0, 3, n_d).astype(float) if ties else rng.normal(size=n_d)
        run[f"q{i}"] = {docs[j]: float(scores[j]) for j in rng.permutation(n_d)}
    return qrels, run


def _close(a, b, tol=1e-9):
    return abs(a - b) <= tol


@pytest.mark.parametrize("ties", [False, True])
def test_pytrec_eval_and_ir_measures_conventions_equal_the_packages(ties):
    names = {"ndcg_cut_5": "nDCG@5", "recip_rank": "RR", "P_5": "P@5", "map_cut_5": "AP@5"}
    for seed in SEEDS:
        qrels, run = _case(seed, ties=ties)
        got = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.5", "recip_rank", "P.5", "map_cut.5"}).evaluate(run)
        irm = {(r.query_id, str(r.measure)): r.value for r in ir_measures.iter_calc(
            [ir_measures.nDCG @ 5, ir_measures.RR, ir_measures.P @ 5, ir_measures.AP @ 5], qrels, run)}
        for key, name in names.items():
            ours = convention_value(CONVENTIONS["pytrec_eval"], qrels, run, M(name))
            mine = convention_value(CONVENTIONS["ir_measures"], qrels, run, M(name))
            for q in got:
                assert _close(ours[q], got[q][key]), (seed, q, name)
                assert _close(mine[q], irm[(q, name)]), (seed, q, name)


@pytest.mark.parametrize("ties", [False, True])
def test_ranx_convention_equals_ranx(ties):
    """Negative grades on two docs of each query; with ``ties``, tied scores in 8-doc rankings (ranx's
    numba sort keeps short tied lists as given; long ones are not modelled, see docs/why-numbers-differ.md)."""
    warnings.filterwarnings("ignore")
    for seed in SEEDS:
        qrels, run = _case(seed, ties=ties)
        for q in qrels:
            for d in list(qrels[q])[:2]:
                qrels[q][d] = -1 - seed % 2
        run.pop("q5")                       # judged, not retrieved: ranx (make_comparable) scores it 0
        for metric, name in [("ndcg@5", "nDCG@5"), ("mrr@5", "RR@5"), ("precision@5", "P@5"), ("map@5", "AP@5")]:
            per = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), metric, return_mean=False, make_comparable=True)
            ours = convention_value(CONVENTIONS["ranx"], qrels, run, M(name))
            for q, value in zip(qrels, per):
                assert _close(ours[q], float(value)), (seed, q, name)
            mean = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), metric, make_comparable=True)
            assert _close(diff(qrels, run, name, ["pytrec_eval", "ranx"])["conventions"]["ranx"][name], mean)


@pytest.mark.parametrize("ties", [False, True])
def test_torchmetrics_and_sklearn_conventions_equal_the_packages(ties):
    from sklearn.metrics import ndcg_score
    from torchmetrics.functional import retrieval as tmr
    fns = {"nDCG@5": tmr.retrieval_normalized_dcg, "RR@5": tmr.retrieval_reciprocal_rank,
           "P@5": tmr.retrieval_precision, "AP@5": tmr.retrieval_average_precision, "R@5": tmr.retrieval_recall}
    for seed in SEEDS:
        qrels, run = _case(seed, ties=ties)
        for name, fn in fns.items():
            ours = convention_value(CONVENTIONS["torchmetrics"], qrels, run, M(name))
            for q, docs in run.items():
                preds = torch.tensor(list(docs.values()))
                target = torch.tensor([qrels[q].get(d, 0) for d in docs])
                target = target if name == "nDCG@5" else (target >= 1).long()
                assert _close(ours[q], float(fn(preds, target, top_k=5)), 1e-6), (seed, q, name)
        ours = convention_value(CONVENTIONS["sklearn"], qrels, run, M("nDCG@5"))
        for q, docs in run.items():
            want = ndcg_score([[qrels[q].get(d, 0) for d in docs]], [list(docs.values())], k=5)
            assert _close(ours[q], want), (seed, q)


def test_torchmetrics_mean_counts_an_unjudged_query_as_zero():
    qrels, run = _case(3)
    run["q_new"] = {"d0": 0.3, "d1": 0.2}
    metric = torchmetrics.retrieval.RetrievalNormalizedDCG(top_k=5)
    for i, (q, docs) in enumerate(run.items()):
        metric.update(torch.tensor(list(docs.values())),
                      torch.tensor([qrels.get(q, {}).get(d, 0) for d in docs]), indexes=torch.full((len(docs),), i))
    report = diff(qrels, run, "nDCG@5", ["pytrec_eval", "torchmetrics"])
    assert _close(report["conventions"]["torchmetrics"]["nDCG@5"], float(metric.compute()), 1e-6)
    row = next(r for r in report["queries"] if r["query"] == "q_new")
    assert row["values"] == {"pytrec_eval": None, "torchmetrics": 0.0}
    assert [c["cause"] for c in row["causes"]] == ["unjudged_query"]


ALL = ["trec_eval", "pytrec_eval", "ir_measures", "ranx", "torchmetrics", "sklearn", "beir", "mteb"]


@pytest.mark.parametrize("ties", [False, True])
def test_torchmetrics_tie_order_on_long_tied_lists(ties):
    """40 docs, scores in 3 values: past 16 candidates torch's sorts keep no simple order; the convention
    asks torch itself, so its values are TorchMetrics' (MRR, MAP, P by topk; recall by argsort)."""
    from torchmetrics.functional import retrieval as tmr
    fns = {"RR@10": tmr.retrieval_reciprocal_rank, "P@10": tmr.retrieval_precision,
           "AP@10": tmr.retrieval_average_precision, "R@10": tmr.retrieval_recall}
    for seed in SEEDS:
        qrels, run = _case(seed, ties=ties, n_d=40)
        for name, fn in fns.items():
            ours = convention_value(CONVENTIONS["torchmetrics"], qrels, run, M(name))
            for q, docs in run.items():
                target = torch.tensor([int(qrels[q].get(d, 0) >= 1) for d in docs])
                want = float(fn(torch.tensor(list(docs.values())), target, top_k=10))
                assert _close(ours[q], want, 1e-6), (seed, q, name)


def test_mteb_convention_is_pytrec_eval_rounded_to_5_and_its_mrr():
    """MTEB's retrieval_metrics: pytrec_eval's measures, its own MRR@k sorting (score, doc id) descending with
    relevant = grade > 0, pytrec_eval's means rounded to 5 decimals, its MRR's mean not rounded
    (calculate_retrieval_scores: ``avg_mrr = sum / len``; tests/compat/test_profiles_peers.py runs mteb's own code)."""
    for seed in SEEDS:
        qrels, run = _case(seed, ties=True)
        got = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}).evaluate(run)
        report = diff(qrels, run, ["nDCG@10", "RR@10"], ["pytrec_eval", "mteb"])
        assert report["conventions"]["mteb"]["nDCG@10"] == round(
            sum(v["ndcg_cut_10"] for v in got.values()) / len(got), 5)
        rr = []
        for q, docs in run.items():
            top = sorted(docs.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)[:10]
            relevant = {d for d, g in qrels[q].items() if g > 0}
            rr.append(next((1 / (i + 1) for i, (d, _) in enumerate(top) if d in relevant), 0.0))
        assert _close(report["conventions"]["mteb"]["RR@10"], sum(rr) / len(rr), 1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_attribution_adds_up_on_every_query_and_for_the_mean(seed):
    qrels, run = _case(seed, ties=seed % 2 == 0)
    run["q0"]["q0"] = 5.0                          # a self id, judged relevant
    qrels["q1"]["d0"] = -1                         # a negative grade
    run.pop("q2")                                  # judged, not retrieved
    run["q9"] = {"d1": 1.0}                        # retrieved, not judged
    report = diff(qrels, run, ["nDCG@5", "RR@5", "AP", "P@5"], ALL)
    raw = {}
    for row in report["queries"]:
        ref = row["values"]["trec_eval"]
        for other, value in row["values"].items():
            if other == "trec_eval" or value is None or ref is None:
                continue
            total = sum(c["delta"] for c in row["causes"] if c["conventions"] == ["trec_eval", other])
            assert _close(total, value - ref, 1e-12), (row, other)
            raw[other] = raw.get(other, 0) + 1
    assert raw  # some queries differ with both values defined
    for m in report["measures"]:
        for other in ALL[1:]:
            b, a = report["conventions"][other][m], report["conventions"]["trec_eval"][m]
            if b is None:
                continue
            total = sum(c["delta"] for c in report["mean_causes"]
                        if c["measure"] == m and c["conventions"] == ["trec_eval", other])
            assert _close(total, b - a, 1e-12), (m, other)


def test_negative_grades_gain_nothing_in_pytrec_eval_and_ranx_alike():
    """A negative grade is no cause between them: trec_eval's nDCG gives it no gain, as ranx does."""
    qrels = {"q": {"a": -2, "b": 1}}
    run = {"q": {"a": 0.9, "b": 0.8}}
    want = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.5"}).evaluate(run)["q"]["ndcg_cut_5"]
    got = float(ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), "ndcg@5"))
    report = diff(qrels, run, "nDCG@5", ["pytrec_eval", "ranx"])
    assert _close(report["conventions"]["pytrec_eval"]["nDCG@5"], want) and _close(want, got)
    assert report["queries"] == [] and report["mean_causes"] == []


def test_own_conventions_switch_gain_truncation_judged_only_and_add_up():
    from rankmeter.compat.conventions import Convention
    qrels, run = _case(5, n_q=20)
    mine = Convention("mine", gain="exp", truncation=2, judged_only=True, ideal_pool="retrieved", ideal_depth="k")
    report = diff(qrels, run, "nDCG@3", ["pytrec_eval", mine])
    causes = {c["cause"] for row in report["queries"] for c in row["causes"]}
    assert {"gain", "truncation", "judged_only"} <= causes
    for row in report["queries"]:
        total = sum(c["delta"] for c in row["causes"])
        assert _close(total, row["values"]["mine"] - row["values"]["pytrec_eval"], 1e-12)
    # the end state is rankmeter's own measure with those options
    import rankmeter
    want = rankmeter.evaluate(qrels, run, "nDCG(gain=exp, ideal=topk)@3", max_docs=2, judged_only=True)
    assert _close(report["conventions"]["mine"]["nDCG@3"], want["nDCG(gain=exp, ideal=topk)@3"], 1e-12)


def test_constant_scorer_rr_at_10_stable_sort_vs_docid_ties():
    """mteb #5092: a constant scorer's MRR@10 is 1 under a stable sort when the relevant doc is listed first."""
    qrels = {f"q{i}": {f"doc{i}": 1} for i in range(4)}
    run = {f"q{i}": {f"doc{i}": 0.0, **{f"doc{j}x": 0.0 for j in range(9)}} for i in range(4)}
    want_pytrec = np.mean([v["recip_rank"] for v in
                           pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run).values()])
    report = diff(qrels, run, "RR@10", ["pytrec_eval", "ranx"])
    assert _close(report["conventions"]["pytrec_eval"]["RR@10"], want_pytrec)
    assert _close(report["conventions"]["ranx"]["RR@10"], 1.0)
    assert want_pytrec < 0.2          # docno descending ranks 'docN' below 'docNx' and every greater 'docJx'
    for row in report["queries"]:
        assert [c["cause"] for c in row["causes"]] == ["ties"]
        i = row["query"][1:]
        assert row["tied"] == [sorted([f"doc{i}"] + [f"doc{j}x" for j in range(9)])]
    mean = report["mean_causes"]
    assert [c["cause"] for c in mean] == ["ties"] and _close(mean[0]["delta"], 1.0 - want_pytrec)


def test_ndcg_ideal_over_retrieved_docs_only():
    """second-brain #256: the ideal DCG of the returned docs makes any ranking of them look perfect."""
    from sklearn.metrics import ndcg_score
    qrels = {"q": {"a": 2, "b": 2, "c": 1}}
    run = {"q": {"x": 0.9, "a": 0.8, "y": 0.7}}
    want = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.3"}).evaluate(run)["q"]["ndcg_cut_3"]
    sk = ndcg_score([[0, 2, 0]], [[0.9, 0.8, 0.7]], k=3)
    report = diff(qrels, run, "nDCG@3", ["pytrec_eval", "sklearn"])
    assert _close(report["conventions"]["pytrec_eval"]["nDCG@3"], want)
    assert _close(report["conventions"]["sklearn"]["nDCG@3"], sk)
    (row,) = report["queries"]
    assert [c["cause"] for c in row["causes"]] == ["ideal_pool"] and _close(row["causes"][0]["delta"], sk - want)


def test_beir_ignore_identical_ids():
    """beir #206: BEIR drops a doc whose id equals the query id before pytrec_eval, then rounds to 5 decimals."""
    qrels = {"q1": {"d1": 1, "d2": 1}, "q2": {"d3": 1}}
    run = {"q1": {"q1": 3.0, "d1": 2.0, "d7": 1.0, "d2": 0.5}, "q2": {"d3": 1.0, "d4": 0.5}}
    beir_rule = {q: {d: s for d, s in docs.items() if d != q} for q, docs in run.items()}   # BEIR's loop
    want = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}).evaluate(beir_rule)
    want_mean = round(sum(v["ndcg_cut_10"] for v in want.values()) / len(want), 5)
    report = diff(qrels, run, "nDCG@10", ["pytrec_eval", "beir"])
    assert report["conventions"]["beir"]["nDCG@10"] == want_mean
    row = next(r for r in report["queries"] if r["query"] == "q1")
    assert row["values"]["beir"] == round(want["q1"]["ndcg_cut_10"], 5)
    assert [c["cause"] for c in row["causes"]] == ["self_id", "rounding"]


def test_cli_json_shape_and_errors(tmp_path):
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("1 0 a 1\n1 0 b 2\n2 0 c 1\n")
    run.write_text("1 Q0 z 1 1.0 t\n1 Q0 a 2 1.0 t\n1 Q0 b 3 0.5 t\n2 Q0 c 1 1.0 t\n")
    cmd = [sys.executable, "-m", "rankmeter", "diff", str(qrels), str(run), "-m", "nDCG@3", "-m", "RR"]
    out = subprocess.run(cmd + ["--as", "pytrec_eval,ranx,sklearn", "--format", "json"],
                         capture_output=True, text=True, check=True).stdout
    report = json.loads(out)
    assert report["measures"] == ["nDCG@3", "RR"]
    assert set(report["conventions"]) == {"pytrec_eval", "ranx", "sklearn"}
    assert report["conventions"]["sklearn"]["RR"] is None
    for row in report["queries"]:
        assert set(row) - {"tied"} == {"query", "measure", "values", "causes"}
        assert all(set(c) == {"cause", "conventions", "delta"} for c in row["causes"])
    text = subprocess.run(cmd + ["--as", "pytrec_eval,ranx"], capture_output=True, text=True, check=True).stdout
    assert "ties" in text and "to reproduce" in text
    bad = subprocess.run(cmd + ["--as", "pytrec_eval,nosuch"], capture_output=True, text=True)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and "nosuch" in bad.stderr
