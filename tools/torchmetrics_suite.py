"""Run TorchMetrics' own retrieval tests against rankmeter's drop-in classes, through an import shim.

TorchMetrics 1.9.0's source distribution on PyPI holds no tests (``tests/unittests/`` is only in
its repository), so this tool takes a checkout of the repository at the tag::

    git clone --depth 1 --branch v1.9.0 https://github.com/Lightning-AI/torchmetrics /tmp/tm
    python tools/torchmetrics_suite.py /tmp/tm                  # the drop-in (rankmeter's classes)
    python tools/torchmetrics_suite.py /tmp/tm --original       # TorchMetrics itself, for comparison
    python tools/torchmetrics_suite.py /tmp/tm -k "TestMAP" -x   # extra arguments go to pytest

The tests run in a subprocess whose import shim (a pytest plugin loaded before collection) makes ``torchmetrics.retrieval.RetrievalX`` and ``torchmetrics.retrieval.<module>.RetrievalX``
resolve to ``rankmeter.tensor.torchmetrics.RetrievalX``; TorchMetrics' functional API and test
helpers stay TorchMetrics'. ``cachier`` (TorchMetrics' test cache of reference values) is replaced
by a pass-through when it is not installed. DDP tests (marker ``DDP``, a pool of processes) are
left out unless ``--ddp`` is given. Nothing of TorchMetrics is copied into this repository.

This is a tool, not a test: CI reaches PyPI only, where TorchMetrics publishes no tests. In CI,
tests/tensor/test_tensor_torchmetrics_sweep.py checks the same ground against the installed TorchMetrics.
Measured on 2026-11-27 (non-DDP tests, torch 2.13 CPU, scikit-learn 1.9.1): see docs/training.md.
"""
from __future__ import annotations

import argparse
import collections
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SHIM = '''
import sys, types
try:
    import cachier  # noqa: F401
except ImportError:   # TorchMetrics' reference cache: a pass-through
    module = types.ModuleType("cachier")
    module.cachier = lambda **kwargs: (lambda function: function)
    sys.modules["cachier"] = module
if {dropin!r}:
    import importlib
    import torchmetrics.retrieval as theirs
    import rankmeter.tensor.torchmetrics as ours
    for name in theirs.__all__:
        if hasattr(ours, name):
            original = getattr(theirs, name)
            setattr(theirs, name, getattr(ours, name))
            setattr(importlib.import_module(original.__module__), name, getattr(ours, name))
'''


def run(source: Path, *, dropin: bool, ddp: bool, extra: list[str]) -> dict:
    tests = source / "tests"
    if not (tests / "unittests" / "retrieval").is_dir():
        raise SystemExit(f"{source}: no tests/unittests/retrieval (give a checkout of TorchMetrics' repository)")
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "_rankmeter_shim.py").write_text(SHIM.format(dropin=dropin))
        report = Path(tmp, "report.xml")
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([tmp, str(tests), str(ROOT)]))
        if ddp:
            env["USE_PYTEST_POOL"] = "1"
        command = [sys.executable, "-m", "pytest", "unittests/retrieval", "-p", "_rankmeter_shim", "-q",
                   "-p", "no:cacheprovider", "-o", "addopts=", "--rootdir", str(tests), f"--junitxml={report}",
                   "-W", "ignore", "--tb=line", "-m", "DDP" if ddp else "not DDP", *extra]
        done = subprocess.run(command, cwd=tests, env=env, capture_output=True, text=True)
        if not report.exists():
            raise SystemExit(done.stdout[-3000:] + done.stderr[-3000:])
        counts = collections.defaultdict(collections.Counter)
        failures = []
        for case in ET.parse(report).getroot().iter("testcase"):
            group = case.get("classname", "").rsplit(".", 1)[-1]
            outcome = "passed"
            for child in case:
                if child.tag in ("failure", "error", "skipped"):
                    outcome = {"failure": "failed", "error": "error", "skipped": "skipped"}[child.tag]
                    if outcome != "skipped":
                        failures.append((f"{case.get('classname')}::{case.get('name')}",
                                         (child.get("message") or "").splitlines()[0][:160]))
            counts[group][outcome] += 1
    return {"counts": counts, "failures": failures, "tail": done.stdout.strip().splitlines()[-1:]}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path, help="a checkout of github.com/Lightning-AI/torchmetrics at v1.9.0")
    parser.add_argument("--original", action="store_true", help="run against TorchMetrics itself (no shim)")
    parser.add_argument("--ddp", action="store_true", help="run the DDP tests only (a pool of 2 processes)")
    parser.add_argument("--failures", type=int, default=20, help="how many failures to list")
    args, extra = parser.parse_known_args(argv)
    out = run(args.source, dropin=not args.original, ddp=args.ddp, extra=extra)
    total = collections.Counter()
    for group, counter in sorted(out["counts"].items()):
        total.update(counter)
        print(f"{group:32} " + "  ".join(f"{k} {v}" for k, v in sorted(counter.items())))
    print(f"{'total':32} " + "  ".join(f"{k} {v}" for k, v in sorted(total.items())))
    for name, message in out["failures"][:args.failures]:
        print(f"FAILED {name}: {message}")
    return 0 if not out["failures"] else 1


if __name__ == "__main__":
    sys.exit(main())
