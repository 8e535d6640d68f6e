"""rankmeter's pytest plugin (entry point ``pytest11``): the ``retrieval_gate`` fixture and ``--update-baselines``.

::

    def test_search_quality(retrieval_gate):
        retrieval_gate("qrels.txt", run_my_system(), "baselines/search.json", ["nDCG@10"], margin=0.01)

``pytest --update-baselines`` makes a missing baseline from the test's run and ratchets the others (replaced
only when the test passes and no check's mean is lower; ``--allow-lower-baselines`` lets them go down,
``--only-if-better-baselines`` requires a significant gain); without it a missing baseline fails its test with
the command that makes it.
"""
from __future__ import annotations

import functools
import shlex

import pytest


def pytest_addoption(parser):
    group = parser.getgroup("rankmeter")
    group.addoption("--update-baselines", action="store_true", default=False,
                    help="rankmeter: make each missing baseline of a retrieval_gate test from its run, and replace "
                         "each one a test passes with its new run when no check is lower (the ratchet)")
    group.addoption("--allow-lower-baselines", action="store_true", default=False,
                    help="rankmeter: with --update-baselines, replace a baseline also when a check is lower "
                         "(within the margin)")
    group.addoption("--only-if-better-baselines", action="store_true", default=False,
                    help="rankmeter: with --update-baselines, replace a baseline only when some check is "
                         "significantly better")


@pytest.fixture
def retrieval_gate(request):
    """:func:`rankmeter.testing.assert_no_regression`, ratcheting the baseline under ``--update-baselines``."""
    from rankmeter.testing import assert_no_regression
    command = f"run `pytest --update-baselines {shlex.quote(request.node.nodeid)}` to make it from this test's run"
    config = request.config
    return functools.partial(assert_no_regression, update=config.getoption("--update-baselines"),
                             allow_lower=config.getoption("--allow-lower-baselines"),
                             only_if_better=config.getoption("--only-if-better-baselines"), make_it=command)
