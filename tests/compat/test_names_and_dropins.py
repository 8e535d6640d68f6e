"""Every name people copy from another tool, and the pytrec_eval / ir_measures drop-ins against the originals."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import rankmeter
from rankmeter import MeasureError
from rankmeter.core import resolve_measures

ROOT = Path(__file__).resolve().parent.parent.parent

NAMES = [  # (as typed, the canonical measure(s))
    # trec_eval printed names and -m names
    ("P_10", ["P@10"]), ("ndcg_cut_10", ["nDCG@10"]), ("map_cut_100", ["AP@100"]),
    ("iprec_at_recall_0.50", ["IPrec@0.5"]), ("recall_1000", ["R@1000"]), ("success_5", ["Success@5"]),
    ("map", ["AP"]), ("ndcg_cut.10,20", ["nDCG@10", "nDCG@20"]), ("P.5,10", ["P@5", "P@10"]),
    ("set_P", ["P"]), ("gm_map", ["GMAP"]),
    # ir_measures
    ("nDCG@10", ["nDCG@10"]), ("AP(rel=2)", ["AP(rel=2)"]), ("RBP(p=0.8)", ["RBP"]), ("SetF(beta=1)", ["F"]),
    ("IPrec@0.5", ["IPrec@0.5"]), ("R@1000", ["R@1000"]), ("RR(rel=2)@10", ["RR(rel=2)@10"]), ("BPref", ["Bpref"]),
    ("RPrec", ["Rprec"]), ("MAP", ["AP"]), ("MRR", ["RR"]), ("NDCG", ["nDCG"]), ("Precision", ["P"]),
    ("Recall", ["R"]), ("SetP", ["P"]), ("SetRelP", ["RelativeP"]), ("nDCG(dcg='exp-log2')@10", ["nDCG(gain=exp)@10"]),
    ("IPrec(recall=0.5)", ["IPrec@0.5"]), ("NumRelRet", ["NumRelRet"]), ("infAP", ["infAP"]),
    # ranx
    ("map@100", ["AP@100"]), ("mrr@10", ["RR@10"]), ("ndcg@10", ["nDCG@10"]), ("ndcg_burges@10", ["nDCG(gain=exp)@10"]),
    ("precision@10", ["P@10"]), ("recall@100", ["R@100"]), ("f1@10", ["F1@10"]), ("hit_rate@10", ["HitRate@10"]),
    ("r-precision", ["Rprec"]), ("bpref", ["Bpref"]), ("rbp.95", ["RBP(p=0.95)"]), ("dcg@10", ["DCG@10"]),
    ("dcg_burges@10", ["DCG(gain=exp)@10"]), ("ndcg@10-l2", ["nDCG(rel=2)@10"]),
    # case, several at once
    ("p@10", ["P@10"]), ("NDCG@10", ["nDCG@10"]), ("mrr", ["RR"]), ("Bpref", ["Bpref"]),
    ("AP nDCG@10", ["AP", "nDCG@10"]), ("AP,nDCG@10", ["AP", "nDCG@10"]),
]

QRELS = {f"q{i}": {f"d{j}": int(g) for j, g in enumerate(np.random.default_rng(i).integers(-1, 4, 12))}
         for i in range(8)}
RUN = {q: {f"d{j}": float(s) for j, s in enumerate(np.random.default_rng(100 + i).integers(0, 5, 15))}
       for i, q in enumerate(QRELS)}


@pytest.mark.parametrize("typed, canonical", NAMES)
def test_every_name_resolves_with_its_label_and_values(typed, canonical):
    resolved = resolve_measures(typed)
    assert [str(m) for _, m in resolved] == canonical
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = rankmeter.evaluate(QRELS, RUN, typed)
        want = rankmeter.evaluate(QRELS, RUN, canonical)
    for label, m in resolved:
        assert label in ours.names
        assert ours.values(label).tolist() == want.values(str(m)).tolist()
    if len(canonical) == 1 and " " not in typed and "," not in typed:
        assert ours.names == [typed]  # the label is kept as typed


def test_names_in_the_cli():
    qrels, run = ROOT / "examples" / "qrels.txt", ROOT / "examples" / "run.txt"
    out = subprocess.run([sys.executable, "-m", "rankmeter", "eval", str(qrels), str(run), "-m", "ndcg_cut_10",
                          "-m", "MAP", "-m", "ndcg@10-l2", "--format", "json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    mean = json.loads(out.stdout)["runs"][0]["mean"]
    want = rankmeter.evaluate(str(qrels), str(run), ["nDCG@10", "AP", "nDCG(rel=2)@10"])
    assert mean == {"ndcg_cut_10": want["nDCG@10"], "MAP": want["AP"], "ndcg@10-l2": want["nDCG(rel=2)@10"]}


def test_sets_and_ir_measures_objects():
    ir_measures = pytest.importorskip("ir_measures")
    assert [str(m) for _, m in resolve_measures(ir_measures.nDCG @ 10)] == ["nDCG@10"]
    assert [str(m) for _, m in resolve_measures([ir_measures.AP(rel=2), ir_measures.RR @ 10])] == ["AP(rel=2)", "RR@10"]
    labels = [label for label, _ in resolve_measures({"map", "ndcg_cut"})]
    assert labels[0] == "map" and "ndcg_cut_10" in labels and "ndcg_cut_1000" in labels


@pytest.mark.parametrize("typed, message", [
    ("ndgc@10", "did you mean nDCG@10?"), ("recal@100", "did you mean R@100?"),
    ("yaap", "rankmeter trec_eval -m yaap"), ("Foo@3", "unknown measure 'Foo@3'"),
])
def test_typos_suggest_the_closest_measure_keeping_the_cutoff(typed, message):
    with pytest.raises(MeasureError, match=re.escape(message)):
        resolve_measures(typed)


def test_an_ambiguous_case_is_an_error_listing_the_candidates(monkeypatch):
    from rankmeter.measures import names
    names.spellings()  # the peers' models registered first, so the stand-in below is taken off afterwards
    monkeypatch.setitem(names._SPELLINGS, "stand-in", names.Spellings("stand-in", families={"Ap": "Bpref"}))
    with pytest.raises(MeasureError, match=r"'aP' could mean AP, Bpref"):
        resolve_measures("aP")


def test_names_page_is_generated_from_the_registry():
    from rankmeter.compat.names_table import mapping_table
    page = (ROOT / "docs" / "names.md").read_text()
    block = page[page.index("<!-- BEGIN GENERATED: names -->\n") + 32:page.index("<!-- END GENERATED: names -->")]
    assert block == mapping_table(), "docs/names.md is stale: regenerate its table with mapping_table()"


# ------------------------------------------------------------------ drop-ins against the originals
def _random_case(seed):
    rng = np.random.default_rng(seed)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 3)) for j in rng.choice(30, 12, replace=False)}
             for i in range(10)}
    run = {f"q{i}": {f"d{j}": float(rng.integers(0, 1000)) / 7 for j in rng.choice(30, 20, replace=False)}
           for i in range(12)}
    return qrels, run


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("level", [1, 2])
def test_pytrec_eval_dropin_matches_pytrec_eval(seed, level):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    from rankmeter.compat.pytrec_eval import RelevanceEvaluator
    qrels, run = _random_case(seed)
    measures = {"map", "ndcg_cut", "P", "recall", "recip_rank", "bpref", "Rprec", "num_rel_ret", "success"}
    want = pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=level).evaluate(run)
    got = RelevanceEvaluator(qrels, measures, relevance_level=level).evaluate(run)
    assert set(got) == set(want)
    for q in want:
        assert set(got[q]) == set(want[q])
        for name, value in want[q].items():
            # pytrec_eval rounds nothing; scores are doubles on both sides: equal to 1e-12
            assert got[q][name] == pytest.approx(value, abs=1e-12), (q, name)


@pytest.mark.parametrize("seed", range(4))
def test_ir_measures_dropin_matches_ir_measures(seed):
    ir_measures = pytest.importorskip("ir_measures")
    from rankmeter.compat import ir_measures as ours
    qrels, run = _random_case(seed)
    measures = [ir_measures.AP, ir_measures.nDCG @ 10, ir_measures.P @ 5, ir_measures.RR(rel=2),
                ir_measures.R @ 20, ir_measures.Rprec]
    want = ir_measures.calc_aggregate(measures, qrels, run)
    got = ours.calc_aggregate(measures, qrels, run)
    for m in measures:
        assert got[m] == pytest.approx(want[m], abs=1e-12), m
    per_query = {(r.query_id, str(r.measure)): r.value for r in ir_measures.iter_calc(measures, qrels, run)}
    mine = {(r.query_id, str(r.measure)): r.value for r in ours.iter_calc(measures, qrels, run)}
    assert set(mine) == set(per_query)
    for key, value in per_query.items():
        assert mine[key] == pytest.approx(value, abs=1e-12), key
    tuples = [ir_measures.Qrel(q, d, g) for q, docs in qrels.items() for d, g in docs.items()]
    scored = [ir_measures.ScoredDoc(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    assert ours.calc_aggregate(measures, tuples, scored)[ir_measures.AP] == pytest.approx(want[ir_measures.AP])
