"""Plots: the data drawn (checked against hand-computed values), files written, labels kept literal."""
from __future__ import annotations

import re
import sys

import numpy as np
import pytest

from rankmeter import ParameterError
from rankmeter.io.output import OutputError
from rankmeter.report import plots


# RR by hand: base finds the relevant doc at rank 2 on q1, 1 on q2, 1 on q3; new at 1, 2, 1.
QRELS = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
RUNS = {"base": {"q1": ["x", "a"], "q2": ["b"], "q3": ["c"]},
        "new": {"q1": ["a"], "q2": ["x", "b"], "q3": ["c", "y"]}}


def _bar_heights(ax) -> list[float]:
    return [p.get_height() for p in ax.patches]


def _hlines_y(ax) -> list[float]:
    return [line.get_ydata()[0] for line in ax.get_lines()
            if len(set(np.atleast_1d(line.get_ydata()))) == 1 and len(line.get_ydata()) == 2]


# ------------------------------------------------------------------ data

@pytest.mark.filterwarnings("ignore:1 judged queries have no results")
def test_per_query_table_values_and_alignment():
    runs = {"base": RUNS["base"], "partial": {"q1": ["a"], "q3": ["z", "y", "c"]}}
    t = plots.per_query_table(QRELS, runs, "RR")
    assert t.queries == ["q1", "q2", "q3"] and t.systems == ["base", "partial"]
    expected = [[0.5, 1.0], [1.0, np.nan], [1.0, 1 / 3]]
    np.testing.assert_allclose(t.values, expected)
    with pytest.raises(ParameterError, match="no system named 'nope'"):
        t.column("nope")


def test_runs_named_by_unique_tag_then_file(tmp_path):
    """One naming rule for compare, report and plots: a tag shared by two runs names neither of them."""
    from rankmeter.core.naming import name_runs

    a, b, c = tmp_path / "a.txt", tmp_path / "b.txt", tmp_path / "c.txt"
    a.write_text("q1 Q0 d1 1 2.0 same\n")
    b.write_text("q1 Q0 d1 1 2.0 same\n")
    c.write_text("q1 Q0 d1 1 2.0 other\n")
    assert [n for n, _ in name_runs([a, b, c])] == ["a.txt", "b.txt", "other"]
    assert [n for n, _ in name_runs({"x": a, "y": b})] == ["x", "y"]
    (one,) = name_runs(RUNS["base"])  # a single run given as a dict is one run, not a dict of runs
    assert one[1].queries == ["q1", "q2", "q3"]
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "a.txt").write_text("q1 Q0 d1 1 2.0 same\n")
    assert [n for n, _ in name_runs([a, sub / "a.txt", c])] == [str(a), str(sub / "a.txt"), "other"]


# ------------------------------------------------------------------ figures

def test_diff_plot_bars_are_sorted_deltas_with_zero_and_mean_lines():
    fig = plots.plot_diff(QRELS, RUNS, "RR")
    ax = fig.axes[0]
    # new - base per query: q1 1 - 0.5, q2 0.5 - 1, q3 0; sorted largest first.
    np.testing.assert_allclose(_bar_heights(ax), [0.5, 0.0, -0.5])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["q1", "q3", "q2"]
    assert sorted(_hlines_y(ax)) == [0.0, 0.0]  # the zero line and the mean line (mean delta is 0)
    legend = ax.get_legend()
    assert legend.get_title().get_text() == "1 better, 1 tied, 1 worse"
    assert "mean \u0394 = +0.0000" in [t.get_text() for t in legend.get_texts()]


def test_diff_plot_pair_order_and_mean():
    runs = {"a": {"q1": ["a"], "q2": ["b"], "q3": ["x", "x2", "x3", "c"]}, **RUNS}
    fig = plots.plot_diff(QRELS, runs, "RR", pair=("base", "a"))
    ax = fig.axes[0]
    # a - base: q1 1 - 0.5 = 0.5, q2 0, q3 0.25 - 1 = -0.75; mean -0.25/3
    np.testing.assert_allclose(_bar_heights(ax), [0.5, 0.0, -0.75])
    assert min(_hlines_y(ax), key=abs) == 0.0
    np.testing.assert_allclose(sorted(_hlines_y(ax))[0], -0.25 / 3)
    assert "a \u2212 base" in ax.get_title()


