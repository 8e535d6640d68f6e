"""SipHash-1-3 of byte-string ids with numpy: the oracle of the engine's id hash (:func:`rankmeter.engine.keys.id_hash`,
compiled from ``rankmeter/engine/_idhash.h``).

SipHash (Aumasson and Bernstein, 2012) is a keyed pseudorandom function on ARX rounds; SipHash-1-3 (one
compression round per 8-byte word, three finalisation rounds) is the hash of CPython's str and bytes and of
Rust's HashMap. The engine keys it with a fixed 128-bit key (:data:`SIP_KEY`), so a table's hashes never depend
on the process. This module is the description in numpy, lane by lane: ``tests/core/test_keys.py`` checks it
against the authors' published vector and CPython's own ``hash`` of the bytes under a zero key
(``PYTHONHASHSEED=0``), and ``tests/core/test_compiled_kernels.py`` checks the compiled hash against it, to the
bit.
"""
from __future__ import annotations

import numpy as np

__all__ = ["SIP_KEY", "siphash13"]

#: SipHash-1-3's key (the first 32 hex digits of pi's fraction) and initial state constants
SIP_KEY = (0x243F6A8885A308D3, 0x13198A2E03707344)
_SIP_INIT = (0x736F6D6570736575, 0x646F72616E646F6D, 0x6C7967656E657261, 0x7465646279746573)

#: _LOW[k] keeps the first k bytes of a little-endian word
_LOW = np.array([0] + [(1 << (8 * k)) - 1 for k in range(1, 9)], dtype=np.uint64)


def _load_le(values: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The little-endian uint64 of the 8 bytes at each position ``at`` of ``values``; bytes past the end
    read as 0. An unaligned overlapping view: no copy of ``values``, only of its last 8 bytes."""
    safe_end = len(values) - 8
    body = np.ndarray(shape=(safe_end + 1,), dtype="<u8", buffer=values, strides=(1,)) if safe_end >= 0 else None
    inside = at <= safe_end
    if body is not None and inside.all():
        return body[at]
    out = np.empty(len(at), dtype=np.uint64)
    if body is not None:
        out[inside] = body[at[inside]]
    tail_from = max(safe_end + 1, 0)
    tail = np.zeros(len(values) - tail_from + 8, dtype=np.uint8)
    tail[: len(values) - tail_from] = values[tail_from:]
    tail_view = np.ndarray(shape=(len(tail) - 7,), dtype="<u8", buffer=tail, strides=(1,))
    out[~inside] = tail_view[at[~inside] - tail_from]
    return out


def _rotl(x: np.ndarray, r: int, t: np.ndarray) -> None:
    """x rotated left by r bits, in place (``t``: scratch of x's shape)."""
    np.right_shift(x, np.uint64(64 - r), out=t)
    np.left_shift(x, np.uint64(r), out=x)
    x |= t


def _sip_round(v0: np.ndarray, v1: np.ndarray, v2: np.ndarray, v3: np.ndarray, t: np.ndarray) -> None:
    """One SipRound on every lane, in place."""
    v0 += v1; _rotl(v1, 13, t); v1 ^= v0; _rotl(v0, 32, t)  # noqa: E702
    v2 += v3; _rotl(v3, 16, t); v3 ^= v2  # noqa: E702
    v0 += v3; _rotl(v3, 21, t); v3 ^= v0  # noqa: E702
    v2 += v1; _rotl(v1, 17, t); v1 ^= v2; _rotl(v2, 32, t)  # noqa: E702


def siphash13(offsets: np.ndarray, values: np.ndarray, key: tuple[int, int] = SIP_KEY, *,
              rounds: tuple[int, int] = (1, 3)) -> np.ndarray:
    """SipHash-1-3 of each binary id under ``key`` (two 64-bit words), as the reference describes it
    (``rounds``: compression and finalisation rounds, (2, 4) for SipHash-2-4, the tests' published vector).

    An id of length L is read as ``L // 8`` full little-endian words, each one compression round, then a
    last word of its ``L % 8`` remaining bytes with ``L mod 256`` in its top byte, then three finalisation
    rounds. SipHash is a keyed pseudorandom function whose collisions have no known shortcut; the engine
    never relies on that (every hash hit is confirmed on the bytes). The lanes run side by side: ids with
    more words come first, so the ids still compressing at word j are a prefix.
    """
    n = len(offsets) - 1
    if n == 0:
        return np.zeros(0, np.uint64)
    starts = offsets[:-1].astype(np.int64)
    lengths = np.diff(offsets).astype(np.int64)
    full = lengths >> 3
    order = None
    if full.min() != full.max():  # ids of several word counts: most words first
        order = np.argsort(-full, kind="stable")
        starts, lengths, full = starts[order], lengths[order], full[order]
    k0, k1 = np.uint64(key[0]), np.uint64(key[1])
    v0 = np.full(n, k0 ^ np.uint64(_SIP_INIT[0]))
    v1 = np.full(n, k1 ^ np.uint64(_SIP_INIT[1]))
    v2 = np.full(n, k0 ^ np.uint64(_SIP_INIT[2]))
    v3 = np.full(n, k1 ^ np.uint64(_SIP_INIT[3]))
    t = np.empty(n, np.uint64)
    descending = -full
    for j in range(int(full.max())):
        k = int(np.searchsorted(descending, -j, side="left"))  # ids with more than j full words
        m = _load_le(values, starts[:k] + 8 * j)
        v3[:k] ^= m
        for _ in range(rounds[0]):
            _sip_round(v0[:k], v1[:k], v2[:k], v3[:k], t[:k])
        v0[:k] ^= m
    m = _load_le(values, starts + 8 * full) & _LOW[lengths & 7]
    m |= (lengths & 0xFF).astype(np.uint64) << np.uint64(56)
    v3 ^= m
    for _ in range(rounds[0]):
        _sip_round(v0, v1, v2, v3, t)
    v0 ^= m
    v2 ^= np.uint64(0xFF)
    for _ in range(rounds[1]):
        _sip_round(v0, v1, v2, v3, t)
    v0 ^= v1
    v0 ^= v2
    v0 ^= v3
    if order is None:
        return v0
    out = np.empty(n, np.uint64)
    out[order] = v0
    return out
