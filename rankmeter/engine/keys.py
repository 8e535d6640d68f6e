"""Numeric keys for byte-string ids, so ordering and joins run as numpy array code.

* Joins use :func:`id_hash`: SipHash-1-3 under a fixed key of each id's own
  bytes (compiled, ``rankmeter/engine/_idhash.h``), so memory grows with the
  total id bytes (never rows x the longest id) and a table's hashes do not
  depend on any other table: the qrels are hashed once and probed by every
  run. No result relies on the hash being free of collisions: every caller
  confirms a hit on the bytes and finds what a colliding hit hid
  (:mod:`rankmeter.engine.exact`); the extensions built with
  ``-DRANKMETER_CONSTANT_HASH`` make every id collide, and the tests show
  every value unchanged.
* Ordering uses :func:`id_words` on the few rows that need it (tied scores):
  an id becomes ``ceil(max_len / 8)`` big-endian uint64 words, zero padded.
  Comparing the word tuples compares the ids exactly as C ``strcmp`` does
  (ids never hold NUL bytes: readers reject them).

The hashing, the hash index's passes and the id operations of
:class:`~rankmeter.engine.ids.Ids` run in the compiled extension
``rankmeter/engine/_idops.c``, the one implementation the package has (wheels
carry it built; ``pip install -e .`` builds it in a checkout). Their numpy and
Arrow oracles are ``tests/oracles/``.
"""
from __future__ import annotations

import numpy as np

from rankmeter.engine.segments import distinct_sorted
from rankmeter.errors import NotBuilt

#: how a checkout builds the extensions (the message of :class:`~rankmeter.errors.NotBuilt`)
BUILD_HINT = ("build them in the source tree with `pip install -e .` (or `python setup.py build_ext --inplace`), "
              "which needs a C compiler, or install a rankmeter wheel, which carries them built")

try:
    from rankmeter.engine import _idops  # the compiled kernels (rankmeter/engine/_idops.c)
except ImportError as error:
    raise NotBuilt(f"rankmeter's compiled kernels (rankmeter.engine._idops) cannot be imported ({error}): "
                   + BUILD_HINT, name="rankmeter.engine._idops") from error

__all__ = ["binary_parts", "id_words", "id_hash", "pair_hash", "query_mix", "chunked_id_hash", "order_codes",
           "HashIndex", "HASH_NAME", "CONSTANT_HASH"]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


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


#: (query, doc) pairs hashed at a time: bounds the temporaries (a 10M-row column peaked ~450 MB above its
#: hashes at once)
_HASH_BLOCK = 1 << 20

#: the id hash: SipHash-1-3 under the first 32 hex digits of pi's fraction (rankmeter/engine/_idhash.h)
SIPHASH_NAME = "siphash13:243f6a8885a308d3:13198a2e03707344"
#: the hash the extensions were built with: SIPHASH_NAME, or "constant" (-DRANKMETER_CONSTANT_HASH: every id
#: and every (query, doc) pair hashes to one value, the tests' proof that no result depends on the hash)
HASH_NAME = getattr(_idops, "HASH", None)
if HASH_NAME not in (SIPHASH_NAME, "constant"):
    raise NotBuilt(f"rankmeter.engine._idops hashes ids with {HASH_NAME or 'an older hash'}, not {SIPHASH_NAME}: "
                   "it was built from other sources; " + BUILD_HINT, name="rankmeter.engine._idops")
CONSTANT_HASH = HASH_NAME == "constant"
#: every (query, doc) pair hashes to this one value when the hash is constant (as every id does in _idhash.h)
_CONSTANT = np.uint64(0x5EED5EED5EED5EED)


def id_hash(offsets: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The engine's 64-bit hash of each id (SipHash-1-3 of its bytes, compiled; no temporary beside the
    hashes). ``offsets``: n + 1 of them into ``values`` (uint8)."""
    if offsets.dtype not in (np.int32, np.int64):
        offsets = offsets.astype(np.int64)
    return np.frombuffer(_idops.hash_ids(np.ascontiguousarray(offsets), offsets.dtype == np.int64,
                                         np.ascontiguousarray(values)), np.uint64)


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
    """uint64 keys grouped once into buckets, probed many times (:meth:`lookup`), in compiled passes.

    A bucketed direct-address scheme on the top bits: hashes are uniform, so
    a bucket holds about two keys and a handful of vectorised passes resolve
    the probes (several times faster than ``searchsorted`` on large inputs).
    In front of it a one-bit-per-slot filter with ~16 slots per key turns
    away ~94% of absent probes after a single random read (most run rows
    are not judged).

    Building sorts the keys' top bits with each row's index packed into the
    low bits (``np.sort`` of plain integers is several times faster than
    ``argsort``); a bucket's keys are then compared in full. Below
    :data:`WIDE_FROM` keys the row numbers and bucket offsets are int32, else
    int64.
    """

    #: keys from which the index's row numbers and bucket offsets are int64 (else int32)
    WIDE_FROM = 2 ** 31

    def __init__(self, keys: np.ndarray, *, consume: bool = False):
        """``consume=True``: ``keys`` (uint64) is the caller's to give up; its buffer becomes the index's."""
        n = self.size = len(keys)
        log_n = int(np.ceil(np.log2(max(n, 2))))
        self.bits = max(4, log_n - 1)                      # buckets: about 2 keys each
        self.shift = np.uint64(64 - self.bits)
        filter_bits = min(32, max(10, log_n + 4))          # filter slots: about 16 per key
        self.filter_shift = np.uint64(64 - filter_bits)
        self.index_bits = index_bits = max(1, log_n)
        # In place on one buffer (no n-long temporary beside it but the keys' low bits and the order): the
        # keys' low bits are set aside and replaced by the row index (one compiled pass); a plain sort of these
        # packed integers groups the keys by their high bits, with the rows of equal high bits ascending; then
        # (one compiled pass) the low bits come back, gathered into the new order, while the keys are counted
        # per bucket and the filter's bits set.
        packed = np.ascontiguousarray(keys, dtype=np.uint64) if consume else np.array(keys, dtype=np.uint64)
        index = np.int64 if n >= self.WIDE_FROM else np.int32
        self.start = np.zeros((1 << self.bits) + 1, dtype=index)
        self.filter = np.zeros(1 << max(filter_bits - 3, 0), dtype=np.uint8)
        low = np.empty(n, dtype=np.uint64 if index is np.int64 else np.uint32)
        _idops.index_pack(packed, low, index_bits)
        packed.sort()
        self.order = np.empty(n, dtype=index)
        _idops.index_finish(packed, low, self.order, self.start, self.filter, index_bits, int(self.shift),
                            int(self.filter_shift))
        self.keys = packed

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
        """Index (into the keys as given) of each probe, -1 where absent: one compiled pass, no temporaries."""
        out = np.full(len(probes), -1, dtype=np.int64)
        if self.size == 0 or len(probes) == 0:
            return out
        _idops.lookup(self.keys, self.order, self.start, self.filter, int(self.shift), int(self.filter_shift),
                      np.ascontiguousarray(probes, dtype=np.uint64), out)
        return out
