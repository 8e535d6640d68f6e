"""Shared test settings: golden files, hypothesis profiles, optional packages, the oracle marker,
the CI skip gate and the CLI fixtures.

Hypothesis runs with no per-example deadline (timings on a shared 2-core CI machine vary too
much for one). Under CI (``CI`` set in the environment) examples are derandomised, so a CI
failure reproduces on the next run; a local run explores fresh examples each time.

Optional packages (tests/optional_packages.py): a test module binds one with
``optional("name")``; the collection hook below marks as skipped exactly the tests that use
a missing one (so the suite collects with numpy, pyarrow, pytest and hypothesis only), and
marks ``oracle`` every test that uses an oracle package (a peer implementation compared live).

Under CI every skip must match an entry of ALLOWED_SKIPS (documented in
tests/ALLOWED_SKIPS.md) whose condition holds on the machine; any other skip fails the run
and is listed at the end of the report.
"""
from __future__ import annotations

import dis
import inspect
import os
import re
import shutil
import sys
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

TESTS_DIR = Path(__file__).resolve().parent
if str(TESTS_DIR) not in sys.path:  # test modules import optional_packages and reference from here
    sys.path.insert(0, str(TESTS_DIR))

from cli_runner import CliResult, run_cli_in_process, run_cli_subprocess  # noqa: E402,F401
from optional_packages import ORACLES, PIP_NAMES, Missing, install_hint, installed, top_level  # noqa: E402

try:
    from hypothesis import HealthCheck, settings
except ImportError:  # pragma: no cover - hypothesis is in the [test] extra
    settings = None

GOLDEN_DIR = TESTS_DIR / "golden"
FIXTURES_DIR = TESTS_DIR / "fixtures"

