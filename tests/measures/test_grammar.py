"""The measure grammar: parsing, printing, round trips and helpful errors."""
from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter import MeasureError, parse_measure
from rankmeter.core import resolve_measures
from rankmeter.measures import REGISTRY, Measure, format_measure
from rankmeter.measures.base import Param


@pytest.mark.parametrize("text, canonical", [
    ("AP", "AP"),
    ("AP@100", "AP@100"),
    ("AP(rel=2)@100", "AP(rel=2)@100"),
    ("  nDCG ( gain = exp , discount=jk )  @ 10 ", "nDCG(gain=exp, discount=jk)@10"),
    ("nDCG(discount=jk, gain=exp)@10", "nDCG(gain=exp, discount=jk)@10"),   # declaration order
    ("nDCG(gain={2: 3, 1: 1})@5", "nDCG(gain={1: 1, 2: 3})@5"),
    ("nDCG(gain=linear)@5", "nDCG@5"),                                      # defaults are dropped
    ("RBP(p=0.8)", "RBP"),
    ("RBP(p=0.95, gain=graded)", "RBP(p=0.95, gain=graded)"),
    ("IPrec@0.5", "IPrec@0.5"),
    ("IPrecAvg(recalls=[0.25, 0.5, 0.75])", "IPrecAvg(recalls=[0.25, 0.5, 0.75])"),
    ("P(judged_only=true)@5", "P(judged_only=true)@5"),
    ('ERR(p="0.5")@10', None),
])
def test_parse_and_print(text, canonical):
    if canonical is None:
        with pytest.raises(MeasureError):
            parse_measure(text)
        return
    m = parse_measure(text)
    assert str(m) == canonical
    assert parse_measure(str(m)) == m


def test_family_objects_build_the_same_measures():
    from rankmeter.measures import AP, nDCG
    assert nDCG(gain="exp") @ 10 == parse_measure("nDCG(gain=exp)@10")
    assert AP @ 5 == parse_measure("AP@5")
    assert (AP @ 5)(rel=2) == parse_measure("AP(rel=2)@5")


def test_measures_are_hashable_values():
    a, b = parse_measure("nDCG@10"), parse_measure("nDCG( )@10")
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1


@pytest.mark.parametrize("text, fragment", [
    ("nDGC@10", "did you mean nDCG"),
    ("ndcg@10", "did you mean nDCG"),
    ("AP(denom=max)", "expected one of R, min, hits"),
    ("AP(demon=R)", "did you mean denom"),
    ("nDCG(gain=cubic)", "linear, exp"),
    ("P@0", "positive integer"),
    ("P@2.5", "positive integer"),
    ("IPrec", "needs a cutoff"),
    ("NumRet@5", "takes no cutoff"),
    ("AP(rel=2", "expected"),
    ("AP@10 extra", "expected end"),
    ("AP(rel=1, rel=2)", "given twice"),
    ("AP$", "unexpected '$'"),
])
def test_errors_say_what_was_expected(text, fragment):
    with pytest.raises(MeasureError) as info:
        parse_measure(text)
    assert fragment in str(info.value)


def test_parser_does_not_evaluate_code():
    with pytest.raises(MeasureError):
        parse_measure("AP(rel=__import__('os').system('echo hi'))")


def test_trec_names_map_onto_the_same_objects():
    pairs = dict(resolve_measures(["map", "ndcg_cut.10", "P.5", "recip_rank", "Rprec", "bpref", "set_P"]))
    assert pairs["map"] == parse_measure("AP")
    assert pairs["ndcg_cut.10"] == parse_measure("nDCG@10")
    assert pairs["P.5"] == parse_measure("P@5")
    assert pairs["recip_rank"] == parse_measure("RR")
    assert pairs["bpref"] == parse_measure("Bpref")
    assert pairs["set_P"] == parse_measure("P")
    labels = [label for label, _ in resolve_measures("P.5,10")]
    assert labels == ["P_5", "P_10"]


# ---------------------------------------------------------------- round-trip property

def _bounds(p):
    """(minimum, maximum, above, below) of a declaration: its interval's closed and open ends, None where unbounded."""
    finite = lambda x: x if abs(x) != float("inf") else None
    low, high = finite(p.low), finite(p.high)
    return ((None if p.low_open else low), (None if p.high_open else high),
            (low if p.low_open else None), (high if p.high_open else None))


def _values(param: Param):
    if param.kind == "integer":
        return st.integers(-3, 20)
    if param.kind == "grade":  # an integer, or a fraction (thresholds on real grades)
        return st.one_of(st.integers(-3, 20), st.floats(-5.0, 5.0, allow_nan=False, allow_infinity=False))
    if param.kind == "number":
        lo = _bounds(param)[0] if _bounds(param)[0] is not None else -5.0
        hi = _bounds(param)[1] if _bounds(param)[1] is not None else 5.0
        return st.floats(lo, hi, allow_nan=False, allow_infinity=False)
    if param.kind == "bool":
        return st.booleans()
    if param.kind == "choice":
        return st.sampled_from(param.choices)
    if param.kind == "gains":
        return st.dictionaries(st.integers(-2, 6), st.floats(-10, 10, allow_nan=False), max_size=4)
    if param.kind == "choice_or_gains":
        return st.one_of(st.sampled_from(param.choices),
                         st.dictionaries(st.integers(-2, 6), st.floats(-10, 10, allow_nan=False), max_size=4))
    if param.kind == "numbers":
        return st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=4)
    raise AssertionError(param.kind)


@st.composite
def measures(draw):
    family = REGISTRY[draw(st.sampled_from(sorted(REGISTRY)))]
    params = {}
    for p in family.all_params:
        if draw(st.booleans()):
            params[p.name] = draw(_values(p))
    cutoff = None
    if family.cutoff == "required" or (family.cutoff == "optional" and draw(st.booleans())):
        cutoff = draw(st.integers(1, 1000)) if family.cutoff_kind is int else draw(st.floats(0, 1, allow_nan=False))
    try:
        return Measure.of(family.name, params, cutoff)
    except MeasureError:
        return Measure.of(family.name, {}, cutoff)


@settings(max_examples=400, deadline=None)
@given(measures())
def test_print_then_parse_round_trips(m):
    text = format_measure(m)
    assert parse_measure(text) == m
    assert format_measure(parse_measure(text)) == text


@pytest.mark.parametrize("text, message", [
    ("P@" + "9" * 5000, "has 5000 digits"),
    ("P@1e3", "a positive integer written as a whole number"),
    ("P@\u0661\u0660", "unexpected"),                       # Arabic-Indic digits are not cutoffs
    ("nDCG(gain={1:1e400})@5", "not a finite number"),
    ("nDCG(gain={1:1e300})@5", "finite gains between"),
    ("RBP(p=1)", "a number in [0, 1)"),
    ("ERR(max_grade=0)", "an integer in [1, inf)"),
])
def test_hostile_numbers_are_refused_with_the_valid_range(text, message):
    with pytest.raises(MeasureError, match=re.escape(message)):
        parse_measure(text)


def test_huge_python_numbers_are_refused_not_crashed():
    from rankmeter.measures import Measure
    for cutoff in (10 ** 5000, float("nan"), float("inf")):
        with pytest.raises(MeasureError):
            Measure.of("P", cutoff=cutoff)
    with pytest.raises(MeasureError):
        Measure.of("RBP", {"p": 10 ** 400})
