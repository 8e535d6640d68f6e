"""Rank order of a run: queries in id order, score descending, docno descending.

This is trec_eval's ``comp_sim_docno`` (MEASURES.md section 2): scores are
compared as doubles and ties are broken by docno compared bytewise,
descending. The common run, already grouped by query and sorted by score, is
recognised in one pass and only its blocks and tied groups move.
"""
from __future__ import annotations

import re

import numpy as np

from rankmeter.engine.ids import Ids
from rankmeter.engine.keys import id_words, order_codes
from rankmeter.engine.segments import distinct_sorted

_DIGIT_RUNS = re.compile(r"(\d+)")

__all__ = ["rank_order", "natural_order", "natural_key"]


def natural_key(text: str) -> tuple:
    """Sort key putting q2 before q10: digit runs compare as numbers, the rest as text; the id itself last,
    so that ids equal as numbers ("01", "1") still have one order.

    >>> sorted(["q10", "q2", "b", "q1", "01", "1"], key=natural_key)
    ['01', '1', 'b', 'q1', 'q2', 'q10']
    """
    # isdecimal, not isdigit: "²" is a digit that int() refuses (the digit runs are decimal digits)
    parts = tuple((0, int(part), "") if part.isdecimal() else (1, 0, part)
                  for part in _DIGIT_RUNS.split(text) if part)
    return parts, text


def natural_order(ids) -> np.ndarray:
    """Permutation putting query ids (bytes or str) in natural order (:func:`natural_key`): the one order of
    every per-query table rankmeter prints or returns.

    Ids made of an ASCII prefix and at most 18 digits (``301``, ``q1``, ``topic-12``: TREC topics, MS MARCO, nearly
    every id set) are ordered with whole-array operations (no pyarrow); any other id set goes through
    :func:`natural_key`.

    >>> natural_order([b"10", b"9", b"010", b"100"]).tolist()
    [1, 2, 0, 3]
    >>> natural_order(["q10", "q9", "Q1"]).tolist()
    [2, 1, 0]
    """
    if isinstance(ids, Ids):
        column = ids
    elif hasattr(ids, "type"):  # an Arrow id column: no Python object per id on the usual paths
        column = Ids.from_arrow(ids)
    else:
        column = Ids.from_list(ids)
    if not len(column):
        return np.zeros(0, np.int64)
    fast = _prefix_number_order(column)
    if fast is not None:
        return fast
    from rankmeter.io.canonical import decode_id
    keys = [natural_key(decode_id(r)) for r in column.to_pylist()]
    return np.array(sorted(range(len(keys)), key=keys.__getitem__), dtype=np.int64)


def _prefix_number_order(column: Ids) -> np.ndarray | None:
    """:func:`natural_order` with whole-array operations when every id is ASCII letters or signs followed by at
    most 18 digits (``301``, ``q1``, ``topic-12``, ``user_77``: nearly every id set), else None. For such an id
    :func:`natural_key` compares (prefix present, prefix, number or -1 without digits, the id): ids without a
    prefix first, then by prefix, by number (no digits first: a shorter key), then bytewise."""
    offsets, values = column.rebased()
    n, lengths = len(column), np.diff(offsets)
    if len(values) and int(values.max()) >= 128:
        return None  # beyond ASCII, str.isdigit and the decoding decide: natural_key does
    digit = (values >= 48) & (values <= 57)
    counted = np.concatenate(([0], np.cumsum(digit, dtype=np.int64)))
    digits = counted[offsets[1:]] - counted[offsets[:-1]]  # per id
    if int(digits.max(initial=0)) > 18:
        return None  # a number past int64's exact digits
    prefix = lengths - digits
    # the digits must end the id: byte p of an id is a digit exactly when p >= its prefix length
    position = np.arange(len(values)) - np.repeat(offsets[:-1], lengths)
    if not np.array_equal(digit, position >= np.repeat(prefix, lengths)):
        return None  # digits inside the id
    number = np.where(digits > 0, 0, -1).astype(np.int64)
    first_digit = offsets[:-1] + prefix
    for place in range(int(digits.max(initial=0))):
        more = digits > place
        number[more] = number[more] * 10 + (values[first_digit[more] + place] - 48)
    by_id = np.empty(n, np.int64)
    by_id[column.argsort()] = np.arange(n)
    # equal prefixes share a rank, so that the number decides among them
    prefix_ids = Ids(np.concatenate(([0], np.cumsum(prefix))), values[~digit])
    distinct, code = prefix_ids.encode()
    prefix_rank = np.empty(len(distinct), np.int64)
    prefix_rank[distinct.argsort()] = np.arange(len(distinct))
    return np.lexsort((by_id, number, prefix_rank[code], prefix > 0))


