"""Slow, plain reference implementations of every measure family: the one oracle of the property tests.

:data:`REFERENCE` maps each registered family name to ``f(qrels, ranking, params) -> value``
(see :mod:`reference.measures`); the registry-wide sweep fails for a family missing here.
"""
from . import diversity as _diversity
from . import measures as _measures
from . import trec_loops as _trec_loops
from .measures import *  # noqa: F401,F403
from .measures import __all__ as _all

REFERENCE = {
    **_measures.REFERENCE, **_trec_loops.REFERENCE, **_diversity.REFERENCE,
    "F1": lambda qrels, ranking, params: _measures.f_measure(qrels, ranking, {**params, "beta": 1.0}),
    "GMAP": _measures.average_precision, "GMBpref": _measures.bpref,
}
__all__ = list(_all)
