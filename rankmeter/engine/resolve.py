"""Measure names, as users type them, to :class:`~rankmeter.measures.Measure` objects.

>>> [(label, str(m)) for label, m in resolve_measures(["AP", "P.5,10"])]
[('AP', 'AP'), ('P_5', 'P@5'), ('P_10', 'P@10')]
"""
from __future__ import annotations

from collections.abc import Iterable

from ..errors import MeasureError, ParameterError
from ..measures import Measure, parse_measure

__all__ = ["resolve_measures"]


def resolve_measures(measures) -> list[tuple[str, Measure]]:
    """Parse measure names (canonical or trec_eval spellings) into (name as given, Measure).

    A trec_eval name with several parameters (``P.5,10``) gives several measures.
    """
    if measures is None:
        raise ParameterError("measures=None: expected a measure name or a list of them, e.g. ['AP', 'nDCG@10']")
    if isinstance(measures, (str, Measure)):
        measures = [measures]
    if not isinstance(measures, Iterable):
        raise ParameterError(f"measures={measures!r}: expected a measure name or a list of them")
    out: list[tuple[str, Measure]] = []
    for item in measures:
        if isinstance(item, Measure):
            out.append((str(item), item))
            continue
        if not isinstance(item, str):
            raise ParameterError(f"measures: {item!r} is not a measure name or Measure")
        try:
            out.append((item, parse_measure(item)))
        except MeasureError as canonical_error:
            from ..compat.trec_eval import TREC_MEASURES, expand, split_name
            if split_name(item)[0] not in TREC_MEASURES or split_name(item)[0] == "runid":
                raise canonical_error from None
            expanded = [(label, m) for label, _, m in expand([item]) if m is not None]
            if not expanded:  # prefs, judgment groups, yaap ...: no canonical measure to compute
                raise MeasureError(f"{item!r} is a trec_eval measure with no canonical form here; compute it "
                                   f"with `rankmeter trec_eval -m {item}` (see docs/trec_eval.md)") from None
            if len(expanded) == 1:
                out.append((item, expanded[0][1]))
            else:
                out.extend(expanded)
    if not out:
        raise ParameterError("measures: give at least one measure, e.g. ['AP', 'nDCG@10']")
    return out
