"""One answer wherever the same thing is asked: the same inputs through every command and API function.

Two run files with one tag (``r``) over queries whose byte order (q1, q10, q2, q9) is not their natural
order (q1, q2, q9, q10), with tied scores: every command and function must name the runs alike
(``a.run``, ``b.run``), list queries in natural order, count the same queries, and count the same tie
groups over the queries it says.
"""
from __future__ import annotations

import csv
import io
import json
import re

import pytest

import rankmeter
from rankmeter.core.rows import ranked, tie_summary

NATURAL = ["q1", "q2", "q9", "q10"]


@pytest.fixture()
def files(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 d{i} {i % 3}\n" for q in NATURAL for i in range(6)))
    a, b = tmp_path / "a.run", tmp_path / "b.run"
    # byte order in the files; ties: q2 d1/d2 and q10 d3/d4 in a, every q9 doc in b
    lines_a = [f"{q} Q0 d{i} {i + 1} {6 - i - (1 if (q, i) in {('q2', 2), ('q10', 4)} else 0)}.0 r\n"
               for q in ("q1", "q10", "q2", "q9") for i in range(6)]
    lines_b = [f"{q} Q0 d{5 - i} {i + 1} {1.0 if q == 'q9' else 6.0 - i} r\n"
               for q in ("q1", "q10", "q2", "q9") for i in range(6)]
    a.write_text("".join(lines_a))
    b.write_text("".join(lines_b))
    return str(qrels), str(a), str(b)


def test_run_names_are_the_same_everywhere(files, cli):
    qrels, a, b = files
    want = ["a.run", "b.run"]
    text = cli("eval", qrels, a, b, "-m", "AP").stdout
    assert [line.split()[0] for line in text.splitlines()[1:]] == want
    data = json.loads(cli("eval", qrels, a, b, "-m", "AP", "--format", "json").stdout)
    assert [r["run"] for r in data["runs"]] == want
    rows = list(csv.reader(io.StringIO(cli("eval", qrels, a, b, "-m", "AP", "--format", "csv").stdout)))
    assert [r[0] for r in rows[1:]] == want
    compared = json.loads(cli("compare", qrels, a, b, "-m", "AP", "--format", "json").stdout)
    assert sorted({r["system"] for r in compared["table"]}) == want
    assert rankmeter.evaluate_runs(qrels, [a, b], "AP").runs == want
    assert list(rankmeter.compare(qrels, [a, b], "AP").table["system"].unique()) == want


def test_queries_are_in_natural_order_in_every_per_query_table(files, cli):
    qrels, a, b = files
    r = rankmeter.evaluate(qrels, a, ["AP", "P@2"])
    assert r.queries == NATURAL
    assert r.to_arrow().column("query").to_pylist() == NATURAL
    assert [row["query"] for row in r.to_dict(per_query=True)["per_query"]] == NATURAL
    assert re.findall(r"<td>(q\d+)</td>", r._repr_html_()) == NATURAL
    text = cli("eval", qrels, a, "-m", "AP", "-q").stdout
    assert [line.split()[1] for line in text.splitlines()[1:-1]] == NATURAL
    data = json.loads(cli("eval", qrels, a, "-m", "AP", "-q", "--format", "json").stdout)
    assert [row["query"] for row in data["runs"][0]["per_query"]] == NATURAL
    rows = list(csv.reader(io.StringIO(cli("eval", qrels, a, "-m", "AP", "-q", "--format", "csv").stdout)))
    assert [row[1] for row in rows[1:-1]] == NATURAL
    cmp = rankmeter.compare(qrels, [a, b], "AP")
    assert list(cmp.queries) == NATURAL
    report = rankmeter.tie_report(qrels, a, ["AP"])
    assert [row["query"] for row in report.per_query] == NATURAL
    assert [g["query"] for g in report.groups] == NATURAL
    ev = rankmeter.Evaluator(qrels, ["AP"])
    assert list(dict.fromkeys(ev.rows(a).column("query").to_pylist())) == NATURAL
    assert list(dict.fromkeys(ranked(a).column("query").to_pylist())) == NATURAL
    # trec_eval's own text keeps trec_eval's order: its topics sorted bytewise
    te = cli("trec_eval", "-q", "-m", "map", qrels, a).stdout
    assert [line.split()[1] for line in te.splitlines() if line.split()[1] != "all"] == ["q1", "q10", "q2", "q9"]


def test_tie_groups_and_query_counts_agree(files, cli):
    qrels, a, b = files
    for run, groups in ((a, 2), (b, 1)):
        whole = tie_summary(ranked(run))
        assert (whole["queries"], whole["groups"]) == (4, groups)
        found = {f["code"]: f for f in json.loads(cli("check", qrels, run, "--format", "json").stdout)["findings"]}
        assert found["ties"]["details"]["groups"] == groups
        assert found["ties"]["details"]["queries"] == 4
        report = json.loads(cli("ties", qrels, run, "-m", "AP", "--format", "json").stdout)
        assert sum(g["tied_groups"] for g in report["groups"]) == groups  # every query of the run is judged
        assert len(report["groups"]) == 4
        rows = rankmeter.Evaluator(qrels, ["AP"]).rows(run)
        assert tie_summary(rows) == whole  # judged queries = every query here
    results = rankmeter.evaluate_runs(qrels, [a, b], "AP")
    assert [len(res.queries) for _, res in results] == [4, 4]


def test_report_names_runs_and_counts_ties_as_check_does(files, tmp_path, cli):
    qrels, a, b = files
    page = tmp_path / "report.html"
    assert cli("report", qrels, a, b, "-m", "AP", "-o", page).returncode == 0
    html = page.read_text()
    assert "a.run" in html and "b.run" in html
    ties = html[html.index('id="ties"'):]
    cells = re.findall(r'<td class="text run">([^<]+)</td><td data-v="(\d+)">\d+</td><td data-v="(\d+)">', ties)
    assert [(name, int(nq), int(groups)) for name, nq, groups in cells[:2]] == [("a.run", 4, 2), ("b.run", 4, 1)]


def test_p_values_and_notebook_views_say_one_thing(files):
    qrels, a, b = files
    from rankmeter.report.markup import format_p
    from rankmeter.report.tables import _p_text as text_p
    for v in (0.5, 0.04321, 1e-4, 3e-7):
        assert text_p(v) == format_p(v)  # the text tables and the HTML report print a p-value alike
    cmp = rankmeter.compare(qrels, [a, b], "AP")
    page = cmp._repr_html_()
    assert "nan" not in page.lower() and "no correction" in page
    baseline_row = page.split("a.run")[1].split("</tr>")[0]  # a.run is the baseline: no test, no wins
    assert ">0<" not in baseline_row
    assert repr(rankmeter.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, "AP")).startswith("Results(1 query:")


def test_means_over_different_query_sets_say_how_many(files, tmp_path, cli):
    qrels, a, b = files
    short = tmp_path / "short.run"
    short.write_text("".join(line for line in open(b) if not line.startswith("q9 ")))
    text = cli("eval", qrels, a, short, "-m", "AP").stdout.splitlines()
    assert text[0].split()[-1] == "queries" and [line.split()[-1] for line in text[1:]] == ["4", "3"]
    same = cli("eval", qrels, a, b, "-m", "AP").stdout.splitlines()
    assert "queries" not in same[0]  # the same queries: no count to show
