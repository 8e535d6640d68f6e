"""Oracles of the engine's compiled id operations and hash index (``rankmeter/engine/_idops.c``), in numpy and Arrow.

The package runs one implementation of each operation, the compiled one; these are the same operations written
the obvious vectorised way, with Arrow's compute functions for the ids and numpy for the hashes and the index,
so a test can put the two side by side on any column (``tests/core/test_compiled_kernels.py``,
``tests/core/test_keys.py``). They were the package's fallback before the extension became mandatory.

* :func:`take`, :func:`equal_rows`, :func:`starts`, :func:`argsort`, :func:`encode`: the methods of
  :class:`rankmeter.engine.ids.Ids` through ``pyarrow.compute``.
* :func:`id_hash`: :func:`rankmeter.engine.keys.id_hash` as numpy SipHash-1-3 (:mod:`oracles.siphash`), in
  blocks of ids.
* :func:`index_arrays` and :func:`lookup`: :class:`rankmeter.engine.keys.HashIndex`'s arrays and probes with
  numpy alone.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from oracles.siphash import siphash13
from rankmeter.engine.ids import Ids

__all__ = ["take", "equal_rows", "starts", "argsort", "encode", "id_hash", "index_arrays", "lookup", "CONSTANT"]

#: every id's hash in a build with -DRANKMETER_CONSTANT_HASH (rankmeter/engine/_idhash.h)
CONSTANT = np.uint64(0x5EED5EED5EED5EED)


def _rows(rows: np.ndarray):
    import pyarrow as pa
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    return pa.Array.from_buffers(pa.int64(), len(rows), [None, pa.py_buffer(rows)])


def _binary(array):
    import pyarrow as pa
    return array.cast(pa.binary()) if pa.types.is_large_binary(array.type) else array


# ---------------------------------------------------------------------------------------------- id columns

def take(ids: Ids, rows) -> Ids:
    """:meth:`Ids.take`: Arrow's ``take``."""
    return Ids.from_arrow(ids.arrow().take(_rows(rows)))


def equal_rows(ids: Ids, rows, other: Ids, other_rows) -> np.ndarray:
    """:meth:`Ids.equal_rows`: Arrow's ``equal`` of the two columns taken."""
    import pyarrow.compute as pc
    if not len(rows):
        return np.zeros(0, np.bool_)
    return pc.equal(_binary(ids.arrow().take(_rows(rows))),
                    _binary(other.arrow().take(_rows(other_rows)))).to_numpy(zero_copy_only=False)


def starts(ids: Ids) -> np.ndarray:
    """:meth:`Ids.starts`: Arrow's ``not_equal`` of each id with the one before."""
    import pyarrow.compute as pc
    n = len(ids)
    if n == 0:
        return np.zeros(0, np.int64)
    column = ids.arrow()
    differs = pc.not_equal(column.slice(1), column.slice(0, n - 1)).to_numpy(zero_copy_only=False)
    return np.concatenate(([0], np.flatnonzero(differs) + 1)).astype(np.int64)


def argsort(ids: Ids) -> np.ndarray:
    """:meth:`Ids.argsort`: Arrow's stable ``sort_indices`` of the binary column (bytewise, as strcmp)."""
    import pyarrow.compute as pc
    return pc.sort_indices(_binary(ids.arrow())).to_numpy().astype(np.int64)


def encode(ids: Ids) -> tuple[Ids, np.ndarray]:
    """:meth:`Ids.encode`: Arrow's ``dictionary_encode`` (distinct ids in order of first appearance)."""
    import pyarrow.compute as pc
    if not len(ids):
        return Ids(np.zeros(1, np.int32), np.zeros(0, np.uint8)), np.zeros(0, np.int32)
    encoded = pc.dictionary_encode(ids.arrow())
    return Ids.from_arrow(encoded.dictionary), encoded.indices.to_numpy(zero_copy_only=False).astype(np.int32)


# ---------------------------------------------------------------------------------------------- hashes

