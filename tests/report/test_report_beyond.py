"""The report's beyond-accuracy section: runs read as recommendation lists against training interactions."""
from __future__ import annotations

import re

import pytest

from rankmeter.recsys.beyond import beyond_accuracy, compare_beyond
from rankmeter.errors import ParameterError
from rankmeter.io import as_run
from rankmeter.report.beyond import run_as_lists
from rankmeter.report.html import render_report

TRAIN = {"u1": ["a", "b"], "u2": ["a", "c"], "u3": ["b", "c", "d"]}   # popularity a 2, b 2, c 2, d 1
QRELS = {"u1": {"a": 1, "c": 0}, "u2": {"b": 1, "d": 1}}
RUNS = {"mine": {"u1": {"a": 3.0, "c": 2.0, "d": 1.0}, "u2": {"b": 3.0, "d": 1.0}},
        "pop": {"u1": {"a": 2.0, "b": 1.0}, "u2": {"b": 2.0, "a": 1.0}}}


def _beyond_cells(page: str) -> dict[str, dict[str, float]]:
    table = page.split('id="beyond"', 1)[1].split("</table>", 1)[0]
    keys = re.findall(r'<th class="num">([^<]+)</th>', table)
    out = {}
    for name, cells in re.findall(r'<tr><td class="text">([^<]+)</td>(.*?)</tr>', table):
        values = [float(v) if v else float("nan") for v in re.findall(r'data-v="([^"]*)"', cells)]
        out[name] = dict(zip(keys, values))
    return out


def test_run_lists_are_in_rank_order():
    lists = run_as_lists(as_run(RUNS["mine"]))
    assert lists.column("user").to_pylist() == ["u1", "u1", "u1", "u2", "u2"]
    assert lists.column("item").to_pylist() == ["a", "c", "d", "b", "d"]


def test_section_holds_beyond_accuracy_of_each_run_and_the_comparison():
    page = render_report(QRELS, RUNS, ["P@2"], train=TRAIN, beyond_k=2, plots=False)
    cells = _beyond_cells(page)
    # by hand, lists cut at 2: mine u1 [a, c] u2 [b, d]; pop u1 [a, b] u2 [b, a]
    assert cells["mine"]["arp"] == pytest.approx(((2 + 2) / 2 + (2 + 1) / 2) / 2)
    assert cells["pop"]["arp"] == pytest.approx(2.0)
    assert cells["mine"]["catalog_coverage"] == pytest.approx(4 / 4)
    assert cells["pop"]["catalog_coverage"] == pytest.approx(2 / 4)
    lists = {"mine": {"u1": ["a", "c"], "u2": ["b", "d"]}, "pop": {"u1": ["a", "b"], "u2": ["b", "a"]}}
    for name, recs in lists.items():
        want = beyond_accuracy(TRAIN, recs).overall
        for key, value in cells[name].items():
            assert value == pytest.approx(want[key], nan_ok=True), (name, key)
    # the comparison over users is compare_beyond's (t-test, baseline the first run)
    table = page.split('id="sec-beyond"', 1)[1].split("</section>", 1)[0]
    assert "Per-user measures compared over users" in table
    c = compare_beyond(TRAIN, lists, "arp", baseline="mine")
    delta = c.table[(c.table.system == "pop") & (c.table.measure == "arp")]["delta"].iloc[0]
    assert delta == pytest.approx(0.25)
    assert f"{delta:.4f}" in table


def test_one_run_has_no_comparison_and_k_without_train_is_refused():
    page = render_report(QRELS, {"mine": RUNS["mine"]}, ["P@2"], train=TRAIN, plots=False)
    assert 'id="beyond"' in page and "compared over users" not in page
    assert "sec-beyond" not in render_report(QRELS, RUNS, ["P@2"], plots=False)
    with pytest.raises(ParameterError, match="train"):
        render_report(QRELS, RUNS, ["P@2"], beyond_k=5, plots=False)


def test_cli_train_flag(tmp_path, cli):
    (tmp_path / "train.csv").write_text("user,item\n" + "".join(f"{u},{i}\n" for u, items in TRAIN.items()
                                                                  for i in items))
    (tmp_path / "q.txt").write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in QRELS.items() for d, g in docs.items()))
    paths = []
    for name, run in RUNS.items():
        path = tmp_path / f"{name}.run"
        path.write_text("".join(f"{q} Q0 {d} {i + 1} {s} {name}\n" for q, docs in run.items()
                                for i, (d, s) in enumerate(docs.items())))
        paths.append(str(path))
    out = tmp_path / "r.html"
    done = cli("report", tmp_path / "q.txt", *paths, "-m", "P@2", "-o", out, "--train", tmp_path / "train.csv",
               "--beyond-k", "2")
    assert done.returncode == 0, done.stderr
    cells = _beyond_cells(out.read_text())
    assert cells["pop"]["arp"] == pytest.approx(2.0)
    bad = cli("report", tmp_path / "q.txt", *paths, "-m", "P@2", "-o", tmp_path / "s.html",
              "--train", tmp_path / "none.csv")
    assert bad.returncode == 2 and "no such file" in bad.stderr and "Traceback" not in bad.stderr
