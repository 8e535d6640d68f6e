"""rank_order against the plain definition: query ascending, score descending, docno descending.

The engine takes one of three paths (grouped and sorted, grouped but unsorted, scattered); each is
forced here and must give the order of a plain lexicographic sort.
"""

import numpy as np
import pyarrow as pa
from hypothesis import given, settings, strategies as st

from rankmeter.core.order import rank_order


def _reference(qcode, score, docs):
    rows = sorted(range(len(qcode)), key=lambda i: (qcode[i], -score[i]))
    # docno descending among equal (query, score): a stable second pass on the tied groups
    out, i = [], 0
    while i < len(rows):
        j = i
        while j + 1 < len(rows) and qcode[rows[j + 1]] == qcode[rows[i]] and score[rows[j + 1]] == score[rows[i]]:
            j += 1
        out += sorted(rows[i:j + 1], key=lambda r: docs[r], reverse=True)
        i = j + 1
    return out


@st.composite
def runs(draw):
    n_queries = draw(st.integers(1, 6))
    sizes = draw(st.lists(st.integers(1, 40), min_size=n_queries, max_size=n_queries))
    shape = draw(st.sampled_from(["grouped-sorted", "grouped-unsorted", "scattered"]))
    codes = draw(st.permutations(range(n_queries)))
    qcode, score, docs = [], [], []
    for code, size in zip(codes, sizes):
        values = draw(st.lists(st.integers(0, 5), min_size=size, max_size=size))  # many ties
        if shape == "grouped-sorted":
            values.sort(reverse=True)
        names = draw(st.lists(st.text("abcxyz", min_size=1, max_size=3), min_size=size, max_size=size,
                              unique=True))
        qcode += [code] * size
        score += [float(v) for v in values]
        docs += names
    if shape == "scattered":
        perm = draw(st.permutations(range(len(qcode))))
        qcode, score, docs = ([seq[i] for i in perm] for seq in (qcode, score, docs))
    return np.array(qcode, np.int64), np.array(score), docs


@settings(max_examples=300, deadline=None)
@given(runs())
def test_every_path_gives_the_plain_order(case):
    qcode, score, docs = case
    order = rank_order(qcode, score, pa.array([d.encode() for d in docs], pa.binary()))
    assert order.tolist() == _reference(qcode.tolist(), score.tolist(), docs)


def test_long_grouped_unsorted_blocks_of_many_lengths():
    # blocks from 1 to 3000 rows land in different padding buckets of the per-block sort
    rng = np.random.default_rng(7)
    sizes = [1, 2, 3, 5, 64, 65, 1000, 3000]
    qcode = np.repeat(rng.permutation(len(sizes)), sizes).astype(np.int64)
    score = rng.integers(0, 50, qcode.size).astype(float)
    docs = [f"d{i:05d}" for i in range(qcode.size)]
    order = rank_order(qcode, score, pa.array([d.encode() for d in docs], pa.binary()))
    assert order.tolist() == _reference(qcode.tolist(), score.tolist(), docs)
