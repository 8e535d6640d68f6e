"""The evaluator core: options, measure names, judgments keyed once, ordering + join, batches.

:class:`Evaluator` is what every entry point uses; :mod:`.build` is the only
place a run is ordered and joined to judgments.
"""
from .batch import NONPOOL, UNJUDGED, Batch
from .evaluator import Evaluator, Part
from .options import EXECUTORS, OPTIONS, QUERY_POLICIES, TIE_POLICIES, Options, validate_options
from .resolve import resolve_measures

__all__ = ["Evaluator", "Part", "Batch", "NONPOOL", "UNJUDGED", "Options", "OPTIONS", "validate_options",
           "resolve_measures", "QUERY_POLICIES", "TIE_POLICIES", "EXECUTORS"]
