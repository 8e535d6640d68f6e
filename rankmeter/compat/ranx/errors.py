"""The drop-in's errors: rankmeter's (one line, what to do), each also of the type ranx raises there.

A script written for ranx that catches ranx's exception (``except AssertionError`` around
``evaluate`` with mismatched queries, ``except TypeError`` around a call missing its weights)
catches the drop-in's too; one that catches rankmeter's (``except rankmeter.InputError``) as well.

>>> issubclass(InputAssertion, AssertionError) and issubclass(InputAssertion, ValueError)
True
"""
from __future__ import annotations

from rankmeter.errors import InputError, MeasureError, ParameterError

__all__ = ["InputAssertion", "InputFileNotFound", "InputKeyError", "InputTypeError", "MeasureAssertion", "MeasureTypeError", "ParameterAssertion",
           "ParameterNotImplemented", "ParameterTypeError"]


class InputAssertion(InputError, AssertionError):
    """Inputs ranx refuses with an ``assert`` (qrels and run with other queries, one run to fuse)."""


class InputTypeError(InputError, TypeError):
    """An input of a type ranx cannot take (a list where a dict of dicts goes)."""


class MeasureAssertion(MeasureError, AssertionError):
    """A metric ranx refuses with an ``assert`` (a negative cutoff, a name that is not a string)."""


class MeasureTypeError(MeasureError, TypeError):
    """Metrics that are not a name or a list of names."""


class ParameterAssertion(ParameterError, AssertionError):
    """A parameter ranx refuses with an ``assert`` (a file kind)."""


class ParameterNotImplemented(ParameterError, NotImplementedError):
    """An option ranx does not implement (a statistical test)."""


class ParameterTypeError(ParameterError, TypeError):
    """A fusion method called without its required parameter (``wsum`` without ``weights``)."""


class InputKeyError(InputError, KeyError):
    """A query or column that is not there (ranx: ``KeyError``), said in one line."""

    __str__ = Exception.__str__


class InputFileNotFound(InputError, FileNotFoundError):
    """A file to read that does not exist (ranx: ``FileNotFoundError``)."""
