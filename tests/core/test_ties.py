"""ties='average', 'best' and 'worst' against exhaustive enumeration of every order of the tied docs.

Each random query is expanded into one pseudo-query per order of its tied groups (the product of the
groups' permutations), scored as ranked lists (ties='input'); the mean over the orders must equal
ties='average' to 1e-12, and their maximum and minimum must equal ties='best' and ties='worst' for
measures that never fall when a doc's grade rises.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter.errors import MeasureError, ParameterError
from rankmeter.measures.base import REGISTRY

#: one or more measures of every family that averages over tie orders (checked below)
AVERAGED = ["AP", "AP@3", "AP(denom=min)@3", "AP(rel=2)", "GMAP", "RR", "RR@2", "RR(rel=2)", "P", "P@1", "P@3",
            "R", "R@2", "F@3", "F(beta=2)", "F1@2", "RelativeP@3", "Rprec", "RprecMult(mult=0.5)", "Hits@2",
            "Judged@3", "Unjudged@3", "CG@3", "DCG@3", "DCG(gain=exp)@2", "nDCG", "nDCG@2",
            "nDCG(gain=exp, ideal=run)@3", "nDCG(discount=jk)@3", "RBP", "RBP(p=0.5, gain=graded)",
            "RBP(gain=trec_eval)", "RBP_resid", "RBP_resid(gain=trec_eval)", "Success", "Success@2",
            "NumQ", "NumRet", "NumRel", "NumRelRet", "NumNonrelJudgedRet"]
#: measures that never fall when a doc's grade rises: best/worst orders give their max/min
MONOTONE = ["AP", "AP@3", "RR", "RR@2", "P@1", "P@3", "R@2", "nDCG@2", "DCG(gain=exp)@2", "RBP", "Success@2",
            "Bpref", "ERR@3", "IPrec@0.5"]  # not infAP: where unjudged docs stand changes it both ways


def test_every_averaging_family_is_enumerated():
    able = {name for name, f in REGISTRY.items() if f.tie_average is not None}
    covered = {rankmeter.parse_measure(m).family.name for m in AVERAGED}
    assert able == covered


@st.composite
def _case(draw):
    nq = draw(st.integers(1, 2))
    qrels, run = {}, {}
    for q in range(nq):
        n = draw(st.integers(1, 6))
        scores = draw(st.lists(st.sampled_from([1.0, 2.0, 3.0]), min_size=n, max_size=n))
        grades = draw(st.lists(st.sampled_from([None, 0, 1, 2, -1]), min_size=n, max_size=n))
        docs = [f"d{i}" for i in range(n)]
        qrels[f"q{q}"] = {d: g for d, g in zip(docs, grades) if g is not None}
        qrels[f"q{q}"][f"x{q}"] = draw(st.sampled_from([0, 1, 2]))  # judged, never retrieved
        run[f"q{q}"] = dict(zip(docs, scores))
    return qrels, run


def _values(res) -> dict:
    """{measure: {query: value}} of a Results."""
    out: dict = {}
    for row in res.to_dict(per_query=True)["per_query"]:
        for m, v in row.items():
            if m != "query":
                out.setdefault(m, {})[row["query"]] = v
    return out


def _orders(ranking: dict[str, float]):
    """Every order of the docs that keeps score descending (each tied group permuted)."""
    groups = [[d for d, _ in grp] for _, grp in itertools.groupby(sorted(ranking.items(), key=lambda t: -t[1]),
                                                                   key=lambda t: t[1])]
    for choice in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [d for g in choice for d in g]


def _enumerated(qrels, run, measures):
    """{query: {measure: [value of every order]}} by scoring each order as its own ranked list."""
    pseudo_qrels, pseudo_run, owner = {}, {}, {}
    for q, ranking in run.items():
        for i, order in enumerate(_orders(ranking)):
            name = f"{q}#{i}"
            pseudo_qrels[name], pseudo_run[name], owner[name] = qrels[q], order, q
    res = _values(rankmeter.evaluate(pseudo_qrels, pseudo_run, measures, ties="input"))
    out: dict = {}
    for name, q in owner.items():
        for m in measures:
            out.setdefault(q, {}).setdefault(m, []).append(res[m][name])
    return out


@settings(max_examples=60, deadline=None)
@given(_case())
def test_average_equals_the_mean_over_every_order(case):
    qrels, run = case
    want = _enumerated(qrels, run, AVERAGED)
    got = _values(rankmeter.evaluate(qrels, run, AVERAGED, ties="average"))
    for q in run:
        for m in AVERAGED:
            values = want[q][m]
            assert got[m][q] == pytest.approx(math.fsum(values) / len(values), abs=1e-12), (m, q)


@settings(max_examples=40, deadline=None)
@given(_case())
def test_best_and_worst_are_the_extremes_over_every_order(case):
    qrels, run = case
    want = _enumerated(qrels, run, MONOTONE)
    best = _values(rankmeter.evaluate(qrels, run, MONOTONE, ties="best"))
    worst = _values(rankmeter.evaluate(qrels, run, MONOTONE, ties="worst"))
    for q in run:
        for m in MONOTONE:
            assert best[m][q] == pytest.approx(max(want[q][m]), abs=1e-12), (m, q)
            assert worst[m][q] == pytest.approx(min(want[q][m]), abs=1e-12), (m, q)


def test_worked_example():
    """a, b, c tied (a, c relevant), then d: AP over the three orders of {rel, rel, non} is
    (1 + (1 + 2/3) / 2 + (1/2 + 2/3) / 2) / 3; RR is 2/3 * 1 + 1/3 * 1/2."""
    qrels = {"q": {"a": 1, "b": 0, "c": 1, "d": 0}}
    run = {"q": {"a": 1.0, "b": 1.0, "c": 1.0, "d": 0.5}}
    got = rankmeter.evaluate(qrels, run, ["AP", "RR", "P@1"], ties="average").mean
    assert got["AP"] == pytest.approx((1 + (1 + 2 / 3) / 2 + (1 / 2 + 2 / 3) / 2) / 3)
    assert got["RR"] == pytest.approx(2 / 3 + 1 / 6)
    assert got["P@1"] == pytest.approx(2 / 3)


def test_unsupported_measures_and_options_are_refused():
    qrels, run = {"q": {"a": 1}}, {"q": {"a": 1.0, "b": 1.0}}
    with pytest.raises(MeasureError, match="no closed form .* Bpref"):
        rankmeter.evaluate(qrels, run, ["AP", "Bpref"], ties="average")
    with pytest.raises(MeasureError, match="denom=hits"):
        rankmeter.evaluate(qrels, run, ["AP(denom=hits)@2"], ties="average")
    with pytest.raises(MeasureError, match="ideal=topk"):
        rankmeter.evaluate(qrels, run, ["nDCG(ideal=topk)@2"], ties="average")
    with pytest.raises(ParameterError, match="max_docs"):
        rankmeter.evaluate(qrels, run, ["AP"], ties="average", max_docs=1)


def test_without_ties_every_policy_is_trec_eval():
    rng = np.random.default_rng(3)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 3)) for j in range(20)} for i in range(4)}
    run = {q: {f"d{j}": float(s) for j, s in enumerate(rng.permutation(30))} for q in qrels}
    base = rankmeter.evaluate(qrels, run, ["AP", "nDCG@10", "RR", "P@5"]).mean
    for ties in ("average", "best", "worst"):
        assert rankmeter.evaluate(qrels, run, ["AP", "nDCG@10", "RR", "P@5"], ties=ties).mean == \
            pytest.approx(base, abs=1e-12)
