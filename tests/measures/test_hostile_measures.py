"""Measure parameters out of range, and values that cannot be computed (issue 22).

Every parameter declared in the registry is fed values outside its declared
range (and NaN, infinities) and must be refused with a MeasureError that says
the valid range, never scored; values inside the range must give numbers.
"""
from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import rankmeter
from rankmeter.errors import MeasureError
from rankmeter.measures.base import REGISTRY, Measure
from rankmeter.measures.facts import allowed_values

QRELS = {"q1": {"d1": 3, "d2": 0, "d3": 1, "d4": 2}, "q2": {"d1": 1, "d5": 0}, "q3": {"d9": 0}}
RUN = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0, "d7": 0.5}, "q2": {"d5": 2.0, "d1": 1.0}, "q3": {"d9": 1.0}}
_NUMERIC = ("integer", "number", "grade", "numbers")


def _with_cutoff(family, text: str) -> str:
    if family.cutoff != "required":
        return text
    return text + ("@0.5" if family.cutoff_kind is float else "@3")


def _bounds(p):
    """(minimum, maximum, above, below) of a declaration: its interval's closed and open ends, None where unbounded."""
    finite = lambda x: x if abs(x) != float("inf") else None
    low, high = finite(p.low), finite(p.high)
    return ((None if p.low_open else low), (None if p.high_open else high),
            (low if p.low_open else None), (high if p.high_open else None))


def _declared():
    return [(family, param) for family in REGISTRY.values() for param in family.all_params
            if param.kind in _NUMERIC]


def _bounded():
    return [(f, p) for f, p in _declared()
            if any(b is not None for b in (_bounds(p)[0], _bounds(p)[1], _bounds(p)[2], _bounds(p)[3]))]


def _spelled(value, kind: str) -> str:
    if kind == "numbers":
        return "[" + ", ".join(_spelled(v, "number") for v in value) + "]"
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return repr(value)


@st.composite
def _out_of_range(draw):
    """(family, param, a value outside the param's declared range)."""
    family, param = draw(st.sampled_from(_declared()))
    integer = param.kind == "integer"
    step = draw(st.integers(1, 10 ** 6)) if integer else draw(st.floats(1e-9, 1e12))
    def under(bound):  # below the bound however large it is (1e150 - 1 == 1e150 in floating point)
        return bound - step if integer else min(bound - step, math.nextafter(bound, -math.inf))

    def over(bound):
        return bound + step if integer else max(bound + step, math.nextafter(bound, math.inf))

    choices = [math.nan, math.inf, -math.inf]
    if _bounds(param)[0] is not None:
        choices.append(under(_bounds(param)[0]))
    if _bounds(param)[1] is not None:
        choices.append(over(_bounds(param)[1]))
    if _bounds(param)[2] is not None:
        choices += [_bounds(param)[2], under(_bounds(param)[2])]
    if _bounds(param)[3] is not None:
        choices += [_bounds(param)[3], over(_bounds(param)[3])]
    if integer:
        choices.append(draw(st.floats(0.1, 0.9)) + (_bounds(param)[0] or 0))  # not an integer
    value = draw(st.sampled_from(choices))
    if param.kind == "numbers":
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
    assert allowed_values(param) in message  # the valid range, in words
    # the same through the grammar and the whole evaluation: refused, never a value
    text = _with_cutoff(family, f"{family.name}({param.name}={_spelled(value, param.kind)})")
    with pytest.raises(MeasureError):
        rankmeter.evaluate(QRELS, RUN, [text])


