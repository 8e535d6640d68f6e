"""Fusion of several runs into one, with ranx's method and normalisation names.

:func:`fuse` aligns the runs on (query, doc) once (Arrow dictionary encoding of
the pairs), normalises each run's scores per query (:mod:`.normalisation`) and
combines the aligned score matrix with one numpy expression per method
(:mod:`.methods`). Rank-based methods (``rrf``, ``isr``, ``rbc`` ...) read each
run's ranks in the core's order (score descending, docno descending; ``ties="input"``: the order given,
as ranx reads a run). Every parameter is declared, with its valid range, in :mod:`.catalog`; the runs are
read and checked as ``evaluate`` reads them, and trained methods join them to judgments through the core
(:meth:`rankmeter.core.Evaluator.rows`) under the evaluation options given.

>>> import rankmeter
>>> fused = rankmeter.fuse([{"q": {"a": 3.0, "b": 2.0}}, {"q": {"b": 9.0, "c": 1.0}}], method="rrf")
>>> [(d.decode(), round(s, 6)) for d, s in zip(fused.table.column("doc").to_pylist(),
...                                           fused.table.column("score").to_pylist())]
[('b', 0.032522), ('a', 0.016393), ('c', 0.016129)]
"""
from rankmeter.fusion.catalog import METHODS, NORMS

__all__ = ["fuse", "normalise", "optimise", "METHODS", "NORMS"]


def __getattr__(name: str):  # the numpy-backed functions load on first use (the CLI starts faster)
    if name == "fuse":
        from rankmeter.fusion.methods import fuse
        return fuse
    if name == "optimise":
        from rankmeter.fusion.tuning import optimise
        return optimise
    if name == "normalise":
        from rankmeter.fusion.normalisation import normalise
        return normalise
    raise AttributeError(f"module 'rankmeter.fusion' has no attribute {name!r}")
