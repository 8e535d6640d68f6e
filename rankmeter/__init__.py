"""rankmeter: score ranked results against relevance judgments, exactly as trec_eval does.

>>> import rankmeter
>>> r = rankmeter.evaluate({"q": {"a": 1, "b": 1}}, {"q": {"a": 2.0, "c": 1.0, "b": 0.5}}, ["AP", "nDCG@3"])
>>> round(r["AP"], 4)
0.8333
"""
from __future__ import annotations

from .api import Results, evaluate
from .engine import Evaluator
from .explain import Explanation, explain
from .errors import InputError, MeasureError, ParameterError, RankmeterError
from .io import read_qrels, read_run
from .measures import Measure, parse_measure
from .stats import Comparison, compare
from .io.canonical import Qrels, Run

from ._version import __version__

__all__ = [
    "evaluate", "Evaluator", "Results", "explain", "Explanation", "read_qrels", "read_run", "parse_measure", "Measure",
    "Qrels", "Run", "compare", "Comparison",
    "RankmeterError", "InputError", "MeasureError", "ParameterError", "__version__",
]
