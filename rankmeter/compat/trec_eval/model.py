"""trec_eval's model: its conventions as ``rankmeter diff`` switches them.

Its names and nicknames are the measure registry's own (:mod:`rankmeter.measures.trec_eval`, the one
copy every trec_eval-speaking peer reads); its text readers are rankmeter's (``rankmeter.io``).
trec_eval 10.0 reads scores as C doubles, orders tied scores by docno descending, averages over the
queries of both files (``-c``: every judged one), sums the counts (``num_ret`` ...) and prints 4 decimals.
"""
from __future__ import annotations

from rankmeter.compat.convention import COUNTS, Convention

__all__ = ["CONVENTION"]

CONVENTION = Convention("trec_eval", rounding=4, overrides=tuple((family, {"aggregate": "sum"}) for family in COUNTS),
                        note="trec_eval's printed values: 4 decimals, ties by docno descending, counts summed")
