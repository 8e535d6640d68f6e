"""Ids used as a query and as a doc, weighed against chance (rankmeter.check.ids).

MS MARCO numbers queries and passages with the same integers: qids that equal some pid are chance, not
swapped columns, and a query that happens to retrieve the passage carrying its own number is no corpus
that holds the queries. Swapped columns and a Quora-like corpus (the query's own doc ranked first) stay
findings.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from rankmeter.check import check, exit_status
from rankmeter.check.ids import beyond_chance, integers, self_id_evidence
from rankmeter.check.lint import lint
from rankmeter.engine.ids import Ids
from rankmeter.io import as_run

PIDS = 20_000


def _msmarco_shaped(tmp_path, *, n_queries=300, depth=100, seed=3):
    """qids 1000.. inside the pid range 0..PIDS, as MS MARCO's; two queries retrieve their own number
    (at ranks 57 and 81), as chance makes a few do in the real dev set."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for i in range(n_queries):
        qid = 1000 + i
        docs = rng.choice(PIDS, depth, replace=False)
        docs = docs[docs != qid]
        if i in (5, 17):
            docs[56 if i == 5 else 80] = qid
        qrels += [f"{qid} 0 {docs[0]} 1\n", f"{qid} 0 {rng.integers(PIDS)} 1\n"]
        run += [f"{qid} Q0 {d} {r + 1} {100 - r * 0.5:.2f} bm25\n" for r, d in enumerate(docs)]
    q, r = tmp_path / "qrels.dev.tsv", tmp_path / "run.txt"
    q.write_text("".join(qrels))
    r.write_text("".join(run))
    return q, r, run


def test_integers_reads_decimal_ids_only():
    assert integers(Ids.from_list([b"0", b"8841822", b"007"])).tolist() == [0, 8841822, 7]
    assert integers(Ids.from_list([b"12", b"D12"])) is None
    assert integers(Ids.from_list([b"12", b""])) is None
    assert integers(Ids.from_list([b"1" * 16])) is None   # past 15 digits: not read as a number


def test_beyond_chance_is_a_poisson_bound():
    assert not beyond_chance(0, 0.0) and not beyond_chance(3, 0.0) and beyond_chance(4, 0.0)
    assert not beyond_chance(10, 1.5) and beyond_chance(11, 1.5)   # 1.5 + 5 * 1.22 + 3 = 10.6


def test_msmarco_shaped_files_are_no_error_and_suggest_no_ignore_self(tmp_path, cli):
    qrels, run, _ = _msmarco_shaped(tmp_path)
    findings = check(str(qrels), [str(run)])
    codes = {f.code: f for f in findings}
    assert "query_is_doc" not in codes and "self_id" not in codes
    assert exit_status(findings) == 0
    shared = [f for f in findings if f.code == "shared_ids"]
    assert shared and all(f.level == "note" for f in shared)
    # the run-level note: qids 1000..1299 among the 29,800 docs drawn from 20,000 pids (most of them seen)
    assert "1005" in shared[-1].details["ids"] and shared[-1].details["rows_with_query_doc"] < 0.05 * 29_800
    loaded = as_run(str(run))
    own = np.flatnonzero(loaded.ids("query").equal_rows(np.arange(len(loaded)), loaded.ids("doc"),
                                                        np.arange(len(loaded))))
    assert len(own) == 2 and self_id_evidence(loaded, own) is None   # chance: 300 * 99 / 20,000 = 1.5 expected
    out = cli("check", str(qrels), str(run), "--format", "json")
    assert out.code == 0 and "query_is_doc" not in out.out
    done = cli("eval", str(qrels), str(run), "-m", "RR@10")
    assert done.code == 0 and "--ignore-self" not in done.err and "own id" not in done.err


def test_swapped_columns_in_a_numeric_run_are_still_an_error(tmp_path, cli):
    qrels, _, lines = _msmarco_shaped(tmp_path)
    swapped = tmp_path / "swapped.run"
    swapped.write_text("".join(" ".join([f[2], f[1], f[0], *f[3:]]) + "\n" for f in map(str.split, lines)))
    found = [f for f in check(str(qrels), [str(swapped)]) if f.code == "query_is_doc"]
    assert len(found) == 1 and found[0].level == "error" and found[0].source == "bm25"
    assert found[0].details["rows_with_query_doc"] == found[0].details["rows"]   # every row's "doc" is a qid
    out = cli("check", str(qrels), str(swapped), "--format", "json")
    assert out.code == 1 and "query_is_doc" in {f["code"] for f in json.loads(out.out)["findings"]}


def test_swapped_qrels_are_an_error_too(tmp_path):
    qrels, run, _ = _msmarco_shaped(tmp_path)
    flipped = tmp_path / "flipped.qrels"
    flipped.write_text("".join(f"{d} 0 {q} {g}\n" for q, _, d, g in map(str.split, qrels.read_text().splitlines())))
    found = [f for f in check(str(flipped), [str(run)]) if f.code == "query_is_doc"]
    assert found and found[-1].level == "error" and found[-1].source == "bm25"


def test_a_corpus_holding_the_queries_is_still_named_with_numeric_ids():
    rng = np.random.default_rng(5)
    qrels = {str(1000 + i): {str(rng.integers(PIDS)): 1} for i in range(50)}
    # Quora-like: each query's own text is in the corpus and ranks first
    run = {q: {q: 10.0, **{str(d): 5.0 - r * 0.01 for r, d in enumerate(rng.choice(PIDS, 99, replace=False))}}
           for q in qrels}
    (found,) = [f for f in lint(qrels, run, ["nDCG@10"]) if f.code == "self_id"]
    assert len(found.details["queries"]) == 50 and found.details["expected"] == pytest.approx(50 * 100 / PIDS, rel=0.05)
    assert "far more than chance" in found.message


def test_own_ids_ranked_first_are_evidence_even_where_chance_is_high():
    # 200 docs numbered 0..199, each of 5 queries (ids 0..4) retrieves all of them: every query lists its own id by
    # construction (5 expected), which says nothing, unless its own doc comes first
    docs = [str(d) for d in range(200)]
    by_chance = {str(q): {d: float((int(d) * 7 + q * 13) % 200) for d in docs} for q in range(5)}
    for q, ranking in by_chance.items():   # the own id somewhere in the middle, never first
        ranking[q] = 100.5
    assert "self_id" not in {f.code for f in lint({"0": {"5": 1}}, by_chance, ["nDCG@10"])}
    first = {q: {**ranking, q: 1000.0} for q, ranking in by_chance.items()}
    (found,) = [f for f in lint({"0": {"5": 1}}, first, ["nDCG@10"]) if f.code == "self_id"]
    assert found.details["top"] == 5 and "rank it first" in found.message
