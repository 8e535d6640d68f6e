"""A column of byte-string ids (query ids, doc ids): the one form the engine holds them in.

:class:`Ids` is Arrow's binary layout held in two numpy arrays, ``offsets`` (int32, or int64 past 2 GiB of
bytes) and ``values`` (uint8): id ``i`` is ``values[offsets[i]:offsets[i + 1]]``. Ids compare as C
``strcmp`` compares them (bytewise, a prefix first), trec_eval's order; readers refuse NUL bytes.

The engine's operations on ids (take, compare rows, find runs of equal ids, sort, number the distinct ones)
run in the compiled extension ``rankmeter/engine/_idops.c``, without importing pyarrow: a TREC text file read
by the compiled reader goes from bytes to scores without it. Their oracles, through Arrow's compute
functions, are in ``tests/oracles/pure_ids.py``; ``tests/core/test_compiled_kernels.py`` sweeps both to the
same arrays.

>>> ids = Ids.from_list([b"q10", b"q2", b"q10"])
>>> ids.argsort().tolist(), ids.starts().tolist(), ids.take([2, 1]).to_pylist()
([0, 2, 1], [0, 1, 2], [b'q10', b'q2'])
>>> distinct, codes = ids.encode()
>>> distinct.to_pylist(), codes.tolist()
([b'q10', b'q2'], [0, 1, 0])
"""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from rankmeter.engine.keys import _idops, id_hash

__all__ = ["Ids"]


def _rows(rows) -> np.ndarray:
    return np.ascontiguousarray(rows, dtype=np.int64)


