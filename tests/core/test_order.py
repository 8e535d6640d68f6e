"""rank_order against the plain definition: query ascending, score descending, docno descending.

The engine takes one of three paths (grouped and sorted, grouped but unsorted, scattered); each is
forced here and must give the order of a plain lexicographic sort.
"""

import numpy as np
from hypothesis import given, settings, strategies as st

from rankmeter.engine.ids import Ids
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
    order = rank_order(qcode, score, Ids.from_list([d.encode() for d in docs]))
    assert order.tolist() == _reference(qcode.tolist(), score.tolist(), docs)


def test_long_grouped_unsorted_blocks_of_many_lengths():
    # blocks from 1 to 3000 rows land in different padding buckets of the per-block sort
    rng = np.random.default_rng(7)
    sizes = [1, 2, 3, 5, 64, 65, 1000, 3000]
    qcode = np.repeat(rng.permutation(len(sizes)), sizes).astype(np.int64)
    score = rng.integers(0, 50, qcode.size).astype(float)
    docs = [f"d{i:05d}" for i in range(qcode.size)]
    order = rank_order(qcode, score, Ids.from_list([d.encode() for d in docs]))
    assert order.tolist() == _reference(qcode.tolist(), score.tolist(), docs)


def test_natural_order_of_prefixed_numbers_matches_natural_key():
    """The whole-array path (ASCII prefix + up to 18 digits) gives natural_key's order, ties of equal
    numbers ("q01", "q1") and ids without digits or without prefix included; other ids take natural_key."""
    import random

    import pyarrow as pa

    from rankmeter.core.order import _prefix_number_order, natural_key, natural_order

    rng = random.Random(1)
    taken = 0
    for _ in range(300):
        ids = list({(rng.choice(["q", "Q", "topic-", "a_b", "", "x", "qq", "Q0", "zz."]) +
                     rng.choice(["", str(rng.randrange(200)), "0" + str(rng.randrange(20)), "00",
                                 str(rng.randrange(10 ** 17))])).encode() for _ in range(rng.randrange(1, 60))} - {b""})
        expected = sorted(range(len(ids)), key=lambda i: natural_key(ids[i].decode()))
        fast = _prefix_number_order(Ids.from_list(ids))
        if fast is not None:
            taken += 1
            assert fast.tolist() == expected, ids
        assert natural_order(ids).tolist() == expected
        # an id column gives the same order (Results keeps a run's ids as one)
        assert natural_order(pa.array(ids, pa.binary())).tolist() == expected
        assert natural_order(pa.chunked_array([pa.array(ids[:1], pa.binary()), pa.array(ids[1:], pa.binary())])
                             ).tolist() == expected
    assert taken > 100  # the whole-array path is taken, not only the fallback
    assert _prefix_number_order(Ids.from_list([b"q1x2"])) is None
    assert _prefix_number_order(Ids.from_list(["\u00e91".encode()])) is None
    assert _prefix_number_order(Ids.from_list([b"q" + b"1" * 19])) is None  # past 18 digits: natural_key
    # digit-only ids (with leading zeros), ids past natural_key's fast paths and Latin-1 bytes, as a column
    for ids in ([b"10", b"9", b"010", b"100", b"0"], [b"q1x2", b"q1x10", b"q1"], ["\u00e92".encode(), b"\xe910", b"a"]):
        assert natural_order(pa.array(ids, pa.binary())).tolist() == natural_order(ids).tolist()
    assert natural_order(pa.array([], pa.binary())).tolist() == []
    # a digit int() refuses ("²") is text, as any other non-decimal character
    assert sorted(["q1²", "q1", "²", "q10"], key=natural_key) == ["q1", "q1²", "q10", "²"]
    assert natural_order(["q1²".encode(), b"q1", b"q10"]).tolist() == [1, 0, 2]
