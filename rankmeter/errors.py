"""Exceptions raised by rankmeter.

Every error a user can cause is a :class:`RankmeterError`; its message says
where (file and line when there is one), what is wrong and what to do. The
CLI prints it on one line and exits with status 2.
"""
from __future__ import annotations

__all__ = ["RankmeterError", "InputError", "MeasureError", "ParameterError"]


class RankmeterError(Exception):
    """Base class of every error rankmeter raises on purpose."""


class InputError(RankmeterError, ValueError):
    """A qrels or run input is missing, unreadable or malformed.

    Parameters
    ----------
    message : str
        What is wrong and what to do.
    source : str, optional
        The file name (or a description such as ``"<stdin>"``).
    line : int, optional
        1-based line number in ``source``.
    """

    def __init__(self, message: str, *, source: str | None = None, line: int | None = None):
        self.source = source
        self.line = line
        where = ""
        if source is not None:
            where = f"{source}:{line}: " if line is not None else f"{source}: "
        super().__init__(where + message)


class MeasureError(RankmeterError, ValueError):
    """A measure name or parameter is unknown or invalid."""


class ParameterError(RankmeterError, ValueError):
    """A keyword argument of a public function has an invalid value."""
