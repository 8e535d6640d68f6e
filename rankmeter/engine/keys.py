"""Numeric keys for byte-string ids, so ordering and joins run as numpy array code.

* Joins use :func:`id_hash`: SipHash-1-3 under a fixed key
  (:mod:`rankmeter.engine.siphash`) of each id's own bytes, so memory grows
  with the total id bytes (never rows x the longest id) and a table's hashes
  do not depend on any other table: the qrels are hashed once and probed by
  every run. No result relies on the hash being free of collisions: every
  caller confirms a hit on the bytes and finds what a colliding hit hid
  (:mod:`rankmeter.engine.exact`); ``RANKMETER_CONSTANT_HASH=1`` (with the
  extensions built with ``-DRANKMETER_CONSTANT_HASH``) makes every id collide,
  and the tests show every value unchanged.
* Ordering uses :func:`id_words` on the few rows that need it (tied scores):
  an id becomes ``ceil(max_len / 8)`` big-endian uint64 words, zero padded.
  Comparing the word tuples compares the ids exactly as C ``strcmp`` does
  (ids never hold NUL bytes: readers reject them).
"""
from __future__ import annotations

import os

import numpy as np

from rankmeter.engine.segments import distinct_sorted
from rankmeter.engine.siphash import SIP_KEY, siphash13 as _id_hash

try:
    from rankmeter.engine import _idops  # the compiled kernels (rankmeter/engine/_idops.c)
except ImportError:  # no compiler at install time: numpy (and Arrow for ids) do it all
    _idops = None

__all__ = ["compiled", "index_array", "binary_parts", "id_words", "id_hash", "pair_hash", "query_mix", "chunked_id_hash",
           "order_codes", "HashIndex"]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def compiled() -> bool:
    """Whether the engine's kernels on ids and keys run compiled (``rankmeter/engine/_idops.c`` was built and
    ``RANKMETER_PURE`` is not set); else numpy and Arrow, their reference, do the same work."""
    return _idops is not None and os.environ.get("RANKMETER_PURE", "") in ("", "0")


def index_array(rows: np.ndarray):
    """Row numbers as an Arrow int64 array (for ``take``) straight from the numpy buffer: ``pa.array`` of an
    ndarray imports numpy.ma to look for a mask (~15 ms of a small run's start-up)."""
    import pyarrow as pa
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    return pa.Array.from_buffers(pa.int64(), len(rows), [None, pa.py_buffer(rows)])


def binary_parts(array) -> tuple[np.ndarray, np.ndarray]:
    """Offsets (int64, length n+1, starting at 0) and the value bytes of an Arrow binary array."""
    import pyarrow as pa
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


