"""ranx's ``ranx.data_structures``: ``Qrels``, ``Run``, ``Report``, ``OptimizationReport``, ``FrozensetDict``.

The classes themselves live in :mod:`~rankmeter.compat.ranx.data`, :mod:`~rankmeter.compat.ranx.report`
and :mod:`~rankmeter.compat.ranx.fusion`; this module holds them under ranx's module name, with
``get_file_kind`` (the file kind of a path, by its extension).

>>> get_file_kind("run.txt"), get_file_kind("qrels.parq")
('trec', 'parquet')
"""
from __future__ import annotations

from rankmeter.compat.ranx.data import Qrels, Run
from rankmeter.compat.ranx.files import get_file_kind
from rankmeter.compat.ranx.fusion import OptimizationReport
from rankmeter.compat.ranx.report import FrozensetDict, Report

__all__ = ["FrozensetDict", "OptimizationReport", "Qrels", "Report", "Run", "get_file_kind"]
