"""The parameters of the LLM-judge analyses, declared once for their functions and ``rankmeter judges``/``agree``.

The analyses validate their keywords with these declarations (:func:`~rankmeter.engine.param.validate_params`)
and the commands make their flags from them, so a keyword and its flag say the same. No numpy here: the command
line reads them before any analysis is imported.
"""
from __future__ import annotations

from rankmeter.engine.param import Param

__all__ = ["UNIT", "BUDGET", "STRATA", "WIDTH", "DESIGN"]

# estimates and allocation (rankmeter.analyses.judges.ppi, .allocation, .design)
UNIT = Param("unit", "choice", "auto", "what HUMAN is a random sample of: whole queries, or (query, doc) pairs "
             "(for measures that are sums over the ranked documents: P@k, DCG@k, RBP); auto: the design's unit with "
             "--design, else queries when every query HUMAN touches has all its LLM-judged pairs within the runs' "
             "depth labelled", group="judges", choices=("auto", "queries", "pairs"))
BUDGET = Param("budget", "integer", None, "human labels (queries, or pairs with --unit pairs) to spend next",
               group="judges", low=1, required=True, metavar="N")
STRATA = Param("strata", "integer", 4, "strata of the LLM's metric the budget is spread over (Neyman)",
               group="judges", low=1, high=100)
WIDTH = Param("width", "number", None, "a target interval width: how many labelled queries (or pairs, of the first "
              "run) reach it", group="judges", low=0, low_open=True, optional=True)
DESIGN = Param("design", "path", None, "the stratified design the human labels were drawn by (the file `judges "
               "allocate -o FILE` wrote): each stratum weighted by its size, as the design needs", group="judges",
               metavar="FILE")