def id_hash(offsets: np.ndarray, values: np.ndarray, *, block: int = 1 << 15, constant: bool = False) -> np.ndarray:
    """:func:`rankmeter.engine.keys.id_hash`: numpy SipHash-1-3 under the engine's key, ``block`` ids at a
    time (its five state arrays stay in the caches); ``constant``: every id :data:`CONSTANT`, as a build with
    ``-DRANKMETER_CONSTANT_HASH`` hashes them."""
    n = len(offsets) - 1
    if constant:
        return np.full(n, CONSTANT, np.uint64)
    offsets = offsets.astype(np.int64)
    out = np.empty(n, dtype=np.uint64)
    for lo in range(0, n, block):
        hi = min(lo + block, n)
        out[lo:hi] = siphash13(offsets[lo:hi + 1], values)
    return out


# ---------------------------------------------------------------------------------------------- the hash index

def index_arrays(index, keys: np.ndarray, *, block: int = 1 << 20) -> SimpleNamespace:
    """The arrays :class:`~rankmeter.engine.keys.HashIndex` builds from ``keys`` (``order``, ``keys``,
    ``start``, ``filter``), with numpy alone, ``block`` keys at a time; its sizes (``bits``, ``shift``,
    ``filter_shift``, ``index_bits``) are taken from ``index``, one built from the same keys.

    The keys' ``index_bits`` low bits are set aside and replaced by the row number; a plain sort groups the
    keys by their high bits, rows of equal high bits ascending; the low bits come back gathered by row.
    """
    n = len(keys)
    packed = np.array(keys, dtype=np.uint64)
    index_mask = np.uint64((1 << index.index_bits) - 1)
    high_mask = ~index_mask
    low = np.empty(n, dtype=np.uint32 if index.index_bits <= 32 else np.uint64)
    for lo in range(0, n, block):
        part = packed[lo:lo + block]
        low[lo:lo + block] = part & index_mask
        part &= high_mask
        part |= np.arange(lo, lo + len(part), dtype=np.uint64)
    packed.sort()
    order = np.empty(n, dtype=np.int32 if n < 2 ** 31 else np.int64)
    for lo in range(0, n, block):
        part = packed[lo:lo + block]
        order[lo:lo + block] = part & index_mask
        part &= high_mask
        part |= low[order[lo:lo + block]]
    counts = np.zeros(1 << index.bits, dtype=np.int64)
    for lo in range(0, n, block):
        counts += np.bincount((packed[lo:lo + block] >> index.shift).astype(np.int64), minlength=1 << index.bits)
    start = np.zeros((1 << index.bits) + 1, dtype=np.int32 if n < 2 ** 31 else np.int64)
    np.cumsum(counts, out=start[1:])
    filter_bytes = np.zeros_like(index.filter)
    for lo in range(0, n, block):
        slot = packed[lo:lo + block] >> index.filter_shift  # ascending, as the keys are
        byte = (slot >> np.uint64(3)).astype(np.int64)
        bit = np.left_shift(np.uint8(1), (slot & np.uint64(7)).astype(np.uint8))
        first = np.flatnonzero(np.r_[True, byte[1:] != byte[:-1]])
        filter_bytes[byte[first]] |= np.bitwise_or.reduceat(bit, first)
    return SimpleNamespace(order=order, keys=packed, start=start, filter=filter_bytes)


def lookup(index, probes: np.ndarray) -> np.ndarray:
    """:meth:`HashIndex.lookup <rankmeter.engine.keys.HashIndex.lookup>` with numpy alone: the probes the
    filter lets through walk their buckets one position per pass."""
    out = np.full(len(probes), -1, dtype=np.int64)
    if index.size == 0 or len(probes) == 0:
        return out
    slot = probes >> index.filter_shift
    passed = (index.filter[(slot >> np.uint64(3)).astype(np.int64)] >> (slot & np.uint64(7)).astype(np.uint8)) & 1
    rows = np.flatnonzero(passed)
    probe = probes[rows]
    bucket = (probe >> index.shift).astype(np.int64)
    lo = index.start[bucket].astype(np.int64)
    width = index.start[bucket + 1] - lo
    j = 0
    while len(rows):
        idx = lo + j
        hit = index.keys[idx] == probe
        out[rows[hit]] = index.order[idx[hit]]
        j += 1
        more = ~hit & (width > j)
        rows, lo, width, probe = rows[more], lo[more], width[more], probe[more]
    return out