class Ids:
    """An immutable column of byte-string ids (see the module docstring)."""

    __slots__ = ("offsets", "values")

    def __init__(self, offsets: np.ndarray, values: np.ndarray):
        if offsets.dtype not in (np.int32, np.int64) or values.dtype != np.uint8 or len(offsets) < 1:
            raise TypeError("Ids: int32 or int64 offsets (n + 1 of them) and uint8 values")
        self.offsets = np.ascontiguousarray(offsets)
        self.values = values

    # ------------------------------------------------------------------ making one
    @classmethod
    def from_list(cls, items: Iterable[bytes | str]) -> Ids:
        """Ids of bytes (or str, as UTF-8 with surrogate escapes)."""
        items = [i if isinstance(i, bytes) else i.encode("utf-8", "surrogateescape") for i in items]
        offsets = np.zeros(len(items) + 1, np.int64)
        np.cumsum([len(i) for i in items], out=offsets[1:])
        return cls(offsets if offsets[-1] > np.iinfo(np.int32).max else offsets.astype(np.int32),
                   np.frombuffer(b"".join(items), np.uint8))

    @classmethod
    def concat(cls, parts: list[Ids]) -> Ids:
        """The ids of ``parts``, one after the other."""
        pieces = [p.rebased() for p in parts]
        offsets, at = [np.zeros(1, np.int64)], 0
        for piece_offsets, piece_values in pieces:
            offsets.append(piece_offsets[1:] + at)
            at += len(piece_values)
        wide = at > np.iinfo(np.int32).max
        values = np.concatenate([v for _, v in pieces]) if pieces else np.zeros(0, np.uint8)
        joined = np.concatenate(offsets)
        return cls(joined if wide else joined.astype(np.int32), values)

    @classmethod
    def from_arrow(cls, column) -> Ids:
        """The ids of an Arrow column (binary or string, chunked or not; other types as their text), no copy
        for a binary or string array; a chunked column with several chunks is joined."""
        import pyarrow as pa

        if isinstance(column, Ids):
            return column
        if isinstance(column, pa.ChunkedArray):
            column = column.chunk(0) if column.num_chunks == 1 else \
                column.combine_chunks() if column.num_chunks else pa.array([], column.type)
        if pa.types.is_large_binary(column.type) or pa.types.is_large_string(column.type):
            width = np.int64
        else:
            if not (pa.types.is_binary(column.type) or pa.types.is_string(column.type)):
                column = column.cast(pa.string())
            width = np.int32
        buffers = column.buffers()
        offsets = np.frombuffer(buffers[1], width)[column.offset: column.offset + len(column) + 1] \
            if buffers[1] is not None else np.zeros(1, width)
        values = np.frombuffer(buffers[2], np.uint8) if buffers[2] is not None else np.zeros(0, np.uint8)
        return cls(offsets, values)

    # ------------------------------------------------------------------ reading it
    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, i: int) -> bytes:
        n = len(self)
        if not -n <= i < n:
            raise IndexError(f"id {i} of {n}")
        i %= n
        return self.values[self.offsets[i]: self.offsets[i + 1]].tobytes()

    def __repr__(self) -> str:
        shown = self.take(np.arange(min(len(self), 3))).to_pylist()
        return f"Ids({shown}{' ...' if len(self) > 3 else ''}, {len(self)} ids)"

    @property
    def _wide(self) -> bool:
        return self.offsets.dtype == np.int64

    def rebased(self) -> tuple[np.ndarray, np.ndarray]:
        """Offsets from 0 (int64) and just the bytes they index: the layout of whole-array passes over the ids."""
        first, last = int(self.offsets[0]), int(self.offsets[-1])
        return self.offsets.astype(np.int64) - first, self.values[first:last]

    def to_pylist(self) -> list[bytes]:
        if not len(self):
            return []
        base = int(self.offsets[0])
        data = self.values[base: int(self.offsets[-1])].tobytes()
        bounds = (self.offsets - base).tolist()
        return [data[a:b] for a, b in zip(bounds[:-1], bounds[1:])]

    def arrow(self):
        """The same ids as an Arrow binary array (large_binary with int64 offsets), sharing the buffers."""
        import pyarrow as pa

        kind = pa.large_binary() if self._wide else pa.binary()
        return pa.Array.from_buffers(kind, len(self), [None, pa.py_buffer(self.offsets), pa.py_buffer(self.values)])

    def hashes(self) -> np.ndarray:
        """:func:`rankmeter.engine.keys.id_hash` of every id."""
        return id_hash(self.offsets, self.values)

    # ------------------------------------------------------------------ operations
    def slice(self, start: int, stop: int) -> Ids:
        """Ids ``start`` up to ``stop`` (no copy)."""
        return Ids(self.offsets[start: stop + 1], self.values)

    def take(self, rows) -> Ids:
        """The ids at ``rows``, in that order."""
        offsets, wide, values = _idops.take(self.offsets, self._wide, self.values, _rows(rows))
        return Ids(np.frombuffer(offsets, np.int64 if wide else np.int32), np.frombuffer(values, np.uint8))

    def equal_rows(self, rows, other: Ids, other_rows) -> np.ndarray:
        """Whether id ``rows[i]`` equals ``other``'s id ``other_rows[i]``, for every i (bool array)."""
        return np.frombuffer(_idops.equal(self.offsets, self._wide, self.values, _rows(rows),
                                          other.offsets, other._wide, other.values, _rows(other_rows)), np.bool_)

    def starts(self) -> np.ndarray:
        """The first row of every run of equal consecutive ids (int64; row 0 first)."""
        return np.frombuffer(_idops.starts(self.offsets, self._wide, self.values), np.int64)

    def argsort(self) -> np.ndarray:
        """Rows in ascending byte order (strcmp's), equal ids in row order (int64)."""
        return np.frombuffer(_idops.argsort(self.offsets, self._wide, self.values), np.int64)

    def encode(self) -> tuple[Ids, np.ndarray]:
        """The distinct ids in order of first appearance, and each row's number among them (int32)."""
        n = len(self)
        if n == 0:
            return Ids(np.zeros(1, np.int32), np.zeros(0, np.uint8)), np.zeros(0, np.int32)
        # by hash, each row then compared with its group's first row: equal hashes of different ids (a
        # 64-bit collision) fall back to the exact byte order
        _, first, inverse = np.unique(self.hashes(), return_index=True, return_inverse=True)
        inverse = inverse.reshape(-1)
        if not self.equal_rows(np.arange(n), self, first[inverse]).all():
            order = self.argsort()
            new = np.ones(n, np.bool_)
            new[1:] = ~self.equal_rows(order[1:], self, order[:-1])
            group = np.empty(n, np.int64)
            group[order] = np.cumsum(new) - 1
            first = np.full(int(group.max()) + 1, n, np.int64)
            np.minimum.at(first, group, np.arange(n))
            inverse = group
        appearance = np.argsort(first, kind="stable")
        code = np.empty(len(first), np.int32)
        code[appearance] = np.arange(len(first), dtype=np.int32)
        return self.take(first[appearance]), code[inverse]
