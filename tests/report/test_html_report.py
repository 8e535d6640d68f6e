"""The HTML report: content checked in Python, then rendered and driven in a real headless Chromium.

The browser tests use Debian's ``/usr/bin/chromium`` (``.ci/run`` installs it): directly with
``--dump-dom`` / ``--screenshot``, and through playwright (``executable_path`` set; playwright's
own browser downloads are never used). They are skipped, with the reason, when either is missing.
"""
from __future__ import annotations

import base64
import hashlib
import html
import json
import os
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from rankmeter import ParameterError
from rankmeter.report.html import render_report, script_json, write_report


CHROMIUM = "/usr/bin/chromium"
EXAMPLES = Path(__file__).resolve().parents[1].parent / "examples"

# RR by hand. base: q1 rank 2 (0.5), q2 rank 1 (1), q3 rank 1 (1). new: q1 1, q2 1/2, q3 1/3.
QRELS = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
RUNS = {"base": {"q1": ["x", "a"], "q2": ["b"], "q3": ["c"]},
        "new": {"q1": ["a"], "q2": ["x", "b"], "q3": ["y", "z", "c"]}}
RR = {"base": [0.5, 1.0, 1.0], "new": [1.0, 0.5, 1 / 3]}

# Payloads without spaces (TREC ids are single tokens): each would mark the page if it ran.
PWN = "document.documentElement.dataset.pwned"
HOSTILE_TAG = f"<img/src=x/onerror={PWN}=1>"
HOSTILE_TAG2 = f"<script>{PWN}=2</script>"
HOSTILE_QUERIES = [f"</script><script>{PWN}=3</script>", f"\"><svg/onload={PWN}=4>", f"'><img/src=x/onerror={PWN}=5>"]
HOSTILE_DOC = f"<svg/onload={PWN}=6>"
HOSTILE_FILE = f"<img src=x onerror={PWN}=7>.txt"


class _Tables(HTMLParser):
    """Rows of cell texts of every <table id=...> in a page.

    End tags a table may leave out (``</td>``, ``</th>``, ``</tr>``) are implied as a browser implies them:
    a cell ends at the next cell, row or the table's end; a row at the next row or the table's end.
    """

    def __init__(self):
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self._id, self._row, self._cell = None, None, None

    def _end_cell(self):
        if self._cell is not None:
            self._row.append(" ".join(" ".join(self._cell).split()))
            self._cell = None

    def _end_row(self):
        self._end_cell()
        if self._row is not None:
            self.tables[self._id].append(self._row)
            self._row = None

    def handle_starttag(self, tag, attrs):
        if tag == "table" and dict(attrs).get("id"):
            self._id = dict(attrs)["id"]
            self.tables[self._id] = []
        elif tag == "tr" and self._id:
            self._end_row()
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._end_cell()
            self._cell = []
        elif tag in ("thead", "tbody") and self._id:
            self._end_row()

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self._end_cell()
        elif tag == "tr" and self._row is not None:
            self._end_row()
        elif tag in ("thead", "tbody") and self._id:
            self._end_row()
        elif tag == "table" and self._id:
            self._end_row()
            self._id = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def tables_of(page: str) -> dict[str, list[list[str]]]:
    parser = _Tables()
    parser.feed(page)
    return parser.tables


def embedded_data(page: str) -> dict:
    m = re.search(r'<script type="application/json" id="rankmeter-data">(.*?)</script>', page, re.S)
    return json.loads(m.group(1))


@pytest.fixture(scope="module")
def hostile_files(tmp_path_factory) -> tuple[str, list[str]]:
    d = tmp_path_factory.mktemp("hostile")
    qids = HOSTILE_QUERIES + ["q$x$"]
    (d / "qrels.txt").write_text("".join(f"{q} 0 {HOSTILE_DOC} 1\n{q} 0 d2 0\n" for q in qids))
    run1, run2 = d / HOSTILE_FILE, d / "run2.txt"
    run1.write_text("".join(f"{q} Q0 {doc} {i + 1} {9 - i} {HOSTILE_TAG}\n"
                            for q in qids for i, doc in enumerate([HOSTILE_DOC, "d1", "d2"])))
    run2.write_text("".join(f"{q} Q0 {doc} {i + 1} {9 - i} {HOSTILE_TAG2}\n"
                            for q in qids for i, doc in enumerate(["d1", HOSTILE_DOC, "d2"])))
    return str(d / "qrels.txt"), [str(run1), str(run2)]


