"""Run utilities: hand-checked cases through the API and `rankmeter run`."""
from __future__ import annotations


import pytest

import rankmeter
from rankmeter import ParameterError
from rankmeter.core import ranked_runs
from rankmeter.io import runs

RUN = {"q2": {"a": 0.1, "b": 0.9, "c": 0.5, "d": 0.5}, "q10": {"x": 1.0, "y": 2.0}, "q1": {"z": 3.0}}


def _pairs(run):
    t = run.table.to_pydict()
    return [(q.decode(), d.decode()) for q, d in zip(t["query"], t["doc"])]


def test_rerank_cut_filter_tag_merge_sample():
    # rank order: queries bytewise (q1, q10, q2); scores descending; the tie c/d by docno descending
    assert _pairs(ranked_runs.rerank(RUN)) == [("q1", "z"), ("q10", "y"), ("q10", "x"), ("q2", "b"), ("q2", "d"),
                                         ("q2", "c"), ("q2", "a")]
    assert _pairs(ranked_runs.cut(RUN, 2)) == [("q1", "z"), ("q10", "y"), ("q10", "x"), ("q2", "b"), ("q2", "d")]
    assert {q for q, _ in _pairs(runs.filter_queries(RUN, keep=["q2", "q1"], drop=["q1"]))} == {"q2"}
    assert {q for q, _ in _pairs(runs.filter_queries(RUN, qrels={"q10": {"x": 1}}))} == {"q10"}
    assert runs.retag(RUN, "new").name == "new"
    merged = runs.merge([{"q1": {"a": 1.0}}, {"q2": {"b": 1.0}}], tag="m")
    assert _pairs(merged) == [("q1", "a"), ("q2", "b")] and merged.name == "m"
    with pytest.raises(ParameterError, match="query q1 is in run 1 and run 2"):
        runs.merge([{"q1": {"a": 1.0}}, {"q1": {"b": 1.0}}])
    picked = {q for q, _ in _pairs(runs.sample(RUN, 2, seed=3))}
    assert len(picked) == 2 and picked == {q for q, _ in _pairs(runs.sample(RUN, 2, seed=3))}
    with pytest.raises(ParameterError):
        ranked_runs.cut(RUN, 0)


@pytest.mark.parametrize("suffix", ["txt", "parquet", "jsonl"])
def test_cli_round_trips_every_format(tmp_path, suffix, cli):
    source = tmp_path / "run.txt"
    source.write_text("".join(f"{q} Q0 {d} 9 {s} t\n" for q, docs in RUN.items() for d, s in docs.items()))
    out = tmp_path / f"out.{suffix}"
    done = cli("run", "cut", str(source), "-k", "2", "-o", str(out))
    assert done.returncode == 0, done.stderr
    back = rankmeter.read_run(str(out))
    assert _pairs(ranked_runs.rerank(back)) == _pairs(ranked_runs.cut(RUN, 2))
    if suffix == "txt":
        assert [line.split()[3] for line in out.read_text().splitlines()] == ["1", "1", "2", "1", "2"]
    refused = cli("run", "rerank", str(source), "-o", str(source))
    assert refused.returncode == 2 and "one of the inputs" in refused.stderr
