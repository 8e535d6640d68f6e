"""How every table shows a number: one formatter for text tables, HTML, notebooks and explanations.

The rule of :mod:`rankmeter.core.results` holds everywhere: a value that cannot be computed (NaN,
infinite) is never shown as a number; each medium only chooses the mark (``-`` in text tables, an en
dash in HTML). Counts (integers) keep every digit. Other numbers show ``decimals`` decimals, 4 by
default as trec_eval prints them, so the columns of a table line up; ``trim=True`` drops the trailing
zeros instead (``0.5``, ``2``), for the gains, grades and terms of an explanation, where a column of
``2.0000`` would hide which values are whole. trec_eval's own output (``rankmeter trec_eval``) is not
shown through here: it copies trec_eval's C format byte for byte.

>>> format_number(0.5), format_number(3), format_number(float("nan")), format_number(None)
('0.5000', '3', '-', '-')
>>> format_number(0.25, trim=True), format_number(2.0, trim=True), format_number(0.0123, 2, sign=True)
('0.25', '2', '+0.01')
>>> format_number(-0.00001, sign=True), format_number(-0.00001)
('+0.0000', '-0.0000')
>>> format_cell(True), format_cell(None), format_cell("q1")
('✓', '', 'q1')
"""
from __future__ import annotations

import math
import sys
from collections.abc import Iterable
from numbers import Integral, Real

__all__ = ["format_number", "format_numbers", "format_cell", "UNDEFINED", "CHECK"]

#: How a text table marks a value that cannot be computed.
UNDEFINED = "-"
#: How a table shows True (False is an empty cell).
CHECK = "\u2713"


def _flag(value) -> bool:
    """True and False, Python's or numpy's (numpy is looked up only if loaded: the CLI starts without it)."""
    if isinstance(value, bool):
        return True
    np = sys.modules.get("numpy")
    return np is not None and isinstance(value, np.bool_)


def _integer(value) -> bool:
    return isinstance(value, Integral) and not _flag(value)  # numpy's integers register as Integral


def format_number(value, decimals: int = 4, *, trim: bool = False, sign: bool = False,
                  undefined: str = UNDEFINED) -> str:
    """One number as every table shows it (see the module docstring).

    Parameters
    ----------
    value : int, float, numpy scalar or None
        None, NaN and infinities are ``undefined``.
    decimals : int, default 4
        Decimals of a non-integer.
    trim : bool, default False
        Drop trailing zeros (and the point of a whole number).
    sign : bool, default False
        Always show the sign (a difference: ``+0.0123``); one that rounds to zero is ``+0.0000``.
    undefined : str, default "-"
        The mark of a value that cannot be computed.
    """
    if value is None:
        return undefined
    if _integer(value):
        return f"{int(value):+d}" if sign else str(int(value))
    value = float(value)
    if not math.isfinite(value):
        return undefined
    if trim and value.is_integer():  # a whole number as an integer (-0.0 included)
        return format_number(int(value), sign=sign)
    text = f"{value:.{decimals}f}"
    if sign:  # a difference that rounds to zero is neither a gain nor a loss: +0.0000, never -0.0000
        text = "+" + text[1:] if text == f"-{0.0:.{decimals}f}" else text if text[0] == "-" else "+" + text
    if trim and "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def format_numbers(values: Iterable[float], decimals: int = 4, *, undefined: str = UNDEFINED) -> list[str]:
    """:func:`format_number` of each float of ``values`` (a numpy array's ``tolist()``), for large per-query
    tables: the same text, without a call per value."""
    fixed = f"{{:.{decimals}f}}".format
    return [fixed(v) if v - v == 0 else undefined for v in values]  # v - v is NaN for NaN and infinities


def format_cell(value, decimals: int = 4, *, trim: bool = False, undefined: str = UNDEFINED,
                empty: str = "", marks: tuple[str, str] = (CHECK, "")) -> str:
    """A table cell: a number by :func:`format_number`, True and False by ``marks`` (a check mark and an
    empty cell; plain text that any terminal encodes says ``("True", "False")``), None as ``empty``,
    anything else (ids, names) as its text, for the caller to escape."""
    if value is None:
        return empty
    if _flag(value):
        return marks[0] if value else marks[1]
    if isinstance(value, Real):  # numpy's floats and integers included
        return format_number(value, decimals, trim=trim, undefined=undefined)
    return str(value)
