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

from rankmeter._version import __version__
from rankmeter.errors import InputError, MeasureError, ParameterError, RankmeterError
from rankmeter.engine.spellings import announce as _announce


def _register_ir_measures_names() -> None:  # NDCG@10, SetF(beta=1), its measure objects
    import rankmeter.compat.ir_measures.model  # noqa: F401  (it registers its names as it loads)


def _register_ranx_names() -> None:  # map@100, ndcg_burges@10, rbp.95
    import rankmeter.compat.ranx.model  # noqa: F401  (it registers its names as it loads)


#: each peer's measure names, registered by its model when a name is not rankmeter's or trec_eval's (so that
#: `import rankmeter` and `-m AP` import neither); ir_measures reads NumRet(rel=k) and SetP(...) before the grammar
_announce(_register_ir_measures_names, heads=("NumRet", "SetP"))
_announce(_register_ranx_names)

#: The public API, in one place: public name -> the module that defines it.
_LAZY = {
    "evaluate": "rankmeter.api", "evaluate_runs": "rankmeter.api", "Results": "rankmeter.core.results",
    "RunsResults": "rankmeter.core.results", "Evaluator": "rankmeter.core.evaluator",
    "explain": "rankmeter.core.explain", "Explanation": "rankmeter.core.explain", "read_qrels": "rankmeter.io",
    "read_run": "rankmeter.io", "Measure": "rankmeter.measures", "parse_measure": "rankmeter.measures",
    "Qrels": "rankmeter.io.canonical", "Run": "rankmeter.io.canonical", "compare": "rankmeter.stats.compare",
    "compare_scores": "rankmeter.stats.compare", "Comparison": "rankmeter.stats.comparison",
    "fuse": "rankmeter.fusion", "judged": "rankmeter.check.judged", "tie_report": "rankmeter.check.ties",
    "TieReport": "rankmeter.check.ties", "baseline": "rankmeter.gate", "gate": "rankmeter.gate",
    "profile": "rankmeter.compat.profiles", "Leaderboard": "rankmeter.leaderboard",
}

__all__ = [
    "evaluate", "evaluate_runs", "Evaluator", "Results", "RunsResults", "explain", "Explanation", "read_qrels",
    "read_run", "parse_measure", "Measure", "Qrels", "Run", "compare", "compare_scores", "Comparison", "fuse",
    "judged", "tie_report", "TieReport", "baseline", "gate", "profile", "leaderboard", "Leaderboard",
    "RankmeterError", "InputError", "MeasureError", "ParameterError", "__version__",
]

#: The package's parts, reachable as attributes (``rankmeter.io.as_run``) without importing them up front.
_SUBPACKAGES = {"api", "check", "cli", "compat", "core", "diff", "engine", "errors", "executors", "fusion", "gate", "io",
                "judges", "leaderboard", "measures", "meta", "nuggets", "recsys", "report", "stats", "tensor", "types"}

if TYPE_CHECKING:  # for type checkers and IDEs: the eager imports
    from rankmeter.api import evaluate, evaluate_runs
    from rankmeter.core.evaluator import Evaluator
    from rankmeter.core.explain import Explanation, explain
    from rankmeter.io import read_qrels, read_run
    from rankmeter.io.canonical import Qrels, Run
    from rankmeter.measures import Measure, parse_measure
    from rankmeter.core.results import Results, RunsResults
    from rankmeter.stats.compare import compare, compare_scores
    from rankmeter.stats.comparison import Comparison
    from rankmeter.fusion import fuse
    from rankmeter.check.judged import judged
    from rankmeter.check.ties import TieReport, tie_report


def __getattr__(name: str):
    if name in _SUBPACKAGES:
        return importlib.import_module(f"rankmeter.{name}")
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'rankmeter' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
