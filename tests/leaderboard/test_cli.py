"""``rankmeter leaderboard``: the fixed JSON interface, the text, Markdown and LaTeX tables, the HTML report,
and one-line errors."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from rankmeter.leaderboard import PAIR_KEYS, ROW_KEYS

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "leaderboard"
MANIFEST = str(EXAMPLE / "manifest.json")


@pytest.fixture(scope="module")
def board_json():
    from cli_runner import run_cli_in_process
    result = run_cli_in_process("leaderboard", MANIFEST, "-m", "nDCG@10", "-m", "RR@10", "--resamples", "600",
                                "--seed", "3", "--baseline", "hybrid", "--margin", "0.02", "--format", "json")
    assert result.code == 0, result.err
    return json.loads(result.out)


def test_json_is_the_fixed_interface(board_json):
    data = board_json
    assert list(data)[:6] == ["measures", "systems", "collections", "level", "rows", "pairs"]
    assert data["measures"] == ["nDCG@10", "RR@10"] and data["level"] == "queries"
    assert data["systems"] == ["bm25", "dense", "hybrid", "rerank"]
    assert data["collections"] == ["scifacts", "finqa", "newsroom", "medline", "forum"]
    assert len(data["rows"]) == 8 and len(data["pairs"]) == 12
    for row in data["rows"]:
        assert tuple(row)[:len(ROW_KEYS)] == ROW_KEYS
        lo, hi = row["interval"]
        assert lo <= row["mean"] <= hi and isinstance(row["tied_with_top"], bool) and row["group"].isalpha()
        assert 1 <= row["rank_interval"][0] <= row["rank"] <= row["rank_interval"][1] <= 4
        # the mean is the mean of the collections' means
        assert row["mean"] == pytest.approx(sum(row["collections"].values()) / 5, rel=1e-12)
    for pair in data["pairs"]:
        assert tuple(pair)[:len(PAIR_KEYS)] == PAIR_KEYS
        assert 0 < pair["p"] <= pair["p_adjusted"] <= 1 and 0 <= pair["win_probability"] <= 1
    tops = [r for r in data["rows"] if r["measure"] == "nDCG@10" and r["rank"] == 1]
    assert tops[0]["tied_with_top"] and tops[0]["rank_interval"][0] == 1
    assert {r["system"] for r in data["baseline"]} == {"bm25", "dense", "rerank"}


def test_the_means_are_the_cores_scores(board_json):
    import rankmeter
    per = rankmeter.evaluate(str(EXAMPLE / "finqa.qrels"), str(EXAMPLE / "finqa.dense.run"), ["nDCG@10"])
    row = next(r for r in board_json["rows"] if r["system"] == "dense" and r["measure"] == "nDCG@10")
    assert row["collections"]["finqa"] == pytest.approx(per["nDCG@10"], rel=1e-12)


@pytest.mark.parametrize("fmt, marks", [("text", ["rank interval", "tied with the top"]),
                                        ("markdown", ["### nDCG@10", "| rank | rank interval |"]),
                                        ("latex", [r"\begin{tabular}{lr}", r"\textsuperscript{"])])
def test_tables(cli, fmt, marks):
    result = cli("leaderboard", MANIFEST, "-m", "nDCG@10", "--resamples", "300", "--format", fmt)
    assert result.code == 0, result.err
    for mark in marks:
        assert mark in result.out


def test_per_collection_tables_and_the_profile(cli):
    result = cli("leaderboard", MANIFEST, "--profile", "beir", "--resamples", "300", "--per-collection",
                 "--permutations", "300")
    assert result.code == 0, result.err
    assert result.out.startswith("nDCG@10:") and "Per collection" in result.out and "finqa (20 queries)" in result.out


def test_per_collection_scores_and_missing_cells(cli, tmp_path):
    table = tmp_path / "scores.csv"
    table.write_text("system,collection,measure,value\nA,x,nDCG@10,0.5\nB,x,nDCG@10,0.4\nA,y,nDCG@10,0.6\n"
                     "B,y,nDCG@10,0.45\nA,z,nDCG@10,0.3\nB,z,nDCG@10,0.2\nA,w,nDCG@10,0.7\n")
    refused = cli("leaderboard", table)
    assert refused.code == 2 and refused.err.count("\n") == 1
    assert "'B' has no nDCG@10 for collection 'w'" in refused.err and "--missing drop" in refused.err
    dropped = cli("leaderboard", table, "--missing", "drop", "--resamples", "300", "--format", "json")
    data = json.loads(dropped.out)
    assert data["level"] == "collections" and data["collections"] == ["x", "y", "z"]
    assert data["notes"] == ["collection 'w' left out: 'B' has no nDCG@10 there"]
    assert cli("leaderboard", table, "--missing", "drop", "--level", "queries").err.startswith(
        "rankmeter: error: --level queries: per-collection scores have no queries")


def test_errors_are_one_line(cli, tmp_path):
    for args, message in [((MANIFEST,), "give the measures"),
                          ((MANIFEST, "-m", "AP", "--level", "docs"), "argument --level"),
                          ((MANIFEST, "-m", "AP", "--margin", "0.1"), "margin: give the baseline"),
                          ((MANIFEST, "-m", "AP", "--baseline", "bm26"), "'bm26' is not one of the systems"),
                          ((str(tmp_path / "none.json"), "-m", "AP"), "none.json")]:
        result = cli("leaderboard", *args)
        assert result.code == 2 and result.err.count("\n") == 1 and message in result.err, result.err
        assert "Traceback" not in result.err


def test_html_report_is_written_and_never_over_an_input(cli, tmp_path):
    path = tmp_path / "board.html"
    result = cli("leaderboard", MANIFEST, "-m", "nDCG@10", "--resamples", "300", "--report", path)
    assert result.code == 0, result.err
    page = path.read_text()
    assert 'id="sec-leaderboard"' in page and page.count('class="rank-interval"') == 4
    assert page.count('class="win-cell"') == 12
    assert cli("leaderboard", MANIFEST, "-m", "nDCG@10", "--report", MANIFEST).code == 2


def test_hostile_names_are_escaped_in_every_format(tmp_path):
    import pandas as pd

    import rankmeter
    from rankmeter.report.html import render_leaderboard_report
    hostile = "<img src=x onerror=alert(1)>|&_%$"
    table = pd.DataFrame({"system": [hostile, "plain"] * 2, "collection": ["<b>x</b>", "<b>x</b>", "y", "y"],
                          "measure": "m", "value": [0.5, 0.4, 0.6, 0.3]})
    board = rankmeter.leaderboard(table, resamples=200)
    page = render_leaderboard_report(board)
    assert "<img" not in page and "<b>x" not in page
    assert r"\textless{}img src=x onerror=alert(1)\textgreater{}\textbar{}\&\_\%\$ &" in board.to_latex()
    assert r"\|&_%$" in board.to_markdown()
