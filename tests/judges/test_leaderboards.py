"""Leaderboard agreement (rankmeter.judges.leaderboard_agreement, `meta leaderboards`) against scipy and TREC AutoJudge."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from optional_packages import optional  # noqa: E402

stats = optional("scipy.stats")

import rankmeter
from rankmeter.judges.leaderboard_agreement import (
    from_scores,
    leaderboards,
    read_leaderboard,
)
from rankmeter.errors import InputError, ParameterError
from rankmeter.report.svg import slope_svg

AUTOJUDGE = Path(__file__).parents[1] / "fixtures" / "llm_judges" / "autojudge.json"


def _close(got, want):
    return (got is None and np.isnan(want)) or (got is not None and abs(got - want) <= 1e-12)


@pytest.mark.parametrize("seed", range(30))
def test_correlations_equal_scipy_on_random_leaderboards(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 15))
    a = {f"run{i}": float(v) for i, v in enumerate(rng.integers(0, 6, n) / 5)}
    b = {f"run{i}": float(v) for i, v in enumerate(rng.integers(0, 6, n) / 5)}
    got = from_scores({"AP": a}, {"AP": b}).measures[0]
    x, y = list(a.values()), list(b.values())
    if len(set(x)) == 1 or len(set(y)) == 1:
        assert all(v is None for k, v in got["correlations"].items() if k not in ("systems", "undefined"))
        return
    c = got["correlations"]
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _close(c["kendall_tau_b"], stats.kendalltau(x, y).statistic)
        assert _close(c["spearman"], stats.spearmanr(x, y).statistic)
        assert c["pearson"] == pytest.approx(stats.pearsonr(x, y).statistic, abs=1e-12)
    ranks_a = stats.rankdata([-v for v in x], method="min")
    assert [r["rank_a"] for r in sorted(got["runs"], key=lambda r: int(r["run"][3:]))] == list(ranks_a)


def test_tau_ap_equals_autojudge_tauap_b_through_leaderboards():
    cases = json.loads(AUTOJUDGE.read_text())["cases"]
    compared = 0
    for case in cases:
        board_a = {"M": {f"r{i}": v for i, v in enumerate(case["a"])}}
        board_b = {"M": {f"r{i}": v for i, v in enumerate(case["b"])}}
        got = from_scores(board_a, board_b).measures[0]["correlations"]
        if case["tauap_b"] is None:
            assert got["tau_ap"] is None and got["undefined"]["tau_ap"].startswith("every system scores")
        else:
            assert got["tau_ap"] == pytest.approx(case["tauap_b"], abs=1e-12), case["name"]
            assert got["kendall_tau_b"] == pytest.approx(case["kendall"], abs=1e-12)
            assert got["spearman"] == pytest.approx(case["spearman"], abs=1e-12)
            assert got["pearson"] == pytest.approx(case["pearson"], abs=1e-12)
            compared += 1
    assert compared == 278


def test_moves_and_top_k_by_hand():
    a = {"r1": 0.5, "r2": 0.4, "r3": 0.3, "r4": 0.2, "r5": 0.1}
    b = {"r1": 0.2, "r2": 0.4, "r3": 0.3, "r4": 0.5, "r5": 0.1}
    m = from_scores({"AP": a}, {"AP": b}, top_k=(1, 2, 3)).measures[0]
    assert [(r["run"], r["change"]) for r in m["moves"][:2]] == [("r1", -3), ("r4", 3)]
    assert [(t["k"], t["common"], t["only_a"], t["only_b"]) for t in m["top_k"]] == [
        (1, 0, ["r1"], ["r4"]), (2, 1, ["r1"], ["r4"]), (3, 2, ["r1"], ["r4"])]
    tied = from_scores({"AP": {"x": 0.3, "y": 0.3, "z": 0.1}}, {"AP": {"x": 0.1, "y": 0.2, "z": 0.3}}, top_k=(1,))
    assert tied.measures[0]["top_k"][0]["only_a"] == ["x", "y"]  # both share rank 1


def test_every_run_alike_reports_undefined_with_the_reason():
    board = from_scores({"P@10": {"a": 0.2, "b": 0.2, "c": 0.2}}, {"P@10": {"a": 0.1, "b": 0.3, "c": 0.2}},
                        names=("human", "llm"))
    text = board.to_text()
    assert "undefined: every system scores 0.2 under human: the systems are not ranked" in text
    assert "nan" not in text and "Kendall's tau-b                  undefined" in text


def _qrels_and_runs(tmp_path, seed=3, nruns=5):
    rng = np.random.default_rng(seed)
    human = tmp_path / "human.qrels"
    llm = tmp_path / "llm.qrels"
    human.write_text("".join(f"q{q} 0 d{d} {int(rng.integers(0, 3))}\n" for q in range(6) for d in range(12)))
    llm.write_text("".join(f"q{q} 0 d{d} {int(rng.integers(0, 3))}\n" for q in range(6) for d in range(20)))
    runs = []
    for s in range(nruns):
        path = tmp_path / f"sys{s}.run"
        path.write_text("".join(f"q{q} Q0 d{d} {r + 1} {30 - r}.5 sys{s}\n"
                                for q in range(6) for r, d in enumerate(rng.permutation(20)[:10])))
        runs.append(str(path))
    return str(human), str(llm), runs


def test_scored_leaderboards_match_evaluate(tmp_path):
    human, llm, runs = _qrels_and_runs(tmp_path)
    got = leaderboards(human, llm, runs, ["nDCG@10", "AP"])
    assert [m["measure"] for m in got.measures] == ["nDCG@10", "AP"]
    first, second = rankmeter.evaluate_runs(human, runs, ["AP"]), rankmeter.evaluate_runs(llm, runs, ["AP"])
    ap = got.measures[1]
    for row in ap["runs"]:
        assert row["score_a"] == first[row["run"]]["AP"] and row["score_b"] == second[row["run"]]["AP"]
    x = [first[r]["AP"] for r in first.runs]
    y = [second[r]["AP"] for r in first.runs]
    assert ap["correlations"]["kendall_tau_b"] == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)


def test_precomputed_leaderboards_in_three_formats(tmp_path):
    trec = tmp_path / "sys1.txt"
    trec.write_text("runid\tall\tsys1\nnum_q\tall\t2\nmap\tq1\t0.5\nmap\tq2\t0.3\nmap\tall\t0.4\nP_10\tall\t0.2\n")
    four = tmp_path / "board.txt"
    four.write_text("sys1 map q1 0.5\nsys1 map all 0.4\nsys2 map all 0.6\n")
    table = tmp_path / "board.csv"
    table.write_text("run,measure,value\nsys1,map,0.4\nsys2,map,0.6\n")
    assert read_leaderboard([str(trec)]) == {"num_q": {"sys1": 2.0}, "map": {"sys1": 0.4}, "P_10": {"sys1": 0.2}}
    assert read_leaderboard(str(four)) == read_leaderboard(str(table)) == {"map": {"sys1": 0.4, "sys2": 0.6}}
    bad = tmp_path / "bad.txt"
    bad.write_text("sys1 map all high\n")
    with pytest.raises(InputError, match="not a number"):
        read_leaderboard(str(bad))
    with pytest.raises(ParameterError, match="one leaderboard only"):
        from_scores({"map": {"a": 1, "b": 2}}, {"map": {"a": 1, "c": 2}})


def _cli(argv):
    """``rankmeter meta ARGV`` in process; its output goes to this test's stdout (capsys reads it)."""
    import sys

    from cli_runner import run_cli_in_process
    result = run_cli_in_process("meta", *argv)
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    return result.returncode


