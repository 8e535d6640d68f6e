"""One number formatter (rankmeter.core.numbers) behind every table: the same value shows the same way in
text, HTML, the notebook and explanations; only the mark of an undefined value depends on the medium."""
from __future__ import annotations

import math
import random

import numpy as np
import pytest

from rankmeter.core.numbers import format_cell, format_number, format_numbers


@pytest.mark.parametrize("value, kwargs, shown", [
    (0.5, {}, "0.5000"),
    (1 / 3, {}, "0.3333"),
    (2 / 3, {"decimals": 2}, "0.67"),
    (np.float32(0.25), {}, "0.2500"),
    (7, {}, "7"),
    (np.int64(12345678901), {}, "12345678901"),          # a count keeps every digit, numpy's too
    (float("nan"), {}, "-"),
    (float("-inf"), {"undefined": "n/a"}, "n/a"),
    (None, {}, "-"),
    (-0.00004, {}, "-0.0000"),                            # a value keeps its sign ...
    (-0.00004, {"sign": True}, "+0.0000"),                # ... a difference that rounds to zero is no loss
    (0.0123, {"sign": True}, "+0.0123"),
    (-0.0123, {"sign": True}, "-0.0123"),
    (2.0, {"trim": True}, "2"),
    (0.25, {"trim": True}, "0.25"),
    (1 / 3, {"trim": True}, "0.3333"),
    (-0.00001, {"trim": True}, "-0"),
    (-0.0, {"trim": True}, "0"),
    (3.0, {"trim": True, "sign": True}, "+3"),
    (1e20, {"trim": True}, "100000000000000000000"),
])
def test_format_number(value, kwargs, shown):
    assert format_number(value, **kwargs) == shown


def test_the_table_formatter_says_what_the_scalar_one_says():
    rng = random.Random(7)
    values = [rng.uniform(-1, 1) * 10 ** rng.randint(-9, 4) for _ in range(5000)]
    values += [float("nan"), float("inf"), -0.0, 0.0, -0.00005, 0.00005, -1e-300]
    assert format_numbers(values, undefined="\u2013") == [format_number(v, undefined="\u2013") for v in values]
    assert format_numbers([0.5, math.nan], 2) == ["0.50", "-"]


def test_cells_mark_flags_and_missing_values_by_medium():
    assert [format_cell(v) for v in (True, np.bool_(False), None, "q1", np.int64(3), 0.5)] == \
        ["\u2713", "", "", "q1", "3", "0.5000"]
    assert format_cell(True, marks=("True", "False")) == "True"
    assert format_cell(None, empty="\u2013") == "\u2013"


def test_every_medium_shows_an_undefined_value_as_undefined_never_as_a_number():
    from rankmeter.core.notebook import html_table
    from rankmeter.report import explanations, markup, tables, text

    nan = float("nan")
    assert html_table(["q", "AP"], [["q1", nan], ["q2", np.int64(3)]]).count("<td>-</td>") == 1
    assert "<td>3</td>" in html_table(["q", "AP"], [["q2", np.int64(3)]])
    assert explanations._cell(nan) == "-" and explanations._cell(2.0) == "2" and explanations._cell(0.125) == "0.125"
    assert markup.number_cell(nan) == "\u2013" and markup.number_cell(np.int64(3)) == "3" and markup.number_cell(0.5) == "0.5000"
    assert tables._value(nan, 4) == "n/a" and tables._value(-0.00001, 4, sign=True) == "+0.0000"
    assert text._fmt(nan) == "-" and text._fmt(np.float64(0.5)) == "0.5000"


def test_the_coverage_cell_shows_numpy_counts_as_counts():
    from rankmeter.report.coverage import _cell
    assert _cell(np.int64(3)) == '<td data-v="3">3</td>'
    assert _cell(np.float64(0.5)) == '<td data-v="0.5">0.5000</td>'
    assert _cell(float("nan")) == '<td data-v="">\u2013</td>'