def test_diff_plot_many_queries_draws_one_area_not_bars():
    n = 400
    qrels = {f"q{i}": {"d": 1} for i in range(n)}
    runs = {"a": {f"q{i}": ["d"] for i in range(n)}, "b": {f"q{i}": ["x", "y"][:i % 3] + ["d"] for i in range(n)}}
    ax = plots.plot_diff(qrels, runs, "RR").axes[0]
    assert not ax.patches and len(ax.collections) == 2 and not ax.get_xticks().size


def test_diff_plot_needs_two_runs():
    with pytest.raises(ParameterError, match="two runs"):
        plots.plot_diff(QRELS, {"base": RUNS["base"]}, "RR")
    with pytest.raises(ParameterError, match="exactly two"):
        plots.plot_diff(QRELS, RUNS, "RR", pair=("base",))


def test_pr_curve_is_mean_interpolated_precision_at_eleven_levels():
    qrels = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}}
    run = {"q1": ["a", "x", "b"], "q2": ["y", "c"]}
    ax = plots.plot_pr(qrels, {"r": run}).axes[0]
    (line,) = ax.get_lines()
    np.testing.assert_allclose(line.get_xdata(), plots.RECALL_LEVELS)
    # q1 (R=2): precision 1 at the 1st relevant (rank 1), 2/3 at the 2nd (rank 3). The level r needs
    # round(2r) relevant docs: r <= 0.7 -> at most 1 -> interpolated precision 1; r >= 0.8 -> 2 -> 2/3.
    # q2 (R=1): precision 1/2 at rank 2, and no better precision anywhere: 1/2 at every level.
    q1 = np.array([1.0] * 8 + [2 / 3] * 3)
    np.testing.assert_allclose(line.get_ydata(), (q1 + 0.5) / 2)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["r"]


def test_pr_curve_rejects_levels_outside_0_1():
    with pytest.raises(ParameterError, match=r"recalls=1\.5: expected numbers, each in \[0, 1\]"):
        plots.plot_pr(QRELS, RUNS, recalls=[0.5, 1.5])
    with pytest.raises(ParameterError, match=r"recalls=\[\]: at least one"):
        plots.pr_curves(QRELS, RUNS, recalls=[])


@pytest.mark.parametrize("style", ["box", "violin", "strip"])
def test_distribution_points_are_the_per_query_values(style):
    ax = plots.plot_distribution(QRELS, RUNS, "RR", style=style).axes[0]
    points = [c for c in ax.collections if c.get_offsets().shape[0] == 3]
    ys = [sorted(c.get_offsets()[:, 1].tolist()) for c in points[-2:]]
    assert ys == [[0.5, 1.0, 1.0], [0.5, 1.0, 1.0]]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["base", "new"]


def test_distribution_rejects_unknown_style_and_the_old_keyword_with_a_suggestion():
    with pytest.raises(ParameterError, match="style='pie': expected one of 'box', 'violin', 'strip'"):
        plots.plot_distribution(QRELS, RUNS, "RR", style="pie")
    with pytest.raises(ParameterError, match=r"unknown option kind \(options: style, queries"):
        plots.plot_distribution(QRELS, RUNS, "RR", kind="box")


def test_labels_from_data_stay_literal():
    runs = {"$\\alpha$": RUNS["base"], "<b>x</b>": RUNS["new"]}
    ax = plots.plot_distribution(QRELS, runs, "RR").axes[0]
    texts = [t for t in ax.get_xticklabels()]
    assert [t._preprocess_math(t.get_text()) for t in texts] == [("$\\alpha$", False), ("<b>x</b>", False)]


# ------------------------------------------------------------------ files and SVG text