def _inside(param, fraction: float):
    """A value inside the declared range, ``fraction`` of the way across it (ends included where allowed)."""
    low = _bounds(param)[0] if _bounds(param)[0] is not None else _bounds(param)[2]
    high = _bounds(param)[1] if _bounds(param)[1] is not None else _bounds(param)[3]
    if low is None and high is None:
        value = (fraction - 0.5) * 20
    elif high is None:
        value = low + fraction * 10
    elif low is None:
        value = high - fraction * 10
    else:
        value = low + fraction * (high - low)
    if _bounds(param)[2] is not None and value <= _bounds(param)[2]:
        value = _bounds(param)[2] + 1e-6
    if _bounds(param)[3] is not None and value >= _bounds(param)[3]:
        value = _bounds(param)[3] - 1e-6
    if param.kind in ("integer",):
        value = int(math.ceil(value)) if _bounds(param)[0] is not None or _bounds(param)[2] is not None else int(value)
        if _bounds(param)[1] is not None:
            value = min(value, int(_bounds(param)[1]))
    return [value] if param.kind == "numbers" else value


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
    ("INST(T=0)", "expected a number in (0, inf)"),
    ("IPrec@7", "must be in [0, 1]"),
    ("IPrec@-0.5", "must be in [0, 1]"),
    ("IPrecAvg(recalls=[0.5, 2])", "expected numbers, each in [0, 1]"),
    ("IPrecAvg(recalls=[])", "at least one"),
    ("nDCG(log_base=1)", "expected a number in (1, inf)"),
    ("INST(max_depth=100000000)", "an integer in [1, 100000]"),
])
def test_the_reported_cases_are_refused_with_the_valid_range(text, expected):
    with pytest.raises(MeasureError, match=re.escape(expected)):
        rankmeter.evaluate(QRELS, RUN, [text])


# ------------------------------------------------------------------ gain=exp at huge grades
def test_ndcg_exp_of_huge_grades_is_the_ratio_worked_by_hand():
    """q1 judges a = 3000, b = 2999 and ranks b, a. With G = 2^3000 the gains are G/2 and G (the -1
    is below G's last bit), so nDCG = (G/2 + G/log2 3) / (G + (G/2)/log2 3) = (1/2 + 1/log2 3) /
    (1 + 1/(2 log2 3)); NCG@1 = (G/2) / G = 1/2. q2 (grade 1, found first) scores 1."""
    qrels = {"q1": {"a": 3000, "b": 2999}, "q2": {"c": 1, "d": 0}}
    run = {"q1": ["b", "a"], "q2": ["c", "d"]}
    r = rankmeter.evaluate(qrels, run, ["nDCG(gain=exp)", "NCG(gain=exp)@1", "ERR"])
    by_hand = (0.5 + 1 / math.log2(3)) / (1 + 0.5 / math.log2(3))
    assert r.values("nDCG(gain=exp)").tolist() == pytest.approx([by_hand, 1.0], rel=1e-15)
    assert r["nDCG(gain=exp)"] == pytest.approx((by_hand + 1) / 2, rel=1e-15)
    assert r.values("NCG(gain=exp)@1").tolist() == [0.5, 1.0]
    assert np.isfinite(r.values("ERR")).all()
    assert r.undefined == {}


def test_exp_gains_below_the_safe_grade_are_unchanged_to_the_bit():
    """Scaling only starts above grade 960; 2^1000 - 1 is a double and DCG@1 gives it exactly."""
    qrels = {"q1": {"a": 1000, "b": 3}, "q2": {"c": 5}}
    run = {"q1": ["a", "b"], "q2": ["c"]}
    r = rankmeter.evaluate(qrels, run, ["DCG(gain=exp)@1", "CG(gain=exp)", "nDCG(gain=exp)"])
    assert r.values("DCG(gain=exp)@1").tolist() == [float(2 ** 1000 - 1), 31.0]
    assert r.values("CG(gain=exp)").tolist() == [float(2 ** 1000 - 1) + 7.0, 31.0]
    assert r.values("nDCG(gain=exp)").tolist() == [1.0, 1.0]


