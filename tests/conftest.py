"""Shared test settings: the golden-file folder and hypothesis profiles.

Hypothesis runs with no per-example deadline (timings on a shared 2-core CI
machine vary too much for one). Under CI (``CI`` set in the environment)
examples are derandomised, so a CI failure reproduces on the next run; a
local run explores fresh examples each time.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

try:
    from hypothesis import HealthCheck, settings
except ImportError:  # pragma: no cover - hypothesis is in the [test] extra
    settings = None

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"

if settings is not None:
    settings.register_profile("dev", deadline=None, print_blob=True)
    settings.register_profile("ci", deadline=None, print_blob=True, derandomize=True,
                              suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


@pytest.fixture(scope="session")
def golden_dir() -> Path:
    """The folder of trec_eval 10.0's test inputs and expected outputs."""
    return GOLDEN_DIR