def test_save_png_and_svg(tmp_path):
    fig = plots.plot_pr(QRELS, RUNS)
    png = plots.save(fig, tmp_path / "pr.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = plots.save(fig, tmp_path / "pr.SVG").read_text()
    assert "<svg" in svg and "Interpolated precision-recall" in svg  # text kept as text
    with pytest.raises(OutputError, match=r"\.png or \.svg"):
        plots.save(fig, tmp_path / "pr.pdf")
    assert not (tmp_path / "pr.pdf").exists()


def test_plot_details_people_misread():
    """No diff plot of nothing, no "-0.0000" or red bar for a tie, a legend for the box plot's marks."""
    tied = {"a": {"q1": ["d1"], "q2": ["d2"]}, "b": {"q1": ["d1"], "q2": ["d2"]}}
    qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}}
    svg = plots.svg_text(plots.plot_diff(qrels, tied, "AP"))
    assert "-0.0000" not in svg and "+0.0000" in svg and "#d6604d" not in svg.lower()
    with pytest.raises(ParameterError, match="no query in common"):
        plots.plot_diff(qrels, {"a": {"q1": ["d1"]}, "b": {"q2": ["d2"]}}, "AP")
    box = plots.svg_text(plots.plot_distribution(qrels, tied, "AP", style="box"))
    assert "median" in box and "mean" in box


def test_svg_text_is_inline_ready_and_escaped():
    hostile = "<script>alert(1)</script>"
    runs = {hostile: RUNS["base"], "--><img src=x>": RUNS["new"]}
    svg = plots.svg_text(plots.plot_diff(QRELS, runs, "RR"), id_prefix="f7-")
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert "<?xml" not in svg and "<!DOCTYPE" not in svg and "<!--" not in svg and "<metadata" not in svg
    assert "<script" not in svg and "<img" not in svg
    assert "&lt;img src=x&gt;" in svg  # legend/title text escaped, not dropped
    ids = re.findall(r'\sid="([^"]*)"', svg)
    refs = re.findall(r'(?:href="#|url\(#)([^")]*)', svg)
    assert ids and all(i.startswith("f7-") for i in ids)
    assert refs and set(refs) <= set(ids)


def test_missing_matplotlib_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(ImportError, match=re.escape("pip install matplotlib")):
        plots.plot_pr(QRELS, RUNS)


# ------------------------------------------------------------------ CLI

def _files(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 a 1\nq2 0 b 1\nq3 0 c 1\n")
    base, new = tmp_path / "base.txt", tmp_path / "new.txt"
    base.write_text("q1 Q0 x 1 2 base\nq1 Q0 a 2 1 base\nq2 Q0 b 1 1 base\nq3 Q0 c 1 1 base\n")
    new.write_text("q1 Q0 a 1 2 new\nq2 Q0 x 1 2 new\nq2 Q0 b 2 1 new\nq3 Q0 c 1 1 new\n")
    return str(qrels), str(base), str(new)


@pytest.mark.parametrize("kind,ext", [("diff", "svg"), ("pr", "png"), ("dist", "svg")])
def test_cli_plot_writes_the_file(tmp_path, kind, ext, cli):
    qrels, base, new = _files(tmp_path)
    out = tmp_path / f"out.{ext}"
    done = cli("plot", qrels, base, new, "--kind", kind, "-m", "RR", "-o", out)
    assert done.code == 0, done.err
    data = out.read_bytes()
    assert data.startswith(b"\x89PNG") if ext == "png" else b"<svg" in data


def test_cli_plot_errors(tmp_path, cli):
    qrels, base, new = _files(tmp_path)
    one_run = cli("plot", qrels, base, "--kind", "diff", "-m", "RR", "-o", tmp_path / "o.svg")
    assert one_run.code == 2 and "two runs" in one_run.err
    no_measure = cli("plot", qrels, base, new, "--kind", "dist", "-o", tmp_path / "o.svg")
    assert no_measure.code == 2 and "needs a measure" in no_measure.err
