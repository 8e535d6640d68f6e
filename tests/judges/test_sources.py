"""Judgment sources: aggregate (UMBRELA's mode, mean, median) and mix (human-first, with provenance)."""
from __future__ import annotations

import io
import json
import statistics
from pathlib import Path

import numpy as np
import pytest

from rankmeter.judges.sources import aggregate, mix, read_samples
from rankmeter.errors import InputError, ParameterError

FIXTURES = Path(__file__).parents[1] / "fixtures" / "llm_judges"


def _grades(qrels) -> dict:
    t = qrels.table
    return {(q.decode(), d.decode()): g for q, d, g in zip(t.column("query").to_pylist(), t.column("doc").to_pylist(),
                                                          t.column("rel").to_pylist())}


@pytest.mark.parametrize("case", json.loads((FIXTURES / "umbrela.json").read_text())["cases"], ids=lambda c: c["name"])
def test_mode_equals_umbrela(case):
    """UMBRELA e2c4e41 evaluate_judge_results with num_samples labels per pair: int(statistics.mode(labels))."""
    lines = [f"{q} 0 {d} {label}\n" for (q, d, _), labels in zip(case["human"], case["samples"]) for label in labels]
    got = _grades(aggregate(io.BytesIO("".join(lines).encode()), method="mode"))
    assert got == {(q, d): g for q, d, g in case["mode"]}


@pytest.mark.parametrize("seed", range(25))
def test_mode_mean_median_equal_the_statistics_module(seed):
    rng = np.random.default_rng(seed)
    samples = {(f"q{int(rng.integers(0, 4))}", f"d{d}"): [int(g) for g in rng.integers(0, 4, int(rng.integers(1, 8)))]
               for d in range(30)}
    # the pairs' lines interleaved at random, each pair's samples in their order
    slots = [pair for pair, labels in samples.items() for _ in labels]
    slots = [slots[i] for i in rng.permutation(len(slots))]
    pending = {pair: list(labels) for pair, labels in samples.items()}
    rows = [(q, d, pending[(q, d)].pop(0)) for q, d in slots]
    data = "".join(f"{q} 0 {d} {g}\n" for q, d, g in rows).encode()
    for method, oracle in (("mode", statistics.mode), ("mean", statistics.mean), ("median", statistics.median)):
        got = _grades(aggregate(io.BytesIO(data), method=method))
        assert got.keys() == samples.keys()
        for pair, labels in samples.items():
            assert got[pair] == pytest.approx(oracle(labels), abs=1e-12), (method, labels)


def test_interleaved_samples_keep_their_order_within_a_pair():
    data = b"q 0 a 1\nq 0 b 2\nq 0 a 3\nq 0 b 0\nq 0 a 3\nq 0 a 1\n"   # a: 1 3 3 1 -> 1 first; b: 2 0 -> 2
    assert _grades(aggregate(io.BytesIO(data))) == {("q", "a"): 1, ("q", "b"): 2}


def test_probabilities_jsonl(tmp_path):
    path = tmp_path / "probs.jsonl"
    path.write_text(json.dumps({"query": "q", "doc": "a", "probabilities": {"0": 0.1, "1": 0.2, "2": 0.6, "3": 0.1}})
                    + "\n" + json.dumps({"qid": "q", "docid": "b", "probabilities": {"3": 0.4, "0": 0.4, "1": 0.2}})
                    + "\n")
    assert _grades(aggregate(path, method="mean")) == {("q", "a"): pytest.approx(1.7), ("q", "b"): pytest.approx(1.4)}
    assert _grades(aggregate(path, method="median")) == {("q", "a"): 2, ("q", "b"): 1}
    assert _grades(aggregate(path, method="mode")) == {("q", "a"): 2, ("q", "b"): 3}   # tie: listed first
    assert read_samples(path).line.tolist() == [0, 0, 0, 0, 1, 1, 1]  # one entry per grade listed, not a table
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"query": "q", "doc": "a"}\n')
    with pytest.raises(InputError, match="bad.jsonl:1: .*grade"):
        aggregate(bad)
    with pytest.raises(ParameterError, match="method="):
        aggregate(path, method="majority")


def test_mix_is_human_first_with_provenance(tmp_path):
    human = {"q1": {"a": 2, "b": 0}, "q2": {"a": 1}}
    llm = {"q1": {"a": 2, "b": 1, "c": 3}, "q3": {"x": 1}}
    m = mix(human, llm)
    assert m.grades() == {"q1": {"a": 2, "b": 0, "c": 3}, "q2": {"a": 1}, "q3": {"x": 1}}
    assert m.counts == {"human": 3, "llm": 2, "both": 2, "both_differ": 1}
    assert m.per_query == [{"query": "q1", "human": 2, "llm": 1, "both": 2, "both_differ": 1},
                           {"query": "q2", "human": 1, "llm": 0, "both": 0, "both_differ": 0},
                           {"query": "q3", "human": 0, "llm": 1, "both": 0, "both_differ": 0}]
    out, prov = tmp_path / "mixed.qrels", tmp_path / "prov.tsv"
    m.write(out)
    m.write_provenance(prov)
    assert out.read_text() == "q1 0 a 2\nq1 0 b 0\nq1 0 c 3\nq2 0 a 1\nq3 0 x 1\n"
    assert prov.read_text().splitlines()[3] == "q1\tc\t3\tllm"
    real = mix(human, {"q1": {"c": 0.75}})
    assert real.grades()["q1"] == {"a": 2.0, "b": 0.0, "c": 0.75}
