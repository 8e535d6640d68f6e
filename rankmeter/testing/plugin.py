"""rankmeter's pytest plugin (entry point ``pytest11``): the ``retrieval_gate`` fixture and ``--update-baselines``.

::

    def test_search_quality(retrieval_gate):
        retrieval_gate("qrels.txt", run_my_system(), "baselines/search.json", margin=0.01)
"""
from __future__ import annotations

import functools

import pytest


def pytest_addoption(parser):
    parser.getgroup("rankmeter").addoption(
        "--update-baselines", action="store_true", default=False,
        help="rankmeter: replace each baseline a retrieval_gate test passes with its new run (the ratchet)")


@pytest.fixture
def retrieval_gate(request):
    """:func:`rankmeter.testing.assert_no_regression`, ratcheting the baseline under ``--update-baselines``."""
    from rankmeter.testing import assert_no_regression
    return functools.partial(assert_no_regression, update=request.config.getoption("--update-baselines"))
