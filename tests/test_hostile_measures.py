"""Measure parameters out of range, and values that cannot be computed (issue 22).

Every parameter declared in the registry is fed values outside its declared
range (and NaN, infinities) and must be refused with a MeasureError that says
the valid range, never scored; values inside the range must give numbers.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import rankmeter
from rankmeter.errors import MeasureError
from rankmeter.measures.base import REGISTRY, Measure

QRELS = {"q1": {"d1": 3, "d2": 0, "d3": 1, "d4": 2}, "q2": {"d1": 1, "d5": 0}, "q3": {"d9": 0}}
RUN = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0, "d7": 0.5}, "q2": {"d5": 2.0, "d1": 1.0}, "q3": {"d9": 1.0}}
_NUMERIC = ("int", "float", "grade", "floats")


def _with_cutoff(family, text: str) -> str:
    if family.cutoff != "required":
        return text
    return text + ("@0.5" if family.cutoff_kind is float else "@3")


def _declared():
    return [(family, param) for family in REGISTRY.values() for param in family.all_params
            if param.kind in _NUMERIC]


def _bounded():
    return [(f, p) for f, p in _declared()
            if any(b is not None for b in (p.minimum, p.maximum, p.above, p.below))]


def _spelled(value, kind: str) -> str:
    if kind == "floats":
        return "[" + ", ".join(_spelled(v, "float") for v in value) + "]"
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return repr(value)


@st.composite
def _out_of_range(draw):
    """(family, param, a value outside the param's declared range)."""
    family, param = draw(st.sampled_from(_declared()))
    integer = param.kind == "int"
    step = draw(st.integers(1, 10 ** 6)) if integer else draw(st.floats(1e-9, 1e12))
    def under(bound):  # below the bound however large it is (1e150 - 1 == 1e150 in floating point)
        return bound - step if integer else min(bound - step, math.nextafter(bound, -math.inf))

    def over(bound):
        return bound + step if integer else max(bound + step, math.nextafter(bound, math.inf))

    choices = [math.nan, math.inf, -math.inf]
    if param.minimum is not None:
        choices.append(under(param.minimum))
    if param.maximum is not None:
        choices.append(over(param.maximum))
    if param.above is not None:
        choices += [param.above, under(param.above)]
    if param.below is not None:
        choices += [param.below, over(param.below)]
    if integer:
        choices.append(draw(st.floats(0.1, 0.9)) + (param.minimum or 0))  # not an integer
    value = draw(st.sampled_from(choices))
    if param.kind == "floats":
        value = [0.5, value]
    return family, param, value


@settings(max_examples=300, derandomize=True, deadline=None)
@given(_out_of_range())
def test_every_declared_parameter_refuses_values_outside_its_range(case):
    family, param, value = case
    with pytest.raises(MeasureError) as caught:
        Measure.of(family.name, {param.name: value}, 0.5 if family.cutoff_kind is float else 3
                   if family.cutoff == "required" else None)
    message = str(caught.value)
    assert family.name in message and param.name in message
    assert param.range_text() in message  # the valid range, in words
    # the same through the grammar and the whole evaluation: refused, never a value
    text = _with_cutoff(family, f"{family.name}({param.name}={_spelled(value, param.kind)})")
    with pytest.raises(MeasureError):
        rankmeter.evaluate(QRELS, RUN, [text])


def _inside(param, fraction: float):
    """A value inside the declared range, ``fraction`` of the way across it (ends included where allowed)."""
    low = param.minimum if param.minimum is not None else param.above
    high = param.maximum if param.maximum is not None else param.below
    if low is None and high is None:
        value = (fraction - 0.5) * 20
    elif high is None:
        value = low + fraction * 10
    elif low is None:
        value = high - fraction * 10
    else:
        value = low + fraction * (high - low)
    if param.above is not None and value <= param.above:
        value = param.above + 1e-6
    if param.below is not None and value >= param.below:
        value = param.below - 1e-6
    if param.kind in ("int",):
        value = int(math.ceil(value)) if param.minimum is not None or param.above is not None else int(value)
        if param.maximum is not None:
            value = min(value, int(param.maximum))
    return [value] if param.kind == "floats" else value


@pytest.mark.parametrize("fraction", [0.0, 0.37, 1.0])
@pytest.mark.parametrize("family, param", _declared(), ids=lambda x: getattr(x, "name", x))
def test_every_value_inside_the_range_gives_numbers(family, param, fraction):
    """In range: a number per query, or a query marked undefined, and a finite mean; never inf or a bare NaN."""
    if param.name in ("rel", "min_rel", "max_rel", "max_grade"):
        value = {"rel": 1, "min_rel": 0, "max_rel": 3, "max_grade": 3}[param.name] + round(fraction)
    else:
        value = _inside(param, fraction)
    text = _with_cutoff(family, f"{family.name}({param.name}={_spelled(value, param.kind)})")
    try:
        results = rankmeter.evaluate(QRELS, RUN, [text])
    except MeasureError as exc:  # a combination refused with a reason is fine; a value out of thin air is not
        assert "invalid" not in str(exc) or param.name not in str(exc), str(exc)
        return
    mean = results[text]
    if mean is not None and not isinstance(mean, str):
        assert np.isfinite(mean), f"{text}: mean {mean}"
    values = results.values(text)
    if values.dtype.kind == "f":
        assert not np.isinf(values).any(), f"{text}: {values}"


@pytest.mark.parametrize("text, expected", [
    ("INST(T=0)", "expected a number above 0"),
    ("IPrec@7", "must be in [0, 1]"),
    ("IPrec@-0.5", "must be in [0, 1]"),
    ("IPrecAvg(recalls=[0.5, 2])", "each >= 0 and <= 1"),
    ("IPrecAvg(recalls=[])", "at least one"),
    ("nDCG(log_base=1)", "expected a number above 1"),
    ("INST(max_depth=100000000)", "an integer >= 1 and <= 100000"),
])
def test_the_reported_cases_are_refused_with_the_valid_range(text, expected):
    with pytest.raises(MeasureError, match=expected.replace("[", r"\[").replace("]", r"\]")):
        rankmeter.evaluate(QRELS, RUN, [text])
