"""The evaluator core: options, measure names, judgments keyed once, ordering + join, batches.

:class:`Evaluator` is what every entry point uses; :mod:`.build` is the only
place a run is ordered and joined to judgments. Names load on first use, so
:mod:`.options` can be imported (by the command line) without pyarrow.
"""
from __future__ import annotations

import importlib

_LAZY = {
    "Evaluator": ".evaluator", "Part": ".evaluator", "evaluate_runs": ".evaluator", "Batch": "rankmeter.engine.batch", "NONPOOL": "rankmeter.engine.batch", "UNJUDGED": "rankmeter.engine.batch",
    "Options": ".options", "OPTIONS": ".options", "validate_options": ".options", "resolve_measures": ".resolve",
    "QUERY_POLICIES": ".options", "TIE_POLICIES": ".options", "EXECUTORS": ".options",
}

__all__ = list(_LAZY)


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'rankmeter.core' has no attribute {name!r}")
