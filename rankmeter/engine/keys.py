"""Numeric keys for byte-string ids, so ordering and joins run as numpy array code.

An id becomes ``ceil(max_len / 8)`` big-endian uint64 words, zero padded.
Comparing the word tuples compares the ids exactly as C ``strcmp`` does
(ids never hold NUL bytes: readers reject them), so sorting by words is
trec_eval's docno order, and equal words mean equal ids.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa

__all__ = ["binary_parts", "id_words", "mix_hash"]

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
    # An unaligned, overlapping big-endian view: element i holds bytes i..i+7.
    padded = np.zeros(len(values) + 8 * nwords + 8, dtype=np.uint8)
    padded[: len(values)] = values
    view = np.ndarray(shape=(len(values) + 8 * nwords,), dtype=">u8", buffer=padded, strides=(1,))
    words = np.empty((nwords, n), dtype=np.uint64)
    # mask[k] keeps the first k bytes of a word
    mask = np.array([0] + [((1 << (8 * k)) - 1) << (64 - 8 * k) for k in range(1, 9)], dtype=np.uint64)
    for w in range(nwords):
        keep = np.clip(lengths - 8 * w, 0, 8)
        words[w] = view[starts + 8 * w] & mask[keep]
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
