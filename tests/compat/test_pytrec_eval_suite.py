"""pytrec_eval's own examples, run against the drop-in through an import shim.

The source distribution of the pinned pytrec-eval-terrier (``PEER_VERSION``, the test extra's pin) is
downloaded from PyPI at test time into a cache directory (``$RANKMETER_PEER_CACHE``, else the temp dir),
checked against its published SHA-256, and never copied into this repository. It holds no tests (they are
in its GitHub repository only) but its ``examples/``: each example that needs nothing beyond this
project's test dependencies runs twice in a subprocess -- with the real pytrec_eval, and with a temp dir
holding ``pytrec_eval.py`` (``from rankmeter.compat.pytrec_eval import *``) first on ``sys.path`` -- and
the two outputs must be the same text. ``examples/rl.py`` needs gym and pyndri and is not run.

``pip download --no-binary :all:`` cannot fetch this sdist: pip prepares its metadata, and its setup.py
downloads trec_eval from GitHub first. The file is taken from PyPI's simple index instead (the link pip
itself would follow), and its hash checked.
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
from pathlib import Path

import pytest

from optional_packages import optional  # noqa: E402  (tests/ is on sys.path: tests/conftest.py)

pytrec_eval = optional("pytrec_eval")

PEER_VERSION = "0.5.11"
SDIST = f"pytrec_eval_terrier-{PEER_VERSION}.tar.gz"
SHA256 = "37258242d8bc1f8ed47a819c5b176198b1b4871f3c3a5f34349e534f74811924"
ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden"


def _download(target: Path) -> None:
    page = urllib.request.urlopen("https://pypi.org/simple/pytrec-eval-terrier/", timeout=60).read().decode()
    links = [link for link in re.findall(r'href="([^"]+)"', page) if link.split("#")[0].endswith("/" + SDIST)]
    assert links, f"{SDIST} is not on PyPI's simple index"
    with urllib.request.urlopen(links[0].split("#")[0].replace("&amp;", "&"), timeout=120) as answer:
        data = answer.read()
    assert hashlib.sha256(data).hexdigest() == SHA256, f"{SDIST}: not the published file"
    part = Path(tempfile.mkstemp(dir=target.parent, suffix=".part")[1])
    part.write_bytes(data)
    os.replace(part, target)  # whole or absent: pytest-xdist's workers (and parallel runs) share the cache


@pytest.fixture(scope="module")
def examples() -> Path:
    cache = Path(os.environ.get("RANKMETER_PEER_CACHE") or Path(tempfile.gettempdir()) / "rankmeter-peers")
    cache.mkdir(parents=True, exist_ok=True)
    archive = cache / SDIST
    if not archive.exists() or hashlib.sha256(archive.read_bytes()).hexdigest() != SHA256:
        _download(archive)
    unpacked = cache / SDIST.removesuffix(".tar.gz")
    if not unpacked.exists():  # unpacked beside it, then renamed into place: never seen half-written
        scratch = Path(tempfile.mkdtemp(dir=cache))
        with tarfile.open(archive) as tar:
            names = tar.getnames()
            assert all(n.split("/")[0] == unpacked.name and ".." not in n.split("/") for n in names), names
            tar.extractall(scratch)  # the hash-checked archive, its paths checked (no `filter=` before 3.11.4)
        try:
            os.rename(scratch / unpacked.name, unpacked)
        except OSError:  # another process put it there first
            assert unpacked.exists()
        shutil.rmtree(scratch, ignore_errors=True)
    return unpacked / "examples"


@pytest.fixture(scope="module")
def shim(tmp_path_factory) -> Path:
    where = tmp_path_factory.mktemp("shim")
    (where / "pytrec_eval.py").write_text("from rankmeter.compat.pytrec_eval import *  # noqa: F401,F403\n"
                                          "from rankmeter.compat.pytrec_eval import compute_aggregated_measure  # noqa\n")
    return where


def _run(script: Path, args: list[str], shim_dir: Path | None) -> str:
    env = dict(os.environ)
    paths = ([str(shim_dir)] if shim_dir else []) + [str(ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    done = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, env=env,
                          cwd=script.parent, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    if shim_dir is not None:  # the shim is what was imported
        check = subprocess.run([sys.executable, "-c", "import pytrec_eval; print(pytrec_eval.__name__, "
                                "pytrec_eval.RelevanceEvaluator.__module__)"], capture_output=True, text=True, env=env)
        assert "rankmeter.compat.pytrec_eval" in check.stdout, check.stdout + check.stderr
    return done.stdout


@pytest.fixture(scope="module")
def second_run(tmp_path_factory) -> str:
    """results.test with every third line left out: a second run for the significance example."""
    path = tmp_path_factory.mktemp("runs") / "results.third"
    lines = (GOLDEN / "results.test").read_text().splitlines(keepends=True)
    path.write_text("".join(line for i, line in enumerate(lines) if i % 3))
    return str(path)


@pytest.mark.parametrize("example, args", [
    ("simple.py", []),
    ("simple_cut.py", []),
    ("trec_eval.py", [str(GOLDEN / "qrels.test"), str(GOLDEN / "results.test")]),
    ("trec_eval.py", [str(GOLDEN / "qrels.rel_level"), str(GOLDEN / "results.test")]),
    ("statistical_significance.py", [str(GOLDEN / "qrels.test"), str(GOLDEN / "results.test"), "SECOND",
                                     "--measure", "map"]),
    ("statistical_significance.py", [str(GOLDEN / "qrels.test"), str(GOLDEN / "results.test"), "SECOND",
                                     "--measure", "gm_map"]),
], ids=lambda x: x if isinstance(x, str) else "-".join(Path(a).name for a in x))
def test_example_prints_what_it_prints_with_pytrec_eval(examples, shim, second_run, example, args):
    args = [second_run if a == "SECOND" else a for a in args]
    assert pytrec_eval.__version__ == PEER_VERSION, "the installed oracle is not the pinned version"
    want = _run(examples / example, args, None)
    got = _run(examples / example, args, shim)
    assert want.strip(), "the example printed nothing"
    assert got == want