@pytest.fixture(scope="module")
def hostile_report(hostile_files, tmp_path_factory) -> Path:
    qrels, runs = hostile_files
    return write_report(qrels, runs, ["AP", "nDCG@2"], tmp_path_factory.mktemp("out") / "hostile.html",
                        test="randomization", permutations=200)


@pytest.fixture(scope="module")
def rr_report(tmp_path_factory) -> Path:
    return write_report(QRELS, RUNS, ["RR"], tmp_path_factory.mktemp("rr") / "rr.html", test="randomization",
                        permutations=200)


# ------------------------------------------------------------------ page content (no browser)

def test_report_is_one_self_contained_file(tmp_path):
    runs = [str(EXAMPLES / "run.txt"), str(EXAMPLES / "run2.txt")]
    page = write_report(str(EXAMPLES / "qrels.txt"), runs, ["AP", "nDCG@10"], tmp_path / "r.html").read_text()
    assert page.startswith("<!DOCTYPE html>")
    assert not re.search(r"<link\b|<iframe\b|<object\b|<embed\b|<img\b|@import|@font-face", page)
    links = re.findall(r"""[\s:](?:src|href|action)\s*=\s*["']?([^"'\s>]*)""", page)
    assert links and all(link.startswith("#") for link in links)  # only in-page links
    assert [u for u in re.findall(r"url\(([^)]*)\)", page) if not u.startswith("#")] == []
    assert page.count("<script") == 2 and page.count("<svg") == 5  # 2 diff + 2 box + PR
    assert "<?xml" not in page and "<!-- " not in page


def test_csp_allows_exactly_the_inline_script(rr_report):
    page = rr_report.read_text()
    script = re.search(r"<script>(.*?)</script>", page, re.S).group(1)
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    csp = html.unescape(re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page).group(1))
    assert f"script-src 'sha256-{digest}'" in csp and "default-src 'none'" in csp and "unsafe-inline'; img" in csp


def test_comparison_and_per_query_tables_hold_hand_computed_values(rr_report):
    page = rr_report.read_text()
    tables = tables_of(page)
    comparison = {row[1]: row for row in tables["comparison"][1:]}
    assert comparison["base"][3] == f"{2.5 / 3:.4f}"
    assert comparison["new"][3] == f"{(1 + 0.5 + 1 / 3) / 3:.4f}"
    assert comparison["new"][4] == f"{(1 + 0.5 + 1 / 3) / 3 - 2.5 / 3:.4f}"
    assert comparison["new"][-1] == "1 / 0 / 2"
    per_query = tables["per-query"]
    assert per_query[0] == ["query", "RR base", "RR new", "\u0394 RR new \u2212 base"]
    assert per_query[1:] == [["q1", "0.5000", "1.0000", "0.5000"], ["q2", "1.0000", "0.5000", "-0.5000"],
                             ["q3", "1.0000", "0.3333", "-0.6667"]]
    data = embedded_data(page)
    assert data["queries"] == ["q1", "q2", "q3"] and data["baseline"] == "base"
    for system, values in RR.items():
        np.testing.assert_allclose(data["per_query"]["RR"][system], values)


def test_explanations_cap_the_ranks_shown(tmp_path):
    qrels = {"q1": {f"d{i}": 1 for i in range(0, 30, 3)}}
    run = {"q1": [f"d{i}" for i in range(30)]}
    page = render_report(qrels, {"a": run, "b": run}, ["AP", "nDCG@5"], plots=False, test="randomization",
                         permutations=50)
    rank_tables = re.findall(r'<table class="ranks[^"]*">(.*?)</table>', page, re.S)
    rows = [t.count("<tr>") - 1 for t in rank_tables]
    # AP: 20 of 30 ranks per run; nDCG@5: 5 ranks per run, and its ideal ranking (5 rows) once: the qrels',
    # the same for both runs
    assert rows == [20, 20, 5, 5, 5]
    assert page.count("Ideal ranking: as for a.") == 1
    assert page.count("Ranks 1\u201320 of 30 shown.") == 2
    assert "DCG@5 = 1/1 + 0/1.585 + 0/2 + 1/2.322 + 0/2.585" in page  # the formula of rankmeter.explain
    assert "\nideal DCG@5 (qrels) = " in page and "\\n" not in page  # its lines on lines of their own
    small = render_report(qrels, {"a": run, "b": run}, ["AP"], plots=False, max_ranks=3, test="randomization",
                          permutations=50)
    assert [t.count("<tr>") - 1 for t in re.findall(r'<table class="ranks[^"]*">(.*?)</table>', small, re.S)] == [3, 3]


