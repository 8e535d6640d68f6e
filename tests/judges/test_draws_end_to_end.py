"""End to end through a loopback server that answers each pair with grades drawn from known probabilities
(tests/judges/drawing_server.py): judges label --samples N at a temperature, then judges reliability and
judges estimate on the labels it wrote, each figure against its truth."""
from __future__ import annotations

import json

import numpy as np
import pytest

from rankmeter.judges.labelling import label
from tests.judges.drawing_server import DrawingServer, tag


@pytest.fixture
def world(tmp_path):
    rng = np.random.default_rng(17)
    queries, docs = 8, 8
    probs = rng.dirichlet(np.full(4, 0.5), (queries, docs))
    human = probs.argmax(-1)
    (tmp_path / "queries.tsv").write_text("id\ttext\n" + "".join(f"q{q}\tquestion {q}\n" for q in range(queries)))
    (tmp_path / "docs.jsonl").write_text("".join(json.dumps({"docid": f"q{q}d{d}", "text": f"passage {tag(probs[q, d])}"})
                                                 + "\n" for q in range(queries) for d in range(docs)))
    for name, skill in (("a", 1.0), ("b", 0.3)):
        score = skill * human + rng.normal(0, 1, human.shape)
        (tmp_path / f"{name}.run").write_text("".join(f"q{q} Q0 q{q}d{d} 0 {score[q, d]:.6f} {name}\n"
                                                      for q in range(queries) for d in range(docs)))
    (tmp_path / "human.qrels").write_text("".join(f"q{q} 0 q{q}d{d} {human[q, d]}\n" for q in range(0, queries, 2)
                                                  for d in range(docs)))
    return tmp_path, probs


def test_labels_drawn_then_reliability_and_estimate_against_the_truth(world, cli):
    folder, probs = world
    samples = 8
    with DrawingServer() as server:
        done = label([folder / "a.run", folder / "b.run"], queries=folder / "queries.tsv", docs=folder / "docs.jsonl",
                     base_url=server.url, model="drawn", cache=folder / "cache.db", output=folder / "llm.qrels",
                     samples=samples, temperature=1.0, concurrency=8, backoff=0.01, progress=False)
        assert len(server.answered()) == probs.shape[0] * probs.shape[1] * samples
    assert done.failures == []
    rel = cli("judges", "reliability", folder / "llm.qrels", "--rel", "2", "--format", "json")
    assert rel.code == 0, rel.err
    got = json.loads(rel.out)
    assert got["pairs"] == probs.shape[0] * probs.shape[1] and got["draws"] == {"min": samples, "max": samples}
    truth = probs[..., 2:].sum(-1)
    held = [p["interval"][0] <= truth[int(p["query"][1:]), int(p["doc"].split("d")[1])] <= p["interval"][1]
            for p in got["per_pair"]]
    print("held", np.mean(held), "alpha", got["alpha_ordinal"], "icc", got["icc"], "flip", got["flip_rate"])
    assert np.mean(held) >= 0.85                      # 64 pairs: 95% nominal, binomial error 2.7%
    # the grades drawn follow each pair's probabilities (a chi-square-sized difference over the 512 draws)
    counts = np.zeros_like(probs)
    for p in got["per_pair"]:
        q, d = int(p["query"][1:]), int(p["doc"].split("d")[1])
        for g, c in p["grades"].items():
            counts[q, d, int(g)] = c
    expected = probs * samples
    assert ((counts - expected) ** 2 / np.maximum(expected, 1e-9)).sum() < 64 * 3 * 1.5
    est = cli("judges", "estimate", folder / "human.qrels", folder / "llm.qrels", folder / "a.run", folder / "b.run",
              "-m", "P@5", "--unit", "queries", "--format", "json")
    assert est.code == 0, est.err
    data = json.loads(est.out)
    assert data["draws"] == {"min": samples, "max": samples}
    for row in data["runs"] + data["pairs"]:
        assert 0 <= row["ppi"]["judge_share"] <= 1 and 0 <= row["llm_only"]["judge_share"] <= 1
        assert row["llm_redraw"]["high"] - row["llm_redraw"]["low"] < row["llm_only"]["high"] - row["llm_only"]["low"]
