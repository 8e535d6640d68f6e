"""Measure names, as users type them, to :class:`~rankmeter.measures.Measure` objects.

>>> [(label, str(m)) for label, m in resolve_measures(["AP", "P.5,10"])]
[('AP', 'AP'), ('P_5', 'P@5'), ('P_10', 'P@10')]
"""
from __future__ import annotations

from collections.abc import Iterable

from rankmeter.errors import MeasureError, ParameterError
from rankmeter.measures import Measure

__all__ = ["resolve_measures"]


def resolve_measures(measures) -> list[tuple[str, Measure]]:
    """Measure names as typed (any tool's spelling, see :mod:`rankmeter.measures.names`) -> (label, Measure).

    A trec_eval name with several parameters (``P.5,10``) gives several
    measures; so does one string naming several (``"AP nDCG@10"``). A set
    (pytrec_eval's ``{"map", "ndcg_cut"}``) is taken in sorted order. A measure object of another
    library says what it means through its ``to_rankmeter()`` (rankmeter's ir_measures drop-in), or is read by
    the model of its tool (an ir_measures object means what ir_measures computes:
    :func:`~rankmeter.measures.names.measure_of_object`).
    """
    from rankmeter.measures.names import measure_of_object, resolve_name, split_names

    if measures is None:
        raise ParameterError("measures=None: expected a measure name or a list of them, e.g. ['AP', 'nDCG@10']")
    if isinstance(measures, (str, Measure)) or _is_foreign_measure(measures):
        measures = [measures]
    if not isinstance(measures, Iterable):
        raise ParameterError(f"measures={measures!r}: expected a measure name or a list of them")
    if isinstance(measures, (set, frozenset)):
        measures = sorted(measures, key=str)
    out: list[tuple[str, Measure]] = []
    for item in measures:
        if isinstance(item, Measure):
            out.append((str(item), item))
            continue
        if _is_foreign_measure(item):
            # a foreign object means what its tool computes (ir_measures' ERR@k is gdeval's)
            convert = getattr(item, "to_rankmeter", None)
            measure = convert() if callable(convert) else measure_of_object(item)
            out.append((str(measure), measure))
            continue
        if not isinstance(item, str):
            raise ParameterError(f"measures: {item!r} is not a measure name or Measure")
        names = split_names(item)
        if len(names) > 1:
            try:  # a whole string such as "P.5,10" or "iprec_at_recall..25,.5" is one trec_eval name
                out.extend(resolve_name(item))
                continue
            except MeasureError:
                pass
        for name in names or [item]:
            out.extend(resolve_name(name))
    if not out:
        raise ParameterError("measures: give at least one measure, e.g. ['AP', 'nDCG@10']")
    return out


def _is_foreign_measure(obj) -> bool:
    """A measure object of another library: one that says what it means (``to_rankmeter()``), or one a
    registered tool's model reads (an ir_measures object, told apart without importing ir_measures)."""
    from rankmeter.measures.names import is_measure_object
    return callable(getattr(obj, "to_rankmeter", None)) or is_measure_object(obj)