def _doc_ranks(docs: Ids, rows: np.ndarray) -> np.ndarray:
    """Rank of each of ``rows``' doc ids in descending bytewise order (words built for these rows only)."""
    offsets, values = docs.take(rows).rebased()
    nwords = max(int(np.diff(offsets).max(initial=0)) + 7, 8) // 8
    return order_codes(id_words(offsets, values, nwords), descending=True)


def preference(rel: np.ndarray, prefer: str) -> np.ndarray:
    """Sort key putting tied docs best-first (``best``) or worst-first (``worst``) by their grade.

    Best first: positive grades, highest first; then unjudged docs (they count against no measure's
    non-relevant docs: bpref, infAP); then judged non-relevant ones. Worst first is the reverse.
    For a measure that never falls when a doc's grade rises, these give its maximum and minimum
    over the orders of the tied docs.
    """
    key = np.where(rel > 0, -rel, np.where(rel < 0, 0, 1)).astype(np.int64)
    return key if prefer == "best" else -key


def rank_order(qcode: np.ndarray, score: np.ndarray | None, docs: Ids,
               rel: np.ndarray | None = None, prefer: str | None = None, *,
               doc_rows: np.ndarray | None = None) -> np.ndarray:
    """Row permutation putting a run in rank order.

    Parameters
    ----------
    qcode : int64 array
        Query code of each row (codes increase with the query id's byte order).
    score : float64 array or None
        Score of each row; None keeps the given order within each query
        (``ties="input"``).
    docs : Ids
        The doc id of each row (only rows in tied groups are looked at); with ``doc_rows``, row i's doc
        is ``docs[doc_rows[i]]``.
    rel : int64 array, optional
        Grade of each row. When given, a tied group is reordered only if its
        grades differ: kernels see nothing but grades, so the order inside a
        tied group of equal grades cannot change any value, and skipping those
        groups saves most of the sorting on runs with many ties.
    prefer : {"best", "worst"}, optional
        Order tied docs by :func:`preference` of their grades ``rel`` first
        (then docno descending).
    """
    n = len(qcode)
    if n == 0:
        return np.zeros(0, np.int64)
    if score is None:
        return np.argsort(qcode, kind="stable")
    change = np.flatnonzero(qcode[1:] != qcode[:-1]) + 1
    seg_starts = np.concatenate(([0], change))
    seg_codes = qcode[seg_starts]
    same_q = np.ones(n - 1, dtype=bool)
    same_q[change - 1] = False
    grouped = len(distinct_sorted(seg_codes)) == len(seg_codes)
    if grouped:
        # Each query is one block (a run written query by query, a recommender's frame): sort each block
        # by score unless it is already, fix ties in place, then move the blocks into query order.
        perm = _blocks_by_score(seg_starts, score) if (score[1:][same_q] > score[:-1][same_q]).any() else None
        s = score if perm is None else score[perm]
        tie = same_q & (s[1:] == s[:-1])
        within = _tie_permutation(tie, docs, perm, None if rel is None else rel if perm is None else rel[perm],
                                  prefer, doc_rows)
        if perm is not None:
            within = perm if within is None else perm[within]
        block_order = np.argsort(seg_codes, kind="stable")
        lens = np.diff(np.concatenate((seg_starts, [n])))[block_order]
        blocks = np.arange(n) - np.repeat(np.cumsum(lens) - lens, lens) + np.repeat(seg_starts[block_order], lens)
        return blocks if within is None else within[blocks]
    # Unsorted input: by score (ties in any order: they are broken below), then a stable sort by
    # query, a radix sort when codes fit in 16 bits; three times faster than lexsort on big runs.
    order = np.argsort(-score)
    codes = qcode[order]
    order = order[np.argsort(codes.astype(np.uint16) if len(seg_codes) and int(qcode.max()) < 65536 else codes,
                             kind="stable")]
    q, s = qcode[order], score[order]
    tie = (q[1:] == q[:-1]) & (s[1:] == s[:-1])
    within = _tie_permutation(tie, docs, order, None if rel is None else rel[order], prefer, doc_rows)
    return order if within is None else order[within]


