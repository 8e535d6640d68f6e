"""The qrels keyed once: judged grades per query (highest first), offsets, duplicates, codes."""
from __future__ import annotations

import numpy as np
import pytest

import rankmeter
from rankmeter.core.judgments import Judgments
from rankmeter.errors import InputError
from rankmeter.io import as_qrels


def _plain(qrels: dict) -> tuple[list, list]:
    """Each query's grades, highest first, queries in byte order: the reference."""
    ids = sorted(q.encode() for q in qrels)
    return ids, [sorted(qrels[q.decode()].values(), reverse=True) for q in ids]


@pytest.mark.parametrize("grades", [(0, 3), (-2, 2), (-2 ** 40, 2 ** 40), (-9 * 10 ** 18, 9 * 10 ** 18),
                                    (-2 ** 63, 2 ** 63 - 1)])
def test_judged_grades_and_offsets_match_a_plain_sort(grades):
    """Packed-key sorting (int32 and int64 keys) and the lexsort for grades too far apart to pack agree with
    a plain per-query sort."""
    rng = np.random.default_rng(7)
    qrels = {f"q{rng.integers(0, 10 ** 6)}": {f"d{j}": int(rng.integers(*grades, endpoint=True))
                                                for j in range(rng.integers(1, 9))} for _ in range(300)}
    qrels["q1"] = {"a": grades[0], "b": grades[1], "c": grades[0]}
    j = Judgments(as_qrels(qrels))
    ids, expected = _plain(qrels)
    assert j.ids.to_pylist() == ids
    got = [j.judged_rel[j.judged_offsets[i]:j.judged_offsets[i + 1]].tolist() for i in range(j.nq)]
    assert got == expected


def test_far_apart_grades_score_instead_of_failing():
    r = rankmeter.evaluate({"q1": {"a": -9 * 10 ** 18, "b": 9 * 10 ** 18}, "q2": {"c": 1}},
                           {"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0}}, ["AP", "P@1"])
    assert r.mean == {"AP": 0.75, "P@1": 0.5}


def test_a_judgment_given_twice_is_named_by_its_lines(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text("q1 0 a 1\nq1 0 b 0\nq2 0 a 1\nq1 0 b 2\n")
    with pytest.raises(InputError) as err:
        Judgments(as_qrels(str(path)))
    assert tuple(err.value.line) == (2, 4) and "doc b is judged twice for query q1" in str(err.value)


def test_keying_memory_per_judgment(tmp_path):
    """numpy memory of keying 200k judgments (tracemalloc sees numpy's arrays): the peak was 77 bytes per
    judgment and 32 held before the codes went int32, the index was built in place and the grades sorted
    as packed keys (56 and 28 now); a 10M-judgment qrels scales this by 50."""
    import tracemalloc

    rng = np.random.default_rng(1)
    queries = np.repeat(np.arange(20_000), 10)
    docs = rng.integers(0, 10 ** 6, len(queries)) * 10 + np.tile(np.arange(10), 20_000)  # distinct per query
    grades = rng.integers(0, 4, len(queries))
    path = tmp_path / "qrels.txt"
    path.write_text("".join(f"q{q} 0 D{d} {g}\n" for q, d, g in zip(queries, docs, grades)))
    qrels = as_qrels(str(path))
    Judgments(qrels)  # every lazily imported module loaded before measuring
    tracemalloc.start()
    try:
        judgments = Judgments(qrels)
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    n = len(queries)
    assert judgments.nq == 20_000 and len(judgments.judged_rel) == n
    assert peak / n < 64 and held / n < 32, (peak / n, held / n)
