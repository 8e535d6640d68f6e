"""The disagreements found between ``rankmeter diff``, the profiles, the drop-ins and the real packages, each
held fixed against the real package (issue 42: one model of each peer; issue 41: dicts read as pytrec_eval
reads them)."""
from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest
from optional_packages import optional

import rankmeter
from rankmeter.compat import ir_measures as irm_dropin
from rankmeter.compat import pytrec_eval as pte_dropin
from rankmeter.compat import ranx as ranx_dropin
from rankmeter.compat.conventions import CONVENTIONS
from rankmeter.diff.attribution import diff
from rankmeter.measures import Measure

pytrec_eval = optional("pytrec_eval")
ir_measures = optional("ir_measures")
ranx = optional("ranx")


def tied_case(seed=7, n_q=30, n_d=40):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for i in range(n_q):
        docs = [f"d{j}" for j in range(n_d)]
        qrels[f"q{i}"] = {d: int(rng.integers(0, 3)) for d in rng.choice(docs, 10, replace=False)}
        scores = rng.integers(0, 4, n_d).astype(float)
        run[f"q{i}"] = {docs[j]: float(scores[j]) for j in rng.permutation(n_d)}
    return qrels, run


def test_diff_as_ir_measures_ranks_rr_at_k_as_its_msmarco_provider():
    """RR@10 goes to ir_measures' msmarco provider (ties by docno ascending), RR to pytrec_eval's."""
    qrels, run = tied_case()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = ir_measures.calc_aggregate([ir_measures.RR @ 10, ir_measures.RR], qrels, run)
        mine = irm_dropin.calc_aggregate([irm_dropin.RR @ 10, irm_dropin.RR], qrels, run)
        report = diff(qrels, run, ["RR@10", "RR"], ["trec_eval", "ir_measures"])["conventions"]["ir_measures"]
    assert report["RR@10"] == pytest.approx(theirs[ir_measures.RR @ 10], abs=1e-12)
    assert mine[irm_dropin.RR @ 10] == pytest.approx(theirs[ir_measures.RR @ 10], abs=1e-12)
    assert report["RR"] == pytest.approx(theirs[ir_measures.RR], abs=1e-12)
    assert CONVENTIONS["ir_measures"].for_measure(Measure.of("RR", {}, 10)).ties == "docno"
    assert CONVENTIONS["ir_measures"].for_measure(Measure.of("RR")).ties == "trec_eval"


def test_diff_as_ranx_orders_ties_as_ranx_sorts():
    qrels, run = tied_case()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(copy.deepcopy(run)), "ndcg@10", make_comparable=True)
        mine = ranx_dropin.evaluate(ranx_dropin.Qrels(qrels), ranx_dropin.Run(copy.deepcopy(run)), "ndcg@10",
                                    make_comparable=True)
        report = diff(qrels, run, "nDCG@10", ["trec_eval", "ranx"])["conventions"]["ranx"]
    assert report["nDCG@10"] == pytest.approx(float(theirs), abs=1e-12)
    assert float(mine) == pytest.approx(float(theirs), abs=1e-12)


@pytest.mark.parametrize("score", [1.000000001, 1.00000005, 1.0000001])
def test_ir_measures_reads_pytrec_eval_scores_as_c_floats(score):
    """{"a": 1.000000001, "b": 1.0} with a relevant: one C float, a tie, b first by docno descending."""
    qrels, run = {"q": {"a": 1}}, {"q": {"a": score, "b": 1.0}}
    names = [ir_measures.AP, ir_measures.RR, ir_measures.P @ 1, ir_measures.RR @ 10, ir_measures.nDCG @ 1]
    theirs = {str(m): v for m, v in ir_measures.calc_aggregate(names, qrels, run).items()}
    mine = {str(m): v for m, v in irm_dropin.calc_aggregate([irm_dropin.parse_measure(str(m)) for m in names],
                                                            qrels, run).items()}
    assert mine == theirs
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = diff(qrels, run, [str(m) for m in names], ["trec_eval", "ir_measures"])
    assert report["conventions"]["ir_measures"] == pytest.approx(theirs, abs=1e-12)
    per = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P.1"}).evaluate(run)["q"]
    assert pte_dropin.RelevanceEvaluator(qrels, {"map", "P.1"}).evaluate(run)["q"] == per
    if score == 1.000000001:
        assert (theirs["AP"], theirs["RR"], theirs["P@1"], theirs["RR@10"]) == (0.5, 0.5, 0.0, 1.0)


