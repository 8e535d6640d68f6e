"""The report's page on the benchmark's case (bench/bench_report.py: 3 runs x 1000 queries, AP, nDCG@10,
P@10): under 2 MB, and still holding every number -- each per-query value and difference in the table
(read back from the page and compared with rankmeter.evaluate), exactly in the JSON block, every
value as a point of its box plot, every explained query with its tables.

A size test, not a timing test: the page is the same bytes on any machine.
"""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import rankmeter
from rankmeter.report.html import write_report

from tests.report.test_html_report import embedded_data, tables_of
from tests.report.test_report_svg import NS, _walk

MEASURES = ["AP", "nDCG@10", "P@10"]
GOAL_BYTES = 2_000_000


def _bench_case(directory, queries: int = 1000, depth: int = 100, seed: int = 5):
    """The files bench/bench_report.py makes (same generator, same seed)."""
    rng = np.random.default_rng(seed)
    pool = 3 * depth
    judged = {q: rng.choice(pool, 20, replace=False) for q in range(queries)}
    qrels = directory / "qrels.txt"
    with open(qrels, "w") as out:
        for q, docs in judged.items():
            out.writelines(f"q{q} 0 d{d} {int(rng.choice(3, p=[0.5, 0.3, 0.2]))}\n" for d in docs)
    runs = []
    for i in range(3):
        path = directory / f"run{i}.txt"
        with open(path, "w") as out:
            for q in range(queries):
                docs = rng.choice(pool, depth, replace=False)
                scores = np.sort(rng.random(depth))[::-1]
                out.writelines(f"q{q} Q0 d{d} {k + 1} {s:.5f} sys{i}\n" for k, (d, s) in enumerate(zip(docs, scores)))
        runs.append(path)
    return qrels, runs


@pytest.fixture(scope="module")
def bench_page(tmp_path_factory):
    directory = tmp_path_factory.mktemp("bench_report")
    qrels, runs = _bench_case(directory)
    path = write_report(str(qrels), [str(r) for r in runs], MEASURES, directory / "report.html")
    return path.read_bytes(), str(qrels), [str(r) for r in runs]


def test_the_bench_page_is_under_two_megabytes(bench_page):
    page, _, _ = bench_page
    assert len(page) <= GOAL_BYTES, f"{len(page) / 1e6:.2f} MB"
    text = page.decode()
    # where the bytes go, each part within what its content needs (measured: 0.21 MB, 0.09 MB, 1.04 MB)
    per_query = re.search(r'<section id="sec-per-query">.*?</section>', text, re.S).group(0)
    assert len(per_query.encode()) / (1000 * 15) < 16  # bytes per value cell, its row's share of the rest included
    plots = re.search(r'<section id="sec-plots">.*?</section>', text, re.S).group(0)
    assert len(plots.encode()) < 150_000
    assert "data-v" not in per_query and "</td>" not in per_query


def test_every_per_query_value_is_in_the_table_and_the_json(bench_page):
    page, qrels, runs = bench_page
    text = page.decode()
    results = {f"sys{i}": rankmeter.evaluate(qrels, run, MEASURES) for i, run in enumerate(runs)}
    data = embedded_data(text)
    queries = data["queries"]
    assert len(queries) == 1000 and data["systems"] == ["sys0", "sys1", "sys2"]
    table = tables_of(text)["per-query"]
    head, rows = table[0], table[1:]
    assert [row[0] for row in rows] == queries
    column = {name: i for i, name in enumerate(head)}
    for measure in MEASURES:
        exact = {}
        for system, result in results.items():
            by_query = dict(zip(result.queries, result.values(measure).astype(float)))
            want = np.array([by_query.get(q, np.nan) for q in queries])
            exact[system] = want
            got = np.array([np.nan if v is None else v for v in data["per_query"][measure][system]], float)
            np.testing.assert_array_equal(got, want)  # the JSON block: every value, to the last bit
            shown = [row[column[f"{measure} {system}"]] for row in rows]
            assert shown == [f"{v:.4f}" if v == v else "\u2013" for v in want]
        for system in ("sys1", "sys2"):
            delta = exact[system] - exact["sys0"]
            shown = [row[column[f"\u0394 {measure} {system} \u2212 sys0"]] for row in rows]
            assert shown == [f"{v:.4f}" if v == v else "\u2013" for v in delta]


def test_every_value_is_a_point_of_its_box_plot(bench_page):
    page, _, _ = bench_page
    data = embedded_data(page.decode())
    boxes = [svg for svg in re.findall(r"<svg\b.*?</svg>", page.decode(), re.S) if "per query (box)" in svg]
    assert len(boxes) == len(MEASURES)
    for measure, svg in zip(MEASURES, boxes):
        root = ET.fromstring(svg)
        (dots,) = [p.get("d") for p in root.iter(f"{NS}path") if p.get("stroke-linecap") == "round"]
        drawn = [y for command, _, y in _walk(dots) if command in "Mm"]
        values = [v for system in data["systems"] for v in data["per_query"][measure][system] if v is not None]
        assert len(drawn) == len(values)
        # the heights, sorted, follow the values, sorted, on one straight line (the y axis), to a tenth of a pixel
        slope, offset = np.polyfit(sorted(values), sorted(drawn, reverse=True), 1)
        assert np.abs(np.sort(drawn)[::-1] - (slope * np.sort(values) + offset)).max() < 0.1


def test_the_explained_queries_keep_their_tables(bench_page):
    page, _, _ = bench_page
    text = page.decode()
    assert len(re.findall(r'<details class="explain"', text)) == 100
    tables = re.findall(r'<table class="ranks">(.*?)</table>', text, re.S)
    assert len(tables) == 100 * 3 * 3  # every query, measure and run
    rows = [t.count("<tr>") - 1 for t in tables]
    assert set(rows) == {20, 10}  # AP: its first 20 ranks; nDCG@10, P@10: their 10
    assert text.count('<table class="ranks ideal">') + text.count("Ideal ranking: as for sys0.") == 100 * 3
