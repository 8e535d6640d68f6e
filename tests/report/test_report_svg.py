"""The report's own SVG figures (rankmeter/report/svg.py): well-formed, escaped, and drawing the data."""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import numpy as np

from rankmeter.report.figures import box_spec, diff_spec, pr_spec
from rankmeter.report import svg as _svg


def diff_svg(deltas, queries, measure, system, baseline):
    deltas = np.asarray(deltas, float)
    return _svg.diff_svg(diff_spec(np.zeros(len(deltas)), deltas, queries, measure, system, baseline))


def box_svg(columns, systems, measure):
    return _svg.box_svg(box_spec(columns, systems, measure))


def pr_svg(curves):
    return _svg.pr_svg(pr_spec(curves))

NS = "{http://www.w3.org/2000/svg}"


def _texts(svg: str) -> list[str]:
    return [t.text or "" for t in ET.fromstring(svg).iter(f"{NS}text")]


_COMMAND = re.compile(r"([MmHhVvz])([^MmHhVvz]*)")
_NUMBER = re.compile(r"-?(?:\d+\.?\d*|\.\d+)")


def _walk(d: str) -> list[tuple[str, float, float]]:
    """Each command of a path of M/m/H/h/V/v/z and the absolute point it ends at."""
    x = y = start_x = start_y = 0.0
    out = []
    for command, args in _COMMAND.findall(d):
        nums = [float(n) for n in _NUMBER.findall(args)]
        if command in "Mm":
            x, y = (nums[0], nums[1]) if command == "M" else (x + nums[0], y + nums[1])
            start_x, start_y = x, y
        elif command in "Hh":
            x = nums[0] if command == "H" else x + nums[0]
        elif command in "Vv":
            y = nums[0] if command == "V" else y + nums[0]
        else:
            x, y = start_x, start_y
        out.append((command, x, y))
    return out


def _linear(pixels, values) -> float:
    """How far (in pixels) ``pixels`` are from the best straight-line map of ``values``."""
    slope, offset = np.polyfit(values, pixels, 1)
    return float(np.abs(np.asarray(pixels) - (slope * np.asarray(values) + offset)).max())


def test_diff_svg_counts_wins_ties_losses_and_names_few_queries():
    deltas = np.array([0.2, -0.1, 0.0, 0.05, -0.3])
    svg = diff_svg(deltas, ["q1", "q<2>", "q3", "q4", "q5"], "AP", "new", "old")
    texts = _texts(svg)  # parses: well-formed XML, so the query id's < and > were escaped
    assert "2 better, 1 tied, 2 worse" in texts
    assert f"mean \u0394 = {deltas.mean():+.4f} (dashed)" in texts
    assert "q<2>" in texts and "<2>" not in svg
    root = ET.fromstring(svg)
    ups = [p for p in root.iter(f"{NS}path") if p.get("fill") == "#2b7bba"]
    assert len(re.findall("M", ups[0].get("d"))) == 2  # one bar per win, in one path
    many = diff_svg(np.linspace(-1, 1, 500), [f"q{i}" for i in range(500)], "AP", "a", "b")
    assert "q17" not in _texts(many)  # 500 queries are not named one by one


def test_diff_svg_of_many_queries_draws_every_difference_as_a_step():
    rng = np.random.default_rng(1)
    deltas = np.round(rng.normal(0, 0.2, 1000), 2)
    root = ET.fromstring(diff_svg(deltas, [f"q{i}" for i in range(1000)], "AP", "new", "old"))
    for color, side in (("#2b7bba", deltas > 0), ("#d6604d", deltas < 0)):
        (path,) = [p.get("d") for p in root.iter(f"{NS}path") if p.get("fill") == color]
        walk = _walk(path)
        assert [c for c, _, _ in walk].count("M") == 1  # one outline: up from the zero line, a step per bar
        zero = walk[0][2]
        steps = [(x - px, y) for (_, px, _), (c, x, y) in zip(walk, walk[1:]) if c in "Hh"]
        # the bars in order, equal neighbours merged: a step per distinct value, as wide as its queries
        distinct, counts = np.unique(deltas[side], return_counts=True)
        distinct, counts = distinct[::-1], counts[::-1]
        assert len(steps) == len(distinct)
        assert _linear([y for _, y in steps] + [zero], [*distinct, 0.0]) < 0.1
        widths = np.array([w for w, _ in steps])
        np.testing.assert_allclose(widths / (widths.sum() / counts.sum()), counts, atol=0.35)


def test_coordinates_are_written_short():
    from rankmeter.report.svg import _decimal

    assert [_decimal(t) for t in (123, 120, 5, -5, 0, -120, 10, -1)] == ["12.3", "12", ".5", "-.5", "0", "-12", "1",
                                                                        "-.1"]


def test_box_svg_draws_median_mean_and_every_point():
    values = [np.array([0.1, 0.2, 0.3, 0.4, np.nan]), np.array([0.5, 0.5, 0.9, 1.0])]
    svg = box_svg(values, ["a", "b&c"], "nDCG@10")
    root = ET.fromstring(svg)
    assert "b&c" in _texts(svg)
    points = [p for p in root.iter(f"{NS}path") if p.get("stroke-linecap") == "round"]
    dots = sorted((x, y) for command, x, y in _walk(points[0].get("d")) if command in "Mm")
    assert len(dots) == 8  # NaN left out
    a, b = dots[:4], dots[4:]
    assert max(x for x, _ in a) + 50 < min(x for x, _ in b)  # each system in its own column
    # every value drawn at its height on the y axis, to the tenth of a pixel
    heights = sorted((y for _, y in a), reverse=True) + sorted((y for _, y in b), reverse=True)
    assert _linear(heights, [0.1, 0.2, 0.3, 0.4, 0.5, 0.5, 0.9, 1.0]) < 0.1
    assert "nDCG@10 per query (box)" in _texts(svg)


def test_pr_svg_has_a_curve_and_legend_entry_per_system():
    curves = [("bm25", [0.0, 0.5, 1.0], [0.8, 0.4, 0.1]), ("dense", [0.0, 0.5, 1.0], [0.9, 0.5, 0.2])]
    svg = pr_svg(curves)
    root = ET.fromstring(svg)
    assert len(list(root.iter(f"{NS}polyline"))) == 2
    assert {"bm25", "dense", "Interpolated precision-recall"} <= set(_texts(svg))
    assert "-0" not in _texts(svg)