if settings is not None:
    settings.register_profile("dev", deadline=None, print_blob=True)
    settings.register_profile("ci", deadline=None, print_blob=True, derandomize=True,
                              suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


@pytest.fixture(scope="session")
def golden_dir() -> Path:
    """The folder of trec_eval 10.0's test inputs and expected outputs."""
    return GOLDEN_DIR


@pytest.fixture(autouse=True)
def _numba_threads_as_ranx_found_them():
    """Each test sees numba with its default thread count, whatever ranx did in an earlier test.

    ranx's ``evaluate``/``compare`` call ``numba.set_num_threads(1)`` for qrels of fewer than 10
    queries and never set it back, and ranx's answers depend on it: its parallel ``bpref`` of a query
    with no judged non-relevant document is NaN with several threads and 0 with one. Without this
    reset a ranx comparison passed or failed by which test the worker ran before it.
    """
    yield
    parallel = sys.modules.get("numba.np.ufunc.parallel")
    if parallel is not None and parallel._is_initialized:  # else nothing set it (and nothing starts the threads)
        if parallel.get_num_threads() != parallel.NUM_THREADS:
            parallel.set_num_threads(parallel.NUM_THREADS)


# ---------------------------------------------------------------------------------------------- allowed skips

def _no_c_toolchain() -> bool:
    """.ci/run builds trec_eval 10.0 only with cc and make and NIST's archive in shared/anchors (found where .ci/run
    looks: RANKMETER_SHARED, beside the checkout, or beside the repository it was cloned from)."""
    return not (shutil.which("cc") and shutil.which("make") and _trec_eval_anchor() is not None)


def _trec_eval_anchor() -> Path | None:
    import subprocess
    root = TESTS_DIR.parent
    try:
        origin = subprocess.run(["git", "-C", str(root), "config", "--get", "remote.origin.url"], capture_output=True,
                                text=True, check=False).stdout.strip()
    except OSError:
        origin = ""
    places = [os.environ.get("RANKMETER_SHARED"), str(root.parent / "shared"),
              str(Path(origin) / ".." / "shared") if origin and "://" not in origin else None]
    for place in filter(None, places):
        anchor = Path(place) / "anchors" / "build_trec_eval.sh"
        if anchor.is_file():
            return anchor
    return None


def _no_ranx_repository() -> bool:
    """tests/compat/test_ranx_suite.py reads ranx's tests from a checkout or the workplace's snapshot of it."""
    snapshots = ("/work/.mirror/AmenRa+ranx/repo",)  # test_ranx_suite.SNAPSHOTS
    return not any(p and Path(p).exists() for p in (os.environ.get("RANKMETER_RANX_REPO"), *snapshots))


def _no_cuda() -> bool:
    if not installed("torch"):
        return True  # then the CUDA tests skip for torch itself, which is not allowed: see the torch entry below
    import torch
    return not torch.cuda.is_available()


@dataclass(frozen=True)
class AllowedSkip:
    key: str
    reason: str  # regular expression searched in the skip's reason
    applies: Callable[[], bool]  # the skip is allowed only while this holds on the machine
    why: str


#: Every skip CI accepts. Documented, with the reasoning, in tests/ALLOWED_SKIPS.md: keep the two in step.
ALLOWED_SKIPS = (
    AllowedSkip("no-c-compiler", r"TREC_EVAL_BIN", _no_c_toolchain,
                "the C trec_eval 10.0 is built by .ci/run from NIST's archive; without cc/make there is none "
                "to compare with (with a compiler, a missing TREC_EVAL_BIN means the build failed: not allowed)"),
    AllowedSkip("trec-eval-refuses-case", r"trec_eval 10\.0 itself fails on this case", lambda: True,
                "a random case the C oracle itself exits non-zero on has no reference output"),
    AllowedSkip("no-gpu", r"\b(CUDA|GPU|cuda)\b", _no_cuda, "CUDA tests need a GPU; CI machines have none"),
    AllowedSkip("root", r"root reads any file", lambda: hasattr(os, "geteuid") and os.geteuid() == 0,
                "as root, a file without read permission is still readable: the test has nothing to check"),
    AllowedSkip("majority-cycle", r"majority has a cycle or a tie", lambda: True,
                "fusion property cases whose pairwise majority is not a total order: the fused order is then "
                "sort-dependent in ranx and has no single right answer (the cycle itself is tested separately)"),
    AllowedSkip("not-linux", r"malloc_trim is glibc's", lambda: not sys.platform.startswith("linux"),
                "malloc_trim exists in glibc only"),
    AllowedSkip("no-fifo", r"named pipes are POSIX", lambda: not hasattr(os, "mkfifo"), "no named pipes"),
    AllowedSkip("no-dev-full", r"no /dev/full", lambda: not os.path.exists("/dev/full"),
                "the disk-full test writes to /dev/full (Linux)"),
    AllowedSkip("doctest-needs-torch", r"unable to import module .*tensor[/\\\\]torchmetrics\.py",
                lambda: not (installed("torch") and installed("torchmetrics")),
                "rankmeter/tensor/torchmetrics.py's doctests import torch and torchmetrics, optional packages"),
    AllowedSkip("no-ranx-repo", r"ranx's own tests: no snapshot of its repository", _no_ranx_repository,
                "ranx's sdist holds no tests: its suite needs a checkout or snapshot of its repository"),
    AllowedSkip("readme-marked", r"^README\.md:\d+: ", lambda: True,
                "a README block marked <!-- readme-test: skip (reason) --> next to the block itself"),
)


def allowed(reason: str) -> AllowedSkip | None:
    for entry in ALLOWED_SKIPS:
        if re.search(entry.reason, reason) and entry.applies():
            return entry
    return None


# ---------------------------------------------------------------------------------------------- collection

def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "oracle(*packages): compares rankmeter live against a peer implementation (pytrec_eval, ir_measures, "
        "ranx, ...); set by tests/conftest.py from what the test uses; CI runs them (-m oracle selects them)")
    config.addinivalue_line(
        "markers", "stored_oracle(*packages): compares rankmeter against oracle outputs stored in tests/fixtures/")


