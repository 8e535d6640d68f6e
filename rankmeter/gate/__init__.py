"""Retrieval quality as a regression test: a saved baseline and a one-sided non-inferiority gate.

:mod:`.saved` -- :func:`baseline`: per-query values of every measure with their provenance (qrels digest,
measures with every option, rankmeter's version, the runs' digests and tags, the date), several runs of a
nondeterministic system in one baseline; :func:`load_baseline`, :func:`save_baseline`.
:mod:`.one_sided` -- the one-sided paired tests of "worse than the baseline by at least the margin", the
confidence interval of the difference and the minimum detectable drop.
:mod:`.checks` -- :func:`gate`: every measure (and slice) checked, corrected across them, refused when the
inputs are not comparable; :class:`GateResult`.
"""
_WHERE = {"baseline": "saved", "load_baseline": "saved", "save_baseline": "saved", "Baseline": "saved",
          "gate": "checks", "GateResult": "checks", "read_slices": "saved",
          "regression_test": "one_sided", "minimum_detectable_drop": "one_sided"}
__all__ = list(_WHERE)


def __getattr__(name: str):  # numpy on first use only
    if name in _WHERE:
        import importlib
        return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(f"module 'rankmeter.gate' has no attribute {name!r}")
