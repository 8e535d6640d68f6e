"""Repeated draws by design (``judges label --samples N``, ``--until-stable``), against a judge of known noise
(tests.judges.draws_server): each draw of a pair has its own place in the cache, more draws add to the earlier
ones, a rerun pays for none, and --until-stable spends its draws only where the verdict is uncertain."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from rankmeter.judges.stopping import unstable, verdict_interval
from rankmeter.judges.labelling import label
from tests.judges.draws_server import DrawServer, relevant_probability, write_world

#: pair -> P(grade 0..3): two sure verdicts, a coin between 0 and 3, a pair that leans relevant
WORLD = {"sure-yes": [0, 0, 0, 1], "sure-no": [1, 0, 0, 0], "coin": [0.5, 0, 0, 0.5], "leans": [0.2, 0.1, 0.3, 0.4]}


@pytest.fixture
def world(tmp_path):
    paths = write_world(tmp_path, WORLD, queries=2)
    server = DrawServer(WORLD, seed=7)
    yield tmp_path, paths, server
    server.close()


def _label(world, **kw):
    folder, paths, server = world
    kw.setdefault("cache", folder / "cache.db")
    kw.setdefault("output", folder / "out.qrels")
    kw.setdefault("concurrency", 1)   # the server seeds its k-th call of a pair: one at a time, call k is draw k
    return label(queries=paths["queries"], docs=paths["docs"], pool=paths["pool"], base_url=server.url, model="m",
                 temperature=0.7, backoff=0.01, progress=False, **kw)


def _lines(path) -> dict:
    out: dict = {}
    for line in Path(path).read_text().splitlines():
        q, _, d, g = line.split()
        out.setdefault(d, []).append(int(g))
    return out


def _truth_draws(server, key, *, samples, most, rel=1, level=0.95):
    """A second path to --until-stable's draws of one pair: the server's seeded grades, drawn until stable."""
    prompt = f"[pair: {key}]"
    grades = [server.grade_of(prompt, k) for k in range(samples)]
    while len(grades) < most and unstable(grades, rel=rel, level=level):
        grades.append(server.grade_of(prompt, len(grades)))
    return grades


def test_more_draws_add_to_the_earlier_ones_and_a_rerun_pays_none(world):
    folder, _, server = world
    first = _label(world, samples=2)
    assert first.calls == 8 and set(server.calls.values()) == {2}
    more = _label(world, samples=5, output=folder / "five.qrels")
    assert more.calls == 12 and more.cached == 8 and set(server.calls.values()) == {5}   # 3 more per pair
    five = _lines(folder / "five.qrels")
    assert {d: g[:2] for d, g in five.items()} == _lines(folder / "out.qrels")   # draws 0 and 1 kept, in order
    assert five == {key: [server.grade_of(f"[pair: {key}]", k) for k in range(5)] for key in WORLD}
    again = _label(world, samples=5, output=folder / "again.qrels")
    assert again.calls == 0 and again.cached == 20 and sum(server.calls.values()) == 20
    assert _lines(folder / "again.qrels") == five
    assert [(r["draw"], r["calls"]) for r in again.ledger_by_draw] == [(k, 4) for k in range(5)]


def test_until_stable_draws_more_only_where_the_verdict_is_uncertain(world):
    folder, _, server = world
    got = _label(world, samples=2, until_stable=True, max_samples=12)
    expected = {key: _truth_draws(server, key, samples=2, most=12) for key in WORLD}
    assert _lines(folder / "out.qrels") == expected
    assert len(expected["sure-yes"]) == len(expected["sure-no"]) == 4      # 4 of 4 agreeing: Wilson leaves 1/2 out
    assert len(expected["coin"]) > 4
    assert got.calls == sum(map(len, expected.values())) == sum(server.calls.values())
    by_draw = {r["draw"]: r["calls"] for r in got.ledger_by_draw}
    assert by_draw == {k: sum(len(g) > k for g in expected.values()) for k in range(12) if by_draw.get(k)}
    assert got.calls_by_draw == by_draw
    still = {u["doc"] for u in got.unstable}
    assert still == {key for key, g in expected.items() if unstable(g, rel=1)}
    for u in got.unstable:
        g = expected[u["doc"]]
        assert u["draws"] == len(g) == 12 and u["interval"] == list(verdict_interval(sum(x >= 1 for x in g), len(g)))
    spent = sum(server.calls.values())
    again = _label(world, samples=2, until_stable=True, max_samples=12, output=folder / "again.qrels")
    assert again.calls == 0 and sum(server.calls.values()) == spent        # the rerun pays for none
    assert _lines(folder / "again.qrels") == expected


def test_until_stable_keeps_to_the_budget(world):
    _, _, server = world
    got = _label(world, samples=2, until_stable=True, max_samples=12, max_calls=11)
    assert got.calls == 11 and sum(server.calls.values()) == 11 and got.failures == []
    assert sum(got.draws.values()) == 11 and min(got.draws.values()) == 2


def test_until_stable_on_grades_waits_for_a_majority_grade(world):
    folder, _, server = world
    _label(world, samples=2, until_stable=True, max_samples=10, stable_on="grades")
    drawn = _lines(folder / "out.qrels")
    # 'leans' is relevant most of the time but its grades split: drawn to the cap unless one grade dominates
    for key, grades in drawn.items():
        assert len(grades) == 10 or not unstable(grades, rel=1, on="grades")
        assert len(grades) == 2 or unstable(grades[:-1], rel=1, on="grades")


def test_cli_until_stable_reports_the_draws_and_the_ledger_by_draw(world, cli):
    folder, paths, server = world
    common = ["judges", "label", "--pool", paths["pool"], "--queries", paths["queries"], "--docs", paths["docs"],
              "--base-url", server.url, "--model", "m", "--cache", folder / "c.db", "--temperature", "0.7",
              "--samples", "2", "--until-stable", "--max-samples", "6"]
    dry = cli(*common, "--dry-run")
    assert dry.returncode == 0 and "8 calls to make" in dry.stdout and "at most 16 more" in dry.stdout
    assert sum(server.calls.values()) == 0
    result = cli(*common, "-o", folder / "o.qrels", "--format", "json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    expected = {key: _truth_draws(server, key, samples=2, most=6) for key in WORLD}
    assert report["draws"] == {"min": 4, "max": max(map(len, expected.values())),
                               "total": sum(map(len, expected.values()))}
    assert report["calls"] == sum(server.calls.values()) == report["draws"]["total"]
    text = cli(*common, "-o", folder / "o2.qrels")
    assert text.returncode == 0 and "ledger by draw: 0: 4 calls, 1: 4 calls, 2: 4 calls, 3: 4 calls" in text.stdout
    assert "0 calls made" in text.stdout and "--until-stable:" in text.stdout


def test_the_truth_of_the_world():
    assert relevant_probability(WORLD["leans"]) == pytest.approx(0.8)
    assert relevant_probability(WORLD["coin"], rel=2) == 0.5
