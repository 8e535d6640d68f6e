"""ranx's model: its conventions as ``rankmeter diff`` switches them, and the order it gives tied scores.

Its metric names: :mod:`rankmeter.compat.ranx.metrics`; its readers: :mod:`rankmeter.compat.ranx.data` and
:mod:`~rankmeter.compat.ranx.files`. ranx 0.3 counts a grade below the level as not relevant (no gain),
scores every qrels query (``make_comparable``: a missing one is an empty ranking, 0), and orders each
query's docs by its own unstable sort (:func:`ranked`, reproduced in :mod:`rankmeter.compat.ranx.ties`):
the drop-in's ``Run`` and ``rankmeter diff --as ranx`` both order tied docs with it.
"""
from __future__ import annotations

from rankmeter.compat.convention import Convention

__all__ = ["CONVENTION", "ranked"]


def ranked(docs: dict, *, sorts: int = 2) -> dict:
    """One query's ``{doc: score}`` in the order ranx leaves it (``-score`` by numba's quicksort), ``sorts`` times:
    ``Run(dict)`` sorts once and ``make_comparable`` (which ``evaluate(..., make_comparable=True)`` calls, the
    flow that scores a missing query 0) sorts again; an unstable sort of a sorted list moves tied docs again."""
    from rankmeter.compat.ranx.ties import order
    for _ in range(sorts):
        names = list(docs)
        docs = {names[i]: docs[names[i]] for i in order(list(docs.values()))}
    return docs


CONVENTION = Convention("ranx", ties="ranx", negative_grades="zero", missing_query="zero", empty_ranking="zero",
                        note="grades below the level gain nothing; every qrels query averaged (a missing one scores "
                             "0); tied scores in ranx's own sort order (numba's quicksort of -score)")