def test_explained_queries_can_be_capped():
    page = render_report(QRELS, RUNS, ["RR"], plots=False, max_explained=2, test="randomization", permutations=50)
    assert re.findall(r'<details class="explain" id="(q-\d)"', page) == ["q-0", "q-1"]
    assert "the first 2 of 3 queries" in page
    assert '<a href="#q-1">q2</a>' in page and '<a href="#q-2">' not in page


def test_every_table_orders_queries_naturally_and_the_header_counts_them():
    """q2 before q10 in the per-query table, the explanations (the "first 2" are q1 and q2) and the data; the
    query column sorts by that order; the header counts the rows shown and each run's share of them."""
    qrels = {"q10": {"a": 1}, "q2": {"a": 1}, "q1": {"a": 1}, "q3": {"a": 1}}
    runs = {"x": {"q10": ["a"], "q2": ["b", "a"], "q1": ["a"]}, "y": {"q1": ["a"], "q10": ["b", "a"]}}
    page = render_report(qrels, runs, ["RR"], plots=False, max_explained=2, test="randomization", permutations=50)
    assert re.findall(r'<tr data-q="([^"]*)"', page) == ["q1", "q2", "q10"]
    assert '<th class="text" data-key="order">query</th>' in page  # the query column sorts by that order
    assert '<a href="#q-0">q1</a>' in page and '<a href="#q-1">q2</a>' in page and '<a href="#q-2">' not in page
    assert "the first 2 of 3 queries in natural order, q2 before q10" in page
    assert "3 (queries in both qrels and run; per run: x 3, y 2)" in page
    data = embedded_data(page)
    assert data["queries"] == ["q1", "q2", "q10"] and data["per_query"]["RR"]["y"][1] is None


def test_baseline_and_single_run():
    page = render_report(QRELS, RUNS, ["RR"], baseline="new", plots=False, test="randomization", permutations=50)
    assert tables_of(page)["per-query"][0][-1] == "\u0394 RR base \u2212 new"
    with pytest.raises(ParameterError, match="baseline='other' is not one of the runs"):
        render_report(QRELS, RUNS, ["RR"], baseline="other")
    one = render_report(QRELS, {"base": RUNS["base"]}, ["RR"])
    assert one.count("<svg") == 2  # distribution + PR, no difference plot
    assert "Significance tests were not run" in one


def test_judged_coverage_section_holds_hand_computed_values():
    page = render_report(QRELS, RUNS, ["RR"], plots=False)
    table = tables_of(page)["judged-coverage"]
    assert table[0][:7] == ["run", "queries", "Judged@10", "Judged@100", "Judged@1000", "RR", "RR judged only"]
    assert table[0][-3:] == ["bpref", "infAP", "RBP(p=0.8)"]
    base, new = table[1], table[2]
    # Judged@10: base lists x, a | b | c -> (1/2 + 1 + 1) / 3; new: a | x, b | y, z, c -> (1 + 1/2 + 1/3) / 3
    assert base[:3] == ["base", "3", "0.8333"] and new[:3] == ["new", "3", "0.6111"]
    # RR full = means of the RR table; with the unjudged docs removed every relevant doc is at rank 1
    assert base[5:7] == [f"{np.mean(RR['base']):.4f}", "1.0000"] and new[5:7] == [f"{np.mean(RR['new']):.4f}", "1.0000"]
    # RBP(0.8) of base: q1 0.2 * 0.8, q2 and q3 0.2; its residual: q1 0.2 (x at rank 1) + 0.8^2, q2/q3 0.8
    low = (0.16 + 0.2 + 0.2) / 3
    assert base[-1] == f"[{low:.4f}, {low + (0.2 + 0.64 + 0.8 + 0.8) / 3:.4f}]"
    assert '<a href="#sec-coverage">judged coverage</a>' in page


