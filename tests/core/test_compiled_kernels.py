"""The engine's compiled kernels (rankmeter/engine/_idops.c) against their references.

Every operation the engine runs on ids (rankmeter/engine/ids.py: take, compare rows, runs of equal ids, byte
order, numbering the distinct ones, hashing) is checked on generated columns three ways: the compiled
extension, the Arrow/numpy path (``RANKMETER_PURE=1``) and the obvious Python over lists of bytes; the hash
index (rankmeter/engine/keys.py) is built and probed both ways to the same arrays; a sanitizer build runs them
all. ``.ci/run`` builds the extension: a missing one fails here rather than skipping.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter.engine import keys as keys_module
from rankmeter.engine.ids import Ids
from rankmeter.engine.keys import HashIndex
from sanitized import run_sanitized

# short alphabets so that equal ids, shared prefixes and empty ids are common; 0xff sorts after ASCII
_ID = st.binary(max_size=3).map(lambda b: bytes(c % 4 + 97 for c in b)) | st.sampled_from(
    [b"", b"q1", b"q10", b"q2", b"\xff", b"\xffa", b"a" * 40, b"a" * 39 + b"b"])


def _both(monkeypatch, operation):
    """``operation()`` on the compiled path and on the Arrow path."""
    monkeypatch.delenv("RANKMETER_PURE", raising=False)
    fast = operation()
    monkeypatch.setenv("RANKMETER_PURE", "1")
    slow = operation()
    monkeypatch.delenv("RANKMETER_PURE", raising=False)
    return fast, slow


def test_the_extension_is_built():
    assert keys_module._idops is not None, "the kernels are not compiled: pip install -e . builds them"
    assert keys_module.compiled()


@settings(max_examples=300, deadline=None)
@given(st.lists(_ID, max_size=30), st.lists(_ID, max_size=30), st.integers(0, 3), st.booleans(),
       st.randoms(use_true_random=False))
def test_every_operation_on_both_paths_is_the_plain_python_answer(items, others, skip, wide, rng):
    with pytest.MonkeyPatch.context() as monkeypatch:
        column = Ids.from_list([b"skipped"] * skip + items).slice(skip, skip + len(items))  # offsets from > 0
        if wide:
            column = Ids(column.offsets.astype(np.int64), column.values)
        other = Ids.from_list(others)
        n = len(items)
        rows = np.array([rng.randrange(n) for _ in range(2 * n)], np.int64) if n else np.zeros(0, np.int64)
        other_rows = np.array([rng.randrange(len(others)) for _ in rows], np.int64) if others else None

        def run():
            distinct, codes = column.encode()
            return (column.to_pylist(), column.argsort().tolist(), column.starts().tolist(),
                    column.take(rows).to_pylist(),
                    None if other_rows is None else column.equal_rows(rows, other, other_rows).tolist(),
                    distinct.to_pylist(), codes.tolist())
        fast, slow = _both(monkeypatch, run)
    assert fast == slow
    listed, order, starts, taken, equal, distinct, codes = fast
    assert listed == items
    assert order == sorted(range(n), key=lambda i: (items[i], i))  # strcmp's order, stable
    assert starts == [i for i in range(n) if i == 0 or items[i] != items[i - 1]]
    assert taken == [items[r] for r in rows]
    if other_rows is not None:
        assert equal == [items[a] == others[b] for a, b in zip(rows, other_rows)]
    assert distinct == list(dict.fromkeys(items))
    assert [distinct[c] for c in codes] == items


def test_a_hash_collision_is_numbered_exactly(monkeypatch):
    """encode numbers ids by their 64-bit hash and confirms every row on its bytes: with every hash equal
    (a collision of all of them) it falls back to the byte order and still numbers them exactly."""
    items = [b"b", b"a", b"b", b"c", b"a", b""]
    column = Ids.from_list(items)
    monkeypatch.setattr(Ids, "hashes", lambda self: np.zeros(len(self), np.uint64))
    monkeypatch.delenv("RANKMETER_PURE", raising=False)
    distinct, codes = column.encode()
    assert distinct.to_pylist() == [b"b", b"a", b"c", b""]
    assert codes.tolist() == [0, 1, 0, 2, 1, 3]


def test_concat_arrow_and_back():
    parts = [Ids.from_list([b"x", b""]), Ids.from_list([b"q1", b"q2", b"q3"]).slice(1, 3), Ids.from_list([])]
    joined = Ids.concat(parts)
    assert joined.to_pylist() == [b"x", b"", b"q2", b"q3"]
    assert joined.arrow().to_pylist() == [b"x", b"", b"q2", b"q3"]
    assert Ids.from_arrow(joined.arrow().cast("string")).to_pylist() == joined.to_pylist()
    assert joined[-1] == b"q3" and joined[1] == b""
    with pytest.raises(IndexError):
        joined[4]


def test_bad_offsets_and_rows_are_refused_not_read():
    """The compiled operations check their inputs: offsets that go down or past the values, and row numbers
    outside the column, raise instead of reading memory they do not own."""
    values = np.frombuffer(b"abcdef", np.uint8)
    for offsets in ([0, 3, 2], [0, 3, 9], [-1, 2]):
        with pytest.raises(ValueError):
            keys_module._idops.starts(np.array(offsets, np.int32), False, values)
    column = Ids.from_list([b"a", b"b"])
    with pytest.raises(IndexError):
        column.take([2])
    with pytest.raises(IndexError):
        column.equal_rows([0], column, [-1])


def test_a_sanitizer_build_runs_every_operation(tmp_path):
    """rankmeter/engine/_idops.c built with AddressSanitizer and UndefinedBehaviorSanitizer runs every operation
    on random columns (empty ids, long ids, int32 and int64 offsets, a column sliced from inside another) and
    on bad offsets and rows, in a child process: any overflow or undefined behaviour aborts it."""
    script = (
        "import numpy as np\n"
        "m = module\n"
        "rng = np.random.default_rng(5); n_ops = 0\n"
        "for size in (0, 1, 2, 7, 100, 5000):\n"
        "    lengths = rng.integers(0, 12, size); lengths[::7] = 0\n"
        "    for wide in (False, True):\n"
        "        off = np.zeros(size + 1, np.int64 if wide else np.int32); off[1:] = np.cumsum(lengths) + 3\n"
        "        off[0] = 3\n"
        "        val = rng.integers(97, 100, int(off[-1]) + 2).astype(np.uint8)\n"
        "        rows = rng.integers(0, max(size, 1), 3 * size).astype(np.int64)\n"
        "        o = np.frombuffer(m.argsort(off, wide, val), np.int64); assert sorted(o.tolist()) == list(range(size))\n"
        "        m.starts(off, wide, val); t = m.take(off, wide, val, rows)\n"
        "        m.equal(off, wide, val, rows, off, wide, val, rows[::-1].copy()); n_ops += 4\n"
        "for bad in ([0, 5, 2], [0, 99], [-4, 0]):\n"
        "    try: m.starts(np.array(bad, np.int32), False, np.zeros(6, np.uint8))\n"
        "    except ValueError: n_ops += 1\n"
        "try: m.take(np.array([0, 1], np.int32), False, np.zeros(1, np.uint8), np.array([1], np.int64))\n"
        "except IndexError: n_ops += 1\n"
        # pieces placed into a joined column (the reader's join), and a piece that does not fit
        "pieces = [np.array([0, 2, 2, 5], np.int32), np.array([0], np.int32), np.array([0, 1], np.int32)]\n"
        "off = np.zeros(5, np.int32); val = np.zeros(6, np.uint8); row = at = 0\n"
        "for p in pieces:\n"
        "    m.place(off, False, val, row, at, p, bytes(range(97, 97 + int(p[-1])))); row += len(p) - 1; at += int(p[-1])\n"
        "assert off.tolist() == [0, 2, 2, 5, 6] and bytes(val) == b'abcdea'\n"
        "try: m.place(off, False, val, 3, 5, pieces[0], b'abcde')\n"
        "except ValueError: n_ops += 1\n"
        # the hash index's passes (HashIndex's sizes), repeated keys included, then probes
        "import math\n"
        "for size in (1, 2, 5, 1000, 100000):\n"
        "    keys = rng.integers(0, 2 ** 64, size, dtype=np.uint64, endpoint=False); keys[:size // 3] = keys[-(size // 3) or size:][:size // 3]\n"
        "    log_n = math.ceil(math.log2(max(size, 2))); bits = max(4, log_n - 1); fbits = min(32, max(10, log_n + 4))\n"
        "    low = np.empty(size, np.uint32); m.index_pack(keys, low, max(1, log_n)); keys.sort()\n"
        "    order = np.empty(size, np.int32); start = np.zeros((1 << bits) + 1, np.int32); filt = np.zeros(1 << (fbits - 3), np.uint8)\n"
        "    m.index_finish(keys, low, order, start, filt, max(1, log_n), 64 - bits, 64 - fbits)\n"
        "    assert start[-1] == size and sorted(order.tolist()) == list(range(size))\n"
        "    probes = np.concatenate([keys, rng.integers(0, 2 ** 64, size, dtype=np.uint64, endpoint=False)])\n"
        "    out = np.full(len(probes), -1, np.int64); m.lookup(keys, order, start, filt, 64 - bits, 64 - fbits, probes, out)\n"
        "    assert (out[:size] >= 0).all(); n_ops += 1\n"
        "print(n_ops)\n")
    done = run_sanitized(Path(keys_module.__file__).with_name("_idops.c"), tmp_path, script)
    assert done.returncode == 0, done.stderr[-3000:]
    assert int(done.stdout) == 6 * 2 * 4 + 5 + 5


def test_the_compiled_hash_is_the_numpy_hash():
    """keys.id_hash through the extension equals the numpy function (its reference) to the bit: ids of 0 to
    90 bytes, int32 and int64 offsets, offsets that do not start at 0."""
    rng = np.random.default_rng(3)
    items = [rng.integers(0, 256, rng.integers(0, 90)).astype(np.uint8).tobytes() for _ in range(2000)]
    column = Ids.from_list([b"before"] + items).slice(1, len(items) + 1)
    reference = keys_module._id_hash(column.offsets.astype(np.int64), column.values)
    for offsets in (column.offsets, column.offsets.astype(np.int64)):
        fast = np.frombuffer(keys_module._idops.hash_ids(offsets, offsets.dtype == np.int64, column.values), np.uint64)
        assert np.array_equal(fast, reference)
    assert np.array_equal(column.hashes(), reference)


def test_compiled_lookup_is_the_numpy_lookup():
    """HashIndex.lookup through the extension equals its numpy reference (hits, misses, repeated keys,
    int32 and int64 index arrays)."""
    rng = np.random.default_rng(2)
    for n in (1, 3, 17, 1000, 70_000):
        keys = rng.integers(0, 2 ** 64, n, dtype=np.uint64, endpoint=False)
        keys[: n // 10] = keys[n // 10: 2 * (n // 10)]  # some keys twice: the first in bucket order wins
        probes = np.concatenate([keys[rng.integers(0, n, 3 * n)], rng.integers(0, 2 ** 64, 3 * n, dtype=np.uint64)])
        index = HashIndex(keys.copy())
        expected = index.lookup_pure(probes, np.full(len(probes), -1, np.int64))
        assert (expected[:3 * n] >= 0).all()
        assert np.array_equal(index.lookup(probes), expected)
        index.order, index.start = index.order.astype(np.int64), index.start.astype(np.int64)
        assert np.array_equal(index.lookup(probes), expected)


@pytest.mark.parametrize("n", [1, 2, 3, 17, 1000, 70_000, 300_000])
def test_compiled_index_build_is_the_numpy_build(monkeypatch, n):
    """HashIndex built through the extension's passes holds the same arrays as its numpy reference (order,
    keys, bucket offsets, filter), repeated keys and keys sharing their high bits included."""
    rng = np.random.default_rng(n)
    keys = rng.integers(0, 2 ** 64, n, dtype=np.uint64, endpoint=False)
    keys[: n // 10] = keys[n // 10: 2 * (n // 10)]
    if n > 20:
        keys[5:9] = (keys[5] >> np.uint64(20) << np.uint64(20)) + np.arange(4, dtype=np.uint64)
    fast = HashIndex(keys.copy())
    monkeypatch.setattr(keys_module, "_HASH_BLOCK", 4096)  # the reference's blocks, several of them
    monkeypatch.setenv("RANKMETER_PURE", "1")
    slow = HashIndex(keys.copy())
    for name in ("order", "keys", "start", "filter"):
        a, b = getattr(fast, name), getattr(slow, name)
        assert a.dtype == b.dtype and np.array_equal(a, b), name
    assert [x.tolist() for x in fast.repeated()] == [x.tolist() for x in slow.repeated()]
