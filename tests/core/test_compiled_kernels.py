"""The engine's compiled kernels (rankmeter/engine/_idops.c), the one implementation the package runs, against
their oracles.

Every operation the engine runs on ids (rankmeter/engine/ids.py: take, compare rows, runs of equal ids, byte
order, numbering the distinct ones, hashing) is checked on generated columns three ways: the compiled
extension, its Arrow/numpy oracle (tests/oracles/pure_ids.py) and the obvious Python over lists of bytes; the
hash index (rankmeter/engine/keys.py) is built and probed to its numpy oracle's arrays, in both of its layouts;
a sanitizer build and a portable build (no GCC builtins, words read byte by byte) run them all. Without the
extension the engine does not import (the message says how to build it); a source build without a C compiler
stops and says so (setup.py).
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oracles import pure_ids
from oracles.siphash import SIP_KEY
from rankmeter.engine import keys as keys_module
from rankmeter.engine.ids import Ids
from rankmeter.engine.keys import HashIndex
from sanitized import run_sanitized

ROOT = Path(__file__).resolve().parents[2]

# short alphabets so that equal ids, shared prefixes and empty ids are common; 0xff sorts after ASCII
_ID = st.binary(max_size=3).map(lambda b: bytes(c % 4 + 97 for c in b)) | st.sampled_from(
    [b"", b"q1", b"q10", b"q2", b"\xff", b"\xffa", b"a" * 40, b"a" * 39 + b"b"])


def test_the_extension_hashes_with_the_engines_hash():
    """The extension says which hash it was built with: the SipHash-1-3 key the oracle hashes under, or (the
    collision tests' build) the constant hash; keys.py and the compiled reader agree."""
    from rankmeter.io import _trecparse

    assert keys_module.SIPHASH_NAME == "siphash13:%016x:%016x" % SIP_KEY
    assert keys_module._idops.HASH == keys_module.HASH_NAME == _trecparse.HASH
    assert keys_module.CONSTANT_HASH == (keys_module.HASH_NAME == "constant")


@settings(max_examples=300, deadline=None)
@given(st.lists(_ID, max_size=30), st.lists(_ID, max_size=30), st.integers(0, 3), st.booleans(),
       st.randoms(use_true_random=False))
def test_every_operation_is_its_oracles_and_the_plain_python_answer(items, others, skip, wide, rng):
    column = Ids.from_list([b"skipped"] * skip + items).slice(skip, skip + len(items))  # offsets from > 0
    if wide:
        column = Ids(column.offsets.astype(np.int64), column.values)
    other = Ids.from_list(others)
    n = len(items)
    rows = np.array([rng.randrange(n) for _ in range(2 * n)], np.int64) if n else np.zeros(0, np.int64)
    other_rows = np.array([rng.randrange(len(others)) for _ in rows], np.int64) if others else None
    distinct, codes = column.encode()
    fast = (column.to_pylist(), column.argsort().tolist(), column.starts().tolist(), column.take(rows).to_pylist(),
            None if other_rows is None else column.equal_rows(rows, other, other_rows).tolist(),
            distinct.to_pylist(), codes.tolist())
    distinct, codes = pure_ids.encode(column)
    slow = (column.to_pylist(), pure_ids.argsort(column).tolist(), pure_ids.starts(column).tolist(),
            pure_ids.take(column, rows).to_pylist(),
            None if other_rows is None else pure_ids.equal_rows(column, rows, other, other_rows).tolist(),
            distinct.to_pylist(), codes.tolist())
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
    """keys.id_hash through the extension equals the numpy oracle (tests/oracles/siphash.py) to the bit: ids of
    0 to 90 bytes, int32 and int64 offsets, offsets that do not start at 0; the oracle in blocks of 7 ids too."""
    rng = np.random.default_rng(3)
    items = [rng.integers(0, 256, rng.integers(0, 90)).astype(np.uint8).tobytes() for _ in range(2000)]
    column = Ids.from_list([b"before"] + items).slice(1, len(items) + 1)
    reference = pure_ids.id_hash(column.offsets, column.values)
    assert np.array_equal(pure_ids.id_hash(column.offsets, column.values, block=7), reference)
    for offsets in (column.offsets, column.offsets.astype(np.int64)):
        fast = np.frombuffer(keys_module._idops.hash_ids(offsets, offsets.dtype == np.int64, column.values), np.uint64)
        assert np.array_equal(fast, reference)
        assert np.array_equal(keys_module.id_hash(offsets, column.values), reference)
    assert np.array_equal(column.hashes(), reference)


@pytest.mark.parametrize("wide", [False, True])
def test_compiled_lookup_is_the_numpy_lookup(monkeypatch, wide):
    """HashIndex.lookup through the extension equals its numpy oracle (hits, misses, repeated keys), with int32
    and (``wide``: the layout from 2**31 keys on) int64 row numbers and bucket offsets, and with one of each."""
    if wide:
        monkeypatch.setattr(HashIndex, "WIDE_FROM", 0)
    rng = np.random.default_rng(2)
    for n in (1, 3, 17, 1000, 70_000):
        keys = rng.integers(0, 2 ** 64, n, dtype=np.uint64, endpoint=False)
        keys[: n // 10] = keys[n // 10: 2 * (n // 10)]  # some keys twice: the first in bucket order wins
        probes = np.concatenate([keys[rng.integers(0, n, 3 * n)], rng.integers(0, 2 ** 64, 3 * n, dtype=np.uint64)])
        index = HashIndex(keys.copy())
        assert index.order.dtype == index.start.dtype == (np.int64 if wide else np.int32)
        expected = pure_ids.lookup(index, probes)
        assert (expected[:3 * n] >= 0).all() and (expected[3 * n:] == -1).sum() > 2 * n
        assert np.array_equal(index.lookup(probes), expected)
        order, start = index.order, index.start  # the kernel also takes the two arrays of different widths
        for index.order, index.start in ((order.astype(np.int64), start.astype(np.int32)),
                                         (order.astype(np.int32), start.astype(np.int64))):
            assert np.array_equal(index.lookup(probes), expected)


@pytest.mark.parametrize("wide", [False, True])
@pytest.mark.parametrize("n", [0, 1, 2, 3, 17, 1000, 70_000, 300_000])
def test_compiled_index_build_is_the_numpy_build(monkeypatch, n, wide):
    """HashIndex built through the extension's passes holds the same arrays as its numpy oracle (order, keys,
    bucket offsets, filter), repeated keys and keys sharing their high bits included, in both layouts (int32,
    and int64 row numbers and bucket offsets, with the keys' low bits set aside as uint64)."""
    if wide:
        monkeypatch.setattr(HashIndex, "WIDE_FROM", 0)
    rng = np.random.default_rng(n)
    keys = rng.integers(0, 2 ** 64, n, dtype=np.uint64, endpoint=False)
    keys[: n // 10] = keys[n // 10: 2 * (n // 10)]
    if n > 20:
        keys[5:9] = (keys[5] >> np.uint64(20) << np.uint64(20)) + np.arange(4, dtype=np.uint64)
    fast = HashIndex(keys.copy())
    slow = pure_ids.index_arrays(fast, keys, block=4096)  # the oracle's blocks, several of them
    for name in ("order", "keys", "start", "filter"):
        a, b = getattr(fast, name), getattr(slow, name)
        assert np.array_equal(a, b), name
        assert a.dtype == (b.dtype if not wide or name in ("keys", "filter") else np.int64), name
    assert fast.start[-1] == n


def test_bad_index_buffers_are_refused():
    """The index's passes refuse buffers of sizes that do not go together (a row number that could not fit,
    layouts mixed, shifts out of range) instead of writing past them."""
    m = keys_module._idops
    keys = np.arange(8, dtype=np.uint64)
    with pytest.raises(ValueError):
        m.index_pack(keys, np.empty(8, np.uint16), 3)            # low bits: neither uint32 nor uint64
    with pytest.raises(ValueError):
        m.index_pack(keys, np.empty(8, np.uint32), 2)            # 8 rows do not fit 2 bits
    start, filt = np.zeros(17, np.int64), np.zeros(128, np.uint8)
    with pytest.raises(ValueError):                              # int64 offsets, int32 order
        m.index_finish(keys, np.empty(8, np.uint64), np.empty(8, np.int32), start, filt, 3, 60, 54)
    with pytest.raises(ValueError):
        m.index_finish(keys, np.empty(8, np.uint64), np.empty(8, np.int64), start, filt, 3, 64, 54)
    out = np.empty(8, np.int64)
    with pytest.raises(ValueError):
        m.lookup(keys, np.empty(8, np.int32), start, filt, 0, 54, keys, out)


def test_a_joined_column_is_placed_as_its_pieces():
    """place (the compiled reader's join of its pieces' id columns) gives the column numpy's concatenation of
    the pieces gives, int32 and int64 offsets."""
    rng = np.random.default_rng(4)
    pieces = [Ids.from_list([bytes(rng.integers(97, 123, rng.integers(0, 9)).astype(np.uint8))
                             for _ in range(k)]) for k in (5, 0, 1, 300, 2)]
    expected = Ids.concat(pieces)
    rows, size = sum(len(p) for p in pieces), len(expected.values)
    for wide in (False, True):
        offsets, values = np.zeros(rows + 1, np.int64 if wide else np.int32), np.empty(size, np.uint8)
        row = at = 0
        for piece in pieces:
            keys_module._idops.place(offsets, wide, values, row, at, piece.offsets.astype(np.int32), piece.values)
            row, at = row + len(piece), at + len(piece.values)
        assert Ids(offsets, values).to_pylist() == expected.to_pylist()
        assert np.array_equal(offsets, expected.offsets)


def test_a_portable_build_gives_the_same_answers(tmp_path):
    """rankmeter/engine/_idops.c built as a compiler without GCC's builtins or byte-order macros builds it (no
    prefetch, every word read byte by byte: -DRM_NO_PREFETCH -DRM_LITTLE_ENDIAN=0, as C99) gives the same
    hashes, index and lookups as the extension built here."""
    compiler = shutil.which("gcc") or shutil.which("cc")
    assert compiler, "a C compiler builds the extensions here"
    target = tmp_path / ("_idops" + sysconfig.get_config_var("EXT_SUFFIX"))
    subprocess.run([compiler, "-shared", "-fPIC", "-O2", "-std=c99", "-DRM_NO_PREFETCH", "-DRM_LITTLE_ENDIAN=0",
                    f"-I{sysconfig.get_paths()['include']}", f"-I{ROOT / 'rankmeter' / 'engine'}",
                    str(ROOT / "rankmeter" / "engine" / "_idops.c"), "-o", str(target)], check=True)
    script = (
        "import importlib.util, sys, numpy as np\n"
        f"spec = importlib.util.spec_from_file_location('_idops', {str(target)!r})\n"
        "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
        "from rankmeter.engine import keys\n"
        "from rankmeter.engine.ids import Ids\n"
        "rng = np.random.default_rng(9)\n"
        "items = [rng.integers(0, 256, rng.integers(0, 70)).astype(np.uint8).tobytes() for _ in range(3000)]\n"
        "c = Ids.from_list([b'x'] + items).slice(1, 3001)\n"
        "assert np.array_equal(np.frombuffer(m.hash_ids(c.offsets, False, c.values), np.uint64), c.hashes())\n"
        "stored = c.hashes().copy(); index = keys.HashIndex(stored)\n"
        "low = np.empty(len(stored), np.uint32); packed = stored.copy(); m.index_pack(packed, low, index.index_bits)\n"
        "packed.sort(); order = np.empty_like(index.order); start = np.zeros_like(index.start)\n"
        "filt = np.zeros_like(index.filter)\n"
        "m.index_finish(packed, low, order, start, filt, index.index_bits, int(index.shift), int(index.filter_shift))\n"
        "assert np.array_equal(order, index.order) and np.array_equal(packed, index.keys)\n"
        "assert np.array_equal(start, index.start) and np.array_equal(filt, index.filter)\n"
        "probes = np.concatenate([stored, rng.integers(0, 2 ** 64, 3000, dtype=np.uint64)])\n"
        "out = np.full(len(probes), -1, np.int64)\n"
        "m.lookup(index.keys, index.order, index.start, index.filter, int(index.shift), int(index.filter_shift), probes, out)\n"
        "assert np.array_equal(out, index.lookup(probes))\n"
        "print(m.HASH)\n")
    done = subprocess.run([sys.executable, "-c", script], env=dict(os.environ, PYTHONPATH=str(ROOT)),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == keys_module.HASH_NAME


def test_without_the_extension_the_engine_says_how_to_build_it(tmp_path):
    """A source checkout without its extensions built (or with one built from other sources): importing the
    engine raises rankmeter's NotBuilt (an ImportError) naming the commands that build them, and the command
    line prints it on one line with status 2."""
    home = tmp_path / "checkout"
    shutil.copytree(ROOT / "rankmeter", home / "rankmeter",
                    ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))
    env = dict(os.environ, PYTHONPATH=str(home))
    probe = ("from rankmeter.errors import NotBuilt\n"
             "try:\n    import rankmeter.engine.ids\n"
             "except NotBuilt as error:\n    assert isinstance(error, ImportError); print(error)\n")
    done = subprocess.run([sys.executable, "-c", probe], cwd=home, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "pip install -e ." in done.stdout and "python setup.py build_ext --inplace" in done.stdout
    assert "rankmeter.engine._idops" in done.stdout and "wheel" in done.stdout
    data = ROOT / "tests" / "data"
    done = subprocess.run([sys.executable, "-m", "rankmeter", "eval", str(data / "basic.qrels"),
                           str(data / "basic.run"), "-m", "AP"], cwd=home, env=env, capture_output=True, text=True)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "pip install -e ." in done.stderr
    (home / "rankmeter" / "engine" / "_idops.py").write_text("HASH = 'an older hash'\n")
    done = subprocess.run([sys.executable, "-c", probe], cwd=home, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "built from other sources" in done.stdout and "an older hash" in done.stdout


def test_a_source_build_without_a_compiler_says_so(tmp_path):
    """setup.py with no C compiler to run (CC names none): the build stops, naming the compiler it looked for
    and pointing to the wheels, and leaves no extension behind."""
    home = tmp_path / "sdist"
    shutil.copytree(ROOT / "rankmeter", home / "rankmeter",
                    ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))
    for name in ("setup.py", "pyproject.toml", "README.md", "_rankmeter_cli.py"):
        shutil.copy(ROOT / name, home / name)
    done = subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=home,
                          env=dict(os.environ, CC=str(tmp_path / "no-such-cc")), capture_output=True, text=True,
                          timeout=300)
    assert done.returncode != 0
    message = done.stderr.strip().splitlines()[-1]
    assert "no-such-cc' was not found" in message and "--only-binary rankmeter" in message, done.stderr[-2000:]
    assert not list(home.glob("rankmeter/**/*.so"))


def test_the_wheels_check_runs_here():
    """The command cibuildwheel runs on each wheel (pyproject.toml) passes against this tree: the extensions
    load, the kernels give their oracles' arrays, a run is scored."""
    config = (ROOT / "pyproject.toml").read_text().split("[tool.cibuildwheel]", 1)[1]
    command = shlex.split(re.search(r'^test-command = "(.*)"$', config, re.M)[1].replace("{project}", str(ROOT)))
    assert command[0] == "python"
    done = subprocess.run([sys.executable, *command[1:]], cwd=ROOT.parent, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "10 id columns and 4 hash indexes as their oracles, AP 0.5" in done.stdout