def test_beir_profile_scores_an_empty_ranking_zero_and_averages_it():
    qrels, run = {"q1": {"a": 1}, "q2": {"b": 1}}, {"q1": {"a": 1.0}, "q2": {}}
    per = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}).evaluate(run)
    beir_rule = round(sum(v["ndcg_cut_10"] for v in per.values()) / len(per), 5)   # BEIR's mean over pytrec_eval's
    assert beir_rule == 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert rankmeter.profile("beir").evaluate(qrels, run)["nDCG@10"] == 0.5
        assert rankmeter.profile("mteb").evaluate(qrels, run)["nDCG@10"] == 0.5
        assert diff(qrels, run, "nDCG@10", ["trec_eval", "beir"])["conventions"]["beir"]["nDCG@10"] == 0.5
        # a judged query the run does not name is left out, as BEIR leaves it (pytrec_eval does not score it)
        assert rankmeter.profile("beir").evaluate(qrels, {"q1": {"a": 1.0}})["nDCG@10"] == 1.0


def test_beir_profile_with_qrels_from_a_file(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text("q1 0 a 1\nq2 0 b 1\nq3 0 c 1\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert rankmeter.profile("beir").evaluate(str(path), {"q1": {"a": 1.0}, "q2": {}})["nDCG@10"] == 0.5


class _Liar(dict):
    """A dict whose Python methods say something else than what it stores."""

    def items(self):
        return list(dict.items(self))[:1]

    def __iter__(self):
        return iter(list(dict.__iter__(self))[::-1][:1])

    def keys(self):
        return list(iter(self))

    def values(self):
        return [0.0 for _ in iter(self)]

    def __getitem__(self, key):
        return {"zz": 9.0} if isinstance(dict.__getitem__(self, key), dict) else 0.0

    def __len__(self):
        return 1

    def __contains__(self, key):
        return False


class _Empty(_Liar):
    def __len__(self):
        return 0


QRELS = {"q1": {"a": 1, "b": 0, "c": 2}, "q2": {"c": 1, "d": 1}, "q3": {"x": 1}}
RUN = {"q1": {"a": 0.1, "b": 0.9, "c": 0.5}, "q2": {"c": 0.5, "x": 0.7, "d": 0.2}, "q3": {}}


@pytest.mark.parametrize("outer", [dict, _Liar, _Empty])
@pytest.mark.parametrize("inner", [dict, _Liar, _Empty])
@pytest.mark.parametrize("judged", [dict, _Liar, _Empty])
def test_pytrec_eval_dicts_read_as_pytrec_eval_reads_them(outer, inner, judged):
    """Outer run dict and inner dicts from their storage (after the run's truth value), the qrels' outer
    mapping through items() and each judgments dict's len() (pytrec_eval's Python layer): the real
    pytrec_eval's numbers, for every mix of lying subclasses."""
    measures = {"map", "P.2", "recip_rank", "ndcg", "num_ret"}
    qrels = {q: judged(docs) for q, docs in QRELS.items()}
    run = outer({q: inner(docs) for q, docs in RUN.items()})
    want = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    got = pte_dropin.RelevanceEvaluator(qrels, measures).evaluate(run)
    assert got == want


def test_ranx_make_comparable_changes_the_run_as_ranx_does():
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs, mine = ranx.Run({"q1": {"a": 1.0}, "q3": {"x": 1.0}}), ranx_dropin.Run({"q1": {"a": 1.0}, "q3": {"x": 1.0}})
        ranx.evaluate(ranx.Qrels(qrels), theirs, "ndcg@10", make_comparable=True)
        ranx_dropin.evaluate(ranx_dropin.Qrels(qrels), mine, "ndcg@10", make_comparable=True)
    assert {q: dict(d) for q, d in mine.to_dict().items()} == {q: dict(d) for q, d in theirs.to_dict().items()} \
        == {"q1": {"a": 1.0}, "q2": {}}
