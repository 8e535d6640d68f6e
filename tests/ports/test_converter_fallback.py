"""The compiled reader's converter for numbers outside its exact fast path, as Windows builds it.

On glibc, musl and macOS ``rankmeter/io/_trecparse.c`` reads a number the fast path cannot (over 19 significant
digits, a mantissa over 2**53, a decimal exponent beyond +-22) with the C library's ``strtod_l``; elsewhere
(Windows) with CPython's own converter, ``PyOS_string_to_double``, taking the GIL back from the scan that runs
without it. Built here with ``-DRM_NO_STRTOD_L`` that second path runs on Linux: it must give the installed
extension's columns to the bit, float()'s values, the same refusals, and the same answers when several threads
parse at once (each taking and giving back the GIL per number). ``tools/portability_check.py`` runs the number
readers themselves on the other platforms.
"""
from __future__ import annotations

import importlib.util
import random
import shutil
import subprocess
import sysconfig
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from rankmeter.io import _trecparse

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def fallback(tmp_path_factory):
    """_trecparse.c built with -DRM_NO_STRTOD_L (CPython's converter outside the fast path), loaded."""
    compiler = shutil.which("gcc") or shutil.which("cc")
    assert compiler, "a C compiler builds the extensions here"
    target = tmp_path_factory.mktemp("fallback") / ("_trecparse" + sysconfig.get_config_var("EXT_SUFFIX"))
    subprocess.run([compiler, "-shared", "-fPIC", "-O2", "-DRM_NO_STRTOD_L", f"-I{sysconfig.get_paths()['include']}",
                    f"-I{ROOT / 'rankmeter' / 'engine'}", str(ROOT / "rankmeter" / "io" / "_trecparse.c"),
                    "-o", str(target)], check=True)
    spec = importlib.util.spec_from_file_location("_trecparse", target)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _scores(seed: int) -> list[str]:
    """Scores that miss the fast path (and some that take it), as tools write them."""
    rng = random.Random(seed)
    out = []
    for _ in range(3000):
        x = rng.random() * 10 ** rng.randint(-5, 5)
        out.append(rng.choice([repr(x), "%.17g" % x, "%.6f" % x, "%.25e" % x, "%.3e" % -x]))
    out += ["1" * 300 + "." + "1" * 5000, "0." + "0" * 5000 + "1", "9" * 4097 + "e-4090", "4.9e-324",
            "2.2250738585072011e-308", "1e-400", "-1e-400", "1.7976931348623157e308", "123456789012345678901234567890",
            "-0.0", "1e22", "1e23"]
    return out


def _run(scores: list[str]) -> bytes:
    return "".join(f"q{i % 7} Q0 d{i} {i + 1} {s} t\r\n" for i, s in enumerate(scores)).encode()


def test_the_fallback_reads_every_number_as_float_does(fallback):
    scores = _scores(1)
    data = _run(scores)
    mine, theirs = fallback.parse(data, 0, 0), _trecparse.parse(data, 0, 0)
    assert len(mine) == 13 and mine[1] == len(scores)
    assert mine == theirs  # every column to the byte: numbers (as bits), ids, hashes
    numbers = np.frombuffer(mine[6], np.float64)
    assert numbers.view(np.uint64).tolist() == np.array([float(s) for s in scores]).view(np.uint64).tolist()


def test_the_fallback_refuses_what_the_extension_refuses(fallback):
    for bad in ("1e400", "-1" + "0" * 400, "1" * 5000 + "e400", "0x1p3", "inf", "nan", "1_000"):
        data = _run(["0.5", "12345678901234567890", bad, "0.25"])
        answer = fallback.parse(data, 0, 0)
        assert answer == _trecparse.parse(data, 0, 0)
        assert answer[0] == 3 and answer[3] == 0  # line 3 refused as a line it cannot read
    qrels = b"q1 0 d1 2.0\nq1 0 d2 1" + b"0" * 4500 + b"e-4500\nq1 0 d3 -0.5e-330\n"
    assert fallback.parse(qrels, 1, 2) == _trecparse.parse(qrels, 1, 2)
    assert np.frombuffer(fallback.parse(qrels, 1, 2)[6], np.float64).tolist() == [2.0, 1.0, -0.0]


def test_threads_parsing_at_once_take_the_gil_back_in_turn(fallback):
    """The scan runs without the GIL and takes it back for each number outside the fast path."""
    texts = [_run(_scores(seed)) for seed in range(2, 10)]
    expected = [_trecparse.parse(text, 0, 0) for text in texts]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda text: fallback.parse(text, 0, 0), texts))
    assert got == expected
