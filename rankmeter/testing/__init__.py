"""Retrieval quality in a test suite: :func:`assert_no_regression` fails a test with the gate's markdown report.

>>> from rankmeter.gate import baseline
>>> qrels = {f"q{i}": {"a": 1} for i in range(8)}
>>> saved = baseline(qrels, {f"q{i}": {"a": 2.0, "b": 1.0} for i in range(8)}, ["RR"])
>>> assert_no_regression(qrels, {f"q{i}": {"a": 2.0, "b": 1.0} for i in range(8)}, saved)
>>> assert_no_regression(qrels, {f"q{i}": {"b": 2.0, "a": 1.0} for i in range(8)}, saved)
Traceback (most recent call last):
...
AssertionError: ### ❌ rankmeter gate — regression: RR (all queries)
...

With pytest, the ``retrieval_gate`` fixture (this package's plugin, :mod:`rankmeter.testing.plugin`, registered
when rankmeter is installed) is the same function; ``pytest --update-baselines`` makes it replace each
baseline its test passes with the new run (the ratchet: only when the run is not worse).
"""
from __future__ import annotations

__all__ = ["assert_no_regression"]


def assert_no_regression(qrels, run, baseline, measures=None, *, update: bool = False, **keywords) -> None:
    """Raise AssertionError (its message the markdown report) when ``run`` is worse than ``baseline``.

    Parameters
    ----------
    qrels, run, baseline, measures
        As :func:`rankmeter.gate.gate`; ``baseline`` a path or a loaded baseline.
    update : bool, default False
        When the gate passes and ``baseline`` is a path, replace it with ``run`` (the ratchet).
    **keywords
        The gate's options: ``margin``, ``alpha``, ``test``, ``correction``, ``slices``, ``allow`` ...
    """
    import os

    from rankmeter.gate.saved import load_baseline
    from rankmeter.gate.checks import gate
    from rankmeter.report.gate import gate_report

    base = load_baseline(baseline) if isinstance(baseline, (str, os.PathLike)) else baseline
    result = gate(qrels, run, base, measures, **keywords)
    if result.refused or not result.passed:
        raise AssertionError(gate_report(result, "markdown"))
    if update and isinstance(baseline, (str, os.PathLike)):
        from rankmeter.gate.ratchet import update_baseline
        update_baseline(base, result, qrels, run, baseline)
