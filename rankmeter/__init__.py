"""rankmeter: score ranked results against relevance judgments, exactly as trec_eval does.

>>> import rankmeter
>>> r = rankmeter.evaluate({"q": {"a": 1, "b": 1}}, {"q": {"a": 2.0, "c": 1.0, "b": 0.5}}, ["AP", "nDCG@3"])
>>> round(r["AP"], 4)
0.8333

The names below load on first use (PEP 562), so ``import rankmeter`` and the
command line start without importing numpy, pyarrow or anything a command
does not need.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from ._version import __version__
from .errors import InputError, MeasureError, ParameterError, RankmeterError

#: public name -> the module that defines it
_LAZY = {
    "evaluate": ".api", "Results": ".results", "Evaluator": ".engine.evaluator", "explain": ".explanations",
    "Explanation": ".explanations", "read_qrels": ".io", "read_run": ".io", "Measure": ".measures",
    "parse_measure": ".measures", "Qrels": ".io.canonical", "Run": ".io.canonical", "compare": ".stats.compare",
    "compare_scores": ".stats.compare", "Comparison": ".stats.comparison", "fuse": ".fusion", "judged": ".judged_report", "tie_report": ".ties",
    "TieReport": ".ties",
}

__all__ = [
    "evaluate", "Evaluator", "Results", "explain", "Explanation", "read_qrels", "read_run", "parse_measure", "Measure",
    "Qrels", "Run", "compare", "compare_scores", "Comparison", "fuse", "judged", "tie_report", "TieReport",
    "RankmeterError", "InputError", "MeasureError", "ParameterError", "__version__",
]

if TYPE_CHECKING:  # for type checkers and IDEs: the eager imports
    from .api import evaluate
    from .engine.evaluator import Evaluator
    from .explanations import Explanation, explain
    from .io import read_qrels, read_run
    from .io.canonical import Qrels, Run
    from .measures import Measure, parse_measure
    from .results import Results
    from .stats.compare import compare, compare_scores
    from .stats.comparison import Comparison
    from .fusion import fuse
    from .judged_report import judged
    from .ties import TieReport, tie_report


#: subpackages reachable as attributes (``rankmeter.io.as_run``) without importing them up front
_SUBMODULES = {"compat", "engine", "executors", "explanations", "io", "measures", "meta", "output", "recsys",
               "report", "stats", "types", "progress", "check",
               "judged_report"}


def __getattr__(name: str):
    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'rankmeter' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
