"""Hashes and the hash index: the same answers whether a column is hashed whole or in blocks."""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from rankmeter.core import keys
from rankmeter.core.keys import HashIndex, binary_parts, id_hash, pair_hash


def _ids(rng, n):
    # lengths 1..80 cross every branch of the hash: one word, up to 8 words, and longer
    lengths = rng.integers(1, 81, n)
    return [bytes(rng.integers(0, 256, k, dtype=np.uint8)) for k in lengths]


def test_equal_ids_hash_equal_and_blocks_change_nothing(monkeypatch):
    rng = np.random.default_rng(1)
    ids = _ids(rng, 500)
    ids += ids[:50]                                    # repeats hash as their first copy
    array = pa.array(ids, pa.binary())
    whole = id_hash(*binary_parts(array))
    assert len(set(whole[:500].tolist())) == 500       # distinct ids, distinct hashes
    assert (whole[500:] == whole[:50]).all()
    code = rng.integers(0, 7, len(ids))
    pairs = pair_hash(code, whole.copy())
    monkeypatch.setattr(keys, "_HASH_BLOCK", 7)        # every loop takes many blocks
    assert (id_hash(*binary_parts(array)) == whole).all()
    assert (id_hash(*binary_parts(array.slice(3, 200))) == whole[3:203]).all()
    assert (pair_hash(code, whole.copy()) == pairs).all()


@pytest.mark.parametrize("block", [7, 1 << 20])
def test_index_finds_every_key_and_only_them(monkeypatch, block):
    monkeypatch.setattr(keys, "_HASH_BLOCK", block)
    rng = np.random.default_rng(2)
    stored = rng.integers(0, 2 ** 63, 3000, dtype=np.int64).astype(np.uint64) * np.uint64(2)
    index = HashIndex(stored.copy())
    probes = np.concatenate([stored[::-1], stored[:500] + np.uint64(1)])  # present, then absent (odd)
    found = index.lookup(probes)
    assert found[:3000].tolist() == list(range(2999, -1, -1))
    assert (found[3000:] == -1).all()


@pytest.mark.parametrize("block", [5, 1 << 20])
@pytest.mark.parametrize("consume", [False, True])
def test_index_build_in_place_and_repeated_keys(monkeypatch, block, consume):
    """The index built in place (``consume``) holds the keys in the order of the plain argsort of (high bits,
    row); ``repeated`` pairs every row of a repeated key with the one before it, also when other keys share
    the high bits between them."""
    monkeypatch.setattr(keys, "_HASH_BLOCK", block)
    rng = np.random.default_rng(3)
    n = 400
    stored = rng.integers(0, 2 ** 64 - 1, n, dtype=np.uint64)
    bits = int(np.ceil(np.log2(n)))
    stored[10:14] = (stored[10] >> np.uint64(bits) << np.uint64(bits)) + np.arange(4, dtype=np.uint64)  # shared high bits
    stored[[50, 120, 399]] = stored[11]     # a key three times, with interlopers of the same high bits
    stored[[200, 300]] = stored[7]
    given = stored.copy()
    index = HashIndex(given, consume=consume)
    if not consume:
        assert (given == stored).all()      # the caller's keys are left as they were
    packed = (stored >> np.uint64(bits) << np.uint64(bits)) | np.arange(n, dtype=np.uint64)
    expected_order = np.argsort(packed, kind="stable")
    assert index.order.tolist() == expected_order.tolist()
    assert (index.keys == stored[expected_order]).all()
    first, second = index.repeated()
    assert sorted(zip(first.tolist(), second.tolist())) == [(7, 200), (11, 50), (50, 120), (120, 399), (200, 300)]
    distinct = rng.permutation(2 ** 20)[:n].astype(np.uint64) << np.uint64(44)
    assert [len(a) for a in HashIndex(distinct).repeated()] == [0, 0]