def _fmix(h: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser: a bijection of uint64 that spreads every input bit (in place on ``h``)."""
    h ^= h >> np.uint64(30)
    h *= _MIX1
    h ^= h >> np.uint64(27)
    h *= _MIX2
    h ^= h >> np.uint64(31)
    return h


#: ids hashed at a time: bounds the temporaries (a 10M-id column peaked ~450 MB above its hashes at once)
_HASH_BLOCK = 1 << 20
#: ids SipHashed at a time on the numpy path: its five state arrays stay in the CPU caches
_SIP_BLOCK = 1 << 15

#: every id hashes to this one value when the hash is constant (:data:`CONSTANT_HASH`)
_CONSTANT = np.uint64(0x5EED5EED5EED5EED)
#: RANKMETER_CONSTANT_HASH=1: every id (and every (query, doc) pair) hashes to one value, so every id collides;
#: the tests' proof that no result depends on the hash (the extensions match it when built with
#: -DRANKMETER_CONSTANT_HASH; else they are not used). Read once, at import.
CONSTANT_HASH = os.environ.get("RANKMETER_CONSTANT_HASH", "") not in ("", "0")
#: the hash's name; the compiled extensions say theirs (``HASH``) and are used only when it is this one
HASH_NAME = "constant" if CONSTANT_HASH else "siphash13:%016x:%016x" % SIP_KEY
if _idops is not None and getattr(_idops, "HASH", None) != HASH_NAME:
    import warnings
    warnings.warn(f"rankmeter/engine/_idops hashes ids with {getattr(_idops, 'HASH', 'an older hash')}, not "
                  f"{HASH_NAME}: it is not used (rebuild it: python setup.py build_ext --inplace)", RuntimeWarning)
    _idops = None


def id_hash(offsets: np.ndarray, values: np.ndarray) -> np.ndarray:
    """:func:`_id_hash` (compiled when built), in blocks of ids, so memory beyond the hashes stays small whatever
    the column's length. ``offsets``: int32 or int64."""
    if compiled() and offsets.dtype in (np.int32, np.int64):
        return np.frombuffer(_idops.hash_ids(np.ascontiguousarray(offsets), offsets.dtype == np.int64, values),
                             np.uint64)
    n = len(offsets) - 1
    if CONSTANT_HASH:
        return np.full(n, _CONSTANT, np.uint64)
    out = np.empty(n, dtype=np.uint64)
    block = min(_SIP_BLOCK, _HASH_BLOCK)
    for lo in range(0, n, block):
        hi = min(lo + block, n)
        out[lo:hi] = _id_hash(offsets[lo:hi + 1], values)
    return out


def chunked_id_hash(array) -> np.ndarray:
    """:func:`id_hash` of an Arrow binary array, chunk by chunk (a chunked column is never joined)."""
    import pyarrow as pa
    if isinstance(array, pa.Array):
        return id_hash(*binary_parts(array))
    if array.num_chunks == 0:
        return np.zeros(0, np.uint64)
    return np.concatenate([id_hash(*binary_parts(chunk)) for chunk in array.chunks])


def query_mix(codes: np.ndarray) -> np.ndarray:
    """The per-query half of :func:`pair_hash`, for a few distinct codes (gather it per row)."""
    return _fmix(codes.astype(np.uint64) * _GOLDEN + np.uint64(1))


def pair_hash(qcode: np.ndarray, doc_hash: np.ndarray, *, mixed_query: np.ndarray | None = None) -> np.ndarray:
    """A 64-bit hash of (query code, doc id hash).

    ``mixed_query``, :func:`query_mix` of ``qcode`` computed another way
    (per distinct query, then gathered), saves one mixing pass over the rows.
    """
    if CONSTANT_HASH:
        return np.full(len(doc_hash), _CONSTANT, np.uint64)
    if mixed_query is not None or len(doc_hash) <= _HASH_BLOCK:
        return _fmix(doc_hash ^ (query_mix(qcode) if mixed_query is None else mixed_query))
    out = np.empty(len(doc_hash), dtype=np.uint64)
    for lo in range(0, len(out), _HASH_BLOCK):  # in blocks: the temporaries stay small
        out[lo:lo + _HASH_BLOCK] = _fmix(doc_hash[lo:lo + _HASH_BLOCK] ^ query_mix(qcode[lo:lo + _HASH_BLOCK]))
    return out


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


class HashIndex:
    """uint64 keys grouped once into buckets, probed many times (:meth:`lookup`).

    A bucketed direct-address scheme on the top bits: hashes are uniform, so
    a bucket holds about two keys and a handful of vectorised passes resolve
    the probes (several times faster than ``searchsorted`` on large inputs).
    In front of it a one-bit-per-slot filter with ~16 slots per key turns
    away ~94% of absent probes after a single random read (most run rows
    are not judged).

    Building sorts the keys' top bits with each row's index packed into the
    low bits (``np.sort`` of plain integers is several times faster than
    ``argsort``); a bucket's keys are then compared in full.
    """

    def __init__(self, keys: np.ndarray, *, consume: bool = False):
        """``consume=True``: ``keys`` (uint64) is the caller's to give up; its buffer becomes the index's."""
        n = self.size = len(keys)
        log_n = int(np.ceil(np.log2(max(n, 2))))
        self.bits = max(4, log_n - 1)                      # buckets: about 2 keys each
        self.shift = np.uint64(64 - self.bits)
        filter_bits = min(32, max(10, log_n + 4))          # filter slots: about 16 per key
        self.filter_shift = np.uint64(64 - filter_bits)
        self.index_bits = index_bits = max(1, log_n)
        # In place on one buffer, in blocks (no n-long temporary beside it but the keys' low bits and the
        # order): the keys' low bits are set aside and replaced by the row index; a plain sort of these
        # packed integers groups the keys by their high bits, with the rows of equal high bits ascending;
        # then the low bits come back, gathered into the new order.
        packed = np.ascontiguousarray(keys, dtype=np.uint64) if consume else np.array(keys, dtype=np.uint64)
        self.start = np.zeros((1 << self.bits) + 1, dtype=np.int32 if n < 2 ** 31 else np.int64)
        self.filter = np.zeros(1 << max(filter_bits - 3, 0), dtype=np.uint8)
        if compiled() and 0 < n < 2 ** 31:  # the passes around the sort in one loop each
            low = np.empty(n, dtype=np.uint32)
            _idops.index_pack(packed, low, index_bits)
            packed.sort()
            self.order = np.empty(n, dtype=np.int32)
            _idops.index_finish(packed, low, self.order, self.start, self.filter, index_bits, int(self.shift),
                                int(self.filter_shift))
            self.keys = packed
        else:
            self._build_pure(packed, n)

    def _build_pure(self, packed: np.ndarray, n: int) -> None:
        """The index's arrays from its keys with numpy alone, in blocks (the compiled passes' reference)."""
        index_mask = np.uint64((1 << self.index_bits) - 1)
        high_mask = ~index_mask
        low = np.empty(n, dtype=np.uint32 if self.index_bits <= 32 else np.uint64)
        for lo in range(0, n, _HASH_BLOCK):
            block = packed[lo:lo + _HASH_BLOCK]
            low[lo:lo + _HASH_BLOCK] = block & index_mask
            block &= high_mask
            block |= np.arange(lo, lo + len(block), dtype=np.uint64)
        packed.sort()
        self.order = np.empty(n, dtype=np.int32 if n < 2 ** 31 else np.int64)
        for lo in range(0, n, _HASH_BLOCK):
            block = packed[lo:lo + _HASH_BLOCK]
            self.order[lo:lo + _HASH_BLOCK] = block & index_mask
            block &= high_mask
            block |= low[self.order[lo:lo + _HASH_BLOCK]]
        del low
        self.keys = packed
        counts = np.zeros(1 << self.bits, dtype=np.int64)
        for lo in range(0, n, _HASH_BLOCK):
            counts += np.bincount((self.keys[lo:lo + _HASH_BLOCK] >> self.shift).astype(np.int64),
                                  minlength=1 << self.bits)
        np.cumsum(counts, out=self.start[1:])
        del counts
        for lo in range(0, n, 1 << 20):  # in blocks: the temporaries stay small beside the index
            slot = self.keys[lo: lo + (1 << 20)] >> self.filter_shift  # ascending, as the keys are
            byte = (slot >> np.uint64(3)).astype(np.int64)
            bit = np.left_shift(np.uint8(1), (slot & np.uint64(7)).astype(np.uint8))
            first = np.flatnonzero(np.r_[True, byte[1:] != byte[:-1]])
            self.filter[byte[first]] |= np.bitwise_or.reduceat(bit, first)

    def repeated(self) -> tuple[np.ndarray, np.ndarray]:
        """Rows whose keys are equal: pairs (earlier row, later row), each row of a repeated key paired
        with the one before it (rows ascending). Equal keys share their high bits, so only the few
        groups of keys with equal high bits are looked into."""
        shift = np.uint64(self.index_bits)
        candidates = []
        for lo in range(0, max(self.size - 1, 0), _HASH_BLOCK):
            hi = self.keys[lo:lo + _HASH_BLOCK + 1] >> shift
            candidates.append(np.flatnonzero(hi[1:] == hi[:-1]) + lo)
        at = np.concatenate(candidates) if candidates else np.zeros(0, np.int64)
        if not len(at):
            return at, at
        members = distinct_sorted(np.concatenate([at, at + 1]))
        rows = self.order[members].astype(np.int64)
        member_keys = self.keys[members]
        by_key = np.lexsort((rows, member_keys))
        rows, member_keys = rows[by_key], member_keys[by_key]
        same = np.flatnonzero(member_keys[1:] == member_keys[:-1])
        return rows[same], rows[same + 1]

    def lookup(self, probes: np.ndarray) -> np.ndarray:
        """Index (into the keys as given) of each probe, -1 where absent (the compiled loop when it is built:
        one pass, no temporaries; else the vectorised passes below, its reference)."""
        out = np.full(len(probes), -1, dtype=np.int64)
        if self.size == 0 or len(probes) == 0:
            return out
        if compiled():
            _idops.lookup(self.keys, self.order, self.start, self.filter, int(self.shift), int(self.filter_shift),
                          np.ascontiguousarray(probes, dtype=np.uint64), out)
            return out
        return self.lookup_pure(probes, out)

    def lookup_pure(self, probes: np.ndarray, out: np.ndarray) -> np.ndarray:
        """:meth:`lookup` with numpy alone (``out`` filled with -1)."""
        slot = probes >> self.filter_shift
        passed = (self.filter[(slot >> np.uint64(3)).astype(np.int64)] >> (slot & np.uint64(7)).astype(np.uint8)) & 1
        rows = np.flatnonzero(passed)
        probe = probes[rows]
        bucket = (probe >> self.shift).astype(np.int64)
        lo = self.start[bucket].astype(np.int64)
        width = self.start[bucket + 1] - lo
        j = 0
        while len(rows):
            idx = lo + j
            hit = self.keys[idx] == probe
            out[rows[hit]] = self.order[idx[hit]]
            j += 1
            more = ~hit & (width > j)
            rows, lo, width, probe = rows[more], lo[more], width[more], probe[more]
        return out
