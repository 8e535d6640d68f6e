"""rankmeter check: each finding on a small hand-made case, the exit codes, and --dedupe."""
from __future__ import annotations

import json

import pytest

import rankmeter
from rankmeter.check import check, dedupe
from cli_runner import run_cli_in_process  # noqa: E402  (tests/ is on sys.path: tests/conftest.py)


cli = run_cli_in_process


@pytest.fixture
def files(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 a 2\nq1 0 b 0\nq1 0 c 1\nq2 0 d 1\nq3 0 e 1\n")
    run = tmp_path / "run.txt"
    run.write_text("q1 Q0 a 1 3.0 t\nq1 Q0 x 2 2.0 t\nq1 Q0 a 3 1.0 t\n"      # a twice (lines 1 and 3)
                   "q2 Q0 d 1 5.0 t\nq2 Q0 y 2 5.0 t\n"                          # a tie
                   "q9 Q0 d 1 1.0 t\n")                                          # a query nobody judged
    return qrels, run


def test_findings_on_a_hand_made_case(files):
    qrels, run = files
    found = {f.code: f for f in check(qrels, [run])}
    assert found["duplicates"].details["duplicates"] == [("q1", "a", [1, 3])]
    assert found["only_in_run"].details["queries"] == ["q9"]
    assert found["missing_from_run"].details["queries"] == ["q3"]
    assert found["grades"].details["distribution"] == {0: 1, 1: 3, 2: 1} and "rel=2" in found["grades"].message
    assert found["ties"].details == {"queries": 3, "groups": 1, "tied_rows": 2, "queries_with_ties": 1,
                                     "straddle": {10: 0, 100: 0, 1000: 0}}
    assert found["grades"].details["suggested_rel"] == 2
    assert {"rank_field", "tags", "query_is_doc"}.isdisjoint(found)  # ranks agree, one tag, ids distinct
    assert "coverage" not in found  # not measured while the run has duplicates (it cannot be scored)


def test_coverage_ties_across_a_cutoff_and_ranks_read_as_scores():
    qrels = {"q": {f"d{i}": 1 for i in range(8)}}
    run = {"q": {**{f"d{i}": float(20 - i) for i in range(8)}, **{f"u{i}": 5.0 for i in range(6)}}}
    found = {f.code: f for f in check(qrels, [run])}
    # top 10: d0..d7 judged, then 2 of the 6 tied unjudged docs; 14 retrieved in all
    assert found["coverage"].details["judged@10"] == pytest.approx(0.8)
    assert found["coverage"].details["judged@100"] == pytest.approx(8 / 14)
    assert found["ties"].details["straddle"][10] == 1 and found["ties"].level == "warning"
    ranks = {"q": {f"d{i}": float(i + 1) for i in range(8)}}
    assert "scores_look_like_ranks" in {f.code for f in check(qrels, [ranks])}
    assert "scores_look_like_ranks" not in {f.code for f in check(qrels, [run])}


def test_ids_used_as_query_and_doc():
    assert "query_is_doc" in {f.code for f in check({"q1": {"q1": 1}}, [{"q1": {"q1": 1.0}}])}


def test_cli_exit_codes_json_and_dedupe(files, tmp_path):
    qrels, run = files
    out = cli("check", qrels, run, "--format", "json")
    assert out.returncode == 1  # duplicates are an error
    codes = {f["code"] for f in json.loads(out.stdout)["findings"]}
    assert {"duplicates", "only_in_run", "missing_from_run", "grades", "ties"} <= codes
    fixed = tmp_path / "fixed.txt"
    out = cli("check", qrels, run, "--dedupe", "max", "-o", fixed)
    assert fixed.read_text().splitlines()[:2] == ["q1 Q0 a 1 3.0 t", "q1 Q0 x 2 2.0 t"]
    assert "duplicates" not in {f.code for f in check(qrels, [fixed])}
    assert cli("check", qrels, run, "--dedupe", "first", "-o", run).returncode == 2  # never over an input
    clean = tmp_path / "clean.txt"
    clean.write_text("q1 Q0 a 1 3.0 t\nq1 Q0 c 2 2.0 t\nq1 Q0 b 3 1.0 t\nq2 Q0 d 1 5.0 t\nq3 Q0 e 1 1.0 t\n")
    out = cli("check", qrels, clean)
    assert out.returncode == 0, out.stdout
    assert rankmeter.evaluate(str(qrels), str(clean), "AP")["AP"] == pytest.approx(1.0)


def test_dedupe_keeps_first_or_max():
    run = {"q": {"a": 1.0}}
    assert len(dedupe(run)) == 1
    from rankmeter.io.canonical import Run
    import pyarrow as pa
    table = pa.table({"query": pa.array([b"q", b"q", b"q"]), "doc": pa.array([b"a", b"b", b"a"]),
                      "score": pa.array([1.0, 2.0, 3.0])})
    first = dedupe(Run(table)).table.to_pydict()
    best = dedupe(Run(table), keep="max").table.to_pydict()
    assert first["score"] == [1.0, 2.0] and sorted(best["score"]) == [2.0, 3.0]


def test_rank_field_that_disagrees_with_the_scores(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 a 1\nq2 0 d 1\n")
    run = tmp_path / "run.txt"
    # q1: rank 2 scores 1.0 but rank 3 scores 4.0 (one disagreement); q2 is listed out of rank order
    # in the file but its ranks and scores agree; q3 disagrees twice (ranks 1, 2, 3 score 1, 2, 3).
    run.write_text("q1 Q0 a 1 5.0 t\nq1 Q0 b 2 1.0 t\nq1 Q0 c 3 4.0 t\n"
                   "q2 Q0 e 2 1.0 t\nq2 Q0 d 1 2.0 t\n"
                   "q3 Q0 f 1 1.5 t\nq3 Q0 g 2 2.5 t\nq3 Q0 h 3 3.5 t\n")
    found = {f.code: f for f in check(qrels, [run])}
    assert found["rank_field"].details == {"queries": 2, "pairs": 3, "first_lines": [2, 3]}
    assert found["rank_field"].level == "warning"
    agreeing = tmp_path / "agree.txt"
    agreeing.write_text("q1 Q0 a 1 5.0 t\nq1 Q0 c 2 4.0 t\nq1 Q0 b 3 4.0 t\nq2 Q0 d 1 2.0 t\n")
    assert "rank_field" not in {f.code for f in check(qrels, [agreeing])}  # equal scores are no disagreement
    words = tmp_path / "words.txt"
    words.write_text("q1 Q0 a first 5.0 t\nq2 Q0 d second 2.0 t\n")
    assert {f.code: f.level for f in check(qrels, [words])}["rank_field"] == "note"


def test_tags_that_change_inside_one_file(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 a 1\nq2 0 d 1\n")
    run = tmp_path / "run.txt"
    run.write_text("q1 Q0 a 1 5.0 bm25\nq1 Q0 b 2 1.0 bm25\nq2 Q0 d 1 2.0 dense\n# a comment\n"
                   "q2 Q0 e 2 1.0 bm25\n")
    found = {f.code: f for f in check(qrels, [run])}
    assert found["tags"].details["tags"] == [{"tag": "bm25", "lines": 3, "first_line": 1},
                                             {"tag": "dense", "lines": 1, "first_line": 3}]
    # the slow path (mixed separators) keeps the same fields
    run.write_text("q1 Q0 a 1 5.0 bm25\nq1\tQ0 b 2 1.0 bm25\nq2 Q0 d 1 2.0 dense\n")
    found = {f.code: f for f in check(qrels, [run])}
    assert [t["tag"] for t in found["tags"].details["tags"]] == ["bm25", "dense"]


def test_run_ids_used_as_query_and_doc(tmp_path):
    qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}}
    # columns swapped in the run: its "queries" are docs of the qrels, its "docs" the judged queries
    swapped = {"d1": {"q1": 1.0}, "q2": {"d2": 2.0}}
    found = {f.code: f for f in check(qrels, [swapped])}
    assert found["query_is_doc"].details["ids"] == ["d1", "q1"]
    assert found["query_is_doc"].source == "run1"


def test_graded_advice_and_binary_advice():
    assert check({"q": {"a": 1, "b": 0}}, [{"q": {"a": 1.0}}])[0].details["suggested_rel"] == 1
    grades = check({"q": {"a": 3, "b": -1}}, [{"q": {"a": 1.0}}])[0]
    assert grades.details == {"distribution": {-1: 1, 3: 1}, "suggested_rel": 2}
    assert "negative grades" in grades.message


def test_tie_groups_counts_straddles_and_queries():
    from rankmeter.core.rows import ranked, tie_summary
    from rankmeter.io import as_run
    # q1: 12 docs, ranks 9..12 tied (straddles 10); q2: two tied pairs at the top; q3: no tie
    q1 = {f"d{i}": float(100 - i) for i in range(8)} | {f"t{i}": 1.0 for i in range(4)}
    run = as_run({"q1": q1, "q2": {"a": 2.0, "b": 2.0, "c": 1.0, "d": 1.0}, "q3": {"x": 3.0, "y": 2.0}})
    assert tie_summary(ranked(run)) == {"queries": 3, "groups": 3, "tied_rows": 8, "queries_with_ties": 2,
                                        "straddle": {10: 1, 100: 0, 1000: 0}}


def test_duplicate_judgments_are_reported_without_scoring(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 a 1\nq1 0 b 0\nq1 0 a 2\n")
    found = {f.code: f for f in check(qrels, [{"q1": {"a": 1.0}}])}
    assert found["duplicates"].details["duplicates"] == [("q1", "a", [1, 3])]
    assert "coverage" not in found


# ------------------------------------------------------------------ against plain loops on random runs

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_rows = st.lists(st.tuples(st.sampled_from(["q1", "q2", "q3"]), st.integers(1, 6), st.integers(0, 4)),
                 min_size=1, max_size=40)


def _plain_ties(rows, cuts=(10, 100, 1000)):
    """Tie groups by looping: per query, scores sorted descending, runs of equal scores."""
    by_query: dict = {}
    for query, _, score in rows:
        by_query.setdefault(query, []).append(score)
    groups, straddle, queries, tied_rows = 0, {k: 0 for k in cuts}, 0, 0
    for scores in by_query.values():
        scores = sorted(scores, reverse=True)
        start, found = 0, False
        while start < len(scores):
            end = start
            while end + 1 < len(scores) and scores[end + 1] == scores[start]:
                end += 1
            if end > start:
                groups, found = groups + 1, True
                tied_rows += end - start + 1
                for k in cuts:
                    straddle[k] += start + 1 <= k < end + 1
            start = end + 1
        queries += found
    return {"queries": len(by_query), "groups": groups, "tied_rows": tied_rows, "queries_with_ties": queries,
            "straddle": straddle}


@settings(max_examples=60, deadline=None)
@given(_rows, st.integers(1, 4))
def test_tie_groups_equal_a_plain_loop(rows, cut):
    import pyarrow as pa

    from rankmeter.core.rows import ranked, tie_summary
    from rankmeter.io.canonical import Run

    table = pa.table({"query": pa.array([q.encode() for q, _, _ in rows], pa.binary()),
                      "doc": pa.array([f"d{i}".encode() for i in range(len(rows))], pa.binary()),
                      "score": pa.array([float(s) for _, _, s in rows])})
    found = tie_summary(ranked(Run(table)))
    assert found == _plain_ties(rows)
    assert tie_summary(ranked(Run(table)), cutoffs=(cut,)) == _plain_ties(rows, (cut,))  # small cut-offs


@settings(max_examples=60, deadline=None)
@given(_rows)
def test_rank_disagreements_equal_a_plain_loop(rows):
    import numpy as np
    import pyarrow as pa

    from rankmeter.check.fields import rank_disagreements

    codes = np.array([int(q[1]) for q, _, _ in rows])
    ranks = pa.array([str(r).encode() for _, r, _ in rows], pa.binary())
    scores = np.array([float(s) for _, _, s in rows])
    found = rank_disagreements(codes, ranks, scores)
    pairs, queries = 0, set()
    for q in set(codes.tolist()):
        mine = sorted((r, i) for i, (code, r) in enumerate(zip(codes, [r for _, r, _ in rows])) if code == q)
        for (_, a), (_, b) in zip(mine, mine[1:]):
            if scores[b] > scores[a]:
                pairs += 1
                queries.add(q)
    assert (found["pairs"], found["queries"]) == (pairs, len(queries))
    if pairs:
        a, b = found["first"]
        assert codes[a] == codes[b] and scores[b] > scores[a]


def test_judged_coverage_without_a_common_query_is_zero():
    from rankmeter.check import judged_at
    assert judged_at({"q": {"a": 1}}, {"z": {"a": 1.0}}, (1, 10)) == {1: 0.0, 10: 0.0}