def test_ties_section_counts_groups_and_straddles():
    qrels = {"q1": {"d0": 1}, "q2": {"a": 1}}
    runs = {"tied": {"q1": {f"d{i}": 1.0 for i in range(12)}, "q2": {"a": 2.0, "b": 1.0, "c": 1.0}},
            "clean": {"q1": {"d0": 2.0, "d1": 1.0}, "q2": {"a": 1.0}},
            "ranked": {"q1": ["d0", "d1"], "q2": ["a"]}}
    page = render_report(qrels, runs, ["P@10"], plots=False)
    table = tables_of(page)["ties"]
    assert table[0] == ["run", "queries", "tied groups", "straddling 10", "straddling 100", "straddling 1000",
                        "queries with ties"]
    # tied: q1's 12 equal scores hold ranks 1-12 (across 10); q2's b, c at ranks 2-3
    assert table[1:] == [["tied", "2", "2", "1", "0", "0", "2"], ["clean", "2", "0", "0", "0", "0", "0"],
                         ["ranked", "2", "0", "0", "0", "0", "0"]]
    assert "docno, descending" in page
    assert "the file order" in render_report(qrels, runs, ["P@10"], plots=False, ties="input")


def test_hostile_ids_are_escaped_everywhere(hostile_report):
    page = hostile_report.read_text()
    assert page.count("<script") == 2 and page.count("</script>") == 2
    for raw in [HOSTILE_TAG, HOSTILE_TAG2, HOSTILE_DOC, HOSTILE_FILE, *HOSTILE_QUERIES]:
        assert raw not in page
    assert "&lt;img/src=x/onerror=document.documentElement.dataset.pwned=1&gt;" in page
    assert not re.search(r"<(img|svg/|iframe)", page)
    assert 'data-q="&quot;&gt;&lt;svg/onload=' in page
    data = embedded_data(page)
    assert HOSTILE_QUERIES[0] in data["queries"] and data["runs"][0]["tag"] == HOSTILE_TAG
    tables = tables_of(page)
    for section in ("judged-coverage", "ties"):  # the parser unescapes: the cells hold the tags as text
        assert [row[0] for row in tables[section][1:]] == [HOSTILE_TAG, HOSTILE_TAG2]


def test_script_json_cannot_close_the_block():
    text = script_json({"a": "</script><!--&\u2028\u2029", "n": float("nan"), "v": np.float64(0.5)})
    assert not re.search("[<>&\u2028\u2029]", text)
    assert json.loads(text) == {"a": "</script><!--&\u2028\u2029", "n": None, "v": 0.5}


def test_cli_report(tmp_path, cli):
    out = tmp_path / "cli.html"
    done = cli("report", EXAMPLES / "qrels.txt", EXAMPLES / "run.txt", EXAMPLES / "run2.txt",
               "-m", "AP", "-m", "P@5", "-o", out, "--test", "randomization", "--baseline", "neural",
               "--explain-queries", "3", "--title", "<i>T</i>")
    assert done.code == 0 and str(out) in done.err, done.err
    page = out.read_text()
    assert "<title>&lt;i&gt;T&lt;/i&gt;</title>" in page
    assert len(re.findall(r'<details class="explain"', page)) == 3
    assert cli("report", EXAMPLES / "qrels.txt", EXAMPLES / "run.txt", "-m", "AP",
               "-o", out, "--baseline", "nope").code == 2


# ------------------------------------------------------------------ real browser: chromium directly

needs_chromium = pytest.mark.skipif(not os.access(CHROMIUM, os.X_OK),
                                    reason=f"{CHROMIUM} not installed (apt-get install chromium; .ci/run does)")


def _chromium(tmp_path, *args: str) -> str:
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
           f"--user-data-dir={tmp_path / 'profile'}", *args]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@needs_chromium
def test_dump_dom_sort_and_filter_hooks(rr_report, tmp_path):
    # ?sort=-2: column 2 (RR new) descending; ?filter=q: every row; then only q2 and q3 remain for "q" + digit.
    dom = _chromium(tmp_path, "--dump-dom", rr_report.as_uri() + "?sort=-2")
    assert 'data-ready="1"' in dom
    assert re.findall(r'<tr data-q="([^"]*)"', dom) == ["q1", "q2", "q3"]  # 1, 0.5, 0.333
    dom = _chromium(tmp_path, "--dump-dom", rr_report.as_uri() + "?sort=3&filter=Q2")
    assert re.findall(r'<tr data-q="([^"]*)"', dom) == ["q3", "q2", "q1"]  # delta -0.667, -0.5, 0.5
    assert re.findall(r'<tr data-q="([^"]*)" hidden', dom) == ["q3", "q1"]
    assert "1 of 3 queries shown" in dom


