"""The worked examples S1-S8 of MEASURES.md section 6, through ``rankmeter.evaluate``.

Each example is built as a ranked run ``{q: [doc, ...]}`` and again as a
score dict ``{q: {doc: score}}`` (distinct scores giving the same order); the
expected values are the 4-decimal figures of the table (they are checked
there against hand computation; the seeds' wrong prints are listed in its
errata and not reproduced here).
"""
from __future__ import annotations

import itertools
import math

import pytest

import rankmeter

FORMS = ["ranked_list", "score_dict"]


def _run(ranked: dict[str, list[str]], form: str):
    if form == "ranked_list":
        return ranked
    return {q: {doc: float(len(docs) - i) for i, doc in enumerate(docs)} for q, docs in ranked.items()}


def _per_query(qrels, ranked, form, measure: str) -> dict[str, float]:
    res = rankmeter.evaluate(qrels, _run(ranked, form), [measure])
    return dict(zip(res.queries, res.values(measure).tolist()))


def _mean(qrels, ranked, form, measure: str) -> float:
    return rankmeter.evaluate(qrels, _run(ranked, form), [measure])[measure]


def _graded(grades: list[int], extra: dict[str, int] | None = None):
    """One query ``q``: docs d1..dn retrieved in order with ``grades``, plus judged docs not retrieved."""
    docs = [f"d{i}" for i in range(1, len(grades) + 1)]
    qrels = {"q": dict(zip(docs, grades)) | (extra or {})}
    return qrels, {"q": docs}


def four(x: float) -> str:
    return f"{x:.4f}"


@pytest.mark.parametrize("form", FORMS)
def test_s1_map(form):
    # topic 1: 4 relevant, retrieved at ranks 1, 2, 4, 7; topic 2: 5 relevant, retrieved at ranks 1, 3, 5
    ranked, qrels = {}, {}
    for topic, hits, num_rel in (("1", [1, 2, 4, 7], 4), ("2", [1, 3, 5], 5)):
        docs = [f"{topic}-{i}" for i in range(1, 11)]
        ranked[topic] = docs
        qrels[topic] = {doc: int(i in hits) for i, doc in enumerate(docs, start=1)}
        qrels[topic].update({f"{topic}-unretrieved-{j}": 1 for j in range(num_rel - len(hits))})
    ap = _per_query(qrels, ranked, form, "AP")
    assert (four(ap["1"]), four(ap["2"])) == ("0.8304", "0.4533")
    assert four(_mean(qrels, ranked, form, "AP")) == "0.6418"
    assert four(_mean(qrels, ranked, form, "map")) == "0.6418"


@pytest.mark.parametrize("form", FORMS)
def test_s2_mrr(form):
    ranked = {"a": ["x", "y", "rel"], "b": ["x", "rel", "y"], "c": ["rel", "x", "y"]}
    qrels = {q: {"rel": 1, "x": 0, "y": 0} for q in ranked}
    assert four(_mean(qrels, ranked, form, "RR")) == "0.6111"


@pytest.mark.parametrize("form", FORMS)
def test_s3_graded_ndcg(form):
    # top-5 grades 5,3,2,1,2; the query's 7 judged grades 5,3,2,1,2,4,0
    qrels, ranked = _graded([5, 3, 2, 1, 2], {"d6": 4, "d7": 0})
    assert four(_mean(qrels, ranked, form, "CG@5")) == "13.0000"
    assert four(_mean(qrels, ranked, form, "DCG(gain=exp)@5")) == "38.5077"
    # the ideal (qrels) ordering, scored as a run: grades 5,4,3,2,2
    ideal = {"q": ["d1", "d6", "d2", "d3", "d5", "d4", "d7"]}
    assert four(_mean(qrels, ideal, form, "DCG(gain=exp)@5")) == "46.4165"
    assert four(_mean(qrels, ranked, form, "nDCG(gain=exp)@5")) == "0.8296"


@pytest.mark.parametrize("form", FORMS)
def test_s3b_ndcg_variants(form):
    qrels, ranked = _graded([5, 3, 2, 1, 2], {"d6": 4, "d7": 0})
    assert four(_mean(qrels, ranked, form, "nDCG@5")) == "0.8535"
    assert four(_mean(qrels, ranked, form, "nDCG(gain=exp,ideal=topk)@5")) == "0.9977"
    assert four(_mean(qrels, ranked, form, "nDCG(gain=exp,ideal=run)@5")) == "0.9977"
    assert four(_mean(qrels, ranked, form, "DCG(gain=exp,discount=jk)@5")) == "41.6848"


S4_QRELS = {"1": {"1": 1, "3": 1, "5": 1}, "2": {"2": 1, "4": 1, "6": 1}, "3": {"3": 1, "5": 1, "7": 1}}
S4_RANKED = {"1": ["3", "4", "2", "1", "5"], "2": ["3", "2", "4", "5", "1"], "3": ["7", "6", "5", "4", "3"]}