@pytest.mark.parametrize("measure", ["DCG(gain=exp)", "CG(gain=exp)", "G(gain=exp)"])
def test_a_sum_of_exp_gains_beyond_double_range_is_refused(measure):
    qrels = {"q1": {"a": 1}, "q\u202e2": {"b": 3000}}
    run = {"q1": ["a"], "q\u202e2": ["b"]}
    with pytest.raises(MeasureError, match="grade 3000") as caught:
        rankmeter.evaluate(qrels, run, [measure])
    assert "q\\u202e2" in str(caught.value)  # the query named, its bidi control escaped


# ------------------------------------------------------------------ the undefined rule in every output
def _with_an_undefined_query():
    qrels = {"q1": {"a": 1}, "q2": {"b": 0}}
    run = {"q1": ["a"], "q2": ["b"]}
    return rankmeter.evaluate(qrels, run, ["nDCG(empty_target_action=skip)", "P@1"])


def test_undefined_is_null_in_json_and_counted_beside_the_mean():
    import json
    r = _with_an_undefined_query()
    text = json.dumps(r.to_dict(per_query=True), allow_nan=False)  # never NaN: always valid JSON
    data = json.loads(text)
    assert data["mean"] == {"nDCG(empty_target_action=skip)": 1.0, "P@1": 0.5}
    assert data["undefined"] == {"nDCG(empty_target_action=skip)": 1}
    assert [row["nDCG(empty_target_action=skip)"] for row in data["per_query"]] == [1.0, None]
    assert r.to_arrow().column("nDCG(empty_target_action=skip)").null_count == 1


def test_undefined_is_marked_in_text_and_empty_in_csv():
    import io
    from rankmeter.report.text import print_results
    r = _with_an_undefined_query()
    out = io.StringIO()
    print_results([r], ["run"], per_query=True, out=out)
    lines = out.getvalue().splitlines()
    assert lines[2].split()[-2:] == ["-", "0.0000"]                       # q2
    assert lines[3].split()[2:] == ["1.0000", "(1", "undefined)", "0.5000"]  # the mean and its count
    out = io.StringIO()
    print_results([r], ["run"], per_query=True, format="csv", out=out)
    assert out.getvalue().splitlines()[2:] == ["run,q2,,0.0", "run,all,1.0,0.5", "run,undefined,1,0"]