@needs_chromium
def test_dump_dom_hostile_ids_stay_inert(hostile_report, tmp_path):
    dom = _chromium(tmp_path, "--dump-dom", hostile_report.as_uri())
    assert 'data-ready="1"' in dom and "data-pwned" not in dom
    assert "&lt;img/src=x/onerror=document.documentElement.dataset.pwned=1&gt;" in dom


def _boxes(page, selector: str) -> list[tuple[int, int, int, int]]:
    """Page coordinates (x, y, width, height) of every element matching ``selector``, as on a full-page shot."""
    return [tuple(int(round(v)) for v in box) for box in page.eval_on_selector_all(
        selector, "els => els.map(e => { const r = e.getBoundingClientRect();"
                  " return [r.left + scrollX, r.top + scrollY, r.width, r.height]; })")]


def _text_lines(mask) -> int:
    """Separate horizontal bands of ``mask`` (lines of text in a cell or table)."""
    rows = mask.any(axis=1)
    return int(rows[0]) + int(np.count_nonzero(rows[1:] & ~rows[:-1]))


def test_screenshot_shows_the_tables_their_colours_and_the_plots(page_of, rr_report):
    """What a reader sees, checked in the pixels of a full-page screenshot at the elements' own boxes.

    A blank or unstyled page, a table hidden or drawn white, the Δ column without its sign colours or a
    plot without its bars all fail here (thresholds measured on a good page: text covers 1-7 % of a table).
    """
    from io import BytesIO

    import matplotlib.image

    page = page_of(rr_report)
    pixels = matplotlib.image.imread(BytesIO(page.screenshot(full_page=True)), format="png")[..., :3]
    dark = pixels.max(axis=-1) < 0.5  # text and axes
    red = (pixels[..., 0] > 0.6) & (pixels[..., 1] < 0.45) & (pixels[..., 2] < 0.45)
    blue = (pixels[..., 2] > 0.5) & (pixels[..., 0] < 0.4)

    def at(mask, box):
        x, y, w, h = box
        assert w > 0 and h > 0 and y + h <= mask.shape[0] and x + w <= mask.shape[1], f"box {box} off the page"
        return mask[y:y + h, x:x + w]

    (comparison,) = _boxes(page, "#comparison")
    assert comparison[2] > 400 and 0.01 < at(dark, comparison).mean() < 0.3
    assert _text_lines(at(dark, comparison)) >= 3  # header, base, new
    assert at(red, comparison).any()  # new's negative mean difference, in red

    rows = _boxes(page, "#per-query tbody tr")
    assert len(rows) == 3 and all(h >= 15 for _, _, _, h in rows)
    for box in rows:
        assert at(dark, box).mean() > 0.01, f"per-query row {box} drawn without visible text"
    deltas = _boxes(page, "#per-query tbody tr td:last-child")  # RR new - base: +0.5, -0.5, -0.667
    assert [bool(at(blue, box).any()) for box in deltas] == [True, False, False]
    assert [bool(at(red, box).any()) for box in deltas] == [False, True, True]

    figures = _boxes(page, "figure svg")
    assert len(figures) >= 2 and min(w for _, _, w, _ in figures) > 200
    bars = figures[0]  # per-query differences: one bar up (blue), two down (red)
    assert at(blue, bars).mean() > 0.01 and at(red, bars).mean() > 0.02 and at(dark, bars).any()


# ------------------------------------------------------------------ real browser: playwright on the same chromium

@pytest.fixture(scope="module")
def page_of():
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip(f"{CHROMIUM} not installed (apt-get install chromium; .ci/run does)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright not installed (pip install playwright)")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])

        def open_page(path: Path, query: str = ""):
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.requests, page.errors = [], []
            page.on("request", lambda r: page.requests.append(r.url))
            page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: page.errors.append(str(e)))
            page.goto(path.as_uri() + query)
            page.wait_for_selector("html[data-ready='1']", timeout=10000)
            return page

        yield open_page
        browser.close()


