"""ranx's own test suite, run against ``rankmeter.compat.ranx`` through an import shim (tests/compat/ranx_shim.py).

ranx's source distribution on PyPI holds no tests (0.3.21's sdist has only the package), so the tests
come from ranx's repository: a checkout or git directory named by ``RANKMETER_RANX_REPO``, or the
snapshot the workplace keeps of github:AmenRa/ranx (:data:`SNAPSHOTS`). Its ``tests/`` and
``conftest.py`` are exported (``git archive``) into a cache folder once per commit, never copied into
this repository. The suite then runs in a subprocess where ``import ranx`` (and every ranx module
name the installed, pinned ranx has) is served by the drop-in; the real ranx is not imported there.

Every test must pass except :data:`DELIBERATE`: ranx's private numba helpers, which the drop-in does
not offer (the public functions around them are tested and pass).
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import pytest

#: the ranx these tests pin (pyproject's test extra) and its repository commit whose tests run
RANX_VERSION = "0.3.21"
#: where a snapshot of ranx's repository may be (the workplace's mirror of github:AmenRa/ranx)
SNAPSHOTS = ("/work/.mirror/AmenRa+ranx/repo",)
#: ranx tests of its internals, not of its public surface: (test id, why)
DELIBERATE = {
    "tests/unit/ranx/fusion/bayesfuse_test.py::test_estimate_log_odds":
        "ranx.fusion.bayesfuse._estimate_log_odds is a private numba helper (bayesfuse_train is offered and passes)",
    "tests/unit/ranx/fusion/condorcet_test.py::test_get_candidates":
        "ranx.fusion.condorcet.get_candidates is an internal numba helper (condorcet is offered and passes)",
    "tests/unit/ranx/fusion/condorcet_test.py::test_get_results":
        "ranx.fusion.condorcet.get_results is an internal numba helper (condorcet is offered and passes)",
}
HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def _repository() -> Path | None:
    for candidate in (os.environ.get("RANKMETER_RANX_REPO"), *SNAPSHOTS):
        if candidate and Path(candidate).exists():
            return Path(candidate)
    return None


def _export(repo: Path) -> Path:
    """ranx's tests/ and conftest.py at the repository's HEAD, in a cache folder (exported once per commit)."""
    work = repo / "tests"
    if work.is_dir():  # a checkout
        return repo
    git = ["git", f"--git-dir={repo}"]
    commit = subprocess.run(git + ["rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    cache = Path(tempfile.gettempdir()) / "rankmeter-ranx-suite" / commit
    if not (cache / "tests").is_dir():  # exported beside it, then renamed into place: never seen half-written
        cache.parent.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(dir=cache.parent))
        archive = scratch / "tests.tar"
        with open(archive, "wb") as f:
            subprocess.run(git + ["archive", "--format=tar", commit, "tests", "conftest.py"], stdout=f, check=True)
        with tarfile.open(archive) as tar:
            tar.extractall(scratch / "export", filter="data")
        if cache.is_dir() and not (cache / "tests").is_dir():  # left half-written by an older run
            shutil.rmtree(cache, ignore_errors=True)
        try:
            os.rename(scratch / "export", cache)
        except OSError:  # another process (a pytest-xdist worker) put it there first
            assert (cache / "tests").is_dir()
        shutil.rmtree(scratch, ignore_errors=True)
    return cache


def _ranx_modules() -> list[str]:
    """Every module name of the installed ranx (from its file list: ranx itself is not imported)."""
    from importlib.metadata import files, version
    assert version("ranx") == RANX_VERSION, f"pyproject pins ranx=={RANX_VERSION}; this machine has {version('ranx')}"
    names = set()
    for f in files("ranx"):
        parts = Path(str(f)).with_suffix("").parts
        if parts and parts[0] == "ranx" and str(f).endswith(".py"):
            names.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return sorted(names)


def test_ranx_own_test_suite_passes_against_the_drop_in(tmp_path):
    repo = _repository()
    if repo is None:
        pytest.skip("ranx's own tests: no snapshot of its repository here (its sdist has no tests); set "
                    "RANKMETER_RANX_REPO to a checkout of github:AmenRa/ranx")
    suite = _export(repo)
    modules = tmp_path / "modules.json"
    modules.write_text(json.dumps(_ranx_modules()))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
           "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    deselect = [arg for test in DELIBERATE for arg in ("--deselect", test)]
    done = subprocess.run([sys.executable, str(HERE / "ranx_shim.py"), str(modules), "-q", "-p", "no:cacheprovider",
                           "-p", "no:randomly", "-rfE", "-o", "addopts=", "tests", *deselect],
                          cwd=suite, env=env, capture_output=True, text=True, timeout=600)
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-2000:]
    counts = {word: int(n) for n, word in re.findall(r"(\d+) (passed|failed|errors?|deselected|skipped)", summary)}
    assert done.returncode == 0 and not counts.get("failed") and not counts.get("error") \
        and not counts.get("errors"), done.stdout[-6000:] + done.stderr[-2000:]
    assert counts.get("deselected") == len(DELIBERATE), summary
    assert counts.get("passed", 0) >= 100, summary  # ranx 0.3.21's repository: 121 of its 124 tests