def _function_and_inner(obj):
    obj = inspect.unwrap(obj)
    found = [obj]
    inner = getattr(getattr(obj, "hypothesis", None), "inner_test", None)
    if inner is not None:
        found.append(inspect.unwrap(inner))
    return found


def _code_objects(code):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_objects(const)


_MODULE_PATH = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
_IMPORTERS = {"importorskip", "import_module", "find_spec", "optional"}


_CODE_FACTS: dict = {}


def _code_facts(code) -> tuple[tuple[str, ...], frozenset[str]]:
    """(names a function's code and its nested code refer to, top-level packages it imports or asks for by name)."""
    facts = _CODE_FACTS.get(code)
    if facts is None:
        names: list[str] = []
        packages: set[str] = set()
        for sub in _code_objects(code):
            names.extend(sub.co_names)
            packages.update(top_level(ins.argval) for ins in dis.get_instructions(sub) if ins.opname == "IMPORT_NAME")
            if _IMPORTERS.intersection(sub.co_names):
                packages.update(top_level(c) for c in sub.co_consts
                                if isinstance(c, str) and _MODULE_PATH.fullmatch(c) and top_level(c) in PIP_NAMES)
        facts = _CODE_FACTS[code] = (tuple(dict.fromkeys(names)), frozenset(packages))
    return facts


_USES: dict = {}


def _uses(item) -> tuple[set[str], dict[str, Missing]]:
    """Top-level optional packages a test uses, and the missing ones, following same-module helpers and fixtures."""
    module = item.module
    roots = list(_function_and_inner(item.function))
    fixture_info = getattr(item, "_fixtureinfo", None)
    for defs in fixture_info.name2fixturedefs.values() if fixture_info is not None else ():
        func = getattr(defs[-1], "func", None)
        if func is not None and getattr(func, "__module__", None) == module.__name__:
            roots.extend(_function_and_inner(func))
    key = (module.__name__, tuple(getattr(f, "__code__", None) for f in roots))
    if key in _USES:  # the parametrised copies of one test
        return _USES[key]
    namespace = vars(module)
    packages: set[str] = set()
    missing: dict[str, Missing] = {}
    stack, seen = roots, set()
    while stack:
        code = getattr(stack.pop(), "__code__", None)
        if code is None or code in seen:
            continue
        seen.add(code)
        names, imported = _code_facts(code)
        packages |= imported
        for name in names:
            value = namespace.get(name)
            if isinstance(value, Missing):
                missing[name] = value
                packages.add(top_level(value.module_name))
            elif isinstance(value, types.ModuleType):
                packages.add(top_level(value.__name__))
            elif isinstance(value, type) and value.__module__ == module.__name__:
                stack.extend(v for v in vars(value).values() if inspect.isfunction(v))
            elif inspect.isfunction(value) and value.__module__ == module.__name__:
                stack.extend(_function_and_inner(value))
    _USES[key] = packages, missing
    return packages, missing


def pytest_collection_modifyitems(config, items):
    for item in items:
        if not isinstance(item, pytest.Function):
            continue
        packages, missing = _uses(item)
        oracles = sorted(packages & ORACLES.keys())
        if oracles and item.get_closest_marker("oracle") is None:
            item.add_marker(pytest.mark.oracle(*oracles))
        if missing:
            item.add_marker(pytest.mark.skip(reason="; ".join(sorted({m.reason for m in missing.values()}))))


def _missing_optional(exc: BaseException) -> str | None:
    """The optional package an ImportError is about, when it is one and it is not installed."""
    name = getattr(exc, "name", None)
    if isinstance(exc, ImportError) and name and top_level(name) in PIP_NAMES and not installed(name):
        return top_level(name)
    return None