def _query_order(page) -> list[str]:
    return page.eval_on_selector_all("#per-query tbody tr", "rows => rows.map(r => r.dataset.q)")


def _visible(page) -> list[str]:
    return page.eval_on_selector_all("#per-query tbody tr", "rows => rows.filter(r => !r.hidden).map(r => r.dataset.q)")


def test_tables_and_plots_render(page_of, tmp_path):
    runs = [str(EXAMPLES / "run.txt"), str(EXAMPLES / "run2.txt")]
    path = write_report(str(EXAMPLES / "qrels.txt"), runs, ["AP", "nDCG@10"], tmp_path / "examples.html")
    page = page_of(path)
    assert page.locator("#comparison tbody tr").count() == 4
    assert page.locator("#per-query tbody tr").count() == 8
    boxes = page.eval_on_selector_all("figure svg", "els => els.map(e => e.getBoundingClientRect().width)")
    assert len(boxes) == 5 and min(boxes) > 200
    assert page.locator("figure svg text", has_text="Interpolated precision-recall").count() == 1
    assert page.requests == [path.as_uri()] and page.errors == []  # nothing fetched, no CSP violation
    assert page.locator("#judged-coverage tbody tr").count() == 2 and page.locator("#ties tbody tr").count() == 2
    assert page.locator("#sec-coverage h2").inner_text() == "Judged coverage"
    assert page.locator("#ties").is_visible() and page.locator("#judged-coverage").is_visible()
    runs_by = "rs => rs.map(r => r.cells[0].textContent)"
    page.locator("#ties thead th").nth(2).click()  # tied groups ascending: neural 0, bm25 3
    assert page.eval_on_selector_all("#ties tbody tr", runs_by) == ["neural", "bm25"]
    page.locator("#judged-coverage thead th").nth(2).click()  # Judged@10 ascending: neural 0.4125, bm25 0.425
    assert page.eval_on_selector_all("#judged-coverage tbody tr", runs_by) == ["neural", "bm25"]
    page.close()


def test_clicking_headers_sorts(page_of, rr_report):
    page = page_of(rr_report)
    header = page.locator("#per-query thead th").nth(2)  # RR new: 1, 0.5, 0.333
    header.click()
    assert _query_order(page) == ["q3", "q2", "q1"] and header.get_attribute("aria-sort") == "ascending"
    header.click()
    assert _query_order(page) == ["q1", "q2", "q3"] and header.get_attribute("aria-sort") == "descending"
    header.click()
    page.locator("#per-query thead th").nth(1).click()  # RR base: 0.5, 1, 1 (tied q3, q2 keep their order)
    assert _query_order(page) == ["q1", "q3", "q2"] and header.get_attribute("aria-sort") == "none"
    page.locator("#per-query thead th").nth(0).click()
    assert _query_order(page) == ["q1", "q2", "q3"]
    page.locator("#comparison thead th").nth(3).click()  # comparison table sorts too: mean ascending
    assert page.eval_on_selector_all("#comparison tbody tr", "rs => rs.map(r => r.cells[1].textContent)") == [
        "new", "base"]
    page.close()


def test_the_query_column_sorts_in_natural_order(page_of, tmp_path):
    ids = ["q10", "Q2", "q2", "q1", "q01"]   # natural order: Q2 (upper case first), q01, q1, q2, q10
    qrels = {q: {"a": 1} for q in ids}
    runs = {"x": {q: ["a"] for q in ids}, "y": {q: ["b", "a"] for q in ids}}
    path = tmp_path / "natural.html"
    path.write_text(render_report(qrels, runs, ["RR"], plots=False, test="randomization", permutations=50))
    page = page_of(path)
    want = ["Q2", "q01", "q1", "q2", "q10"]
    assert _query_order(page) == want
    header = page.locator("#per-query thead th").nth(0)
    header.click()
    assert _query_order(page) == want and header.get_attribute("aria-sort") == "ascending"
    header.click()
    assert _query_order(page) == want[::-1] and header.get_attribute("aria-sort") == "descending"
    page.close()


