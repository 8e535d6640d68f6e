"""The report's own SVG figures (rankmeter/report/svg.py): well-formed, escaped, and drawing the data."""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import numpy as np

from rankmeter.report.svg import box_svg, diff_svg, pr_svg

NS = "{http://www.w3.org/2000/svg}"


def _texts(svg: str) -> list[str]:
    return [t.text or "" for t in ET.fromstring(svg).iter(f"{NS}text")]


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


def test_box_svg_draws_median_mean_and_every_point():
    values = [np.array([0.1, 0.2, 0.3, 0.4, np.nan]), np.array([0.5, 0.5, 0.9, 1.0])]
    svg = box_svg(values, ["a", "b&c"], "nDCG@10")
    root = ET.fromstring(svg)
    assert "b&c" in _texts(svg)
    points = [p for p in root.iter(f"{NS}path") if p.get("stroke-linecap") == "round"]
    assert len(re.findall("M", points[0].get("d"))) == 8  # NaN left out
    assert "nDCG@10 per query (box)" in _texts(svg)


def test_pr_svg_has_a_curve_and_legend_entry_per_system():
    curves = [("bm25", [0.0, 0.5, 1.0], [0.8, 0.4, 0.1]), ("dense", [0.0, 0.5, 1.0], [0.9, 0.5, 0.2])]
    svg = pr_svg(curves)
    root = ET.fromstring(svg)
    assert len(list(root.iter(f"{NS}polyline"))) == 2
    assert {"bm25", "dense", "Interpolated precision-recall"} <= set(_texts(svg))
    assert "-0" not in _texts(svg)
