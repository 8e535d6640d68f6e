"""pytrec_eval's model: its conventions as ``rankmeter diff`` switches them.

Its names and nicknames: :mod:`rankmeter.compat.pytrec_eval.names`; its dict readers:
:mod:`rankmeter.compat.pytrec_eval.dicts`. pytrec_eval (pytrec-eval-terrier 0.5.11) stores each run
score in its bundled trec_eval 9.0.8's ``TEXT_RESULTS.sim``, a C ``float``
(``src/pytrec_eval.cpp`` ``ProcessQueryDocumentPair``: ``pair->sim = PyFloat_AsDouble(...)``), so two
scores equal in single precision tie and are ordered by docno descending; it scores the judged queries
that are keys of the run dict, an empty ranking ``{"q": {}}`` included (0, and its callers average it:
BEIR, MTEB), and rounds nothing; ``compute_aggregated_measure`` sums the counts (``num_*``).
"""
from __future__ import annotations

from rankmeter.compat.convention import COUNTS, Convention

__all__ = ["CONVENTION"]

CONVENTION = Convention("pytrec_eval", scores="float32", empty_ranking="zero",
                        overrides=tuple((family, {"aggregate": "sum"}) for family in COUNTS),
                        note="trec_eval's measures unrounded, scores as C floats; the judged queries the run names "
                             "(an empty ranking scores 0)")