def test_filter_box_filters_rows_and_explanations(page_of, rr_report):
    page = page_of(rr_report)
    page.fill("#filter", "2")
    assert _visible(page) == ["q2"] and page.inner_text("#filter-count") == "1 of 3 queries shown"
    assert page.eval_on_selector_all("details.explain", "ds => ds.filter(d => !d.hidden).map(d => d.id)") == ["q-1"]
    page.fill("#filter", "Q")
    assert _visible(page) == ["q1", "q2", "q3"]
    page.fill("#filter", "nothing")
    assert _visible(page) == [] and page.inner_text("#filter-count") == "0 of 3 queries shown"
    page.close()


def test_query_link_opens_its_explanation(page_of, rr_report):
    page = page_of(rr_report)
    assert not page.eval_on_selector("#q-2", "d => d.open")
    page.click("#per-query a[href='#q-2']")
    for _ in range(50):  # (wait_for_function evaluates a string, which the page's CSP forbids)
        if page.eval_on_selector("#q-2", "d => d.open"):
            break
        page.wait_for_timeout(50)
    assert page.eval_on_selector("#q-2", "d => d.open")
    assert "RR = 1/3" in page.inner_text("#q-2")
    page.close()


@pytest.mark.parametrize("strip_csp", [False, True], ids=["with-csp", "escaping-alone"])
def test_hostile_ids_do_not_execute(page_of, hostile_report, tmp_path, strip_csp):
    path = hostile_report
    if strip_csp:  # the escaping must hold on its own, without the Content-Security-Policy behind it
        path = tmp_path / "no_csp.html"
        path.write_text(re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", hostile_report.read_text()))
    page = page_of(path)
    page.locator("details.explain > summary").first.click()
    for d in page.query_selector_all("details"):
        d.evaluate("d => d.open = true")
    page.fill("#filter", "script")
    page.wait_for_timeout(200)
    assert page.evaluate(f"{PWN} === undefined")
    assert page.title().startswith(f"rankmeter report: {HOSTILE_TAG}")
    shown = page.inner_text("body")
    for text in [HOSTILE_TAG, HOSTILE_TAG2, HOSTILE_DOC, HOSTILE_QUERIES[0], HOSTILE_FILE, "q$x$"]:
        assert text in shown
    for table in ("#judged-coverage", "#ties"):
        assert page.inner_text(f"{table} tbody tr:first-child td:first-child") == HOSTILE_TAG
    assert page.locator("body img, body iframe, body script:not([type])").count() == 1  # only the report's script
    assert page.errors == [] and all(u.startswith("file:") for u in page.requests)
    page.close()


def test_example_screenshot(page_of, tmp_path):
    """Leaves a full-page screenshot of the examples' report for a person to look at (RANKMETER_SHOT=path)."""
    runs = [str(EXAMPLES / "run.txt"), str(EXAMPLES / "run2.txt")]
    path = write_report(str(EXAMPLES / "qrels.txt"), runs, ["AP", "nDCG@10"], tmp_path / "examples.html")
    page = page_of(path)
    page.click("details.explain > summary")
    target = Path(os.environ.get("RANKMETER_SHOT", tmp_path / "report.png"))
    page.screenshot(path=str(target), full_page=True)
    assert target.stat().st_size > 50_000
    page.close()


def test_report_comparison_is_compares_table():
    """The report tests the per-query values it already holds: the rows rankmeter.compare gives."""
    from rankmeter import compare
    from rankmeter.report.html import comparison_table
    from rankmeter.report.plots import align_per_query
    from rankmeter.core import Evaluator

    runs = {"a": str(EXAMPLES / "run.txt"), "b": str(EXAMPLES / "run2.txt")}
    measures = ["AP", "nDCG@10"]
    evaluator = Evaluator(str(EXAMPLES / "qrels.txt"), measures)
    results = [(name, evaluator.evaluate(run)) for name, run in runs.items()]
    tables = {label: align_per_query(str(m), results) for label, m in evaluator.names}
    for label, t in tables.items():
        t.measure = label
    from rankmeter.stats.params import Significance
    tests = Significance(test="randomization", correction="holm", alpha=0.05, permutations=500, seed=3)
    rows, tested = comparison_table(runs, baseline="b", tables=tables, tests=tests)
    want = compare(str(EXAMPLES / "qrels.txt"), runs, measures, baseline="b", test="randomization",
                   correction="holm", permutations=500, seed=3).table_records()
    assert tested and rows == want
