"""trec_eval's own arithmetic where it differs from the canonical measures: set_F, 11pt_avg and yaap.

:class:`Derived` values are computed in compat from canonical measures, as trec_eval's C code computes
them (``rankmeter trec_eval`` uses them, see :attr:`rankmeter.measures.trec_eval.TrecMeasure.exact`), and
:func:`ordered_floats` reads a parameter string as trec_eval's get_double_params does.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from rankmeter.errors import MeasureError
from rankmeter.measures.base import Measure
from rankmeter.measures.iprec import eleven_point_walk

__all__ = ["Derived", "ordered_floats", "set_f", "eleven_point", "yaap"]


@dataclass(frozen=True)
class Derived:
    """A trec_eval value computed in compat from canonical measures with trec_eval's own arithmetic.

    ``compute(*per_query_arrays_of_needs) -> per-query values``; summarised by the mean.
    """

    name: str
    needs: tuple
    compute: Callable[..., np.ndarray]


def ordered_floats(name: str, text: str) -> list[float]:
    """Numbers in the order given, duplicates kept (trec_eval's get_double_params)."""
    try:
        return [float(v) for v in text.split(",")]
    except ValueError:
        raise MeasureError(f"trec_eval measure {name}: cannot read parameters {text!r}; "
                           "expected numbers separated by commas") from None


def set_f(text: str | None) -> "Derived":
    """set_F.x: m_set_F.c uses only the first number, x, as is: (x+1)PR / (xP + R).

    Computed here from the counts with trec_eval's own arithmetic, so ``set_F.0.5`` keeps
    x = 0.5 exactly (going through beta = sqrt(x) and back gives 0.5000000000000001).
    """
    x = 1.0 if text is None else ordered_floats("set_F", text)[0]
    if x < 0:
        raise MeasureError(f"trec_eval measure set_F: the weight must be >= 0, got {text!r}")

    def compute(rel_ret, ret, rel):
        with np.errstate(invalid="ignore", divide="ignore"):
            P = rel_ret / ret
            R = rel_ret / rel
            return np.where(rel_ret > 0, (x + 1.0) * P * R / (x * P + R), 0.0)
    return Derived("set_F", (Measure.of("NumRelRet"), Measure.of("NumRet"), Measure.of("NumRel")), compute)


def eleven_point(text: str | None):
    """11pt_avg: the canonical IPrecAvg for sorted levels; m_11pt_avg.c's order-dependent walk otherwise.

    m_11pt_avg.c scans the levels from the last one down, matching each level's cutoff
    c = lround(x * R) against the relevant count as it falls: trailing levels with c above
    the relevant retrieved count score 0; a level reached gets its interpolated precision;
    once a level cannot be reached any more (c of 0, or above one already passed) it and all
    before it get the final interpolated precision (that of recall 0).
    """
    if text is None:
        return Measure.of("IPrecAvg")
    levels = ordered_floats("11pt_avg", text)
    if levels == sorted(levels):
        return Measure.of("IPrecAvg", {"recalls": levels})
    needs = tuple(Measure.of("IPrec", {}, x) for x in levels) + (
        Measure.of("IPrec", {}, 0.0), Measure.of("NumRel"), Measure.of("NumRelRet"))

    def compute(*arrays):
        iprec, final, num_rel, rel_ret = arrays[:len(levels)], arrays[-3], arrays[-2], arrays[-1]
        cuts = [np.floor(x * num_rel + 0.5) for x in levels]
        return eleven_point_walk(cuts, iprec, rel_ret, final)
    return Derived("11pt_avg", needs, compute)


def yaap(text: str | None) -> "Derived":
    """m_yaap.c: log((1 + S) / (1 + R - S)), S the sum of the precisions at the relevant ranks."""
    if text is not None:
        raise MeasureError(f"trec_eval measure yaap takes no parameters (got {text!r})")

    def compute(ap, rel):
        s = ap * rel
        return np.log((1.0 + s) / (1.0 + rel - s))
    return Derived("yaap", (Measure.of("AP"), Measure.of("NumRel")), compute)
