"""ranx's model: its metric names, its conventions as ``rankmeter diff`` switches them, and the order it gives
tied scores.

Its metric names (``map@100``, ``ndcg_burges@10``, ``r-precision``, ``rbp.95``, ``ndcg@10-l2``) are read as
rankmeter measures by :func:`read_name`, registered with the measure names at the end of this module (ranx's own
reading of them, with its errors and its grade levels: :mod:`rankmeter.compat.ranx.names`); its readers:
:mod:`rankmeter.compat.ranx.data` and :mod:`~rankmeter.compat.ranx.files`. ranx 0.3 counts a grade below the
level as not relevant (no gain), scores every qrels query (``make_comparable``: a missing one is an empty
ranking, 0), and orders each query's docs by its own unstable sort (:func:`ranked`, reproduced in
:mod:`rankmeter.compat.ranx.ties`): the drop-in's ``Run`` and ``rankmeter diff --as ranx`` both order tied docs
with it.

>>> [(label, str(m)) for label, m in read_name("ndcg_burges@10-l2")]
[('ndcg_burges@10-l2', 'nDCG(gain=exp, rel=2)@10')]
"""
from __future__ import annotations

import re

from rankmeter.compat.convention import Convention
from rankmeter.errors import MeasureError
from rankmeter.measures import Measure
from rankmeter.measures.names import register_spellings

__all__ = ["CONVENTION", "NAMES", "ranked", "read_name"]

#: ranx metric name -> (rankmeter family, fixed parameters)
NAMES = {
    "map": ("AP", {}), "mrr": ("RR", {}), "ndcg": ("nDCG", {}), "ndcg_burges": ("nDCG", {"gain": "exp"}),
    "precision": ("P", {}), "recall": ("R", {}), "f1": ("F1", {}), "hit_rate": ("HitRate", {}),
    "r-precision": ("Rprec", {}), "r_precision": ("Rprec", {}), "bpref": ("Bpref", {}), "dcg": ("DCG", {}),
    "dcg_burges": ("DCG", {"gain": "exp"}), "rbp": ("RBP", {}), "hits": ("Hits", {}),
}
_NAME = re.compile(r"^(?P<name>[a-z_\-]+?)(?:\.(?P<p>\d+))?(?:@(?P<k>\d+))?(?:-l(?P<rel>\d+))?$")


def ranked(docs: dict, *, sorts: int = 2) -> dict:
    """One query's ``{doc: score}`` in the order ranx leaves it (``-score`` by numba's quicksort), ``sorts`` times:
    ``Run(dict)`` sorts once and ``make_comparable`` (which ``evaluate(..., make_comparable=True)`` calls, the
    flow that scores a missing query 0) sorts again; an unstable sort of a sorted list moves tied docs again."""
    from rankmeter.compat.ranx.ties import order
    for _ in range(sorts):
        names = list(docs)
        docs = {names[i]: docs[names[i]] for i in order(list(docs.values()))}
    return docs


def read_name(text: str):
    """A ranx metric name -> ``[(text, Measure)]`` (``rbp.95`` is RBP with p = 0.95, ``-l2`` the relevance
    level), or None for a name that is not ranx's."""
    match = _NAME.match(text)
    if not match or match["name"] not in NAMES:
        return None
    family, fixed = NAMES[match["name"]]
    params = dict(fixed)
    if match["p"]:
        if family != "RBP":
            return None
        params["p"] = float("0." + match["p"])
    if match["rel"]:
        params["rel"] = int(match["rel"])
    k = int(match["k"]) if match["k"] else None
    try:
        return [(text, Measure.of(family, params, k))]
    except MeasureError:
        return None


CONVENTION = Convention("ranx", ties="ranx", negative_grades="zero", missing_query="zero", empty_ranking="zero",
                        note="grades below the level gain nothing; every qrels query averaged (a missing one scores "
                             "0); tied scores in ranx's own sort order (numba's quicksort of -score)")


register_spellings("ranx", read=read_name)
