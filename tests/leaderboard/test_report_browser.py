"""The leaderboard's section of the HTML report, rendered in a real headless Chromium (Debian's
/usr/bin/chromium through playwright, as tests/report/test_html_report.py; skipped, with the reason, when either is
missing): the table, the rank-interval plot and the win-probability matrix are drawn where the data say."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

import rankmeter
from rankmeter.report.html import render_leaderboard_report

CHROMIUM = "/usr/bin/chromium"
MANIFEST = Path(__file__).resolve().parents[2] / "examples" / "leaderboard" / "manifest.json"


@pytest.fixture(scope="module")
def board():
    return rankmeter.leaderboard(str(MANIFEST), ["nDCG@10", "RR@10"], resamples=500, seed=2)


@pytest.fixture(scope="module")
def page(board, tmp_path_factory):
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip(f"{CHROMIUM} not installed (apt-get install chromium; .ci/run does)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright not installed (pip install playwright)")
    path = tmp_path_factory.mktemp("board") / "board.html"
    path.write_text(render_leaderboard_report(board), encoding="utf-8")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.requests, page.errors = [], []
        page.on("request", lambda r: page.requests.append(r.url))
        page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        page.goto(path.as_uri())
        page.wait_for_selector("html[data-ready='1']", timeout=10000)
        yield page
        browser.close()


def test_the_page_loads_offline_without_errors(page):
    assert page.errors == []
    assert all(url.startswith("file:") for url in page.requests), page.requests


def test_the_tables_hold_the_leaderboard_rows(page, board):
    for n, measure in enumerate(board.measures):
        cells = page.eval_on_selector_all(f"#leaderboard-{n} tbody tr",
                                          "rows => rows.map(r => [...r.cells].map(c => c.textContent))")
        expected = [r for r in board.rows if r["measure"] == measure]
        assert [c[2] for c in cells] == [r["system"] for r in expected]
        assert [c[1] for c in cells] == [f"{r['rank_interval'][0]}\u2013{r['rank_interval'][1]}" for r in expected]
        assert [c[5] for c in cells] == [r["group"] for r in expected]


def test_forest_plot_draws_each_rank_interval_to_scale(page, board):
    for n, measure in enumerate(board.measures):
        svg = page.locator("svg.forest").nth(n)
        widths = svg.evaluate("s => [...s.querySelectorAll('path.rank-interval')].map(p => p.getBBox().width)")
        rows = [r for r in board.rows if r["measure"] == measure]
        spans = [r["rank_interval"][1] - r["rank_interval"][0] for r in rows]
        assert len(widths) == len(rows)
        unit = (640 - 150 - 20) / (len(board.systems) - 1)  # pixels per rank
        for width, span in zip(widths, spans):
            assert width == pytest.approx(span * unit, abs=0.6)
        assert svg.bounding_box()["width"] > 300


def test_win_matrix_cells_are_coloured_by_probability(page, board):
    svg = page.locator("svg.win-matrix").first
    cells = svg.evaluate("s => [...s.querySelectorAll('rect.win-cell')].map(r => "
                         "[r.querySelector('title').textContent, getComputedStyle(r).fill])")
    s = len(board.systems)
    assert len(cells) == s * (s - 1)
    win = board.win_probability(board.measures[0])
    for title, fill in cells:
        a, rest = title.split(" beats ")
        b, p = rest.split(": ")
        assert float(p) == pytest.approx(win[board.systems.index(a), board.systems.index(b)], abs=5e-4)
        red, green, blue = (int(x) for x in fill[4:-1].split(","))
        assert (blue >= red) == (float(p) >= 0.5)  # blue: the row beats the column more often than not
