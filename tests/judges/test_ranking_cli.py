"""``rankmeter judges ranking``: Kendall's tau and tau_ap of the runs ranked under the LLM's draws against the human
ranking, checked against numpy DCG@10 (tests/judges/known_judge.py), scipy's Kendall's tau and the library's
ranking_agreement on the same per-query values."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from known_judge import dcg10, draw, population, write_draws, write_qrels  # noqa: E402


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """40 queries of 10 docs, 5 runs of graded skill, the LLM's labels drawn 3 times a pair (one line a draw); the
    human labels every query but q0 and q1 (left out, with a warning)."""
    tmp = tmp_path_factory.mktemp("ranking")
    rng = np.random.default_rng(7)
    Q, m = 40, 3
    human, probs = population(rng, Q)
    grades = draw(rng, probs, m).astype(int)
    write_draws(tmp / "llm.qrels", grades)
    write_qrels(tmp / "human.qrels", human, range(2, Q))
    scores = [skill * human + rng.normal(0, 1, human.shape) for skill in (0.2, 0.6, 1.0, 1.4, 2.0)]
    runs = []
    for k, s in enumerate(scores):
        path = tmp / f"r{k}.run"
        path.write_text("".join(f"q{q} Q0 d{d} 0 {s[q, d]:.6f} r{k}\n" for q in range(Q) for d in range(10)))
        runs.append(path)
    order = [np.argsort(-np.round(s, 6), axis=1, kind="stable") for s in scores]
    kept = np.arange(2, Q)                         # the queries both judged, in their natural order q2 .. q39
    h = np.array([dcg10(human.astype(float), o)[kept] for o in order])
    f = np.array([np.stack([dcg10(grades[..., d].astype(float), o) for d in range(m)], axis=1)[kept] for o in order])
    return tmp, runs, h, f


def test_ranking_json_gives_the_oracles_figures(cli, world):
    from scipy.stats import kendalltau

    from rankmeter.judges.draws import ranking_agreement
    from rankmeter.meta.correlation import tau_ap

    tmp, runs, h, f = world
    done = cli("judges", "ranking", tmp / "human.qrels", tmp / "llm.qrels", *runs, "-m", "DCG@10", "--permutations",
               "300", "--seed", "5", "--format", "json")
    assert done.code == 0, done.err
    data = json.loads(done.out)
    m = data["measures"][0]
    assert m["measure"] == "DCG@10" and m["queries"] == 38 and m["draws"] == {"min": 3, "max": 3}
    assert m["runs"] == [f"r{k}" for k in range(5)]
    assert [m["human_means"][f"r{k}"] for k in range(5)] == pytest.approx(h.mean(1).tolist(), abs=1e-12)
    assert [m["llm_means"][f"r{k}"] for k in range(5)] == pytest.approx(f.mean(2).mean(1).tolist(), abs=1e-12)
    assert m["kendall_tau"]["estimate"] == pytest.approx(kendalltau(f.mean(2).mean(1), h.mean(1)).statistic)
    assert m["tau_ap"]["estimate"] == pytest.approx(tau_ap(f.mean(2).mean(1), h.mean(1)))
    want = ranking_agreement(h, f, reps=300, seed=5)           # the same resamples: the same interval
    for key in ("kendall_tau", "tau_ap"):
        for field in ("low", "high", "judge_share"):
            assert m[key][field] == pytest.approx(want[key][field], abs=1e-12), (key, field)
        assert m[key]["redraw"] == pytest.approx(want[key]["redraw"], abs=1e-12)
        assert m[key]["normal"] == pytest.approx(want[key]["normal"], abs=1e-12)
        assert m[key]["low"] <= m[key]["estimate"] <= m[key]["high"]
    assert (m["system_pairs"], m["unresolved_pairs"]) == (10, want["unresolved_pairs"])
    assert data["warnings"] and "2 of the LLM's queries have no human labels" in data["warnings"][0]
    text = cli("judges", "ranking", tmp / "human.qrels", tmp / "llm.qrels", *runs, "-m", "DCG@10", "--permutations",
               "300", "--seed", "5", "--decimals", "3")
    assert text.code == 0, text.err
    e = m["kendall_tau"]
    assert (f"Kendall's tau-b     {e['estimate']:.3f} [{e['low']:.3f}, {e['high']:.3f}] (normal "
            f"[{e['normal'][0]:.3f}, {e['normal'][1]:.3f}])") in text.out
    assert "38 queries" in text.out and "3-3 draws per query" in text.out and "warning: 2 of the LLM" in text.out


def test_ranking_refuses_in_one_line(cli, world, tmp_path):
    tmp, runs, _, _ = world
    one = cli("judges", "ranking", tmp / "human.qrels", tmp / "llm.qrels", runs[0], "-m", "DCG@10")
    assert one.code == 2 and "at least two" in one.err and len(one.err.strip().splitlines()) == 1
    (tmp_path / "other.qrels").write_text("x1 0 d0 1\nx2 0 d1 0\n")
    apart = cli("judges", "ranking", tmp_path / "other.qrels", tmp / "llm.qrels", *runs, "-m", "DCG@10")
    assert apart.code == 2 and "share 0 queries" in apart.err and len(apart.err.strip().splitlines()) == 1
    bad = cli("judges", "ranking", tmp / "human.qrels", tmp / "llm.qrels", *runs, "-m", "DCG@10",
              "--permutations", "1")
    assert bad.code == 2 and "permutations" in bad.err