def test_cli_scores_and_reads_boards(tmp_path, capsys):
    human, llm, runs = _qrels_and_runs(tmp_path)
    assert _cli(["leaderboards", human, llm, *runs, "-m", "nDCG@10", "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["a"] == human and len(got["measures"][0]["runs"]) == 5
    four = tmp_path / "a.txt"
    four.write_text("s1 M all 0.1\ns2 M all 0.2\ns3 M all 0.3\n")
    other = tmp_path / "b.txt"
    other.write_text("s1 M all 0.3\ns2 M all 0.2\ns3 M all 0.1\n")
    assert _cli(["leaderboards", "--board-a", str(four), "--board-b", str(other)]) == 0
    text = capsys.readouterr().out
    assert "Kendall's tau-b                  -1.0000" in text and "s1: 3 -> 1 (+2)" in text


def test_slope_chart_draws_one_line_per_run_coloured_by_its_move(tmp_path, capsys):
    import xml.etree.ElementTree as ET
    a = {"r1": 0.5, "r2": 0.4, "r3": 0.3, "<r4&>": 0.2}
    b = {"r1": 0.2, "r2": 0.4, "r3": 0.3, "<r4&>": 0.5}
    svg = slope_svg(from_scores({"AP": a}, {"AP": b}, names=("human", "llm")), "AP")
    root = ET.fromstring(svg)  # well-formed: the run name is escaped
    ns = "{http://www.w3.org/2000/svg}"
    lines = root.findall(f"{ns}line")
    assert len(lines) == 4
    colours = sorted(line.get("stroke") for line in lines)
    assert colours == ["#2b7bba", "#555555", "#555555", "#d6604d"]  # r4 climbs, r1 falls, r2 and r3 stay
    with pytest.raises(ParameterError, match="not in these leaderboards"):
        slope_svg(from_scores({"AP": a}, {"AP": b}), "P@10")
    board_a, board_b = tmp_path / "a.txt", tmp_path / "b.txt"
    board_a.write_text("s1 M all 0.1\ns2 M all 0.2\ns3 M all 0.3\n")
    board_b.write_text("s1 M all 0.3\ns2 M all 0.2\ns3 M all 0.1\n")
    out = tmp_path / "slope.svg"
    assert _cli(["leaderboards", "--board-a", str(board_a), "--board-b", str(board_b), "--svg", str(out)]) == 0
    assert ET.fromstring(out.read_text()).tag == f"{ns}svg"


def test_report_draws_the_two_leaderboards_when_given_two_qrels(tmp_path, cli):
    from pathlib import Path
    example = Path(__file__).resolve().parents[1] / "fixtures" / "llm_judges" / "example"
    runs = [str(example / f"{name}.run") for name in ("bm25", "monot5", "random", "rankllama")]
    page = tmp_path / "report.html"
    result = cli("report", str(example / "human.qrels"), *runs, "-m", "nDCG@10", "--other-qrels",
                 str(example / "llm.qrels"), "-o", str(page))
    assert result.returncode == 0, result.stderr
    html = page.read_text()
    section = html[html.index('id="sec-leaderboards"'):html.index('id="sec-coverage"')]
    assert section.count("<svg") == 1 and all(name in section for name in ("bm25", "monot5", "rankllama"))
    from rankmeter.judges.leaderboard_agreement import leaderboards
    found = leaderboards(str(example / "human.qrels"), str(example / "llm.qrels"),
                         {Path(r).stem: r for r in runs}, ["nDCG@10"])  # named by tag, as the report names them
    assert slope_svg(found, "nDCG@10") in section  # the chart the API draws, as it is
    without = cli("report", str(example / "human.qrels"), *runs, "-m", "nDCG@10", "-o", str(tmp_path / "b.html"))
    assert without.returncode == 0 and 'id="sec-leaderboards"' not in (tmp_path / "b.html").read_text()
