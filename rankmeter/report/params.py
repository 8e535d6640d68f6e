"""The report's and the plots' own parameters, each declared once.

The same declaration checks the Python keyword (:func:`~rankmeter.engine.param.validate_params` on
:func:`~rankmeter.report.html.write_report` and the functions of :mod:`rankmeter.report.plots`) and makes the
flag of ``rankmeter report`` / ``rankmeter plot``; a module of its own so that building the command line
does not import the report's code.
"""
from __future__ import annotations

from rankmeter.engine.param import Param

__all__ = ["TITLE", "MAX_RANKS", "MAX_EXPLAINED", "BEYOND_K", "STYLE", "PAIR", "RECALLS", "RECALL_LEVELS"]

#: The eleven recall levels of the standard recall-precision graph.
RECALL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)

# the report (rankmeter.report.html)
TITLE = Param("title", "string", help="the page title (default: the run names)")
MAX_RANKS = Param("max_ranks", "integer", help="ranks shown per explanation", low=1)
#: ``--explain-queries`` is the flag's older spelling; on the command line 0 means all (Python: None)
MAX_EXPLAINED = Param("max_explained", "integer", help="explain the first N queries (0: all)", low=0,
                      optional=True)
BEYOND_K = Param("beyond_k", "integer", help="cut each list at its first K items for the beyond-accuracy measures",
                 low=1, optional=True)

# the plots (rankmeter.report.plots)
STYLE = Param("style", "choice", help="dist: how to draw", choices=("box", "violin", "strip"))
PAIR = Param("pair", "strings", help="diff: the two runs (SYSTEM - BASELINE)")
RECALLS = Param("recalls", "numbers", help="the recall levels of the precision-recall curves",
                low=0, high=1)
