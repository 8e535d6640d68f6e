"""Gains of grades: linear, exp (2^g - 1) or a map; exp gains of huge grades scaled so that ratios stay numbers.

``exp`` gains overflow a double from grade 1024 on. A query that judges a grade above
:data:`EXP_SAFE_GRADE` has all its gains multiplied by 2^-(its top grade - EXP_SAFE_GRADE): a power of
two, so every product and sum is the unscaled one's, exactly, times that power (barring underflow of
gains 2^960 times smaller than the top one, which cannot change a ratio's double). Ratios (nDCG, NCG,
nDCGRel, RnDCG) are then numbers; a sum itself (DCG, CG) goes back to its scale with ``ldexp``
(:func:`unscaled`) and is refused, naming the query and the grade, where that is beyond double range.

>>> import numpy as np
>>> gain_values(np.array([0, 1, 3]), "exp"), gain_values(np.array([2, 5]), ((5, 10.0),))
(array([0., 1., 7.]), array([ 2., 10.]))
>>> float(gain_values(np.array([3000]), "exp", shift=np.array([3000 - EXP_SAFE_GRADE]))[0]) == 2.0 ** EXP_SAFE_GRADE
True
"""
from __future__ import annotations

import numpy as np

from rankmeter.errors import MeasureError, shown_id

__all__ = ["EXP_SAFE_GRADE", "gain_values", "exp_shift", "gains_of", "unscaled"]


#: Grades up to this give exp gains summed exactly as written; a query judging a higher grade has
#: its gains scaled by 2^-(its top grade - EXP_SAFE_GRADE) (exact: a power of two), so that a ratio
#: (nDCG, NCG, nDCGRel, RnDCG) stays a number; a sum that is itself beyond double range is refused.
EXP_SAFE_GRADE = 960


def gain_values(grades: np.ndarray, spec, shift: np.ndarray | None = None) -> np.ndarray:
    """Gain of each grade under ``spec`` (``"linear"``, ``"exp"`` or ((grade, gain), ...)).

    ``shift`` (exp gains only) scales each gain by 2^-shift: (2^g - 1) * 2^-s
    computed as 2^(g - s) - 2^-s, which does not overflow for any grade.
    """
    g = grades.astype(np.float64)
    if spec == "exp":
        if shift is None:
            with np.errstate(over="ignore"):
                return np.where(grades > 0, np.exp2(g) - 1.0, 0.0)
        if grades.dtype.kind in "iu" and shift.dtype.kind in "iu":
            # integer grades minus an integer shift, exactly: through doubles, 2^63 - 1 and 2^63 - 960 are both
            # 2^63 or 2^63 - 1024 (spacing 2048), and 2^(g - shift) overflowed to inf (nDCG null, the mean
            # silently without the query)
            exponent = (np.where(grades > 0, grades, 0).astype(np.int64) - shift.astype(np.int64)).astype(np.float64)
        else:
            exponent = g - shift
        with np.errstate(under="ignore"):
            return np.where(grades > 0, np.exp2(np.minimum(exponent, EXP_SAFE_GRADE)) - np.exp2(-shift.astype(
                np.float64)), 0.0)
    out = np.where(grades > 0, g, 0.0)
    if not isinstance(spec, str):
        for grade, gain in spec:
            out[grades == grade] = gain
    return out


def exp_shift(batch, spec) -> np.ndarray | None:
    """Per query the power of two its exp gains are scaled down by (None: no query needs it)."""
    if spec != "exp":
        return None
    key = ("exp_shift",)
    if key not in batch._cache:
        integer = batch.judged_rel.dtype.kind in "iu"
        top = np.zeros(batch.nq, np.int64 if integer else np.float64)
        if len(batch.judged_rel):
            np.maximum.at(top, batch.judged_qidx, batch.judged_rel.astype(top.dtype))
        # integer grades: an exact int64 shift (see gain_values); real ones: a whole double
        shift = np.maximum(top - EXP_SAFE_GRADE, 0) if integer else np.maximum(np.ceil(top) - EXP_SAFE_GRADE, 0.0)
        batch._cache[key] = shift if shift.any() else None
    return batch._cache[key]


def gains_of(batch, grades: np.ndarray, qidx: np.ndarray, spec) -> np.ndarray:
    """Gains of ``grades`` (of queries ``qidx``), scaled per query by :func:`exp_shift` where needed."""
    shift = exp_shift(batch, spec)
    return gain_values(grades, spec, None if shift is None else shift[qidx])


def unscaled(batch, m, values: np.ndarray) -> np.ndarray:
    """A sum of gains (CG, DCG) back at its true scale; refused where that is beyond double range."""
    shift = exp_shift(batch, m.get("gain"))
    if shift is None:
        return values
    with np.errstate(over="ignore"):
        out = np.ldexp(values, shift.astype(np.int64))
    bad = ~np.isfinite(out)
    if bad.any():
        q = int(np.flatnonzero(bad)[0])
        top = int(shift[q] + EXP_SAFE_GRADE)
        query = batch.queries[q].decode("utf-8", "replace") if hasattr(batch, "queries") else str(q)
        raise MeasureError(f"{m}: query {shown_id(query)} judges a doc with grade {top}, whose gain 2^{top} - 1 "
                           "is beyond the range of a double (about 2^1024); use nDCG (a ratio, computed "
                           "scaled), gain=linear or a gain map")
    return out
