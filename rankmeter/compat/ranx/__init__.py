"""ranx's API over rankmeter: change ``from ranx import ...`` to ``from rankmeter.compat.ranx import ...``.

``Qrels``, ``Run``, ``evaluate``, ``compare`` (a ``Report``), ``fuse`` and ``optimize_fusion`` take
ranx 0.3's arguments and give its numbers on untied scores; see docs/migrate-ranx.md for what
differs (ties, Tukey, ranxhub).
"""
from rankmeter.compat.ranx.data import Qrels, Run
from rankmeter.compat.ranx.evaluation import evaluate

__all__ = [
    "OptimizationReport",
    "Qrels",
    "Report",
    "Run",
    "compare",
    "evaluate",
    "fuse",
    "normalize",
    "optimize_fusion",
]


def __getattr__(name: str):
    if name in ("compare", "Report"):
        from rankmeter.compat.ranx import report
        return getattr(report, name)
    if name in ("fuse", "normalize", "optimize_fusion", "OptimizationReport"):
        from rankmeter.compat.ranx import fusion
        return getattr(fusion, name)
    raise AttributeError(f"module 'rankmeter.compat.ranx' has no attribute {name!r}")
