"""Hashes and the hash index: SipHash as its authors and CPython compute it (the numpy oracle, and the engine's
compiled hash equal to it); the same (query, doc) hashes whether pairs are hashed whole or in blocks; a hash
index whose first hit holds other bytes looked into again exactly."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pytest

from oracles import pure_ids
from oracles.siphash import siphash13
from rankmeter.engine import keys
from rankmeter.engine.exact import relookup
from rankmeter.engine.ids import Ids
from rankmeter.engine.keys import HashIndex, binary_parts, id_hash, pair_hash
from rankmeter.io import compiled


def _ids(rng, n):
    # lengths 1..80 cross every branch of the hash: one word, up to 8 words, and longer
    lengths = rng.integers(1, 81, n)
    return [bytes(rng.integers(0, 256, k, dtype=np.uint8)) for k in lengths]


def _sip(items: list[bytes], **options) -> list[int]:
    column = Ids.from_list(items)
    return siphash13(column.offsets.astype(np.int64), column.values, **options).tolist()


def test_the_published_siphash_vector():
    """SipHash-2-4 of the bytes 00..0e under the key 00..0f is a129ca6149be45e5 (Aumasson and Bernstein 2012,
    appendix A); SipHash-1-3 differs from it only in its rounds."""
    key = (0x0706050403020100, 0x0F0E0D0C0B0A0908)
    assert _sip([bytes(range(15))], key=key, rounds=(2, 4)) == [0xA129CA6149BE45E5]
    assert _sip([bytes(range(15))], key=key) != [0xA129CA6149BE45E5]


def test_the_id_hash_is_the_siphash_cpython_computes():
    """CPython hashes bytes with SipHash (1-3 from 3.11, 2-4 before) keyed by its hash secret, which
    PYTHONHASHSEED=0 sets to zero: the numpy oracle under a zero key gives CPython's hashes on ids of 1 to 80
    bytes (CPython answers -2 for a hash of -1); under the engine's key it gives the engine's compiled hashes."""
    rng = np.random.default_rng(5)
    items = [bytes(rng.integers(0, 256, k, dtype=np.uint8)) for k in list(range(1, 81)) * 5]
    script = ("import sys; print(sys.hash_info.algorithm, sys.hash_info.cutoff)\n"
              "for line in sys.stdin: print(hash(bytes.fromhex(line.strip())) % 2 ** 64)")
    done = subprocess.run([sys.executable, "-c", script], input="\n".join(i.hex() for i in items), text=True,
                          capture_output=True, env=dict(os.environ, PYTHONHASHSEED="0"), check=True)
    algorithm, cutoff, *hashes = done.stdout.split()
    rounds = {"siphash13": (1, 3), "siphash24": (2, 4)}.get(algorithm)
    assert rounds is not None, f"CPython built with {algorithm}: no SipHash to compare with"
    ours = _sip(items, key=(0, 0), rounds=rounds)
    longer = [i for i, item in enumerate(items) if len(item) > int(cutoff)]  # shorter ones: CPython's DJBX33A
    assert len(longer) >= 300
    assert [int(hashes[i]) for i in longer] == [2 ** 64 - 2 if ours[i] == 2 ** 64 - 1 else ours[i] for i in longer]
    assert _sip(items) == id_hash(*binary_parts(pa.array(items, pa.binary()))).tolist()  # the engine's key


def test_a_hit_on_other_bytes_is_looked_up_again():
    """relookup: probes whose first hit in the index was another id of their hash find the row holding their
    own (query code, id) among every row of that hash, -1 when none does."""
    stored = Ids.from_list([b"a", b"b", b"c", b"a", b"z"])
    code = np.array([0, 0, 0, 1, 0])
    index = HashIndex(np.array([7, 7, 7, 7, 9], np.uint64))          # four rows of one hash, one of another
    probes = Ids.from_list([b"c", b"a", b"a", b"b", b"y", b"z"])
    found = relookup(index, np.array([7, 7, 7, 7, 7, 9], np.uint64), probes, stored,
                     np.array([0, 1, 0, 1, 0, 0]), code)
    assert found.tolist() == [2, 3, 0, -1, -1, 4]


def test_a_reader_of_another_hash_gives_no_doc_hashes(monkeypatch):
    """The compiled reader hashes docs as it parses; when its hash is not keys.HASH_NAME (an extension built from
    other sources) the engine does not take its hashes but hashes the docs itself."""
    assert compiled._trecparse is not None  # the suite runs with the extensions built (tests/io/test_compiled.py)
    text = b"q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\n"
    assert compiled.parse_run(text, "run").doc_hash is not None
    monkeypatch.setattr(compiled._trecparse, "HASH", "another hash")
    run = compiled.parse_run(text, "run")
    assert run.doc_hash is None and run.ids("doc").to_pylist() == [b"d1", b"d2"]


def test_equal_ids_hash_equal_and_blocks_change_nothing(monkeypatch):
    """Equal ids hash equal, distinct ones apart; a sliced column hashes as the whole one did; the numpy oracle
    in blocks of 7 ids gives the same hashes; (query, doc) pairs hashed in blocks of 7 are the pairs hashed
    whole."""
    rng = np.random.default_rng(1)
    ids = _ids(rng, 500)
    ids += ids[:50]                                    # repeats hash as their first copy
    array = pa.array(ids, pa.binary())
    whole = id_hash(*binary_parts(array))
    assert len(set(whole[:500].tolist())) == 500       # distinct ids, distinct hashes
    assert (whole[500:] == whole[:50]).all()
    assert (id_hash(*binary_parts(array.slice(3, 200))) == whole[3:203]).all()
    assert (pure_ids.id_hash(*binary_parts(array), block=7) == whole).all()
    code = rng.integers(0, 7, len(ids))
    pairs = pair_hash(code, whole.copy())
    monkeypatch.setattr(keys, "_HASH_BLOCK", 7)        # every loop takes many blocks
    assert (pair_hash(code, whole.copy()) == pairs).all()


def test_index_finds_every_key_and_only_them():
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