def test_the_cli_json_holds_no_nan():
    import json
    import subprocess
    import sys
    import tempfile
    from pathlib import Path
    folder = Path(tempfile.mkdtemp())
    (folder / "q").write_text("q1 0 a 1\nq2 0 b 0\n")
    (folder / "r").write_text("q1 Q0 a 1 1 t\nq2 Q0 b 1 1 t\n")
    done = subprocess.run([sys.executable, "-m", "rankmeter", "eval", str(folder / "q"), str(folder / "r"),
                           "-m", "nDCG(empty_target_action=skip)", "--per-query", "--format", "json"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr

    def refuse(constant):
        raise AssertionError(f"{constant} in JSON output")
    data = json.loads(done.stdout, parse_constant=refuse)
    assert data["runs"][0]["undefined"] == {"nDCG(empty_target_action=skip)": 1}


# ------------------------------------------------------------------ issue 32: extreme grades, hostile tensors
def test_ndcg_exp_of_grades_near_int64_max_is_the_ratio_worked_by_hand():
    """a = 2^63 - 1, b = 2^63 - 2 ranked b, a: the gains are G/2 and G (G = 2^(2^63 - 1)), so nDCG is the same
    ratio as for grades 3000 and 2999: (1/2 + 1/log2 3) / (1 + 1/(2 log2 3)). Through doubles both grades were
    2^63, their shift 2^63 - 1024: 2^1024 overflowed, the value was null and the mean dropped the query."""
    qrels = {"q1": {"a": 2 ** 63 - 1, "b": 2 ** 63 - 2}, "q2": {"c": 1}}
    run = {"q1": ["b", "a"], "q2": ["c"]}
    r = rankmeter.evaluate(qrels, run, ["nDCG(gain=exp)", "NCG(gain=exp)@1"])
    by_hand = (0.5 + 1 / math.log2(3)) / (1 + 0.5 / math.log2(3))
    assert r.values("nDCG(gain=exp)").tolist() == pytest.approx([by_hand, 1.0], rel=1e-15)
    assert r["nDCG(gain=exp)"] == pytest.approx((by_hand + 1) / 2, rel=1e-15)
    assert r.values("NCG(gain=exp)@1").tolist() == [0.5, 1.0]
    assert r.undefined == {}


def test_err_of_a_grade_of_int64_max():
    """g_max = 2^63 - 1 (it was read as 2^63 through a double: OverflowError). q1 finds it first: R = 1 -
    2^-(2^63 - 1) = 1.0; q2's grade 1 doc: R = 2^(1 - g_max) - 2^-g_max, 0 in a double."""
    qrels = {"q1": {"a": 2 ** 63 - 1, "b": 0}, "q2": {"c": 1}}
    run = {"q1": ["a", "b"], "q2": ["c"]}
    r = rankmeter.evaluate(qrels, run, ["ERR", "ERR@1", "ERR(max_grade=4)"])
    assert r.values("ERR").tolist() == [1.0, 0.0] and r.values("ERR@1").tolist() == [1.0, 0.0]
    assert r.values("ERR(max_grade=4)").tolist() == [15 / 16, 1 / 16]  # capped at 4: (2^4 - 1) / 2^4, 1 / 2^4


@pytest.mark.parametrize("scores", ["complex", "object", "object text"])
def test_tensor_scores_that_are_not_real_numbers_are_refused(scores):
    from rankmeter.errors import InputError
    import rankmeter.tensor as rt
    value = {"complex": np.array([[1 + 0j, complex(np.nan, 1)]]),
             "object": np.array([[1.0, float("nan")]], dtype=object),
             "object text": np.array([[1, "x"]], dtype=object)}[scores]
    with pytest.raises(InputError, match=r"scores has dtype (complex128|object): expected an array of real numbers"):
        rt.evaluate(value, np.array([[1, 0]]), ["AP"])


def test_tensor_complex_torch_scores_are_refused():
    import torch
    from rankmeter.errors import InputError
    import rankmeter.tensor as rt
    with pytest.raises(InputError, match="torch.complex64"):
        rt.evaluate(torch.tensor([[1 + 0j, 0j]]), torch.tensor([[1, 0]]), ["AP"])


@pytest.mark.parametrize("value", [np.inf, np.nan, -1.0, 0.5])
def test_tensor_num_relevant_not_a_count_is_refused(value):
    from rankmeter.errors import InputError
    import rankmeter.tensor as rt
    with pytest.raises(InputError, match="num_relevant is smaller than the relevant candidates of a row, not a "
                                         "whole number, or not finite"):
        rt.evaluate(np.array([[1.0, 0.5]]), np.array([[1, 0]]), ["AP"], num_relevant=np.array([value]))


def test_tensor_num_relevant_beyond_the_candidates_counts():
    """1 relevant candidate found first, 5 relevant in all: AP = 1/5 (by hand)."""
    import rankmeter.tensor as rt
    got = rt.evaluate(np.array([[1.0, 0.5]]), np.array([[1, 0]]), ["AP"], num_relevant=np.array([5]))
    assert got["AP"].tolist() == [0.2]


@pytest.mark.parametrize("where", ["query", "doc", "run list"])
def test_a_lone_surrogate_in_an_id_is_an_input_error(where):
    from rankmeter.errors import InputError
    qrels = {"q\ud800": {"d": 1}} if where == "query" else {"q": {"d\udfff" if where == "doc" else "d": 1}}
    run = {"q\ud800": {"d": 1.0}} if where == "query" else {"q": ["d\ud800"]} if where == "run list" else \
        {"q": {"d\udfff": 1.0}}
    with pytest.raises(InputError, match=r"holds a lone surrogate \('\\ud[8f]"):
        rankmeter.evaluate(qrels, run, ["AP"])
