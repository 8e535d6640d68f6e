"""Measure families, one module each, all registered in :data:`REGISTRY`.

>>> from rankmeter.measures import nDCG, AP
>>> str(nDCG@10), str(AP(rel=2)@100)
('nDCG@10', 'AP(rel=2)@100')
"""
from __future__ import annotations

from rankmeter.measures import (
    counts, ap, precision, recall, rr, bpref, infap, iprec, utility, dcg, rbp, judged, relstring,
)  # noqa: F401
from rankmeter.measures import err, auc, kendall, diversity, compat, fallout, cwl  # noqa: F401  (imported for registration)
from rankmeter.measures.base import COMMON_PARAMS, REGISTRY, Family, Measure, Param, family_of, register
from rankmeter.measures.grammar import format_measure, parse_measure

__all__ = ["REGISTRY", "Family", "Measure", "Param", "COMMON_PARAMS", "register", "family_of",
           "parse_measure", "format_measure"]


def __getattr__(name: str):
    """``rankmeter.measures.nDCG`` etc.: the family object, usable as ``nDCG(gain="exp")@10``."""
    if name in REGISTRY:
        return REGISTRY[name]
    raise AttributeError(name)
