"""Numeric keys for byte-string ids, so ordering and joins run as numpy array code.

An id becomes ``ceil(max_len / 8)`` big-endian uint64 words, zero padded.
Comparing the word tuples compares the ids exactly as C ``strcmp`` does
(ids never hold NUL bytes: readers reject them), so sorting by words is
trec_eval's docno order, and equal words mean equal ids.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa

__all__ = ["binary_parts", "id_words", "mix_hash", "order_codes", "hash_lookup"]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def binary_parts(array: pa.Array | pa.ChunkedArray) -> tuple[np.ndarray, np.ndarray]:
    """Offsets (int64, length n+1, starting at 0) and the value bytes of a binary array."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks() if array.num_chunks != 1 else array.chunk(0)
    if array.type == pa.large_binary():
        width = np.int64
    else:
        array = array.cast(pa.binary()) if array.type != pa.binary() else array
        width = np.int32
    buffers = array.buffers()
    offsets = np.frombuffer(buffers[1], dtype=width)[array.offset: array.offset + len(array) + 1]
    values = np.frombuffer(buffers[2], dtype=np.uint8) if buffers[2] is not None else np.zeros(0, np.uint8)
    offsets = offsets.astype(np.int64)
    if len(offsets) and offsets[0]:
        values = values[offsets[0]:]
        offsets = offsets - offsets[0]
    return offsets, values


def id_words(offsets: np.ndarray, values: np.ndarray, nwords: int) -> np.ndarray:
    """Pack each id into ``nwords`` big-endian uint64 words; shape (nwords, n)."""
    n = len(offsets) - 1
    starts = offsets[:-1]
    lengths = np.diff(offsets)
    words = np.empty((nwords, n), dtype=np.uint64)
    if n == 0:
        return words
    # mask[k] keeps the first k bytes of a big-endian word
    mask = np.array([0] + [((1 << (8 * k)) - 1) << (64 - 8 * k) for k in range(1, 9)], dtype=np.uint64)
    # An unaligned, overlapping big-endian view: element i holds bytes i..i+7. Reads that would run
    # past the end of the buffer (the last few ids) go through a small zero-padded copy instead.
    safe_end = len(values) - 8
    body = np.ndarray(shape=(max(safe_end + 1, 0),), dtype=">u8", buffer=values, strides=(1,)) \
        if safe_end >= 0 else np.zeros(0, dtype=">u8")
    tail_from = max(0, len(values) - 8 * (nwords + 1))
    tail = np.zeros(len(values) - tail_from + 8 * (nwords + 1), dtype=np.uint8)
    tail[: len(values) - tail_from] = values[tail_from:]
    tail_view = np.ndarray(shape=(len(tail) - 7,), dtype=">u8", buffer=tail, strides=(1,))
    for w in range(nwords):
        at = starts + 8 * w
        keep = lengths - 8 * w
        if nwords > 1 or lengths.max() > 8:
            keep = np.clip(keep, 0, 8)
        inside = at <= safe_end
        if inside.all():
            raw = body[at]
        else:
            raw = np.empty(n, dtype=np.uint64)
            raw[inside] = body[at[inside]]
            raw[~inside] = tail_view[at[~inside] - tail_from]
        words[w] = raw & mask[keep]
    return words


def mix_hash(qcode: np.ndarray, words: np.ndarray) -> np.ndarray:
    """A 64-bit hash of (query code, id words); equal pairs hash equal."""
    h = qcode.astype(np.uint64) * _GOLDEN
    for w in words:
        h = h ^ w
        h ^= h >> np.uint64(30)
        h *= _MIX1
        h ^= h >> np.uint64(27)
        h *= _MIX2
        h ^= h >> np.uint64(31)
    return h


def order_codes(words: np.ndarray, descending: bool = False) -> np.ndarray:
    """A permutation rank (0..n-1) of each id that sorts like the ids; shape (n,).

    Equal ids get distinct but adjacent ranks, which is enough for ordering.
    """
    n = words.shape[1]
    if words.shape[0] == 1:
        order = np.argsort(~words[0] if descending else words[0])
    else:
        keys = tuple((~w if descending else w) for w in words[::-1])
        order = np.lexsort(keys)
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    return rank


def hash_lookup(table: np.ndarray, probes: np.ndarray) -> np.ndarray:
    """Index in ``table`` (uint64 hashes) of each probe, -1 where absent.

    A bucketed direct-address scheme on the top bits: hashes are uniform, so
    buckets hold about one key and a handful of vectorised passes resolve all
    probes (several times faster than ``searchsorted`` on large inputs).
    """
    out = np.full(len(probes), -1, dtype=np.int64)
    if len(table) == 0 or len(probes) == 0:
        return out
    bits = int(min(24, max(4, np.ceil(np.log2(len(table))) + 2)))
    shift = np.uint64(64 - bits)
    order = np.argsort(table, kind="stable")
    keys = table[order]
    key_bucket = keys >> shift
    occupied = np.zeros(1 << bits, dtype=bool)
    occupied[key_bucket] = True
    counts = np.bincount(key_bucket.astype(np.int64), minlength=1 << bits)
    start = np.concatenate(([0], np.cumsum(counts)))
    bucket = probes >> shift
    rows = np.flatnonzero(occupied[bucket])  # most probes stop here: a small, cache-resident bitmap
    bucket = bucket[rows]
    lo = start[bucket]
    width = counts[bucket]
    probe = probes[rows]
    j = 0
    while len(rows):
        idx = lo + j
        hit = keys[idx] == probe
        out[rows[hit]] = order[idx[hit]]
        j += 1
        more = ~hit & (width > j)
        rows, lo, width, probe = rows[more], lo[more], width[more], probe[more]
    return out
