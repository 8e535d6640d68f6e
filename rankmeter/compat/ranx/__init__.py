"""ranx's API over rankmeter: change ``from ranx import ...`` to ``from rankmeter.compat.ranx import ...``.

``Qrels``, ``Run``, ``evaluate``, ``compare`` (a ``Report``), ``fuse``, ``normalize`` and
``optimize_fusion`` take ranx 0.3's arguments and give its numbers on untied scores; ranx's modules
are here under the same names (``rankmeter.compat.ranx.metrics.ndcg``, ``.normalization.min_max_norm``,
``.fusion.rrf``, ``.data_structures``). See docs/migrate-ranx.md for what differs (ties, bpref
without a judged non-relevant doc, ranxhub).
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
    if name in ("fuse", "optimize_fusion", "OptimizationReport"):
        from rankmeter.compat.ranx import fusion
        return getattr(fusion, name)
    if name in ("metrics", "fusion", "normalization", "data_structures"):  # ranx's modules, as ranx.metrics ...
        import importlib
        return importlib.import_module(f"rankmeter.compat.ranx.{name}")
    if name == "normalize":
        from rankmeter.compat.ranx.normalization import normalize
        return normalize
    raise AttributeError(f"module 'rankmeter.compat.ranx' has no attribute {name!r}")