_NO_MODULE = re.compile(r"ModuleNotFoundError: No module named '([\w.]+)'|MissingExtra: .* needs ([\w.]+):")


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector):
    """A test module that imports a missing optional package at module level skips (visibly), not errors.

    Only a safety net: the module should bind the package with ``optional()`` so that only the tests
    that use it skip. Under CI the skip fails the run like any other that is not allowed.
    """
    report = yield
    if report.failed and isinstance(collector, pytest.File):  # test modules and rankmeter's doctest modules
        text = str(report.longrepr)
        match = None if "During handling of the above exception" in text else _NO_MODULE.search(text)
        name = match and (match.group(1) or match.group(2))
        if name and top_level(name) in PIP_NAMES and not installed(name):
            package = top_level(name)
            reason = (f"needs {package}, not installed ({install_hint(package)}); imported at module level: "
                      "bind it with optional() (tests/optional_packages.py) so only the tests using it skip")
            report = pytest.CollectReport(report.nodeid, "skipped", (str(collector.path), 0, reason), [])
    return report


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A missing optional package imported at run time (by rankmeter lazily, or by a fixture) is a visible
    skip naming it, never an error: in setup (a cached module fixture re-raises it too) or in the test."""
    report = yield
    if report.failed and call.excinfo is not None:
        package = _missing_optional(call.excinfo.value)
        if package is not None:
            report.outcome = "skipped"
            report.longrepr = (str(item.path), item.location[1] or 0,
                               f"needs {package}, not installed ({install_hint(package)}); imported at run time: "
                               f"{call.excinfo.value}")
    return report


# ---------------------------------------------------------------------------------------------- the CI skip gate

def _skip_reason(report) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


def pytest_runtest_logreport(report):
    if report.skipped and not hasattr(report, "wasxfail"):
        _record_skip(report)


def pytest_collectreport(report):
    if report.skipped:
        _record_skip(report)


_SKIPS: list[tuple[str, str]] = []


def _record_skip(report):
    _SKIPS.append((report.nodeid, _skip_reason(report)))


def _judged_skips():
    allowed_ones, refused = {}, []
    for nodeid, reason in _SKIPS:
        entry = allowed(reason)
        if entry is None:
            refused.append((nodeid, reason))
        else:
            allowed_ones[entry.key] = allowed_ones.get(entry.key, 0) + 1
    return allowed_ones, refused


def pytest_sessionfinish(session, exitstatus):
    if not os.environ.get("CI") or exitstatus not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        return
    _, refused = _judged_skips()
    if refused:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if not _SKIPS:
        return
    allowed_ones, refused = _judged_skips()
    write = terminalreporter.write_line
    if allowed_ones:
        write("allowed skips (tests/ALLOWED_SKIPS.md): "
              + ", ".join(f"{key} {count}" for key, count in sorted(allowed_ones.items())))
    if refused:
        under_ci = bool(os.environ.get("CI"))
        terminalreporter.write_sep("=", f"{len(refused)} skip(s) not in tests/ALLOWED_SKIPS.md"
                                   + (": CI fails" if under_ci else " (a failure under CI)"),
                                   red=under_ci, yellow=not under_ci)
        for nodeid, reason in refused:
            write(f"SKIP NOT ALLOWED {nodeid}: {reason}")


# ---------------------------------------------------------------------------------------------- the CLI

@pytest.fixture
def cli():
    """Run ``rankmeter ...`` in process: ``cli("eval", qrels, run, "-m", "AP")`` -> CliResult(code, out, err).

    Arguments may be strings, paths or numbers (or one list); ``stdin=`` (bytes or text) and ``cwd=``
    as keywords. Standard streams and the working directory are given back afterwards (main() itself
    leaves warning filters and import finders as it found them). Use ``cli_subprocess`` where the
    process itself is under test.
    """
    return run_cli_in_process


@pytest.fixture
def cli_subprocess():
    """Run ``python -m rankmeter ...`` in a child process; same call and result as ``cli`` (plus ``env=``)."""
    return run_cli_subprocess
