"""The check each built wheel runs (pyproject.toml [tool.cibuildwheel] test-command): ``python tests/wheel_check.py``.

Against the rankmeter installed from the wheel (tests/ holds no package of that name): both extensions load and
hash ids with the engine's hash; every compiled id operation, the id hash and the hash index give their
oracles' arrays (tests/oracles/) on generated columns of every shape the kernels branch on; a small run is
scored through the whole package (hand-worked AP). numpy and pyarrow (the wheel's dependencies) are all it
needs. ``tests/core/test_compiled_kernels.py`` runs it too, so the command is known to work before a CI runs it.
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the oracles

import rankmeter  # noqa: E402
from oracles import pure_ids  # noqa: E402
from rankmeter.engine import _idops, keys  # noqa: E402
from rankmeter.engine.ids import Ids  # noqa: E402
from rankmeter.io import _trecparse  # noqa: E402


def _column(rng, n: int, wide: bool) -> Ids:
    """``n`` ids of 0 to 40 bytes (many equal, shared prefixes, bytes past 0x7f), offsets not starting at 0."""
    pool = [bytes(rng.integers(97, 100, rng.integers(0, 5)).astype(np.uint8)) for _ in range(max(n // 3, 1))]
    pool += [b"\xff", b"\xffa", b"a" * 40, b"a" * 39 + b"b", b""]
    items = [pool[i] for i in rng.integers(0, len(pool), n)]
    column = Ids.from_list([b"skip"] + items).slice(1, n + 1)
    return Ids(column.offsets.astype(np.int64), column.values) if wide else column


def check_ids(rng) -> int:
    checked = 0
    for n in (0, 1, 2, 9, 1000):
        for wide in (False, True):
            column = _column(rng, n, wide)
            rows = rng.integers(0, max(n, 1), 2 * n).astype(np.int64)
            other = _column(rng, 50, not wide)
            other_rows = rng.integers(0, 50, len(rows)).astype(np.int64)
            assert column.take(rows).to_pylist() == pure_ids.take(column, rows).to_pylist()
            assert np.array_equal(column.equal_rows(rows, other, other_rows),
                                  pure_ids.equal_rows(column, rows, other, other_rows))
            assert np.array_equal(column.starts(), pure_ids.starts(column))
            assert np.array_equal(column.argsort(), pure_ids.argsort(column))
            distinct, codes = column.encode()
            expected, expected_codes = pure_ids.encode(column)
            assert distinct.to_pylist() == expected.to_pylist() and np.array_equal(codes, expected_codes)
            assert np.array_equal(column.hashes(), pure_ids.id_hash(column.offsets, column.values,
                                                                    constant=keys.CONSTANT_HASH))
            checked += 1
    return checked


def check_index(rng) -> int:
    checked = 0
    for n in (1, 17, 5000, 70_000):
        stored = rng.integers(0, 2 ** 64, n, dtype=np.uint64, endpoint=False)
        stored[: n // 10] = stored[n // 10: 2 * (n // 10)]
        index = keys.HashIndex(stored)
        expected = pure_ids.index_arrays(index, stored)
        for name in ("order", "keys", "start", "filter"):
            assert np.array_equal(getattr(index, name), getattr(expected, name)), name
        probes = np.concatenate([stored[::-1], rng.integers(0, 2 ** 64, n, dtype=np.uint64, endpoint=False)])
        assert np.array_equal(index.lookup(probes), pure_ids.lookup(index, probes))
        checked += 1
    return checked


def check_scores() -> float:
    with tempfile.TemporaryDirectory() as folder:
        qrels, run = Path(folder, "qrels"), Path(folder, "run")
        qrels.write_text("q1 0 a 1\nq1 0 b 0\nq1 0 c 1\n")
        run.write_text("q1 Q0 b 1 3.0 t\nq1 Q0 a 2 2.0 t\nq1 Q0 x 3 1.0 t\nq1 Q0 c 4 0.5 t\n")
        ap = float(rankmeter.evaluate(str(qrels), str(run), ["AP"]).mean["AP"])
    assert abs(ap - (1 / 2 + 2 / 4) / 2) < 1e-12, ap
    return ap


def main() -> int:
    assert _idops.HASH == _trecparse.HASH == keys.HASH_NAME, (_idops.HASH, _trecparse.HASH)
    rng = np.random.default_rng(11)
    columns, indexes = check_ids(rng), check_index(rng)
    ap = check_scores()
    print(f"rankmeter {rankmeter.__version__} ({Path(rankmeter.__file__).parent}): {columns} id columns and "
          f"{indexes} hash indexes as their oracles, AP {ap}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
