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
when rankmeter is installed) is the same function; ``pytest --update-baselines`` makes each missing baseline
from its test's run and ratchets the others: a baseline is replaced only when its test passes and no check's
mean is lower (``--allow-lower-baselines`` lets it go down, ``--only-if-better-baselines`` requires a
significant gain), the replaced file kept in its history folder (:mod:`rankmeter.gate.ratchet`).
"""
from __future__ import annotations

__all__ = ["assert_no_regression"]

#: what makes a missing baseline, when no test runner says better
MAKE_IT = "assert_no_regression(..., update=True) makes it from this run (with pytest: pytest --update-baselines)"


def assert_no_regression(qrels, run, baseline, measures=None, *, update: bool = False, allow_lower: bool = False,
                         only_if_better: bool = False, make_it: str | None = None, **keywords) -> None:
    """Raise AssertionError (its message the markdown report) when ``run`` is worse than ``baseline``.

    Parameters
    ----------
    qrels, run, baseline, measures
        As :func:`rankmeter.gate.gate`; ``baseline`` a path or a loaded baseline. A path that does not exist
        yet is made from ``run`` when ``update`` is set (``measures`` then required), else the AssertionError
        says how to make it.
    update : bool, default False
        When the gate passes and ``baseline`` is a path, replace it with ``run`` (the ratchet: only when no
        check's mean is lower, the old file kept in its history folder).
    allow_lower : bool, default False
        With ``update``: replace it also when a check's mean is lower (within the margin).
    only_if_better : bool, default False
        With ``update``: replace it only when some check is significantly better.
    make_it : str, optional
        What the message of a missing baseline says makes it (the pytest plugin gives the exact command).
    **keywords
        The gate's keywords: ``margin``, ``alpha``, ``test``, ``correction``, ``slices``, ``allow`` ..., and the
        evaluation options (``rel=2``, ``judged_only=True`` ...), which the first baseline and its updates are
        scored with too.
    """
    import os

    from rankmeter.gate.saved import load_baseline
    from rankmeter.gate.checks import gate
    from rankmeter.report.gate import gate_report

    if isinstance(baseline, (str, os.PathLike)) and not os.path.lexists(baseline):
        if not update:
            raise AssertionError(f"no baseline at {os.fsdecode(baseline)}: {make_it or MAKE_IT}")
        _first_baseline(qrels, run, baseline, measures, keywords)
        return
    base = load_baseline(baseline) if isinstance(baseline, (str, os.PathLike)) else baseline
    result = gate(qrels, run, base, measures, **keywords)
    if result.refused or not result.passed:
        raise AssertionError(gate_report(result, "markdown"))
    if update and isinstance(baseline, (str, os.PathLike)):
        from rankmeter.gate.ratchet import update_baseline
        update_baseline(base, result, qrels, run, baseline, only_if_better=only_if_better, allow_lower=allow_lower,
                        options=_evaluation_options(keywords))


def _first_baseline(qrels, run, path, measures, keywords) -> None:
    """Make the baseline at ``path`` from ``run`` (``measures`` and the gate's ``slices`` and ``options``)."""
    from rankmeter.errors import ParameterError
    from rankmeter.gate.saved import baseline, save_baseline

    if not measures:
        raise ParameterError(f"no baseline at {path} yet: give the measures to make it with (measures=['nDCG@10'])")
    made = baseline(qrels, run, measures, slices=keywords.get("slices"), **_evaluation_options(keywords))
    save_baseline(made, path, inputs=[p for p in (qrels, run) if isinstance(p, str)])


def _evaluation_options(keywords) -> dict:
    """The evaluation options among the gate's keywords (what a baseline is scored with)."""
    from rankmeter.core.options import OPTIONS

    return {name: value for name, value in keywords.items() if name in OPTIONS}