def _blocks_by_score(starts: np.ndarray, score: np.ndarray) -> np.ndarray:
    """Row permutation ordering each block (rows ``starts[i]`` up to the next start) by score, descending.

    Each block's scores go into a row of a padded matrix (blocks of similar length together, so padding
    at most doubles the work) and are sorted along the rows: several times faster than sorting the
    whole run by (query, score). Tied scores come out in any order; the caller breaks the ties.
    """
    n = len(score)
    counts = np.diff(np.append(starts, n))
    neg = -score
    perm = np.arange(n)
    bucket = np.frexp(np.maximum(counts - 1, 0))[1]
    for b in distinct_sorted(bucket[counts > 1]).tolist():
        chosen = np.flatnonzero((bucket == b) & (counts > 1))
        lens = counts[chosen]
        cols = np.arange(int(lens.max()))
        inside = cols[None, :] < lens[:, None]
        idx = np.where(inside, starts[chosen][:, None] + cols[None, :], 0)
        pad = np.where(inside, neg[idx], np.inf)
        order = np.argsort(pad, axis=1)
        perm[idx[inside]] = np.take_along_axis(idx, order, axis=1)[inside]
    return perm


def _tie_permutation(tie: np.ndarray, docs: Ids, row_of: np.ndarray | None,
                     rel: np.ndarray | None, prefer: str | None = None,
                     doc_rows: np.ndarray | None = None) -> np.ndarray | None:
    """Permutation sorting each tied group (rows i, i+1 tied where ``tie[i]``) by docno descending.

    Position i holds table row ``row_of[i]`` (i itself when ``row_of`` is None).
    None when nothing needs to move.
    """
    n = len(tie) + 1
    if rel is not None:
        tie_pairs = np.flatnonzero(tie & (rel[1:] != rel[:-1]))
    else:
        tie_pairs = np.flatnonzero(tie)
    if len(tie_pairs) == 0:
        return None
    # The group of a tied pair p runs from the row after the last untied pair before p
    # to the row of the first untied pair after p.
    # Sentinels -1 and n-1 stand for the untied "pairs" before the first and after the last row.
    breaks = np.concatenate(([-1], np.flatnonzero(~tie), [n - 1]))
    b = np.searchsorted(breaks, tie_pairs)
    first = breaks[b - 1] + 1
    last = breaks[b]
    first, idx = np.unique(first, return_index=True)
    last = last[idx]
    sizes = last - first + 1
    group = np.repeat(np.arange(len(first)), sizes)
    rows = np.arange(sizes.sum()) - np.repeat(np.cumsum(sizes) - sizes, sizes) + np.repeat(first, sizes)
    at = rows if row_of is None else row_of[rows]
    doc_rank = _doc_ranks(docs, at if doc_rows is None else doc_rows[at])
    bits = max(1, int(len(rows)).bit_length())
    if prefer is not None:
        within = np.lexsort((doc_rank, preference(rel[rows], prefer), group))
    elif int(len(first)).bit_length() + bits <= 63:
        within = np.argsort((group << bits) | doc_rank)
    else:
        within = np.lexsort((doc_rank, group))
    perm = np.arange(n)
    perm[rows] = rows[within]
    return perm
