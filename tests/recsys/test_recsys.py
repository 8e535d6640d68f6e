"""Recommender helpers: implicit truth, top-k lists, truncation and which users count.

Values are checked against a plain-Python reference of the textbook
definitions for binary relevance (and a few hand computations).
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pyarrow as pa
import pytest

from rankmeter.core.order import natural_key

import rankmeter
from rankmeter import InputError, ParameterError
from rankmeter.recsys import feedback as recsys


def reference(truth: dict, recs: dict, k: int) -> dict[str, dict[str, float]]:
    """P@k, R@k, RR@k, AP@k (over |truth|) and nDCG@k per user with truth and recommendations."""
    out = {}
    for user, items in truth.items():
        if user not in recs:
            continue
        rel = set(items)
        top = list(recs[user])[:k]
        hits = [i for i, d in enumerate(top) if d in rel]
        prec = [(n + 1) / (i + 1) for n, i in enumerate(hits)]
        dcg = sum(1 / math.log2(i + 2) for i in hits)
        idcg = sum(1 / math.log2(i + 2) for i in range(min(len(rel), k)))
        out[user] = {"P": len(hits) / k, "R": len(hits) / len(rel), "RR": 1 / (hits[0] + 1) if hits else 0.0,
                     "AP": sum(prec) / len(rel), "nDCG": dcg / idcg}
    return out


def random_case(seed=11, users=40, items=60):
    rng = np.random.default_rng(seed)
    truth = {f"u{u}": [f"i{x}" for x in rng.choice(items, size=int(rng.integers(1, 8)), replace=False)]
             for u in range(users)}
    recs = {f"u{u}": [f"i{x}" for x in rng.choice(items, size=int(rng.integers(1, 25)), replace=False)]
            for u in range(5, users + 5)}  # u0-u4 get nothing; u40-u44 have no truth
    return truth, recs


@pytest.mark.parametrize("k", [1, 5, 10])
def test_values_match_a_plain_reference(k):
    truth, recs = random_case()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = recsys.evaluate(truth, recs, [f"P@{k}", f"R@{k}", f"RR@{k}", f"AP@{k}", f"nDCG@{k}"], k=k)
    ref = reference(truth, recs, k)
    assert r.queries == sorted(ref, key=natural_key)  # natural order: u5 before u10
    for name, key in ((f"P@{k}", "P"), (f"R@{k}", "R"), (f"RR@{k}", "RR"), (f"AP@{k}", "AP"), (f"nDCG@{k}", "nDCG")):
        assert r.values(name) == pytest.approx([ref[u][key] for u in r.queries], abs=1e-12), name


def test_users_on_one_side_are_never_dropped_silently():
    truth = {"u1": ["a"], "u2": ["b"]}
    recs = {"u1": ["a", "x"], "u3": ["a"]}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        both = recsys.evaluate(truth, recs, ["P@1"])
    messages = " | ".join(str(w.message) for w in caught)
    assert "1 judged queries have no results in the run" in messages and "u2" in messages
    assert "1 users have predictions but no truth" in messages and "u3" in messages
    assert both.queries == ["u1"] and both["P@1"] == 1.0   # what an inner join reports, but said aloud
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        every = recsys.evaluate(truth, recs, ["P@1"], queries="qrels")
    assert every.queries == ["u1", "u2"] and every["P@1"] == 0.5  # u2 got nothing: 0
    assert not any("judged queries" in str(w.message) for w in caught)
    cov = recsys.coverage(truth, recs)
    assert (cov.both, cov.truth_only_count, cov.predictions_only_count) == (1, 1, 1)
    assert cov.truth_only == ("u2",) and cov.predictions_only == ("u3",)


def test_implicit_truth_from_dicts_and_frames():
    q = recsys.implicit_qrels({"u1": ["a", "b", "a"], 7: {"c"}})
    assert q.table.column("rel").to_pylist() == [1, 1, 1]
    assert sorted(zip(q.table.column("query").to_pylist(), q.table.column("doc").to_pylist())) == \
        [(b"7", b"c"), (b"u1", b"a"), (b"u1", b"b")]
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"uid": [1, 1, 2, 1], "iid": [10, 11, 10, 10], "ts": [0, 1, 2, 3]})
    q = recsys.implicit_qrels(frame, user="uid", item="iid", grade=2)
    assert sorted(zip(q.table.column("query").to_pylist(), q.table.column("doc").to_pylist(),
                      q.table.column("rel").to_pylist())) == [(b"1", b"10", 2), (b"1", b"11", 2), (b"2", b"10", 2)]
    table = pa.table({"user": ["a", "a"], "item": ["x", "x"]})
    assert len(recsys.implicit_qrels(table)) == 1
    with pytest.raises(InputError, match="no column 'user'"):
        recsys.implicit_qrels(frame)
    with pytest.raises(InputError, match="expected a list"):
        recsys.implicit_qrels({"u1": "abc"})
    with pytest.raises(ParameterError, match="grade"):
        recsys.implicit_qrels({"u1": ["a"]}, grade=0.5)


def test_topk_lists_rows_and_struct_lists():
    run = recsys.topk_run({"u1": ["c", "a", "b"], "u2": ["a"]})
    assert run.table.column("score").to_pylist() == [0.0, -1.0, -2.0, 0.0]
    r = rankmeter.evaluate({"u1": {"a": 1}, "u2": {"a": 1}}, run, ["RR"])
    assert r.values("RR").tolist() == [0.5, 1.0]
    pd = pytest.importorskip("pandas")
    rows = pd.DataFrame({"user": [1, 1, 1], "item": [5, 6, 7], "pred": [0.2, 0.9, 0.5]})
    run = recsys.topk_run(rows, score="pred", k=2)
    assert sorted(run.table.column("doc").to_pylist()) == [b"6", b"7"]
    lists = pd.DataFrame({"user": ["u1", "u2"], "recs": [["x", "y"], ["z"]]})
    run = recsys.topk_run(lists, items="recs")
    assert run.table.column("doc").to_pylist() == [b"x", b"y", b"z"]
    assert run.table.column("score").to_pylist() == [0.0, -1.0, 0.0]
    als = pa.table({"user": [1], "recommendations": pa.array([[{"item": 4, "rating": 0.1}, {"item": 2, "rating": 0.05}]])})
    run = recsys.topk_run(als, items="recommendations")
    assert run.table.column("doc").to_pylist() == [b"4", b"2"]
    with pytest.raises(ParameterError, match="score=.*items="):
        recsys.topk_run(rows)


def test_truncate_ranks_as_the_engine_does():
    # ties at 3.0 go by doc id descending (trec_eval): c before b
    run = recsys.truncate({"q": {"a": 1.0, "b": 3.0, "c": 3.0, "d": 2.0}, "p": {"x": 0.5}}, 2)
    kept = sorted(zip(run.table.column("query").to_pylist(), run.table.column("doc").to_pylist()))
    assert kept == [(b"p", b"x"), (b"q", b"b"), (b"q", b"c")]
    run = recsys.truncate({"q": {"a": 1.0, "b": 3.0, "c": 3.0}}, 1)
    assert run.table.column("doc").to_pylist() == [b"c"]
    ranked = recsys.truncate({"q": ["z", "a", "m"]}, 2)  # a ranked list keeps its order
    assert ranked.ranked and ranked.table.column("doc").to_pylist() == [b"z", b"a"]
    with pytest.raises(ParameterError, match="k=0"):
        recsys.truncate({"q": ["a"]}, 0)


@pytest.mark.parametrize("k", [1, 3, 7])
def test_truncate_scores_like_max_docs(k):
    rng = np.random.default_rng(k)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 3)) for j in rng.choice(30, 8, replace=False)} for i in range(10)}
    run = {f"q{i}": {f"d{j}": float(np.round(rng.random(), 1)) for j in rng.choice(30, 12, replace=False)}
           for i in range(10)}
    names = ["AP", "nDCG@10", "P@5", "RR", "NumRet"]
    cut = rankmeter.evaluate(qrels, recsys.truncate(run, k), names)
    deep = rankmeter.evaluate(qrels, run, names, max_docs=k)
    for name in names:
        assert cut.values(name).tolist() == deep.values(name).tolist()


def test_graded_truth_is_taken_as_it_is():
    truth = {"u1": {"a": 3, "b": 1}}
    r = recsys.evaluate(truth, {"u1": ["b", "a"]}, ["nDCG@2"])
    ideal = 3 + 1 / math.log2(3)
    assert r["nDCG@2"] == pytest.approx((1 + 3 / math.log2(3)) / ideal)