@pytest.mark.parametrize("form", FORMS)
def test_s4_seed_code_map(form):
    ap = _per_query(S4_QRELS, S4_RANKED, form, "AP")
    assert [four(ap[q]) for q in "123"] == ["0.7000", "0.3889", "0.7556"]
    assert four(_mean(S4_QRELS, S4_RANKED, form, "AP")) == "0.6148"  # the seed prints 0.5


@pytest.mark.parametrize("form", FORMS)
def test_s4b_seed_code_rr(form):
    qrels = {"1": S4_QRELS["1"]}
    assert four(_mean(qrels, {"1": S4_RANKED["1"]}, form, "RR")) == "1.0000"  # the seed prints 0.3333


@pytest.mark.parametrize("form", FORMS)
def test_s4c_seed_code_ndcg(form):
    qrels = {"1": S4_QRELS["1"]}
    assert four(_mean(qrels, {"1": ["1", "2", "3", "4", "5"]}, form, "nDCG@5")) == "0.8855"  # seed: 0.6244


@pytest.mark.parametrize("form", FORMS)
def test_s5_precision_recall(form):
    # docs A..G, relevant A, C, F, G; the top 5 holds A, C, G
    qrels = {"q": {d: int(d in "ACFG") for d in "ABCDEFG"}}
    ranked = {"q": ["A", "B", "C", "D", "G", "E", "F"]}
    assert four(_mean(qrels, ranked, form, "P@5")) == "0.6000"
    assert four(_mean(qrels, ranked, form, "R@5")) == "0.7500"


@pytest.mark.parametrize("form", FORMS)
def test_s5b_ap_over_hits(form):
    # Q1 relevant at ranks 1, 3, 4 of 5; Q2 at ranks 2, 4, 5 of 5
    ranked = {q: [f"{q}d{i}" for i in range(1, 6)] for q in ("Q1", "Q2")}
    hits = {"Q1": (1, 3, 4), "Q2": (2, 4, 5)}
    qrels = {q: {f"{q}d{i}": int(i in hits[q]) for i in range(1, 6)} for q in ranked}
    ap = _per_query(qrels, ranked, form, "AP(denom=hits)@5")
    assert (four(ap["Q1"]), four(ap["Q2"])) == ("0.8056", "0.5333")


@pytest.mark.parametrize("form", FORMS)
def test_s6_ap(form):
    qrels = {"q": {"b": 1, "d": 1}}
    assert four(_mean(qrels, {"q": ["e", "b", "a", "d", "c"]}, form, "AP")) == "0.5000"


@pytest.mark.parametrize("form", FORMS)
def test_s7_ndcg_large_grades(form):
    # top-5 grades 7, 2, 5, 10, 1, the ideal from the same 5 docs
    qrels, ranked = _graded([7, 2, 5, 10, 1])
    assert four(_mean(qrels, ranked, form, "nDCG@5")) == "0.8509"
    assert four(_mean(qrels, ranked, form, "DCG(gain=exp)@5")) == "585.3618"
    ideal = {"q": ["d4", "d1", "d3", "d2", "d5"]}
    assert four(_mean(qrels, ideal, form, "DCG(gain=exp)@5")) == "1120.3070"
    assert four(_mean(qrels, ranked, form, "nDCG(gain=exp)@5")) == "0.5225"  # the seed rounds to 0.53
    assert four(_mean(qrels, ranked, form, "nDCG(gain=exp,ideal=topk)@5")) == "0.5225"


@pytest.mark.parametrize("form", FORMS)
def test_s8_topk_ideal_order(form):
    # top-5 grades {1, 0, 2, 2, 1}; a grade-3 doc the run missed must not enter the ideal=topk ideal
    qrels, ranked = _graded([1, 0, 2, 2, 1], {"d6": 3})
    docs = ranked["q"]
    # every ordering of the five retrieved docs as its own query: the best DCG@5 is the ideal
    perms = {f"p{n:03d}": list(p) for n, p in enumerate(itertools.permutations(docs))}
    perm_qrels = {q: qrels["q"] for q in perms}
    dcg = _per_query(perm_qrels, perms, form, "DCG@5")
    best = max(dcg.values())
    grade = qrels["q"]
    best_orders = {tuple(grade[d] for d in perms[q]) for q, v in dcg.items() if math.isclose(v, best)}
    assert best_orders == {(2, 2, 1, 1, 0)}
    # nDCG(ideal=topk) divides by exactly that ideal, which the qrels ideal (with the 3) exceeds
    found = _mean(qrels, ranked, form, "DCG@5")
    assert math.isclose(_mean(qrels, ranked, form, "nDCG(ideal=topk)@5"), found / best, rel_tol=1e-12)
    by_hand = (1 + 2 / math.log2(4) + 2 / math.log2(5) + 1 / math.log2(6)) / \
        (2 + 2 / math.log2(3) + 1 / math.log2(4) + 1 / math.log2(5))
    assert four(_mean(qrels, ranked, form, "nDCG(ideal=topk)@5")) == four(by_hand) == "0.7748"
    assert _mean(qrels, ranked, form, "nDCG@5") < found / best
