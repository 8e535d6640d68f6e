"""Readers: one module per input kind, each yielding the canonical tables.

* :mod:`.trec` -- TREC qrels and run files (with :mod:`.source`, the bytes of
  a path, stdin or file object, and :mod:`.arrow_path`, the Arrow parsers);
* :mod:`.dicts` -- pytrec_eval-style dicts and ranked lists;
* :mod:`.frames` -- pandas / polars DataFrames and Arrow tables.

Every problem is a :class:`~rankmeter.errors.InputError` naming the file and
line, the dict key or the frame row. Inputs are only read, never modified.
"""
from __future__ import annotations

import os
from collections.abc import Mapping

from ..errors import InputError
from .canonical import Qrels, Run
from .dicts import qrels_from_dict, run_from_dict
from .frames import is_frame, qrels_from_frame, run_from_frame
from .trec import load_bytes, read_qrels, read_run

__all__ = ["read_qrels", "read_run", "load_bytes", "as_qrels", "as_run"]


def as_qrels(obj, *, columns: dict | None = None, truncate_grades: bool = False) -> Qrels:
    """Any accepted qrels input (path, Qrels, dict, DataFrame) -> :class:`Qrels`.

    ``truncate_grades=True`` truncates non-integer grades toward zero as
    trec_eval does, instead of refusing them. The input is never modified.
    """
    if isinstance(obj, Qrels):
        return obj
    if isinstance(obj, Run):
        raise InputError("got a Run where qrels were expected; check the argument order")
    if isinstance(obj, (str, bytes, os.PathLike)) or hasattr(obj, "read"):
        return read_qrels(obj, truncate_grades=truncate_grades)
    if isinstance(obj, Mapping):
        return qrels_from_dict(obj, truncate_grades=truncate_grades)
    if is_frame(obj):
        return qrels_from_frame(obj, columns=columns, truncate_grades=truncate_grades)
    raise InputError(f"cannot read qrels from a {type(obj).__name__}; pass a path, a dict "
                     "{query: {doc: grade}} or a DataFrame with columns query, doc, rel")


def as_run(obj, *, columns: dict | None = None) -> Run:
    """Any accepted run input (path, Run, dict, ranked lists, DataFrame) -> :class:`Run`.

    The input is never modified.
    """
    if isinstance(obj, Run):
        return obj
    if isinstance(obj, Qrels):
        raise InputError("got Qrels where a run was expected; check the argument order")
    if isinstance(obj, (str, bytes, os.PathLike)) or hasattr(obj, "read"):
        return read_run(obj)
    if isinstance(obj, Mapping):
        return run_from_dict(obj)
    if is_frame(obj):
        return run_from_frame(obj, columns=columns)
    raise InputError(f"cannot read a run from a {type(obj).__name__}; pass a path, a dict "
                     "{query: {doc: score}} or {query: [doc, ...]}, or a DataFrame with columns query, doc, score")
