"""The check each built wheel runs (pyproject.toml [tool.cibuildwheel] test-command): ``python tests/wheel_check.py``.

Against the rankmeter installed from the wheel (tests/ holds no package of that name): both extensions load and
hash ids with the engine's hash; every compiled id operation, the id hash and the hash index give their
oracles' arrays (tests/oracles/) on generated columns of every shape the kernels branch on; a small run is
scored through the whole package (hand-worked AP); the reader reads hard numbers (halfway between two doubles,
over 4096 characters, subnormal) as float() does, with the converter of that platform's build (strtod_l, or
CPython's on Windows), and grades as int() and trec_eval's atol. numpy and pyarrow (the wheel's dependencies) are all it
needs. ``tests/core/test_compiled_kernels.py`` runs it too, so the command is known to work before a CI runs it.
"""
from __future__ import annotations

import sys
import tempfile
from decimal import Decimal, getcontext
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


def _hard_numbers(rng) -> list[str]:
    """Numbers where converters differ: halfway between two doubles (exactly and a digit off), 17 digits,
    subnormals, underflow to (negative) zero, long ones (over 4096 characters), and the fast path's edges."""
    getcontext().prec = 1200
    out = ["0.1", "-0", "2.", ".5", "1e22", "1e23", "9007199254740993", "1" * 300 + "." + "1" * 5000,
           "0." + "0" * 5000 + "1", "9" * 4097 + "e-4090", "4.9e-324", "2.2250738585072011e-308", "1e-400", "-1e-400",
           "1.7976931348623157e308", "123456789012345678901234567890", "3084437377989383e-15"]
    normal, subnormal = rng.integers(0, 0x7FEFFFFFFFFFFFFF, 260), rng.integers(0, 1 << 52, 40)
    for bits in np.concatenate([normal, subnormal]).astype(np.int64):
        low = float(np.int64(bits).view(np.float64))
        middle = (Decimal(low) + Decimal(float(np.nextafter(low, np.inf)))) / 2
        digits = len(format(middle, "e").split("e")[0].replace(".", ""))
        ulp = Decimal(1).scaleb(middle.adjusted() - digits + 1)
        out += [format(middle, "e"), format(middle + ulp, "e"), format(middle - ulp, "e"), repr(-low)]
    return out


def check_numbers(rng) -> int:
    """The compiled reader reads scores as float() and grades as int() and trec_eval's atol (CRLF lines): its
    exact fast path, and the C library's strtod_l or CPython's converter (Windows) beyond it, on this platform."""
    scores = _hard_numbers(rng)
    run = "".join(f"q1 Q0 d{i} {i + 1} {s} t\r\n" for i, s in enumerate(scores)).encode()
    parsed = _trecparse.parse(run, 0, 0)
    assert len(parsed) == 13 and parsed[1] == len(scores), parsed[:4]
    got = np.frombuffer(parsed[6], np.float64).view(np.uint64)
    want = np.array([float(s) for s in scores]).view(np.uint64)
    assert np.array_equal(got, want), [scores[i][:60] for i in np.flatnonzero(got != want)[:5]]
    grades = ["2.0", "-1.9", "1e3", "+3", ".5", "0" * 4500 + "7"]
    qrels = "".join(f"q1 0 d{i} {g}\r\n" for i, g in enumerate(grades)).encode()
    assert np.frombuffer(_trecparse.parse(qrels, 1, 2)[6], np.float64).tolist() == [float(g) for g in grades]
    assert np.frombuffer(_trecparse.parse(qrels, 1, 1)[6], np.int64).tolist() == [2, -1, 1, 3, 0, 7]
    for bad in ("1e400", "0x1p3", "inf", "nan", "1_0"):  # refused: line 2 of 3
        assert _trecparse.parse(f"q1 Q0 a 1 1 t\nq1 Q0 b 2 {bad} t\nq1 Q0 c 3 0 t\n".encode(), 0, 0)[0] == 2, bad
    return len(scores)


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
    numbers = check_numbers(rng)
    print(f"rankmeter {rankmeter.__version__} ({Path(rankmeter.__file__).parent}): {columns} id columns and "
          f"{indexes} hash indexes as their oracles, AP {ap}, {numbers} hard numbers as float() reads them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
