"""C/W/L measures against cwl_eval (the ``cwl-eval`` package), per query.

Through ir_measures' cwl provider (the spelling ``str(measure)`` of
ir_measures evaluates here unchanged) for the four quantities it returns, and
through cwl_eval's own ``Ranking`` and metric classes for the residuals
(ir_measures does not report them). Hand-worked values from the papers'
definitions are on docs/measures/cwl.md (run as doctests).
"""
from __future__ import annotations

import logging
import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter.measures import parse_measure

from optional_packages import installed, optional  # noqa: E402  (tests/ is on sys.path: tests/conftest.py)

ir_measures = optional("ir_measures")
needs_cwl = pytest.mark.skipif(not installed("cwl"), reason="needs cwl, not installed (pip install cwl-eval)")
logging.getLogger("ir_measures.cwl_eval").setLevel(logging.ERROR)

DOCS = [f"d{i}" for i in range(16)]
MEASURES = ["SDCG(max_rel=3)@5", "SDCG(max_rel=2)@10", "INST(max_rel=3)", "INST(T=2.5,max_rel=3)",
            "INSQ(max_rel=3)", "INSQ(T=3,min_rel=1,max_rel=3)", "BPM(T=1,max_rel=3)@5", "BPM(T=2,max_rel=2)@10",
            "NERR8(max_rel=3)@5", "NERR9(max_rel=3)@3", "NERR10(max_rel=3)", "NERR10(p=0.5,max_rel=3)",
            "NERR11(max_rel=3)", "NERR11(T=2,min_rel=1,max_rel=3)", "RBP(p=0.8,rel=1)", "RBP(p=0.5,rel=2)"]
QUANTITIES = {"ERG": "value", "EU": "expected_total_utility", "EC": "expected_total_cost", "ED": "expected_items"}


@st.composite
def datasets(draw):
    qrels, run = {}, {}
    for q in draw(st.lists(st.sampled_from(["1", "2", "3"]), min_size=1, max_size=3, unique=True)):
        qrels[q] = draw(st.dictionaries(st.sampled_from(DOCS), st.integers(-1, 4), min_size=1, max_size=10))
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=14, unique=True))
        run[q] = {d: float(len(docs) - i) for i, d in enumerate(docs)}  # distinct scores: one order for all
    return qrels, run


def _with(name: str, **params) -> str:
    return str(parse_measure(name).with_params(**params))


@needs_cwl
@pytest.mark.parametrize("name", MEASURES)
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=datasets())
def test_quantities_match_cwl_eval_through_ir_measures(name, data):
    qrels, run = data
    want = {}
    for metric in ir_measures.cwl_eval.iter_calc([ir_measures.parse_measure(name)], qrels, run):
        want[metric.query_id] = metric
    names = {q: _with(name, quantity=q) for q in QUANTITIES}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rankmeter.evaluate(qrels, run, list(names.values()))
    assert str(parse_measure(name)) == names["ERG"]  # ir_measures' spelling names the same measure
    for quantity, field in QUANTITIES.items():
        got = dict(zip(res.queries, res.values(names[quantity]).tolist()))
        for q, metric in want.items():
            expected = getattr(metric, field)
            assert math.isclose(got[q], expected, rel_tol=1e-9, abs_tol=1e-12), (names[quantity], q, got[q], expected)


def _cwl_metric(name: str):
    from cwl.ruler.cwl_ruler import (BPMCWLMetric, INSQCWLMetric, INSTCWLMetric, NDCGCWLMetric, NERReq8CWLMetric,
                                     NERReq9CWLMetric, NERReq10CWLMetric, NERReq11CWLMetric, RBPCWLMetric)
    m = parse_measure(name)
    build = {"SDCG": lambda: NDCGCWLMetric(m.cutoff), "INST": lambda: INSTCWLMetric(m.get("T")),
             "INSQ": lambda: INSQCWLMetric(m.get("T")), "BPM": lambda: BPMCWLMetric(m.get("T"), m.cutoff),
             "NERR8": lambda: NERReq8CWLMetric(m.cutoff), "NERR9": lambda: NERReq9CWLMetric(m.cutoff),
             "NERR10": lambda: NERReq10CWLMetric(m.get("p")), "NERR11": lambda: NERReq11CWLMetric(m.get("T")),
             "RBP": lambda: RBPCWLMetric(m.get("p"))}
    return m, build[m.name]()


