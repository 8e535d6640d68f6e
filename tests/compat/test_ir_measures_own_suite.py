"""ir_measures' own test suite, run against the drop-in through an import shim.

The suite is not copied here: the test downloads ir_measures' source distribution at the pinned version
(``pip download --no-binary :all: --no-deps ir_measures==0.4.3``, cached under the temp directory or
``$RANKMETER_PEER_CACHE``), unpacks its ``tests/`` and runs it twice in subprocesses: once with the real
ir_measures, once with a temp package ``ir_measures`` first on ``sys.path`` that re-exports
``rankmeter.compat.ir_measures``. Every test that passes with ir_measures passes with the drop-in, except
:data:`DELIBERATE` (docs/migrate-ir-measures.md).

The 0.4.3 sdist lacks ``tests/base.py`` and the ``compat``/``cwl`` qrels and runs, so ``test_pytrec_eval``,
``test_compat`` and ``test_cwl_eval`` fail there with both packages (checked: their failures are the missing
files). The release's whole ``tests/`` (github terrierteam/ir_measures at tag v0.4.3) was run the same way
by hand: of its 34 tests ir_measures fails 2 (ranx under pandas 3), the drop-in 1 (:data:`DELIBERATE`).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from optional_packages import optional  # noqa: E402

ir_measures = optional("ir_measures")

VERSION = "0.4.3"
ROOT = Path(__file__).resolve().parents[2]
#: test -> why the drop-in's answer differs from the asserted one
DELIBERATE = {
    "test_providers.py::TestPytrecEval::test_empty":
        "asserts cwl_eval's CwlMetric records (expected utility, cost, items) and its float sums "
        "(P@5 0.6000000000000001): the drop-in yields Metric(value=0.6)",
}
SHIM = '''import sys as _sys
import rankmeter.compat.ir_measures as _dropin
globals().update({k: v for k, v in vars(_dropin).items() if not k.startswith("__")})
__version__ = _dropin.__version__
for _name in ("measures", "providers", "util"):
    _sys.modules[__name__ + "." + _name] = getattr(_dropin, _name)
for _name in ("accuracy", "judged", "base"):  # ir_measures.measures.accuracy ... (one module here)
    _sys.modules[__name__ + ".measures." + _name] = _dropin.measures
'''


def _sdist_tests(tmp: Path) -> Path:
    cache = Path(os.environ.get("RANKMETER_PEER_CACHE", Path(tempfile.gettempdir()) / "rankmeter-peers"))
    archive = cache / f"ir_measures-{VERSION}.tar.gz"
    if not archive.exists():
        cache.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(dir=cache))  # then moved into place: pytest-xdist's workers share the cache
        done = subprocess.run([sys.executable, "-m", "pip", "download", "--no-binary", ":all:", "--no-deps",
                               f"ir_measures=={VERSION}", "-d", str(scratch)], capture_output=True, text=True)
        if done.returncode != 0 or not (scratch / archive.name).exists():
            pytest.fail(f"could not download ir_measures {VERSION}'s sdist from PyPI: {done.stderr[-400:]}")
        os.replace(scratch / archive.name, archive)
        shutil.rmtree(scratch, ignore_errors=True)
    with tarfile.open(archive) as tar:
        members = [m for m in tar.getmembers() if f"ir_measures-{VERSION}/tests/" in m.name]
        tar.extractall(tmp, members=members, filter="data")
    return tmp / f"ir_measures-{VERSION}" / "tests"


def _run(tests: Path, path: list[str], report: Path) -> dict[str, str]:
    """test id -> "passed" / "failed" of one run of the suite."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path), "PYTHONDONTWRITEBYTECODE": "1"}
    (tests.parent / "pytest.ini").write_text("[pytest]\n")
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", str(tests.parent /
                    "pytest.ini"), "--rootdir", str(tests.parent), "--continue-on-collection-errors", f"--junitxml={report}", str(tests)],
                   cwd=tests.parent, env=env, capture_output=True, text=True, timeout=600)
    out = {}
    for case in ET.parse(report).iter("testcase"):
        module = case.get("classname", "").split(".")
        test_id = f"{module[-2]}.py::{module[-1]}::{case.get('name')}" if len(module) >= 2 else case.get("name")
        failed = any(child.tag in ("failure", "error") for child in case)
        out[test_id] = "failed" if failed else ("skipped" if any(c.tag == "skipped" for c in case) else "passed")
    return out


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ir_measures_suite")
    tests = _sdist_tests(tmp)
    shim = tmp / "shim" / "ir_measures"
    shim.mkdir(parents=True)
    (shim / "__init__.py").write_text(SHIM)
    peer = _run(tests, [str(ROOT)], tmp / "peer.xml")
    ours = _run(tests, [str(shim.parent), str(ROOT)], tmp / "ours.xml")
    return peer, ours


def test_the_shim_loads_the_drop_in(tmp_path):
    shim = tmp_path / "ir_measures"
    shim.mkdir()
    (shim / "__init__.py").write_text(SHIM)
    code = "import ir_measures, ir_measures.measures; print(ir_measures.iter_calc.__module__, ir_measures.__file__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])})
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("rankmeter.compat.ir_measures.providers") and str(tmp_path) in out.stdout


def test_every_test_ir_measures_passes_passes_with_the_drop_in(outcomes):
    peer, ours = outcomes
    assert len(peer) >= 15, peer
    passing = {t for t, o in peer.items() if o == "passed"}
    broken = sorted(t for t in passing if ours.get(t) != "passed" and t not in DELIBERATE)
    assert not broken, broken
    for test in DELIBERATE:  # a deliberate difference that no longer shows would be listed wrongly
        assert ours.get(test) == "failed", test
    with_drop_in = {t for t, o in ours.items() if o == "passed"}
    print(f"\nir_measures {VERSION} sdist suite: {len(peer)} tests; ir_measures passes {len(passing)}, the drop-in "
          f"{len(with_drop_in)} (deliberate: {len(DELIBERATE)}); passing only with the drop-in: "
          f"{sorted(with_drop_in - passing)}; failing with both: {sorted(set(peer) - passing - with_drop_in)}")