@needs_cwl
@pytest.mark.parametrize("name", [n for n in MEASURES if not n.startswith("RBP")] + ["RBP(p=0.8,rel=1)"])
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=datasets())
def test_residuals_match_cwl_eval(name, data):
    """cwl_eval's residuals: unjudged docs (absent, or a negative grade) and the padding at the best gain."""
    from cwl.ruler.ranking import Ranking

    qrels, run = data
    m, _ = _cwl_metric(name)
    names = {q: _with(name, quantity=q, residual=True) if m.name != "RBP" else _with("RBP_resid" + name[3:], quantity=q)
             for q in QUANTITIES}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rankmeter.evaluate(qrels, run, list(names.values()))
    for q in res.queries:
        gains = []
        for d in run[q]:
            grade = qrels[q].get(d)
            if grade is None or grade < 0:
                gains.append(np.nan)
            elif m.name == "RBP":
                gains.append(float(grade >= m.get("rel")))
            else:
                low, high = m.get("min_rel"), m.get("max_rel")
                gains.append((min(max(grade, low), high) - low) / (high - low))
        _, metric = _cwl_metric(name)
        metric.residuals = True
        metric.measure(Ranking(q, gains, [np.nan] * len(gains), max_n=1000))
        expected = {"ERG": metric.residual_expected_utility, "EU": metric.residual_expected_total_utility,
                    "EC": metric.residual_expected_total_cost, "ED": metric.residual_expected_items}
        for quantity, value in expected.items():
            got = float(res.values(names[quantity])[res.queries.index(q)])
            assert math.isclose(got, value, rel_tol=1e-9, abs_tol=1e-9), (names[quantity], q, got, value)


# ------------------------------------------------------------------ hand-worked (the papers' definitions)
def test_hand_worked_values():
    """Gains 1, 0, 1/2 (grades 2, 0, 1 over max_rel 2) at ranks 1..3."""
    qrels = {"q": {"a": 2, "b": 0, "c": 1}}
    run = {"q": ["a", "b", "c"]}
    names = ["SDCG(max_rel=2)@2", "INSQ(max_rel=2)", "BPM(T=1, max_rel=2)@3", "NERR8(max_rel=2)@3",
             "NERR9(max_rel=2)@3", "RBP(p=0.5, quantity=ED)"]
    got = rankmeter.evaluate(qrels, run, names).mean
    # SDCG@2: weights 1 : 1/log2(3), normalised
    assert math.isclose(got[names[0]], 1 / (1 + 1 / math.log2(3)), rel_tol=1e-12)
    # INSQ(T=1): C_i = ((i+1)/(i+2))^2, S_i = (2/(i+1))^2, W_i = S_i / sum S over 1000 ranks
    s = [(2 / (i + 1)) ** 2 for i in range(1, 1001)]
    assert math.isclose(got[names[1]], (s[0] * 1 + s[2] * 0.5) / sum(s), rel_tol=1e-9)
    # BPM(T=1)@3: gain 1 reached at rank 1, so the user stops there
    assert got[names[2]] == 1.0
    # NERR8@3: C_1 = 1 - 1 = 0: all weight on rank 1
    assert got[names[3]] == 1.0 and got[names[4]] == 1.0
    # RBP's expected depth over 1000 ranks: (1 - p^1000) / (1 - p)
    assert math.isclose(got[names[5]], 2.0, rel_tol=1e-12)


def test_max_rel_defaults_to_the_qrels_top_grade_and_a_flat_range_is_a_step():
    qrels = {"q1": {"a": 3}, "q2": {"b": 1, "c": 3}}
    run = {"q2": ["b", "c"]}
    r = rankmeter.evaluate(qrels, run, ["INST", "INST(max_rel=3)", "NERR8(min_rel=3, max_rel=3)@2",
                                        "NERR8(min_rel=2, max_rel=1)@2"])
    assert r.mean["INST"] == r.mean["INST(max_rel=3)"]  # the top grade of the whole qrels
    # max_rel <= min_rel leaves nothing to scale over: gain 1 from max_rel up. b (1) gains 0 and c (3) 1
    # under max_rel=3, so NERR8@2 puts weight 1/2 on each rank: 0.5; under max_rel=1 both gain 1: 1.
    assert r.mean["NERR8(min_rel=3, max_rel=3)@2"] == 0.5
    assert r.mean["NERR8(min_rel=2, max_rel=1)@2"] == 1.0


def test_rbp_max_grade_per_query_fixed_or_qrels_wide():
    """q2's top grade is 1, the whole qrels' is 3: gain=graded divides b's grade 1 by 1, 3 or 3."""
    qrels = {"q1": {"a": 3}, "q2": {"b": 1, "c": 0}}
    run = {"q1": ["a"], "q2": ["b", "c"]}
    names = ["RBP(p=0.5, gain=graded)", "RBP(p=0.5, gain=graded, max_grade=3)",
             "RBP(p=0.5, gain=graded, max_grade=qrels)", "RBP(p=0.5, gain=graded, max_grade=2)"]
    r = rankmeter.evaluate(qrels, run, names)
    q2 = {n: float(r.values(n)[r.queries.index("q2")]) for n in names}
    assert q2 == {names[0]: 0.5, names[1]: 0.5 / 3, names[2]: 0.5 / 3, names[3]: 0.25}
    # a grade above max_grade gains 1, not more: q1's a (3) under max_grade=2
    assert float(r.values(names[3])[r.queries.index("q1")]) == 0.5
    # the qrels-wide grade is the whole qrels' even when the run holds q2 only
    alone = rankmeter.evaluate(qrels, {"q2": run["q2"]}, names[2], queries="both")
    assert float(alone.values(names[2])[alone.queries.index("q2")]) == 0.5 / 3
